// SPDX-License-Identifier: GPL-2.0
/*
 * The master's text against the vmlinux it was booted from: every range
 * that differs is either the kernel's own doing (a boot or runtime patch
 * site, a KASLR relocation) or it is not, and then it is corruption.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define VDIFF_BLOCK (1U << 20)
#define VDIFF_MARGIN 8
#define VDIFF_MERGE_GAP 4


struct vdiff_run {
	struct kt_target *t;
	const struct kt_vmlinux *v;
	int64_t slide;
	int region;
	bool all;
	kt_diff_fn fn;
	void *arg;
	struct kt_vdiff_stats *stats;
	/* the open range, in runtime addresses */
	bool open;
	uint64_t start, last;
	const struct kt_site *site;
};

static void count(struct kt_vdiff_stats *s, const char *kind)
{
	size_t i;

	for (i = 0; i < s->nr_kinds; i++)
		if (!strcmp(s->kinds[i].name, kind))
			break;
	if (i == s->nr_kinds) {
		if (s->nr_kinds == KT_VDIFF_MAX_KINDS)
			return;
		s->kinds[s->nr_kinds++].name = kind;
	}
	s->kinds[i].ranges++;
}

static int flush(struct vdiff_run *vr, struct kt_err *err)
{
	uint8_t mem[KT_DIFF_SHOW + 2 * VDIFF_MARGIN];
	uint8_t file[KT_DIFF_SHOW + 2 * VDIFF_MARGIN];
	struct kt_diff d = { 0 };
	uint64_t len, base, show, span;
	bool expected;

	if (!vr->open)
		return 0;
	vr->open = false;
	len = vr->last - vr->start + 1;
	d.node = vr->t->st->master_node;
	d.region = vr->region;
	d.va = vr->start;
	d.len = len;
	show = len < KT_DIFF_SHOW ? len : KT_DIFF_SHOW;
	base = d.va - VDIFF_MARGIN;
	span = show + 2 * VDIFF_MARGIN;
	if (kt_read_master(vr->t, base, mem, span, err) ||
	    kt_vmlinux_read(vr->v, base - vr->slide, file, span, err)) {
		/* at a region edge: without the margins */
		kt_err_clear(err);
		memset(mem, 0, sizeof(mem));
		memset(file, 0, sizeof(file));
		if (kt_read_master(vr->t, d.va, mem + VDIFF_MARGIN, show, err) ||
		    kt_vmlinux_read(vr->v, d.va - vr->slide, file + VDIFF_MARGIN,
				    show, err))
			return kt_err_wrap(err, "0x%" PRIx64, d.va);
	}
	memcpy(d.master, mem + VDIFF_MARGIN, show);
	memcpy(d.replica, file + VDIFF_MARGIN, show);
	memcpy(d.before, mem, VDIFF_MARGIN);
	memcpy(d.after, mem + VDIFF_MARGIN + show, VDIFF_MARGIN);
	kt_target_name_addr(vr->t, d.va, d.sym, sizeof(d.sym));
	if (vr->site && vr->t->arch->site_bytes_valid &&
	    vr->t->arch->site_bytes_valid(vr->site->kind, vr->site->len,
					   d.master)) {
		d.kind = kt_site_names[vr->site->kind];
		expected = true;
	} else if (vr->site) {
		/* in a patch site, but not a state the kernel writes */
		d.kind = "unknown";
		expected = false;
	} else if (len <= KT_DIFF_SHOW &&
		   kt_vmlinux_relocated(vr->v, base - vr->slide, mem, file, span,
					d.va - vr->slide, len, vr->slide)) {
		d.kind = "kaslr";
		expected = true;
	} else {
		/* runtime patching outside the tables: a kprobe's int3 */
		d.kind = kt_classify(vr->t->arch, d.master, d.replica, len,
				     vr->t->syms ? d.sym : NULL);
		expected = strcmp(d.kind, "unknown") != 0;
	}
	d.vs_file = true;
	count(vr->stats, d.kind);
	if (!expected)
		vr->stats->unexplained++;
	return vr->all || !expected ? vr->fn(&d, vr->arg) : 0;
}

/* site ranges are exact; other bytes merge across small gaps */
static int note_byte(struct vdiff_run *vr, uint64_t va, struct kt_err *err)
{
	const struct kt_site *site;
	int ret;

	if (vr->open && va <= vr->last)
		return 0;
	site = kt_vmlinux_site(vr->v, va - vr->slide);
	if (vr->open && (site || vr->site || va - vr->last > VDIFF_MERGE_GAP)) {
		ret = flush(vr, err);
		if (ret)
			return ret;
	}
	if (!vr->open) {
		vr->open = true;
		vr->site = site;
		vr->start = site ? site->va + vr->slide : va;
		vr->last = site ? vr->start + site->len - 1 : va;
		return 0;
	}
	vr->last = va;
	return 0;
}

int kt_diff_vmlinux_run(struct kt_target *t, const struct kt_vmlinux *v,
			bool all, kt_diff_fn fn, void *arg,
			struct kt_vdiff_stats *stats, struct kt_err *err)
{
	struct vdiff_run vr = { .t = t, .v = v, .all = all, .fn = fn,
				.arg = arg, .stats = stats };
	uint8_t *mbuf = NULL, *fbuf = NULL;
	uint64_t va, end;
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	vr.region = kt_state_region(t->st, "text");
	if (vr.region < 0)
		return kt_err_set(err, ENOENT, "no text region to compare");
	va = t->st->regions[vr.region].start;
	end = t->st->regions[vr.region].end;
	vr.slide = (int64_t)(va - v->stext);
	stats->slide = vr.slide;
	stats->relocs_inferred = v->relocs_inferred;
	if (end - va != v->etext - v->stext)
		return kt_err_set(err, EINVAL,
				  "%s: its text is %" PRIu64 " bytes, the kernel's %" PRIu64 ": another build",
				  v->path, v->etext - v->stext, end - va);
	mbuf = malloc(VDIFF_BLOCK);
	fbuf = malloc(VDIFF_BLOCK);
	if (!mbuf || !fbuf) {
		ret = kt_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	while (va < end && !ret) {
		const struct kt_extent_state *e;
		uint64_t len = end - va < VDIFF_BLOCK ? end - va : VDIFF_BLOCK, i;

		e = kt_state_extent(t->st, t->st->master_node, va);
		if (!e) {
			ret = kt_err_set(err, ENOENT,
					 "the master does not map 0x%" PRIx64, va);
			break;
		}
		if (e->va + e->size - va < len)
			len = e->va + e->size - va;
		ret = kt_read_master(t, va, mbuf, len, err);
		if (!ret)
			ret = kt_vmlinux_read(v, va - vr.slide, fbuf, len, err);
		for (i = 0; i < len && !ret; i++)
			if (mbuf[i] != fbuf[i])
				ret = note_byte(&vr, va + i, err);
		stats->compared += len;
		va += len;
	}
	if (!ret)
		ret = flush(&vr, err);
out:
	free(mbuf);
	free(fbuf);
	return ret;
}
