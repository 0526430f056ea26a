/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PROVIDER_H
#define KTREPL_PROVIDER_H

#include <linux/types.h>

/*
 * What the debugfs publisher needs from whatever does the replication.
 * ktrepl's own engine (kernel/replica/) implements it on stock kernels;
 * an in-tree implementation (openEuler's init_mm.pgd_numa[] and
 * replica_nodes, or the x86 RFC's mm->pgd_numa[] and
 * closest_memory_node[]) would implement the same callbacks over its own
 * state, and the publisher would run unchanged. See docs/abi.md.
 */

enum ktrepl_activation {
	KTREPL_ACT_NONE,	/* nothing to replicate (one memory node) */
	KTREPL_ACT_INACTIVE,	/* replicas built, no CPU runs on them */
	KTREPL_ACT_WORKLOAD,	/* selected kernel threads run on them */
	KTREPL_ACT_PERCPU,	/* every CPU runs on its node's set */
};

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

struct ktrepl_provider {
	const char *name;
	enum ktrepl_activation activation;
	int master_node;
	unsigned int paging_levels;
	unsigned int va_bits;
	unsigned int page_shift;

	int (*memory_node)(int nid);	/* -1: node has no replica */
	int nr_regions;
	const struct ktrepl_region *regions;
	/* fn returns nonzero to stop; returns that value */
	int (*for_each_extent)(int nid, int region,
			       int (*fn)(const struct ktrepl_extent *ext,
					 void *arg),
			       void *arg);
	phys_addr_t (*node_root)(int nid);	/* PGD/TTBR1 table PA */
	/* leaf mappings of the replicated window in nid's tables */
	int (*for_each_mapping)(int nid,
				int (*fn)(const struct ktrepl_mapping *m,
					  void *arg),
				void *arg);
	/* top-level entries of nid's root that differ from the master's */
	int (*root_diff)(int nid, unsigned int *own, unsigned int *differ);
	u64 (*overhead_bytes)(int nid);
	phys_addr_t master_root;
	unsigned int allocations;	/* page allocations made at load */
	u64 load_ns;			/* how long the load took */
	u64 replicate_ns;		/* of which copies and tables */
	u64 hook_ns;			/* of which hooking the patcher */
	u64 memcpy_ns;			/* a plain memcpy of it (bench=1) */

	void (*patch_counters)(u64 *patches, u64 *bytes, u64 *missed,
			       bool *propagate);
	/* optional: finish propagation already under way (may sleep) */
	void (*flush)(void);
	/* copy up to max newest records, newest last; returns count */
	int (*patch_log)(struct ktrepl_patch_record *recs, int max);
	int (*tasks)(struct ktrepl_task_record *recs, int max);
	int (*workload_ctl)(enum ktrepl_workload_mode mode);
	enum ktrepl_workload_mode (*workload_mode)(void);
	/* the workload's probe, computed here on the master's tables */
	unsigned long (*master_probe)(void);
	phys_addr_t (*read_root)(void);		/* on the calling CPU */
	/* optional, only with fault_inject=1 */
	int (*inject)(const char *cmd);
	/*
	 * Set by the publisher: called (possibly in atomic context) after
	 * counters or tasks changed, to refresh the vmcore descriptor.
	 */
	void (*changed)(void);
};

#endif
