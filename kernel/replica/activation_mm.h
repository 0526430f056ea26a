/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Activation "mm" (x86_64: mm_x86.c), reached through ktr_arch.mm.
 */
#ifndef KTR_ACTIVATION_MM_H
#define KTR_ACTIVATION_MM_H

#include "core.h"

/* activation "mm" (x86_64: mm_x86.c), through ktr_arch.mm */
struct ktr_mm_ops {
	const char *(*start)(void);	/* NULL, or why not */
	void (*stop)(void);		/* every mm back on the master */
	/* as stop, but the bindings made by hand are kept for the resume */
	void (*pause)(void);
	int (*bound)(struct ktrepl_bound_record *recs, int max);
	int (*bound_past)(struct ktrepl_bound_record *recs, int max);
	int (*bind_ctl)(pid_t pid, int nid, int set_auto);
	int (*inject)(pid_t pid, int nid);
	bool (*auto_on)(void);
	void (*counters)(u64 *binds, u64 *unbinds);
};
unsigned long ktr_master_probe(void);

#endif
