/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fresh.c: copied tables kept identical to the master's (percpu).
 */
#ifndef KTR_FRESH_H
#define KTR_FRESH_H

#include "core.h"

/* fresh.c: copied tables kept identical to the master's (percpu) */
const char *ktr_fresh_start(void);	/* before the node tables are built */
void ktr_fresh_stop(void);
u64 ktr_fresh_vetoes(void);
u64 ktr_fresh_probe_misses(void);	/* the veto kprobes' nmissed */
/* trip the fail-safe if the vetoes missed a call since last seen */
void ktr_fresh_poll_misses(void);
bool ktr_fresh_intact(void);		/* the fail-safe's, paused */
unsigned long ktr_fresh_donated_pages(void);

#endif
