/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PROMETHEUS_H
#define KTREPL_PROMETHEUS_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "err.h"
#include "locality.h"
#include "numa.h"
#include "panic.h"
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

/* ktrepl-top's window: its frames summed, node by node */
struct kt_prometheus_top {
	double timestamp;	/* the last frame's end, seconds since the epoch */
	double seconds;		/* wall time the frames covered */
	unsigned int rate_hz;	/* asked for, per CPU */
	long frames;
	bool seen[KT_NUMA_MAX_NODES];	/* nodes with CPUs, in some frame */
	struct kt_fetches text[KT_NUMA_MAX_NODES][KT_TEXT_CLASSES];
	uint64_t samples;	/* everything the sampler delivered */
	uint64_t lost;		/* dropped by the kernel */
	double min_hz;		/* the slowest CPU of the slowest frame */
	bool lossy, slow;	/* in any frame */
};

/* add a closed frame (kt_loc_end_frame()) of frame_ns to the window */
void kt_prometheus_top_add(struct kt_prometheus_top *w,
			   const struct kt_locality *loc,
			   const struct kt_loc_fidelity *fid, const int *nodes,
			   int nr_nodes, uint64_t frame_ns, double timestamp);
void kt_prometheus_write_top(FILE *fp, const struct kt_prometheus_top *w);

/* ktrepl-dump triage: the dumps of a crash directory and their verdicts */
struct kt_prometheus_triage {
	double timestamp;	/* this run, seconds since the epoch */
	unsigned int dumps;	/* every dump with a verdict */
	unsigned int by_verdict[KT_TRIAGE_NR];
	unsigned int failed_now;	/* dumps this run could not judge */
	bool have_last;
	double last_time;	/* the newest dump's mtime */
	enum kt_triage_verdict last_verdict;
	int last_node;		/* its panic's set node, -1: unknown */
	char last_reason[40];
};

void kt_prometheus_write_triage(FILE *fp, const void *triage);

/*
 * Write FILE whole or not at all: emit(fp, arg) into a temporary file in
 * the same directory (mode 0644), renamed over path, so the textfile
 * collector never reads half of it. Returns 0, or -errno with err set.
 */
int kt_prometheus_write_file(const char *path,
			     void (*emit)(FILE *fp, const void *arg),
			     const void *arg, struct kt_err *err);

#endif
