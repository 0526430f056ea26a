/* SPDX-License-Identifier: GPL-2.0 */
/*
 * audit.c: the net behind the patch hooks, and the fail-safe's resync.
 */
#ifndef KTR_AUDIT_H
#define KTR_AUDIT_H

#include "core.h"

/* audit.c */
void ktr_audit_start(void);		/* from the hooks' start */
void ktr_audit_stop(void);		/* none queued or running after */
void ktr_audit_flush(void);		/* let a pass under way finish */
void ktr_audit_counters(u64 *audits, u64 *repairs);
/*
 * The fail-safe's: every replica page that differs, recopied or counted;
 * under_lock, if given, runs under audit_lock before the pass.
 */
unsigned int ktr_patch_resync(bool repair, void (*under_lock)(void));
/* the fail-safe waits: no pass compares until it lets go */
void ktr_audit_hold(bool hold);

#endif
