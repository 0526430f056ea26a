// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl.ko: NUMA kernel text replication for stock kernels (the engine
 * in replica/) published through debugfs (the publisher in debugfs/).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/panic.h>
#include <linux/utsname.h>

#include "debugfs/publish.h"
#include "ktrepl_compat.h"
#include "replica/engine.h"
#include "replica/provider.h"
#include "replica/testing.h"

static bool allow_untested;
module_param(allow_untested, bool, 0444);
MODULE_PARM_DESC(allow_untested, "load on a kernel series the tests do not cover (" KTR_COMPAT_TESTED_NAMES "); taints the kernel");

/* a kernel series nobody tested this module on: off unless asked */
static int check_series(void)
{
	if (KTR_COMPAT_TESTED_SERIES && !ktr_test_untested_series())
		return 0;
	if (!allow_untested) {
		pr_err("not loaded: kernel %s is not a series ktrepl was tested on (%s); allow_untested=1 loads it anyway and taints the kernel\n",
		       init_utsname()->release, KTR_COMPAT_TESTED_NAMES);
		return -EOPNOTSUPP;
	}
	pr_warn("allow_untested=1: loading on untested kernel %s; tainting the kernel (TAINT_USER)\n",
		init_utsname()->release);
	add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	return 0;
}

static int __init ktrepl_init(void)
{
	int ret = check_series();

	if (ret)
		return ret;
	ret = ktr_engine_init();

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
