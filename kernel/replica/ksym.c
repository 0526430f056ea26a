// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms_lookup_name is not exported since 5.7; a kprobe on it hands
 * us its address, which is all we need.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>

#include "core.h"

static unsigned long (*ktr_lookup_name)(const char *name);

int ktr_ksym_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot locate kallsyms_lookup_name: %d\n", ret);
		return ret;
	}
	ktr_lookup_name = (void *)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

unsigned long ktr_ksym_quiet(const char *name)
{
	return ktr_lookup_name ? ktr_lookup_name(name) : 0;
}

unsigned long ktr_ksym(const char *name)
{
	unsigned long addr = ktr_lookup_name ? ktr_lookup_name(name) : 0;

	if (!addr)
		pr_err("symbol %s not found\n", name);
	return addr;
}
