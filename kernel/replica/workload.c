// SPDX-License-Identifier: GPL-2.0
/*
 * The workload (activation "workload"): one kernel thread per node that
 * executes core-kernel text on its node's tables, or on the master's in
 * master mode.
 *
 * Context: workload_ctl() and ktr_tasks() in process context under
 * workload_lock; each worker's own fields are written by the worker with
 * preemption off and read locklessly; the preemption notifiers run from
 * the scheduler with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/crc32.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/math.h>
#include <linux/pid.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/xxhash.h>

#include "activation.h"
#include "core.h"
#include "activation_mm.h"
#include "build.h"
#include "tables.h"
#include "workload.h"
#include "testing.h"

#define KTR_WORKLOAD_PROBE (1UL << 20)
#define KTR_WORKLOAD_BUF 4096

struct ktr_worker {
	struct task_struct *task;
	int nid;
	/* written by the worker itself */
	phys_addr_t root;
	int cpu;
	u64 since;		/* local_clock() once on its tables */
	struct preempt_notifier preempt;
	bool needs_flush;	/* TLB may hold the master's text */
	u64 iterations;
	unsigned long probe;
};

/*
 * workload_lock: the workers' tasks, workload_mode and workload_closed.
 * The debugfs control, the task list (debugfs and the descriptor), the
 * fail-safe (through ktr_workload_ctl()) and unload take it. A worker
 * reads the mode once, at its start, and the mode changes only after
 * kthread_stop() of every worker; ktr_workload_mode() reads it
 * locklessly.
 */
static DEFINE_MUTEX(workload_lock);
static struct ktr_worker *workers;	/* [nr_node_ids] */
static enum ktrepl_workload_mode workload_mode;
static bool workload_closed;	/* unloading: no more starts */
static bool notifiers_on;
/* the master's tables as an mm, for master mode and leaving a node's */
static struct mm_struct *master_mm;
static pgd_t *master_mm_orig_pgd;

/*
 * Workers need preemption notifiers, whose static key would be a patch
 * made later: enabled before the copy, every replica has it even with
 * propagate=0.
 */
int ktr_workload_init(void)
{
	workers = kcalloc(nr_node_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	if (!KTR_ARCH_CAN_ACTIVATE)
		return 0;
	preempt_notifier_inc();
	notifiers_on = true;
	master_mm = ktr_node_mm(ktr.master_root, &master_mm_orig_pgd);
	return master_mm ? 0 : -ENOMEM;
}

static void flush_replicated_local(void)
{
	int i;

	for (i = 0; i < ktr.nr_chunks; i++)
		ktr_arch_flush_local(ktr.chunks[i].va);
}

static bool is_node_root(phys_addr_t pa)
{
	int nid;

	for_each_online_node(nid)
		if (ktr.nodes[nid].root && __pa(ktr.nodes[nid].root) == pa)
			return true;
	return false;
}

/*
 * Back on a CPU where other tasks ran on the master's tables: their
 * global TLB entries for the text survive the CR3 switch.
 */
static void worker_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct ktr_worker *w = container_of(pn, struct ktr_worker, preempt);

	w->needs_flush = true;
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
	if (!next->mm && is_node_root(ktr_arch_read_root()))
		ktr_arch_leave_root();
}

static struct preempt_ops worker_preempt_ops = {
	.sched_in = worker_sched_in,
	.sched_out = worker_sched_out,
};

/* one burst: preemption off, so every fetch goes through the loaded root */
static unsigned long worker_burst(struct ktr_worker *w, void *buf)
{
	unsigned long acc = 0;
	int i;

	preempt_disable();
	if (w->needs_flush) {
		w->needs_flush = false;
		flush_replicated_local();
	}
	w->root = ktr_arch_read_root();
	w->cpu = smp_processor_id();
	for (i = 0; i < 16; i++) {
		acc += xxh64(buf, KTR_WORKLOAD_BUF, i);
		acc += crc32_le(i, buf, KTR_WORKLOAD_BUF);
		acc += int_sqrt(KTR_WORKLOAD_PROBE + i);
	}
	WRITE_ONCE(w->probe, int_sqrt(KTR_WORKLOAD_PROBE));
	WRITE_ONCE(w->iterations, w->iterations + 1);
	preempt_enable();
	return acc;
}

/*
 * Executes core-kernel text (hashing, int_sqrt) under its node's tables
 * (or the master's, in master mode). Each burst drops this CPU's TLB
 * entries for the replicated ranges first if other tasks ran here since
 * the last one; interrupts stay on so that sampling profilers see the
 * burst. Nearly all of its time is in core text: the loop around it is
 * module text, which is not replicated.
 */
static int workload_fn(void *arg)
{
	struct ktr_worker *w = arg;
	struct ktr_node *mem = ktr_set_node(w->nid); /* set: see start */
	struct mm_struct *mm = master_mm;
	unsigned long acc = 0;
	void *buf;

	buf = kzalloc_node(KTR_WORKLOAD_BUF, GFP_KERNEL, mem->nid);
	if (!buf)
		return -ENOMEM;
	if (workload_mode == KTREPL_WORKLOAD_NODE && mem->mm)
		mm = mem->mm;
	/*
	 * Where tables cannot be switched (arm64: TTBR1 is global), there is
	 * no mm to run on: the worker stays a plain kernel thread.
	 */
	if (mm) {
		preempt_notifier_init(&w->preempt, &worker_preempt_ops);
		preempt_notifier_register(&w->preempt);
		kthread_use_mm(mm);
	}
	w->needs_flush = true;
	WRITE_ONCE(w->since, local_clock());
	while (!kthread_should_stop()) {
		acc += worker_burst(w, buf);
		cond_resched();
	}
	if (mm) {
		kthread_unuse_mm(mm);
		/* leave this CPU's lazy mm on the master's tables */
		if (mm != master_mm) {
			kthread_use_mm(master_mm);
			kthread_unuse_mm(master_mm);
		}
		preempt_notifier_unregister(&w->preempt);
	}
	kfree(buf);
	return acc == 1;	/* keeps the loop from being optimised away */
}

static void release_cpu(void *unused)
{
	if (is_node_root(ktr_arch_read_root()))
		ktr_arch_release_cpu();
}

static void workload_stop_locked(void)
{
	int nid;

	lockdep_assert_held(&workload_lock);
	for_each_online_node(nid) {
		struct ktr_worker *w = &workers[nid];

		if (!w->task)
			continue;
		kthread_stop(w->task);
		put_task_struct(w->task);
		w->task = NULL;
	}
	/*
	 * A CPU the worker left may still be in lazy-TLB mode on the
	 * node's mm, its CR3 on our tables: move it off before they go.
	 */
	if (workload_mode != KTREPL_WORKLOAD_STOP)
		on_each_cpu(release_cpu, NULL, 1);
	workload_mode = KTREPL_WORKLOAD_STOP;
}

static int workload_start_locked(enum ktrepl_workload_mode mode)
{
	int nid;

	lockdep_assert_held(&workload_lock);
	/*
	 * One worker per node, and the descriptor has a slot for each: on
	 * more nodes than slots a dump would leave workers out, so refuse.
	 */
	if (num_online_nodes() > KTREPL_MAX_TASK_RECORDS) {
		pr_warn("workload: %u nodes, more than the %d workers a dump can list\n",
			num_online_nodes(), KTREPL_MAX_TASK_RECORDS);
		return -E2BIG;
	}
	workload_mode = mode;
	for_each_online_node(nid) {
		const struct cpumask *mask = cpumask_of_node(nid);
		struct ktr_worker *w = &workers[nid];
		struct task_struct *t;

		/* a node onlined after load has no set to run on */
		if (cpumask_empty(mask) || !ktr_set_node(nid))
			continue;
		w->nid = nid;
		w->iterations = 0;
		w->since = 0;
		t = kthread_create_on_node(workload_fn, w, nid,
					   "ktrepl_work/%d", nid);
		if (IS_ERR(t))
			return PTR_ERR(t);
		get_task_struct(t);
		set_cpus_allowed_ptr(t, mask);
		w->task = t;
		wake_up_process(t);
	}
	return 0;
}

int ktr_workload_ctl(enum ktrepl_workload_mode mode)
{
	int ret = 0;

	if (mode > KTREPL_WORKLOAD_MASTER)
		return -EINVAL;
	/*
	 * Workers are an activation of their own: beside another one they
	 * would be a second way onto the node tables. The test build lets
	 * the demo and the tests run them under any activation.
	 */
	if (mode != KTREPL_WORKLOAD_STOP && !KTR_TEST_BUILD &&
	    ktr_activation() != KTREPL_ACT_WORKLOAD)
		return -EOPNOTSUPP;
	mutex_lock(&workload_lock);
	if (workload_closed && mode != KTREPL_WORKLOAD_STOP) {
		ret = -ENODEV;
	} else if (mode != KTREPL_WORKLOAD_STOP && ktr_activation_paused()) {
		/*
		 * No worker onto tables the fail-safe is repairing. Read under
		 * workload_lock: the pause sets paused before its own stop
		 * takes the lock, so a start either sees it here or has its
		 * workers stopped by that stop.
		 */
		ret = -EBUSY;
	} else if (mode == KTREPL_WORKLOAD_STOP) {
		workload_stop_locked();
	} else if (workload_mode != mode) {
		/* switching between node and master tables restarts them */
		workload_stop_locked();
		ret = workload_start_locked(mode);
		if (ret)
			workload_stop_locked();
	}
	mutex_unlock(&workload_lock);
	ktr_notify_changed(true);
	return ret;
}

/* For good: after this no worker runs and none can be started. */
void ktr_workload_stop(void)
{
	if (!workers)
		return;
	mutex_lock(&workload_lock);
	workload_closed = true;
	workload_stop_locked();
	mutex_unlock(&workload_lock);
}

void ktr_workload_free(void)
{
	if (notifiers_on) {
		preempt_notifier_dec();
		notifiers_on = false;
	}
	if (master_mm) {
		master_mm->pgd = master_mm_orig_pgd;
		mmput(master_mm);
		master_mm = NULL;
	}
	kfree(workers);
	workers = NULL;
	workload_closed = false;
}

enum ktrepl_workload_mode ktr_workload_mode(void)
{
	return READ_ONCE(workload_mode);
}

static void task_record(const struct ktr_worker *w,
			struct ktrepl_task_record *r)
{
	const struct ktr_node *mem = ktr_set_node(w->nid);
	bool on_node = workload_mode == KTREPL_WORKLOAD_NODE && mem->mm;

	lockdep_assert_held(&workload_lock);
	r->pid = task_pid_nr(w->task);
	get_task_comm(r->comm, w->task);
	r->node = w->nid;
	r->cpu = READ_ONCE(w->cpu);
	r->root_pa = READ_ONCE(w->root);
	r->runs_on_pa = on_node ? __pa(mem->root) : __pa(ktr.master_root);
	r->since_ns = READ_ONCE(w->since);
	r->on_master = workload_mode == KTREPL_WORKLOAD_MASTER;
	r->iterations = READ_ONCE(w->iterations);
	r->probe = READ_ONCE(w->probe);
}

int ktr_tasks(struct ktrepl_task_record *recs, int max)
{
	int nid, n = 0;

	mutex_lock(&workload_lock);
	for_each_online_node(nid) {
		if (!workers || !workers[nid].task)
			continue;
		if (n < max)
			task_record(&workers[nid], &recs[n]);
		n++;
	}
	mutex_unlock(&workload_lock);
	return n;
}

/* the workload's probe, computed here on the master's tables */
unsigned long ktr_master_probe(void)
{
	return int_sqrt(KTR_WORKLOAD_PROBE);
}
