// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl.ko: NUMA kernel text replication for stock kernels (the engine
 * in replica/) published through debugfs (the publisher in debugfs/).
 */
#include <linux/module.h>

#include "debugfs/publish.h"
#include "replica/engine.h"

static int __init ktrepl_init(void)
{
	int ret = ktr_engine_init();

	if (ret) {
		pr_err("ktrepl: not loaded: replication setup failed (%d); see the messages above\n",
		       ret);
		return ret;
	}
	ret = ktrepl_publish(ktr_engine_provider());
	if (ret) {
		ktr_engine_exit();
		pr_err("ktrepl: not loaded: publishing failed (%d)\n", ret);
	}
	return ret;
}

static void __exit ktrepl_exit(void)
{
	ktrepl_unpublish();
	ktr_engine_exit();
}

module_init(ktrepl_init);
module_exit(ktrepl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NUMA kernel text replication and its debugfs view");
