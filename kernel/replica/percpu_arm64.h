/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Activation "percpu" (percpu_arm64.c), reached through ktr_arch.
 */
#ifndef KTR_PERCPU_ARM64_H
#define KTR_PERCPU_ARM64_H

#include "core.h"

/* percpu_arm64.c, through ktr_arch */
const char *ktr_percpu_start(void);
void ktr_percpu_stop(void);
phys_addr_t ktr_percpu_installed_root(int cpu);
void ktr_percpu_counters(u64 *switches, u64 *reinstalls, u64 *switch_ns);
int ktr_percpu_pm_revert(int cpu);

#endif
