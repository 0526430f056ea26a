// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl.ko: NUMA kernel text replication for stock kernels (the engine
 * in replica/) published through debugfs (the publisher in debugfs/).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "debugfs/publish.h"
#include "replica/engine.h"

static int __init ktrepl_init(void)
{
	int ret = ktr_engine_init();

	if (ret) {
		pr_err("not loaded: replication setup failed (%d); see the messages above\n",
		       ret);
		return ret;
	}
	ret = ktrepl_publish(ktr_engine_provider());
	if (ret) {
		ktr_engine_stop();
		ktrepl_unpublish();
		ktr_engine_free();
		pr_err("not loaded: publishing failed (%d)\n", ret);
	}
	return ret;
}

/*
 * The producers stop first: a sync or a worker still running would call
 * back into a publisher that is gone (the descriptor's pages are freed).
 */
static void __exit ktrepl_exit(void)
{
	ktr_engine_stop();
	ktrepl_unpublish();
	ktr_engine_free();
}

module_init(ktrepl_init);
module_exit(ktrepl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NUMA kernel text replication and its debugfs view");
