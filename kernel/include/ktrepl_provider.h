/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PROVIDER_H
#define KTREPL_PROVIDER_H

#include <linux/types.h>

#include "ktrepl_abi.h"	/* enum ktrepl_activation */
#include "ktrepl_desc.h"	/* KTREPL_DESC_MAX_MODULES */

/*
 * What the debugfs publisher needs from whatever does the replication.
 * ktrepl's own engine (kernel/replica/) implements it on stock kernels;
 * an in-tree implementation (openEuler's init_mm.pgd_numa[] and
 * replica_nodes, or the x86 RFC's mm->pgd_numa[] and
 * closest_memory_node[]) would implement the same callbacks over its own
 * state, and the publisher would run unchanged. See docs/abi.md.
 */


struct ktrepl_region {
	const char *name;	/* "text", "rodata" */
	unsigned long start;	/* first byte */
	unsigned long end;	/* one past the last byte */
};

/* A run of VAs that one node maps onto physically contiguous memory. */
struct ktrepl_extent {
	unsigned long va;
	phys_addr_t pa;
	unsigned long size;
	unsigned int page_shift; /* mapping granularity: 12, 21, ... */
};

struct ktrepl_patch_record {
	u64 seq;
	unsigned long va;
	unsigned int len;
	unsigned int nodes;	/* replicas written */
	bool propagated;
};

enum ktrepl_workload_mode {
	KTREPL_WORKLOAD_STOP,
	KTREPL_WORKLOAD_NODE,	/* each node's worker on its node's tables */
	KTREPL_WORKLOAD_MASTER,	/* the same workers on the master's tables */
};

/* a process whose mm runs on a node's set (activation "mm") */
struct ktrepl_bound_record {
	pid_t pid;
	char comm[16];
	int node;		/* whose set: a node with memory */
	bool manual;		/* bound through the bind file */
	phys_addr_t mm_pgd_pa;	/* the mm's top-level table */
	phys_addr_t root_pa;	/* the set's root */
	u64 entry;		/* the mm's image entry, as read now */
	u64 since_ns;		/* local_clock() once every CPU saw it */
	u64 until_ns;		/* bound_past only: when it ended */
};

struct ktrepl_task_record {
	pid_t pid;
	char comm[16];
	int node;		/* whose PGD set the task runs on */
	int cpu;		/* where it last ran */
	phys_addr_t root_pa;	/* CR3/TTBR as read by the task itself */
	phys_addr_t runs_on_pa;	/* the root its mm gives it */
	u64 since_ns;		/* local_clock() once it runs on runs_on_pa */
	bool on_master;		/* put on the master's tables on purpose */
	u64 iterations;
	unsigned long probe;	/* the workload's last probe result */
};

/* A module whose core text and rodata have a copy on every memory node. */
struct ktrepl_module_info {
	char name[64];
	unsigned long start;	/* first byte of its core text */
	unsigned long text_end;	/* rodata follows, up to end (to 6.3) */
	unsigned long end;
	/* from 6.4 its rodata, an area of its own; 0 before */
	unsigned long rodata_start, rodata_end;
	int orig_node;		/* node of its own first page */
	unsigned int master_copies;	/* pages the master node runs a copy of */
	u64 since_ns;		/* local_clock() once every node mapped it */
};

/* the one module limit, declared with the descriptor that holds them */
#define KTREPL_MAX_MODULES KTREPL_DESC_MAX_MODULES

/*
 * The room each list starts with, and what a provider keeps: the patch
 * log's ring (patch_log: the patches file), the workers (tasks: the
 * tasks file, and the descriptor's slots, one per node: the workload
 * refuses more nodes), and the recently ended bindings' ring
 * (bound_past: bind_history). The bind and tasks files list everything
 * however many there are; the descriptor keeps KTREPL_DESC_MAX_BOUND
 * bound processes and counts the rest (bound_omitted).
 */
#define KTREPL_MAX_PATCH_RECORDS 256
#define KTREPL_MAX_TASK_RECORDS 64
#define KTREPL_MAX_BOUND_RECORDS 512

/* One leaf mapping in a node's tables, for pgtables/nodeN. */
struct ktrepl_mapping {
	unsigned long va;
	unsigned long size;
	int level;		/* 0 = top */
	u64 entry;
	phys_addr_t pa;
	bool present;
	bool writable;
	bool executable;
	bool global;
	bool shared;		/* reached through a master table page */
};

/* What an engine counts besides patches; 0 where it does not apply. */
struct ktrepl_engine_counters {
	u64 audits;		/* audit passes over changed master text */
	u64 audit_repairs;	/* writes the audit found the hook missed */
	u64 switches;		/* root switches made (percpu) */
	u64 reinstalls;		/* CPUs put back after a revert (CPU PM) */
	u64 switch_ns;		/* mean cost of one switch */
	u64 donated_pages;	/* empty tables given to the master's */
	u64 vetoes;		/* table frees and offlines refused */
	u64 binds;		/* mm: processes pointed at a set */
	u64 unbinds;		/* mm: and put back on the master */
	u64 table_mirrors;	/* module-area table entries mirrored */
	u64 mirror_missed;	/* mirror hooks that could not run */
	u64 patch_window;	/* odd while a patch is half made */
	u64 failsafe;		/* fail-safe events since load */
	bool failsafe_active;	/* off now because of a missed write */
	const char *failsafe_reason;	/* the last event's, or NULL */
};

/* Visitors: a nonzero return stops the walk and is returned. */
typedef int (*ktrepl_extent_fn)(const struct ktrepl_extent *ext, void *arg);
typedef int (*ktrepl_mapping_fn)(const struct ktrepl_mapping *m, void *arg);

/**
 * struct ktrepl_provider - what a replication implementation publishes
 * @name: the implementation, for "provider=" in summary
 * @arch: "x86_64" or "arm64"
 * @activation: who runs on the replicas
 * @activation_reason: why @activation is less than what was asked for
 *	(a word such as "idmap_not_found"), or ""
 * @master_node: the node holding the kernel's own text
 * @paging_levels: levels of the kernel's tables
 * @va_bits: virtual address bits the top level translates
 * @page_shift: base page size
 * @nr_regions: entries of @regions
 * @regions: the replicated ranges ("text", "rodata")
 * @master_root: PA of the master's top-level table
 * @allocations: page allocations made at load
 * @load_ns: how long the load took
 * @replicate_ns: of which copies and tables
 * @hook_ns: of which hooking the patcher
 * @memcpy_ns: a plain memcpy of the replicated bytes (bench=1), or 0
 * @memset_ns: a plain memset of the same bytes (bench=1), or 0: the
 *	zeroing init_on_alloc=1 makes the allocator do before the copy
 *
 * Every op may be called from any process context once the provider is
 * published, concurrently with patching, until the publisher is gone;
 * "Context:" says where an op may also be called, or what it may do.
 * The provider must stop calling @changed before ktrepl_unpublish().
 */
struct ktrepl_provider {
	const char *name;
	const char *arch;
	enum ktrepl_activation activation;
	const char *activation_reason;
	int master_node;
	unsigned int paging_levels;
	unsigned int va_bits;
	unsigned int page_shift;
	int nr_regions;
	const struct ktrepl_region *regions;
	phys_addr_t master_root;
	unsigned int allocations;
	u64 load_ns;
	u64 replicate_ns;
	u64 hook_ns;
	u64 memcpy_ns;
	u64 memset_ns;

	/**
	 * @memory_node: the node whose replica and tables @nid uses, or -1
	 * where it has none. Context: any; does not sleep.
	 */
	int (*memory_node)(int nid);
	/**
	 * @for_each_extent: call @fn for each run of @region that @nid maps
	 * onto physically contiguous memory, in VA order; a nonzero return
	 * from @fn stops the walk and is returned. Context: process; does
	 * not sleep itself, so @fn may decide.
	 */
	int (*for_each_extent)(int nid, int region, ktrepl_extent_fn fn,
			       void *arg);
	/**
	 * @modules: optional; the replicated modules, up to @max, in VA
	 * order. Context: process; may sleep.
	 */
	int (*modules)(struct ktrepl_module_info *mods, int max);
	/**
	 * @for_each_module_extent: like @for_each_extent, over the text and
	 * rodata of module @name. Context: process; may sleep.
	 */
	int (*for_each_module_extent)(int nid, const char *name,
				      ktrepl_extent_fn fn, void *arg);
	/**
	 * @node_root: PA of the top-level table (PGD, TTBR1 table) @nid
	 * runs on. Context: any; does not sleep.
	 */
	phys_addr_t (*node_root)(int nid);
	/**
	 * @for_each_mapping: the leaf mappings of the replicated window in
	 * @nid's tables, in VA order. Context: process; does not sleep.
	 */
	int (*for_each_mapping)(int nid, ktrepl_mapping_fn fn, void *arg);
	/**
	 * @root_diff: count the kernel-half top-level entries of @nid's root
	 * that differ from the master's: @own point at tables the node owns,
	 * @differ at anything else. Context: process; does not sleep.
	 */
	int (*root_diff)(int nid, unsigned int *own, unsigned int *differ);
	/**
	 * @overhead_bytes: replica and table bytes @nid costs. Context: any.
	 */
	u64 (*overhead_bytes)(int nid);
	/**
	 * @patch_counters: patches propagated, their bytes, patches missed
	 * (propagation off), and whether propagation is on. Context: any;
	 * does not sleep.
	 */
	void (*patch_counters)(u64 *patches, u64 *bytes, u64 *missed,
			       bool *propagate);
	/**
	 * @engine_counters: optional; fills the counters an engine keeps
	 * beyond patches (see struct ktrepl_engine_counters). Context: any;
	 * does not sleep.
	 */
	void (*engine_counters)(struct ktrepl_engine_counters *c);
	/**
	 * @installed_root: optional; PA of the root @cpu was last switched
	 * to, kept where a dump can find it (arm64 dumps carry no TTBR1),
	 * or 0. Context: any; does not sleep.
	 */
	phys_addr_t (*installed_root)(int cpu);
	/**
	 * @flush: optional; finish propagation already under way, so that
	 * the counters and replicas include every patch made before the
	 * call. Context: process; may sleep.
	 */
	void (*flush)(void);
	/**
	 * @patch_log: copy up to @max newest records, newest last; returns
	 * the count. Context: any; does not sleep.
	 */
	int (*patch_log)(struct ktrepl_patch_record *recs, int max);
	/**
	 * @tasks: optional; the tasks put on node tables: copies up to @max
	 * and returns how many there are, which may be more (no silent
	 * cap: the caller lists them all or counts the rest as omitted).
	 * Context: process; may sleep (takes a mutex).
	 */
	int (*tasks)(struct ktrepl_task_record *recs, int max);
	/**
	 * @workload_ctl: optional; start, restart or stop the workload.
	 * Context: process; sleeps. Returns -ENODEV while unloading.
	 */
	int (*workload_ctl)(enum ktrepl_workload_mode mode);
	/**
	 * @bound: optional (activation "mm"); the bound processes, as
	 * @tasks: up to @max copied, how many there are returned.
	 * Context: process; may sleep.
	 */
	int (*bound)(struct ktrepl_bound_record *recs, int max);
	/**
	 * @bound_past: optional; bindings that ended in the last 10 s, for
	 * exact sample resolution. Context: process; may sleep.
	 */
	int (*bound_past)(struct ktrepl_bound_record *recs, int max);
	/**
	 * @bind_ctl: bind pid to nid's set (-1: unbind), or with set_auto
	 * >= 0 switch automatic binding. Context: process; sleeps.
	 */
	int (*bind_ctl)(pid_t pid, int nid, int set_auto);
	/** @bind_auto: automatic binding on. Context: any. */
	bool (*bind_auto)(void);
	/** @workload_mode: the workload's mode. Context: any. */
	enum ktrepl_workload_mode (*workload_mode)(void);
	/**
	 * @master_probe: the workload's probe computed on the calling CPU's
	 * (master's) tables. Context: process.
	 */
	unsigned long (*master_probe)(void);
	/**
	 * @read_root: PA of the root the calling CPU has loaded. Context:
	 * any, IPIs included; does not sleep.
	 */
	phys_addr_t (*read_root)(void);
	/**
	 * @inject: optional, only with fault_inject=1: damage a replica or
	 * a node's tables as a test command says. Context: process.
	 */
	int (*inject)(const char *cmd);
	/**
	 * @changed: set by the publisher; the provider calls it after its
	 * counters changed, with @lists true where its lists (bound
	 * processes, modules, tasks) may have changed too. Context: any,
	 * under any of the provider's locks: the publisher writes the
	 * counters with a trylock that waits on nothing, and queues its own
	 * work for the lists.
	 */
	void (*changed)(bool lists);
};

#endif
