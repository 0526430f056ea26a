/* SPDX-License-Identifier: GPL-2.0 */
/*
 * activation.c: who runs on the node tables, as one state machine. The
 * load calls choose, prepare and start in that order; the fail-safe
 * calls pause, resume and give_up under failsafe_lock (asserted);
 * unload calls stop once the fail-safe is stopped.
 */
#ifndef _KTREPL_ACTIVATION_H
#define _KTREPL_ACTIVATION_H

#include <linux/types.h>

#include "ktrepl_abi.h"

/* load: process context, one at a time */
int ktr_activation_choose(bool any_replica);
void ktr_activation_prepare(bool alias_writable);
void ktr_activation_start(void);
void ktr_activation_report(void);
/* the fail-safe: process context, under failsafe_lock */
void ktr_activation_pause(void);
const char *ktr_activation_resume(void);
void ktr_activation_give_up(const char *why);
/* unload: process context */
void ktr_activation_stop(void);
/* any context */
enum ktrepl_activation ktr_activation(void);
bool ktr_activation_paused(void);

#endif
