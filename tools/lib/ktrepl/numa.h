/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_NUMA_H
#define KTREPL_NUMA_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * The tools' two topology limits, declared here once: node ids below
 * KT_MAX_NODES and CPU ids below KT_MAX_CPUS. A machine, debugfs or dump
 * beyond either is refused with an error that names the limit, never
 * cut short.
 */
#define KT_MAX_NODES 64
#define KT_MAX_CPUS 1024
/* the same limits under the names the sampling code uses */
#define KT_NUMA_MAX_NODES KT_MAX_NODES
#define KT_NUMA_MAX_CPUS KT_MAX_CPUS

struct kt_numa_range {
	uint64_t start;
	uint64_t end;
	int node;
};

/*
 * The machine's NUMA layout as sysfs shows it: which CPUs each node has,
 * and which node each memory block belongs to. It is the kernel's own
 * view, independent of ktrepl, and works with or without the module.
 */
struct kt_numa {
	int nr_nodes;			/* highest node id + 1 */
	/*
	 * The node whose memory counts as local for a node's CPUs: itself,
	 * or for a memoryless node the nearest one with memory (by the
	 * firmware's distances), as replication maps it.
	 */
	int memory_node[KT_NUMA_MAX_NODES];
	int cpu_node[KT_NUMA_MAX_CPUS];	/* -1: offline or absent */
	int nr_cpus;			/* highest CPU id + 1 */
	struct kt_numa_range *ranges;	/* sorted, merged */
	size_t nr_ranges;
};

/* sysfs is "/sys" normally; tests point it at a copy. */
int kt_numa_load(struct kt_numa *numa, const char *sysfs, struct kt_err *err);
void kt_numa_free(struct kt_numa *numa);
/* the node whose memory holds pa, or -1 */
int kt_numa_pa_node(const struct kt_numa *numa, uint64_t pa);
/*
 * Parse a "0-3,8" CPU list into mask (one bool per CPU below max):
 * -EINVAL for what is no list, -E2BIG for a CPU at or above max.
 */
int kt_parse_cpulist(const char *list, unsigned char *mask, int max);

#endif
