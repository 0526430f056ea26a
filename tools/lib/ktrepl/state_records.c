// SPDX-License-Identifier: GPL-2.0
/*
 * The state's records, whichever source filled them (debugfs, a dump's
 * descriptor, a plain kernel): growth, the region index and lookups.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

void kt_state_free(struct kt_state *st)
{
	free(st->nodes);
	free(st->regions);
	free(st->by_name);
	st->nodes = NULL;
	st->regions = NULL;
	st->by_name = NULL;
	st->nr_nodes = st->nr_regions = st->nr_by_name = 0;
	st->nodes_cap = st->regions_cap = 0;
	st->nr_modules = st->modules_omitted = 0;
	st->modules_incomplete = false;
	free(st->extents);
	free(st->cpus);
	free(st->tasks);
	free(st->bound);
	free(st->bound_past);
	st->bound_past = NULL;
	st->nr_bound_past = 0;
	st->extents = NULL;
	st->cpus = NULL;
	st->tasks = NULL;
	st->bound = NULL;
	st->nr_extents = st->nr_cpus = st->nr_tasks = st->nr_bound = 0;
}

const struct kt_node_state *kt_state_node(const struct kt_state *st, int nid)
{
	int i;

	for (i = 0; i < st->nr_nodes; i++)
		if (st->nodes[i].nid == nid)
			return &st->nodes[i];
	return NULL;
}

int kt_state_set_node(const struct kt_state *st, const struct kt_node_state *n)
{
	return n->role == KT_ROLE_LATE ? st->master_node : n->memory_node;
}

const struct kt_node_state *kt_state_root_set(const struct kt_state *st,
					      uint64_t root)
{
	int i;

	for (i = 0; i < st->nr_nodes; i++)
		if (st->nodes[i].memory_node == st->nodes[i].nid &&
		    st->nodes[i].root_pa == root)
			return &st->nodes[i];
	return NULL;
}

/* room for one more of size each in *arr (holding *cap); -ENOMEM */
static int reserve(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

struct kt_node_state *kt_state_add_node(struct kt_state *st,
					struct kt_err *err)
{
	struct kt_node_state *n;

	if (st->nr_nodes >= KT_MAX_NODES) {
		kt_err_set(err, E2BIG,
			   "more than %d nodes, this tool's limit (KT_MAX_NODES)",
			   KT_MAX_NODES);
		return NULL;
	}
	if (reserve((void **)&st->nodes, &st->nodes_cap, (size_t)st->nr_nodes,
		    sizeof(*n))) {
		kt_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	n = &st->nodes[st->nr_nodes++];
	memset(n, 0, sizeof(*n));
	return n;
}

struct kt_region_state *kt_state_add_region(struct kt_state *st,
					    struct kt_err *err)
{
	struct kt_region_state *r;

	if (reserve((void **)&st->regions, &st->regions_cap,
		    (size_t)st->nr_regions, sizeof(*r))) {
		kt_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	r = &st->regions[st->nr_regions++];
	memset(r, 0, sizeof(*r));
	r->orig_node = -1;
	return r;
}

static int by_name_cmp(const void *a, const void *b, void *arg)
{
	const struct kt_region_state *regions = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(regions[x].name, regions[y].name);

	return c ? c : (x > y) - (x < y);
}

int kt_state_index_regions(struct kt_state *st, struct kt_err *err)
{
	int *idx = NULL, i;

	st->nr_by_name = 0;
	if (st->nr_regions) {
		idx = realloc(st->by_name, st->nr_regions * sizeof(*idx));
		if (!idx)
			return kt_err_set(err, ENOMEM, "out of memory");
		st->by_name = idx;
	}
	for (i = 0; i < st->nr_regions; i++)
		idx[i] = i;
	if (st->nr_regions)
		qsort_r(idx, st->nr_regions, sizeof(*idx), by_name_cmp,
			st->regions);
	st->nr_by_name = st->nr_regions;
	return 0;
}

int kt_state_add_module_rodata(struct kt_state *st, int text_region,
			       uint64_t start, uint64_t end)
{
	struct kt_region_state *r, text;
	struct kt_err ignored;

	if (end <= start)
		return -EINVAL;
	text = st->regions[text_region];	/* the array may move */
	r = kt_state_add_region(st, &ignored);
	if (!r)
		return -ENOMEM;
	*r = text;
	/* within r->name: 64 + strlen("/rodata") < sizeof(r->name) */
	strcpy(r->name + strnlen(r->name, 64), KT_MODULE_RODATA);
	r->start = start;
	r->end = end;
	r->text_end = start;
	return st->nr_regions - 1;
}

int kt_state_module_region(const struct kt_state *st, const char *name,
			   uint64_t va)
{
	char rodata[sizeof(st->regions[0].name)];
	int r = kt_state_region(st, name), ro;

	if (r >= 0 && va >= st->regions[r].start && va < st->regions[r].end)
		return r;
	snprintf(rodata, sizeof(rodata), "%.64s" KT_MODULE_RODATA, name);
	ro = kt_state_region(st, rodata);
	return ro >= 0 ? ro : r;
}

bool kt_region_is_text(const struct kt_region_state *r, uint64_t va)
{
	return va >= r->start && va < r->text_end;
}

int kt_state_region(const struct kt_state *st, const char *name)
{
	int indexed = st->by_name && st->nr_by_name <= st->nr_regions ?
		      st->nr_by_name : 0;
	int i, lo = 0, hi = indexed;

	/* the index covers the first nr_by_name regions; later ones follow */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(st->regions[st->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < indexed && !strcmp(st->regions[st->by_name[lo]].name, name))
		return st->by_name[lo];
	for (i = indexed; i < st->nr_regions; i++)
		if (!strcmp(st->regions[i].name, name))
			return i;
	return -1;
}

int kt_state_region_at(const struct kt_state *st, uint64_t va)
{
	int i;

	for (i = 0; i < st->nr_regions; i++)
		if (va >= st->regions[i].start && va < st->regions[i].end)
			return i;
	return -1;
}

int kt_state_pa_node(const struct kt_state *st, uint64_t pa)
{
	int i;

	for (i = 0; i < st->nr_nodes; i++)
		if (st->nodes[i].has_memory && pa >= st->nodes[i].mem_start &&
		    pa < st->nodes[i].mem_end)
			return st->nodes[i].nid;
	return -1;
}

const struct kt_extent_state *kt_state_extent(const struct kt_state *st,
					      int nid, uint64_t va)
{
	size_t i;

	for (i = 0; i < st->nr_extents; i++) {
		const struct kt_extent_state *e = &st->extents[i];

		if (e->node == nid && va >= e->va && va - e->va < e->size)
			return e;
	}
	return NULL;
}
