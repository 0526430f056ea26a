// SPDX-License-Identifier: GPL-2.0
/*
 * Fail-safe: any write the replicas may have missed means a node may be
 * running stale text (a livepatch fix missing, a removed kprobe's int3
 * still there, a call into a freed ftrace trampoline). The engine never
 * keeps running on replicas it cannot vouch for:
 *
 *   1. every CPU (percpu) or bound process (mm), and the workers, go back
 *      to the master's tables;
 *   2. with nothing running on them, every replica page that differs
 *      from the master is recopied, under the same exclusion the patch
 *      hook and the audit use;
 *   3. every entry of every node's tables is rebuilt from the master's
 *      where it differs from what a fresh build would make (a table
 *      update the mirror missed, a table freed under a copied entry);
 *   4. activation resumes only once every replica page of the kernel
 *      and of every replicated module equals the master's, the node
 *      tables are a fresh build's, and every probe that watches for
 *      writes is armed. Tables that cannot be rebuilt (the master's
 *      own table is gone) leave replication off, and so do
 *      failsafe_limit events within failsafe_window_s: a miss that
 *      keeps coming back.
 *
 * Disarmed probes (debugfs kprobes/enabled at 0, which silences every
 * kprobe, or kernel.ftrace_enabled at 0, which silences ftrace-based
 * ones) are a miss source of their own: no hook, mirror or veto sees a
 * write while they are. The audit trips on them, and the work leaves
 * activation paused ("waiting", the audit held) and looks again every
 * KTR_FS_RECHECK_MS until they are armed (twice in a row), then repairs
 * and checks as
 * after any miss, and resumes. The test build's propagate=0 is one more:
 * every patch it drops trips, and the work waits, with the replicas left
 * stale for the tools to find and nothing running on them, until
 * propagate=1.
 *
 * Trips come from any context (the patch hooks, the audit, each miss
 * source's poll of its probes' miss counters): ktr_failsafe_trip() only
 * sets a bit and queues failsafe_work; it is the one call the layers
 * below make into this file. The work runs in process context under
 * failsafe_lock, which also orders it against ktr_failsafe_stop().
 * nr_events, reason and active are written under failsafe_lock and read
 * locklessly by the publisher.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "activation.h"
#include "core.h"
#include "audit.h"
#include "armed.h"
#include "failsafe.h"
#include "fresh.h"
#include "mirror.h"
#include "modules.h"
#include "patch.h"
#include "testing.h"

/*
 * failsafe_reason's word for each event: the words are ktrepl_abi.h's,
 * while enum ktr_failsafe_reason keeps its own order (the lowest pending
 * bit names an event).
 */
static const enum ktrepl_reason reason_words[KTR_FS_NR] = {
	[KTR_FS_PATCH_MISSED] = KTREPL_REASON_PATCH_MISSED,
	[KTR_FS_PROBE_MISSED] = KTREPL_REASON_PROBE_MISSED,
	[KTR_FS_AUDIT_REPAIR] = KTREPL_REASON_AUDIT_REPAIR,
	[KTR_FS_MIRROR_MISSED] = KTREPL_REASON_MIRROR_MISSED,
	[KTR_FS_PROBES_DISARMED] = KTREPL_REASON_PROBES_DISARMED,
	[KTR_FS_VETO_MISSED] = KTREPL_REASON_VETO_MISSED,
};

static const char *reason_name(int reason)
{
	return ktrepl_reason_name(reason_words[reason]);
}

#define KTR_FS_TRIES 10
/*
 * While waiting: how often the work looks whether writes are watched
 * again; it resumes at the second look in a row that finds them watched.
 */
#define KTR_FS_RECHECK_MS 250

/* the most events failsafe_limit may ask to keep the times of */
#define KTR_FS_LIMIT_MAX 64U

static unsigned int failsafe_limit = 5;
module_param(failsafe_limit, uint, 0444);
MODULE_PARM_DESC(failsafe_limit, "replication stays off at the failsafe_limit-th fail-safe event within failsafe_window_s (1-64)");
static unsigned int failsafe_window_s = 600;
module_param(failsafe_window_s, uint, 0444);
MODULE_PARM_DESC(failsafe_window_s, "the window failsafe_limit counts events in (seconds)");

/* failsafe_lock is core.c's (ktr_failsafe_lock): see there */
static unsigned long pending;		/* a bit per enum ktr_failsafe_reason */
static bool closed = true;		/* until the load is done, and after */
static u64 nr_events;			/* under failsafe_lock */
static int last_reason = -1;		/* under failsafe_lock */
static bool active;			/* off because of a miss, now */
static bool given_up;			/* and for good: under failsafe_lock */
/* paused until the probes are armed again: written under failsafe_lock */
static bool waiting;
/* the rechecks in a row that found writes watched: under failsafe_lock */
static unsigned int watched_looks;
/* the times of the last events, a ring: under failsafe_lock */
static unsigned long event_times[KTR_FS_LIMIT_MAX];

static void failsafe_fn(struct work_struct *work);
static DECLARE_WORK(failsafe_work, failsafe_fn);
static void recheck_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(recheck_work, recheck_fn);

/* Context: any (kprobe and ftrace handlers included); does not sleep. */
void ktr_failsafe_trip(enum ktr_failsafe_reason why)
{
	set_bit(why, &pending);
	/* pairs with ktr_failsafe_start(): the bit or the open is seen */
	smp_mb__after_atomic();
	if (!READ_ONCE(closed))
		queue_work(system_unbound_wq, &failsafe_work);
}
NOKPROBE_SYMBOL(ktr_failsafe_trip);

/*
 * Under audit_lock, before the resync's repairing pass: an audit trip
 * raised before it names a page that differed then, which that pass
 * recopies. It is the event under repair, not a second one.
 */
static void absorb_audit_trip(void)
{
	lockdep_assert_held(&ktr_failsafe_lock);
	clear_bit(KTR_FS_AUDIT_REPAIR, &pending);
}

/* a waiting work looks again: see set_waiting() */
static void recheck_fn(struct work_struct *work)
{
	if (READ_ONCE(waiting) && !READ_ONCE(closed))
		queue_work(system_unbound_wq, &failsafe_work);
}

/*
 * Paused until writes are watched again: the audit is held (it would take
 * the disarm's writes for misses) and the work looks again every
 * KTR_FS_RECHECK_MS, whatever turned the switch back on. Under
 * failsafe_lock.
 */
static void set_waiting(bool on)
{
	lockdep_assert_held(&ktr_failsafe_lock);
	WRITE_ONCE(waiting, on);
	watched_looks = 0;
	ktr_audit_hold(on);
}

/* What leaves writes to text unwatched now, if anything. */
enum write_watch {
	WRITES_WATCHED,
	PROBES_UNARMED,	/* a switch silenced our probes */
	PROPAGATE_OFF,	/* the test build's propagate=0 drops every patch */
};

/* Process context. *switch_name: "kprobes" or "ftrace" (PROBES_UNARMED). */
static enum write_watch write_watch(const char **switch_name)
{
	*switch_name = ktr_probes_unarmed();
	if (*switch_name)
		return PROBES_UNARMED;
	return ktr_test_propagate() ? WRITES_WATCHED : PROPAGATE_OFF;
}

/*
 * Is this event the failsafe_limit-th within failsafe_window_s? Process
 * context, under failsafe_lock.
 */
static bool event_recurs(void)
{
	unsigned int limit = clamp(failsafe_limit, 1U, KTR_FS_LIMIT_MAX);
	unsigned long now = jiffies, oldest;

	lockdep_assert_held(&ktr_failsafe_lock);
	event_times[nr_events % limit] = now;
	if (nr_events < limit)
		return false;
	/* the slot the next event takes holds the limit-th last one */
	oldest = event_times[(nr_events + 1) % limit];
	return time_before(now, oldest + (unsigned long)failsafe_window_s * HZ);
}

/* Context: process, under failsafe_lock. */
static const char *repair_and_check(void)
{
	unsigned int fixed = 0, left = 0;
	int tries, rebuilt, differ;
	bool intact;

	lockdep_assert_held(&ktr_failsafe_lock);
	/* a patch in flight would look missed (x86 without text_mutex) */
	if (!ktr_patch_excludable())
		return ktrepl_reason_name(
			KTREPL_REASON_FAILSAFE_NO_PATCH_EXCLUSION);
	for (tries = 0; tries < KTR_FS_TRIES; tries++) {
		fixed += ktr_patch_resync(true, absorb_audit_trip);
		left = ktr_patch_resync(false, NULL);
		if (!left)
			break;
		/* a patch landed between the two passes: go again */
		msleep(20);
	}
	pr_info("fail-safe: %u replica page(s) recopied from the master, %u still differ\n",
		fixed, left);
	if (left)
		return ktrepl_reason_name(
			KTREPL_REASON_FAILSAFE_REPLICAS_UNVERIFIED);
	/*
	 * The tables too, whatever the miss: a table entry the mirror
	 * missed, or a table the kernel freed under a copied entry (the
	 * veto did not run), is rebuilt from the master's; what cannot be
	 * (the master's table itself is gone, or a copied page lost its
	 * pre-populated table) leaves replication off.
	 */
	ktr_modules_lock();
	for (tries = 0, rebuilt = 0; tries < KTR_FS_TRIES; tries++) {
		int pass = ktr_tables_resync(true);

		rebuilt = pass < 0 ? pass : rebuilt + pass;
		differ = pass < 0 ? pass : ktr_tables_resync(false);
		/*
		 * A vmap in the mirror's reach between the two passes: the
		 * master written, its mirror not yet run. Go again.
		 */
		if (differ <= 0)
			break;
		msleep(20);
	}
	ktr_modules_unlock();
	intact = ktr_fresh_intact();
	if (rebuilt < 0 || differ)
		pr_err("fail-safe: the node tables cannot be rebuilt from the master's: %d\n",
		       rebuilt < 0 ? rebuilt : differ);
	else
		pr_info("fail-safe: %d node table entr%s rebuilt from the master's, 0 still differ\n",
			rebuilt, rebuilt == 1 ? "y" : "ies");
	if (!intact)
		pr_err("fail-safe: a copied table page lost a pre-populated table: a node's copy can no longer stay fresh\n");
	if (rebuilt < 0 || differ || !intact)
		return ktrepl_reason_name(
			KTREPL_REASON_FAILSAFE_TABLES_UNVERIFIED);
	return NULL;
}

/* Context: process, under failsafe_lock. */
static void give_up(const char *refusal, const char *what)
{
	lockdep_assert_held(&ktr_failsafe_lock);
	given_up = true;
	set_waiting(false);
	ktr_activation_give_up(refusal);
	pr_err("fail-safe (%s): %s: %s\n", reason_name(last_reason), what,
	       refusal);
}

static void failsafe_fn(struct work_struct *work)
{
	const char *refusal, *switch_name;
	unsigned long why;

	mutex_lock(&ktr_failsafe_lock);
	why = xchg(&pending, 0);
	/*
	 * The source it waits on, seen again: the same disarm, another patch
	 * that propagate=0 dropped, or the disarm's writes that an audit pass
	 * under way as it began saw. Nothing runs on the replicas, and the
	 * resume recopies and checks them all.
	 */
	if (waiting) {
		why &= ~(BIT(KTR_FS_PROBES_DISARMED) |
			 BIT(KTR_FS_AUDIT_REPAIR));
		if (!ktr_test_propagate())
			why &= ~BIT(KTR_FS_PATCH_MISSED);
	}
	if ((!why && !waiting) || closed)
		goto out;
	if (!why) {
		/*
		 * The recheck: armed again, or propagate=1? Twice in a row: the
		 * kernel clears its disarmed flag before it re-arms the sites.
		 */
		if (write_watch(&switch_name) != WRITES_WATCHED) {
			watched_looks = 0;
			goto out;
		}
		if (++watched_looks < 2)
			goto out;
		watched_looks = 0;
		pr_info("fail-safe (%s): %s; checking the replicas\n",
			reason_name(last_reason),
			last_reason == KTR_FS_PROBES_DISARMED ?
				"the probes are armed again" :
				"propagation is on again");
		goto repair;
	}
	nr_events++;
	last_reason = __ffs(why);
	WRITE_ONCE(active, true);
	if (given_up) {
		pr_err("fail-safe (%s): replication is already off\n",
		       reason_name(last_reason));
		goto out_changed;
	}
	/* first off the node tables, then say so and tell the publisher */
	if (!ktr_activation_paused())
		ktr_activation_pause();
	pr_err("fail-safe (%s): a write may have missed the replicas; every CPU and process is back on the master's tables\n",
	       reason_name(last_reason));
	ktr_notify_changed(true);
	if (event_recurs()) {
		give_up(ktrepl_reason_name(KTREPL_REASON_FAILSAFE_RECURRING),
			"replication stays off");
		goto out_changed;
	}
repair:
	/*
	 * Disarmed: no repair yet. The disarm may still be rewriting kprobe
	 * sites, each write now missing the replicas (arm64 6.12's poke
	 * probe is one of them), so a check now would chase it and give up;
	 * nothing runs on the replicas while waiting, and the re-arm
	 * repairs and checks them all.
	 */
	switch (write_watch(&switch_name)) {
	case PROBES_UNARMED:
		/* what the audit saw was the disarm's own writes */
		last_reason = KTR_FS_PROBES_DISARMED;
		if (!waiting)
			pr_err("fail-safe (%s): %s is disarmed: activation stays paused until it is armed again\n",
			       reason_name(last_reason), switch_name);
		set_waiting(true);
		goto out_changed;
	case PROPAGATE_OFF:
		if (!waiting)
			pr_err("fail-safe (%s): propagate=0 leaves patches out of the replicas: activation stays paused until propagate=1\n",
			       reason_name(last_reason));
		set_waiting(true);
		goto out_changed;
	case WRITES_WATCHED:
		break;
	}
	if (ktr_test_audit_in_failsafe())
		ktr_audit_pass_now();
	refusal = repair_and_check();
	if (refusal) {
		give_up(refusal, "replication stays off");
		goto out_changed;
	}
	set_waiting(false);
	refusal = ktr_activation_resume();
	if (refusal) {
		give_up(refusal, "activation could not resume");
		goto out_changed;
	}
	WRITE_ONCE(active, false);
	pr_info("fail-safe (%s): every replica equals the master again; activation resumed\n",
		reason_name(last_reason));
out_changed:
	ktr_notify_changed(true);
out:
	if (waiting && !closed)
		schedule_delayed_work(&recheck_work,
				      msecs_to_jiffies(KTR_FS_RECHECK_MS));
	mutex_unlock(&ktr_failsafe_lock);
}

/*
 * Once the load is done and activation started: the counters start at
 * zero with the hooks, so a miss during the load is acted on now.
 */
void ktr_failsafe_start(void)
{
	WRITE_ONCE(closed, false);
	smp_mb();	/* pairs with ktr_failsafe_trip() */
	ktr_poll_every_miss_source();
	if (READ_ONCE(pending))
		queue_work(system_unbound_wq, &failsafe_work);
}

/* Before activation is stopped for unload: no fail-safe runs after. */
void ktr_failsafe_stop(void)
{
	mutex_lock(&ktr_failsafe_lock);
	WRITE_ONCE(closed, true);
	mutex_unlock(&ktr_failsafe_lock);
	/* neither queues the other once closed */
	cancel_delayed_work_sync(&recheck_work);
	cancel_work_sync(&failsafe_work);
}

/* Context: any; lockless reads of values the work writes. */
void ktr_failsafe_counters(u64 *events, bool *now, const char **reason)
{
	int r = READ_ONCE(last_reason);

	*events = READ_ONCE(nr_events);
	*now = READ_ONCE(active);
	*reason = r >= 0 ? reason_name(r) : NULL;
}
