// SPDX-License-Identifier: GPL-2.0
/*
 * The state every file of the engine shares, at the bottom of its layers
 * so that any of them may read it without calling up: struct ktr_engine
 * (fixed after load; core.h says who writes what) and the walk over its
 * tables, and the provider the publisher reads, with the cue that tells
 * it something changed.
 */
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "core.h"

struct ktr_engine ktr = {
	.master_nid = NUMA_NO_NODE,
};

/* its ops are provider.c's (ktr_engine_provider()) */
struct ktrepl_provider ktr_provider = {
	.name = "ktrepl-engine",
	.nr_regions = KTR_NR_REGIONS,
	.regions = ktr.regions,
};

/*
 * failsafe_lock, the engine's outermost: the fail-safe work's whole run
 * (pause, repair, resume or give-up), closing at stop, and the
 * fail-safe's counters and event times. failsafe.c's work and
 * ktr_failsafe_stop() take it; nothing else may. It lives here, at the
 * bottom, as kernel/livepatch's klp_mutex lives in its core.c, so that
 * the layers the fail-safe calls down into (the activation's
 * transitions, the tables' resync) can assert they run inside it
 * without naming the fail-safe. Inside it come act_lock, workload_lock,
 * bind_lock and audit_lock (core.h, "Locking").
 */
DEFINE_MUTEX(ktr_failsafe_lock);

/* every config: an empty function where lockdep is off */
void ktr_failsafe_lock_assert_held(void)
{
	lockdep_assert_held(&ktr_failsafe_lock);
}

void ktr_notify_changed(bool lists)
{
	void (*changed)(bool lists) = READ_ONCE(ktr_provider.changed);

	if (changed)
		changed(lists);
}
NOKPROBE_SYMBOL(ktr_notify_changed);

/*
 * Walk from root toward va; stop at a leaf, a hole, or stop_level.
 * Returns the entry and its level.
 */
u64 *ktr_walk(u64 *root, unsigned long va, int stop_level, int *level)
{
	u64 *table = root;
	int l;

	for (l = 0;; l++) {
		u64 *e = &table[ktr_level_index(va, l)];
		u64 v = READ_ONCE(*e);

		if (l == stop_level || !ktr_pte_present(v) ||
		    ktr_pte_leaf(v, l, ktr.geom.levels)) {
			*level = l;
			return e;
		}
		table = ktr_table_va(v);
	}
}
NOKPROBE_SYMBOL(ktr_walk);
