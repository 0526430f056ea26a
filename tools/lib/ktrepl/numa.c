// SPDX-License-Identifier: GPL-2.0
/* NUMA topology from sysfs: node CPUs and memory blocks. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa.h"

int kt_parse_cpulist(const char *list, unsigned char *mask, int max)
{
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p || lo < 0)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -EINVAL;
			p = end;
		}
		if (hi >= max)
			return -E2BIG;
		for (; lo <= hi; lo++)
			mask[lo] = 1;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

/* the first line of path; -E2BIG when it does not fit in buf */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	else if (!strchr(buf, '\n') && fgetc(f) != EOF)
		ret = -E2BIG;
	fclose(f);
	return ret;
}

static int add_range(struct kt_numa *numa, uint64_t start, uint64_t end,
		     int node, struct kt_err *err)
{
	struct kt_numa_range *r;

	r = realloc(numa->ranges, (numa->nr_ranges + 1) * sizeof(*r));
	if (!r)
		return kt_err_set(err, ENOMEM, "out of memory");
	numa->ranges = r;
	r[numa->nr_ranges++] = (struct kt_numa_range){ start, end, node };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct kt_numa_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void merge_ranges(struct kt_numa *numa)
{
	size_t i, n = 0;

	if (numa->nr_ranges)
		qsort(numa->ranges, numa->nr_ranges, sizeof(*numa->ranges),
		      cmp_range);
	for (i = 0; i < numa->nr_ranges; i++) {
		struct kt_numa_range *r = &numa->ranges[i];

		if (n && numa->ranges[n - 1].node == r->node &&
		    numa->ranges[n - 1].end == r->start)
			numa->ranges[n - 1].end = r->end;
		else
			numa->ranges[n++] = *r;
	}
	numa->nr_ranges = n;
}

static bool node_has_memory(const struct kt_numa *numa, int node)
{
	size_t i;

	for (i = 0; i < numa->nr_ranges; i++)
		if (numa->ranges[i].node == node)
			return true;
	return false;
}

/* memoryless nodes: the nearest node with memory, by sysfs distance */
static void find_memory_nodes(struct kt_numa *numa, const char *nodedir)
{
	int node;

	for (node = 0; node < numa->nr_nodes; node++) {
		char path[1100], line[4096], *p = line;
		int best = -1, best_dist = 0, other = 0;

		numa->memory_node[node] = node;
		if (node_has_memory(numa, node))
			continue;
		numa->memory_node[node] = -1;
		snprintf(path, sizeof(path), "%s/node%d/distance", nodedir, node);
		if (read_line(path, line, sizeof(line)))
			continue;
		/* distance lists every online node, in node order */
		for (other = 0; other < numa->nr_nodes && *p; other++) {
			char *end;
			long dist = strtol(p, &end, 10);

			if (end == p)
				break;
			p = end;
			if (other != node && node_has_memory(numa, other) &&
			    (best < 0 || dist < best_dist)) {
				best = other;
				best_dist = dist;
			}
		}
		numa->memory_node[node] = best;
	}
}

static int load_node(struct kt_numa *numa, const char *dir, int node,
		     uint64_t block, struct kt_err *err)
{
	unsigned char mask[KT_MAX_CPUS] = { 0 };
	char path[1100], line[16384];
	struct dirent *de;
	DIR *d;
	int cpu, ret;

	snprintf(path, sizeof(path), "%s/cpulist", dir);
	ret = read_line(path, line, sizeof(line));
	if (ret == -E2BIG)
		return kt_err_set(err, E2BIG, "%s: a CPU list longer than %zu bytes",
				  path, sizeof(line) - 1);
	if (ret == 0) {
		ret = kt_parse_cpulist(line, mask, KT_MAX_CPUS);
		if (ret == -E2BIG)
			return kt_err_set(err, E2BIG,
					  "%s: a CPU at or above %d, this tool's limit (KT_MAX_CPUS): %s",
					  path, KT_MAX_CPUS, line);
		if (ret)
			return kt_err_set(err, EINVAL, "%s: not a CPU list: %s",
					  path, line);
		for (cpu = 0; cpu < KT_MAX_CPUS; cpu++) {
			if (!mask[cpu])
				continue;
			numa->cpu_node[cpu] = node;
			if (cpu >= numa->nr_cpus)
				numa->nr_cpus = cpu + 1;
		}
	}
	d = opendir(dir);
	if (!d)
		return kt_err_set(err, errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		unsigned long long nr;

		if (strncmp(de->d_name, "memory", 6))
			continue;
		nr = strtoull(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end)
			continue;
		if (add_range(numa, nr * block, (nr + 1) * block, node, err)) {
			closedir(d);
			return -err->code;
		}
	}
	closedir(d);
	return 0;
}

int kt_numa_load(struct kt_numa *numa, const char *sysfs, struct kt_err *err)
{
	char path[512], line[64];
	unsigned long long block;
	struct dirent *de;
	DIR *d;
	int i, ret = 0;

	memset(numa, 0, sizeof(*numa));
	for (i = 0; i < KT_MAX_CPUS; i++)
		numa->cpu_node[i] = -1;
	snprintf(path, sizeof(path), "%s/devices/system/memory/block_size_bytes",
		 sysfs);
	if (read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%llx", &block) != 1 || !block)
		return kt_err_set(err, ENOENT,
				  "%s: cannot read the memory block size (is sysfs mounted?)",
				  path);
	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	d = opendir(path);
	if (!d)
		return kt_err_set(err, errno,
				  "%s: %s (a kernel without CONFIG_NUMA has no NUMA to show)",
				  path, strerror(errno));
	while ((de = readdir(d)) && !ret) {
		char dir[1024], *end;
		long node;

		if (strncmp(de->d_name, "node", 4))
			continue;
		node = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end || node < 0)
			continue;
		if (node >= KT_MAX_NODES) {
			ret = kt_err_set(err, E2BIG,
					 "%s/%s: node %ld is at or above %d, this tool's limit (KT_MAX_NODES)",
					 path, de->d_name, node, KT_MAX_NODES);
			break;
		}
		snprintf(dir, sizeof(dir), "%s/%s", path, de->d_name);
		ret = load_node(numa, dir, node, block, err);
		if (node >= numa->nr_nodes)
			numa->nr_nodes = node + 1;
	}
	closedir(d);
	if (ret) {
		kt_numa_free(numa);
		return ret;
	}
	if (!numa->nr_nodes) {
		kt_numa_free(numa);
		return kt_err_set(err, ENOENT, "%s: no nodes", path);
	}
	merge_ranges(numa);
	find_memory_nodes(numa, path);
	return 0;
}

void kt_numa_free(struct kt_numa *numa)
{
	free(numa->ranges);
	numa->ranges = NULL;
	numa->nr_ranges = 0;
}

int kt_numa_pa_node(const struct kt_numa *numa, uint64_t pa)
{
	size_t lo = 0, hi = numa->nr_ranges;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct kt_numa_range *r = &numa->ranges[mid];

		if (pa < r->start)
			hi = mid;
		else if (pa >= r->end)
			lo = mid + 1;
		else
			return r->node;
	}
	return -1;
}
