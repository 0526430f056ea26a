/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TOP_H
#define KTREPL_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "locality.h"
#include "numa.h"
#include "output.h"
#include "report_top.h"
#include "sampler.h"
#include "state.h"
#include "symbols.h"

/* Exit codes shared with ktrepl-dump: 2 means it could not measure. */
enum {
	EXIT_OK = 0,
	EXIT_TROUBLE = 2,
};

enum top_view {
	VIEW_NODES,
	VIEW_CPUS,
	VIEW_FUNCS,
	VIEW_PROCS,
};

struct top_opts {
	double delay;		/* seconds between frames */
	long iterations;	/* 0: until quit */
	bool batch;
	bool json;
	unsigned int rate_hz;
	enum kt_sampler_event event;
	unsigned int ring_pages;	/* KTREPL_TOP_RING_PAGES, for tests */
	const char *debugfs_dir;
	const char *kcore_path;
	const char *sysfs_dir;
	const char *kallsyms_path;
	const char *modules_path;
	int top_funcs;		/* functions per batch frame */
	int top_procs;		/* --processes: rows per batch frame; 0 off */
	/* --prometheus: the window's metrics instead of frames */
	bool prometheus;
	const char *prometheus_file;	/* NULL: stdout, once at the end */
};

/* Everything a frame is drawn from; sampling lives in frame.c only. */
struct top {
	struct top_opts opts;
	struct kt_out out;
	struct kt_numa numa;
	struct kt_state st;
	bool have_module;	/* st came from debugfs, not VMCOREINFO */
	struct kt_memsrc *src;
	struct kt_symtab syms;
	bool have_syms;
	struct kt_sampler *sampler;
	struct kt_locality loc;
	/* samples of the running frame, resolved when it closes */
	struct kt_sample *pending;
	size_t nr_pending, pending_cap;
	struct kt_sampler_counts pending_counts;
	/* workers seen at the previous refresh, still valid for its samples */
	struct kt_task_state *prev_tasks;
	size_t nr_prev_tasks;
	long frame;
	uint64_t frame_ns;	/* wall time the frame covered */
	uint64_t frame_start_ns;	/* CLOCK_MONOTONIC */
	struct kt_loc_fidelity fidelity;	/* of the frame on show */
	char refresh_error[1100];	/* the last refresh that failed, or "" */
};

int top_open(struct top *top, struct kt_err *err);
void top_close(struct top *top);
/* Collect samples for the running frame (called often). */
int top_collect(struct top *top, struct kt_err *err);
/* Resolve the running frame's samples into top->loc, replacing the last. */
int top_end_frame(struct top *top, struct kt_err *err);

/* sort orders the views offer, by key 1..5 */
void top_sorted_nodes(const struct top *top, int col, int *order, int *nr);
void top_sorted_cpus(const struct top *top, int col, int *order, int *nr);
void top_sorted_funcs(const struct top *top, int col, size_t *order,
		      size_t *nr);
/*
 * The process view's rows by col, each described and named (its comm
 * from /proc, "-" once it has gone): at most max, *nr of them.
 */
void top_proc_rows(const struct top *top, int col, struct kt_top_proc *rows,
		   size_t max, size_t *nr);
const char *top_sort_name(enum top_view view, int col);
void top_sparkline(const struct kt_loc_node *n, char *buf, int width);

/*
 * Sleep through one frame of opts.delay, draining the samplers; on_tick,
 * if given, replaces the sleep (the TUI waits for keys there) and may
 * return > 0 to end the frame early and quit.
 */
int top_wait_frame(struct top *top, int (*on_tick)(struct top *, void *),
		   void *arg, struct kt_err *err);
/* SIGINT and SIGTERM end the run cleanly (the TUI restores the terminal) */
void top_install_signals(void);
bool top_stop_requested(void);
/* err through the JSON-aware writer */
void top_report_error(struct top *top, const struct kt_err *err);

int top_run_batch(struct top *top);
int top_run_tui(struct top *top);

#endif
