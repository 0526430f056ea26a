// SPDX-License-Identifier: GPL-2.0
/*
 * Building: the master's leaf mappings over text and rodata become
 * chunks, each chunk gets a node-local copy on every replica node, and
 * each replica node gets a private copy of only the table pages on the
 * path to its copies; every other entry still points at the master's
 * table pages. The master's own mappings are never touched.
 *
 * Context: process, at load (ktr_engine_init) and unload
 * (ktr_engine_free), and at module load and unload under mods_lock
 * (modules.c: allocation, own_table(), ktr_own_leaf()). The lookups
 * (ktr_walk, ktr_find_chunk, ktr_chunk_pa) are read-only and safe in any
 * context once built; engine.h says what each one needs held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/topology.h>
#include <linux/xxhash.h>

#include "engine.h"
#include "testing.h"

/*
 * Walk from root toward va; stop at a leaf, a hole, or stop_level.
 * Returns the entry and its level.
 */
u64 *ktr_walk(u64 *root, unsigned long va, int stop_level, int *level)
{
	u64 *table = root;
	int l;

	for (l = 0;; l++) {
		u64 *e = &table[ktr_level_index(va, l)];
		u64 v = READ_ONCE(*e);

		if (l == stop_level || !ktr_arch.present(v) ||
		    ktr_arch.leaf(v, l, ktr.geom.levels)) {
			*level = l;
			return e;
		}
		table = ktr_table_va(v);
	}
}

/*
 * The page accounting has one writer: the init or exit thread, or, while
 * module loads are followed, the one holding mods_lock (engine.h).
 */
static void assert_accounting_writer(void)
{
	lockdep_assert(!ktr_modules_following() || ktr_modules_lock_held());
}

void ktr_free(struct page *page, unsigned int order)
{
	assert_accounting_writer();
	__free_pages(page, order);
	ktr.pages_freed += 1UL << order;
}

/* zero: only pages not fully overwritten by a copy (the root's PTI half) */
static struct page *ktr_alloc_flags(int nid, unsigned int order, gfp_t extra)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN | extra;
	struct page *page;

	assert_accounting_writer();
	ktr.alloc_calls++;
	if (ktr_test_fail_alloc() && ktr.alloc_calls == ktr_test_fail_alloc()) {
		pr_info("failing allocation %u as fail_alloc asks\n",
			ktr.alloc_calls);
		return NULL;
	}
	page = alloc_pages_node(nid, gfp, order);
	if (page)
		ktr.pages_allocated += 1UL << order;
	if (page && page_to_nid(page) != nid) {
		pr_err("asked node %d, got a page on node %d\n", nid,
		       page_to_nid(page));
		ktr_free(page, order);
		return NULL;
	}
	return page;
}

struct page *ktr_alloc(int nid, unsigned int order)
{
	return ktr_alloc_flags(nid, order, 0);
}

/* the chunk of a sorted array that holds va, or NULL */
struct ktr_chunk *ktr_search_chunks(struct ktr_chunk *chunks, int nr,
				    unsigned long va)
{
	int lo = 0, hi = nr - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		struct ktr_chunk *c = &chunks[mid];

		if (va < c->va)
			hi = mid - 1;
		else if (va - c->va >= ktr_chunk_size(c))
			lo = mid + 1;
		else
			return c;
	}
	return NULL;
}

/*
 * The core image's chunk at va, else a replicated module's. Context: a
 * module chunk is only valid under rcu_read_lock() or with preemption
 * or interrupts off, or under mods_lock (modules.c), which
 * ktr_module_chunk() checks.
 */
struct ktr_chunk *ktr_find_chunk(unsigned long va)
{
	struct ktr_chunk *c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);

	return c ? c : ktr_module_chunk(va, false);
}

phys_addr_t ktr_chunk_pa(const struct ktr_chunk *c, int nid)
{
	int mem = ktr.nodes[nid].memory_nid;

	if (mem == ktr.master_nid || !c->copy[mem])
		return c->master_pa;
	return page_to_phys(c->copy[mem]);
}

/*
 * The extents nid maps chunks[] (sorted) of region (-1: every one) onto:
 * runs contiguous in both VA and PA, in VA order.
 */
int ktr_chunk_extents(const struct ktr_chunk *chunks, int nr, int nid,
		      int region, ktrepl_extent_fn fn, void *arg)
{
	struct ktrepl_extent ext = { 0 };
	int i, ret;

	for (i = 0; i < nr; i++) {
		const struct ktr_chunk *c = &chunks[i];
		phys_addr_t pa = ktr_chunk_pa(c, nid);
		unsigned long size = ktr_chunk_size(c);

		if (region >= 0 && c->region != region)
			continue;
		if (ext.size && ext.va + ext.size == c->va &&
		    ext.pa + ext.size == pa && ext.page_shift == c->page_shift) {
			ext.size += size;
			continue;
		}
		if (ext.size) {
			ret = fn(&ext, arg);
			if (ret)
				return ret;
		}
		ext = (struct ktrepl_extent){ .va = c->va, .pa = pa,
					      .size = size,
					      .page_shift = c->page_shift };
	}
	return ext.size ? fn(&ext, arg) : 0;
}

/* The master's leaf at va, as a chunk; returns the VA after it. */
static unsigned long chunk_at(unsigned long va, int region, int n)
{
	int level;
	u64 e = READ_ONCE(*ktr_walk(ktr.master_root, va, -1, &level));
	unsigned long size = ktr_level_size(level);
	unsigned long base = va & ~(size - 1);
	struct ktr_chunk *c;

	if (!ktr_arch.present(e) || !ktr_arch.leaf(e, level, ktr.geom.levels))
		return base + size;
	if (n && ktr.chunks && ktr.chunks[n - 1].va == base)
		return base + size;
	ktr.nr_chunks++;
	if (!ktr.chunks)
		return base + size;	/* counting pass */
	c = &ktr.chunks[n];
	c->va = base;
	c->page_shift = ktr.geom.shift[level];
	c->region = region;
	c->master_pa = e & ktr.geom.addr_mask & ~((u64)size - 1);
	return base + size;
}

int ktr_collect_chunks(void)
{
	int r, pass;

	/* first pass counts, second fills */
	for (pass = 0; pass < 2; pass++) {
		int counted = ktr.nr_chunks;

		ktr.nr_chunks = 0;
		if (pass) {
			ktr.chunks = kcalloc(counted, sizeof(*ktr.chunks),
					     GFP_KERNEL);
			if (!ktr.chunks)
				return -ENOMEM;
		}
		for (r = 0; r < KTR_NR_REGIONS; r++) {
			unsigned long va = ktr.regions[r].start & PAGE_MASK;

			while (va < ktr.regions[r].end)
				va = chunk_at(va, r, ktr.nr_chunks);
		}
	}
	return ktr.nr_chunks ? 0 : -ENOENT;
}

static int nearest_memory_node(int nid)
{
	int best = NUMA_NO_NODE, m;

	for_each_node_state(m, N_MEMORY) {
		if (best == NUMA_NO_NODE ||
		    node_distance(nid, m) < node_distance(nid, best))
			best = m;
	}
	return best;
}

bool ktr_any_replica(void)
{
	int nid;

	for_each_online_node(nid)
		if (ktr.nodes[nid].own_replica)
			return true;
	return false;
}

void ktr_setup_nodes(void)
{
	int nid;

	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];
		bool has_memory = node_state(nid, N_MEMORY);

		n->nid = nid;
		INIT_LIST_HEAD(&n->tables);
		n->memory_nid = has_memory ? nid : nearest_memory_node(nid);
		n->own_replica = has_memory && nid != ktr.master_nid;
	}
}

/* c's copy on every replica node (and its page sums for the audit) */
int ktr_alloc_chunk_replicas(struct ktr_chunk *c)
{
	int nid;

	c->copy = kcalloc(nr_node_ids, sizeof(*c->copy), GFP_KERNEL);
	if (!c->copy)
		return -ENOMEM;
	/* sums tell the audit (both arches) which master pages changed */
	c->sums = kcalloc(1U << ktr_chunk_order(c), sizeof(*c->sums),
			  GFP_KERNEL);
	if (!c->sums)
		return -ENOMEM;
	for_each_online_node(nid) {
		if (!ktr.nodes[nid].own_replica)
			continue;
		c->copy[nid] = ktr_alloc(nid, ktr_chunk_order(c));
		if (!c->copy[nid]) {
			pr_err("no memory on node %d for the replica of %pS (%lu KiB)\n",
			       nid, (void *)c->va, ktr_chunk_size(c) >> 10);
			return -ENOMEM;
		}
		ktr.nodes[nid].replica_bytes += ktr_chunk_size(c);
	}
	return 0;
}

int ktr_alloc_replicas(void)
{
	int i, ret;

	for (i = 0; i < ktr.nr_chunks; i++) {
		ret = ktr_alloc_chunk_replicas(&ktr.chunks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Each master page copied to every replica and then summed (the sums tell
 * the audit which master pages changed) while it is still in the cache:
 * one read of the master from memory, not one for the copy and another
 * for the sums (arm64 compares once more after: ktr_copy_replicas()).
 */
static void copy_and_sum_all(void)
{
	unsigned int p;
	int i, nid;

	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];
		const void *master = ktr_chunk_master(c);

		for (p = 0; p < 1U << ktr_chunk_order(c); p++) {
			size_t off = (size_t)p * PAGE_SIZE;

			for_each_replica(c, nid)
				memcpy(page_address(c->copy[nid]) + off,
				       master + off, PAGE_SIZE);
			if (c->sums)
				c->sums[p] = xxh64(master + off, PAGE_SIZE, 0);
		}
		/* tens of MiB per node on a kernel without preemption */
		cond_resched();
	}
}

/* the plain copy: the baseline a load is judged against (bench=1) */
static void copy_all(void)
{
	int i, nid;

	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid)
			memcpy(page_address(c->copy[nid]), ktr_chunk_master(c),
			       ktr_chunk_size(c));
	}
}

/* copies of chunks[] that differ from the master, made equal; how many */
int ktr_recopy_chunks(struct ktr_chunk *chunks, int nr)
{
	int i, nid, fixed = 0;

	for (i = 0; i < nr; i++) {
		struct ktr_chunk *c = &chunks[i];

		for_each_replica(c, nid) {
			void *copy = page_address(c->copy[nid]);

			if (!memcmp(copy, ktr_chunk_master(c), ktr_chunk_size(c)))
				continue;
			/* through the slot: the alias may be read-only by now */
			ktr_replica_write(nid, c->va, ktr_chunk_master(c), -1,
					  ktr_chunk_size(c));
			fixed++;
		}
	}
	return fixed;
}

/*
 * Copy the master's bytes. Under text_mutex (x86) no text_poke can land
 * between the copy and the hook taking over. Where the patching lock is
 * not reachable (arm64 has no text_mutex in kallsyms), a patch whose
 * hook ran before we were ready may reach the master after our copy:
 * compare again until a pass finds nothing to fix.
 */
int ktr_copy_replicas(void)
{
	int pass;

	if (ktr.text_mutex)
		mutex_lock(ktr.text_mutex);
	copy_and_sum_all();
	WRITE_ONCE(ktr.replicas_ready, true);
	if (ktr.text_mutex) {
		mutex_unlock(ktr.text_mutex);
		return 0;
	}
	for (pass = 0; pass < 10; pass++) {
		if (!ktr_recopy_chunks(ktr.chunks, ktr.nr_chunks))
			return 0;
		msleep(20);
	}
	pr_err("replicas keep changing under the copy\n");
	return -EBUSY;
}

static int recopy_cb(void *fixed)
{
	int i, nid;

	*(int *)fixed = ktr_recopy_chunks(ktr.chunks, ktr.nr_chunks);
	/* the copies were written as data: make them instructions */
	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid)
			ktr_arch.sync_icache(page_address(c->copy[nid]), c->va,
					     ktr_chunk_size(c));
	}
	return 0;
}

/*
 * Right before CPUs start running the copies: with every other CPU
 * stopped no patch is half-made, so what still differs is a patch the
 * hook could not see yet; copy it. Returns how many chunks differed.
 */
int ktr_recopy_quiesced(void)
{
	int fixed = 0;

	stop_machine(recopy_cb, &fixed, NULL);
	return fixed;
}

/*
 * The baseline the load time is judged against: the same bytes copied
 * by memcpy into the same (already allocated) node-local pages.
 */
u64 ktr_time_plain_memcpy(void)
{
	u64 t = ktime_get_ns();

	copy_all();
	return ktime_get_ns() - t;
}

/* The direct-map alias of a replica would be a writable alias of text. */
int ktr_protect_replicas(bool ro)
{
	int i, nid, ret;

	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid) {
			ret = ktr_arch.protect_alias(
				(unsigned long)page_address(c->copy[nid]),
				1 << ktr_chunk_order(c), ro);
			/* a partial change is undone before anything is freed */
			ktr.alias_protected |= ro;
			if (ret)
				return ret;
		}
	}
	ktr.alias_protected = ro;
	return 0;
}

/*
 * n's own table at level over va, or NULL. The list grows under
 * tables_lock, by the holder of mods_lock once module loads are followed
 * (before, and after ktr_modules_stop(), by the init or exit thread
 * alone): a walker holds one of the two, is that thread, or is an RCU
 * reader (rcu_read_lock(), or preemption or interrupts off).
 */
struct ktr_table *ktr_owned_table(struct ktr_node *n, int level,
				  unsigned long va)
{
	struct ktr_table *t;
	unsigned long base = level ? va & ~(ktr_level_size(level - 1) - 1) : 0;

	list_for_each_entry_rcu(t, &n->tables, list,
				lockdep_is_held(&ktr.tables_lock) ||
				ktr_modules_lock_held() ||
				!ktr_modules_following())
		if (t->level == level && t->va == base)
			return t;
	return NULL;
}

/*
 * Make the table at 'level' that translates va private to node n:
 * copy the master's table page to a node-local one and point the
 * parent entry (already private) at it.
 */
static int own_table(struct ktr_node *n, u64 *parent, int level,
		     unsigned long va)
{
	unsigned long flags;
	struct ktr_table *t;
	struct page *page;

	if (ktr_owned_table(n, level, va))
		return 0;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	page = ktr_alloc(n->nid, 0);
	if (!page) {
		kfree(t);
		pr_err("no memory on node %d for a level-%d table\n", n->nid,
		       level);
		return -ENOMEM;
	}
	t->page = page;
	t->level = level;
	t->va = va & ~(ktr_level_size(level - 1) - 1);
	/*
	 * The copy, the listing and the switch are one step for the table
	 * mirror (modules.c): a master entry written before it is in the
	 * copy, one written after it is mirrored into the listed copy.
	 */
	raw_spin_lock_irqsave(&ktr.tables_lock, flags);
	memcpy(page_address(page), ktr_table_va(*parent), PAGE_SIZE);
	list_add_tail_rcu(&t->list, &n->tables);
	n->table_bytes += PAGE_SIZE;
	WRITE_ONCE(*parent,
		   (*parent & ~ktr.geom.addr_mask) | page_to_phys(page));
	raw_spin_unlock_irqrestore(&ktr.tables_lock, flags);
	return 0;
}

/* the master's table page that node table t copies, or NULL */
u64 *ktr_master_table_of(const struct ktr_table *t)
{
	int level;
	u64 *e = ktr_walk(ktr.master_root, t->va, t->level - 1, &level);

	if (level != t->level - 1 || !ktr_arch.present(*e) ||
	    ktr_arch.leaf(*e, level, ktr.geom.levels))
		return NULL;
	return ktr_table_va(*e);
}

static int leaf_level_of(const struct ktr_chunk *c)
{
	int l;

	for (l = ktr.geom.levels - 1; l >= 0; l--)
		if (ktr.geom.shift[l] == c->page_shift)
			return l;
	return -1;
}

/*
 * Node n's leaf entry for chunk c, owning the tables on the way to it:
 * the entry is n's own to write. ERR_PTR on failure.
 */
u64 *ktr_own_leaf(struct ktr_node *n, const struct ktr_chunk *c)
{
	int leaf_level = leaf_level_of(c), l, ret;
	u64 *table = n->root, *e;

	if (leaf_level < 0)
		return ERR_PTR(-EINVAL);
	for (l = 0; l < leaf_level; l++) {
		e = &table[ktr_level_index(c->va, l)];
		ret = own_table(n, e, l + 1, c->va);
		if (ret)
			return ERR_PTR(ret);
		table = ktr_table_va(*e);
	}
	return &table[ktr_level_index(c->va, leaf_level)];
}

/* Point node n's leaf for chunk c at its copy, owning the path to it. */
int ktr_map_chunk(struct ktr_node *n, const struct ktr_chunk *c)
{
	u64 *e = ktr_own_leaf(n, c);
	unsigned long flags;

	if (IS_ERR(e))
		return PTR_ERR(e);
	raw_spin_lock_irqsave(&ktr.tables_lock, flags);
	WRITE_ONCE(*e, ktr_arch.node_leaf(*e, page_to_phys(c->copy[n->nid])));
	raw_spin_unlock_irqrestore(&ktr.tables_lock, flags);
	return 0;
}

int ktr_build_node_tables(struct ktr_node *n)
{
	int i, ret;

	unsigned int lead = ktr_arch.root_lead_pages;

	n->root_order = order_base_2(lead + (1U << ktr.geom.root_order));
	n->root_page = ktr_alloc_flags(n->nid, n->root_order, __GFP_ZERO);
	if (!n->root_page) {
		pr_err("no memory on node %d for its top-level table\n",
		       n->nid);
		return -ENOMEM;
	}
	if (lead)
		ktr_arch.fill_root_lead(page_address(n->root_page));
	n->root = page_address(n->root_page) + lead * PAGE_SIZE;
	memcpy(n->root, ktr.master_root, PAGE_SIZE);
	n->table_bytes += PAGE_SIZE << n->root_order;

	for (i = 0; i < ktr.nr_chunks; i++) {
		ret = ktr_map_chunk(n, &ktr.chunks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A kernel-only mm whose tables are the node's set, for kthread_use_mm. */
struct mm_struct *ktr_node_mm(u64 *root, pgd_t **orig)
{
	struct mm_struct *mm = ktr.mm_alloc();

	if (!mm)
		return NULL;
	*orig = mm->pgd;
	mm->pgd = (pgd_t *)root;
	return mm;
}

void ktr_free_node(struct ktr_node *n)
{
	struct ktr_table *t, *tmp;

	if (n->mm) {
		n->mm->pgd = n->mm_orig_pgd;
		mmput(n->mm);
		n->mm = NULL;
	}
	list_for_each_entry_safe(t, tmp, &n->tables, list) {
		ktr_free(t->page, 0);
		list_del(&t->list);
		kfree(t);
	}
	if (n->root_page)
		ktr_free(n->root_page, n->root_order);
	n->root_page = NULL;
	n->root = NULL;
}

void ktr_free_replicas(void)
{
	int i, nid;

	if (!ktr.chunks)
		return;
	if (ktr.alias_protected)
		ktr_protect_replicas(false);
	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid)
			ktr_free(c->copy[nid], ktr_chunk_order(c));
		kfree(c->copy);
		kfree(c->sums);
	}
	kfree(ktr.chunks);
	ktr.chunks = NULL;
	ktr.nr_chunks = 0;
}
