// SPDX-License-Identifier: GPL-2.0
/*
 * Activation: who runs on the node tables, as one state machine.
 *
 *   off --load's start--> starting --> active --pause--> paused
 *                                        ^                  |
 *                                        +-----resume-------+
 *   active or paused --give_up--> given_up
 *   every state --unload's stop--> off
 *
 * A refusal at load (percpu without page-granular aliases, mm without
 * the fork and exec tracepoints) stops what the kind started and goes
 * on as the workers' kind: published "inactive", with its reason.
 *
 * Each kind (percpu on arm64, mm on x86_64, workload anywhere) is an ops
 * table: what to do before the tables are built, how to start, how to
 * pause so that a resume finds what it needs (mm keeps the bindings
 * made by hand), and how to stop for good. The transitions are the only
 * writers of the state, and each one calls the kind's ops, so a stop
 * can never be skipped: a give-up after a resume that started the kind
 * stops it, and unload stops whatever a give-up or a pause left.
 *
 * act_lock (mutex, this file) guards state, the kind in force, its
 * reason and the workers' mode a pause keeps. Taken by the load's
 * start, by the fail-safe's pause, resume and give-up (inside
 * failsafe_lock) and by unload's stop; asserted by every transition.
 * The published activation and ktr_activation_paused() are read
 * locklessly from any context: only their writers hold the lock.
 * Order: failsafe_lock > act_lock > workload_lock, bind_lock, mods_lock
 * (core.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "activation.h"
#include "core.h"
#include "activation_mm.h"
#include "build.h"
#include "fresh.h"
#include "modules.h"
#include "workload.h"

static char *activation;
module_param(activation, charp, 0400);
MODULE_PARM_DESC(activation, "who runs on the replicas: percpu (arm64 default), mm (x86_64 default), workload or inactive");

enum act_state {
	ACT_OFF,	/* nobody on the node tables, nothing to stop */
	ACT_STARTING,	/* the load is moving CPUs or processes */
	ACT_ACTIVE,
	ACT_PAUSED,	/* the fail-safe's, until its resume */
	ACT_GIVEN_UP,	/* off until unload */
};

struct act_kind {
	/* before the node tables are built (load only): NULL, or why not */
	const char *(*prepare)(bool alias_writable);
	void (*unprepare)(void);
	const char *(*start)(void);	/* NULL, or why not */
	void (*pause)(void);		/* off the node tables, until resume */
	void (*stop)(void);		/* off for good; idempotent */
};

static DEFINE_MUTEX(act_lock);
static enum act_state state;			/* written under act_lock */
static enum ktrepl_activation act_now;		/* ditto; read locklessly */
static const struct act_kind *kind;		/* under act_lock */
static const char *act_reason = "";		/* under act_lock */
/* the workers' mode when the pause stopped them, for the resume */
static enum ktrepl_workload_mode paused_workload = KTREPL_WORKLOAD_STOP;

/* percpu (arm64): every CPU on its node's tables */
static const char *percpu_prepare(bool alias_writable)
{
	/* a CPU running a replica whose alias is writable runs what anyone wrote */
	if (alias_writable)
		return ktrepl_reason_name(
			KTREPL_REASON_DIRECT_MAP_NOT_PAGE_GRANULAR);
	return ktr_fresh_start();
}

static const char *percpu_start(void)
{
	int fixed;

	if (state == ACT_STARTING) {
		fixed = ktr_recopy_quiesced();
		if (fixed)
			pr_info("%d chunk copies caught up with a patch made during the load\n",
				fixed);
	}
	return ktr_arch.percpu_start();
}

static void percpu_stop(void)
{
	ktr_arch.percpu_stop();
}

static const struct act_kind percpu_kind = {
	.prepare = percpu_prepare,
	.unprepare = ktr_fresh_stop,
	.start = percpu_start,
	/* a CPU on a node root is all there is: pausing is stopping */
	.pause = percpu_stop,
	.stop = percpu_stop,
};

/* mm (x86_64): node-confined processes on their node's set */
static const char *mm_start(void)
{
	const char *why = ktr_arch.mm->start();

	if (!why) {
		ktr_provider.bound = ktr_arch.mm->bound;
		ktr_provider.bound_past = ktr_arch.mm->bound_past;
		ktr_provider.bind_ctl = ktr_arch.mm->bind_ctl;
		ktr_provider.bind_auto = ktr_arch.mm->auto_on;
	}
	return why;
}

static void mm_pause(void)
{
	ktr_arch.mm->pause();
}

static void mm_stop(void)
{
	ktr_arch.mm->stop();
}

static const struct act_kind mm_kind = {
	.start = mm_start,
	.pause = mm_pause,
	.stop = mm_stop,
};

/*
 * workload, and inactive (asked for, or a refusal at load): only the
 * workers are ever on the node tables, which the control starts (under
 * any activation in the test build), and which a pause stops. No ops.
 */
static const struct act_kind workers_kind;

static const struct act_kind *kind_of(enum ktrepl_activation act)
{
	switch (act) {
	case KTREPL_ACT_PERCPU:
		return &percpu_kind;
	case KTREPL_ACT_MM:
		return &mm_kind;
	case KTREPL_ACT_WORKLOAD:
	case KTREPL_ACT_INACTIVE:
		return &workers_kind;
	default:
		return NULL;
	}
}

enum ktrepl_activation ktr_activation(void)
{
	return READ_ONCE(act_now);
}
NOKPROBE_SYMBOL(ktr_activation);

/* from a pause to its resume, and for good after a give-up */
bool ktr_activation_paused(void)
{
	enum act_state s = READ_ONCE(state);

	return s == ACT_PAUSED || s == ACT_GIVEN_UP;
}
NOKPROBE_SYMBOL(ktr_activation_paused);

static void set_state(enum act_state to)
{
	lockdep_assert_held(&act_lock);
	WRITE_ONCE(state, to);
}

/* the activation and its reason, as debugfs and the descriptor show them */
static void publish(enum ktrepl_activation act, const char *why)
{
	lockdep_assert_held(&act_lock);
	WRITE_ONCE(act_now, act);
	ktr_modules_want_nonglobal(act == KTREPL_ACT_MM);
	act_reason = why;
	WRITE_ONCE(ktr_provider.activation, act);
	ktr_provider.activation_reason = why;
}

/* the activation asked for, or the arch's default */
static int requested(enum ktrepl_activation *act)
{
	if (!activation || !*activation) {
		*act = ktr_arch.percpu_start ? KTREPL_ACT_PERCPU :
		       ktr_arch.mm ? KTREPL_ACT_MM :
		       KTR_ARCH_CAN_ACTIVATE ? KTREPL_ACT_WORKLOAD :
					       KTREPL_ACT_INACTIVE;
	} else {
		/* the names are ktrepl_abi.h's; "none" is a result, not a request */
		int found = ktrepl_abi_lookup(ktrepl_activation_str,
					      KTREPL_ACT_NR, activation);

		if (found < 0 || found == KTREPL_ACT_NONE)
			return -EINVAL;
		*act = found;
	}
	if (*act == KTREPL_ACT_PERCPU && !ktr_arch.percpu_start)
		return -EOPNOTSUPP;
	if (*act == KTREPL_ACT_MM && !ktr_arch.mm)
		return -EINVAL;
	if (*act == KTREPL_ACT_WORKLOAD && !KTR_ARCH_CAN_ACTIVATE)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * At load, before anything is built: nothing to replicate gives "none";
 * otherwise the activation asked for, or an error the load fails with.
 */
int ktr_activation_choose(bool any_replica)
{
	enum ktrepl_activation act = KTREPL_ACT_NONE;
	int ret = 0;

	mutex_lock(&act_lock);
	if (any_replica)
		ret = requested(&act);
	if (ret)
		pr_err("activation=%s is not one this %s kernel can do\n",
		       activation, KTR_ARCH_NAME);
	else
		kind = kind_of(act);
	if (!ret)
		publish(act, "");
	mutex_unlock(&act_lock);
	return ret;
}

/*
 * A refusal at load: the module stays loaded, inactive, says why, and
 * goes on as the workers' kind.
 */
static void refuse(const char *why)
{
	lockdep_assert_held(&act_lock);
	if (kind->stop && state != ACT_OFF)
		kind->stop();
	if (kind->unprepare)
		kind->unprepare();
	kind = &workers_kind;
	publish(KTREPL_ACT_INACTIVE, why);
}

/* load, after the copies and before the node tables are built */
void ktr_activation_prepare(bool alias_writable)
{
	const char *why;

	mutex_lock(&act_lock);
	if (kind && kind->prepare) {
		why = kind->prepare(alias_writable);
		if (why)
			refuse(why);
	}
	mutex_unlock(&act_lock);
}

/* load, once every node's tables are built: CPUs or processes onto them */
void ktr_activation_start(void)
{
	const char *why = NULL;

	mutex_lock(&act_lock);
	if (kind && state == ACT_OFF) {
		set_state(ACT_STARTING);
		if (kind->start)
			why = kind->start();
		if (why)
			refuse(why);
		set_state(ACT_ACTIVE);
	}
	mutex_unlock(&act_lock);
}

/* load, at its end: what is in force, or why not what was asked */
void ktr_activation_report(void)
{
	mutex_lock(&act_lock);
	if (*act_reason)
		pr_warn("activation=inactive activation_reason=%s\n",
			act_reason);
	else if (act_now == KTREPL_ACT_PERCPU)
		pr_info("activation=percpu: every CPU runs on its node's tables\n");
	else if (act_now == KTREPL_ACT_MM)
		pr_info("activation=mm: node-bound processes run on their node's tables\n");
	mutex_unlock(&act_lock);
}

/* the fail-safe's first step: everyone off the node tables, at once */
void ktr_activation_pause(void)
{
	ktr_failsafe_lock_assert_held();
	mutex_lock(&act_lock);
	if (state == ACT_ACTIVE) {
		/* before the workers' stop takes workload_lock: see workload.c */
		set_state(ACT_PAUSED);
		paused_workload = ktr_workload_mode();
		if (paused_workload != KTREPL_WORKLOAD_STOP)
			ktr_workload_ctl(KTREPL_WORKLOAD_STOP);
		if (kind->pause)
			kind->pause();
	}
	mutex_unlock(&act_lock);
}

/*
 * The fail-safe's last step, with every replica checked: back on the
 * node tables. NULL, or why not (the caller then gives up, which stops
 * whatever this started).
 */
const char *ktr_activation_resume(void)
{
	const char *why = NULL;

	ktr_failsafe_lock_assert_held();
	mutex_lock(&act_lock);
	if (state != ACT_PAUSED)
		goto out;
	if (kind->start)
		why = kind->start();
	if (why)
		goto out;
	set_state(ACT_ACTIVE);
	if (paused_workload != KTREPL_WORKLOAD_STOP &&
	    ktr_workload_ctl(paused_workload))
		why = ktrepl_reason_name(
			KTREPL_REASON_FAILSAFE_WORKLOAD_RESTART_FAILED);
out:
	mutex_unlock(&act_lock);
	return why;
}

/* nobody runs on the node tables from here until unload */
void ktr_activation_give_up(const char *why)
{
	ktr_failsafe_lock_assert_held();
	mutex_lock(&act_lock);
	if (state != ACT_OFF && state != ACT_GIVEN_UP) {
		set_state(ACT_GIVEN_UP);
		ktr_workload_ctl(KTREPL_WORKLOAD_STOP);
		if (kind->stop)
			kind->stop();
	}
	publish(KTREPL_ACT_INACTIVE, why);
	mutex_unlock(&act_lock);
}

/*
 * Unload, after the fail-safe is stopped: every CPU and every process
 * back on the master, whatever state a give-up or a pause left, before
 * any table may go.
 */
void ktr_activation_stop(void)
{
	mutex_lock(&act_lock);
	if (kind && kind->stop)
		kind->stop();
	set_state(ACT_OFF);
	mutex_unlock(&act_lock);
}
