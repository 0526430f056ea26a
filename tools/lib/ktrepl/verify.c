// SPDX-License-Identifier: GPL-2.0
/*
 * The composite health check: each check below is one entry of the
 * checks table, run in order over a target; every violation found goes
 * to the caller's callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

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
	[KT_V_STALE_TABLE] = "stale-table",
	[KT_V_MM_ENTRY] = "mm-entry",
	[KT_V_UNSETTLED] = "unsettled",
	[KT_V_NOT_COVERED] = "not-covered",
	[KT_V_FAILSAFE] = "failsafe",
};

struct verify_run {
	struct kt_target *t;
	kt_violation_fn fn;
	void *arg;
	struct kt_verify_stats *stats;
};

static int report(struct verify_run *vr, const struct kt_violation *v)
{
	vr->stats->count[v->kind]++;
	if (v->kind != KT_V_NOT_COVERED)
		vr->stats->total++;
	return vr->fn(v, vr->arg);
}

static int report_diff(const struct kt_diff *d, void *arg)
{
	struct kt_violation v = {
		.kind = d->unsettled ? KT_V_UNSETTLED : KT_V_BYTES,
		.node = d->node,
		.va = d->va,
		.len = d->len,
		.pa = d->replica_pa,
		.diff = d,
	};

	return report(arg, &v);
}

/*
 * The master node (and a memoryless node using its memory) runs a
 * module's own pages where the kernel gives it no copy: a kernel older
 * than master_copies, which says how many pages the master runs copied.
 */
static bool loader_pages_expected(const struct kt_state *st,
				  const struct kt_region_state *reg,
				  const struct kt_node_state *n)
{
	return reg->module && kt_state_set_node(st, n) == st->master_node &&
	       !reg->master_copies;
}

/* checks 2 and 4: every replicated VA of a node, through its own root */
static int check_node_mappings(struct verify_run *vr,
			       const struct kt_node_state *n,
			       struct kt_err *err)
{
	struct kt_target *t = vr->t;
	int set = kt_state_set_node(t->st, n);
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
				.expected_node = set,
			};

			ret = 0;
			vr->stats->mappings++;
			if (!m.present) {
				v.kind = KT_V_UNMAPPED;
				ret = report(vr, &v);
				continue;
			}
			v.pa_node = kt_state_pa_node(t->st, m.pa);
			if (v.pa_node != set &&
			    !loader_pages_expected(t->st, reg, n)) {
				v.kind = KT_V_LOCALITY;
				ret = report(vr, &v);
			}
			if (!ret && kt_region_is_text(reg, m.va) &&
			    m.writable) {
				v.kind = KT_V_WRITABLE_TEXT;
				ret = report(vr, &v);
			}
			if (!ret && !kt_region_is_text(reg, m.va) &&
			    m.executable) {
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
	if (!t->st->direct_map || t->st->activation == KT_ACT_INACTIVE)
		return 0;
	for (i = 0; i < t->st->nr_extents && !ret; i++) {
		const struct kt_extent_state *e = &t->st->extents[i];
		const struct kt_node_state *n = kt_state_node(t->st, e->node);
		uint64_t start = t->st->direct_map + e->pa;
		struct kt_mapping m;
		struct kt_walk w;

		if (!n || n->role != KT_ROLE_REPLICA)
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

/* does [va, va + size) hold replicated bytes? */
static bool replicated_span(const struct kt_state *st, uint64_t va,
			    uint64_t size)
{
	int r;

	for (r = 0; r < st->nr_regions; r++)
		/* inclusive ends: the last entry's span ends at 2^64 */
		if (va <= st->regions[r].end - 1 &&
		    st->regions[r].start <= va + (size - 1))
			return true;
	return false;
}

/*
 * Modules lie within this of the kernel image, the reach of their
 * relocations (x86_64's module area is the 1 GiB above it; arm64 places
 * them within 2 GiB of the image's text).
 */
#define KT_MODULE_REACH (2ULL << 30)

/* does [va, va + size) lie where modules may be, off the image's regions? */
static bool in_module_area(const struct kt_state *st, uint64_t va,
			   uint64_t size)
{
	int text = kt_state_region(st, "text");
	uint64_t lo, hi;

	if (text < 0 || !size)
		return false;
	lo = st->regions[text].start;
	hi = st->regions[text].end;
	lo = lo > KT_MODULE_REACH ? lo - KT_MODULE_REACH : 0;
	hi = hi < UINT64_MAX - KT_MODULE_REACH ? hi + KT_MODULE_REACH :
						 UINT64_MAX;
	return va >= lo && va + (size - 1) <= hi - 1;
}

/*
 * Could a differing entry be the copy of a module the state does not
 * list? Only where the list may leave modules out, only in the module
 * area, and only if it looks like what a module's copy looks like: both
 * entries present leaves, neither writable, equally executable, the
 * node's on another page. Anything else is wrong whatever the list says.
 */
static bool unlisted_module_copy(const struct kt_target *t, int level,
				 uint64_t va, uint64_t mine, uint64_t master)
{
	const struct kt_pt_geometry *geo = &t->geo;
	uint64_t size = 1ULL << geo->shift[level];
	struct kt_mapping a = { .va = va, .size = size };
	struct kt_mapping b = a;

	if (!t->st->modules_incomplete || !in_module_area(t->st, va, size) ||
	    !t->arch->present(mine) || !t->arch->present(master) ||
	    !t->arch->leaf(geo, mine, level) ||
	    !t->arch->leaf(geo, master, level))
		return false;
	t->arch->decode_leaf(geo, mine, level, &a);
	t->arch->decode_leaf(geo, master, level, &b);
	return !a.writable && !b.writable && a.executable == b.executable &&
	       a.pa != b.pa;
}

/* the first VA entry i of a table at level translates (canonical) */
static uint64_t entry_va(const struct kt_pt_geometry *geo, uint64_t base,
			 int level, unsigned int i)
{
	uint64_t va = base + ((uint64_t)i << geo->shift[level]);
	unsigned int top = geo->shift[0] + geo->bits[0];

	if (level == 0 && top < 64 && (va >> (top - 1)) & 1)
		va |= ~0ULL << top;	/* the kernel half is sign-extended */
	return va;
}

/*
 * Entries of one table not covered by the state, gathered into runs:
 * one report per run of adjacent entries, not one per page.
 */
struct uncovered_run {
	struct kt_violation v;
	bool open;
};

static int flush_uncovered(struct verify_run *vr, struct uncovered_run *u)
{
	if (!u->open)
		return 0;
	u->open = false;
	return report(vr, &u->v);
}

static int add_uncovered(struct verify_run *vr, struct uncovered_run *u,
			 const struct kt_violation *v)
{
	int ret;

	if (u->open && v->index == u->v.index + u->v.entries) {
		u->v.len += v->len;
		u->v.entries++;
		return 0;
	}
	ret = flush_uncovered(vr, u);
	u->v = *v;
	u->v.kind = KT_V_NOT_COVERED;
	u->v.entries = 1;
	u->open = true;
	return ret;
}

/*
 * check 3: a node's table page and the master's page it copies must
 * agree in every entry, except those on the path to the replicas: a
 * private lower table (checked the same way, one level down) or a
 * replica leaf (checked by check_node_mappings). Anything else is an
 * update the node's copy missed. Level 0 reports as "root". Where the
 * state may not list every replicated module, an entry that looks like
 * an unlisted module's copy is "not-covered" instead: not judged.
 */
static int compare_tables(struct verify_run *vr, const struct kt_node_state *n,
			  uint64_t mine_pa, uint64_t master_pa, int level,
			  uint64_t base, struct kt_err *err)
{
	struct kt_target *t = vr->t;
	const struct kt_pt_geometry *geo = &t->geo;
	size_t entries = 1ULL << geo->bits[level];
	struct uncovered_run uncovered = { .open = false };
	uint64_t *mine, *master;
	unsigned int i;
	int ret = 0;

	if (level >= (int)geo->levels)
		return 0;
	mine = calloc(entries, sizeof(*mine));
	master = calloc(entries, sizeof(*master));
	if (!mine || !master) {
		ret = kt_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (kt_memsrc_read_phys(t->src, mine_pa, mine, entries * 8, err) ||
	    kt_memsrc_read_phys(t->src, master_pa, master, entries * 8, err)) {
		ret = kt_err_wrap(err, "node %d level-%d table", n->nid, level);
		goto out;
	}
	vr->stats->tables++;
	for (i = level ? 0 : geo->kernel_first; i < entries && !ret; i++) {
		uint64_t va = entry_va(geo, base, level, i);
		uint64_t size = 1ULL << geo->shift[level];
		bool mine_table, master_table;
		struct kt_violation v = {
			.kind = level ? KT_V_STALE_TABLE : KT_V_ROOT,
			.node = n->nid,
			.level = level,
			.index = i,
			.va = va,
			.len = size,
			.got = mine[i],
			.want = master[i],
			.pa = mine_pa + i * 8,
		};

		if (mine[i] == master[i])
			continue;
		mine_table = t->arch->present(mine[i]) &&
			     !t->arch->leaf(geo, mine[i], level);
		master_table = t->arch->present(master[i]) &&
			       !t->arch->leaf(geo, master[i], level);
		/*
		 * A node may keep its own copy of a table over a range it no
		 * longer replicates (an unloaded module's): its entries must
		 * then equal the master's, which the next level checks.
		 */
		/* the same table with other attributes is never right */
		if (!replicated_span(t->st, va, size) &&
		    unlisted_module_copy(t, level, va, mine[i], master[i])) {
			ret = add_uncovered(vr, &uncovered, &v);
			continue;
		}
		ret = flush_uncovered(vr, &uncovered);
		if (ret)
			break;
		if ((!replicated_span(t->st, va, size) &&
		     !(mine_table && master_table)) ||
		    (mine_table && master_table &&
		     t->arch->next_pa(geo, mine[i], level) ==
			     t->arch->next_pa(geo, master[i], level))) {
			ret = report(vr, &v);
			continue;
		}
		if (mine_table && master_table)
			ret = compare_tables(vr, n,
					     t->arch->next_pa(geo, mine[i], level),
					     t->arch->next_pa(geo, master[i], level),
					     level + 1, va, err);
		else if (mine_table != master_table)
			ret = report(vr, &v);
	}
	if (!ret)
		ret = flush_uncovered(vr, &uncovered);
out:
	free(mine);
	free(master);
	return ret;
}

static int check_root(struct verify_run *vr, const struct kt_node_state *n,
		      struct kt_err *err)
{
	return compare_tables(vr, n, n->root_pa, vr->t->st->master_root_pa, 0,
			      0, err);
}

/* the top-level entries over the kernel image of pgd, set and master */
static int image_entries(struct verify_run *vr, uint64_t pgd_pa,
			 uint64_t set_pa, uint64_t *got, uint64_t *want,
			 uint64_t *master, struct kt_err *err)
{
	const struct kt_pt_geometry *g = &vr->t->geo;
	uint64_t slot = (KT_KERNEL_IMAGE_VA >> g->shift[0]) &
			((1U << g->bits[0]) - 1);

	if (kt_memsrc_read_phys(vr->t->src, set_pa + slot * 8, want,
				sizeof(*want), err) ||
	    kt_memsrc_read_phys(vr->t->src, pgd_pa + slot * 8, got,
				sizeof(*got), err) ||
	    kt_memsrc_read_phys(vr->t->src,
				vr->t->st->master_root_pa + slot * 8, master,
				sizeof(*master), err))
		return -err->code;
	return 0;
}

/*
 * A bound process's mm must hold its set's top-level entry over the
 * kernel image. A process that exited since the list was read has had
 * its entry put back on the master's: that is not a violation.
 */
static int check_bound(struct verify_run *vr, const struct kt_bound_state *b,
		       struct kt_err *err)
{
	const struct kt_pt_geometry *g = &vr->t->geo;
	unsigned int slot = (KT_KERNEL_IMAGE_VA >> g->shift[0]) &
			    ((1U << g->bits[0]) - 1);
	uint64_t master, want, got;
	struct kt_violation v = {
		.kind = KT_V_MM_ENTRY,
		.node = b->node,
		.cpu = b->pid,
		.index = slot,
		.pa = b->mm_pgd_pa + slot * 8,
	};

	if (image_entries(vr, b->mm_pgd_pa, b->root_pa, &got, &want, &master,
			  err))
		return -err->code;
	if (got == want || got == master)
		return 0;
	v.got = got;
	v.want = want;
	return report(vr, &v);
}

/*
 * mm: the root a CPU had loaded at the panic is some process's mm. Its
 * top-level entry over the kernel image must be the master's or its own
 * node's set's: anything else is a CPU fetching kernel text through
 * tables no set owns (freed, or another node's).
 */
static int check_cpu_at_panic(struct verify_run *vr,
			      const struct kt_cpu_state *c, struct kt_err *err)
{
	struct kt_root_owner o;
	struct kt_violation v = {
		.kind = KT_V_CPU_ROOT,
		.node = c->node,
		.cpu = c->cpu,
		.got = c->loaded_root_pa,
		.want = c->expected_root_pa,
	};

	if (!c->expected_root_pa)
		return 0;
	if (kt_root_owner(vr->t, c->loaded_root_pa, &o, err))
		return kt_err_wrap(err, "cpu %d's root at panic", c->cpu);
	if (o.kind != KT_ROOT_UNOWNED &&
	    (o.master || o.set_root_pa == c->expected_root_pa))
		return 0;
	return report(vr, &v);
}

/* check 5: who runs on which tables */
static int check_tables_in_use(struct verify_run *vr, struct kt_err *err)
{
	struct kt_state *st = vr->t->st;
	size_t i;
	int ret = 0;

	if (st->activation == KT_ACT_PERCPU) {
		for (i = 0; i < st->nr_cpus && !ret; i++) {
			struct kt_violation v = {
				.kind = KT_V_CPU_ROOT,
				.node = st->cpus[i].node,
				.cpu = st->cpus[i].cpu,
				.got = st->cpus[i].loaded_root_pa,
				.want = st->cpus[i].expected_root_pa,
			};

			/* a dump without recorded roots cannot say */
			if (v.got && v.got != v.want)
				ret = report(vr, &v);
		}
	}
	if (st->activation == KT_ACT_MM)
		for (i = 0; i < st->nr_cpus && !ret; i++)
			if (st->cpus[i].root_at_panic)
				ret = check_cpu_at_panic(vr, &st->cpus[i], err);
	for (i = 0; i < st->nr_bound && !ret; i++)
		ret = check_bound(vr, &st->bound[i], err);
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

/* check 1: every replica byte equals the master's */
static int check_bytes(struct verify_run *vr, struct kt_err *err)
{
	return kt_diff_run(vr->t, NULL, report_diff, vr,
			   &vr->stats->compared_bytes, err);
}

/* checks 2 to 4, node by node: its mappings, then its tables */
static int check_node_tables(struct verify_run *vr, struct kt_err *err)
{
	const struct kt_state *st = vr->t->st;
	int i, ret = 0;

	for (i = 0; i < st->nr_nodes && !ret; i++) {
		const struct kt_node_state *n = &st->nodes[i];

		if (!n->root_pa)
			continue;
		vr->stats->nodes++;
		ret = check_node_mappings(vr, n, err);
		if (!ret && n->root_pa != st->master_root_pa)
			ret = check_root(vr, n, err);
	}
	return ret;
}

/* check 6: no fail-safe now, and none since the last verify reported */
static int check_failsafe(struct verify_run *vr, struct kt_err *err)
{
	const struct kt_state *st = vr->t->st;
	struct kt_violation v = {
		.kind = KT_V_FAILSAFE,
		.node = -1,
		.cpu = -1,
		.got = st->failsafe,
		.want = st->failsafe_seen,
	};

	(void)err;
	if (!st->failsafe_active && st->failsafe <= st->failsafe_seen)
		return 0;
	return report(vr, &v);
}

/* run in this order; each reports through the same callback */
static int (*const checks[KT_VERIFY_NR_CHECKS])(struct verify_run *vr,
						struct kt_err *err) = {
	[KT_VERIFY_FAILSAFE] = check_failsafe,	/* the engine's verdict first */
	[KT_VERIFY_BYTES] = check_bytes,	/* replica bytes */
	/* mappings and roots, node by node */
	[KT_VERIFY_NODE_TABLES] = check_node_tables,
	[KT_VERIFY_ALIASES] = check_aliases,	/* direct-map aliases */
	/* CPUs and workers on their tables */
	[KT_VERIFY_TABLES_IN_USE] = check_tables_in_use,
};

const char *const kt_verify_check_names[KT_VERIFY_NR_CHECKS] = {
	[KT_VERIFY_FAILSAFE] = "failsafe",
	[KT_VERIFY_BYTES] = "bytes",
	[KT_VERIFY_NODE_TABLES] = "node_tables",
	[KT_VERIFY_ALIASES] = "aliases",
	[KT_VERIFY_TABLES_IN_USE] = "tables_in_use",
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int kt_verify_run(struct kt_target *t, kt_violation_fn fn, void *arg,
		  struct kt_verify_stats *stats, struct kt_err *err)
{
	struct verify_run vr = { .t = t, .fn = fn, .arg = arg, .stats = stats };
	size_t i;
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	t->settle = (struct kt_settle_stats){ 0 };
	for (i = 0; i < KT_VERIFY_NR_CHECKS && !ret; i++) {
		uint64_t t0 = monotonic_ns();

		ret = checks[i](&vr, err);
		stats->check_ns[i] = monotonic_ns() - t0;
	}
	stats->rechecked = t->settle.rechecked;
	stats->transient = t->settle.transient;
	return ret;
}
