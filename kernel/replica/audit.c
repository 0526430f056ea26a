// SPDX-License-Identifier: GPL-2.0
/*
 * The audit: the net behind the patch hooks. Where a hook can be
 * silenced without notice (ftrace_kill() stops the arm64 ftrace hook)
 * or a probe can miss a call, a periodic work item compares every master
 * page whose contents changed since it last looked with every replica
 * and trips the fail-safe where one differs: on a healthy kernel its
 * count stays 0. It writes nothing: the fail-safe's resync, the same
 * comparison over every page, repairs once nothing runs on the
 * replicas. Each pass first polls the probes' miss counters and the
 * kernel's kprobes and ftrace switches (armed.c); while the
 * fail-safe waits for those to be armed again, it compares nothing.
 *
 * Locking: audit_lock (mutex, this file's) guards the chunks' page sums
 * and lets one audit or resync pass run at a time (the audit work, the
 * fail-safe's resync, the test build's audit miss); ktr_audit_flush()
 * takes it to wait for a pass. Inside it come mods_lock (the module
 * chunks, ktr_modules_visit_chunks()), text_mutex (exclude_patches())
 * and hook_lock (patch.c's, one page at a time, ktr_hook_lock_page()).
 * audit_on and the counters are lockless (READ_ONCE, atomics).
 * Context: process; a pass sleeps between chunks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "core.h"
#include "audit.h"
#include "build.h"
#include "armed.h"
#include "failsafe.h"
#include "modules.h"
#include "patch.h"
#include "slot.h"
#include "testing.h"

/* where the hook is ftrace-based: audit changed text this often */
static unsigned int audit_period_ms = 2000;
module_param(audit_period_ms, uint, KTR_SAFETY_PARAM_PERM);
MODULE_PARM_DESC(audit_period_ms, "compare changed master text with every replica this often (ms, 0 = off); a difference is a missed write: fail-safe");

static atomic64_t nr_audits, nr_audit_repairs;
static bool audit_on;
/* the fail-safe waits (ktr_audit_hold()): written by its work only */
static bool audit_held;
static DEFINE_MUTEX(audit_lock);

static void audit_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(audit_work, audit_fn);

/*
 * The master's bytes of page p of c, through the direct map: at its image
 * VA a kworker running on a node's tables (percpu; x86 lazily on a bound
 * mm) would read that node's replica instead.
 */
static void *master_page(const struct ktr_chunk *c, unsigned int p)
{
	return __va(c->master_pa + (phys_addr_t)p * PAGE_SIZE);
}

/*
 * Compare one master page that changed since the last audit with every
 * replica: a replica that differs missed a write the hook should have
 * passed on, and the fail-safe is tripped.
 */
static void audit_page(struct ktr_chunk *c, unsigned int p)
{
	unsigned long master = c->va + p * PAGE_SIZE, flags;
	void *bytes = master_page(c, p);
	unsigned int missed = 0;
	size_t first = PAGE_SIZE, last = 0, b;
	int nid;

	lockdep_assert_held(&audit_lock);
	/* mid-patch: the unmap passes it on */
	if (!ktr_hook_lock_page(c, master, &flags))
		return;
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
		missed++;
	}
	ktr_hook_unlock(flags);
	if (!missed)
		return;
	atomic64_inc(&nr_audit_repairs);
	ktr_patch_log_add(master + first, last - first + 1, missed, true);
	/*
	 * Only detected here: a page written over live text that other CPUs
	 * execute could tear an instruction. The fail-safe takes everyone
	 * off the replicas first, then recopies them. Logged before the
	 * trip, so that the fail-safe's log follows the cause it acts on.
	 */
	pr_err_ratelimited("audit: a write at %pS reached the master but not %u replica(s); the fail-safe repairs them\n",
			   (void *)(master + first), missed);
	ktr_failsafe_trip(KTR_FS_AUDIT_REPAIR);
}

/*
 * Where the hook runs before the kernel writes the master (x86), a patch
 * in flight leaves the replicas ahead of the master: text_mutex, which
 * every text_poke holds, keeps the audit and the resync out of that
 * window. Where there is none (arm64), hook_lock and the poke state do
 * (ktr_hook_lock_page()).
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
		struct ktr_page_sum sum;

		ktr_page_sum(master_page(c, p), &sum);
		if (ktr_page_sum_equal(&sum, &c->sums[p]))
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

		/* mid-patch (arm64 poke): its unmap passes the bytes on */
		if (!ktr_hook_lock_page(c, va, &flags)) {
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
		ktr_hook_unlock(flags);
		if (c->sums)
			ktr_page_sum(master_page(c, p), &c->sums[p]);
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
unsigned int ktr_patch_resync(bool repair, void (*under_lock)(void))
{
	unsigned int n;
	int i;

	mutex_lock(&audit_lock);
	/*
	 * The fail-safe absorbs here an audit trip raised before this pass
	 * (audit_lock orders the two): it names a page that differed then,
	 * which this pass recopies.
	 */
	if (under_lock)
		under_lock();
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
static void audit_pass(void)
{
	int i;

	mutex_lock(&audit_lock);
	for (i = 0; i < ktr.nr_chunks; i++)
		audit_chunk(&ktr.chunks[i]);
	ktr_modules_visit_chunks(audit_chunk);
	mutex_unlock(&audit_lock);
	atomic64_inc(&nr_audits);
}

static void audit_fn(struct work_struct *work)
{
	unsigned int period = READ_ONCE(audit_period_ms);

	ktr_poll_every_miss_source();
	/*
	 * Disarmed: no hook, mirror or veto sees a write, and the fail-safe
	 * takes everyone off the replicas (a trip while it already waits is
	 * none). Held: it waits, nothing runs on the replicas, and its
	 * resume recopies them all. Comparing in either would only count
	 * the disarm's own writes as misses.
	 */
	if (ktr_probes_unarmed()) {
		if (!READ_ONCE(audit_held))
			ktr_failsafe_trip(KTR_FS_PROBES_DISARMED);
		goto again;
	}
	if (READ_ONCE(audit_held) || !ktr_replicas_settled() ||
	    !ktr_test_propagate())
		goto again;
	audit_pass();
	ktr_notify_changed(true);
again:
	if (period && READ_ONCE(audit_on))
		schedule_delayed_work(&audit_work, msecs_to_jiffies(period));
}

void ktr_audit_start(void)
{
	WRITE_ONCE(audit_on, true);
	if (audit_period_ms)
		schedule_delayed_work(&audit_work,
				      msecs_to_jiffies(audit_period_ms));
}

/*
 * The fail-safe, while it waits for the probes to be armed again (or for
 * propagate=1): the pass that sees them armed before the fail-safe does
 * would take the disarm's writes for misses. A pass under way finishes
 * first (audit_lock). Process context, under failsafe_lock.
 */
void ktr_audit_hold(bool hold)
{
	mutex_lock(&audit_lock);
	WRITE_ONCE(audit_held, hold);
	mutex_unlock(&audit_lock);
}

/* after this returns no audit is queued or running */
void ktr_audit_stop(void)
{
	WRITE_ONCE(audit_on, false);
	cancel_delayed_work_sync(&audit_work);
}

#ifdef KTREPL_TEST
/*
 * Test build: a replica page differs from a master page that changed
 * since the last pass, as after a write the hook never saw.
 */
int ktr_audit_force_miss(unsigned long va)
{
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
			b = *(u8 *)(page_address(c->copy[nid]) + (va - c->va));
			b ^= 0xff;
			ktr_replica_write(nid, va, &b, -1, 1);
		}
		/*
		 * The sum of the page as the replicas now hold it, as if the
		 * master had held it at the last pass: only a sum that tells
		 * the two pages apart, one byte off, sends the pass to them.
		 */
		nid = ktr_next_replica(c, -1);
		if (nid < MAX_NUMNODES)
			ktr_page_sum(page_address(c->copy[nid] + p),
				     &c->sums[p]);
	} else {
		c = NULL;
	}
	rcu_read_unlock();
	mutex_unlock(&audit_lock);
	if (!c)
		return -EOPNOTSUPP;
	/*
	 * The next pass finds it: now, or with audit_period_ms=0 (no pass
	 * runs by itself) the one a fail-safe runs (audit_in_failsafe=1).
	 */
	if (READ_ONCE(audit_period_ms))
		mod_delayed_work(system_wq, &audit_work, 0);
	return 0;
}
#endif

#ifdef KTREPL_TEST
/*
 * Test build: one pass now, from inside the fail-safe's window (after
 * the pause, before the repair), where a periodic audit may land and
 * find the very miss the repair is about to fix.
 */
void ktr_audit_pass_now(void)
{
	if (READ_ONCE(audit_on) && ktr_replicas_settled())
		audit_pass();
}
#endif

/* an audit under way: let it finish, so its repairs are counted */
void ktr_audit_flush(void)
{
	mutex_lock(&audit_lock);
	mutex_unlock(&audit_lock);
}

void ktr_audit_counters(u64 *audits, u64 *repairs)
{
	*audits = atomic64_read(&nr_audits);
	*repairs = atomic64_read(&nr_audit_repairs);
}
