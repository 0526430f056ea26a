/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_BENCH_H
#define KTREPL_BENCH_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "numa.h"
#include "output.h"
#include "state.h"

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
	double max_seconds;	/* the whole run's limit (--max-time) */
	/*
	 * When the running benchmark must end (bench_now_s()'s clock): its
	 * share of what is left of max_seconds, set by main before each one
	 */
	double stage_deadline;
};

/* The machine as the report names it. */
/*
 * A sysfs attribute is at most one page: 64 KiB on arm64's largest. A
 * node's cpulist fits whatever its CPUs' numbering.
 */
#define BENCH_SYSFS_MAX 65536

struct bench_machine {
	char cpu_model[256];
	char kernel[65];
	char arch[65];
	char hypervisor[64];	/* "": none detected */
	bool emulated;		/* QEMU's TCG (or a QEMU machine we cannot tell) */
	int nr_nodes;		/* online nodes listed in nodes[] */
	int nodes[KT_MAX_NODES];
	char node_cpus[KT_MAX_NODES][BENCH_SYSFS_MAX];	/* cpulist, "" if none */
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
	double diff_pct;	/* median of the rounds' (after - before) / before */
	double diff_lo_pct, diff_hi_pct;	/* its 95% interval */
	double ci_pct;		/* the larger distance from diff to a bound */
	bool significant;	/* that interval excludes 0 */
};

/* before[k] and after[k]: one node's two arms in round k */
void bench_compare(struct bench_node_result *r, const double *before,
		   const double *after, size_t n);

struct bench_result {
	const char *name;
	const char *unit_desc;	/* what one run is */
	bool syscall;		/* a syscalls benchmark: microsecond tables */
	bool cold;		/* syscalls: caches and TLBs evicted first */
	uint64_t evict_bytes;	/* syscalls cold: the buffer written */
	bool evict_assumed;	/* no cache size in sysfs: a default */
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

/* engine.c: the off/on arms and ABBA rounds text and syscalls share */
#define BENCH_MAX_SERIES 16

struct bench_engine;

/*
 * Runs in the runner child, confined to one node: fills ns[] with one
 * sample per series; on failure returns -errno and may say why in why.
 */
typedef int (*bench_child_fn)(void *arg, double *ns, char *why, size_t len);

struct bench_engine {
	/* set by the benchmark */
	const struct bench_opts *o;
	const struct bench_machine *m;
	const char *name;		/* for the progress line */
	size_t nr_series;
	/* one sample of every series on node index i, in arm on */
	int (*measure)(struct bench_engine *e, int i, bool on, double *ns,
		       struct kt_err *err);
	/* after each load of ktrepl.ko, its state in hand (may be NULL) */
	int (*check)(struct bench_engine *e, const struct kt_state *st,
		     struct kt_err *err);
	void *priv;
	/* the engine's */
	int nr;				/* nodes with CPUs */
	int node[KT_MAX_NODES];		/* their ids */
	cpu_set_t cpus[KT_MAX_NODES];
	cpu_set_t saved;		/* the tool's own affinity */
	bool ktrepl_loaded;
	bool wait_bind;			/* activation=mm: runners must be bound */
	char activation[32];		/* ktrepl's, once loaded */
	struct kt_state state;		/* ktrepl's, at its last load */
	double *before[BENCH_MAX_SERIES][KT_MAX_NODES];
	double *after[BENCH_MAX_SERIES][KT_MAX_NODES];
	size_t rounds, cap;
};

extern volatile sig_atomic_t bench_interrupted;

double bench_now_s(void);
bool bench_read_file(const char *path, char *buf, size_t len);
int bench_wait_bound(pid_t pid);
int bench_engine_setup(struct bench_engine *e, struct kt_err *err);
/* one runner child on node index i; wait_bind: in the on-arm */
int bench_engine_child(struct bench_engine *e, int i, bool wait_bind,
		       bench_child_fn fn, void *arg, double *ns, size_t nr,
		       struct kt_err *err);
int bench_load_ktrepl(struct bench_engine *e, double *load_ns,
		      struct kt_err *err);
int bench_unload_ktrepl(struct bench_engine *e, struct kt_err *err);
/* reads ktrepl.ko's state into e->state and e->activation, while loaded */
int bench_ktrepl_state(struct bench_engine *e, struct kt_err *err);
int bench_engine_rounds(struct bench_engine *e, bool *time_limited,
			struct kt_err *err);
bool bench_past_deadline(const struct bench_opts *o, double next_s);
void bench_engine_fill(const struct bench_engine *e, size_t series,
		       struct bench_result *r);
void bench_engine_teardown(struct bench_engine *e);

/* text.c */
int bench_text_run(const struct bench_opts *o, const struct bench_machine *m,
		   struct bench_result *r, struct kt_err *err);

/* syscalls.c: one result per operation and temperature */
#define BENCH_SYSCALLS 14
int bench_syscalls_run(const struct bench_opts *o,
		       const struct bench_machine *m, struct bench_result *r,
		       struct kt_err *err);

/* costs.c: one figure each, no arms */
struct bench_cost {
	const char *name;	/* JSON key */
	const char *what;	/* what it is, for the plain report */
	const char *unit;	/* "ns", "bytes" or "ratio" */
	double value;		/* valid when reason is "" */
	char reason[256];	/* why it could not be measured, or "" */
};

#define BENCH_MAX_COSTS 16

struct bench_mem_node {
	int node;
	char role[16];
	uint64_t text, rodata, modules, tables, total;
};

struct bench_costs {
	bool ran;
	bool control;		/* --control: ktrepl.ko in neither arm */
	char activation[32];
	char mem_reason[256];	/* "": nodes[] valid */
	int nr_mem;
	struct bench_mem_node mem[KT_MAX_NODES];
	size_t nr;
	struct bench_cost c[BENCH_MAX_COSTS];
	int reps, reps_done;	/* ktrepl.ko's loads: asked, run */
	bool time_limited;	/* fewer than asked: the run's limit came first */
	double seconds;
};

int bench_costs_run(const struct bench_opts *o, const struct bench_machine *m,
		    struct bench_costs *c, struct kt_err *err);

/* modules.c: loads that name the cause of a refusal */
int bench_module_load(const char *path, const char *name, const char *params,
		      struct kt_err *err);
int bench_module_unload(const char *name, struct kt_err *err);
bool bench_module_loaded(const char *name);

/* report.c */
void bench_report(struct kt_out *out, const struct bench_opts *o,
		  const struct bench_machine *m, const struct bench_result *r,
		  size_t nr, const struct bench_costs *costs);
void bench_costs_verdict(const struct bench_machine *m,
			 const struct bench_costs *c, char *buf, size_t len);

/* the progress line, on a terminal only */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_end(void);
/* --progress: progress lines on standard error even off a terminal */
void bench_progress_always(void);

#endif
