// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl engine: real per-node replicas of kernel text and rodata, and a
 * per-node page-table set, built beside the master's on a stock kernel.
 *
 * The master's own mappings are never touched. Each replica node gets
 * node-local copies of the master's leaf mappings over text and rodata,
 * and a private copy of only those table pages on the path to them;
 * every other entry still points at the master's table pages.
 */
#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xxhash.h>
#include <asm/tlbflush.h>

#include "engine.h"

static bool propagate = true;
module_param(propagate, bool, 0600);
MODULE_PARM_DESC(propagate, "copy runtime text patches into every replica (default 1)");

static bool fault_inject;
module_param(fault_inject, bool, 0400);
MODULE_PARM_DESC(fault_inject, "create debugfs 'inject' (tests only)");

static bool bench;
module_param(bench, bool, 0400);
MODULE_PARM_DESC(bench, "also time a plain memcpy of the replicated bytes at load");

static unsigned int fail_alloc;
module_param(fail_alloc, uint, 0400);
MODULE_PARM_DESC(fail_alloc, "fail the k-th page allocation (tests only)");

#define KTR_LOG_SIZE 256
#define KTR_WORKLOAD_PROBE (1UL << 20)
#define KTR_WORKLOAD_BUF 4096

static const struct ktr_arch *arch;
static struct ktr_geom geom;
static struct ktrepl_region regions[2];
static struct ktr_chunk *chunks;
static int nr_chunks;
static struct ktr_node *nodes;	/* [nr_node_ids] */
static int master_nid = NUMA_NO_NODE;
static u64 *master_root;
static bool replicas_ready;
static unsigned int alloc_calls;
static enum ktrepl_activation activation;
static struct mm_struct *master_mm;
static pgd_t *master_mm_orig_pgd;

static int (*ktr_set_memory_ro)(unsigned long addr, int numpages);
static int (*ktr_set_memory_rw)(unsigned long addr, int numpages);
static struct mm_struct *(*ktr_mm_alloc)(void);
static struct mutex *ktr_text_mutex;

/* patch propagation */
static atomic64_t nr_patches, nr_patch_bytes, nr_missed;
static DEFINE_RAW_SPINLOCK(log_lock);
static struct ktrepl_patch_record patch_log_ring[KTR_LOG_SIZE];
static u64 patch_seq;
static bool kprobe_registered;
static struct kprobe patch_kprobe;
#define KTR_MAX_SYNC_HOOKS 8
static struct kretprobe sync_probes[KTR_MAX_SYNC_HOOKS];
static int nr_sync_probes;
static void sync_changed_fn(struct work_struct *work);
static DECLARE_WORK(sync_work, sync_changed_fn);

/*
 * Writers nobody can hook (ftrace's own on arm64) are caught by a
 * periodic sync of changed master pages; 0 turns it off.
 */
static unsigned int sync_period_ms = 1000;
module_param(sync_period_ms, uint, 0600);
MODULE_PARM_DESC(sync_period_ms, "where patches cannot be hooked: sync changed text this often (ms, 0 = off)");

static void periodic_sync_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(periodic_sync, periodic_sync_fn);
static bool periodic_on;

static void periodic_sync_fn(struct work_struct *work)
{
	unsigned int period = READ_ONCE(sync_period_ms);

	sync_changed_fn(NULL);
	if (period && READ_ONCE(periodic_on))
		schedule_delayed_work(&periodic_sync, msecs_to_jiffies(period));
}

/* one temporary writable mapping per CPU, like text_poke's poking_mm */
struct ktr_slot {
	struct page *backing;
	void *va;
	pte_t *pte;
	pte_t orig;
};
static struct ktr_slot *slots;	/* [nr_cpu_ids] */

static DEFINE_MUTEX(workload_lock);
static enum ktrepl_workload_mode workload_mode;
static bool notifiers_on;

static unsigned long level_size(int level)
{
	return 1UL << geom.shift[level];
}

static unsigned int level_index(unsigned long va, int level)
{
	return (va >> geom.shift[level]) & ((1U << geom.bits[level]) - 1);
}

static u64 *table_va(u64 entry)
{
	return __va(entry & geom.addr_mask);
}

/*
 * Walk from root toward va; stop at a leaf, a hole, or stop_level.
 * Returns the entry and its level.
 */
static u64 *ktr_walk(u64 *root, unsigned long va, int stop_level, int *level)
{
	u64 *table = root;
	int l;

	for (l = 0;; l++) {
		u64 *e = &table[level_index(va, l)];
		u64 v = READ_ONCE(*e);

		if (l == stop_level || !arch->present(v) ||
		    arch->leaf(v, l, geom.levels)) {
			*level = l;
			return e;
		}
		table = table_va(v);
	}
}

/* page accounting, so that every unload can prove it freed everything */
static unsigned long pages_allocated, pages_freed;

static void ktr_free(struct page *page, unsigned int order)
{
	__free_pages(page, order);
	pages_freed += 1UL << order;
}

/* zero: only pages not fully overwritten by a copy (the root's PTI half) */
static struct page *ktr_alloc_flags(int nid, unsigned int order, gfp_t extra)
{
	struct page *page;

	alloc_calls++;
	if (fail_alloc && alloc_calls == fail_alloc) {
		pr_info("ktrepl: failing allocation %u as fail_alloc asks\n",
			alloc_calls);
		return NULL;
	}
	page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN |
					     extra,
				order);
	if (page)
		pages_allocated += 1UL << order;
	if (page && page_to_nid(page) != nid) {
		pr_err("ktrepl: asked node %d, got a page on node %d\n", nid,
		       page_to_nid(page));
		ktr_free(page, order);
		return NULL;
	}
	return page;
}

static struct page *ktr_alloc(int nid, unsigned int order)
{
	return ktr_alloc_flags(nid, order, 0);
}

static int pa_node(phys_addr_t pa)
{
	return pfn_valid(PHYS_PFN(pa)) ? page_to_nid(pfn_to_page(PHYS_PFN(pa))) :
					 NUMA_NO_NODE;
}

static struct ktr_chunk *find_chunk(unsigned long va)
{
	int lo = 0, hi = nr_chunks - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		struct ktr_chunk *c = &chunks[mid];

		if (va < c->va)
			hi = mid - 1;
		else if (va - c->va >= (1UL << c->page_shift))
			lo = mid + 1;
		else
			return c;
	}
	return NULL;
}

static phys_addr_t chunk_pa(const struct ktr_chunk *c, int nid)
{
	int mem = nodes[nid].memory_nid;

	if (mem == master_nid || !c->copy[mem])
		return c->master_pa;
	return page_to_phys(c->copy[mem]);
}

/* ---- building ---------------------------------------------------- */

static int collect_chunks(void)
{
	int r, pass;

	/* first pass counts, second fills */
	for (pass = 0; pass < 2; pass++) {
		int n = 0;

		for (r = 0; r < ARRAY_SIZE(regions); r++) {
			unsigned long va = regions[r].start & PAGE_MASK;

			while (va < regions[r].end) {
				int level;
				u64 e = READ_ONCE(*ktr_walk(master_root, va, -1,
							    &level));
				unsigned long size = level_size(level);
				unsigned long base = va & ~(size - 1);

				if (arch->present(e) &&
				    arch->leaf(e, level, geom.levels) &&
				    !(n && chunks && chunks[n - 1].va == base)) {
					if (pass) {
						chunks[n].va = base;
						chunks[n].page_shift = geom.shift[level];
						chunks[n].region = r;
						chunks[n].master_pa =
							e & geom.addr_mask &
							~((u64)size - 1);
					}
					n++;
				}
				va = base + size;
			}
		}
		if (!pass) {
			chunks = kcalloc(n, sizeof(*chunks), GFP_KERNEL);
			if (!chunks)
				return -ENOMEM;
		}
		nr_chunks = n;
	}
	return nr_chunks ? 0 : -ENOENT;
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

static bool any_replica(void)
{
	int nid;

	for_each_online_node(nid)
		if (nodes[nid].own_replica)
			return true;
	return false;
}

static void setup_nodes(void)
{
	int nid;

	for_each_online_node(nid) {
		struct ktr_node *n = &nodes[nid];

		n->nid = nid;
		INIT_LIST_HEAD(&n->tables);
		n->memory_nid = node_state(nid, N_MEMORY) ?
					nid :
					nearest_memory_node(nid);
		n->own_replica = node_state(nid, N_MEMORY) && nid != master_nid;
	}
}

static int alloc_replicas(void)
{
	int i, nid;

	for (i = 0; i < nr_chunks; i++) {
		struct ktr_chunk *c = &chunks[i];

		c->copy = kcalloc(nr_node_ids, sizeof(*c->copy), GFP_KERNEL);
		if (!c->copy)
			return -ENOMEM;
		if (!arch->patch_symbol) {
			c->sums = kcalloc(1U << (c->page_shift - PAGE_SHIFT),
					  sizeof(*c->sums), GFP_KERNEL);
			if (!c->sums)
				return -ENOMEM;
		}
		for_each_online_node(nid) {
			if (!nodes[nid].own_replica)
				continue;
			c->copy[nid] = ktr_alloc(nid, c->page_shift - PAGE_SHIFT);
			if (!c->copy[nid]) {
				pr_err("ktrepl: no memory on node %d for the %s replica at +0x%lx (%lu KiB)\n",
				       nid, regions[c->region].name,
				       c->va - regions[c->region].start,
				       (1UL << c->page_shift) >> 10);
				return -ENOMEM;
			}
			nodes[nid].replica_bytes += 1UL << c->page_shift;
		}
	}
	return 0;
}

static void record_master_sums(void)
{
	int i;
	unsigned int p;

	for (i = 0; i < nr_chunks; i++) {
		if (!chunks[i].sums)
			continue;
		for (p = 0; p < 1U << (chunks[i].page_shift - PAGE_SHIFT); p++)
			chunks[i].sums[p] = xxh64((void *)chunks[i].va +
						  p * PAGE_SIZE, PAGE_SIZE, 0);
	}
}

/*
 * Copy the master's bytes. Under text_mutex (x86) no text_poke can land
 * between the copy and the hook taking over. Where the patching lock is
 * not reachable (arm64 has no text_mutex in kallsyms), a patch whose
 * hook ran before we were ready may reach the master after our copy:
 * compare again until a pass finds nothing to fix.
 */
static int copy_replicas(void)
{
	int i, nid, pass, fixed;

	if (ktr_text_mutex)
		mutex_lock(ktr_text_mutex);
	for (i = 0; i < nr_chunks; i++) {
		for_each_online_node(nid) {
			if (chunks[i].copy && chunks[i].copy[nid])
				memcpy(page_address(chunks[i].copy[nid]),
				       (void *)chunks[i].va,
				       1UL << chunks[i].page_shift);
		}
	}
	record_master_sums();
	WRITE_ONCE(replicas_ready, true);
	if (ktr_text_mutex) {
		mutex_unlock(ktr_text_mutex);
		return 0;
	}
	for (pass = 0; pass < 10; pass++) {
		fixed = 0;
		for (i = 0; i < nr_chunks; i++) {
			for_each_online_node(nid) {
				struct page *p = chunks[i].copy[nid];
				size_t size = 1UL << chunks[i].page_shift;

				if (!p || !memcmp(page_address(p),
						  (void *)chunks[i].va, size))
					continue;
				memcpy(page_address(p), (void *)chunks[i].va,
				       size);
				fixed++;
			}
		}
		if (!fixed)
			return 0;
		msleep(20);
	}
	pr_err("ktrepl: replicas keep changing under the copy\n");
	return -EBUSY;
}

/*
 * The baseline the load time is judged against: the same bytes copied
 * by memcpy into the same (already allocated) node-local pages.
 */
static u64 time_plain_memcpy(void)
{
	u64 t = ktime_get_ns();
	int i, nid;

	for (i = 0; i < nr_chunks; i++)
		for_each_online_node(nid)
			if (chunks[i].copy[nid])
				memcpy(page_address(chunks[i].copy[nid]),
				       (void *)chunks[i].va,
				       1UL << chunks[i].page_shift);
	return ktime_get_ns() - t;
}

/* The direct-map alias of a replica would be a writable alias of text. */
static int protect_replicas(bool ro)
{
	int i, nid, ret;

	for (i = 0; i < nr_chunks; i++) {
		if (!chunks[i].copy)
			continue;
		for_each_online_node(nid) {
			struct page *p = chunks[i].copy[nid];

			if (!p)
				continue;
			ret = (ro ? ktr_set_memory_ro : ktr_set_memory_rw)(
				(unsigned long)page_address(p),
				1 << (chunks[i].page_shift - PAGE_SHIFT));
			if (ret)
				return ret;
		}
	}
	return 0;
}

static struct ktr_table *owned_table(struct ktr_node *n, int level,
				     unsigned long va)
{
	struct ktr_table *t;
	unsigned long base = level ? va & ~(level_size(level - 1) - 1) : 0;

	list_for_each_entry(t, &n->tables, list)
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
	struct ktr_table *t;
	struct page *page;

	if (owned_table(n, level, va))
		return 0;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	page = ktr_alloc(n->nid, 0);
	if (!page) {
		kfree(t);
		pr_err("ktrepl: no memory on node %d for a level-%d table\n",
		       n->nid, level);
		return -ENOMEM;
	}
	memcpy(page_address(page), table_va(*parent), PAGE_SIZE);
	t->page = page;
	t->level = level;
	t->va = va & ~(level_size(level - 1) - 1);
	list_add_tail(&t->list, &n->tables);
	n->table_bytes += PAGE_SIZE;
	WRITE_ONCE(*parent, (*parent & ~geom.addr_mask) | page_to_phys(page));
	return 0;
}

static int build_node_tables(struct ktr_node *n)
{
	int i, l, ret;

	n->root_order = geom.root_order;
	n->root_page = ktr_alloc_flags(n->nid, n->root_order, __GFP_ZERO);
	if (!n->root_page) {
		pr_err("ktrepl: no memory on node %d for its top-level table\n",
		       n->nid);
		return -ENOMEM;
	}
	n->root = page_address(n->root_page);
	memcpy(n->root, master_root, PAGE_SIZE);
	n->table_bytes += PAGE_SIZE << n->root_order;

	for (i = 0; i < nr_chunks; i++) {
		struct ktr_chunk *c = &chunks[i];
		u64 *table = n->root, *e;
		int leaf_level = -1;

		for (l = 0; l < geom.levels; l++)
			if (geom.shift[l] == c->page_shift)
				leaf_level = l;
		if (leaf_level < 0)
			return -EINVAL;
		for (l = 0; l < leaf_level; l++) {
			e = &table[level_index(c->va, l)];
			ret = own_table(n, e, l + 1, c->va);
			if (ret)
				return ret;
			table = table_va(*e);
		}
		e = &table[level_index(c->va, leaf_level)];
		WRITE_ONCE(*e, arch->node_leaf(*e, page_to_phys(c->copy[n->nid])));
	}
	return 0;
}

static void free_node(struct ktr_node *n)
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

/* A kernel-only mm whose tables are the node's set, for kthread_use_mm. */
static struct mm_struct *node_mm(u64 *root, pgd_t **orig)
{
	struct mm_struct *mm = ktr_mm_alloc();

	if (!mm)
		return NULL;
	*orig = mm->pgd;
	mm->pgd = (pgd_t *)root;
	return mm;
}

/* ---- writing replicas -------------------------------------------- */

static int init_slots(void)
{
	int cpu;

	slots = kcalloc(nr_cpu_ids, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ktr_slot *s = &slots[cpu];
		int level;

		s->backing = alloc_page(GFP_KERNEL);
		if (!s->backing)
			return -ENOMEM;
		s->va = vmap(&s->backing, 1, VM_MAP, PAGE_KERNEL);
		if (!s->va)
			return -ENOMEM;
		s->pte = (pte_t *)ktr_walk(master_root, (unsigned long)s->va,
					   -1, &level);
		if (level != geom.levels - 1)
			return -EFAULT;
		s->orig = *s->pte;
	}
	return 0;
}

static void free_slots(void)
{
	int cpu;

	if (!slots)
		return;
	for_each_possible_cpu(cpu) {
		if (slots[cpu].va)
			vunmap(slots[cpu].va);
		if (slots[cpu].backing)
			__free_page(slots[cpu].backing);
	}
	kfree(slots);
	slots = NULL;
}

/*
 * Write len bytes into node nid's replica at va, through this CPU's
 * slot: the replica's direct-map alias stays read-only throughout.
 * src NULL with fill >= 0 means memset. Atomic context is fine.
 */
static void replica_write(int nid, unsigned long va, const void *src,
			  int fill, size_t len)
{
	unsigned long flags;

	local_irq_save(flags);
	while (len) {
		struct ktr_chunk *c = find_chunk(va);
		struct ktr_slot *s = &slots[smp_processor_id()];
		unsigned long off;
		struct page *page;
		size_t n;

		if (!c || !c->copy[nid])
			break;
		off = va - c->va;
		page = c->copy[nid] + (off >> PAGE_SHIFT);
		off &= ~PAGE_MASK;
		n = min_t(size_t, len, PAGE_SIZE - off);
		set_pte(s->pte, mk_pte(page, PAGE_KERNEL));
		arch->flush_local((unsigned long)s->va);
		if (src)
			memcpy(s->va + off, src, n);
		else
			memset(s->va + off, fill, n);
		arch->sync_icache(s->va + off, va, n);
		set_pte(s->pte, s->orig);
		arch->flush_local((unsigned long)s->va);
		va += n;
		len -= n;
		if (src)
			src += n;
	}
	local_irq_restore(flags);
}

static bool in_replicated(unsigned long va, size_t len)
{
	const struct ktr_chunk *first = &chunks[0],
			       *last = &chunks[nr_chunks - 1];

	return va + len > first->va &&
	       va < last->va + (1UL << last->page_shift);
}

static struct ktrepl_provider provider;

static void notify_changed(void)
{
	typeof(provider.changed) fn = READ_ONCE(provider.changed);

	if (fn)
		fn();
}

static void log_patch(unsigned long va, size_t len, unsigned int written,
		      bool propagated)
{
	struct ktrepl_patch_record *rec;
	unsigned long flags;

	raw_spin_lock_irqsave(&log_lock, flags);
	rec = &patch_log_ring[patch_seq % KTR_LOG_SIZE];
	rec->seq = ++patch_seq;
	rec->va = va;
	rec->len = len;
	rec->nodes = written;
	rec->propagated = propagated;
	raw_spin_unlock_irqrestore(&log_lock, flags);
}

/*
 * Runs before the master is written, under text_mutex. Each replica gets
 * the same bytes first, so it is never behind the master in an int3
 * patching sequence.
 */
static int patch_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long va;
	const void *src;
	unsigned int written = 0;
	size_t len;
	bool fill;
	int nid;

	if (!arch->patch_args(regs, &va, &src, &len, &fill) || !len ||
	    !in_replicated(va, len))
		return 0;
	/* before the copy is taken, the copy itself will carry the patch */
	if (!READ_ONCE(replicas_ready))
		return 0;
	if (!READ_ONCE(propagate)) {
		atomic64_inc(&nr_missed);
		log_patch(va, len, 0, false);
		notify_changed();
		return 0;
	}
	for_each_online_node(nid) {
		if (!nodes[nid].own_replica)
			continue;
		if (fill)
			replica_write(nid, va, NULL, *(const int *)src, len);
		else
			replica_write(nid, va, src, -1, len);
		written++;
	}
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
	log_patch(va, len, written, true);
	notify_changed();
	return 0;
}
NOKPROBE_SYMBOL(patch_pre_handler);

/*
 * Sync only the pages whose master contents changed since the last sync:
 * replica-only changes (fault injection) are left for the tools to find.
 */
static DEFINE_MUTEX(sync_lock);

static void sync_changed_fn(struct work_struct *work)
{
	unsigned int p;
	int i, nid;

	if (!READ_ONCE(replicas_ready))
		return;
	/* the hooked and the periodic sync share the per-page sums */
	mutex_lock(&sync_lock);
	for (i = 0; i < nr_chunks; i++) {
		for (p = 0; p < 1U << (chunks[i].page_shift - PAGE_SHIFT); p++) {
			void *master = (void *)chunks[i].va + p * PAGE_SIZE;
			u64 sum = xxh64(master, PAGE_SIZE, 0);
			unsigned int written = 0;
			size_t first = PAGE_SIZE, last = 0, b;

			if (sum == chunks[i].sums[p])
				continue;
			chunks[i].sums[p] = sum;
			if (!READ_ONCE(propagate)) {
				atomic64_inc(&nr_missed);
				log_patch((unsigned long)master, PAGE_SIZE, 0, false);
				continue;
			}
			for_each_online_node(nid) {
				u8 *copy;

				if (!chunks[i].copy[nid])
					continue;
				copy = page_address(chunks[i].copy[nid] + p);
				for (b = 0; b < PAGE_SIZE; b++) {
					if (copy[b] == ((u8 *)master)[b])
						continue;
					first = min(first, b);
					last = max(last, b);
				}
				replica_write(nid, (unsigned long)master, master,
					      -1, PAGE_SIZE);
				written++;
			}
			if (first <= last) {
				atomic64_inc(&nr_patches);
				atomic64_add(last - first + 1, &nr_patch_bytes);
				log_patch((unsigned long)master + first,
					  last - first + 1, written, true);
			}
		}
		cond_resched();
	}
	mutex_unlock(&sync_lock);
	notify_changed();
}

static int sync_ret_handler(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	schedule_work(&sync_work);
	return 0;
}
NOKPROBE_SYMBOL(sync_ret_handler);

static int register_sync_probes(void)
{
	int ret;

	for (nr_sync_probes = 0; arch->sync_symbols[nr_sync_probes] &&
				 nr_sync_probes < KTR_MAX_SYNC_HOOKS;
	     nr_sync_probes++) {
		struct kretprobe *rp = &sync_probes[nr_sync_probes];

		memset(rp, 0, sizeof(*rp));
		rp->kp.symbol_name = arch->sync_symbols[nr_sync_probes];
		rp->handler = sync_ret_handler;
		rp->maxactive = 4;
		ret = register_kretprobe(rp);
		if (ret) {
			pr_err("ktrepl: cannot hook %s for patch sync: %d\n",
			       rp->kp.symbol_name, ret);
			return ret;
		}
	}
	return 0;
}

static void unregister_sync_probes(void)
{
	WRITE_ONCE(periodic_on, false);
	cancel_delayed_work_sync(&periodic_sync);
	while (nr_sync_probes > 0)
		unregister_kretprobe(&sync_probes[--nr_sync_probes]);
	cancel_work_sync(&sync_work);
}

/* ---- workload ---------------------------------------------------- */

static void flush_replicated_local(void)
{
	int i;

	for (i = 0; i < nr_chunks; i++)
		arch->flush_local(chunks[i].va);
}

static bool is_node_root(phys_addr_t pa)
{
	int nid;

	for_each_online_node(nid)
		if (nodes[nid].root && __pa(nodes[nid].root) == pa)
			return true;
	return false;
}

/*
 * Back on a CPU where other tasks ran on the master's tables: their
 * global TLB entries for the text survive the CR3 switch.
 */
static void worker_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct ktr_node *n = container_of(pn, struct ktr_node, preempt);

	n->worker_needs_flush = true;
}

/*
 * A kernel thread switched in after the worker would keep the worker's
 * tables loaded (lazy TLB) and run on them unseen. Moving the CPU to the
 * master's tables here keeps the rule ktrepl-top resolves samples by
 * exact: only a listed worker ever runs on a node's tables.
 */
static void worker_sched_out(struct preempt_notifier *pn,
			     struct task_struct *next)
{
	if (!next->mm && is_node_root(arch->read_root()))
		arch->leave_root();
}

static struct preempt_ops worker_preempt_ops = {
	.sched_in = worker_sched_in,
	.sched_out = worker_sched_out,
};

/*
 * Executes core-kernel text (hashing, int_sqrt) under its node's tables
 * (or the master's, in master mode). Each burst runs with preemption off,
 * after dropping this CPU's TLB entries for the replicated ranges if other
 * tasks ran here since the last one, so every fetch in the burst is
 * translated through the loaded tables;
 * interrupts stay on so that sampling profilers see the burst. Nearly all
 * of its time is in core text: the loop around it is module text, which
 * is not replicated.
 */
static int workload_fn(void *arg)
{
	struct ktr_node *n = arg;
	struct ktr_node *mem = &nodes[n->memory_nid];
	struct mm_struct *mm = master_mm;
	unsigned long acc = 0;
	void *buf;
	int i;

	buf = kzalloc_node(KTR_WORKLOAD_BUF, GFP_KERNEL, n->memory_nid);
	if (!buf)
		return -ENOMEM;
	if (workload_mode == KTREPL_WORKLOAD_NODE && mem->mm)
		mm = mem->mm;
	/*
	 * Where tables cannot be switched (arm64: TTBR1 is global), there is
	 * no mm to run on: the worker stays a plain kernel thread.
	 */
	if (mm) {
		preempt_notifier_init(&n->preempt, &worker_preempt_ops);
		preempt_notifier_register(&n->preempt);
		kthread_use_mm(mm);
	}
	n->worker_needs_flush = true;
	WRITE_ONCE(n->worker_since, local_clock());
	while (!kthread_should_stop()) {
		preempt_disable();
		if (n->worker_needs_flush) {
			n->worker_needs_flush = false;
			flush_replicated_local();
		}
		n->worker_root = arch->read_root();
		n->worker_cpu = smp_processor_id();
		for (i = 0; i < 16; i++) {
			acc += xxh64(buf, KTR_WORKLOAD_BUF, i);
			acc += crc32_le(i, buf, KTR_WORKLOAD_BUF);
			acc += int_sqrt(KTR_WORKLOAD_PROBE + i);
		}
		WRITE_ONCE(n->probe, int_sqrt(KTR_WORKLOAD_PROBE));
		WRITE_ONCE(n->iterations, n->iterations + 1);
		preempt_enable();
		cond_resched();
	}
	if (mm) {
		kthread_unuse_mm(mm);
		/* leave this CPU's lazy mm on the master's tables */
		if (mm != master_mm) {
			kthread_use_mm(master_mm);
			kthread_unuse_mm(master_mm);
		}
		preempt_notifier_unregister(&n->preempt);
	}
	kfree(buf);
	return acc == 1;	/* keeps the loop from being optimised away */
}

static void release_cpu(void *unused)
{
	if (is_node_root(arch->read_root()))
		arch->release_cpu();
}

static void workload_stop_locked(void)
{
	int nid;

	for_each_online_node(nid) {
		if (nodes[nid].worker) {
			kthread_stop(nodes[nid].worker);
			put_task_struct(nodes[nid].worker);
			nodes[nid].worker = NULL;
		}
	}
	/*
	 * A CPU the worker left may still be in lazy-TLB mode on the
	 * node's mm, its CR3 on our tables: move it off before they go.
	 */
	if (workload_mode != KTREPL_WORKLOAD_STOP)
		on_each_cpu(release_cpu, NULL, 1);
	workload_mode = KTREPL_WORKLOAD_STOP;
}

static int workload_ctl(enum ktrepl_workload_mode mode)
{
	int nid, ret = 0;

	if (mode > KTREPL_WORKLOAD_MASTER)
		return -EINVAL;
	mutex_lock(&workload_lock);
	if (mode == KTREPL_WORKLOAD_STOP || workload_mode == mode) {
		if (mode == KTREPL_WORKLOAD_STOP)
			workload_stop_locked();
		mutex_unlock(&workload_lock);
		notify_changed();
		return 0;
	}
	/* switching between node and master tables restarts the workers */
	workload_stop_locked();
	workload_mode = mode;
	for_each_online_node(nid) {
		const struct cpumask *mask = cpumask_of_node(nid);
		struct task_struct *t;

		if (cpumask_empty(mask))
			continue;
		t = kthread_create_on_node(workload_fn, &nodes[nid], nid,
					   "ktrepl_work/%d", nid);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		get_task_struct(t);
		set_cpus_allowed_ptr(t, mask);
		nodes[nid].iterations = 0;
		nodes[nid].worker_since = 0;
		nodes[nid].worker = t;
		wake_up_process(t);
	}
	if (ret)
		workload_stop_locked();
	mutex_unlock(&workload_lock);
	notify_changed();
	return ret;
}

static enum ktrepl_workload_mode get_workload_mode(void)
{
	return READ_ONCE(workload_mode);
}

static unsigned long master_probe(void)
{
	return int_sqrt(KTR_WORKLOAD_PROBE);
}

static phys_addr_t read_root(void)
{
	return arch->read_root();
}

/* ---- fault injection (tests only) -------------------------------- */

static u64 *node_leaf_entry(int nid, unsigned long va, int *level)
{
	struct ktr_node *n = &nodes[nodes[nid].memory_nid];

	if (!n->root)
		return NULL;
	return ktr_walk(n->root, va, -1, level);
}

/* the number after " key" in a "verb key=value key=value" command */
static int inject_parse(const char *cmd, const char *key, unsigned long *val)
{
	const char *p = strstr(cmd, key);
	char num[24];
	size_t len;

	if (!p)
		return -EINVAL;
	p += strlen(key);
	len = strcspn(p, "\n ");
	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, p, len);
	num[len] = '\0';
	return kstrtoul(num, 0, val);
}

static int inject(const char *cmd)
{
	unsigned long nid, va = 0, to, value, off;
	int level, len;
	u8 insn[16];
	u64 *e;

	if (inject_parse(cmd, "node=", &nid) || nid >= nr_node_ids ||
	    !node_online(nid) || !nodes[nodes[nid].memory_nid].own_replica)
		return -EINVAL;
	nid = nodes[nid].memory_nid;
	if (strstr(cmd, "sym=")) {
		char name[KSYM_NAME_LEN];

		if (sscanf(strstr(cmd, "sym="), "sym=%127s", name) != 1)
			return -EINVAL;
		va = ktr_ksym(name);
		if (!va)
			return -ENOENT;
		/* off= may be negative: "sym=_etext off=-1" is text's last byte */
		if (!inject_parse(cmd, "off=", &off))
			va += off;
		else if (!inject_parse(cmd, "off=-", &off))
			va -= off;
	} else if (inject_parse(cmd, "va=", &va) && !str_has_prefix(cmd, "pgd")) {
		return -EINVAL;
	}
	if (!str_has_prefix(cmd, "pgd") && !find_chunk(va))
		return -ERANGE;

	if (str_has_prefix(cmd, "flip ")) {
		u8 b = *(u8 *)(page_address(find_chunk(va)->copy[nid]) +
			       (va - find_chunk(va)->va)) ^ 0xff;

		replica_write(nid, va, &b, -1, 1);
		return 0;
	}
	if (str_has_prefix(cmd, "retval ")) {
		if (inject_parse(cmd, "value=", &value))
			return -EINVAL;
		len = arch->retval_insn(insn, sizeof(insn), value);
		if (len < 0)
			return len;
		replica_write(nid, va, insn, -1, len);
		return 0;
	}
	if (str_has_prefix(cmd, "trap ")) {
		len = arch->trap_insn(insn, sizeof(insn));
		if (len < 0)
			return len;
		replica_write(nid, va, insn, -1, len);
		return 0;
	}
	if (str_has_prefix(cmd, "remap ")) {
		struct ktr_chunk *c = find_chunk(va);

		if (inject_parse(cmd, "to=", &to) || to >= nr_node_ids ||
		    !node_online(to))
			return -EINVAL;
		e = node_leaf_entry(nid, va, &level);
		WRITE_ONCE(*e, (*e & ~geom.addr_mask) | chunk_pa(c, to));
		return 0;
	}
	if (str_has_prefix(cmd, "writable ")) {
		e = node_leaf_entry(nid, va, &level);
		WRITE_ONCE(*e, arch->make_writable(*e));
		return 0;
	}
	if (str_has_prefix(cmd, "pgd ")) {
		u64 *root = nodes[nid].root;
		unsigned int i;

		/* the first present kernel-half entry we did not replace */
		for (i = geom.kernel_first; i < (1U << geom.bits[0]); i++) {
			if (arch->present(root[i]) && root[i] == master_root[i]) {
				WRITE_ONCE(root[i], arch->mark_shared_entry(root[i]));
				return 0;
			}
		}
		return -ENOENT;
	}
	return -EINVAL;
}

/* ---- provider ---------------------------------------------------- */

static int memory_node(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !node_online(nid))
		return NUMA_NO_NODE;
	return nodes[nid].memory_nid;
}

static int visit_extents(int nid, int region,
			 int (*fn)(const struct ktrepl_extent *ext, void *arg),
			   void *arg)
{
	struct ktrepl_extent ext = { 0 };
	int i, ret;

	for (i = 0; i < nr_chunks; i++) {
		const struct ktr_chunk *c = &chunks[i];
		phys_addr_t pa = chunk_pa(c, nid);
		unsigned long size = 1UL << c->page_shift;

		if (c->region != region)
			continue;
		/* coalesce runs contiguous in both VA and PA */
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
		ext.va = c->va;
		ext.pa = pa;
		ext.size = size;
		ext.page_shift = c->page_shift;
	}
	return ext.size ? fn(&ext, arg) : 0;
}

static phys_addr_t node_root(int nid)
{
	int mem = memory_node(nid);

	if (mem == NUMA_NO_NODE)
		return 0;
	if (!nodes[mem].root)
		return __pa(master_root);
	return __pa(nodes[mem].root);
}

static u64 *root_of(int nid)
{
	int mem = memory_node(nid);

	return mem != NUMA_NO_NODE && nodes[mem].root ? nodes[mem].root :
							 master_root;
}

/* The leaf each replicated chunk has in nid's tables, one per chunk. */
static int visit_mappings(int nid,
			  int (*fn)(const struct ktrepl_mapping *m, void *arg),
			    void *arg)
{
	struct ktr_node *mem;
	u64 *root;
	int i, ret;

	if (memory_node(nid) == NUMA_NO_NODE)
		return -EINVAL;
	mem = &nodes[memory_node(nid)];
	root = root_of(nid);
	for (i = 0; i < nr_chunks; i++) {
		struct ktrepl_mapping m = { .va = chunks[i].va, .shared = true };
		u64 *table = root, v = 0;
		int l;

		for (l = 0; l < geom.levels; l++) {
			v = READ_ONCE(table[level_index(m.va, l)]);
			if (!arch->present(v) || arch->leaf(v, l, geom.levels))
				break;
			/* private all the way down unless a master page is met */
			if (l + 1 < geom.levels && mem->root &&
			    owned_table(mem, l + 1, m.va))
				m.shared = false;
			else
				m.shared = true;
			table = table_va(v);
		}
		if (l == geom.levels)
			l = geom.levels - 1;
		m.level = l;
		m.size = level_size(l);
		m.entry = v;
		m.present = arch->present(v);
		if (m.present) {
			m.pa = v & geom.addr_mask & ~((u64)m.size - 1);
			m.writable = arch->writable(v, l);
			m.executable = arch->executable(v, l);
			m.global = arch->global(v, l);
		}
		ret = fn(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static bool owns_page(struct ktr_node *n, u64 entry)
{
	struct ktr_table *t;

	list_for_each_entry(t, &n->tables, list)
		if (page_to_phys(t->page) == (entry & geom.addr_mask))
			return true;
	return false;
}

static int root_diff(int nid, unsigned int *own, unsigned int *differ)
{
	u64 *root = root_of(nid);
	unsigned int i;

	*own = 0;
	*differ = 0;
	if (root == master_root)
		return 0;
	for (i = geom.kernel_first; i < (1U << geom.bits[0]); i++) {
		if (root[i] == master_root[i])
			continue;
		if (owns_page(&nodes[memory_node(nid)], root[i]))
			(*own)++;
		else
			(*differ)++;
	}
	return 0;
}

static u64 overhead_bytes(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !node_online(nid))
		return 0;
	return nodes[nid].replica_bytes + nodes[nid].table_bytes;
}

static void patch_counters(u64 *patches, u64 *bytes, u64 *missed,
			   bool *prop)
{
	*patches = atomic64_read(&nr_patches);
	*bytes = atomic64_read(&nr_patch_bytes);
	*missed = atomic64_read(&nr_missed);
	*prop = READ_ONCE(propagate);
}

/* a pending sync belongs to patches already made: finish it */
static void flush_sync(void)
{
	flush_work(&sync_work);
}

static int patch_log(struct ktrepl_patch_record *recs, int max)
{
	unsigned long flags;
	u64 first, s;
	int n = 0;

	raw_spin_lock_irqsave(&log_lock, flags);
	first = patch_seq > KTR_LOG_SIZE ? patch_seq - KTR_LOG_SIZE : 0;
	if (patch_seq - first > max)
		first = patch_seq - max;
	for (s = first; s < patch_seq; s++)
		recs[n++] = patch_log_ring[s % KTR_LOG_SIZE];
	raw_spin_unlock_irqrestore(&log_lock, flags);
	return n;
}

static int tasks(struct ktrepl_task_record *recs, int max)
{
	int nid, n = 0;

	mutex_lock(&workload_lock);
	for_each_online_node(nid) {
		struct ktr_node *node = &nodes[nid];
		struct ktrepl_task_record *r;

		if (!node->worker || n >= max)
			continue;
		r = &recs[n++];
		r->pid = task_pid_nr(node->worker);
		get_task_comm(r->comm, node->worker);
		r->node = nid;
		r->cpu = READ_ONCE(node->worker_cpu);
		r->root_pa = READ_ONCE(node->worker_root);
		r->runs_on_pa = workload_mode == KTREPL_WORKLOAD_NODE &&
				nodes[node->memory_nid].mm ?
				__pa(nodes[node->memory_nid].root) :
				__pa(master_root);
		r->since_ns = READ_ONCE(node->worker_since);
		r->on_master = workload_mode == KTREPL_WORKLOAD_MASTER;
		r->iterations = READ_ONCE(node->iterations);
		r->probe = READ_ONCE(node->probe);
	}
	mutex_unlock(&workload_lock);
	return n;
}

static struct ktrepl_provider provider = {
	.name = "ktrepl-engine",
	.memory_node = memory_node,
	.nr_regions = ARRAY_SIZE(regions),
	.regions = regions,
	.for_each_extent = visit_extents,
	.node_root = node_root,
	.for_each_mapping = visit_mappings,
	.root_diff = root_diff,
	.overhead_bytes = overhead_bytes,
	.patch_counters = patch_counters,
	.flush = flush_sync,
	.patch_log = patch_log,
	.tasks = tasks,
	.workload_ctl = workload_ctl,
	.workload_mode = get_workload_mode,
	.master_probe = master_probe,
	.read_root = read_root,
};

struct ktrepl_provider *ktr_engine_provider(void)
{
	return &provider;
}

/* ---- init / exit ------------------------------------------------- */

/*
 * Where kallsyms has no data symbols (arm64 without KALLSYMS_ALL), the
 * rodata segment is the run of present, read-only, non-executable
 * mappings that follows text in the master's own tables.
 */
static unsigned long rodata_end_from_mappings(unsigned long start)
{
	unsigned long va = start;
	int n = 0;

	while (n++ < (1 << 20)) {
		int level;
		u64 e = READ_ONCE(*ktr_walk(master_root, va, -1, &level));

		if (!arch->present(e) || arch->writable(e, level) ||
		    arch->executable(e, level))
			break;
		va = (va & ~(level_size(level) - 1)) + level_size(level);
	}
	return va;
}

static int resolve_symbols(void)
{
	regions[0] = (struct ktrepl_region){
		.name = "text",
		.start = ktr_ksym("_stext"),
		.end = ktr_ksym("_etext"),
	};
	regions[1] = (struct ktrepl_region){
		.name = "rodata",
		.start = ktr_ksym_quiet("__start_rodata"),
		.end = ktr_ksym_quiet("__end_rodata"),
	};
	if (!regions[0].start || !regions[0].end)
		return -ENOENT;
	if (!regions[1].start || !regions[1].end) {
		regions[1].start = PAGE_ALIGN(regions[0].end);
		regions[1].end = rodata_end_from_mappings(regions[1].start);
		pr_info("ktrepl: rodata taken from the master's mappings: %lu KiB after text\n",
			(regions[1].end - regions[1].start) >> 10);
		if (regions[1].end == regions[1].start)
			return -ENOENT;
	}
	ktr_text_mutex = (void *)ktr_ksym_quiet("text_mutex");
	if (arch->protect_alias) {
		ktr_set_memory_ro = (void *)ktr_ksym("set_memory_ro");
		ktr_set_memory_rw = (void *)ktr_ksym("set_memory_rw");
		if (!ktr_set_memory_ro || !ktr_set_memory_rw)
			return -ENOENT;
	}
	if (arch->can_activate) {
		ktr_mm_alloc = (void *)ktr_ksym("mm_alloc");
		if (!ktr_mm_alloc)
			return -ENOENT;
	}
	return 0;
}

void ktr_engine_exit(void)
{
	int nid;

	if (nodes) {
		mutex_lock(&workload_lock);
		workload_stop_locked();
		mutex_unlock(&workload_lock);
	}
	if (notifiers_on) {
		preempt_notifier_dec();
		notifiers_on = false;
	}
	if (kprobe_registered) {
		unregister_kprobe(&patch_kprobe);
		kprobe_registered = false;
	}
	unregister_sync_probes();
	free_slots();
	if (master_mm) {
		master_mm->pgd = master_mm_orig_pgd;
		mmput(master_mm);
		master_mm = NULL;
	}
	if (nodes)
		for_each_online_node(nid)
			free_node(&nodes[nid]);
	if (chunks) {
		int i;

		if (arch->protect_alias)
			WARN_ON(protect_replicas(false));
		for (i = 0; i < nr_chunks; i++) {
			if (!chunks[i].copy)
				continue;
			for_each_online_node(nid)
				if (chunks[i].copy[nid])
					ktr_free(chunks[i].copy[nid],
						 chunks[i].page_shift - PAGE_SHIFT);
			kfree(chunks[i].copy);
			kfree(chunks[i].sums);
		}
		kfree(chunks);
	}
	chunks = NULL;
	nr_chunks = 0;
	kfree(nodes);
	nodes = NULL;
	replicas_ready = false;
	if (pages_allocated)
		pr_info("ktrepl: freed %lu of %lu pages allocated\n",
			pages_freed, pages_allocated);
	pages_allocated = 0;
	pages_freed = 0;
}

int ktr_engine_init(void)
{
	struct ktr_chunk *first;
	u64 t_start = ktime_get_ns(), t_replicate = 0, t_hook = 0;
	int nid, ret;

#if defined(CONFIG_X86_64)
	arch = &ktr_arch_x86;
#elif defined(CONFIG_ARM64)
	arch = &ktr_arch_arm64;
#endif
	arch->geometry(&geom);
	provider.paging_levels = geom.levels;
	provider.va_bits = geom.shift[0] + geom.bits[0];
	provider.page_shift = PAGE_SHIFT;
	alloc_calls = 0;

	ret = ktr_ksym_init();
	if (ret)
		return ret;
	provider.master_root = arch->master_root();
	if (!provider.master_root)
		return -ENOENT;
	master_root = __va(provider.master_root);
	ret = resolve_symbols();
	if (ret)
		return ret;

	nodes = kcalloc(nr_node_ids, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	ret = collect_chunks();
	if (ret)
		goto fail;
	first = find_chunk(regions[0].start);
	master_nid = first ? pa_node(first->master_pa +
				     (regions[0].start - first->va)) :
			     NUMA_NO_NODE;
	if (master_nid == NUMA_NO_NODE) {
		ret = -EFAULT;
		goto fail;
	}
	provider.master_node = master_nid;
	setup_nodes();
	if (!any_replica()) {
		provider.activation = activation = KTREPL_ACT_NONE;
		pr_info("ktrepl: one memory node, nothing to replicate\n");
		return 0;
	}

	ret = init_slots();
	if (ret)
		goto fail;
	t_replicate = ktime_get_ns();
	ret = alloc_replicas();
	if (ret)
		goto fail;
	t_hook = ktime_get_ns();
	if (arch->patch_symbol) {
		patch_kprobe.symbol_name = arch->patch_symbol;
		patch_kprobe.pre_handler = patch_pre_handler;
		ret = register_kprobe(&patch_kprobe);
		if (ret) {
			pr_err("ktrepl: cannot hook %s for patch propagation: %d\n",
			       arch->patch_symbol, ret);
			goto fail;
		}
		kprobe_registered = true;
	} else {
		ret = register_sync_probes();
		if (ret)
			goto fail;
		WRITE_ONCE(periodic_on, true);
		if (sync_period_ms)
			schedule_delayed_work(&periodic_sync,
					      msecs_to_jiffies(sync_period_ms));
	}
	t_hook = ktime_get_ns() - t_hook;
	if (bench) {
		u64 t = ktime_get_ns();

		time_plain_memcpy();	/* warm up, as the real copy will be */
		provider.memcpy_ns = time_plain_memcpy();
		t_replicate += ktime_get_ns() - t;	/* not ours to count */
	}
	/*
	 * Workers need preemption notifiers, whose static key would be a
	 * patch made later; enabled before the copy, every replica has it
	 * even with propagate=0.
	 */
	if (arch->can_activate) {
		preempt_notifier_inc();
		notifiers_on = true;
	}
	ret = copy_replicas();
	if (!ret && arch->protect_alias)
		ret = protect_replicas(true);
	if (ret)
		goto fail;
	for_each_online_node(nid) {
		struct ktr_node *n = &nodes[nid];

		if (!n->own_replica)
			continue;
		ret = build_node_tables(n);
		if (ret)
			goto fail;
		if (arch->can_activate) {
			n->mm = node_mm(n->root, &n->mm_orig_pgd);
			if (!n->mm) {
				ret = -ENOMEM;
				goto fail;
			}
		}
	}
	if (arch->can_activate) {
		master_mm = node_mm(master_root, &master_mm_orig_pgd);
		if (!master_mm) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	activation = arch->can_activate ? KTREPL_ACT_WORKLOAD :
					  KTREPL_ACT_INACTIVE;
	provider.allocations = alloc_calls;
	provider.load_ns = ktime_get_ns() - t_start;
	/* building the replicas and tables, without hooking the patcher */
	provider.replicate_ns = ktime_get_ns() - t_replicate - t_hook;
	provider.hook_ns = t_hook;
	provider.activation = activation;
	if (fault_inject)
		provider.inject = inject;
	return 0;
fail:
	ktr_engine_exit();
	return ret;
}
