// SPDX-License-Identifier: GPL-2.0
/*
 * A target: one kernel's replication state, its memory, its paging and
 * its symbols, put together once for every check.
 */
#include <errno.h>
#include <inttypes.h>
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
