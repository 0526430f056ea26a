/* SPDX-License-Identifier: GPL-2.0 */
/*
 * armed.c: whether the probes that watch for text and table writes are
 * armed (the kprobes and ftrace switches). Process context.
 */
#ifndef KTR_ARMED_H
#define KTR_ARMED_H

int ktr_armed_start(void);
void ktr_armed_stop(void);
/* NULL, or the switch that disarms them */
const char *ktr_probes_unarmed(void);

#endif
