// SPDX-License-Identifier: GPL-2.0
/*
 * A target: one kernel's replication state, its memory, its paging and
 * its symbols, put together once for every check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int kt_target_init(struct kt_target *t, struct kt_state *st,
		   struct kt_memsrc *src, struct kt_symtab *syms,
		   struct kt_err *err)
{
	unsigned int page_shift = 0;

	memset(t, 0, sizeof(*t));
	t->st = st;
	t->src = src;
	t->syms = syms;
	t->arch = kt_arch_find(st->arch);
	if (!t->arch)
		return kt_err_set(err, ENOTSUP, "architecture '%s' is not supported",
				  st->arch);
	while (page_shift < 63 && (1ULL << page_shift) < st->page_size)
		page_shift++;
	return t->arch->configure(&t->geo, st->paging_levels, page_shift,
				  st->va_bits, err);
}

static int add_extent(struct kt_state *st, const struct kt_extent_state *e,
		      size_t *cap, struct kt_err *err)
{
	if (st->nr_extents == *cap) {
		size_t ncap = *cap * 2 + 64;
		struct kt_extent_state *n;

		n = realloc(st->extents, ncap * sizeof(*n));
		if (!n)
			return kt_err_set(err, ENOMEM, "out of memory");
		st->extents = n;
		*cap = ncap;
	}
	st->extents[st->nr_extents++] = *e;
	return 0;
}

/*
 * A dump's descriptor names the replicated modules but not where their
 * copies are (they come and go): each node's own tables say.
 */
static int module_extents_from_tables(struct kt_target *t, struct kt_err *err)
{
	struct kt_state *st = t->st;
	size_t cap = st->nr_extents;
	int r, i, ret = 0;

	for (r = 0; r < st->nr_regions && !ret; r++) {
		const struct kt_region_state *reg = &st->regions[r];

		if (!reg->module)
			continue;
		for (i = 0; i < st->nr_nodes && !ret; i++) {
			const struct kt_node_state *n = &st->nodes[i];
			struct kt_mapping m;
			struct kt_walk w;

			if (n->role != KT_ROLE_MASTER &&
			    n->role != KT_ROLE_REPLICA)
				continue;
			ret = kt_walk_begin(&w, t->arch, &t->geo, t->src,
					    n->root_pa, reg->start, reg->end,
					    err);
			while (!ret && (ret = kt_walk_next(&w, &m, err)) == 1) {
				struct kt_extent_state e = {
					.node = n->nid,
					.region = r,
					.va = m.va,
					.pa = m.pa,
					.size = m.size,
					.page_size = m.size,
					.pa_node = kt_state_pa_node(st, m.pa),
				};

				ret = m.present ? add_extent(st, &e, &cap, err) :
						  0;
			}
			kt_walk_end(&w);
			if (ret < 0)
				return kt_err_wrap(err, "node %d %s", n->nid,
						   reg->name);
		}
	}
	return ret;
}

int kt_target_open_dump(struct kt_target *t, struct kt_state *st,
			struct kt_memsrc *src, struct kt_symtab *syms,
			struct kt_err *err)
{
	uint64_t pa;
	int ret;

	ret = kt_state_find_descriptor(src, &pa, err);
	if (!ret)
		ret = kt_state_load_descriptor(st, src, pa, err);
	if (ret)
		return ret;
	if (st->activation == KT_ACT_NONE)
		ret = kt_err_set(err, ENOENT,
				 "nothing is replicated in this dump: one memory node");
	else
		ret = kt_target_init(t, st, src, syms, err);
	if (!ret)
		ret = module_extents_from_tables(t, err);
	if (ret)
		kt_state_free(st);
	return ret;
}

int kt_read_master(struct kt_target *t, uint64_t va, void *buf,
		   uint64_t len, struct kt_err *err)
{
	const struct kt_extent_state *e;

	e = kt_state_extent(t->st, t->st->master_node, va);
	if (!e || va + len > e->va + e->size)
		return kt_err_set(err, ENOENT,
				  "master mapping of 0x%" PRIx64 " is unknown", va);
	return kt_memsrc_read_phys(t->src, e->pa + (va - e->va), buf, len, err);
}
