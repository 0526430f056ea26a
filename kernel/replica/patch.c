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
 * Behind every hook runs the audit (audit.c). Replica bytes are written
 * through slot.c's per-CPU temporary mapping, so the replicas'
 * direct-map alias stays read-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "engine.h"
#include "testing.h"

#define KTR_LOG_SIZE 256

/* counters and log: written by the hook or the audit, read by debugfs */
static atomic64_t nr_patches, nr_patch_bytes, nr_missed;
/* test build: the next patches the hook sees are dropped, as misses */
static atomic_t force_drop;
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

/* the chunk a patch at va lands in, core or module; NULL if none */
static struct ktr_chunk *replicated_chunk(unsigned long va, size_t len)
{
	const struct ktr_chunk *first = &ktr.chunks[0],
			       *last = &ktr.chunks[ktr.nr_chunks - 1];

	if (va + len > first->va && va < last->va + ktr_chunk_size(last))
		return ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
	return ktr_module_chunk(va, false);
}

void ktr_patch_log_add(unsigned long va, size_t len, unsigned int written,
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
		ktr_patch_log_add(va, len, 0, false);
		ktr_notify_changed(false);
		return false;
	}
	if (KTR_TEST_BUILD && atomic_add_unless(&force_drop, -1, 0)) {
		atomic64_inc(&nr_missed);
		ktr_patch_log_add(va, len, 0, false);
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
	ktr_patch_log_add(va, len, written, true);
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
	ktr_patch_log_add(poked.va + first, len, written, true);
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
		ktr_patch_log_add(va & PAGE_MASK, PAGE_SIZE, 0, false);
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

/*
 * For the audit and the resync: hook_lock over one page of c at va,
 * unless a poke is writing that page (its unmap passes the bytes on);
 * false then, and the lock is not held.
 */
bool ktr_hook_lock_page(struct ktr_chunk *c, unsigned long va,
			unsigned long *flags)
{
	raw_spin_lock_irqsave(&hook_lock, *flags);
	if (poked.chunk == c && poked.va == va) {
		raw_spin_unlock_irqrestore(&hook_lock, *flags);
		return false;
	}
	return true;
}

void ktr_hook_unlock(unsigned long flags)
{
	lockdep_assert_held(&hook_lock);
	raw_spin_unlock_irqrestore(&hook_lock, flags);
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
	ktr_audit_start();
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
	ktr_audit_start();
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
			ktr_audit_start();
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
	ktr_audit_stop();
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
 * kprobes raise). audit: see ktr_audit_force_miss().
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
	if (!strcmp(kind, "audit"))
		return ktr_audit_force_miss(va);
	return -EINVAL;
}
#endif

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
