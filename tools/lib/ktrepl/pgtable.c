// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtable.h"

#define KT_WALK_DEFAULT_STEPS (1UL << 22)

const struct kt_arch *kt_arch_find(const char *name)
{
	if (!strcmp(name, "x86_64"))
		return &kt_arch_x86_64;
	if (!strcmp(name, "arm64") || !strcmp(name, "aarch64"))
		return &kt_arch_arm64;
	return NULL;
}

const char *kt_classify(const struct kt_arch *arch, const uint8_t *master,
			const uint8_t *replica, uint64_t len, const char *sym)
{
	const char *kind = NULL;

	/* a static_call trampoline is named after its key on every arch */
	if (sym && !strncmp(sym, "__SCT__", 7))
		return "static_call";
	if (arch->classify)
		kind = arch->classify(master, replica, len, sym);
	return kind ? kind : "unknown";
}

static unsigned int index_of(const struct kt_pt_geometry *geo, uint64_t va,
			     int level)
{
	return (va >> geo->shift[level]) & ((1ULL << geo->bits[level]) - 1);
}

int kt_walk_begin(struct kt_walk *w, const struct kt_arch *arch,
		  const struct kt_pt_geometry *geo, struct kt_memsrc *src,
		  uint64_t root_pa, uint64_t start, uint64_t end,
		  struct kt_err *err)
{
	unsigned int l;

	memset(w, 0, sizeof(*w));
	w->arch = arch;
	w->geo = geo;
	w->src = src;
	w->root_pa = root_pa;
	w->va = start;
	w->end = end;
	w->max_steps = KT_WALK_DEFAULT_STEPS;
	for (l = 0; l < geo->levels; l++) {
		w->cached_pa[l] = UINT64_MAX;
		w->cached[l] = malloc(sizeof(uint64_t) << geo->bits[l]);
		if (!w->cached[l]) {
			kt_walk_end(w);
			return kt_err_set(err, ENOMEM, "out of memory for a walk");
		}
	}
	return 0;
}

void kt_walk_end(struct kt_walk *w)
{
	unsigned int l;

	for (l = 0; l < KT_MAX_LEVELS; l++) {
		free(w->cached[l]);
		w->cached[l] = NULL;
	}
}

static int read_table(struct kt_walk *w, int level, uint64_t pa,
		      struct kt_err *err)
{
	size_t size = sizeof(uint64_t) << w->geo->bits[level];

	if (w->cached_pa[level] == pa)
		return 0;
	w->cached_pa[level] = UINT64_MAX;
	if (kt_memsrc_read_phys(w->src, pa, w->cached[level], size, err))
		return kt_err_wrap(err, "level-%d table at 0x%" PRIx64, level,
				   pa);
	w->cached_pa[level] = pa;
	return 0;
}

/* Walk one VA from the root; fills m; never loops (depth = levels). */
static int walk_one(struct kt_walk *w, uint64_t va, struct kt_mapping *m,
		    struct kt_err *err)
{
	const struct kt_pt_geometry *geo = w->geo;
	uint64_t table = w->root_pa;
	unsigned int l;

	memset(m, 0, sizeof(*m));
	for (l = 0; l < geo->levels; l++) {
		uint64_t e;
		int ret;

		if (w->cached[l]) {
			ret = read_table(w, l, table, err);
			if (ret)
				return ret;
			e = w->cached[l][index_of(geo, va, l)];
		} else if (kt_memsrc_read_phys(w->src, table + 8 * index_of(geo, va, l),
					       &e, sizeof(e), err)) {
			return kt_err_wrap(err, "level-%d entry in table 0x%" PRIx64,
					   l, table);
		}
		m->entry[l] = e;
		m->table_pa[l] = table;
		m->level = l;
		m->size = 1ULL << geo->shift[l];
		/* va is canonical already: keep its upper bits as they are */
		m->va = va & ~(m->size - 1);
		if (!w->arch->present(e))
			return 0;
		if (w->arch->leaf(geo, e, l)) {
			m->present = true;
			w->arch->decode_leaf(geo, e, l, m);
			return 0;
		}
		table = w->arch->next_pa(geo, e, l);
	}
	return kt_err_set(err, EINVAL,
			  "walk of 0x%" PRIx64 " went past the last level", va);
}

int kt_walk_next(struct kt_walk *w, struct kt_mapping *m, struct kt_err *err)
{
	int ret;

	if (w->done || w->va >= w->end)
		return 0;
	if (++w->steps > w->max_steps)
		return kt_err_set(err, ELOOP,
				  "page-table walk gave up after %lu steps at 0x%" PRIx64,
				  w->max_steps, w->va);
	ret = walk_one(w, w->va, m, err);
	if (ret)
		return ret;
	/* the next VA after this entry; stop on wrap-around */
	if (m->va + m->size <= m->va || m->va + m->size >= w->end)
		w->done = true;
	else
		w->va = m->va + m->size;
	return 1;
}

int kt_translate(const struct kt_arch *arch, const struct kt_pt_geometry *geo,
		 struct kt_memsrc *src, uint64_t root_pa, uint64_t va,
		 struct kt_mapping *m, struct kt_err *err)
{
	/* no table caches: one VA reads one entry per level, not whole tables */
	struct kt_walk w = {
		.arch = arch,
		.geo = geo,
		.src = src,
		.root_pa = root_pa,
		.va = va,
		.end = va + 1,
	};
	int ret = walk_one(&w, va, m, err);

	if (!ret && m->present)
		m->pa += (va - m->va);
	return ret;
}

void kt_mapping_flags(const struct kt_mapping *m, char *buf, unsigned int len)
{
	if (!m->present) {
		snprintf(buf, len, "NP");
		return;
	}
	snprintf(buf, len, "%s,%s,%s%s", m->writable ? "RW" : "RO",
		 m->executable ? "X" : "NX", m->global ? "GLB" : "NG",
		 m->user ? ",USR" : "");
}
