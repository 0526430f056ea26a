/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.c: worker threads on node tables (activation "workload").
 */
#ifndef KTR_WORKLOAD_H
#define KTR_WORKLOAD_H

#include "core.h"

/* workload.c */
int ktr_workload_init(void);		/* before the copy: see there */
void ktr_workload_stop(void);		/* for good: refuses new starts */
void ktr_workload_free(void);
int ktr_workload_ctl(enum ktrepl_workload_mode mode);
enum ktrepl_workload_mode ktr_workload_mode(void);
int ktr_tasks(struct ktrepl_task_record *recs, int max);

#endif
