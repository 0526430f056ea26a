/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The patch layer: first what the other layers call (patch.c, and the
 * arch's hook for ktr_patch_excludable()), then what passes between
 * patch.c (what every arch shares) and the arch's hook, patch_x86.c or
 * patch_arm64.c, which Kbuild picks.
 */
#ifndef KTREPL_PATCH_H
#define KTREPL_PATCH_H

#include <linux/ptrace.h>

#include "core.h"

/* patch.c: the patch layer as the others call it */
int ktr_patch_start(void);		/* hook the patcher */
void ktr_patch_stop(void);		/* unhook, wait for handlers and syncs */
void ktr_patch_counters(u64 *patches, u64 *bytes, u64 *missed,
			bool *propagate);
int ktr_patch_log(struct ktrepl_patch_record *recs, int max);
void ktr_patch_log_add(unsigned long va, size_t len, unsigned int written,
		       bool propagated);	/* any context */
u64 ktr_patch_window(void);
bool ktr_hook_lock_page(struct ktr_chunk *c, unsigned long va,
			unsigned long *flags);	/* for the audit */
void ktr_hook_unlock(unsigned long flags);
/* the patch probes' nmissed (and arm64's hook misses) */
u64 ktr_patch_probe_misses(void);
/* trip the fail-safe if the patch probes missed a call since last seen */
void ktr_patch_poll_misses(void);
/* and the mirror's and the vetoes' too (any context) */
void ktr_poll_every_miss_source(void);
/* whether a pass can keep out of a patch in flight (patch_*.c) */
bool ktr_patch_excludable(void);

/* between patch.c and the arch's hook (patch_*.c) */

/* patch.c, for the hooks; any context */
bool ktr_propagate_patch(struct pt_regs *regs, bool *made);
void ktr_patch_window_step(void);
void ktr_patch_count(size_t len);
bool ktr_patch_dropped(unsigned long va, size_t len);	/* test build */
unsigned long ktr_hook_lock(void);	/* ktr_hook_unlock(flags) after */
void ktr_hook_lock_assert_held(void);

/*
 * The arch's hook. ktr_patch_symbol is the kernel's text-patching
 * function it hooks; ktr_patch_arch_args() decodes (va, src, len, fill)
 * from that function's arguments. Where the hook takes the kernel's
 * write over (arm64), ktr_patch_arch_write_master() writes the master,
 * with cache maintenance on it, before the replicas, and the kernel's
 * function then returns without writing. Context: the hook, interrupts
 * off.
 */
extern const char *const ktr_patch_symbol;
bool ktr_patch_arch_args(struct pt_regs *regs, unsigned long *va,
			 const void **src, size_t *len, bool *fill);
static inline bool ktr_patch_arch_writes_master(void)
{
	return IS_ENABLED(CONFIG_ARM64);
}

void ktr_patch_arch_write_master(unsigned long va, phys_addr_t pa,
				 const void *src, size_t len);
int ktr_patch_arch_start(void);
/* unhook, and stop the audit (ktr_audit_stop()) at the arch's point */
void ktr_patch_arch_stop(void);		/* waits for running handlers */
u64 ktr_patch_arch_probe_misses(void);
/* under hook_lock: the hook is writing this page of c right now */
bool ktr_patch_arch_page_in_flight(struct ktr_chunk *c, unsigned long va);
/* test build: the hook's probe counts a call it could not handle */
int ktr_patch_arch_force_probe_miss(void);

#endif
