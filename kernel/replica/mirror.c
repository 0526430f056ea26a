// SPDX-License-Identifier: GPL-2.0
/*
 * The module-area table mirror. A node owns copies of the leaf tables
 * (and of the tables above them) that map its module replicas, and the
 * kernel keeps writing only the master's originals. The mirror keeps
 * every owned copy equal to its master except for the entries that
 * point at the node's own replicas and tables: kretprobes on the
 * functions every vmalloc-area map and unmap goes through (the leaf
 * map functions vmap_small_pages_range_noflush() and
 * vmap_range_noflush(), the unmap __vunmap_range_noflush(), and the
 * callers outside vmalloc.c reach them through) and on the protection
 * changes mirror each range that crosses an owned table, after the
 * kernel wrote the master's and before the caller can use it (a new
 * mapping), or before the pages go back to the allocator (an unmap:
 * vfree() flushes and frees only after the unmap).
 *
 * No instance is held across an allocation: the probes sit on the
 * page-table writes, not on vmalloc() or vmap(), whose page allocation
 * can stall in reclaim for as long as a fork storm lasts. And a call
 * whose range lies outside the hull (below) gives its instance back at
 * entry, so a fork's stack, in the vmalloc area, holds one only inside
 * the entry handler, with preemption off: a pool of max(1024,
 * 32 * CPUs) is then exhausted only by that many concurrent maps near
 * the kernel image, not by stalled tasks.
 *
 * The hull is fixed before any probe is armed, and every owned table
 * lies inside it (ktr_mirror_watches(), checked before a module owns
 * one). The owned span itself grows while calls run, so an entry filter
 * on it could let a call through that writes the master after the span
 * grew and after modules.c's pass over what it gained: the hull cannot
 * grow.
 *
 * Locking: the owned tables' entries and the span they cover
 * (mirror_lo, mirror_last) are written under tables_lock (raw
 * spinlock, tables.c's: ktr_tables_lock()), from any context: the
 * probes' handlers, and modules.c under mods_lock when it maps, unmaps
 * or lists tables. The handlers' entry test is of the hull, which never
 * changes; the span is tested under the lock. The probe
 * table is registered and unregistered by ktr_mirror_hook()/_unhook(),
 * from the engine's load and stop, never concurrently. mirror_deferring
 * is written under modules.c's mods_lock (ktr_mirror_defer()) and read
 * lockless by the protection probe's entry handler; what that task
 * defers (deferred_lo, deferred_last) is written by its own entry
 * handlers and read by itself, under mods_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/vmalloc.h>

#include "core.h"
#include "build.h"
#include "failsafe.h"
#include "mirror.h"
#include "modules.h"
#include "tables.h"
#include "testing.h"
#include "ktrepl_compat.h"

static atomic64_t nr_mirrored;
/* the task whose own protection changes are mirrored together, later */
static struct task_struct *mirror_deferring;
/* the hull of what it deferred, inclusive; (ULONG_MAX, 0): nothing */
static unsigned long deferred_lo = ULONG_MAX, deferred_last;
/* the probes' misses when it began: a call it missed noted nothing */
static u64 deferred_missed;
/*
 * The VAs the owned leaf and next-to-leaf tables cover, inclusive (the
 * last table of the address space ends at 2^64), under tables_lock.
 */
static unsigned long mirror_lo = ULONG_MAX, mirror_last;
/*
 * What an owned table may ever cover, inclusive, set by ktr_mirror_hook()
 * before a probe is armed and never changed: the image and 4 GiB either
 * side (x86 modules lie within 2 GiB of the image for rel32, arm64's
 * within 4 GiB for ADRP, BPF and kprobe code with them), rounded out to
 * whole next-to-leaf tables.
 */
static unsigned long hull_lo, hull_last;
#define KTR_MIRROR_HULL_REACH SZ_4G

/*
 * What entry idx of node n's owned table t should hold, given the
 * master's: the master's, except where n points at its own lower table
 * or its own replica of a mapped chunk.
 */
static bool wanted_entry(struct ktr_node *n, const struct ktr_table *t,
			 unsigned long va, u64 master, u64 cur, u64 *want)
{
	struct ktr_chunk *c;

	ktr_tables_lock_assert_held();
	*want = master;
	if (t->level < ktr.geom.levels - 1 && ktr_pte_present(cur) &&
	    !ktr_pte_leaf(cur, t->level, ktr.geom.levels)) {
		struct ktr_table *lower = ktr_owned_table(n, t->level + 1, va);

		if (lower && page_to_phys(lower->page) ==
				     (cur & ktr.geom.addr_mask))
			return false;
	}
	if (ktr_pte_present(master) &&
	    ktr_pte_leaf(master, t->level, ktr.geom.levels)) {
		c = ktr_module_chunk(va, true);
		if (!c)
			c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
		if (c && c->va == va && c->copy && c->copy[n->nid] &&
		    c->page_shift == ktr.geom.shift[t->level])
			*want = ktr_pte_node_leaf(master,
						   ktr_chunk_pa(c, n->nid));
	}
	return cur != *want;
}
NOKPROBE_SYMBOL(wanted_entry);

/*
 * The entry of n's owned table t (its page copy, the master's table
 * master) that translates va: whether it differs from what a fresh build
 * would make, and when fix, rewritten to it (*flush set where a present
 * entry was replaced). The mirror and the fail-safe's resync share it.
 * Context: any, under tables_lock.
 */
static bool sync_entry(struct ktr_node *n, const struct ktr_table *t,
		       u64 *master, u64 *copy, unsigned long va, bool fix,
		       bool *flush)
{
	unsigned int i = ktr_level_index(va, t->level);
	u64 cur = READ_ONCE(copy[i]), want;

	if (cur == READ_ONCE(master[i]) ||
	    !wanted_entry(n, t, va, READ_ONCE(master[i]), cur, &want))
		return false;
	if (fix) {
		WRITE_ONCE(copy[i], want);
		*flush |= ktr_pte_present(cur);
	}
	return true;
}
NOKPROBE_SYMBOL(sync_entry);

/*
 * The owned tables nearer the root than below_level that translate
 * part of [start, end), made equal to their masters but for the node's
 * own entries: whether a present entry changed.
 */
static bool mirror_tables(unsigned long start, unsigned long end,
			  int below_level)
{
	bool flush = false;
	int nid;

	ktr_tables_lock_assert_held();
	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];
		struct ktr_table *t;

		if (!n->own_replica || !n->root)
			continue;
		/* the list grows under tables_lock: see ktr_owned_table() */
		list_for_each_entry_rcu(t, ktr_node_tables(n), list,
					ktr_tables_lock_held()) {
			unsigned long size = ktr_level_size(t->level);
			unsigned long span = ktr_level_size(t->level - 1);
			unsigned long lo = max(start, t->va) & ~(size - 1);
			unsigned long hi = min(end - 1, t->va + span - 1);
			u64 *master, *copy = page_address(t->page);
			unsigned long va;

			if (t->level >= below_level ||
			    start > t->va + (span - 1) || end - 1 < t->va)
				continue;
			master = ktr_master_table_of(t);
			if (!master)
				continue;
			for (va = lo; va <= hi && va >= lo; va += size)
				if (sync_entry(n, t, master, copy, va, true,
					       &flush))
					atomic64_inc(&nr_mirrored);
		}
	}
	return flush;
}
NOKPROBE_SYMBOL(mirror_tables);

/*
 * Make every owned table that translates part of [start, end) equal to
 * its master again, but for the node's own entries. Returns whether a
 * present entry changed (a TLB may hold it). Context: any.
 */
bool ktr_mirror_range(unsigned long start, unsigned long end)
{
	bool flush = false;
	unsigned long flags;

	flags = ktr_tables_lock();
	if (end - 1 >= mirror_lo && start <= mirror_last) {
		flush = mirror_tables(start, end, INT_MAX);
		ktr_arch_tables_changed();
	}
	ktr_tables_unlock(flags);
	return flush;
}
NOKPROBE_SYMBOL(ktr_mirror_range);

/* the page of one of n's owned tables at level, or of none */
static bool owned_page(struct ktr_node *n, int level, u64 entry)
{
	struct ktr_table *t;

	list_for_each_entry_rcu(t, ktr_node_tables(n), list,
				ktr_tables_lock_held())
		if (t->level == level &&
		    page_to_phys(t->page) == (entry & ktr.geom.addr_mask))
			return true;
	return false;
}

/*
 * Node n's root, kernel half: the master's entries, but where n points
 * at a table of its own. Returns the entries that differ; rewritten when
 * fix, *flush then set where a present one changed.
 */
static int resync_root(struct ktr_node *n, bool fix, bool *flush)
{
	unsigned int i, nr = 1U << ktr.geom.bits[0];
	unsigned long flags;
	int differ = 0;

	flags = ktr_tables_lock();
	for (i = ktr.geom.kernel_first; i < nr; i++) {
		u64 cur = READ_ONCE(n->root[i]);
		u64 master = READ_ONCE(ktr.master_root[i]);

		if (cur == master ||
		    (ktr_pte_present(cur) && owned_page(n, 1, cur)))
			continue;
		differ++;
		if (!fix)
			continue;
		WRITE_ONCE(n->root[i], master);
		*flush |= ktr_pte_present(cur);
	}
	ktr_tables_unlock(flags);
	return differ;
}

/*
 * Every entry of n's owned table t against wanted_entry(), as
 * resync_root(); -ENOENT when the master no longer has the table t
 * copies (freed or replaced by a huge mapping): no rewrite of t makes
 * n's tables a fresh build's then.
 */
static int resync_table(struct ktr_node *n, struct ktr_table *t, bool fix,
			bool *flush)
{
	unsigned int i, nr = 1U << ktr.geom.bits[t->level];
	unsigned long size = ktr_level_size(t->level), flags;
	u64 *master, *copy = page_address(t->page);
	int differ = 0;

	flags = ktr_tables_lock();
	master = ktr_master_table_of(t);
	if (!master) {
		ktr_tables_unlock(flags);
		return -ENOENT;
	}
	for (i = 0; i < nr; i++)
		differ += sync_entry(n, t, master, copy, t->va + i * size, fix,
				     flush);
	ktr_tables_unlock(flags);
	return differ;
}

/*
 * The fail-safe's table check, after a miss that may have left a node's
 * tables stale (a mirror probe's, a veto probe's): every entry of every
 * node's root and owned tables against what a fresh build would make of
 * the master's tables now. With fix, each one that differs is rewritten
 * and every TLB flushed. Returns the entries that differed, or -ENOENT
 * (see resync_table()). The walk covers whole tables, not the mirror's
 * span: a missed update may lie anywhere a node owns a table.
 *
 * Context: process, from the fail-safe only, with nothing running on a
 * node's tables (activation paused), under mods_lock (no module map or
 * unmap meanwhile); takes tables_lock table by table, as the mirror's
 * probes do, which may run meanwhile.
 */
int ktr_tables_resync(bool fix)
{
	bool flush = false;
	int nid, differ = 0, ret;

	ktr_failsafe_lock_assert_held();
	ktr_modules_lock_assert_held();
	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];
		struct ktr_table *t;

		if (!n->own_replica || !n->root)
			continue;
		differ += resync_root(n, fix, &flush);
		/* the lists only grow while the engine is loaded */
		rcu_read_lock();
		list_for_each_entry_rcu(t, ktr_node_tables(n), list) {
			ret = resync_table(n, t, fix, &flush);
			if (ret < 0) {
				rcu_read_unlock();
				return ret;
			}
			differ += ret;
		}
		rcu_read_unlock();
	}
	if (flush) {
		ktr_arch_tables_changed();
		ktr_arch_flush_all();
	}
	return differ;
}

/* the mirror hooks: (start, end) taken at entry, mirrored at return */
/* whether [start, end) may touch an owned table, now or later */
static bool crosses_hull(unsigned long start, unsigned long end)
{
	return end > start && end - 1 >= hull_lo && start <= hull_last;
}
NOKPROBE_SYMBOL(crosses_hull);

/*
 * Whether the mirror would see every write to the tables that map
 * [start, end): false when they would lie outside the hull, and a module
 * there is not replicated.
 */
bool ktr_mirror_watches(unsigned long start, unsigned long end)
{
	unsigned long span = ktr_level_size(ktr.geom.levels - 3);

	return end > start && (start & ~(span - 1)) >= hull_lo &&
	       ((end - 1) | (span - 1)) <= hull_last;
}

static int range_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ktr_protect_span *a = (void *)ri->data;

	/* a call before this one that found no free instance */
	ktr_mirror_poll_misses();
	a->start = regs_get_kernel_argument(regs, 0);
	a->end = regs_get_kernel_argument(regs, 1);
	a->alias_start = 0;
	a->alias_end = 0;
	/* nonzero: no return handler, the instance goes back at once */
	return !crosses_hull(a->start, a->end);
}
NOKPROBE_SYMBOL(range_entry);

/* the deferring task's own handler: see ktr_mirror_defer() */
static void defer_range(unsigned long start, unsigned long end)
{
	if (!crosses_hull(start, end))
		return;
	deferred_lo = min(deferred_lo, start);
	deferred_last = max(deferred_last, end - 1);
}
NOKPROBE_SYMBOL(defer_range);

/*
 * A protection change: its own range, and on x86 the image's mapping of
 * its pages, which CPA rewrites too (freed init memory); every owned
 * table where the arch cannot tell (a full mirror is 2 ms under TCG,
 * and a module's load makes about ten such calls).
 */
static int protect_entry(struct kretprobe_instance *ri, struct pt_regs *regs,
			 enum ktr_protect_args args)
{
	struct ktr_protect_span *a = (void *)ri->data;

	ktr_mirror_poll_misses();
	if (!ktr_arch_protect_span(args, regs, a)) {
		a->start = 0;
		a->end = ULONG_MAX;
	}
	if (READ_ONCE(mirror_deferring) == current) {
		defer_range(a->start, a->end);
		defer_range(a->alias_start, a->alias_end);
		return 1;	/* ktr_mirror_defer(false) mirrors it */
	}
	return !crosses_hull(a->start, a->end) &&
	       !crosses_hull(a->alias_start, a->alias_end);
}
NOKPROBE_SYMBOL(protect_entry);

/* one per kind of arguments (ktr_arch_protect_probes[]) */
static int pages_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return protect_entry(ri, regs, KTR_PROTECT_PAGES);
}
NOKPROBE_SYMBOL(pages_entry);

static int page_array_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	return protect_entry(ri, regs, KTR_PROTECT_PAGE_ARRAY);
}
NOKPROBE_SYMBOL(page_array_entry);

static int cpa_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return protect_entry(ri, regs, KTR_PROTECT_CPA);
}
NOKPROBE_SYMBOL(cpa_entry);

static const kretprobe_handler_t protect_entries[] = {
	[KTR_PROTECT_PAGES] = pages_entry,
	[KTR_PROTECT_PAGE_ARRAY] = page_array_entry,
	[KTR_PROTECT_CPA] = cpa_entry,
};

/* the end of [lo, last] for ktr_mirror_range(): last may be ULONG_MAX */
static unsigned long span_end(unsigned long last)
{
	return last == ULONG_MAX ? last : last + 1;
}

static bool mirror_span(unsigned long lo, unsigned long last)
{
	return ktr_mirror_range(lo, span_end(last));
}

/*
 * While on, the calling task's protection changes are not mirrored at
 * their return but noted, and turning it off mirrors the hull of what
 * they changed in one pass (modules.c: a module's copies, a set_memory
 * call a page, each of which would mirror on x86; their image aliases
 * lie in freed init memory, a few MiB). The caller runs no node on what
 * they protect before that. Other tasks' changes are mirrored as ever.
 * Context: process, under mods_lock.
 */
void ktr_mirror_defer(bool on)
{
	unsigned long lo = deferred_lo, last = deferred_last;
	u64 mirrored, missed;

	ktr_modules_lock_assert_held();
	ktr_mirror_counters(&mirrored, &missed);
	WRITE_ONCE(mirror_deferring, on ? current : NULL);
	deferred_lo = ULONG_MAX;
	deferred_last = 0;
	if (on) {
		deferred_missed = missed;
		return;
	}
	/* a probe had no free instance: what it missed is unknown */
	if (missed != deferred_missed) {
		lo = 0;
		last = ULONG_MAX;
	}
	if (lo <= last && mirror_span(lo, last) && KTR_ARCH_FLUSH_ANYWHERE)
		ktr_arch_flush_kernel_range(lo, span_end(last));
}

static int mirror_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ktr_protect_span *a = (void *)ri->data;

	/*
	 * A protection change: the kernel flushed before returning, and a
	 * CPU on a node's tables may have refilled from the old entry. arm64
	 * invalidates by broadcast, in any context; x86 takes a spurious
	 * fault on a stale read-only or no-exec entry, which re-walks and
	 * finds the mirrored one. A stale entry of a cache-mode or present
	 * change (set_memory_uc, _np) lives until the CPU's next flush, but
	 * only where it refilled from the node's table between CPA's flush
	 * and this mirror, microseconds, and nothing executes or reads
	 * through the image's mapping of a freed init page.
	 */
	/* a page array's own range is the direct map's: none here */
	if (a->end > a->start && ktr_mirror_range(a->start, a->end) &&
	    KTR_ARCH_FLUSH_ANYWHERE)
		ktr_arch_flush_kernel_range(a->start, a->end);
	/* x86 only (KTR_ARCH_FLUSH_ANYWHERE false): no flush from here */
	if (a->alias_end > a->alias_start)
		ktr_mirror_range(a->alias_start, a->alias_end);
	return 0;
}
NOKPROBE_SYMBOL(mirror_return);

#define MIRROR_PROBE(sym, entry, ret)                                 \
	{ .kp.symbol_name = sym, .entry_handler = entry,               \
	  .handler = ret,                                              \
	  .data_size = sizeof(struct ktr_protect_span) }

/*
 * Each takes (start, end) first. Every map and unmap of the vmalloc
 * area (vmalloc, vmap, vm_map_ram, ioremap, module and BPF code) reaches
 * one of the first three out of line in the kernels the tests cover:
 * tests/unit/mirror-funnels.t checks their -dbg vmlinux.
 */
static struct kretprobe map_probes[] = {
	/* (addr, end, prot, pages): vmalloc(), vmap(), vm_map_ram() */
	MIRROR_PROBE("vmap_small_pages_range_noflush", range_entry,
		     mirror_return),
	/* (addr, end, phys_addr, prot, max_page_shift): huge, ioremap */
	MIRROR_PROBE("vmap_range_noflush", range_entry, mirror_return),
	/* (start, end): vfree(), vunmap(), vm_unmap_ram(), remove_vm_area() */
	MIRROR_PROBE("__vunmap_range_noflush", range_entry, mirror_return),
	/* their callers from other files, should one be inlined there */
	MIRROR_PROBE("__vmap_pages_range_noflush", range_entry, mirror_return),
	MIRROR_PROBE("vmap_pages_range_noflush", range_entry, mirror_return),
	MIRROR_PROBE("vunmap_range_noflush", range_entry, mirror_return),
};
/* the protection changes, from ktr_arch_protect_probes[] */
static struct kretprobe protect_probes[KTR_MAX_PROTECT_PROBES];
/* the map probes, then the protection changes: how many, how many armed */
static unsigned int nr_mirror_table, nr_mirror_probes;

static struct kretprobe *mirror_probe(unsigned int i)
{
	return i < ARRAY_SIZE(map_probes) ?
		       &map_probes[i] :
		       &protect_probes[i - ARRAY_SIZE(map_probes)];
}
NOKPROBE_SYMBOL(mirror_probe);

/* whether every probe is registered: modules are replicated only then */
bool ktr_mirror_hooked(void)
{
	return nr_mirror_table && nr_mirror_probes == nr_mirror_table;
}

/* the arch's protection changes into the table's free slots */
static void add_protect_probes(void)
{
	const struct ktr_protect_probe *p;
	unsigned int i, n = 0;

	for (i = 0; i < KTR_MAX_PROTECT_PROBES; i++) {
		p = &ktr_arch_protect_probes[i];
		if (!p->symbol)
			break;
		if (p->optional && !ktr_ksym_quiet(p->symbol))
			continue;
		protect_probes[n++] = (struct kretprobe)MIRROR_PROBE(
			p->symbol, protect_entries[p->args], mirror_return);
	}
	nr_mirror_table = ARRAY_SIZE(map_probes) + n;
}

/*
 * Before the core's copy is taken (arming a kprobe patches core text):
 * the error of the first probe that cannot be registered, with the ones
 * that did register left for ktr_mirror_unhook(). The caller says what
 * is lost.
 */
int ktr_mirror_hook(void)
{
	unsigned long span = ktr_level_size(ktr.geom.levels - 3);
	unsigned long image_end = max(ktr.regions[0].end, ktr.regions[1].end);
	unsigned int pool = ktr_test_mirror_pool();
	int ret;

	if (!nr_mirror_probes) {
		add_protect_probes();
		/* unknown: every protection change mirrors every table */
		if (ktr_arch_image_aliases_init())
			pr_warn("the image's physical span is unknown: every protection change mirrors every owned table\n");
		hull_lo = ktr.regions[0].start > KTR_MIRROR_HULL_REACH ?
				  ktr.regions[0].start - KTR_MIRROR_HULL_REACH :
				  0;
		hull_lo &= ~(span - 1);
		hull_last = image_end - 1 < ULONG_MAX - KTR_MIRROR_HULL_REACH ?
				    image_end - 1 + KTR_MIRROR_HULL_REACH :
				    ULONG_MAX;
		hull_last |= span - 1;
	}
	if (!pool)
		pool = max(1024U, 32 * num_possible_cpus());
	for (; nr_mirror_probes < nr_mirror_table; nr_mirror_probes++) {
		mirror_probe(nr_mirror_probes)->maxactive = pool;
		if (nr_mirror_probes + 1 == nr_mirror_table &&
		    ktr_test_fail_mirror_hook())
			ret = -EBUSY;
		else
			ret = register_kretprobe(mirror_probe(nr_mirror_probes));
		if (ret) {
			pr_err("cannot hook %s to keep the node tables fresh: %d\n",
			       mirror_probe(nr_mirror_probes)->kp.symbol_name,
			       ret);
			return ret;
		}
	}
	return 0;
}

/* waits for running handlers (unregister_kretprobe() does) */
void ktr_mirror_unhook(void)
{
	while (nr_mirror_probes > 0)
		unregister_kretprobe(mirror_probe(--nr_mirror_probes));
}

/* the VAs the owned tables cover, [lo, last]; (ULONG_MAX, 0): none */
void ktr_mirror_set_span(unsigned long lo, unsigned long last)
{
	unsigned long flags;

	flags = ktr_tables_lock();
	WRITE_ONCE(mirror_lo, lo);
	WRITE_ONCE(mirror_last, last);
	ktr_tables_unlock(flags);
}

/*
 * The owned tables nearer the root than the span's levels, a few pages,
 * whole: a handler lets by their entries for a region outside the span
 * (a module area's first table in a new GiB, say), which a node's walk
 * and a table's copy (tables.c) need before a module there is mapped.
 */
void ktr_mirror_upper_tables(void)
{
	unsigned long flags;

	ktr_modules_lock_assert_held();
	flags = ktr_tables_lock();
	mirror_tables(0, ULONG_MAX, ktr.geom.levels - 2);
	ktr_arch_tables_changed();
	ktr_tables_unlock(flags);
}

/*
 * The owned tables cover [lo, last] from now, a span that only grows
 * while modules are followed. What it gained is mirrored: a handler that
 * ran between a new table's copy and now found its VAs outside the span
 * and let the master's write by. Inside the old span a handler found
 * the table listed (it is listed when linked, under tables_lock). A
 * module's map so costs a pass over what the span gained, most often
 * nothing, not over every module's leaf tables.
 */
void ktr_mirror_grow_span(unsigned long lo, unsigned long last)
{
	unsigned long old_lo = READ_ONCE(mirror_lo);
	unsigned long old_last = READ_ONCE(mirror_last);

	ktr_modules_lock_assert_held();
	ktr_mirror_set_span(lo, last);
	if (lo > last)
		return;
	if (old_lo > old_last) {
		mirror_span(lo, last);
		return;
	}
	if (lo < old_lo)
		mirror_span(lo, old_lo - 1);
	if (last > old_last)
		mirror_span(old_last + 1, last);
}

#ifdef KTREPL_TEST
/* test build: a module-area table update the mirror's probe missed */
int ktr_mirror_force_miss(void)
{
	if (!nr_mirror_probes)
		return -EOPNOTSUPP;
	mirror_probe(0)->nmissed++;
	ktr_mirror_poll_misses();
	return 0;
}
#endif

static atomic64_t seen_mirror_missed;

/* every mirror probe's entry, and every audit pass: any context */
void ktr_mirror_poll_misses(void)
{
	u64 mirrored, missed;

	ktr_mirror_counters(&mirrored, &missed);
	ktr_failsafe_trip_on_growth(&seen_mirror_missed, missed,
				    KTR_FS_MIRROR_MISSED);
}
NOKPROBE_SYMBOL(ktr_mirror_poll_misses);

void ktr_mirror_counters(u64 *mirrored, u64 *missed)
{
	unsigned int i;

	*mirrored = atomic64_read(&nr_mirrored);
	*missed = 0;
	for (i = 0; i < nr_mirror_probes; i++)
		*missed += READ_ONCE(mirror_probe(i)->nmissed) +
			   READ_ONCE(mirror_probe(i)->kp.nmissed);
}
NOKPROBE_SYMBOL(ktr_mirror_counters);
