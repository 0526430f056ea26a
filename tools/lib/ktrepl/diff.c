// SPDX-License-Identifier: GPL-2.0
/*
 * Replica diffing: every replica byte against the master's, coalesced
 * into whole instructions and patch sites, each named and classified.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/*
 * The master's block and a replica's, both in a core's L2 (1 MiB on the
 * EPYC hosts): at 1 MiB each the kernel's copy and the memcmp went to L3,
 * and the byte check read a vmcore at 4.3 GB/s against dd's 13.7; at
 * 256 KiB, 6.8 GB/s (issue 42).
 */
#define KT_DIFF_BLOCK (256U << 10)
/* differing bytes closer than this are reported as one range */
#define KT_DIFF_MERGE_GAP 4

/* the range being coalesced on one node */
struct node_diff {
	struct kt_diff cur;
	bool open;
	bool site;	/* the open range is one known patch site */
	uint64_t last;	/* last VA of the open range */
};

struct diff_run {
	struct kt_target *t;
	kt_diff_fn fn;
	void *arg;
	struct node_diff *nd;	/* the node being compared */
	uint8_t *mbuf, *rbuf;
};

static uint64_t master_pa_of(struct kt_target *t, uint64_t va)
{
	const struct kt_extent_state *e;

	e = kt_state_extent(t->st, t->st->master_node, va);
	return e ? e->pa + (va - e->va) : 0;
}

/* report whole instructions: a changed call target starts at its e8 */
static uint64_t insn_start(struct diff_run *dr, const struct kt_diff *d,
			   struct kt_err *err)
{
	const struct kt_arch *arch = dr->t->arch;
	uint8_t m[4], r[4];

	if (!arch->insn_backup || kt_read_master(dr->t, d->va - 4, m, 4, err) ||
	    kt_memsrc_read_phys(dr->t->src, d->replica_pa - 4, r, 4, err)) {
		kt_err_clear(err);
		return d->va;
	}
	return d->va - arch->insn_backup(m, r, d->len);
}

/* one read of both sides of d, inside one even value of the window */
static int read_at_rest(struct kt_target *t, const struct kt_diff *d,
			uint8_t *m, uint8_t *r, bool *at_rest,
			struct kt_err *err)
{
	uint64_t before, after;

	*at_rest = false;
	if (t->patch_window(t, &before, err))
		return -err->code;
	if (before & 1)
		return 0;
	if (kt_read_master(t, d->va, m, d->len, err) ||
	    kt_memsrc_read_phys(t->src, d->replica_pa, r, d->len, err) ||
	    t->patch_window(t, &after, err))
		return -err->code;
	*at_rest = after == before;
	return 0;
}

/*
 * Live, a range may differ only because a patch is half made: the hook
 * wrote the replicas and the kernel is about to write the master. Read
 * it again at rest: equal, it was a patch in flight and is dropped (1);
 * still different, it is reported (0). A range never read at rest after
 * KT_SETTLE_TRIES tries, with a growing pause, is reported unsettled.
 */
static int settle_range(struct diff_run *dr, struct kt_diff *d,
			struct kt_err *err)
{
	struct kt_target *t = dr->t;
	unsigned int try, pause_us = 100;
	uint8_t *m = malloc(d->len), *r = malloc(d->len);
	bool at_rest = false;
	int ret = 0;

	if (!m || !r) {
		ret = kt_err_set(err, ENOMEM, "out of memory re-reading 0x%" PRIx64,
				 d->va);
		goto out;
	}
	t->settle.rechecked++;
	for (try = 0; try < KT_SETTLE_TRIES; try++) {
		if (try) {
			usleep(pause_us);
			if (pause_us < 50000)
				pause_us *= 2;
		}
		ret = read_at_rest(t, d, m, r, &at_rest, err);
		if (ret || at_rest)
			break;
	}
	if (ret)
		goto out;
	if (!at_rest) {
		d->unsettled = true;
		t->settle.unsettled++;
	} else if (!memcmp(m, r, d->len)) {
		t->settle.transient++;
		ret = 1;
	}
out:
	free(m);
	free(r);
	return ret;
}

struct kt_symtab *kt_target_symbols(struct kt_target *t)
{
	if (!t->syms && t->load_syms) {
		t->syms = t->load_syms(t);
		t->load_syms = NULL;
	}
	return t->syms;
}

bool kt_target_name_addr(struct kt_target *t, uint64_t va, char *buf,
			 size_t len)
{
	const struct kt_region_state *r;
	const char *module, *rodata;
	uint64_t off = 0;
	int i;

	kt_target_symbols(t);
	/* past 1 MiB from a symbol is not that symbol's code (symbols.c) */
	if (t->syms && kt_symtab_lookup(t->syms, va, &off) && off < (1 << 20)) {
		kt_symtab_format(t->syms, va, buf, len);
		return true;
	}
	i = kt_state_region_at(t->st, va);
	r = i >= 0 ? &t->st->regions[i] : NULL;
	if (!r || !r->module ||
	    strncmp(r->name, KT_MODULE_PREFIX, strlen(KT_MODULE_PREFIX))) {
		snprintf(buf, len, "0x%" PRIx64, va);
		return false;
	}
	module = r->name + strlen(KT_MODULE_PREFIX);
	rodata = strstr(module, KT_MODULE_RODATA);
	snprintf(buf, len, "[%.*s%s]+0x%" PRIx64,
		 (int)(rodata ? rodata - module : (ptrdiff_t)strlen(module)),
		 module, rodata ? " rodata" : "", va - r->start);
	return false;
}

static int flush_range(struct diff_run *dr, struct kt_err *err)
{
	struct kt_diff *d = &dr->nd->cur;
	uint64_t show, at;
	bool named;
	int ret;

	if (!dr->nd->open)
		return 0;
	dr->nd->open = false;
	d->len = dr->nd->last - d->va + 1;
	at = insn_start(dr, d, err);
	d->len += d->va - at;
	d->replica_pa -= d->va - at;
	d->master_pa -= d->va - at;
	d->va = at;
	if (dr->t->patch_window) {
		ret = settle_range(dr, d, err);
		if (ret)
			return ret > 0 ? 0 : ret;
	}
	show = d->len < KT_DIFF_SHOW ? d->len : KT_DIFF_SHOW;
	/* re-read the exact bytes: the range may span two blocks */
	if (kt_read_master(dr->t, d->va, d->master, show, err) ||
	    kt_memsrc_read_phys(dr->t->src, d->replica_pa, d->replica, show,
				err) ||
	    kt_read_master(dr->t, d->va - KT_DIFF_CONTEXT, d->before,
			KT_DIFF_CONTEXT, err) ||
	    kt_read_master(dr->t, d->va + d->len, d->after, KT_DIFF_CONTEXT, err)) {
		/* context at a region edge may not be replicated: leave it */
		kt_err_clear(err);
	}
	named = kt_target_name_addr(dr->t, d->va, d->sym, sizeof(d->sym));
	d->kind = kt_classify(dr->t->arch, d->master, d->replica, d->len,
			      named ? d->sym : NULL);
	return dr->fn(d, dr->arg);
}

/* compare one block of a node's replica with the master's (in mbuf) */
static int diff_block(struct diff_run *dr, int node, int region, uint64_t va,
		      uint64_t replica_pa, uint64_t len, struct kt_err *err)
{
	const struct kt_arch *arch = dr->t->arch;
	struct node_diff *nd = dr->nd;
	uint64_t i;
	int ret;

	if (kt_memsrc_read_phys(dr->t->src, replica_pa, dr->rbuf, len, err))
		return kt_err_wrap(err, "node %d, 0x%" PRIx64, node, va);
	if (!memcmp(dr->mbuf, dr->rbuf, len))
		return 0;
	for (i = 0; i < len; i++) {
		unsigned int site;
		uint64_t start = i;

		if (dr->mbuf[i] == dr->rbuf[i] || (nd->open && va + i <= nd->last))
			continue;
		site = arch->site_len ? arch->site_len(dr->mbuf + i, dr->rbuf + i,
							len - i) : 0;
		/* a site on a fixed-width arch is the whole aligned instruction */
		if (site && arch->insn_align > 1)
			start = i - i % arch->insn_align;
		if (nd->open && (site || nd->site ||
				 va + i - nd->last > KT_DIFF_MERGE_GAP)) {
			ret = flush_range(dr, err);
			if (ret)
				return ret;
		}
		if (!nd->open) {
			memset(&nd->cur, 0, sizeof(nd->cur));
			nd->cur.node = node;
			nd->cur.region = region;
			nd->cur.va = va + start;
			nd->cur.replica_pa = replica_pa + start;
			nd->cur.master_pa = master_pa_of(dr->t, va + start);
			nd->open = true;
			nd->site = site != 0;
		}
		nd->last = va + start + (site ? site : 1) - 1;
	}
	return 0;
}

static bool compares_node(const struct kt_node_state *n,
			  const struct kt_diff_opts *opts)
{
	/* aliases share their memory node's replica: compare once */
	return n->role == KT_ROLE_REPLICA &&
	       (!opts || opts->node < 0 || opts->node == n->nid);
}

/* the largest block at va that no extent boundary cuts */
static int block_len(struct kt_target *t, const struct kt_diff_opts *opts,
		     uint64_t va, uint64_t len, struct kt_err *err)
{
	const struct kt_extent_state *e;
	int i;

	e = kt_state_extent(t->st, t->st->master_node, va);
	if (!e)
		return kt_err_set(err, ENOENT, "the master does not map 0x%" PRIx64,
				  va);
	if (e->va + e->size - va < len)
		len = e->va + e->size - va;
	for (i = 0; i < t->st->nr_nodes; i++) {
		if (!compares_node(&t->st->nodes[i], opts))
			continue;
		e = kt_state_extent(t->st, t->st->nodes[i].nid, va);
		if (!e)
			return kt_err_set(err, ENOENT,
					  "node %d has no replica of 0x%" PRIx64,
					  t->st->nodes[i].nid, va);
		if (e->va + e->size - va < len)
			len = e->va + e->size - va;
	}
	return (int)len;
}

/*
 * Block by block over each region: the master's bytes are read once and
 * compared with every replica node's, so a 4-node check reads the
 * master once, not three times.
 */
int kt_diff_run(struct kt_target *t, const struct kt_diff_opts *opts,
		kt_diff_fn fn, void *arg, uint64_t *compared,
		struct kt_err *err)
{
	struct diff_run dr = { .t = t, .fn = fn, .arg = arg };
	struct node_diff nds[KT_MAX_NODES] = { 0 };
	int r, i, ret = 0;

	*compared = 0;
	dr.mbuf = malloc(KT_DIFF_BLOCK);
	dr.rbuf = malloc(KT_DIFF_BLOCK);
	if (!dr.mbuf || !dr.rbuf) {
		ret = kt_err_set(err, ENOMEM, "out of memory for diff buffers");
		goto out;
	}
	for (r = 0; r < t->st->nr_regions && !ret; r++) {
		uint64_t va = t->st->regions[r].start, end = t->st->regions[r].end;

		if (opts && opts->region >= 0 && opts->region != r)
			continue;
		while (va < end && !ret) {
			int len = block_len(t, opts, va,
					    end - va < KT_DIFF_BLOCK ? end - va :
								       KT_DIFF_BLOCK,
					    err);

			if (len < 0) {
				ret = len;
				break;
			}
			ret = kt_read_master(t, va, dr.mbuf, (uint64_t)len, err);
			for (i = 0; i < t->st->nr_nodes && !ret; i++) {
				const struct kt_node_state *n = &t->st->nodes[i];
				const struct kt_extent_state *e;

				if (!compares_node(n, opts))
					continue;
				e = kt_state_extent(t->st, n->nid, va);
				dr.nd = &nds[i];
				ret = diff_block(&dr, n->nid, r, va,
						 e->pa + (va - e->va),
						 (uint64_t)len, err);
				*compared += (uint64_t)len;
			}
			va += (uint64_t)len;
		}
		for (i = 0; i < t->st->nr_nodes && !ret; i++) {
			dr.nd = &nds[i];
			ret = flush_range(&dr, err);
		}
	}
out:
	free(dr.mbuf);
	free(dr.rbuf);
	return ret;
}

