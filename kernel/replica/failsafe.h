/* SPDX-License-Identifier: GPL-2.0 */
/*
 * failsafe.c: off, repair, check, on again after any missed write; and
 * the trip, the one call into it from the layers below.
 */
#ifndef KTR_FAILSAFE_H
#define KTR_FAILSAFE_H

#include <linux/atomic.h>

#include "core.h"

/* the lowest pending bit names an event: a cause before its symptoms */
enum ktr_failsafe_reason {
	KTR_FS_PROBES_DISARMED,	/* kprobes or ftrace switched off globally */
	KTR_FS_PATCH_MISSED,	/* the hook saw a patch it could not place */
	KTR_FS_PROBE_MISSED,	/* a patch probe could not run (nmissed) */
	KTR_FS_AUDIT_REPAIR,	/* the audit found a write the hook missed */
	KTR_FS_MIRROR_MISSED,	/* a module-area table update was missed */
	KTR_FS_VETO_MISSED,	/* a copied table's free was not vetoed */
	KTR_FS_NR,
};
/*
 * The one way up into the fail-safe from the layers below it: set a bit,
 * queue the work. Any context.
 */
void ktr_failsafe_trip(enum ktr_failsafe_reason why);

/*
 * A miss source's counter that grew since its owner last saw it: one trip
 * for the growth. Each source (the patch probes, the mirror, the vetoes)
 * keeps its own seen count and polls where its handlers run; the audit
 * pass and the fail-safe's start poll them all. Any context.
 */
static __always_inline void
ktr_failsafe_trip_on_growth(atomic64_t *seen, u64 now,
			    enum ktr_failsafe_reason why)
{
	u64 old = atomic64_read(seen);

	if (now > old && atomic64_cmpxchg(seen, old, now) == old)
		ktr_failsafe_trip(why);
}

/* failsafe.c: process context */
void ktr_failsafe_start(void);
void ktr_failsafe_stop(void);
void ktr_failsafe_counters(u64 *events, bool *now, const char **reason);

#endif
