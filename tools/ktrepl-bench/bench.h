/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_BENCH_H
#define KTREPL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "numa.h"
#include "output.h"

/* Exit codes: 0 measured, 2 could not measure (refused, or failed). */
enum {
	EXIT_MEASURED = 0,
	EXIT_TROUBLE = 2,
};

#define BENCH_DEBUGFS "/sys/kernel/debug"
#define BENCH_TEXT_MODULE "ktrepl_bench_text"
#define BENCH_TEXT_DIR BENCH_DEBUGFS "/" BENCH_TEXT_MODULE
#define KTREPL_MODULE "ktrepl"
#define KTREPL_DIR BENCH_DEBUGFS "/ktrepl"
#define BENCH_MAX_PARAMS 1024

/* What the command line asked for. */
struct bench_opts {
	const char *module_path;	/* NULL: modprobe ktrepl */
	const char *bench_module_path;	/* NULL: modprobe ktrepl_bench_text */
	char bench_params[BENCH_MAX_PARAMS];	/* for the bench module */
	bool quick;
	bool control;		/* A/A: both arms with replication off */
	bool markdown;
	double bound_pct;	/* CI half-width to stop at, % of the median */
	double max_seconds;	/* the whole run's time limit */
};

/* The machine as the report names it. */
struct bench_machine {
	char cpu_model[256];
	char kernel[65];
	char arch[65];
	char hypervisor[64];	/* "": none detected */
	bool emulated;		/* QEMU's TCG (or a QEMU machine we cannot tell) */
	int nr_nodes;		/* online nodes listed in nodes[] */
	int nodes[KT_MAX_NODES];
	char node_cpus[KT_MAX_NODES][128];	/* sysfs cpulist, "" if none */
	uint64_t node_mem_kb[KT_MAX_NODES];
	int distance[KT_MAX_NODES][KT_MAX_NODES];	/* by index in nodes[] */
};

int bench_machine_load(struct bench_machine *m, struct kt_err *err);

/* A 95% confidence interval for the median, distribution-free. */
struct bench_ci {
	double median;
	double lo, hi;
	double coverage;	/* the interval's exact coverage, >= 0.95 */
	bool valid;		/* n >= 6: fewer samples bound no 95% interval */
};

void bench_median_ci(const double *x, size_t n, struct bench_ci *ci);
/* half the interval's width... the larger side, % of the median */
double bench_ci_half_pct(const struct bench_ci *ci);

/* one node's column of a benchmark's table */
struct bench_node_result {
	int node;
	size_t samples;
	struct bench_ci before, after;
	double diff_pct;	/* (after - before) / before, medians */
	double diff_lo_pct, diff_hi_pct;	/* from the two intervals */
	double ci_pct;		/* the larger distance from diff to a bound */
	bool significant;	/* the two intervals do not overlap */
};

void bench_compare(struct bench_node_result *r);

struct bench_result {
	const char *name;
	const char *unit_desc;	/* what one run is */
	uint64_t text_bytes;
	unsigned int iterations;
	size_t rounds;
	bool time_limited;
	bool control;
	char activation[32];	/* ktrepl's, while on; "" under --control */
	double seconds;
	int nr_nodes;
	struct bench_node_result nodes[KT_MAX_NODES];
	char verdict[512];
};

void bench_verdict(const struct bench_machine *m, const struct bench_opts *o,
		   struct bench_result *r);

/* text.c */
int bench_text_run(const struct bench_opts *o, const struct bench_machine *m,
		   struct bench_result *r, struct kt_err *err);

/* modules.c: loads that name the cause of a refusal */
int bench_module_load(const char *path, const char *name, const char *params,
		      struct kt_err *err);
int bench_module_unload(const char *name, struct kt_err *err);
bool bench_module_loaded(const char *name);

/* report.c */
void bench_report(struct kt_out *out, const struct bench_opts *o,
		  const struct bench_machine *m, const struct bench_result *r,
		  size_t nr);

/* the progress line, on a terminal only */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_end(void);

#endif
