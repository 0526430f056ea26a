// SPDX-License-Identifier: GPL-2.0
/* Replica diffing and the composite health check, shared by all tools. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define KT_DIFF_BLOCK (1U << 20)
/* differing bytes closer than this are reported as one range */
#define KT_DIFF_MERGE_GAP 4

const char *const kt_violation_names[KT_V_NR] = {
	[KT_V_BYTES] = "bytes",
	[KT_V_LOCALITY] = "locality",
	[KT_V_UNMAPPED] = "unmapped",
	[KT_V_ROOT] = "root",
	[KT_V_WRITABLE_TEXT] = "writable-text",
	[KT_V_EXEC_RODATA] = "exec-rodata",
	[KT_V_WRITABLE_ALIAS] = "writable-alias",
	[KT_V_CPU_ROOT] = "cpu-root",
	[KT_V_TASK_ROOT] = "task-root",
};

int kt_target_init(struct kt_target *t, struct kt_state *st,
		   struct kt_memsrc *src, struct kt_symtab *syms,
		   struct kt_err *err)
{
	char variant[32];

	memset(t, 0, sizeof(*t));
	t->st = st;
	t->src = src;
	t->syms = syms;
	t->arch = kt_arch_find(st->arch);
	if (!t->arch)
		return kt_err_set(err, ENOTSUP, "architecture '%s' is not supported",
				  st->arch);
	kt_state_paging_variant(st, variant, sizeof(variant));
	return t->arch->configure(&t->geo, variant, err);
}

/* ---- diff -------------------------------------------------------- */

/* is sym "name+0xOFF" with exactly this offset? (4: after an endbr64) */
static bool sym_offset_is(const char *sym, unsigned long long off)
{
	const char *plus = sym ? strrchr(sym, '+') : NULL;
	char *end;

	return plus && strtoull(plus + 1, &end, 16) == off && !*end &&
	       end != plus + 1;
}

const char *kt_classify(const char *arch, const uint8_t *m, const uint8_t *r,
			uint64_t len, const char *sym)
{
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	if (sym && !strncmp(sym, "__SCT__", 7))
		return "static_call";
	if (!strcmp(arch, "x86_64")) {
		bool m_nop5 = len <= 5 && !memcmp(m, nop5, len);
		bool r_nop5 = len <= 5 && !memcmp(r, nop5, len);
		bool at_entry = sym_offset_is(sym, 0) || sym_offset_is(sym, 4);

		if (len == 1 && (m[0] == 0xcc || r[0] == 0xcc))
			return "kprobe";
		if (len <= 5 && ((m_nop5 && r[0] == 0xe8) ||
				 (r_nop5 && m[0] == 0xe8)))
			return at_entry ? "ftrace" : "call";
		if (len <= 5 && ((m_nop5 && r[0] == 0xe9) ||
				 (r_nop5 && m[0] == 0xe9)))
			return "jump_label";
		if (len <= 2 && ((m[0] == 0x66 && r[0] == 0xeb) ||
				 (r[0] == 0x66 && m[0] == 0xeb)))
			return "jump_label";
		if (len <= 5 && m[0] == 0xe8 && r[0] == 0xe8)
			return at_entry ? "ftrace" : "call";
		if (len <= 5 && (m[0] == 0xe8 || m[0] == 0xe9) &&
		    (r[0] == 0xe8 || r[0] == 0xe9))
			return "jump_label";
		return "unknown";
	}
	if (!strcmp(arch, "arm64")) {
		/* m and r start at the instruction; its top byte is [3] */
		if ((m[3] & 0xfc) == 0x94 || (r[3] & 0xfc) == 0x94)
			return "ftrace";
		if ((m[3] & 0xfc) == 0x14 || (r[3] & 0xfc) == 0x14)
			return "jump_label";
		if ((m[3] == 0xd4 && (m[2] & 0xe0) == 0x20) ||
		    (r[3] == 0xd4 && (r[2] & 0xe0) == 0x20))
			return "kprobe";
	}
	return "unknown";
}

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

/*
 * A changed call or jump target leaves the opcode byte equal, so the
 * range starts inside the instruction: back up to a shared e8/e9 that
 * the range fits behind.
 */
static uint64_t x86_insn_start(struct diff_run *dr, const struct kt_diff *d,
			       uint64_t at, struct kt_err *err)
{
	uint8_t m[4], r[4];
	unsigned int k;

	if (d->len > 4 || kt_read_master(dr->t, at - 4, m, 4, err) ||
	    kt_memsrc_read_phys(dr->t->src, d->replica_pa - 4, r, 4, err)) {
		kt_err_clear(err);
		return at;
	}
	for (k = 1; k <= 4 && k + d->len <= 5; k++)
		if (m[4 - k] == r[4 - k] &&
		    (m[4 - k] == 0xe8 || m[4 - k] == 0xe9))
			return at - k;
	return at;
}

static int flush_range(struct diff_run *dr, struct kt_err *err)
{
	struct kt_diff *d = &dr->nd->cur;
	uint64_t show, at;

	if (!dr->nd->open)
		return 0;
	dr->nd->open = false;
	d->len = dr->nd->last - d->va + 1;
	/* report whole instructions: a changed call target starts at e8 */
	at = strcmp(dr->t->st->arch, "x86_64") ? d->va :
						 x86_insn_start(dr, d, d->va, err);
	d->len += d->va - at;
	d->replica_pa -= d->va - at;
	d->master_pa -= d->va - at;
	d->va = at;
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
	if (!dr->t->syms && dr->t->load_syms) {
		dr->t->syms = dr->t->load_syms(dr->t);
		dr->t->load_syms = NULL;
	}
	kt_symtab_format(dr->t->syms, d->va, d->sym, sizeof(d->sym));
	d->kind = kt_classify(dr->t->st->arch, d->master, d->replica, d->len,
			      dr->t->syms ? d->sym : NULL);
	return dr->fn(d, dr->arg);
}

/*
 * The length of the patch site starting at a differing byte, when the
 * two sides are a known instruction pair, so that neighbouring sites
 * (a row of 2-byte jump labels) stay separate ranges. 0: unknown.
 */
static unsigned int site_len(const char *arch, const uint8_t *m,
			     const uint8_t *r, uint64_t left)
{
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned int i;

	if (!strcmp(arch, "arm64"))
		return 4;
	for (i = 0; i < 2; i++) {
		const uint8_t *a = i ? r : m, *b = i ? m : r;

		if (left >= 5 && !memcmp(a, nop5, 5) && (b[0] == 0xe8 || b[0] == 0xe9))
			return 5;
		if (left >= 5 && a[0] == 0xe8 && b[0] == 0xe9)
			return 5;
		if (left >= 2 && a[0] == 0x66 && a[1] == 0x90 && b[0] == 0xeb)
			return 2;
		if (a[0] == 0xcc)
			return 1;
	}
	return 0;
}

/* compare one block of a node's replica with the master's (in mbuf) */
static int diff_block(struct diff_run *dr, int node, int region, uint64_t va,
		      uint64_t replica_pa, uint64_t len, struct kt_err *err)
{
	const char *arch = dr->t->st->arch;
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
		site = site_len(arch, dr->mbuf + i, dr->rbuf + i, len - i);
		if (site == 4)	/* arm64: the whole aligned instruction */
			start = i & ~3ULL;
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
	return !strcmp(n->role, "replica") &&
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

/* ---- verify ------------------------------------------------------ */

struct verify_run {
	struct kt_target *t;
	kt_violation_fn fn;
	void *arg;
	struct kt_verify_stats *stats;
};

static int report(struct verify_run *vr, const struct kt_violation *v)
{
	vr->stats->count[v->kind]++;
	vr->stats->total++;
	return vr->fn(v, vr->arg);
}

static int report_diff(const struct kt_diff *d, void *arg)
{
	struct kt_violation v = {
		.kind = KT_V_BYTES,
		.node = d->node,
		.va = d->va,
		.len = d->len,
		.pa = d->replica_pa,
		.diff = d,
	};

	return report(arg, &v);
}

static bool is_text(const struct kt_state *st, int region)
{
	return !strcmp(st->regions[region].name, "text");
}

/* checks 2 and 4: every replicated VA of a node, through its own root */
static int check_node_mappings(struct verify_run *vr,
			       const struct kt_node_state *n,
			       struct kt_err *err)
{
	struct kt_target *t = vr->t;
	int r, ret = 0;

	for (r = 0; r < t->st->nr_regions && !ret; r++) {
		const struct kt_region_state *reg = &t->st->regions[r];
		struct kt_mapping m;
		struct kt_walk w;

		ret = kt_walk_begin(&w, t->arch, &t->geo, t->src, n->root_pa,
				    reg->start, reg->end, err);
		while (!ret && (ret = kt_walk_next(&w, &m, err)) == 1) {
			struct kt_violation v = {
				.node = n->nid,
				.va = m.va,
				.len = m.size,
				.pa = m.pa,
				.expected_node = n->memory_node,
			};

			ret = 0;
			vr->stats->mappings++;
			if (!m.present) {
				v.kind = KT_V_UNMAPPED;
				ret = report(vr, &v);
				continue;
			}
			v.pa_node = kt_state_pa_node(t->st, m.pa);
			if (v.pa_node != n->memory_node) {
				v.kind = KT_V_LOCALITY;
				ret = report(vr, &v);
			}
			if (!ret && is_text(t->st, r) && m.writable) {
				v.kind = KT_V_WRITABLE_TEXT;
				ret = report(vr, &v);
			}
			if (!ret && !is_text(t->st, r) && m.executable) {
				v.kind = KT_V_EXEC_RODATA;
				ret = report(vr, &v);
			}
		}
		kt_walk_end(&w);
		if (ret < 0)
			return kt_err_wrap(err, "node %d %s walk", n->nid,
					   reg->name);
	}
	return ret;
}

/* check 4b: a replica must not be writable through its direct-map alias */
static int check_aliases(struct verify_run *vr, struct kt_err *err)
{
	struct kt_target *t = vr->t;
	size_t i;
	int ret = 0;

	/*
	 * Only an executable replica makes a writable alias W+X; inactive
	 * replicas (arm64) are executed by no CPU.
	 */
	if (!t->st->direct_map || !strcmp(t->st->activation, "inactive"))
		return 0;
	for (i = 0; i < t->st->nr_extents && !ret; i++) {
		const struct kt_extent_state *e = &t->st->extents[i];
		const struct kt_node_state *n = kt_state_node(t->st, e->node);
		uint64_t start = t->st->direct_map + e->pa;
		struct kt_mapping m;
		struct kt_walk w;

		if (!n || strcmp(n->role, "replica"))
			continue;
		ret = kt_walk_begin(&w, t->arch, &t->geo, t->src,
				    t->st->master_root_pa, start,
				    start + e->size, err);
		while (!ret && (ret = kt_walk_next(&w, &m, err)) == 1) {
			ret = 0;
			if (m.present && m.writable) {
				struct kt_violation v = {
					.kind = KT_V_WRITABLE_ALIAS,
					.node = e->node,
					.va = e->va + (m.va > start ? m.va - start : 0),
					.len = m.size,
					.pa = m.pa,
				};

				ret = report(vr, &v);
			}
		}
		kt_walk_end(&w);
	}
	return ret < 0 ? kt_err_wrap(err, "direct-map alias walk") : ret;
}

static bool replicated_index(struct kt_target *t, unsigned int idx)
{
	int r;

	for (r = 0; r < t->st->nr_regions; r++) {
		unsigned int shift = t->geo.shift[0];
		uint64_t mask = (1ULL << t->geo.bits[0]) - 1;
		unsigned int first = (t->st->regions[r].start >> shift) & mask;
		unsigned int last = ((t->st->regions[r].end - 1) >> shift) & mask;

		if (idx >= first && idx <= last)
			return true;
	}
	return false;
}

/* check 3: outside the replicated window a node's root is the master's */
static int check_root(struct verify_run *vr, const struct kt_node_state *n,
		      struct kt_err *err)
{
	struct kt_target *t = vr->t;
	size_t entries = 1ULL << t->geo.bits[0];
	uint64_t *mine, *master;
	unsigned int i;
	int ret = 0;

	mine = calloc(entries, sizeof(*mine));
	master = calloc(entries, sizeof(*master));
	if (!mine || !master) {
		ret = kt_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (kt_memsrc_read_phys(t->src, n->root_pa, mine, entries * 8, err) ||
	    kt_memsrc_read_phys(t->src, t->st->master_root_pa, master,
				entries * 8, err)) {
		ret = kt_err_wrap(err, "node %d root", n->nid);
		goto out;
	}
	for (i = t->geo.kernel_first; i < entries && !ret; i++) {
		struct kt_violation v = {
			.kind = KT_V_ROOT,
			.node = n->nid,
			.index = i,
			.got = mine[i],
			.want = master[i],
			.pa = n->root_pa + i * 8,
		};

		if (mine[i] == master[i] || replicated_index(t, i))
			continue;
		ret = report(vr, &v);
	}
out:
	free(mine);
	free(master);
	return ret;
}

/* check 5: who runs on which tables */
static int check_roots_in_use(struct verify_run *vr)
{
	struct kt_state *st = vr->t->st;
	size_t i;
	int ret = 0;

	if (!strcmp(st->activation, "percpu")) {
		for (i = 0; i < st->nr_cpus && !ret; i++) {
			struct kt_violation v = {
				.kind = KT_V_CPU_ROOT,
				.node = st->cpus[i].node,
				.cpu = st->cpus[i].cpu,
				.got = st->cpus[i].loaded_root_pa,
				.want = st->cpus[i].expected_root_pa,
			};

			if (v.got != v.want)
				ret = report(vr, &v);
		}
	}
	for (i = 0; i < st->nr_tasks && !ret; i++) {
		struct kt_violation v = {
			.kind = KT_V_TASK_ROOT,
			.node = st->tasks[i].node,
			.cpu = st->tasks[i].pid,
			.got = st->tasks[i].root_pa,
			.want = st->tasks[i].expected_root_pa,
		};

		/* a worker that has not run yet reports no root */
		if (v.got && v.got != v.want)
			ret = report(vr, &v);
	}
	return ret;
}

int kt_verify_run(struct kt_target *t, kt_violation_fn fn, void *arg,
		  struct kt_verify_stats *stats, struct kt_err *err)
{
	struct verify_run vr = { .t = t, .fn = fn, .arg = arg, .stats = stats };
	int i, ret;

	memset(stats, 0, sizeof(*stats));
	ret = kt_diff_run(t, NULL, report_diff, &vr, &stats->compared_bytes,
			  err);
	for (i = 0; i < t->st->nr_nodes && !ret; i++) {
		const struct kt_node_state *n = &t->st->nodes[i];

		if (!n->root_pa)
			continue;
		stats->nodes++;
		ret = check_node_mappings(&vr, n, err);
		if (!ret && n->root_pa != t->st->master_root_pa)
			ret = check_root(&vr, n, err);
	}
	if (!ret)
		ret = check_aliases(&vr, err);
	if (!ret)
		ret = check_roots_in_use(&vr);
	return ret;
}
