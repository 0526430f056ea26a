// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64's patch hook: a kretprobe on __text_poke writes each replica
 * before the master, so no replica is ever behind the master in an int3
 * sequence. Context: its entry handler, under text_mutex, interrupts on
 * or off. The audit runs behind it where text_mutex is known: without it
 * the audit could not tell a patch in flight from a missed one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>

#include "core.h"
#include "audit.h"
#include "patch.h"

const char *const ktr_patch_symbol = "__text_poke";

/* __text_poke(text_poke_f func, void *addr, const void *src, size_t len) */
bool ktr_patch_arch_args(struct pt_regs *regs, unsigned long *va,
			 const void **src, size_t *len, bool *fill)
{
	static unsigned long text_poke_memset_addr;

	if (!text_poke_memset_addr)
		text_poke_memset_addr = ktr_ksym("text_poke_memset");
	*va = regs->si;
	*src = (const void *)regs->dx;
	*len = regs->cx;
	*fill = regs->di == text_poke_memset_addr;
	return true;
}
NOKPROBE_SYMBOL(ktr_patch_arch_args);

static struct kretprobe patch_kretprobe;
static bool kprobe_registered;

/*
 * x86_64: under text_mutex, before __text_poke writes the master; its
 * return closes the patch window the entry opened (text_mutex makes
 * these calls one at a time).
 */
static int patch_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	bool made;

	*(bool *)ri->data = ktr_propagate_patch(regs, &made);
	return 0;
}
NOKPROBE_SYMBOL(patch_entry);

static int patch_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (*(bool *)ri->data)
		ktr_patch_window_step();
	return 0;
}
NOKPROBE_SYMBOL(patch_return);

int ktr_patch_arch_start(void)
{
	int ret;

	patch_kretprobe.kp.symbol_name = ktr_patch_symbol;
	patch_kretprobe.entry_handler = patch_entry;
	patch_kretprobe.handler = patch_return;
	patch_kretprobe.data_size = sizeof(bool);
	/* without an instance the entry handler would not run */
	patch_kretprobe.maxactive = 2 * num_possible_cpus();
	ret = register_kretprobe(&patch_kretprobe);
	kprobe_registered = !ret;
	if (!ret && ktr.text_mutex)
		ktr_audit_start();
	return ret;
}

void ktr_patch_arch_stop(void)
{
	/*
	 * Before the probe goes: unregistering it puts back the first
	 * bytes of the patch function, a write no hook passes on any more,
	 * which the audit would take for a missed one (as on arm64).
	 */
	ktr_audit_stop();
	if (kprobe_registered) {
		/* waits for running handlers (synchronize_rcu inside) */
		unregister_kretprobe(&patch_kretprobe);
		kprobe_registered = false;
	}
}

u64 ktr_patch_arch_probe_misses(void)
{
	if (!kprobe_registered)
		return 0;
	return READ_ONCE(patch_kretprobe.kp.nmissed) +
	       READ_ONCE(patch_kretprobe.nmissed);
}
NOKPROBE_SYMBOL(ktr_patch_arch_probe_misses);

/*
 * The hook writes the replicas before the kernel writes the master: only
 * text_mutex, which every text_poke holds, keeps a comparison out of a
 * patch in flight (audit.c's exclude_patches()).
 */
bool ktr_patch_excludable(void)
{
	return ktr.text_mutex;
}

/* text_mutex keeps the audit out of a patch in flight (audit.c) */
bool ktr_patch_arch_page_in_flight(struct ktr_chunk *c, unsigned long va)
{
	return false;
}

#ifdef KTREPL_TEST
int ktr_patch_arch_force_probe_miss(void)
{
	if (!kprobe_registered)
		return -EOPNOTSUPP;
	patch_kretprobe.kp.nmissed++;
	return 0;
}
#endif
