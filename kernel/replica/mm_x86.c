// SPDX-License-Identifier: GPL-2.0
/*
 * Activation "mm" (x86_64): node-bound processes run on their node's set.
 *
 * CR3 is per mm, shared by the mm's threads on every node, so a module
 * cannot move a whole CPU. It can move a process: a process whose
 * threads are all allowed only on one node's CPUs gets its mm's
 * kernel-image entry (the top-level entry over __START_KERNEL_map, which
 * pgd_ctor() copied from swapper_pg_dir) pointed at that node's set, or
 * at its memory node's. Every copy holds the same bytes, so correctness
 * never depends on the binding: a process that wanders is only remote.
 *
 * Global TLB entries survive a CR3 switch: a bound process would go on
 * fetching the master's text through entries other processes left. While
 * this mode is on, the text and rodata leaf entries of the master and of
 * every set are non-global, so each mm's translations are its own (per
 * PCID, or dropped at each switch without PCID). Restored at stop.
 *
 * A scan every scan_period_ms binds and unbinds; fork and exec point a
 * confined new mm at once and leave an event for the scan to list. The bind file binds by hand. A bound mm is held with mmgrab(), so
 * its pgd outlives the process until it is unbound here.
 *
 * Context: process (the scan work, the bind file, load and unload), under
 * bind_lock; the tracepoint probes only queue the scan.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <asm/tlbflush.h>

#include "core.h"
#include "activation_mm.h"
#include "build.h"
#include "tables.h"
#include "testing.h"

static unsigned int scan_period_ms = 250;
module_param(scan_period_ms, uint, KTR_SAFETY_PARAM_PERM);
MODULE_PARM_DESC(scan_period_ms, "x86_64 activation=mm: look for node-confined processes this often (ms)");

struct ktr_bound {
	struct list_head list;
	pid_t pid;		/* the thread group */
	struct mm_struct *mm;	/* mmgrab()ed */
	int node;		/* whose set: a node with memory */
	bool manual;
	bool excluded;		/* unbound by hand: auto leaves it alone */
	bool seen;		/* by the current scan */
	u64 since;		/* local_clock() once its CPUs may use it */
	char comm[TASK_COMM_LEN];
};

/*
 * bind_lock: the bound list, the past ring, the events' tail, mm_on and
 * list_dirty. The scan work, the bind file, the debugfs lists, the test
 * build's injection and mm_stop() take it. The fork and exec probes
 * never do: they run with preemption off, read mm_on locklessly, write
 * one mm's image entry (any value they write maps the same bytes) and
 * claim an event slot with an atomic, which the scan drains under the
 * lock. mm_start() and mm_stop() rewrite the leaves' global bits outside
 * it: only load, unload and the fail-safe (under failsafe_lock) call
 * them, one at a time.
 */
static DEFINE_MUTEX(bind_lock);
static LIST_HEAD(bound_list);
static bool auto_bind = true;
static bool mm_on;		/* written under bind_lock */
static bool list_dirty;		/* under bind_lock: tell the publisher */
static int kernel_slot;		/* the top-level index of the image */
static atomic64_t nr_binds, nr_unbinds;

static void scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(scan_work, scan_fn);

/*
 * What ktrepl-top needs to resolve samples exactly after the fact: when a
 * probe pointed an mm (a process may exit before any scan lists it), and
 * bindings that ended in the last KTR_PAST_NS. Probes write events
 * locklessly; the scan drains them under bind_lock.
 */
#define KTR_EVENTS 1024
#define KTR_PAST_NS (10 * NSEC_PER_SEC)

struct ktr_bind_event {
	pid_t pid;		/* 0: free, or not yet written */
	int node;
	u64 since;
};

static struct ktr_bind_event events[KTR_EVENTS];
static atomic_t event_head;
static unsigned int event_tail;	/* under bind_lock */

struct ktr_past {
	pid_t pid;
	int node;
	u64 since, until;
	char comm[TASK_COMM_LEN];
};

static struct ktr_past past[KTREPL_MAX_BOUND_RECORDS];	/* under bind_lock */
static unsigned int past_head;

static void note_past(pid_t pid, int node, u64 since, u64 until,
		      const char *comm)
{
	struct ktr_past *e;

	lockdep_assert_held(&bind_lock);
	e = &past[past_head++ % KTREPL_MAX_BOUND_RECORDS];
	*e = (struct ktr_past){ .pid = pid, .node = node, .since = since,
				.until = until };
	strscpy(e->comm, comm, sizeof(e->comm));
	list_dirty = true;
}

/* from a probe, preemption off: nid's set is in place for pid from now */
static void note_event(pid_t pid, int nid)
{
	unsigned int i = atomic_inc_return(&event_head) - 1;
	struct ktr_bind_event *e = &events[i % KTR_EVENTS];

	e->node = ktr_memory_nid(nid);
	e->since = local_clock();
	smp_wmb();	/* pid last: the scan reads it first */
	WRITE_ONCE(e->pid, pid);
	/* a fork storm: drain before the ring laps (the scan is not free) */
	if (!((i + 1) % (KTR_EVENTS / 2)))
		mod_delayed_work(system_wq, &scan_work, 0);
}

/* one leaf entry made non-global, to be made global again at stop */
struct ktr_nonglobal {
	u64 *entry;
	u64 orig;
};
static struct ktr_nonglobal *nonglobal;
static int nr_nonglobal;

static u64 set_entry(int nid)
{
	const struct ktr_node *n = ktr_set_node(nid);
	u64 *root = n && n->root ? n->root : ktr.master_root;

	return READ_ONCE(root[kernel_slot]);
}

static phys_addr_t set_root_pa(int nid)
{
	const struct ktr_node *n = ktr_set_node(nid);

	return __pa(n && n->root ? n->root : ktr.master_root);
}

static u64 *mm_slot(struct mm_struct *mm)
{
	return (u64 *)mm->pgd + kernel_slot;
}

/* the node whose CPUs alone the whole thread group may run on, or -1 */
static int confined_node(struct task_struct *p)
{
	struct task_struct *t;
	int nid = NUMA_NO_NODE;

	for_each_thread(p, t) {
		int cpu = cpumask_first(t->cpus_ptr);

		if (cpu >= nr_cpu_ids)
			return NUMA_NO_NODE;
		if (nid == NUMA_NO_NODE)
			nid = cpu_to_node(cpu);
		if (nid == NUMA_NO_NODE ||
		    !cpumask_subset(t->cpus_ptr, cpumask_of_node(nid)))
			return NUMA_NO_NODE;
	}
	/* a node onlined after load has no set: its processes stay put */
	return ktr_memory_nid(nid) == NUMA_NO_NODE ? NUMA_NO_NODE : nid;
}

static struct ktr_bound *find_bound(pid_t pid)
{
	struct ktr_bound *b;

	lockdep_assert_held(&bind_lock);
	list_for_each_entry(b, &bound_list, list)
		if (b->pid == pid)
			return b;
	return NULL;
}

/* Point mm's image entry at nid's set (or the master's); no flush here. */
static void point_mm(struct mm_struct *mm, int nid)
{
	u64 val = nid == NUMA_NO_NODE ? READ_ONCE(ktr.master_root[kernel_slot]) :
					 set_entry(nid);

	WRITE_ONCE(*mm_slot(mm), val);
}

/*
 * b's mm back on the master's entry and let go; the binding, which ended
 * at until, goes to the history ktrepl-top resolves samples through.
 */
static void release_mm(struct ktr_bound *b, u64 until)
{
	lockdep_assert_held(&bind_lock);
	if (!b->mm)
		return;
	point_mm(b->mm, NUMA_NO_NODE);
	mmdrop(b->mm);
	b->mm = NULL;
	atomic64_inc(&nr_unbinds);
	if (b->since)
		note_past(b->pid, b->node, b->since, until, b->comm);
	list_dirty = true;
}

static void drop_bound(struct ktr_bound *b)
{
	lockdep_assert_held(&bind_lock);
	release_mm(b, local_clock());
	list_del(&b->list);
	kfree(b);
	list_dirty = true;
}

/*
 * Bind task p's mm to nid. Returns true when its entry changed: the
 * caller flushes so that the process leaves the old copy at once. An
 * entry a fork or exec probe already set needs no flush.
 */
static bool bind_task(struct task_struct *p, int nid, bool manual,
		      u64 since_hint)
{
	struct ktr_bound *b = find_bound(p->tgid);
	struct mm_struct *mm = get_task_mm(p);
	bool changed = false;

	lockdep_assert_held(&bind_lock);
	if (!mm)
		return false;
	if (!b) {
		b = kzalloc(sizeof(*b), GFP_KERNEL);
		if (!b)
			goto out;
		b->pid = p->tgid;
		list_add_tail(&b->list, &bound_list);
	}
	b->seen = true;
	b->manual = manual;
	b->excluded = false;
	get_task_comm(b->comm, p);
	if (b->mm != mm || b->node != ktr_memory_nid(nid)) {
		if (b->mm != mm)	/* exec left the old one */
			release_mm(b, since_hint ? since_hint : local_clock());
		if (!b->mm) {
			mmgrab(mm);
			b->mm = mm;
		}
		b->node = ktr_memory_nid(nid);
		changed = READ_ONCE(*mm_slot(mm)) != set_entry(nid);
		point_mm(mm, nid);
		b->since = changed ? 0 : since_hint ? since_hint : local_clock();
		atomic64_inc(&nr_binds);
		list_dirty = true;
	}
out:
	mmput(mm);
	return changed;
}

/* an mm on a set that no binding accounts for goes back on the master */
static void unpoint_task(struct task_struct *p)
{
	struct mm_struct *mm = get_task_mm(p);

	if (!mm)
		return;
	if (READ_ONCE(*mm_slot(mm)) != READ_ONCE(ktr.master_root[kernel_slot]))
		point_mm(mm, NUMA_NO_NODE);
	mmput(mm);
}

static void mark_since(void)
{
	struct ktr_bound *b;
	u64 now = local_clock();

	lockdep_assert_held(&bind_lock);
	list_for_each_entry(b, &bound_list, list)
		if (b->mm && !b->since)
			b->since = now;
}

/* After entries changed: no CPU may keep a translation of the old ones. */
static void settle(bool changed)
{
	if (!changed)
		return;
	ktr_arch_flush_all();
	mark_since();
}

/* after bind_lock is dropped: the descriptor's copy takes it again */
static void publish_changes(void)
{
	bool dirty;

	mutex_lock(&bind_lock);
	dirty = list_dirty;
	list_dirty = false;
	mutex_unlock(&bind_lock);
	if (dirty)
		ktr_notify_changed(true);
}

/* the live thread group pid (global namespace), referenced, or NULL */
static struct task_struct *get_group(pid_t pid)
{
	struct task_struct *p;

	rcu_read_lock();
	p = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_TGID);
	if (p && (p->flags & PF_KTHREAD))
		p = NULL;
	if (p)
		get_task_struct(p);
	rcu_read_unlock();
	return p;
}

/* a binding made by hand holds until the process exits, across exec */
static bool keep_by_hand(struct ktr_bound *b)
{
	struct task_struct *p = get_group(b->pid);
	bool changed = false;

	lockdep_assert_held(&bind_lock);
	if (!p || !p->mm) {
		drop_bound(b);
		changed = true;
	} else if (b->manual && READ_ONCE(p->mm) != b->mm) {
		changed = bind_task(p, b->node, true, 0);
	}
	if (p)
		put_task_struct(p);
	return changed;
}

/* every user process, referenced, with the node it is confined to */
static int gather(struct task_struct ***tasks, int **nodes)
{
	struct task_struct *p;
	int n = 0, cap = 64;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	*tasks = kvmalloc_array(cap, sizeof(**tasks), GFP_KERNEL);
	*nodes = kvmalloc_array(cap, sizeof(**nodes), GFP_KERNEL);
	if (!*tasks || !*nodes) {
		kvfree(*tasks);
		kvfree(*nodes);
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		if ((p->flags & PF_KTHREAD) || !p->mm)
			continue;
		get_task_struct(p);
		(*tasks)[n] = p;
		(*nodes)[n++] = confined_node(p);
	}
	rcu_read_unlock();
	return n;
}

/* the probes' events since the last scan, into ev[] (at most max) */
static int drain_events(struct ktr_bind_event *ev, int max)
{
	unsigned int head = atomic_read(&event_head);
	int n = 0;

	lockdep_assert_held(&bind_lock);
	if (head - event_tail > KTR_EVENTS)
		event_tail = head - KTR_EVENTS;	/* overrun: the oldest are gone */
	while (event_tail != head && n < max) {
		struct ktr_bind_event *e = &events[event_tail % KTR_EVENTS];
		pid_t pid = READ_ONCE(e->pid);

		if (!pid)
			break;	/* still being written: next scan */
		smp_rmb();
		ev[n] = *e;
		ev[n++].pid = pid;
		WRITE_ONCE(e->pid, 0);
		event_tail++;
	}
	return n;
}

static u64 event_since(struct ktr_bind_event *ev, int n, pid_t pid)
{
	u64 since = 0;
	int i;

	for (i = 0; i < n; i++)
		if (ev[i].pid == pid) {
			if (!since || ev[i].since < since)
				since = ev[i].since;
			ev[i].pid = 0;	/* accounted for */
		}
	return since;
}

static void scan_locked(void)
{
	struct ktr_bind_event *ev;
	struct task_struct **tasks;
	struct ktr_bound *b, *tmp;
	bool changed = false;
	int *nodes, n, i, nev;
	u64 now;

	lockdep_assert_held(&bind_lock);
	ev = kmalloc_array(KTR_EVENTS, sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return;
	nev = drain_events(ev, KTR_EVENTS);
	n = gather(&tasks, &nodes);
	if (n < 0) {
		kfree(ev);
		return;
	}
	list_for_each_entry(b, &bound_list, list)
		b->seen = false;
	for (i = 0; i < n; i++) {
		u64 since = event_since(ev, nev, tasks[i]->tgid);

		b = find_bound(tasks[i]->tgid);
		if (b && (b->manual || b->excluded))
			b->seen = true;
		else if (nodes[i] != NUMA_NO_NODE)
			changed |= bind_task(tasks[i], nodes[i], false, since);
		else if (!b)
			unpoint_task(tasks[i]);
		put_task_struct(tasks[i]);
	}
	/* pointed by a probe, and gone before any scan saw them */
	now = local_clock();
	for (i = 0; i < nev; i++)
		if (ev[i].pid)
			note_past(ev[i].pid, ev[i].node, ev[i].since, now, "-");
	kfree(ev);
	/*
	 * Gone, or no longer confined: back on the master. Any copy is a
	 * correct one, so leaving needs no flush; unload flushes them all.
	 */
	list_for_each_entry_safe(b, tmp, &bound_list, list) {
		if (b->manual || b->excluded)
			changed |= keep_by_hand(b);
		else if (!b->seen)
			drop_bound(b);
	}
	kvfree(tasks);
	kvfree(nodes);
	settle(changed);
}

/* auto off: only the hand-made bindings are looked after */
static bool prune_by_hand(void)
{
	struct ktr_bound *b, *tmp;
	bool changed = false;

	lockdep_assert_held(&bind_lock);
	list_for_each_entry_safe(b, tmp, &bound_list, list) {
		if (b->manual || b->excluded)
			changed |= keep_by_hand(b);
		else {
			drop_bound(b);
			changed = true;
		}
	}
	return changed;
}

static void scan_fn(struct work_struct *work)
{
	unsigned int period = READ_ONCE(scan_period_ms);

	mutex_lock(&bind_lock);
	if (!mm_on) {
		mutex_unlock(&bind_lock);
		return;
	}
	if (READ_ONCE(auto_bind))
		scan_locked();
	else
		settle(prune_by_hand());
	mutex_unlock(&bind_lock);
	publish_changes();
	schedule_delayed_work(&scan_work, msecs_to_jiffies(max(period, 10U)));
}

/* the node one task's CPUs all belong to, or -1 */
static int task_confined_node(struct task_struct *t)
{
	int cpu = cpumask_first(t->cpus_ptr), nid;

	if (cpu >= nr_cpu_ids)
		return NUMA_NO_NODE;
	/* a CPU the firmware gave no node: nothing to confine it to */
	nid = cpu_to_node(cpu);
	if (nid == NUMA_NO_NODE ||
	    !cpumask_subset(t->cpus_ptr, cpumask_of_node(nid)))
		return NUMA_NO_NODE;
	return nid;
}

/*
 * fork: a confined child's new mm is pointed at its set before the
 * child first runs (its first switch_mm() gets a fresh ASID, so nothing
 * needs flushing); the scan then lists it. The final sweep at stop finds
 * such an mm even if the scan never did. Context: the parent, in
 * kernel_clone(), preemption off.
 */
static void probe_fork(void *data, struct task_struct *parent,
		       struct task_struct *child)
{
	int nid;

	if (!READ_ONCE(mm_on) || !READ_ONCE(auto_bind) || !child->mm ||
	    child->mm == parent->mm)
		return;
	nid = task_confined_node(child);
	if (nid == NUMA_NO_NODE)
		return;
	point_mm(child->mm, nid);
	note_event(child->tgid, nid);
}

/*
 * exec: the new mm is live on this CPU alone (de_thread() ended the
 * others); point it and drop what this CPU cached of it since.
 * Context: the task itself, after exec_mmap(), preemption off.
 */
static void probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	int nid;

	if (!READ_ONCE(mm_on) || !READ_ONCE(auto_bind) || !p->mm ||
	    p->mm != current->mm)
		return;
	nid = task_confined_node(p);
	if (nid == NUMA_NO_NODE)
		return;
	point_mm(p->mm, nid);
	__flush_tlb_all();
	note_event(p->tgid, nid);
}

static struct tracepoint *tp_fork, *tp_exec;

static void find_tracepoint(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tp_exec = tp;
}

/*
 * The master's and every set's text and rodata leaf entries lose
 * _PAGE_GLOBAL; the master's originals are kept to be restored.
 */
static int make_text_nonglobal(void)
{
	int i, nid, cap = 0;

	for (i = 0; i < ktr.nr_chunks; i++)
		cap += ktr_chunk_size(&ktr.chunks[i]) >> PAGE_SHIFT;
	nonglobal = kvcalloc(cap, sizeof(*nonglobal), GFP_KERNEL);
	if (!nonglobal)
		return -ENOMEM;
	for (i = 0; i < ktr.nr_chunks; i++) {
		const struct ktr_chunk *c = &ktr.chunks[i];
		unsigned long va;

		for (va = c->va; va < c->va + ktr_chunk_size(c);) {
			int level;
			u64 *e = ktr_walk(ktr.master_root, va, -1, &level);
			u64 v = READ_ONCE(*e);
			unsigned long step = ktr_level_size(level), flags;

			/*
			 * Against the table mirror, which compares a node's
			 * copy of the image's upper tables with the master's
			 * and could write back the bit between our two writes
			 */
			flags = ktr_tables_lock();
			if (ktr_pte_present(v) && (v & _PAGE_GLOBAL) &&
			    nr_nonglobal < cap) {
				nonglobal[nr_nonglobal++] =
					(struct ktr_nonglobal){ e, v };
				WRITE_ONCE(*e, v & ~_PAGE_GLOBAL);
			}
			for_each_online_node(nid) {
				u64 *root = ktr.nodes[nid].root;
				u64 *ne;
				int nl;

				if (!root || !ktr.nodes[nid].own_replica)
					continue;
				ne = ktr_walk(root, va, -1, &nl);
				if (ne != e && ktr_pte_present(*ne))
					WRITE_ONCE(*ne, *ne & ~_PAGE_GLOBAL);
			}
			ktr_tables_unlock(flags);
			va = (va & ~(step - 1)) + step;
		}
	}
	ktr_arch_flush_all();
	return 0;
}

static void restore_global(void)
{
	int i;

	for (i = 0; i < nr_nonglobal; i++)
		WRITE_ONCE(*nonglobal[i].entry, nonglobal[i].orig);
	nr_nonglobal = 0;
	kvfree(nonglobal);
	nonglobal = NULL;
}

static const char *mm_start(void)
{
	int ret;

	kernel_slot = pgd_index(__START_KERNEL_map);
	for_each_kernel_tracepoint(find_tracepoint, NULL);
	if (!tp_fork || !tp_exec)
		return ktrepl_reason_name(
			KTREPL_REASON_NO_FORK_EXEC_TRACEPOINTS);
	ret = make_text_nonglobal();
	if (ret)
		return ktrepl_reason_name(KTREPL_REASON_OUT_OF_MEMORY);
	if (tracepoint_probe_register(tp_fork, probe_fork, NULL) ||
	    tracepoint_probe_register(tp_exec, probe_exec, NULL)) {
		tracepoint_probe_unregister(tp_fork, probe_fork, NULL);
		tracepoint_synchronize_unregister();
		restore_global();
		ktr_arch_flush_all();
		return ktrepl_reason_name(
			KTREPL_REASON_TRACEPOINT_REGISTRATION_FAILED);
	}
	mutex_lock(&bind_lock);
	WRITE_ONCE(mm_on, true);
	mutex_unlock(&bind_lock);
	mod_delayed_work(system_wq, &scan_work, 0);
	return NULL;
}

/*
 * Every live mm a probe pointed at a set, listed or not, back on the
 * master. task_lock() keeps a task's mm alive while it is set; no
 * allocation, so unload cannot fail here.
 */
static void sweep(void)
{
	u64 master = READ_ONCE(ktr.master_root[kernel_slot]);
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		task_lock(t);
		if (t->mm && READ_ONCE(*mm_slot(t->mm)) != master)
			WRITE_ONCE(*mm_slot(t->mm), master);
		task_unlock(t);
	}
	rcu_read_unlock();
}

/*
 * Every mm back on the master's entry and every CPU's TLB flushed before
 * the sets may go: no mm, and no translation, can point at them after.
 * A pause (keep_by_hand) keeps the bindings made by hand, each with its
 * mm let go, so that the resume's first scan binds them again
 * (keep_by_hand()); a stop frees every binding, whatever a pause kept.
 */
static void mm_off(bool keep_hand_made)
{
	struct ktr_bound *b, *tmp;
	bool was_on;

	mutex_lock(&bind_lock);
	was_on = mm_on;
	if (was_on) {
		/*
		 * At once, before anything waits: every mm back on the
		 * master's entry and every TLB flushed (a fail-safe's first
		 * step). The probes see mm_on off from here on.
		 */
		WRITE_ONCE(mm_on, false);
		sweep();
		ktr_arch_flush_all();
	}
	mutex_unlock(&bind_lock);
	if (was_on) {
		tracepoint_probe_unregister(tp_fork, probe_fork, NULL);
		tracepoint_probe_unregister(tp_exec, probe_exec, NULL);
		tracepoint_synchronize_unregister();
		cancel_delayed_work_sync(&scan_work);
	}
	mutex_lock(&bind_lock);
	list_for_each_entry_safe(b, tmp, &bound_list, list) {
		if (keep_hand_made && (b->manual || b->excluded))
			release_mm(b, local_clock());
		else
			drop_bound(b);
	}
	if (was_on) {
		/* what a probe that read mm_on before the store pointed since */
		sweep();
		restore_global();
		ktr_test_lifetime("core_leaves_global restored");
		ktr_arch_flush_all();
	}
	mutex_unlock(&bind_lock);
	if (was_on)
		tp_fork = tp_exec = NULL;
}

static void mm_pause(void)
{
	mm_off(true);
}

static void mm_stop(void)
{
	mm_off(false);
}

static int mm_bound(struct ktrepl_bound_record *recs, int max)
{
	struct ktr_bound *b;
	int n = 0;

	mutex_lock(&bind_lock);
	list_for_each_entry(b, &bound_list, list) {
		if (!b->mm)
			continue;
		if (n++ >= max)
			continue;	/* counted: the caller says how many */
		recs[n - 1] = (struct ktrepl_bound_record){
			.pid = b->pid,
			.node = b->node,
			.manual = b->manual,
			.mm_pgd_pa = __pa(b->mm->pgd),
			.root_pa = set_root_pa(b->node),
			.entry = READ_ONCE(*mm_slot(b->mm)),
			.since_ns = b->since,
		};
		memcpy(recs[n - 1].comm, b->comm, sizeof(recs[n - 1].comm));
	}
	mutex_unlock(&bind_lock);
	return n;
}

/* bindings that ended within KTR_PAST_NS, oldest first */
static int mm_bound_past(struct ktrepl_bound_record *recs, int max)
{
	u64 now = local_clock();
	unsigned int i;
	int n = 0;

	mutex_lock(&bind_lock);
	i = past_head > KTREPL_MAX_BOUND_RECORDS ?
		    past_head - KTREPL_MAX_BOUND_RECORDS : 0;
	for (; i != past_head && n < max; i++) {
		const struct ktr_past *e = &past[i % KTREPL_MAX_BOUND_RECORDS];

		if (now - e->until > KTR_PAST_NS)
			continue;
		recs[n] = (struct ktrepl_bound_record){
			.pid = e->pid,
			.node = e->node,
			.root_pa = set_root_pa(e->node),
			.since_ns = e->since,
			.until_ns = e->until,
		};
		memcpy(recs[n].comm, e->comm, sizeof(recs[n].comm));
		n++;
	}
	mutex_unlock(&bind_lock);
	return n;
}

/* pid=P node=N (N = -1 unbinds), or auto=0|1 */
static int mm_bind_ctl(pid_t pid, int nid, int set_auto)
{
	struct task_struct *p = NULL;
	struct ktr_bound *b;
	bool changed = false;
	int ret = 0;

	mutex_lock(&bind_lock);
	if (!mm_on) {
		ret = -ENODEV;
		goto out;
	}
	if (set_auto >= 0) {
		WRITE_ONCE(auto_bind, set_auto);
		mod_delayed_work(system_wq, &scan_work, 0);
		goto out;
	}
	p = get_group(pid);
	if (!p || !p->mm) {
		ret = -ESRCH;
		goto put;
	}
	if (nid >= 0) {
		if (ktr_memory_nid(nid) == NUMA_NO_NODE || !node_online(nid)) {
			ret = -EINVAL;
			goto put;
		}
		changed = bind_task(p, nid, true, 0);
	} else {
		b = find_bound(p->tgid);
		if (!b) {
			b = kzalloc(sizeof(*b), GFP_KERNEL);
			if (!b) {
				ret = -ENOMEM;
				goto put;
			}
			b->pid = p->tgid;
			list_add_tail(&b->list, &bound_list);
		}
		release_mm(b, local_clock());
		b->manual = false;
		b->excluded = true;
	}
put:
	if (p)
		put_task_struct(p);
	settle(changed);
out:
	mutex_unlock(&bind_lock);
	publish_changes();
	return ret;
}

/* fault injection: pid's mm on nid's set while the list says otherwise */
static int mm_inject(pid_t pid, int nid)
{
	struct ktr_bound *b;
	int ret = -ESRCH;

	if (ktr_memory_nid(nid) == NUMA_NO_NODE || !node_online(nid))
		return -EINVAL;
	mutex_lock(&bind_lock);
	b = find_bound(pid);
	if (b && b->mm) {
		point_mm(b->mm, nid);
		ktr_arch_flush_all();
		ret = 0;
	}
	mutex_unlock(&bind_lock);
	return ret;
}

static bool mm_auto_on(void)
{
	return READ_ONCE(auto_bind);
}

static void mm_counters(u64 *binds, u64 *unbinds)
{
	*binds = atomic64_read(&nr_binds);
	*unbinds = atomic64_read(&nr_unbinds);
}

static const struct ktr_mm_ops ktr_mm_x86 = {
	.start = mm_start,
	.stop = mm_stop,
	.pause = mm_pause,
	.bound = mm_bound,
	.bound_past = mm_bound_past,
	.bind_ctl = mm_bind_ctl,
	.inject = mm_inject,
	.auto_on = mm_auto_on,
	.counters = mm_counters,
};

/* x86_64's activations beyond "workload": this file's mm */
const struct ktr_arch ktr_arch = {
	.mm = &ktr_mm_x86,
};
