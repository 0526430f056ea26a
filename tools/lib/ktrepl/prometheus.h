/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PROMETHEUS_H
#define KTREPL_PROMETHEUS_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "state.h"

/* one verify run, as the textfile collector will see it */
struct kt_prometheus_run {
	int checked;				/* 0: it could not check */
	double timestamp;			/* seconds since the epoch */
	double duration;			/* seconds */
	const struct kt_state *st;		/* when checked */
	const struct kt_verify_stats *stats;	/* when checked */
};

void kt_prometheus_write(FILE *fp, const struct kt_prometheus_run *run);

#endif
