// SPDX-License-Identifier: GPL-2.0
/*
 * Patch propagation: every runtime write to the master's text reaches
 * every replica.
 *
 * x86_64: a kprobe on __text_poke writes each replica before the master
 * (so no replica is ever behind the master in an int3 sequence). Context:
 * the kprobe pre-handler, under text_mutex, interrupts on or off.
 *
 * arm64: the instruction writers cannot be kprobed, so the master pages
 * that changed (per-page xxhash) are synced into the replicas from a
 * work item when the hookable patching entry points return, and every
 * sync_period_ms for ftrace. Context: process (workqueue), sync_lock.
 *
 * Replica bytes are written through a per-CPU temporary mapping, so the
 * replicas' direct-map alias stays read-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xxhash.h>

#include "engine.h"

static bool propagate = true;
module_param(propagate, bool, 0600);
MODULE_PARM_DESC(propagate, "copy runtime text patches into every replica (default 1)");

/*
 * Writers nobody can hook (ftrace's own on arm64) are caught by a
 * periodic sync of changed master pages; 0 turns it off.
 */
static unsigned int sync_period_ms = 1000;
module_param(sync_period_ms, uint, 0600);
MODULE_PARM_DESC(sync_period_ms, "where patches cannot be hooked: sync changed text this often (ms, 0 = off)");

#define KTR_LOG_SIZE 256
#define KTR_MAX_SYNC_HOOKS 8

/* counters and log: written by the hook or the sync, read by debugfs */
static atomic64_t nr_patches, nr_patch_bytes, nr_missed;
static DEFINE_RAW_SPINLOCK(log_lock);
static struct ktrepl_patch_record patch_log_ring[KTR_LOG_SIZE];
static u64 patch_seq;	/* under log_lock */

static bool kprobe_registered;
static struct kprobe patch_kprobe;
static struct kretprobe sync_probes[KTR_MAX_SYNC_HOOKS];
static int nr_sync_probes;
static bool periodic_on;
/* the hooked and the periodic sync share the per-page sums */
static DEFINE_MUTEX(sync_lock);

static void sync_changed_fn(struct work_struct *work);
static DECLARE_WORK(sync_work, sync_changed_fn);
static void periodic_sync_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(periodic_sync, periodic_sync_fn);

/* one temporary writable mapping per CPU, like text_poke's poking_mm */
struct ktr_slot {
	struct page *backing;
	void *va;
	pte_t *pte;
	pte_t orig;
};

static struct ktr_slot *slots;	/* [nr_cpu_ids] */

int ktr_patch_init(void)
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
		s->pte = (pte_t *)ktr_walk(ktr.master_root,
					   (unsigned long)s->va, -1, &level);
		if (level != ktr.geom.levels - 1) {
			pr_err("a vmap slot is not mapped by a PTE\n");
			return -EINVAL;
		}
		s->orig = *s->pte;
	}
	return 0;
}

void ktr_patch_free(void)
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
void ktr_replica_write(int nid, unsigned long va, const void *src, int fill,
		       size_t len)
{
	unsigned long flags;

	local_irq_save(flags);
	while (len) {
		struct ktr_chunk *c = ktr_find_chunk(va);
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
		ktr_arch.flush_local((unsigned long)s->va);
		if (src)
			memcpy(s->va + off, src, n);
		else
			memset(s->va + off, fill, n);
		ktr_arch.sync_icache(s->va + off, va, n);
		set_pte(s->pte, s->orig);
		ktr_arch.flush_local((unsigned long)s->va);
		va += n;
		len -= n;
		if (src)
			src += n;
	}
	local_irq_restore(flags);
}

static bool in_replicated(unsigned long va, size_t len)
{
	const struct ktr_chunk *first = &ktr.chunks[0],
			       *last = &ktr.chunks[ktr.nr_chunks - 1];

	return va + len > first->va && va < last->va + ktr_chunk_size(last);
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
	unsigned int written = 0;
	unsigned long va;
	const void *src;
	size_t len;
	bool fill;
	int nid;

	if (!ktr_arch.patch_args(regs, &va, &src, &len, &fill) || !len ||
	    !in_replicated(va, len))
		return 0;
	/* before the copy is taken, the copy itself will carry the patch */
	if (!READ_ONCE(ktr.replicas_ready))
		return 0;
	if (!READ_ONCE(propagate)) {
		atomic64_inc(&nr_missed);
		log_patch(va, len, 0, false);
		ktr_notify_changed(false);
		return 0;
	}
	for_each_online_node(nid) {
		if (!ktr.nodes[nid].own_replica)
			continue;
		if (fill)
			ktr_replica_write(nid, va, NULL, *(const int *)src, len);
		else
			ktr_replica_write(nid, va, src, -1, len);
		written++;
	}
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
	log_patch(va, len, written, true);
	ktr_notify_changed(false);
	return 0;
}
NOKPROBE_SYMBOL(patch_pre_handler);

/* Bring one changed master page into every replica; log what differed. */
static void sync_page(struct ktr_chunk *c, unsigned int p)
{
	void *master = (void *)c->va + p * PAGE_SIZE;
	size_t first = PAGE_SIZE, last = 0, b;
	unsigned int written = 0;
	int nid;

	if (!READ_ONCE(propagate)) {
		atomic64_inc(&nr_missed);
		log_patch((unsigned long)master, PAGE_SIZE, 0, false);
		return;
	}
	for_each_replica(c, nid) {
		u8 *copy = page_address(c->copy[nid] + p);

		for (b = 0; b < PAGE_SIZE; b++) {
			if (copy[b] == ((u8 *)master)[b])
				continue;
			first = min(first, b);
			last = max(last, b);
		}
		ktr_replica_write(nid, (unsigned long)master, master, -1,
				  PAGE_SIZE);
		written++;
	}
	if (first <= last) {
		atomic64_inc(&nr_patches);
		atomic64_add(last - first + 1, &nr_patch_bytes);
		log_patch((unsigned long)master + first, last - first + 1,
			  written, true);
	}
}

/*
 * Sync only the pages whose master contents changed since the last sync:
 * replica-only changes (fault injection) are left for the tools to find.
 */
static void sync_changed_fn(struct work_struct *work)
{
	unsigned int p;
	int i;

	if (!READ_ONCE(ktr.replicas_ready))
		return;
	mutex_lock(&sync_lock);
	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktr_chunk *c = &ktr.chunks[i];

		for (p = 0; p < 1U << ktr_chunk_order(c); p++) {
			u64 sum = xxh64((void *)c->va + p * PAGE_SIZE,
					PAGE_SIZE, 0);

			if (sum == c->sums[p])
				continue;
			c->sums[p] = sum;
			sync_page(c, p);
		}
		cond_resched();
	}
	mutex_unlock(&sync_lock);
	ktr_notify_changed(true);
}

static void periodic_sync_fn(struct work_struct *work)
{
	unsigned int period = READ_ONCE(sync_period_ms);

	sync_changed_fn(NULL);
	if (period && READ_ONCE(periodic_on))
		schedule_delayed_work(&periodic_sync, msecs_to_jiffies(period));
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
	const char *const *syms = ktr_arch.sync_symbols;
	int ret;

	for (nr_sync_probes = 0;
	     syms[nr_sync_probes] && nr_sync_probes < KTR_MAX_SYNC_HOOKS;
	     nr_sync_probes++) {
		struct kretprobe *rp = &sync_probes[nr_sync_probes];

		memset(rp, 0, sizeof(*rp));
		rp->kp.symbol_name = syms[nr_sync_probes];
		rp->handler = sync_ret_handler;
		rp->maxactive = 4;
		ret = register_kretprobe(rp);
		if (ret) {
			pr_err("cannot hook %s for patch sync: %d\n",
			       rp->kp.symbol_name, ret);
			return ret;
		}
	}
	WRITE_ONCE(periodic_on, true);
	if (sync_period_ms)
		schedule_delayed_work(&periodic_sync,
				      msecs_to_jiffies(sync_period_ms));
	return 0;
}

int ktr_patch_start(void)
{
	int ret;

	if (!ktr_arch.patch_symbol)
		return register_sync_probes();
	patch_kprobe.symbol_name = ktr_arch.patch_symbol;
	patch_kprobe.pre_handler = patch_pre_handler;
	ret = register_kprobe(&patch_kprobe);
	if (ret) {
		pr_err("cannot hook %s for patch propagation: %d\n",
		       ktr_arch.patch_symbol, ret);
		return ret;
	}
	kprobe_registered = true;
	return 0;
}

/*
 * After this returns no handler runs and no sync is queued or running,
 * so nothing calls back into the publisher any more.
 */
void ktr_patch_stop(void)
{
	if (kprobe_registered) {
		/* waits for running handlers (synchronize_rcu inside) */
		unregister_kprobe(&patch_kprobe);
		kprobe_registered = false;
	}
	WRITE_ONCE(periodic_on, false);
	cancel_delayed_work_sync(&periodic_sync);
	while (nr_sync_probes > 0)
		unregister_kretprobe(&sync_probes[--nr_sync_probes]);
	cancel_work_sync(&sync_work);
}

/*
 * missed: patches no replica got. Besides those made with propagate=0,
 * the kprobe itself counts the calls it could not handle (nested in
 * another kprobe, or ftrace recursion for an ftrace-based probe): each
 * is a write the master got and the replicas did not.
 */
void ktr_patch_counters(u64 *patches, u64 *bytes, u64 *missed, bool *prop)
{
	*patches = atomic64_read(&nr_patches);
	*bytes = atomic64_read(&nr_patch_bytes);
	*missed = atomic64_read(&nr_missed) +
		  (kprobe_registered ? READ_ONCE(patch_kprobe.nmissed) : 0);
	*prop = READ_ONCE(propagate);
}

/* a pending sync belongs to patches already made: finish it */
void ktr_patch_flush(void)
{
	flush_work(&sync_work);
}

int ktr_patch_log(struct ktrepl_patch_record *recs, int max)
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
