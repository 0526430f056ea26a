/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's internal interface, shared by its files the way
 * kernel/livepatch/core.h is:
 *
 *   core.c      the state every file reads (struct ktr_engine ktr, fixed
 *               after load) and the face the publisher reads (provider)
 *   engine.c    load, stop and free, in named and timed steps (engine.h)
 *   activation.c  who runs on the node tables: one state machine
 *   build.c     chunks, node-local replicas, the page accounting
 *   tables.c    each node's own tables, and tables_lock
 *   patch.c     propagation of runtime text patches into every replica
 *   patch_*.c   the arch's hook on the kernel's text writes (patch.h)
 *   audit.c     the net behind the patch hooks, and the fail-safe's resync
 *   slot.c      per-CPU write slots: replica bytes, read-only aliases kept
 *   workload.c  worker threads on node tables (activation "workload")
 *   modules.c   module text and rodata, and the tables they add
 *   module_leaves.c  a module's leaves onto its copies and back (module.h)
 *   mirror.c    the module-area table mirror that keeps those tables fresh
 *   failsafe.c  off, repair, check, on again after any missed write
 *   armed.c     whether the probes are armed (kprobes, ftrace switches)
 *   inject.c    fault injection, test build only (testing.h)
 *   testing.c   the test build's parameters (KTREPL_TEST)
 *   provider.c  the ops of the struct ktrepl_provider the publisher reads
 *   arch_*.c    one per architecture, chosen by Kbuild
 *
 * Locking. The engine runs in kprobe and kretprobe handlers (the x86
 * patch hook, the arm64 6.12 poke probe, the table mirror, the percpu
 * table-free veto), an ftrace handler (the arm64 patch hook), a
 * stop_machine() callback, tracepoint probes (fork, exec), notifiers
 * (module, memory, CPU PM), work items (audit, fail-safe and its
 * recheck, mm scan), cpuhp callbacks, its own kthreads, and debugfs
 * readers and writers through the publisher. cpuhp callbacks run under
 * the CPU hotplug lock and so take none of the mutexes below (they
 * notify the publisher without sleeping). Each lock is described once,
 * where it is defined: what it guards, who takes it, who may go without
 * it. A file that must hold another's lock asserts it with the owner's
 * *_lock_assert_held(), which exists in every config.
 * Order, outermost first (a path may skip levels):
 *
 *   failsafe_lock (core.c) > act_lock (activation.c)
 *   > workload_lock (workload.c), bind_lock (mm_x86.c)
 *   > audit_lock (audit.c) > mods_lock (modules.c) > canary_lock (armed.c)
 *   > cpus_read_lock (stop_machine) > text_mutex
 *   > hook_lock, log_lock (patch.c), tables_lock (tables.c)
 *
 * The last three are raw spinlocks, innermost: none is taken inside
 * another, and nothing that sleeps or takes a lock is called under them.
 * The publisher's counters_lock (debugfs/vmcore_desc.c), taken under
 * them by a hook's refresh of the descriptor, is only ever trylocked,
 * so it waits on nothing and has no place in this order. Nor has its
 * desc_lock: ktr_notify_changed() only queues the work that takes it,
 * and that work holds no engine lock.
 *
 * text_mutex, the one lock here that is the kernel's (from kallsyms;
 * NULL where it is not there, as on arm64), is held by every x86
 * text_poke, so the x86 patch hook runs under it; the engine takes it
 * to copy the replicas (core and modules), to audit and resync a chunk,
 * and to move a module's leaves on x86 (never around stop_machine():
 * static keys take it inside the CPU hotplug lock).
 *
 * Lockless by design: replicas_ready, the patch window and the patch,
 * audit, mirror, bind and veto counters (atomics or READ_ONCE), the
 * activation and its reason (WRITE_ONCE by the fail-safe's give-up,
 * read by anyone), the per-CPU write slots of slot.c (each CPU its
 * own, interrupts off: asserted) and the arm64 percpu switch (on the
 * CPU being switched, interrupts off: asserted).
 */
#ifndef KTREPL_CORE_H
#define KTREPL_CORE_H

#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

#include "ktrepl_provider.h"
#include "ktrepl_ksym.h"

#define KTR_MAX_LEVELS 5
#define KTR_NR_REGIONS 2

/*
 * A replicated unit: one master leaf mapping (a 2 MiB block or a 4 KiB
 * page) and its copy on every replica node. Chunks never straddle a
 * master leaf, so a node's leaf entry can simply point at its copy.
 */
/*
 * A page's contents in 16 bytes, for the audit: whether the master's
 * changed since the copy or the last pass (ktr_page_sum()).
 */
struct ktr_page_sum {
	u64 words;	/* the page's 64-bit words added */
	u64 weighted;	/* each word times its distance from the end */
};

struct ktr_chunk {
	unsigned long va;
	unsigned int page_shift;
	int region;
	bool global_cleared;	/* the master's leaf lost its global bit */
	phys_addr_t master_pa;
	struct page **copy;	/* [nr_node_ids]; NULL where no replica */
	struct ktr_page_sum *sums; /* per page: the master's at last sync */
};

static inline unsigned long ktr_chunk_size(const struct ktr_chunk *c)
{
	return 1UL << c->page_shift;
}

/*
 * The master's bytes of c, through the linear map. Not through c->va:
 * a CPU on a node's tables would read that node's copy there, and KASAN
 * checks an image VA against its globals' redzones (its memcpy() then
 * copies nothing, which left a debug kernel's replica rodata as zeros).
 */
static inline void *ktr_chunk_master(const struct ktr_chunk *c)
{
	return __va(c->master_pa);
}

static inline unsigned int ktr_chunk_order(const struct ktr_chunk *c)
{
	return c->page_shift - PAGE_SHIFT;
}

/* One page-table page a node owns (not shared with the master). */
struct ktr_table {
	struct list_head list;
	struct page *page;
	unsigned int order;
	int level;
	unsigned long va;	/* first VA it translates */
};

struct ktr_node {
	int nid;
	int memory_nid;		/* node whose replica/tables this one uses */
	bool own_replica;	/* has memory and is not the master */
	u64 *root;		/* top-level table (direct-map VA) */
	struct page *root_page;
	unsigned int root_order;
	struct mm_struct *mm;	/* kernel-only mm on root (switchable arches) */
	pgd_t *mm_orig_pgd;
};

struct ktr_geom {
	unsigned int levels;
	unsigned int shift[KTR_MAX_LEVELS];	/* top level first */
	unsigned int bits[KTR_MAX_LEVELS];
	unsigned int root_order;		/* pages of a top-level table */
	unsigned int kernel_first;		/* first kernel entry of the root */
	u64 addr_mask;				/* output address in an entry */
};

/*
 * The one architecture this module is built for, picked by Kbuild, not
 * at run time: the entry bits, the engine's fixed choices and what one
 * arch has no use for are static inlines and constants in its header;
 * what needs its symbols, state or instructions is a function of its
 * arch_*.c, declared here.
 */
#if defined(CONFIG_X86_64)
#include "arch_x86.h"
#elif defined(CONFIG_ARM64)
#include "arch_arm64.h"
#else
#error "ktrepl.ko is built for x86_64 or arm64"
#endif

int ktr_arch_geometry(struct ktr_geom *geom);
phys_addr_t ktr_arch_read_root(void);		/* on this CPU */
phys_addr_t ktr_arch_master_root(void);
/* drop this CPU's TLB entry (global ones too) for one mapping */
void ktr_arch_flush_local(unsigned long va);
/* after writing text through another alias */
void ktr_arch_sync_icache(void *alias, unsigned long va, size_t len);
/* overwrite a function with "return value" for the activation test */
int ktr_arch_retval_insn(u8 *buf, size_t len, unsigned long value);
int ktr_arch_trap_insn(u8 *buf, size_t len);
/* move this (lazy) CPU off a node's tables onto the master's */
void ktr_arch_release_cpu(void);
/* the same from the scheduler, irqs off, before a switch */
void ktr_arch_leave_root(void);
/*
 * Make the direct-map alias of numpages pages at addr read-only (or
 * writable again), so that no executed replica has a writable alias.
 * -EOPNOTSUPP where the direct map cannot be changed page by page.
 */
int ktr_arch_protect_alias(unsigned long addr, int numpages, bool ro);
/* how a protection change the table mirror follows takes its pages */
enum ktr_protect_args {
	KTR_PROTECT_PAGES,	/* (addr, numpages, ...) */
	KTR_PROTECT_PAGE_ARRAY,	/* (struct page **pages, numpages) */
	KTR_PROTECT_CPA,	/* x86's change_page_attr_set_clr() */
};
struct ktr_protect_probe {
	const char *symbol;
	enum ktr_protect_args args;
	/* absent from kallsyms: the kernel was built with no path to it */
	bool optional;
};
/* the arch's protection changes, up to KTR_MAX_PROTECT_PROBES */
#define KTR_MAX_PROTECT_PROBES 4
extern const struct ktr_protect_probe
	ktr_arch_protect_probes[KTR_MAX_PROTECT_PROBES];
/* what one call may rewrite; an empty range: start >= end */
struct ktr_protect_span {
	unsigned long start, end;
	/* x86: the image's own mapping of the pages, which CPA rewrites too */
	unsigned long alias_start, alias_end;
};
/*
 * ktr_arch_image_aliases_init() at load, before any probe is armed;
 * then, at a probed protection change's entry (regs), what it may
 * rewrite, or false when the arch cannot tell, which costs the caller
 * one full mirror. Any context.
 */
struct pt_regs;
int ktr_arch_image_aliases_init(void);
bool ktr_arch_protect_span(enum ktr_protect_args args, struct pt_regs *regs,
			   struct ktr_protect_span *s);
/*
 * Drop every CPU's TLB entries for [start, end), global ones too.
 * Process context, unless KTR_ARCH_FLUSH_ANYWHERE (a broadcast
 * invalidate, no IPIs: fine with interrupts off and in stop_machine()).
 */
void ktr_arch_flush_kernel_range(unsigned long start, unsigned long end);
/*
 * Drop every TLB entry of every CPU, in every PCID or ASID, global ones
 * and cached table entries too: what must run after a leaf moves and
 * before the page it left is freed. A range flush is not that on x86:
 * INVLPG drops a non-global entry of the current PCID only. Process
 * context, interrupts on (x86 sends IPIs); arm64's is one broadcast.
 */
void ktr_arch_flush_all(void);

struct ktr_mm_ops;	/* activation_mm.h */

/*
 * The activations the arch has beyond "workload" (KTR_ARCH_CAN_ACTIVATE),
 * each an object of its own, or NULL where it has none: arm64's percpu
 * (percpu_arm64.c) and x86's mm (mm_x86.c).
 */
struct ktr_arch {
	/* start returns NULL with every CPU on its node's root, or why not */
	const char *(*percpu_start)(void);
	void (*percpu_stop)(void);		/* every CPU on the master */
	phys_addr_t (*installed_root)(int cpu);	/* as last switched */
	void (*percpu_counters)(u64 *switches, u64 *reinstalls,
				u64 *switch_ns);
	int (*pm_revert)(int cpu);		/* fault injection */
	const struct ktr_mm_ops *mm;	/* activation "mm", or NULL */
};

extern const struct ktr_arch ktr_arch;

/**
 * struct ktr_engine - what the engine's files share, fixed after load
 *
 * Every field, each node's fields and each core chunk's @copy are
 * written only by ktr_engine_init() and ktr_engine_free(), in process
 * context, while no hook is registered and no publisher is up; every
 * other context only reads them. What changes after load lives in the
 * file that owns it, behind that file's lock (see "Locking" above), and
 * is reached through its functions:
 *
 * - build.c: the page accounting, the replicas' bytes per node, whether
 *   the copies are taken (ktr_replicas_ready()), whether they caught
 *   up with the patches made meanwhile (ktr_replicas_settled()) and
 *   whether their direct-map aliases are read-only
 *   (ktr_alias_protected()).
 * - tables.c: each node's own tables, their list and byte count, and
 *   tables_lock, over every write to a node's tables (ktr_tables_lock()).
 * - activation.c: the activation, its state and reason (activation.h).
 * - fresh.c: the table pages donated to the kernel.
 * - patch.c, audit.c, mirror.c, workload.c, modules.c, failsafe.c: their
 *   counters, logs, workers and module list.
 * - A core chunk's @sums are the audit's, under audit_lock; a module
 *   chunk's @master_pa and @global_cleared are modules.c's and
 *   module_leaves.c's, under mods_lock (and tables_lock for the leaf
 *   move).
 * - Replica bytes are written at init (build.c's copy, and its recopy
 *   inside stop_machine()), by the patch hooks under hook_lock, by the
 *   audit and the fail-safe's resync under audit_lock and hook_lock,
 *   by a module's copy under mods_lock and text_mutex, and by inject.c,
 *   which the tests use on a quiet kernel.
 */
struct ktr_engine {
	struct ktr_geom geom;
	struct ktrepl_region regions[KTR_NR_REGIONS];
	struct ktr_chunk *chunks;	/* sorted by va */
	int nr_chunks;
	struct ktr_node *nodes;		/* [nr_node_ids] */
	int master_nid;
	u64 *master_root;		/* direct-map VA */
	/* kallsyms lookups made at load */
	struct mutex *text_mutex;	/* NULL where not in kallsyms */
	struct mm_struct *(*mm_alloc)(void);
	/* the switches that silence every kprobe, or every ftrace callback */
	bool *kprobes_all_disarmed;
	int *ftrace_enabled;
};

extern struct ktr_engine ktr;

/*
 * core.c: walk from root toward va; stop at a leaf, a hole, or
 * stop_level. Returns the entry and its level. Context: any.
 */
u64 *ktr_walk(u64 *root, unsigned long va, int stop_level, int *level);

/* the next online node after nid holding a copy of c, or MAX_NUMNODES */
static inline int ktr_next_replica(const struct ktr_chunk *c, int nid)
{
	do
		nid = next_online_node(nid);
	while (nid < MAX_NUMNODES && (!c->copy || !c->copy[nid]));
	return nid;
}

#define for_each_replica(c, nid)                                       \
	for ((nid) = ktr_next_replica(c, -1); (nid) < MAX_NUMNODES;     \
	     (nid) = ktr_next_replica(c, nid))

static inline unsigned long ktr_level_size(int level)
{
	return 1UL << ktr.geom.shift[level];
}

static inline unsigned int ktr_level_index(unsigned long va, int level)
{
	return (va >> ktr.geom.shift[level]) & ((1U << ktr.geom.bits[level]) - 1);
}

static inline u64 *ktr_table_va(u64 entry)
{
	return __va(entry & ktr.geom.addr_mask);
}

/*
 * core.c: the engine as the publisher sees it. Its data fields are
 * written by the files that own what they say (engine.c at load,
 * activation.c at each transition); provider.c fills its ops.
 */
extern struct ktrepl_provider ktr_provider;
/*
 * The publisher's cue that counters changed (and lists, where lists):
 * only marks its state stale and queues work. Context: any.
 */
void ktr_notify_changed(bool lists);

/* failsafe_lock: core.c says what it guards; only failsafe.c takes it */
extern struct mutex ktr_failsafe_lock;
void ktr_failsafe_lock_assert_held(void);	/* every config */

#endif
