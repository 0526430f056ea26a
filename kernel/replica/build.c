// SPDX-License-Identifier: GPL-2.0
/*
 * Building: the master's leaf mappings over text and rodata become
 * chunks, and each chunk gets a node-local copy on every replica node
 * (each node's tables that map them are tables.c's). The master's own
 * mappings are never touched.
 *
 * Context: process, at load (ktr_engine_init) and unload
 * (ktr_engine_free), and at module load and unload under mods_lock
 * (modules.c: allocation, the chunks' replicas). The lookups
 * (ktr_find_chunk, ktr_chunk_pa) are read-only and safe in any context
 * once built; core.h says what each one needs held.
 *
 * Owned here: the page accounting, each node's replica bytes,
 * replicas_ready, replicas_settled and alias_protected. The accounting
 * and the byte counts have one writer at a time: the init or exit
 * thread, or, while module loads are followed, the holder of mods_lock
 * (asserted). The byte counts are read locklessly (debugfs),
 * replicas_ready by the patch hooks (WRITE_ONCE at the copy, under
 * text_mutex where it exists), replicas_settled by the audit,
 * alias_protected only by the writers above. Each node's own tables are
 * tables.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/topology.h>

#include "core.h"
#include "build.h"
#include "slot.h"
#include "tables.h"
#include "testing.h"

/* so that every unload can prove it freed all it allocated */
static struct {
	unsigned int calls;
	unsigned long allocated;
	unsigned long freed;
} accounting;

/* each node's replica bytes (core and modules), read locklessly */
static u64 replica_bytes[MAX_NUMNODES];

static bool replicas_ready;
/*
 * The core's copies caught up with the patches made while they were
 * taken (ktr_copy_chunks()'s passes). Until then a master page may
 * differ from its copies by a write the passes have yet to carry over,
 * which the audit must not take for a miss: on arm64 the grace period
 * before the first pass waits out a stalled writer.
 */
static bool replicas_settled;
static bool alias_protected;	/* every replica's direct-map alias is RO */

bool ktr_replicas_ready(void)
{
	return READ_ONCE(replicas_ready);
}
NOKPROBE_SYMBOL(ktr_replicas_ready);

bool ktr_replicas_settled(void)
{
	return READ_ONCE(replicas_settled);
}

bool ktr_alias_protected(void)
{
	return alias_protected;
}

/*
 * The page accounting and the node tables' lists have one writer: the
 * init or exit thread, or, while module loads are followed, the holder of
 * the lock that modules.c registers for as long as it follows them
 * (mods_lock; core.h). NULL: not followed.
 */
static struct mutex *writer_lock;

void ktr_accounting_follow(struct mutex *lock)
{
	WRITE_ONCE(writer_lock, lock);
}

bool ktr_accounting_followed(void)
{
	return READ_ONCE(writer_lock) != NULL;
}

#ifdef CONFIG_LOCKDEP
bool ktr_accounting_writer(void)
{
	struct mutex *lock = READ_ONCE(writer_lock);

	return !lock || lockdep_is_held(lock);
}
#endif

static void assert_accounting_writer(void)
{
	lockdep_assert(ktr_accounting_writer());
}

void ktr_free(struct page *page, unsigned int order)
{
	assert_accounting_writer();
	__free_pages(page, order);
	accounting.freed += 1UL << order;
}

/* zero: only pages not fully overwritten by a copy (the root's PTI half) */
static struct page *alloc_flags(int nid, unsigned int order, gfp_t extra)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN | extra;
	struct page *page;

	assert_accounting_writer();
	accounting.calls++;
	if (ktr_test_fail_alloc() && accounting.calls == ktr_test_fail_alloc()) {
		pr_info("failing allocation %u as fail_alloc asks\n",
			accounting.calls);
		return NULL;
	}
	page = alloc_pages_node(nid, gfp, order);
	if (page)
		accounting.allocated += 1UL << order;
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
	return alloc_flags(nid, order, 0);
}

struct page *ktr_alloc_zeroed(int nid, unsigned int order)
{
	return alloc_flags(nid, order, __GFP_ZERO);
}

u64 ktr_node_bytes(int nid)
{
	return READ_ONCE(replica_bytes[nid]) + ktr_node_table_bytes(nid);
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
NOKPROBE_SYMBOL(ktr_search_chunks);

/* the chunks beyond the core's: modules.c's lookup, while it has any */
static struct ktr_chunk *(*more_chunks)(unsigned long va);

void ktr_chunks_beyond_core(struct ktr_chunk *(*lookup)(unsigned long va))
{
	WRITE_ONCE(more_chunks, lookup);
}

/*
 * The core image's chunk at va, else a replicated module's. Context: a
 * module chunk is only valid under rcu_read_lock() or with preemption
 * or interrupts off, or under mods_lock (modules.c), which its lookup
 * checks.
 */
struct ktr_chunk *ktr_find_chunk(unsigned long va)
{
	struct ktr_chunk *c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
	struct ktr_chunk *(*more)(unsigned long va) = READ_ONCE(more_chunks);

	return c || !more ? c : more(va);
}
NOKPROBE_SYMBOL(ktr_find_chunk);

phys_addr_t ktr_chunk_pa(const struct ktr_chunk *c, int nid)
{
	int mem = ktr_memory_nid(nid);

	if (mem == NUMA_NO_NODE || mem == ktr.master_nid || !c->copy[mem])
		return c->master_pa;
	return page_to_phys(c->copy[mem]);
}
NOKPROBE_SYMBOL(ktr_chunk_pa);

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

	if (!ktr_pte_present(e) || !ktr_pte_leaf(e, level, ktr.geom.levels))
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

/*
 * The node whose replica and tables nid uses, or NUMA_NO_NODE: for an id
 * out of range, and for a node onlined after ktr_setup_nodes(), which
 * has no set until a reload builds one (role "late"). Never node 0's by
 * default: every caller keeps such a node's CPUs and processes on the
 * master's tables.
 */
int ktr_memory_nid(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !ktr.nodes)
		return NUMA_NO_NODE;
	return ktr.nodes[nid].memory_nid;
}
NOKPROBE_SYMBOL(ktr_memory_nid);

/* the node struct holding nid's set, or NULL (see ktr_memory_nid()) */
struct ktr_node *ktr_set_node(int nid)
{
	int mem = ktr_memory_nid(nid);

	return mem == NUMA_NO_NODE ? NULL : &ktr.nodes[mem];
}

void ktr_setup_nodes(void)
{
	int nid;

	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];
		bool has_memory = node_state(nid, N_MEMORY);

		n->nid = nid;
		n->memory_nid = has_memory ? nid : nearest_memory_node(nid);
		n->own_replica = has_memory && nid != ktr.master_nid;
	}
}

/*
 * A node's pages for a chunk array's single-page copies, taken as one
 * block: adjacent chunks' copies are then adjacent, and one protection
 * change covers them (ktr_protect_chunk_copies(); one a page cost 90 us
 * each under TCG, 37 of them at a 6.1 load). Only a speed-up: where the
 * node has no such block free, each copy takes a page of its own.
 */
struct page_run {
	struct page *next;
	unsigned int left;
};

/* whether the allocation that just failed was the one fail_alloc asks */
static bool failure_injected(void)
{
	return ktr_test_fail_alloc() &&
	       accounting.calls == ktr_test_fail_alloc();
}

static int take_run(struct page_run *run, int nid, unsigned int singles,
		    const struct ktr_chunk *first)
{
	unsigned int order, i;
	struct page *block;

	run->left = 0;
	singles = min_t(unsigned int, singles, 1U << pageblock_order);
	if (singles < 2 || ktr_test_no_page_runs())
		return 0;
	order = get_order((size_t)singles << PAGE_SHIFT);
	block = alloc_flags(nid, order, __GFP_NORETRY);
	/* the test build's failure stands for no memory at all */
	if (!block && failure_injected()) {
		pr_err("no memory on node %d for the replica of %pS (%u KiB)\n",
		       nid, (void *)first->va, singles << (PAGE_SHIFT - 10));
		return -ENOMEM;
	}
	if (!block)
		return 0;
	split_page(block, order);
	for (i = singles; i < 1U << order; i++)
		ktr_free(block + i, 0);
	run->next = block;
	run->left = singles;
	return 0;
}

/* c's copy on every replica node (and its page sums for the audit) */
static int alloc_chunk_replicas(struct ktr_chunk *c, struct page_run *runs)
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
		struct page_run *run = &runs[nid];

		if (!ktr.nodes[nid].own_replica)
			continue;
		if (!ktr_chunk_order(c) && run->left) {
			c->copy[nid] = run->next++;
			run->left--;
		} else {
			c->copy[nid] = ktr_alloc(nid, ktr_chunk_order(c));
		}
		if (!c->copy[nid]) {
			pr_err("no memory on node %d for the replica of %pS (%lu KiB)\n",
			       nid, (void *)c->va, ktr_chunk_size(c) >> 10);
			return -ENOMEM;
		}
		replica_bytes[nid] += ktr_chunk_size(c);
	}
	return 0;
}

/*
 * The copies of chunks[] on every replica node; on failure, those made
 * so far stay for ktr_free_chunks_replicas().
 */
int ktr_alloc_chunks_replicas(struct ktr_chunk *chunks, int nr)
{
	const struct ktr_chunk *first = NULL;
	unsigned int singles = 0;
	struct page_run *runs;
	int i, nid, ret = 0;

	for (i = 0; i < nr; i++) {
		if (ktr_chunk_order(&chunks[i]))
			continue;
		first = first ?: &chunks[i];
		singles++;
	}
	runs = kcalloc(nr_node_ids, sizeof(*runs), GFP_KERNEL);
	if (!runs)
		return -ENOMEM;
	for_each_online_node(nid)
		if (!ret && ktr.nodes[nid].own_replica)
			ret = take_run(&runs[nid], nid, singles, first);
	for (i = 0; i < nr && !ret; i++)
		ret = alloc_chunk_replicas(&chunks[i], runs);
	for_each_online_node(nid)
		for (; runs[nid].left; runs[nid].left--)
			ktr_free(runs[nid].next++, 0);
	kfree(runs);
	return ret;
}

int ktr_alloc_replicas(void)
{
	return ktr_alloc_chunks_replicas(ktr.chunks, ktr.nr_chunks);
}

/*
 * The audit's page sum (Fletcher's, over 64-bit words, mod 2^64): a
 * change confined to two adjacent words, as every text patch is (at most
 * 5 bytes on x86, one 4-byte instruction on arm64), always changes it:
 * if the words' total stays, the weighted one moves by the first word's
 * change. Unlike xxh64 it can be taken while the page is copied, from
 * the same loads: the copy then reads the master once (xxh64 after the
 * copy made it 1.5x a memcpy under TCG; this, 1.1x).
 */
static __always_inline void copy_page_summed(void *dst, const void *src,
					     struct ktr_page_sum *sum)
{
	const u64 *from = src;
	u64 *to = dst, words = 0, weighted = 0;
	unsigned int i;

	/* two words a turn: half the loop's own cost under TCG */
	for (i = 0; i < PAGE_SIZE / sizeof(u64); i += 2) {
		u64 w0 = from[i], w1 = from[i + 1];

		if (to) {
			to[i] = w0;
			to[i + 1] = w1;
		}
		words += w0;
		weighted += words;
		words += w1;
		weighted += words;
	}
	sum->words = words;
	sum->weighted = weighted;
}

void ktr_page_sum(const void *page, struct ktr_page_sum *sum)
{
	copy_page_summed(NULL, page, sum);
}

bool ktr_page_sum_equal(const struct ktr_page_sum *a,
			const struct ktr_page_sum *b)
{
	return a->words == b->words && a->weighted == b->weighted;
}

/*
 * Each master page copied to every replica, its sum taken from the same
 * loads as the first copy, and the other copies made while the page is
 * still in the cache. With icache, each copy is made instructions at
 * once: a module's copies run as soon as its leaves move. The core's
 * are made so later, inside stop_machine(), right before any CPU runs
 * them (ktr_recopy_quiesced()).
 */
static void copy_and_sum(struct ktr_chunk *chunks, int nr, bool icache)
{
	struct ktr_page_sum unused;
	unsigned int p;
	int i, nid;

	for (i = 0; i < nr; i++) {
		struct ktr_chunk *c = &chunks[i];
		const void *master = ktr_chunk_master(c);

		for (p = 0; p < 1U << ktr_chunk_order(c); p++) {
			struct ktr_page_sum *sum = c->sums ? &c->sums[p] :
							     &unused;
			size_t off = (size_t)p * PAGE_SIZE;
			bool summed = false;

			for_each_replica(c, nid) {
				void *copy = page_address(c->copy[nid]) + off;

				if (!summed)
					copy_page_summed(copy, master + off,
							 sum);
				else
					memcpy(copy, master + off, PAGE_SIZE);
				summed = true;
				if (icache)
					ktr_arch_sync_icache(copy, c->va + off,
							     PAGE_SIZE);
			}
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

/* compare passes a copy may take to catch up with patches in flight */
#define KTR_COPY_PASSES 10

/*
 * The one copy protocol: the core's chunks at load, and each module's at
 * its replication (modules.c). Copy the master's bytes, then set *ready,
 * from which point the patch hook writes the copies too. Under
 * text_mutex (x86) no text_poke can land between the copy and the hook
 * taking over. Where the patching lock is not reachable (arm64 has no
 * text_mutex in kallsyms), a patch whose hook ran before *ready may
 * reach the master after the copy. Each such write is made with
 * preemption or interrupts off (inside the ftrace hook, which takes it
 * over, or under the kernel's patch_lock where the poke probe sees it):
 * once a grace period has passed, every one of them is in the master.
 * Then compare, 20 ms apart, until a pass finds nothing to fix (a pass
 * can race a patch made after *ready, whose hook writes the master
 * first), and fail the copy of @what with -EBUSY after KTR_COPY_PASSES.
 * Context: process, may sleep.
 */
int ktr_copy_chunks(struct ktr_chunk *chunks, int nr, bool *ready,
		    bool icache, const char *what)
{
	int pass;

	if (ktr.text_mutex)
		mutex_lock(ktr.text_mutex);
	ktr_test_copy_running(true);
	copy_and_sum(chunks, nr, icache);
	ktr_test_copy_running(false);
	WRITE_ONCE(*ready, true);
	if (ktr.text_mutex) {
		mutex_unlock(ktr.text_mutex);
		return 0;
	}
	synchronize_rcu_expedited();
	for (pass = 0; pass < KTR_COPY_PASSES; pass++) {
		if (!ktr_recopy_chunks(chunks, nr))
			return 0;
		msleep(20);
	}
	pr_err("%s: replicas keep changing under the copy\n", what);
	return -EBUSY;
}

int ktr_copy_replicas(void)
{
	int ret = ktr_copy_chunks(ktr.chunks, ktr.nr_chunks, &replicas_ready,
				  false, "kernel");

	if (!ret)
		WRITE_ONCE(replicas_settled, true);
	return ret;
}

static int recopy_cb(void *fixed)
{
	int i, nid;

	*(int *)fixed = ktr_recopy_chunks(ktr.chunks, ktr.nr_chunks);
	/* the copies were written as data: make them instructions */
	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid)
			ktr_arch_sync_icache(page_address(c->copy[nid]), c->va,
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

/*
 * And the zeroing init_on_alloc=1 makes the allocator do to the same
 * pages before the copy overwrites them: work the kernel mandates, not
 * ours. Before the copies, so nothing runs the zeroed pages.
 */
u64 ktr_time_plain_memset(void)
{
	u64 t = ktime_get_ns();
	int i, nid;

	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for_each_replica(c, nid)
			memset(page_address(c->copy[nid]), 0,
			       ktr_chunk_size(c));
	}
	return ktime_get_ns() - t;
}

/*
 * The direct-map alias of chunks[]' copies on node nid made read-only
 * (or writable again), a run of adjacent copies per change: each change
 * flushes every CPU's TLB (an IPI to each under x86), so one per chunk
 * made a load's protection cost a fifth of its memcpy under TCG.
 */
int ktr_protect_chunk_copies(struct ktr_chunk *chunks, int nr, int nid,
			     bool ro)
{
	unsigned long run = 0, end = 0;
	int i, ret;

	for (i = 0; i <= nr; i++) {
		struct ktr_chunk *c = i < nr ? &chunks[i] : NULL;
		unsigned long addr = 0;

		if (c && c->copy && c->copy[nid])
			addr = (unsigned long)page_address(c->copy[nid]);
		else if (c)
			continue;
		if (addr && addr == end) {
			end += ktr_chunk_size(c);
			continue;
		}
		if (end > run) {
			ret = ktr_arch_protect_alias(run,
						     (end - run) >> PAGE_SHIFT,
						     ro);
			if (ret)
				return ret;
		}
		run = addr;
		end = addr ? addr + ktr_chunk_size(c) : 0;
	}
	return 0;
}

/* The direct-map alias of a replica would be a writable alias of text. */
int ktr_protect_replicas(bool ro)
{
	int nid, ret;

	for_each_online_node(nid) {
		if (!ktr.nodes[nid].own_replica)
			continue;
		ret = ktr_protect_chunk_copies(ktr.chunks, ktr.nr_chunks, nid,
					       ro);
		/* a partial change is undone before anything is freed */
		alias_protected |= ro;
		if (ret)
			return ret;
	}
	alias_protected = ro;
	return 0;
}

/*
 * Undoes alloc_chunk_replicas(), a partial one too. The copies'
 * aliases must be writable again (ktr_free_chunks_replicas()).
 */
static void free_chunk_replicas(struct ktr_chunk *c)
{
	int nid;

	if (!c->copy)
		return;
	for_each_replica(c, nid) {
		ktr_free(c->copy[nid], ktr_chunk_order(c));
		replica_bytes[nid] -= ktr_chunk_size(c);
	}
	kfree(c->copy);
	c->copy = NULL;
	kfree(c->sums);
	c->sums = NULL;
}

/* the copies of chunks[], their aliases made writable first */
void ktr_free_chunks_replicas(struct ktr_chunk *chunks, int nr)
{
	int i, nid;

	if (alias_protected)
		for_each_online_node(nid)
			ktr_protect_chunk_copies(chunks, nr, nid, false);
	for (i = 0; i < nr; i++)
		free_chunk_replicas(&chunks[i]);
}

void ktr_free_replicas(void)
{
	if (!ktr.chunks)
		return;
	if (alias_protected)
		ktr_protect_replicas(false);
	ktr_free_chunks_replicas(ktr.chunks, ktr.nr_chunks);
	replicas_ready = false;
	replicas_settled = false;
	kfree(ktr.chunks);
	ktr.chunks = NULL;
	ktr.nr_chunks = 0;
}

unsigned int ktr_alloc_calls(void)
{
	return accounting.calls;
}

void ktr_accounting_report(unsigned long donated)
{
	if (accounting.allocated)
		pr_info("freed %lu of %lu pages allocated (and %lu table pages donated to the kernel at load)\n",
			accounting.freed, accounting.allocated, donated);
	accounting = (typeof(accounting)){ 0 };
}
