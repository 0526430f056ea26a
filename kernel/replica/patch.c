// SPDX-License-Identifier: GPL-2.0
/*
 * Patch propagation: every runtime write to the master's text reaches
 * every replica inside the writer's own synchronisation window.
 *
 * x86_64: a kretprobe on __text_poke writes each replica before the
 * master (so no replica is ever behind the master in an int3 sequence).
 * Context: its entry handler, under text_mutex, interrupts on or off.
 *
 * arm64: every post-boot core-text write (jump labels, ftrace, kprobes)
 * funnels through __aarch64_insn_write(), which kprobes refuse but
 * ftrace can hook. The ftrace handler takes the write over: it writes
 * the master, then every replica, cleans each copy to the point of
 * unification, and makes the kernel's function return without writing
 * again. The writer's own kick_all_cpus_sync() or stop_machine() then
 * covers every copy. Context: the ftrace handler, any.
 *
 * arm64 6.12 builds that code noinstr: neither ftrace nor kprobes reach
 * it. Every write still maps its page at the kernel's poke slot and
 * unmaps it after, under patch_lock, through __set_fixmap(), which a
 * kprobe reaches. The map opens the patch window; the unmap (the write
 * made, the writer's cache maintenance and synchronisation still to come)
 * copies what changed on that page into every replica, and cleans the
 * master through its linear alias, since the writer cleans the VA, which
 * on a replica node's CPU is that node's copy.
 *
 * The audit: where the hook is ftrace (which ftrace_kill() can silence
 * without notice), a periodic work item compares the master pages that
 * changed since it last looked with every replica. It counts what it had
 * to repair; on a healthy kernel that stays 0. Context: process, under
 * hook_lock per page.
 *
 * Replica bytes are written through a per-CPU temporary mapping, so the
 * replicas' direct-map alias stays read-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xxhash.h>

#include "engine.h"
#include "testing.h"

/* where the hook is ftrace-based: audit changed text this often */
static unsigned int audit_period_ms = 2000;
module_param(audit_period_ms, uint, KTR_SAFETY_PARAM_PERM);
MODULE_PARM_DESC(audit_period_ms, "compare changed master text with every replica this often (ms, 0 = off); a difference is a missed write: fail-safe");

#define KTR_LOG_SIZE 256

/* counters and log: written by the hook or the audit, read by debugfs */
static atomic64_t nr_patches, nr_patch_bytes, nr_missed;
/* test build: the next patches the hook sees are dropped, as misses */
static atomic_t force_drop;
static atomic64_t nr_audits, nr_audit_repairs;
/*
 * log_lock guards the ring and patch_seq: the hooks (any context) and
 * the audit append under it, debugfs copies the ring out under it.
 * Innermost: nothing is taken inside it.
 */
static DEFINE_RAW_SPINLOCK(log_lock);
static struct ktrepl_patch_record patch_log_ring[KTR_LOG_SIZE];
static u64 patch_seq;	/* under log_lock */

/*
 * Odd while a patch is half made: from the hook, which writes the
 * replicas, until the master holds the same bytes too. A reader that
 * finds the same even value before and after reading a master range and
 * its replicas saw them at rest: a difference it read is real, not a
 * patch in flight (ktrepl-dump re-reads a differing range this way).
 */
static atomic64_t patch_window;

static bool kprobe_registered, ftrace_registered, poke_registered;
/* the hook writes the master and the kernel's function skips its write */
static bool write_taken_over;
static struct kretprobe patch_kretprobe;
static bool audit_on;
/*
 * hook_lock: the hooks (kprobe, kretprobe or ftrace handler, interrupts
 * off) hold it over the master and replica writes of one patch, and
 * over setting and clearing poked; the audit and the resync hold it over
 * their comparison and repair of one page. So neither ever sees half a
 * patch. Raw, for the handlers. Only ktr_replica_write() and
 * ktr_write_phys() run inside it.
 */
static DEFINE_RAW_SPINLOCK(hook_lock);
/*
 * audit_lock: the chunks' sums and one audit or resync pass at a time
 * (the audit work, the fail-safe's resync, the test build's audit
 * miss); ktr_patch_flush() takes it to wait for a pass. Inside it come
 * mods_lock (module chunks), text_mutex and hook_lock.
 */
static DEFINE_MUTEX(audit_lock);

static void audit_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(audit_work, audit_fn);

/*
 * The page in the poke slot, between its map and unmap (patch_lock), and
 * its bytes at the map: the unmap passes on exactly what the kernel wrote,
 * never a replica's own damage, which is the tools' to find. chunk is
 * set and cleared under hook_lock: the kernel writes the master between
 * the two, and the audit must not take that for a missed write.
 */
static struct {
	struct ktr_chunk *chunk;
	unsigned long va;
	phys_addr_t pa;
	u8 *before;	/* PAGE_SIZE */
} poked;

/* one temporary writable mapping per CPU, like text_poke's poking_mm */
struct ktr_slot {
	struct page *backing;
	void *va;
	pte_t *pte;
	pte_t orig;
};

static struct ktr_slot *slots;	/* [nr_cpu_ids] */

/* a CPU may have cached a slot's first mapping: drop them all */
static void forget_slots(void *unused)
{
	int cpu;

	for_each_possible_cpu(cpu)
		ktr_arch.flush_local((unsigned long)slots[cpu].va);
}

int ktr_patch_init(void)
{
	int cpu;

	slots = kcalloc(nr_cpu_ids, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ktr_slot *s = &slots[cpu];
		pte_t *pte;
		int level;

		s->backing = alloc_page(GFP_KERNEL);
		if (!s->backing)
			return -ENOMEM;
		s->va = vmap(&s->backing, 1, VM_MAP, PAGE_KERNEL);
		if (!s->va)
			return -ENOMEM;
		pte = (pte_t *)ktr_walk(ktr.master_root, (unsigned long)s->va,
					-1, &level);
		if (level != ktr.geom.levels - 1) {
			pr_err("a vmap slot is not mapped by a PTE\n");
			return -EINVAL;
		}
		s->pte = pte;
		s->orig = *pte;
		/*
		 * Idle slots map nothing: mapping one then needs no TLB
		 * invalidation, only unmapping it does.
		 */
		set_pte(s->pte, __pte(0));
	}
	on_each_cpu(forget_slots, NULL, 1);
	return 0;
}

void ktr_patch_free(void)
{
	int cpu;

	if (!slots)
		return;
	for_each_possible_cpu(cpu) {
		if (slots[cpu].pte)
			set_pte(slots[cpu].pte, slots[cpu].orig);
		if (slots[cpu].va)
			vunmap(slots[cpu].va);
		if (slots[cpu].backing)
			__free_page(slots[cpu].backing);
	}
	kfree(slots);
	slots = NULL;
}

/* this CPU's slot onto page, writable; interrupts off until slot_unmap() */
static void *slot_map(struct page *page)
{
	struct ktr_slot *s = &slots[smp_processor_id()];

	/* the slot is this CPU's until slot_unmap(): nothing may preempt */
	lockdep_assert_irqs_disabled();
	set_pte(s->pte, mk_pte(page, PAGE_KERNEL));
	return s->va;
}

static void slot_unmap(void)
{
	struct ktr_slot *s = &slots[smp_processor_id()];

	lockdep_assert_irqs_disabled();
	set_pte(s->pte, __pte(0));
	ktr_arch.flush_local((unsigned long)s->va);
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
		unsigned long off;
		struct page *page;
		void *alias;
		size_t n;

		if (!c || !c->copy[nid])
			break;
		off = va - c->va;
		page = c->copy[nid] + (off >> PAGE_SHIFT);
		off &= ~PAGE_MASK;
		n = min_t(size_t, len, PAGE_SIZE - off);
		alias = slot_map(page) + off;
		if (src)
			memcpy(alias, src, n);
		else
			memset(alias, fill, n);
		ktr_arch.sync_icache(alias, va, n);
		slot_unmap();
		va += n;
		len -= n;
		if (src)
			src += n;
	}
	local_irq_restore(flags);
}

/*
 * Write len bytes (within one page) at a physical address, through this
 * CPU's slot: for pages whose other mappings are read-only, such as
 * swapper_pg_dir's linear alias or the master's text, which the kernel
 * itself writes through a fixmap slot. Interrupts off.
 */
void ktr_write_phys(phys_addr_t pa, const void *src, size_t len)
{
	void *alias = slot_map(pfn_to_page(PHYS_PFN(pa))) + offset_in_page(pa);

	if (len == sizeof(u64))
		WRITE_ONCE(*(u64 *)alias, *(const u64 *)src);
	else
		memcpy(alias, src, len);
	slot_unmap();
}

/* the chunk a patch at va lands in, core or module; NULL if none */
static struct ktr_chunk *replicated_chunk(unsigned long va, size_t len)
{
	const struct ktr_chunk *first = &ktr.chunks[0],
			       *last = &ktr.chunks[ktr.nr_chunks - 1];

	if (va + len > first->va && va < last->va + ktr_chunk_size(last))
		return ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
	return ktr_module_chunk(va, false);
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
 * One write to the master's text, seen before the kernel makes it: every
 * replica gets the same bytes (and, where the arch takes the write over,
 * the master first, and the kernel then skips its own). Returns whether
 * the patch window stays open until the kernel wrote the master.
 */
static bool propagate_patch(struct pt_regs *regs)
{
	unsigned int written = 0;
	unsigned long va, flags;
	struct ktr_chunk *c;
	const void *src;
	size_t len;
	bool fill;
	int nid;

	ktr_failsafe_poll();
	if (!ktr_arch.patch_args(regs, &va, &src, &len, &fill) || !len)
		return false;
	c = replicated_chunk(va, len);
	if (!c)
		return false;
	/* before the copy is taken, the copy itself will carry the patch */
	if (!READ_ONCE(ktr.replicas_ready))
		return false;
	if (!ktr_test_propagate()) {
		atomic64_inc(&nr_missed);
		log_patch(va, len, 0, false);
		ktr_notify_changed(false);
		return false;
	}
	if (KTR_TEST_BUILD && atomic_add_unless(&force_drop, -1, 0)) {
		atomic64_inc(&nr_missed);
		log_patch(va, len, 0, false);
		ktr_failsafe_trip(KTR_FS_PATCH_MISSED);
		return false;
	}
	atomic64_inc(&patch_window);
	raw_spin_lock_irqsave(&hook_lock, flags);
	if (ktr_arch.write_master)
		ktr_arch.write_master(va, c->master_pa + (va - c->va), src,
				      len);
	for_each_online_node(nid) {
		if (!ktr.nodes[nid].own_replica)
			continue;
		if (fill)
			ktr_replica_write(nid, va, NULL, *(const int *)src, len);
		else
			ktr_replica_write(nid, va, src, -1, len);
		written++;
	}
	raw_spin_unlock_irqrestore(&hook_lock, flags);
	if (write_taken_over)
		ktr_arch.skip_kernel_write(regs);
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
	log_patch(va, len, written, true);
	ktr_notify_changed(false);
	/* the master got its bytes here (a taken-over or repeated write) */
	if (ktr_arch.write_master) {
		atomic64_inc(&patch_window);
		return false;
	}
	return true;
}
NOKPROBE_SYMBOL(propagate_patch);

/*
 * x86_64: under text_mutex, before __text_poke writes the master; its
 * return closes the patch window the entry opened (text_mutex makes
 * these calls one at a time).
 */
static int patch_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(bool *)ri->data = propagate_patch(regs);
	return 0;
}
NOKPROBE_SYMBOL(patch_entry);

static int patch_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (*(bool *)ri->data)
		atomic64_inc(&patch_window);
	return 0;
}
NOKPROBE_SYMBOL(patch_return);

u64 ktr_patch_window(void)
{
	return atomic64_read(&patch_window);
}

/* arm64: at the entry of the one patching funnel, any context */
static void notrace patch_ftrace_handler(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs)
		propagate_patch(regs);
}

/*
 * PERMANENT: while registered, kernel.ftrace_enabled=0 is refused, since
 * it would stop the hook while the kernel still patches. IPMODIFY is
 * added where the handler takes the write over (skip_kernel_write).
 */
static struct ftrace_ops patch_fops = {
	.func = patch_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION |
		 FTRACE_OPS_FL_PERMANENT,
};

/*
 * Compare one master page that changed since the last audit with every
 * replica and repair what differs: a write the hook missed.
 */
/*
 * The master's bytes of page p of c, through the direct map: at its image
 * VA a kworker running on a node's tables (percpu; x86 lazily on a bound
 * mm) would read that node's replica instead.
 */
static void *master_page(const struct ktr_chunk *c, unsigned int p)
{
	return __va(c->master_pa + (phys_addr_t)p * PAGE_SIZE);
}

static void audit_page(struct ktr_chunk *c, unsigned int p)
{
	unsigned long master = c->va + p * PAGE_SIZE, flags;
	void *bytes = master_page(c, p);
	unsigned int written = 0;
	size_t first = PAGE_SIZE, last = 0, b;
	int nid;

	lockdep_assert_held(&audit_lock);
	raw_spin_lock_irqsave(&hook_lock, flags);
	/* mid-patch: the unmap passes it on */
	if (poked.chunk == c && poked.va == master) {
		raw_spin_unlock_irqrestore(&hook_lock, flags);
		return;
	}
	for_each_replica(c, nid) {
		u8 *copy = page_address(c->copy[nid] + p);

		if (!memcmp(copy, bytes, PAGE_SIZE))
			continue;
		for (b = 0; b < PAGE_SIZE; b++) {
			if (copy[b] == ((u8 *)bytes)[b])
				continue;
			first = min(first, b);
			last = max(last, b);
		}
		ktr_replica_write(nid, master, bytes, -1, PAGE_SIZE);
		written++;
	}
	raw_spin_unlock_irqrestore(&hook_lock, flags);
	if (!written)
		return;
	atomic64_inc(&nr_audit_repairs);
	ktr_failsafe_trip(KTR_FS_AUDIT_REPAIR);
	log_patch(master + first, last - first + 1, written, true);
	pr_err_ratelimited("audit: a write at %pS reached the master but not %u replica(s); repaired\n",
			   (void *)(master + first), written);
}

/*
 * Where the hook runs before the kernel writes the master (x86), a patch
 * in flight leaves the replicas ahead of the master: text_mutex, which
 * every text_poke holds, keeps the audit and the resync out of that
 * window. Where there is none (arm64), hook_lock and poked do.
 */
static void exclude_patches(bool on)
{
	if (!ktr.text_mutex)
		return;
	if (on)
		mutex_lock(ktr.text_mutex);
	else
		mutex_unlock(ktr.text_mutex);
}

static void audit_chunk(struct ktr_chunk *c)
{
	unsigned int p;

	lockdep_assert_held(&audit_lock);
	if (!c->sums)
		return;
	exclude_patches(true);
	for (p = 0; p < 1U << ktr_chunk_order(c); p++) {
		u64 sum = xxh64(master_page(c, p), PAGE_SIZE, 0);

		if (sum == c->sums[p])
			continue;
		c->sums[p] = sum;
		audit_page(c, p);
	}
	exclude_patches(false);
	cond_resched();
}

/* the fail-safe's pass: repair or only count, see ktr_patch_resync() */
static bool resync_repair;
static unsigned int resync_pages;

static void resync_chunk(struct ktr_chunk *c)
{
	unsigned int p;
	int nid;

	lockdep_assert_held(&audit_lock);
	exclude_patches(true);
	for (p = 0; p < 1U << ktr_chunk_order(c); p++) {
		unsigned long va = c->va + p * PAGE_SIZE, flags;

		raw_spin_lock_irqsave(&hook_lock, flags);
		/* mid-patch (arm64 poke): its unmap passes the bytes on */
		if (poked.chunk == c && poked.va == va) {
			raw_spin_unlock_irqrestore(&hook_lock, flags);
			resync_pages++;
			continue;
		}
		for_each_replica(c, nid) {
			void *copy = page_address(c->copy[nid] + p);

			if (!memcmp(copy, master_page(c, p), PAGE_SIZE))
				continue;
			resync_pages++;
			if (resync_repair)
				ktr_replica_write(nid, va, master_page(c, p),
						  -1, PAGE_SIZE);
		}
		raw_spin_unlock_irqrestore(&hook_lock, flags);
		if (c->sums)
			c->sums[p] = xxh64(master_page(c, p), PAGE_SIZE, 0);
	}
	exclude_patches(false);
	cond_resched();
}

/*
 * Every replica page of the kernel and of every replicated module that
 * differs from the master's: recopied when repair, else only counted.
 * Returns the count. Context: process; sleeps. Only the fail-safe
 * calls it, once nothing runs on the replicas.
 */
unsigned int ktr_patch_resync(bool repair)
{
	unsigned int n;
	int i;

	mutex_lock(&audit_lock);
	resync_repair = repair;
	resync_pages = 0;
	for (i = 0; i < ktr.nr_chunks; i++)
		resync_chunk(&ktr.chunks[i]);
	ktr_modules_visit_chunks(resync_chunk);
	n = resync_pages;
	mutex_unlock(&audit_lock);
	return n;
}

/*
 * Only pages whose master contents changed since the last audit are
 * compared: replica-only damage (fault injection) is left for the tools
 * to find, and with propagation off nothing is repaired.
 */
static void audit_fn(struct work_struct *work)
{
	unsigned int period = READ_ONCE(audit_period_ms);
	int i;

	ktr_failsafe_poll();
	if (!READ_ONCE(ktr.replicas_ready) || !ktr_test_propagate())
		goto again;
	mutex_lock(&audit_lock);
	for (i = 0; i < ktr.nr_chunks; i++)
		audit_chunk(&ktr.chunks[i]);
	ktr_modules_visit_chunks(audit_chunk);
	mutex_unlock(&audit_lock);
	atomic64_inc(&nr_audits);
	ktr_notify_changed(true);
again:
	if (period && READ_ONCE(audit_on))
		schedule_delayed_work(&audit_work, msecs_to_jiffies(period));
}

static struct ktr_chunk *chunk_at_master_pa(phys_addr_t pa, unsigned long *va)
{
	unsigned long image = ktr_arch.image_va(pa);
	struct ktr_chunk *c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks,
						image);

	if (c && c->master_pa + (image - c->va) == pa) {
		*va = image;
		return c;
	}
	c = ktr_module_chunk_at_pa(pa);
	if (c)
		*va = c->va;
	return c;
}
NOKPROBE_SYMBOL(chunk_at_master_pa);

/* the poked page is written: every replica gets the bytes that changed */
static void sync_poked_page(void)
{
	u8 *master = phys_to_virt(poked.pa);
	size_t first = PAGE_SIZE, last = 0, b, len;
	unsigned int written = 0;
	unsigned long flags;
	int nid;

	for (b = 0; b < PAGE_SIZE; b++)
		if (master[b] != poked.before[b]) {
			first = min(first, b);
			last = b;
		}
	raw_spin_lock_irqsave(&hook_lock, flags);
	if (first == PAGE_SIZE) {
		poked.chunk = NULL;
		raw_spin_unlock_irqrestore(&hook_lock, flags);
		return;
	}
	len = last - first + 1;
	for_each_replica(poked.chunk, nid) {
		ktr_replica_write(nid, poked.va + first, master + first, -1,
				  len);
		written++;
	}
	ktr_arch.sync_icache(master + first, poked.va + first, len);
	poked.chunk = NULL;
	raw_spin_unlock_irqrestore(&hook_lock, flags);
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
	log_patch(poked.va + first, len, written, true);
	ktr_notify_changed(false);
}
NOKPROBE_SYMBOL(sync_poked_page);

static int poke_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long va, flags;
	struct ktr_chunk *c;
	phys_addr_t pa;
	bool map;

	if (!ktr_arch.poke_slot(regs, &pa, &map))
		return 0;
	if (!map) {
		if (!poked.chunk)
			return 0;
		sync_poked_page();
		atomic64_inc(&patch_window);
		return 0;
	}
	if (!READ_ONCE(ktr.replicas_ready))
		return 0;
	c = chunk_at_master_pa(pa, &va);
	if (!c)
		return 0;
	if (!ktr_test_propagate()) {
		atomic64_inc(&nr_missed);
		log_patch(va & PAGE_MASK, PAGE_SIZE, 0, false);
		ktr_notify_changed(false);
		return 0;
	}
	memcpy(poked.before, phys_to_virt(pa), PAGE_SIZE);
	raw_spin_lock_irqsave(&hook_lock, flags);
	poked.va = va & PAGE_MASK;
	poked.pa = pa;
	poked.chunk = c;
	raw_spin_unlock_irqrestore(&hook_lock, flags);
	atomic64_inc(&patch_window);
	return 0;
}
NOKPROBE_SYMBOL(poke_pre);

static struct kprobe poke_kprobe = { .pre_handler = poke_pre };

static void start_audit(void)
{
	WRITE_ONCE(audit_on, true);
	if (audit_period_ms)
		schedule_delayed_work(&audit_work,
				      msecs_to_jiffies(audit_period_ms));
}

static int start_poke_hook(void)
{
	int ret;

	poked.before = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!poked.before)
		return -ENOMEM;
	poke_kprobe.symbol_name = ktr_arch.poke_symbol;
	ret = register_kprobe(&poke_kprobe);
	if (ret) {
		kfree(poked.before);
		poked.before = NULL;
		return ret;
	}
	poke_registered = true;
	start_audit();
	pr_info("%s cannot be hooked: text writes are followed through %s\n",
		ktr_arch.patch_symbol, ktr_arch.poke_symbol);
	return 0;
}

static int start_ftrace_hook(void)
{
	unsigned long addr = ktr_ksym(ktr_arch.patch_symbol);
	int ret;

	if (!addr)
		return -ENOENT;
	ret = ftrace_set_filter_ip(&patch_fops, addr, 0, 0);
	if (!ret && ktr_arch.skip_kernel_write) {
		patch_fops.flags |= FTRACE_OPS_FL_IPMODIFY;
		ret = register_ftrace_function(&patch_fops);
		write_taken_over = !ret;
		/* another ip-modifying user has it: write the master twice */
		if (ret == -EBUSY) {
			pr_warn("%s is modified by another ftrace user: the kernel writes the master again after the hook\n",
				ktr_arch.patch_symbol);
			patch_fops.flags &= ~FTRACE_OPS_FL_IPMODIFY;
			ret = register_ftrace_function(&patch_fops);
		}
	} else if (!ret) {
		ret = register_ftrace_function(&patch_fops);
	}
	if (ret) {
		ftrace_free_filter(&patch_fops);
		return ret;
	}
	ftrace_registered = true;
	start_audit();
	return 0;
}

int ktr_patch_start(void)
{
	int ret;

	if (ktr_arch.patch_hook == KTR_HOOK_FTRACE) {
		ret = start_ftrace_hook();
		/* not traceable, or no ftrace_regs with registers */
		if ((ret == -EINVAL || ret == -ENOENT) && ktr_arch.poke_symbol)
			ret = start_poke_hook();
	} else {
		patch_kretprobe.kp.symbol_name = ktr_arch.patch_symbol;
		patch_kretprobe.entry_handler = patch_entry;
		patch_kretprobe.handler = patch_return;
		patch_kretprobe.data_size = sizeof(bool);
		/* without an instance the entry handler would not run */
		patch_kretprobe.maxactive = 2 * num_possible_cpus();
		ret = register_kretprobe(&patch_kretprobe);
		kprobe_registered = !ret;
		/*
		 * The net behind the hook, as on arm64; without text_mutex
		 * it could not tell a patch in flight from a missed one.
		 */
		if (!ret && ktr.text_mutex)
			start_audit();
	}
	if (ret)
		pr_err("cannot hook %s for patch propagation: %d\n",
		       ktr_arch.patch_symbol, ret);
	return ret;
}

/*
 * After this returns no handler runs and no audit is queued or running,
 * so nothing calls back into the publisher any more.
 */
void ktr_patch_stop(void)
{
	if (kprobe_registered) {
		/* waits for running handlers (synchronize_rcu inside) */
		unregister_kretprobe(&patch_kretprobe);
		kprobe_registered = false;
	}
	if (poke_registered) {
		unregister_kprobe(&poke_kprobe);
		poke_registered = false;
		poked.chunk = NULL;
		kfree(poked.before);
		poked.before = NULL;
	}
	WRITE_ONCE(audit_on, false);
	cancel_delayed_work_sync(&audit_work);
	if (ftrace_registered) {
		/* waits for running handlers too */
		unregister_ftrace_function(&patch_fops);
		ftrace_free_filter(&patch_fops);
		ftrace_registered = false;
		write_taken_over = false;
	}
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
	*missed = atomic64_read(&nr_missed) + ktr_patch_probe_misses();
	*prop = ktr_test_propagate();
}

/*
 * The calls the patch probes could not hand to the hook (nmissed): writes
 * the master got and no replica did, which no handler of ours saw. The
 * hook trips the fail-safe itself for the ones it drops. Context: any.
 */
u64 ktr_patch_probe_misses(void)
{
	u64 n = 0;

	if (kprobe_registered)
		n += READ_ONCE(patch_kretprobe.kp.nmissed) +
		     READ_ONCE(patch_kretprobe.nmissed);
	if (poke_registered)
		n += READ_ONCE(poke_kprobe.nmissed);
	return n;
}
NOKPROBE_SYMBOL(ktr_patch_probe_misses);

#ifdef KTREPL_TEST
/*
 * Test build: make the engine see one miss of a kind, the way it would
 * meet a real one. patch: the hook drops the next patch. probe: the
 * probe counts a call it could not handle (the counter the kernel's
 * kprobes raise). audit: a replica page differs from a master page that
 * changed since the last pass, as after a write the hook never saw.
 */
int ktr_patch_force_miss(const char *kind, unsigned long va)
{
	if (!strcmp(kind, "patch")) {
		atomic_inc(&force_drop);
		return 0;
	}
	if (!strcmp(kind, "probe")) {
		if (kprobe_registered)
			patch_kretprobe.kp.nmissed++;
		else if (poke_registered)
			poke_kprobe.nmissed++;
		else
			return -EOPNOTSUPP;
		ktr_failsafe_poll();
		return 0;
	}
	if (!strcmp(kind, "audit")) {
		struct ktr_chunk *c;
		unsigned int p;
		int nid;
		u8 b;

		mutex_lock(&audit_lock);
		/* a module chunk stays valid under RCU; the writes are atomic */
		rcu_read_lock();
		c = ktr_find_chunk(va);
		if (c && c->sums && READ_ONCE(audit_on)) {
			p = (va - c->va) >> PAGE_SHIFT;
			for_each_replica(c, nid) {
				b = *(u8 *)(page_address(c->copy[nid]) +
					    (va - c->va));
				b ^= 0xff;
				ktr_replica_write(nid, va, &b, -1, 1);
			}
			c->sums[p] ^= 1;
		} else {
			c = NULL;
		}
		rcu_read_unlock();
		mutex_unlock(&audit_lock);
		if (!c)
			return -EOPNOTSUPP;
		mod_delayed_work(system_wq, &audit_work, 0);
		return 0;
	}
	return -EINVAL;
}
#endif

/* an audit under way: let it finish, so its repairs are counted */
void ktr_patch_flush(void)
{
	mutex_lock(&audit_lock);
	mutex_unlock(&audit_lock);
}

void ktr_audit_counters(u64 *audits, u64 *repairs)
{
	*audits = atomic64_read(&nr_audits);
	*repairs = atomic64_read(&nr_audit_repairs);
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
