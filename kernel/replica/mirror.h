/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mirror.c: the module-area table mirror.
 */
#ifndef KTR_MIRROR_H
#define KTR_MIRROR_H

#include "core.h"

/* mirror.c */
int ktr_mirror_hook(void);		/* every probe, or an errno */
bool ktr_mirror_hooked(void);
bool ktr_mirror_watches(unsigned long start, unsigned long end);
void ktr_mirror_unhook(void);		/* waits for running handlers */
bool ktr_mirror_range(unsigned long start, unsigned long end);	/* any */
void ktr_mirror_defer(bool on);	/* this task's protection changes */
int ktr_tables_resync(bool fix);	/* the fail-safe's: see mirror.c */
void ktr_mirror_set_span(unsigned long lo, unsigned long last);
void ktr_mirror_grow_span(unsigned long lo, unsigned long last);
void ktr_mirror_upper_tables(void);
void ktr_mirror_counters(u64 *mirrored, u64 *missed);
/* trip the fail-safe if the mirror missed a call since last seen */
void ktr_mirror_poll_misses(void);

#endif
