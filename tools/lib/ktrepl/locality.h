/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_LOCALITY_H
#define KTREPL_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "memsrc.h"
#include "numa.h"
#include "pgtable.h"
#include "sampler.h"
#include "state.h"
#include "symbols.h"

/*
 * The model behind ktrepl-top: each kernel-text sample is translated
 * through the tables its CPU really had loaded (docs/abi.md, "Which
 * tables a CPU runs on") and counted as a local or remote fetch. No
 * terminal, no perf here: samples come in, counters come out, so the
 * model is tested with synthetic samples and tables.
 */

enum kt_text_class {
	KT_TEXT_CORE,	/* _stext.._etext */
	KT_TEXT_MODULE,	/* a loaded module's text */
	KT_TEXT_OTHER,	/* other kernel text: BPF, trampolines */
	KT_TEXT_CLASSES,
};

extern const char *const kt_text_class_names[KT_TEXT_CLASSES];

struct kt_fetches {
	uint64_t local;
	uint64_t remote;
	uint64_t unresolved;	/* not mapped, or no node owns the page */
};

#define KT_LOC_HISTORY 64

struct kt_loc_node {
	int nr_cpus;
	struct kt_fetches text[KT_TEXT_CLASSES];
	/*
	 * of which fetches by tasks on a node's set: what replication can
	 * make local (activation mm leaves unbound kernel threads and
	 * unconfined processes on the master's tables)
	 */
	struct kt_fetches on_sets[KT_TEXT_CLASSES];
	/* local share per frame, newest last; negative: no samples */
	double history[KT_LOC_HISTORY];
	int nr_history;
};

struct kt_loc_cpu {
	struct kt_fetches text[KT_TEXT_CLASSES];
	uint64_t samples;	/* all it delivered, idle included */
};

struct kt_loc_func {
	uint64_t addr;	/* symbol start, or the page for unknown code */
	char name[96];
	uint64_t local;
	uint64_t remote;
	int node;	/* where most of its remote fetches came from */
	uint64_t node_remote[KT_NUMA_MAX_NODES];
};

/*
 * One process's kernel text fetches in the frame, by the node of the CPU
 * each sample came from: what ktrepl-top's process view shows.
 */
struct kt_loc_proc {
	uint32_t pid;		/* the thread group */
	struct kt_fetches by_node[KT_NUMA_MAX_NODES];
	uint64_t on_set;	/* of them through a set not the master's */
	uint64_t set_root;	/* the last such set's root */
};

struct kt_text_range {
	uint64_t start;
	uint64_t end;
};

/* Which root a sample ran on. */
enum kt_loc_rule {
	KT_RULE_MASTER,		/* no replication: everything on the master */
	KT_RULE_WORKLOAD,	/* listed workers (and bound processes) on their
				 * root, the rest master */
	KT_RULE_PERCPU,		/* each CPU on its node's root */
};

/* a task (or, by_pid, a whole process) on its own root from since_ns */
struct kt_loc_worker {
	uint32_t tid;
	bool by_pid;
	uint64_t root_pa;
	uint64_t since_ns;
	uint64_t until_ns;	/* 0: still on it */
};

struct kt_loc_cache_entry {
	uint64_t root_pa;
	uint64_t page;	/* va >> 12, plus one so that 0 means empty */
	int node;	/* -1: unresolved */
};

#define KT_LOC_CACHE_SIZE 4096

/* an ip's symbol, as kt_symtab_lookup() found it; ip 0: empty */
struct kt_loc_sym_entry {
	uint64_t ip;
	const struct kt_sym *sym;
	uint64_t off;
};

#define KT_LOC_SYM_CACHE_SIZE 4096	/* a power of two */

struct kt_locality {
	/* how to translate */
	const struct kt_arch *arch;
	struct kt_pt_geometry geo;
	struct kt_memsrc *src;
	const struct kt_numa *numa;
	struct kt_symtab *syms;	/* may be NULL: functions by address */
	/* what is text */
	struct kt_text_range core;
	struct kt_text_range *modules;
	size_t nr_modules;
	/* which tables */
	enum kt_loc_rule rule;
	uint64_t master_root_pa;
	uint64_t node_root_pa[KT_NUMA_MAX_NODES];	/* for KT_RULE_PERCPU */
	struct kt_loc_worker *workers;
	size_t nr_workers;

	/* the current frame */
	struct kt_loc_node nodes[KT_NUMA_MAX_NODES];
	struct kt_loc_cpu cpus[KT_NUMA_MAX_CPUS];
	struct kt_loc_func *funcs;
	size_t nr_funcs, funcs_cap;
	uint32_t *func_hash;	/* index + 1 into funcs; 0 is empty */
	size_t func_hash_cap;
	struct kt_loc_proc *procs;
	size_t nr_procs, procs_cap;
	uint32_t *proc_hash;	/* index + 1 into procs; 0 is empty */
	size_t proc_hash_cap;
	uint64_t samples;	/* everything the sampler delivered */
	uint64_t idle;		/* in the idle task: nothing fetched */
	uint64_t not_text;	/* kernel, but not executing text we know */
	uint64_t on_worker_tables;	/* resolved through a worker's root */
	uint64_t lost;		/* dropped by the kernel: buffers full */
	uint64_t throttles;	/* the kernel throttled the event */

	struct kt_loc_cache_entry cache[KT_LOC_CACHE_SIZE];
	/*
	 * Kept across frames, unlike the translations: the symbol table
	 * never changes under it (sym_cache_of says which table it is for)
	 */
	const struct kt_symtab *sym_cache_of;
	struct kt_loc_sym_entry sym_cache[KT_LOC_SYM_CACHE_SIZE];
};

/* arch, geo, src, numa and the text ranges must be set by the caller. */
void kt_loc_init(struct kt_locality *loc);
void kt_loc_free(struct kt_locality *loc);

/* Derive the rule and roots from a state (debugfs, or plain). */
int kt_loc_set_rule(struct kt_locality *loc, const struct kt_state *st,
		    struct kt_err *err);

/* Module text from a /proc/modules style file: "name size ... addr". */
int kt_loc_load_modules(struct kt_locality *loc, const char *path,
			struct kt_err *err);

enum kt_text_class kt_loc_classify(const struct kt_locality *loc, uint64_t ip,
				   bool *is_text);
/* the root the sample's CPU had loaded */
uint64_t kt_loc_root(const struct kt_locality *loc, const struct kt_sample *s);

void kt_loc_add(struct kt_locality *loc, const struct kt_sample *s);
/* a kt_sample_fn for kt_sampler_drain */
void kt_loc_add_fn(const struct kt_sample *s, void *loc);

/*
 * Close a frame: push each node's local share onto its history. The
 * frame's counters stay readable until kt_loc_begin_frame().
 */
void kt_loc_end_frame(struct kt_locality *loc);
/* Zero the counters, keep history; tables may have changed: drop the cache. */
void kt_loc_begin_frame(struct kt_locality *loc);

/*
 * How far a frame's figures can be trusted. A frame is lossy when the
 * kernel dropped more than KT_LOC_MAX_LOST_PCT of its samples; slow when
 * some CPU delivered under KT_LOC_MIN_RATE_SHARE of the rate asked for; a
 * percentage resting on fewer than KT_LOC_MIN_SAMPLES resolved samples is
 * marked too.
 */
#define KT_LOC_MAX_LOST_PCT 1.0
#define KT_LOC_MIN_RATE_SHARE 0.8
#define KT_LOC_MIN_SAMPLES 100

struct kt_loc_fidelity {
	unsigned int requested_hz;
	double min_hz;		/* the slowest sampled CPU */
	double mean_hz;
	int min_cpu;		/* -1: no CPU sampled */
	double lost_pct;	/* of everything the kernel sampled */
	bool lossy;
	bool slow;
};

/* Achieved rates over frame_ns of wall time, for the CPUs with a node. */
void kt_loc_fidelity(const struct kt_locality *loc, unsigned int rate_hz,
		     uint64_t frame_ns, struct kt_loc_fidelity *f);
double kt_loc_cpu_hz(const struct kt_locality *loc, int cpu,
		     uint64_t frame_ns);
/* enough resolved samples for a local share to mean something */
bool kt_fetches_enough(const struct kt_fetches *f);

/* a process's fetches summed over the nodes its CPUs were on */
struct kt_fetches kt_loc_proc_total(const struct kt_loc_proc *p);
/* how many nodes its samples came from; *only: the one, when that is 1 */
int kt_loc_proc_nodes(const struct kt_loc_proc *p, int *only);
/*
 * A process to bind: every sample from one node whose memory is not
 * master_node's, none through a set, some remote. Under percpu no
 * process is: every CPU runs on its node's set.
 */
bool kt_loc_proc_to_bind(const struct kt_locality *loc,
			 const struct kt_loc_proc *p, int master_node);

/* sums over the text classes; over n of any array */
struct kt_fetches kt_fetches_total(const struct kt_fetches *by_class);
struct kt_fetches kt_fetches_total_n(const struct kt_fetches *f, int n);
/* local share in percent of resolved fetches, or -1 with none */
double kt_fetches_local_pct(const struct kt_fetches *f);

#endif
