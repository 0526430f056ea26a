// SPDX-License-Identifier: GPL-2.0
/*
 * Keeping node tables fresh, for activation "percpu", where every CPU
 * walks its node's tables for everything, not only text.
 *
 * A node's set owns copies of the master's table pages on the path to
 * its replicas: the root, the image's upper tables and the leaf tables
 * over text and rodata. The kernel keeps writing the master's originals
 * (vmalloc and every fork's vmap'd stack, modules, percpu chunks, BPF,
 * huge vmap, memory hot-add and hot-remove), and a copy would miss it.
 * Rather than mirror every writer (most are inline), this makes the
 * copied pages immutable while active:
 *
 * - pre-populate: every empty entry of a copied non-leaf page gets an
 *   empty lower table before the copy is taken, as x86's
 *   preallocate_vmalloc_pages() does for its top level. From then on,
 *   kernel mapping activity only writes lower pages, which are shared.
 *   These tables belong to the kernel from then on ("donated").
 * - veto the ways a populated entry could still change: freeing a lower
 *   table to put a huge mapping in its place (pmd_free_pte_page() and
 *   pud_free_pmd_page() are made to fail, so vmap falls back to small
 *   pages), and memory hot-remove, which clears top-level entries and
 *   frees their tables (offlining is refused).
 * - refuse where a copied leaf table also maps something other than the
 *   kernel image, whose leaf entries never change after boot.
 *
 * ktrepl-dump --verify checks every entry of every copied page.
 *
 * Context: process, at load and unload; the veto handlers run in kprobe
 * and notifier context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/vmalloc.h>

#include "core.h"
#include "failsafe.h"
#include "fresh.h"
#include "slot.h"
#include "ktrepl_compat.h"
#include "testing.h"

/* a master table page the node sets copy */
struct copied_table {
	u64 *table;
	int level;
	unsigned long va;	/* first VA it translates */
};

static struct copied_table *copied;
static int nr_copied;
static atomic64_t nr_vetoes;
static bool memory_notifier_on;
/*
 * Empty tables given to the master's tables for good: written at load
 * (ktr_fresh_start()), read by the publisher and the unload's report.
 */
static unsigned long donated_pages;

static struct kprobe veto_probes[] = {
	{ .symbol_name = "pmd_free_pte_page" },
	{ .symbol_name = "pud_free_pmd_page" },
};
static unsigned int nr_veto_probes;

static unsigned long span_of(int level)
{
	return level ? ktr_level_size(level - 1) : 0;
}

static bool table_is_copied(const u64 *entry)
{
	unsigned long page = (unsigned long)entry & PAGE_MASK;
	int i;

	for (i = 0; i < nr_copied; i++)
		if ((unsigned long)copied[i].table == page)
			return true;
	return false;
}
NOKPROBE_SYMBOL(table_is_copied);

static int add_copied(u64 *table, int level, unsigned long va)
{
	struct copied_table *grown;
	int i;

	for (i = 0; i < nr_copied; i++)
		if (copied[i].table == table)
			return 0;
	grown = krealloc(copied, (nr_copied + 1) * sizeof(*copied),
			 GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	copied = grown;
	copied[nr_copied++] = (struct copied_table){
		.table = table,
		.level = level,
		.va = level ? va & ~(span_of(level) - 1) : 0,
	};
	return 0;
}

/* the master's pages on the path to every chunk, leaf tables included */
static int collect_copied(void)
{
	int i, l, ret;

	for (i = 0; i < ktr.nr_chunks; i++) {
		const struct ktr_chunk *c = &ktr.chunks[i];
		u64 *table = ktr.master_root;

		for (l = 0; l < ktr.geom.levels; l++) {
			u64 e;

			ret = add_copied(table, l, c->va);
			if (ret)
				return ret;
			if (ktr.geom.shift[l] == c->page_shift)
				break;
			e = READ_ONCE(table[ktr_level_index(c->va, l)]);
			if (!ktr_pte_present(e) ||
			    ktr_pte_leaf(e, l, ktr.geom.levels))
				return -EINVAL;
			table = ktr_table_va(e);
		}
	}
	return 0;
}

static bool holds_tables(const struct copied_table *t)
{
	return t->level < ktr.geom.levels - 1;
}

static unsigned int level_entries(int level)
{
	return 1U << ktr.geom.bits[level];
}

static unsigned int entries_of(const struct copied_table *t)
{
	return level_entries(t->level);
}

/*
 * The copied non-leaf pages' huge leaves (the image's own, at load) and
 * their empty entries: one pass, as the checks want both at once.
 */
static void count_entries(unsigned long *leaves, unsigned long *empty)
{
	unsigned int e;
	int i;

	*leaves = 0;
	*empty = 0;
	for (i = 0; i < nr_copied; i++) {
		const struct copied_table *t = &copied[i];

		if (!holds_tables(t))
			continue;
		for (e = 0; e < entries_of(t); e++) {
			u64 v = READ_ONCE(t->table[e]);

			if (!ktr_pte_present(v))
				(*empty)++;
			else if (ktr_pte_leaf(v, t->level, ktr.geom.levels))
				(*leaves)++;
		}
	}
}

/* written once, by ktr_fresh_start() */
static unsigned long leaves_at_start;

struct table_pool {
	struct page **pages;
	unsigned long nr, used;
};

/*
 * Under stop_machine: a kernel populate holds init_mm.page_table_lock (a
 * spinlock, not reachable from here) from its re-check to its write, so
 * no CPU is in the middle of one, and ours cannot race it.
 */
static int populate_cb(void *arg)
{
	struct table_pool *pool = arg;
	unsigned int e;
	int i;

	for (i = 0; i < nr_copied; i++) {
		const struct copied_table *t = &copied[i];

		if (!holds_tables(t))
			continue;
		for (e = 0; e < entries_of(t); e++) {
			struct page *page;
			u64 val;

			if (ktr_pte_present(READ_ONCE(t->table[e])))
				continue;
			if (pool->used == pool->nr)
				return -EAGAIN;
			page = pool->pages[pool->used++];
#if !ALLOC_SPLIT_PTLOCKS
			/* a PMD table page is constructed as pmd_alloc_one() does */
			if (t->level + 1 == ktr.geom.levels - 2)
				ktr_compat_pmd_table_ctor(page);
#endif
			val = ktr_arch_table_entry(page_to_phys(page));
			ktr_write_phys(__pa(&t->table[e]), &val, sizeof(val));
		}
	}
	ktr_arch_tables_changed();
	return 0;
}

static int prepopulate(void)
{
	struct table_pool pool = { 0 };
	unsigned long i;
	int ret, tries;

	for (tries = 0; tries < 3; tries++) {
		unsigned long leaves, empty;

		count_entries(&leaves, &empty);
		pool.nr = empty + 16;
		pool.used = 0;
		pool.pages = kvcalloc(pool.nr, sizeof(*pool.pages), GFP_KERNEL);
		if (!pool.pages)
			return -ENOMEM;
		ret = 0;
		for (i = 0; i < pool.nr && !ret; i++) {
			pool.pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
			if (!pool.pages[i])
				ret = -ENOMEM;
		}
		if (!ret)
			ret = stop_machine(populate_cb, &pool, NULL);
		donated_pages += pool.used;
		for (i = pool.used; i < pool.nr; i++)
			if (pool.pages[i])
				__free_page(pool.pages[i]);
		kvfree(pool.pages);
		if (ret != -EAGAIN)
			return ret;
	}
	return ret;
}

/*
 * pmd_free_pte_page(pmdp, addr) / pud_free_pmd_page(pudp, addr): on a
 * copied page, fail (return 0), so vmap keeps the (shared) lower table
 * and maps small pages into it.
 */
static int veto_table_free(struct kprobe *p, struct pt_regs *regs)
{
	u64 *entry = (u64 *)regs_get_kernel_argument(regs, 0);

	/* a call before this one, nested in another kprobe */
	ktr_fresh_poll_misses();
	if (!table_is_copied(entry))
		return 0;
	atomic64_inc(&nr_vetoes);
	ktr_arch_override_return(regs, 0);
	return 1;
}
NOKPROBE_SYMBOL(veto_table_free);

static int veto_offline(struct notifier_block *nb, unsigned long action,
			void *arg)
{
	if (action != MEM_GOING_OFFLINE)
		return NOTIFY_OK;
	atomic64_inc(&nr_vetoes);
	pr_info_ratelimited("memory offline refused: every CPU runs on node tables that hot-remove would leave pointing at freed tables (rmmod ktrepl first)\n");
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block offline_nb = {
	.notifier_call = veto_offline,
};

static struct vm_struct *(*find_area)(const void *addr);
static struct vm_struct *(*get_area)(unsigned long size, unsigned long flags,
				     unsigned long start, unsigned long end,
				     const void *caller);

/* the kernel image's areas are static; vmalloc's are kmalloc'd */
static bool image_area(const struct vm_struct *vm)
{
	return vm && !virt_addr_valid(vm);
}

static bool image_covers(unsigned long start, unsigned long end)
{
	while (start < end) {
		struct vm_struct *vm = find_area((void *)start);

		if (!image_area(vm))
			return false;
		start = (unsigned long)vm->addr + vm->size;
	}
	return true;
}

#define KTR_MAX_HOLDS 32
static struct vm_struct *holds[KTR_MAX_HOLDS];
static int nr_holds;

/*
 * A copied leaf table can span more than the image's own vm areas: the
 * head before _stext, the alignment gaps between segments, the space
 * after _end. vmalloc could map there, into the master's page only. So
 * every such gap is held by an empty vm area of ours while active.
 */
static const char *hold_gaps(unsigned long va, unsigned long end)
{
	while (va < end) {
		struct vm_struct *vm = find_area((void *)va), *h;
		unsigned long gap = va;

		if (vm) {
			if (!image_area(vm))
				return ktrepl_reason_name(
					KTREPL_REASON_LEAF_TABLE_SHARED_WITH_VMALLOC);
			va = (unsigned long)vm->addr + vm->size;
			continue;
		}
		while (va < end && !find_area((void *)va))
			va += PAGE_SIZE;
		if (nr_holds == KTR_MAX_HOLDS)
			return ktrepl_reason_name(
				KTREPL_REASON_LEAF_TABLE_GAPS);
		h = get_area(va - gap, VM_NO_GUARD, gap, va,
			     __builtin_return_address(0));
		if (h && (unsigned long)h->addr != gap) {
			free_vm_area(h);
			h = NULL;
		}
		if (!h)
			return ktrepl_reason_name(
				KTREPL_REASON_LEAF_TABLE_GAP_TAKEN);
		holds[nr_holds++] = h;
	}
	return NULL;
}

/* NULL when every copied page can stay identical to its master */
static const char *check_copied(void)
{
	const char *why;
	unsigned int e;
	int i;

	find_area = (void *)ktr_ksym_quiet("find_vm_area");
	get_area = (void *)ktr_ksym_quiet("__get_vm_area_caller");
	if (!find_area || !get_area)
		return ktrepl_reason_name(
			KTREPL_REASON_VM_AREA_SYMBOLS_MISSING);
	for (i = 0; i < nr_copied; i++) {
		const struct copied_table *t = &copied[i];

		if (!holds_tables(t)) {
			why = hold_gaps(t->va, t->va + span_of(t->level));
			if (why)
				return why;
			continue;
		}
		for (e = 0; t->level && e < entries_of(t); e++) {
			u64 v = READ_ONCE(t->table[e]);
			unsigned long va = t->va + e * ktr_level_size(t->level);

			if (ktr_pte_present(v) &&
			    ktr_pte_leaf(v, t->level, ktr.geom.levels) &&
			    !image_covers(va, va + ktr_level_size(t->level)))
				return ktrepl_reason_name(
					KTREPL_REASON_HUGE_MAPPING_IN_COPIED_TABLE);
		}
	}
	return NULL;
}

/*
 * Before the node tables are copied. Returns NULL, or why the copies
 * cannot be kept identical to their masters; the caller then calls
 * ktr_fresh_stop() and stays inactive.
 */
const char *ktr_fresh_start(void)
{
	unsigned long empty;
	int ret;

	if (!KTR_ARCH_FRESH_TABLES)
		return ktrepl_reason_name(KTREPL_REASON_ARCH_UNSUPPORTED);
	/*
	 * Where spinlock_t does not fit in struct page (lockdep, as in debug
	 * kernels), a PMD table's lock is allocated by ptlock_alloc(), which
	 * modules cannot call: no table could be constructed as the kernel's
	 */
	if (ALLOC_SPLIT_PTLOCKS)
		return ktrepl_reason_name(KTREPL_REASON_SPLIT_PTLOCKS);
	if (collect_copied())
		return ktrepl_reason_name(KTREPL_REASON_TABLE_WALK_FAILED);
	ret = register_memory_notifier(&offline_nb);
	if (ret)
		return ktrepl_reason_name(
			KTREPL_REASON_MEMORY_NOTIFIER_REFUSED);
	memory_notifier_on = true;
	for (; nr_veto_probes < ARRAY_SIZE(veto_probes); nr_veto_probes++) {
		struct kprobe *kp = &veto_probes[nr_veto_probes];

		kp->pre_handler = veto_table_free;
		ret = register_kprobe(kp);
		if (ret) {
			pr_err("cannot hook %s: %d\n", kp->symbol_name, ret);
			return ktrepl_reason_name(
				KTREPL_REASON_TABLE_FREE_HOOK_REFUSED);
		}
	}
	ret = prepopulate();
	if (ret) {
		pr_err("pre-populating the copied tables failed: %d\n", ret);
		return ktrepl_reason_name(KTREPL_REASON_PREPOPULATE_FAILED);
	}
	pr_info("copied tables pre-populated: %lu pages donated to the kernel's tables\n",
		donated_pages);
	count_entries(&leaves_at_start, &empty);
	return check_copied();
}

/* Only once no CPU runs on a node's tables any more. */
void ktr_fresh_stop(void)
{
	while (nr_holds > 0)
		free_vm_area(holds[--nr_holds]);
	while (nr_veto_probes > 0)
		unregister_kprobe(&veto_probes[--nr_veto_probes]);
	if (memory_notifier_on)
		unregister_memory_notifier(&offline_nb);
	memory_notifier_on = false;
	kfree(copied);
	copied = NULL;
	nr_copied = 0;
}

/*
 * Whether the copied pages still hold what pre-population left: a table
 * under every entry but the image's own huge leaves. A table freed under
 * a copied entry (a veto that did not run) leaves a huge leaf there, or
 * once that is unmapped an empty entry: the next mapping would then
 * write a new lower table into the master's page only, and no resync of
 * the node's copies could keep them fresh from then on. True where no
 * page is copied. Context: process (the fail-safe, paused).
 */
bool ktr_fresh_intact(void)
{
	unsigned long leaves, empty;

	if (!nr_copied)
		return true;
	count_entries(&leaves, &empty);
	return !empty && leaves == leaves_at_start;
}

u64 ktr_fresh_vetoes(void)
{
	return atomic64_read(&nr_vetoes);
}

/*
 * The veto probes' calls that no handler ran for (nested in another
 * kprobe): each may be a lower table freed under a copied entry, which
 * the node tables still point at. ktr_fresh_poll_misses() trips on it.
 * Context: any.
 */
u64 ktr_fresh_probe_misses(void)
{
	unsigned int i, n = READ_ONCE(nr_veto_probes);
	u64 missed = 0;

	for (i = 0; i < n; i++)
		missed += READ_ONCE(veto_probes[i].nmissed);
	return missed;
}
NOKPROBE_SYMBOL(ktr_fresh_probe_misses);

static atomic64_t seen_veto_missed;

/* every veto, and every audit pass: any context */
void ktr_fresh_poll_misses(void)
{
	ktr_failsafe_trip_on_growth(&seen_veto_missed,
				    ktr_fresh_probe_misses(),
				    KTR_FS_VETO_MISSED);
}
NOKPROBE_SYMBOL(ktr_fresh_poll_misses);

#ifdef KTREPL_TEST
static bool table_empty(const u64 *table, int level)
{
	unsigned int e;

	for (e = 0; e < level_entries(level); e++)
		if (ktr_pte_present(READ_ONCE(table[e])))
			return false;
	return true;
}

/*
 * Under stop_machine, so that no populate is between its re-check and its
 * write: the master's entry over the highest-VA empty lower table of the
 * highest copied level (the root first: a span no one maps) is cleared,
 * as a table free the veto missed would leave it. The node copies keep
 * pointing at that table until the fail-safe rebuilds them, so it is
 * never freed (a page, in the test build).
 */
/* t's highest entry over an empty lower table, cleared; or -ENOENT */
static int lose_table_of(const struct copied_table *t)
{
	u64 none = 0;
	int e;

	for (e = entries_of(t) - 1; e >= 0; e--) {
		u64 v = READ_ONCE(t->table[e]);

		if (!ktr_pte_present(v) ||
		    ktr_pte_leaf(v, t->level, ktr.geom.levels) ||
		    !table_empty(ktr_table_va(v), t->level + 1))
			continue;
		ktr_write_phys(__pa(&t->table[e]), &none, sizeof(none));
		ktr_arch_tables_changed();
		return e;
	}
	return -ENOENT;
}

static int lose_table_cb(void *arg)
{
	int l, i, e;

	for (l = 0; l < ktr.geom.levels - 1; l++)
		for (i = 0; i < nr_copied; i++) {
			if (copied[i].level != l)
				continue;
			e = lose_table_of(&copied[i]);
			if (e >= 0) {
				*(int *)arg = l << 16 | e;
				return 0;
			}
		}
	return -ENOENT;
}

/*
 * Test build: a table free the veto probe could not handle ('miss
 * kind=veto'); with lose_table ('miss kind=table_lost') the free also
 * happened, and a copied page lost a pre-populated table, which only
 * ktr_fresh_intact() can see.
 */
int ktr_fresh_force_miss(bool lose_table)
{
	int ret, where;

	if (!nr_veto_probes)
		return -EOPNOTSUPP;
	if (lose_table) {
		ret = stop_machine(lose_table_cb, &where, NULL);
		if (ret)
			return ret;
		pr_info("inject: the master's level-%d table page lost its table at entry %d, as after a missed veto\n",
			where >> 16, where & 0xffff);
	}
	veto_probes[0].nmissed++;
	ktr_fresh_poll_misses();
	return 0;
}
#endif

unsigned long ktr_fresh_donated_pages(void)
{
	return donated_pages;
}
