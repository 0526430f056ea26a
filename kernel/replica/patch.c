// SPDX-License-Identifier: GPL-2.0
/*
 * Patch propagation: every runtime write to the master's text reaches
 * every replica inside the writer's own synchronisation window. This
 * file holds what every architecture shares: the propagation of one
 * write (ktr_propagate_patch()), the patch window, the counters and the
 * log. How the kernel's writes are seen is the arch's, picked by Kbuild:
 * patch_x86.c (a kretprobe on __text_poke) or patch_arm64.c (an ftrace
 * hook on __aarch64_insn_write, or a kprobe on the poke slot's map and
 * unmap where that is noinstr). Behind every hook runs the audit
 * (audit.c). Replica bytes are written through slot.c's per-CPU
 * temporary mapping, so the replicas' direct-map alias stays read-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "core.h"
#include "build.h"
#include "failsafe.h"
#include "fresh.h"
#include "mirror.h"
#include "modules.h"
#include "slot.h"
#include "patch.h"
#include "testing.h"


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
static struct ktrepl_patch_record patch_log_ring[KTREPL_MAX_PATCH_RECORDS];
static u64 patch_seq;	/* under log_lock */

/*
 * Odd while a patch is half made: from the hook, which writes the
 * replicas, until the master holds the same bytes too. A reader that
 * finds the same even value before and after reading a master range and
 * its replicas saw them at rest: a difference it read is real, not a
 * patch in flight (ktrepl-dump re-reads a differing range this way).
 */
static atomic64_t patch_window;

/*
 * hook_lock: the hooks (kprobe, kretprobe or ftrace handler, interrupts
 * off) hold it over the master and replica writes of one patch, and
 * patch_arm64.c over setting and clearing its poke state; the audit and
 * the resync hold it over their comparison and repair of one page. So
 * neither ever sees half a patch. Raw, for the handlers. Only
 * ktr_replica_write() and ktr_write_phys() run inside it.
 */
static DEFINE_RAW_SPINLOCK(hook_lock);
/* the chunk a patch at va lands in, core or module; NULL if none */
static struct ktr_chunk *replicated_chunk(unsigned long va, size_t len)
{
	const struct ktr_chunk *first = &ktr.chunks[0],
			       *last = &ktr.chunks[ktr.nr_chunks - 1];

	if (va + len > first->va && va < last->va + ktr_chunk_size(last))
		return ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
	return ktr_module_chunk(va, false);
}
NOKPROBE_SYMBOL(replicated_chunk);

void ktr_patch_log_add(unsigned long va, size_t len, unsigned int written,
		       bool propagated)
{
	struct ktrepl_patch_record *rec;
	unsigned long flags;

	raw_spin_lock_irqsave(&log_lock, flags);
	rec = &patch_log_ring[patch_seq % KTREPL_MAX_PATCH_RECORDS];
	rec->seq = ++patch_seq;
	rec->va = va;
	rec->len = len;
	rec->nodes = written;
	rec->propagated = propagated;
	raw_spin_unlock_irqrestore(&log_lock, flags);
}
NOKPROBE_SYMBOL(ktr_patch_log_add);

/*
 * One write to the master's text, seen before the kernel makes it: every
 * replica gets the same bytes (and, where the arch takes the write over,
 * the master first: the arch's hook then makes the kernel skip its own,
 * if *made). Returns whether the patch window stays open until the
 * kernel wrote the master.
 */
bool ktr_propagate_patch(struct pt_regs *regs, bool *made)
{
	unsigned int written = 0;
	unsigned long va, flags;
	struct ktr_chunk *c;
	const void *src;
	size_t len;
	bool fill;
	int nid;

	*made = false;
	/*
	 * With the audit off, a veto or mirror miss is otherwise seen only
	 * at that probe's next call
	 */
	ktr_poll_every_miss_source();
	if (!ktr_patch_arch_args(regs, &va, &src, &len, &fill) || !len)
		return false;
	c = replicated_chunk(va, len);
	if (!c)
		return false;
	/* before the copy is taken, the copy itself will carry the patch */
	if (!ktr_replicas_ready())
		return false;
	if (ktr_patch_dropped(va, len))
		return false;
	atomic64_inc(&patch_window);
	raw_spin_lock_irqsave(&hook_lock, flags);
	if (ktr_patch_arch_writes_master())
		ktr_patch_arch_write_master(va, c->master_pa + (va - c->va),
					    src, len);
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
	*made = true;
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
	ktr_patch_log_add(va, len, written, true);
	ktr_notify_changed(false);
	/* the master got its bytes here (a taken-over or repeated write) */
	if (ktr_patch_arch_writes_master()) {
		atomic64_inc(&patch_window);
		return false;
	}
	return true;
}
NOKPROBE_SYMBOL(ktr_propagate_patch);

u64 ktr_patch_window(void)
{
	return atomic64_read(&patch_window);
}

/* the arch's hook: a step of the patch window (see patch_window) */
void ktr_patch_window_step(void)
{
	atomic64_inc(&patch_window);
}
NOKPROBE_SYMBOL(ktr_patch_window_step);

/*
 * Test build: whether the patch at [va, va + len) is left out of the
 * replicas on purpose, with propagate=0 or because 'miss kind=patch'
 * asked for one drop. It is then a miss like any other: counted, logged
 * and tripped on, so no CPU or process stays on replicas that lack it.
 * With propagate=0 the fail-safe then waits, repairing nothing, until
 * propagation is on again: the staleness stays for the tools to find,
 * and nothing runs on it. Both hooks' paths (the text patch functions,
 * arm64's poke) ask. Context: any.
 */
bool ktr_patch_dropped(unsigned long va, size_t len)
{
	if (!KTR_TEST_BUILD)
		return false;
	if (ktr_test_propagate() && !atomic_add_unless(&force_drop, -1, 0))
		return false;
	atomic64_inc(&nr_missed);
	ktr_patch_log_add(va, len, 0, false);
	ktr_notify_changed(false);
	ktr_failsafe_trip(KTR_FS_PATCH_MISSED);
	return true;
}
NOKPROBE_SYMBOL(ktr_patch_dropped);

/* the arch's hook: a patch it passed on the replicas itself */
void ktr_patch_count(size_t len)
{
	atomic64_inc(&nr_patches);
	atomic64_add(len, &nr_patch_bytes);
}
NOKPROBE_SYMBOL(ktr_patch_count);

/*
 * For the audit and the resync: hook_lock over one page of c at va,
 * unless the arch's hook is writing that page (an arm64 poke, whose
 * unmap passes the bytes on); false then, and the lock is not held.
 */
bool ktr_hook_lock_page(struct ktr_chunk *c, unsigned long va,
			unsigned long *flags)
{
	raw_spin_lock_irqsave(&hook_lock, *flags);
	if (ktr_patch_arch_page_in_flight(c, va)) {
		raw_spin_unlock_irqrestore(&hook_lock, *flags);
		return false;
	}
	return true;
}

/* for the arch's hook, over its own state of a patch */
unsigned long ktr_hook_lock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&hook_lock, flags);
	return flags;
}
NOKPROBE_SYMBOL(ktr_hook_lock);

void ktr_hook_unlock(unsigned long flags)
{
	lockdep_assert_held(&hook_lock);
	raw_spin_unlock_irqrestore(&hook_lock, flags);
}
NOKPROBE_SYMBOL(ktr_hook_unlock);

/* for the arch files' readers of their state under hook_lock */
void ktr_hook_lock_assert_held(void)
{
	lockdep_assert_held(&hook_lock);
}
NOKPROBE_SYMBOL(ktr_hook_lock_assert_held);

int ktr_patch_start(void)
{
	int ret = ktr_patch_arch_start();

	if (ret)
		pr_err("cannot hook %s for patch propagation: %d\n",
		       ktr_patch_symbol, ret);
	return ret;
}

/*
 * After this returns no handler runs and no audit is queued or running,
 * so nothing calls back into the publisher any more.
 */
void ktr_patch_stop(void)
{
	ktr_patch_arch_stop();
}

/*
 * The calls the patch probes could not hand to the hook (nmissed): writes
 * the master got and no replica did, which no handler of ours saw. The
 * hook trips the fail-safe itself for the ones it drops. Context: any.
 */
u64 ktr_patch_probe_misses(void)
{
	return ktr_patch_arch_probe_misses();
}
NOKPROBE_SYMBOL(ktr_patch_probe_misses);

static atomic64_t seen_probe_misses;

/* every patch the hook sees, and every audit pass: any context */
void ktr_patch_poll_misses(void)
{
	ktr_failsafe_trip_on_growth(&seen_probe_misses,
				    ktr_patch_probe_misses(),
				    KTR_FS_PROBE_MISSED);
}
NOKPROBE_SYMBOL(ktr_patch_poll_misses);

/*
 * Every miss source at once: the patch probes, the table mirror's and the
 * table-free vetoes'. Each also polls its own at its own calls; this is
 * for the moments that must see them all (each patch, each audit pass,
 * the fail-safe's opening). Any context.
 */
void ktr_poll_every_miss_source(void)
{
	ktr_patch_poll_misses();
	ktr_mirror_poll_misses();
	ktr_fresh_poll_misses();
}
NOKPROBE_SYMBOL(ktr_poll_every_miss_source);

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
		if (ktr_patch_arch_force_probe_miss())
			return -EOPNOTSUPP;
		ktr_patch_poll_misses();
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
	first = patch_seq > KTREPL_MAX_PATCH_RECORDS ? patch_seq - KTREPL_MAX_PATCH_RECORDS : 0;
	if (patch_seq - first > max)
		first = patch_seq - max;
	for (s = first; s < patch_seq; s++)
		recs[n++] = patch_log_ring[s % KTREPL_MAX_PATCH_RECORDS];
	raw_spin_unlock_irqrestore(&log_lock, flags);
	return n;
}
