/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's internal interface, shared by its files the way
 * kernel/livepatch/core.h is:
 *
 *   engine.c    load, stop and free, in named and timed steps
 *   build.c     chunks, node-local replicas and each node's tables
 *   patch.c     propagation of runtime text patches into every replica
 *   workload.c  worker threads on node tables (activation "workload")
 *   modules.c   module text and rodata, and the tables they add
 *   failsafe.c  off, repair, check, on again after any missed write
 *   inject.c    fault injection, test build only (testing.h)
 *   testing.c   the test build's parameters (KTREPL_TEST)
 *   provider.c  the struct ktrepl_provider the publisher reads
 *   arch_*.c    one per architecture, chosen by Kbuild
 */
#ifndef KTREPL_ENGINE_H
#define KTREPL_ENGINE_H

#include <linux/list.h>
#include <linux/mm_types.h>
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
struct ktr_chunk {
	unsigned long va;
	unsigned int page_shift;
	int region;
	bool global_cleared;	/* the master's leaf lost its global bit */
	phys_addr_t master_pa;
	struct page **copy;	/* [nr_node_ids]; NULL where no replica */
	u64 *sums;		/* per page: master contents at last sync */
};

static inline unsigned long ktr_chunk_size(const struct ktr_chunk *c)
{
	return 1UL << c->page_shift;
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
	struct list_head tables;
	u64 table_bytes;
	u64 replica_bytes;
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

enum ktr_patch_hook {
	KTR_HOOK_KPROBE,	/* a kprobe pre-handler */
	KTR_HOOK_FTRACE,	/* an ftrace_ops */
};

/*
 * Page-table geometry, entry decoding and instruction forms of the one
 * architecture this module is built for (Kbuild picks arch_x86.c or
 * arch_arm64.c; each defines ktr_arch).
 */
struct ktr_arch {
	const char *name;
	int (*geometry)(struct ktr_geom *geom);
	bool (*present)(u64 e);
	bool (*leaf)(u64 e, int level, int levels);
	u64 (*node_leaf)(u64 master, phys_addr_t pa); /* replica leaf */
	u64 (*make_writable)(u64 e);
	u64 (*mark_shared_entry)(u64 e);	/* fault injection */
	phys_addr_t (*read_root)(void);		/* on this CPU */
	phys_addr_t (*master_root)(void);
	/* drop this CPU's TLB entry (global ones too) for one mapping */
	void (*flush_local)(unsigned long va);
	/* after writing text through another alias */
	void (*sync_icache)(void *alias, unsigned long va, size_t len);
	bool (*writable)(u64 e, int level);
	bool (*executable)(u64 e, int level);
	bool (*global)(u64 e, int level);
	/* overwrite a function with "return value" for the activation test */
	int (*retval_insn)(u8 *buf, size_t len, unsigned long value);
	int (*trap_insn)(u8 *buf, size_t len);
	/* move this (lazy) CPU off a node's tables onto the master's */
	void (*release_cpu)(void);
	/* the same from the scheduler, irqs off, before a switch */
	void (*leave_root)(void);
	/* the text-patching function hooked before every write, and how */
	const char *patch_symbol;
	enum ktr_patch_hook patch_hook;
	/* decode (va, src, len, fill) from the hooked function's arguments */
	bool (*patch_args)(struct pt_regs *regs, unsigned long *va,
			   const void **src, size_t *len, bool *fill);
	/*
	 * Optional: the hook takes the kernel's write over. write_master
	 * writes the master, with cache maintenance on it, before the
	 * replicas; skip_kernel_write then makes the hooked function return
	 * success without writing. Context: the hook, interrupts off.
	 */
	void (*write_master)(unsigned long va, phys_addr_t pa, const void *src,
			     size_t len);
	void (*skip_kernel_write)(struct pt_regs *regs);
	/*
	 * Where patch_symbol cannot be hooked (arm64 6.12 builds its
	 * patching code noinstr), a kprobe on poke_symbol sees the kernel
	 * map each page it writes into its poke slot and unmap it after.
	 * poke_slot decodes one such call: true for the poke slot, with the
	 * page's physical address and whether it is mapped (else unmapped).
	 */
	const char *poke_symbol;
	bool (*poke_slot)(struct pt_regs *regs, phys_addr_t *pa, bool *map);
	/* the image's VA of a physical address inside it */
	unsigned long (*image_va)(phys_addr_t pa);
	/*
	 * Pages the kernel expects right below a root it runs on (arm64
	 * KPTI: the trampoline table two pages below), and how to fill them.
	 */
	unsigned int root_lead_pages;
	void (*fill_root_lead)(void *lead);
	/*
	 * Optional: where read-only data that is not rodata starts (arm64:
	 * the kernel's own page-table pages follow rodata, read-only, and
	 * are written at run time through a fixmap).
	 */
	unsigned long (*rodata_limit)(void);
	/* a table entry pointing at a kernel table page (fresh.c), or NULL */
	u64 (*table_entry)(phys_addr_t pa);
	/* after table entries were written: make walkers see them */
	void (*tables_changed)(void);
	/* from a kprobe pre-handler at a function's entry: return value */
	void (*override_return)(struct pt_regs *regs, unsigned long value);
	/*
	 * Activation "percpu", or NULL where the arch cannot: start returns
	 * NULL with every CPU on its node's root, or why not.
	 */
	const char *(*percpu_start)(void);
	void (*percpu_stop)(void);		/* every CPU on the master */
	phys_addr_t (*installed_root)(int cpu);	/* as last switched */
	void (*percpu_counters)(u64 *switches, u64 *reinstalls,
				u64 *switch_ns);
	int (*pm_revert)(int cpu);		/* fault injection */
	bool can_activate;
	const struct ktr_mm_ops *mm;	/* activation "mm", or NULL */
	/*
	 * Make the direct-map alias of numpages pages at addr read-only (or
	 * writable again), so that no executed replica has a writable alias.
	 * -EOPNOTSUPP where the direct map cannot be changed page by page.
	 */
	int (*protect_alias)(unsigned long addr, int numpages, bool ro);
	/*
	 * A protection change also rewrites other aliases of the pages in
	 * the master's tables (x86: the image's mapping of freed init
	 * memory), which the table mirror must then follow everywhere.
	 */
	bool protect_changes_aliases;
	/*
	 * Drop every CPU's TLB entries for [start, end), global ones too.
	 * Process context, unless flush_anywhere (a broadcast invalidate,
	 * no IPIs: fine with interrupts off and inside stop_machine()).
	 */
	void (*flush_kernel_range)(unsigned long start, unsigned long end);
	bool flush_anywhere;
	/*
	 * A live leaf may point at another page (of the same contents) only
	 * through an invalid entry and a flush: break-before-make (arm64).
	 */
	bool leaf_move_breaks;
};

extern const struct ktr_arch ktr_arch;

/**
 * struct ktr_engine - the state the engine's files share
 *
 * Who may touch what:
 *
 * - Everything above @replicas_ready is written only by ktr_engine_init()
 *   and ktr_engine_free(), in process context, while nothing else runs:
 *   before the patch hooks are registered and the publisher is up, or
 *   after ktr_engine_stop() has unregistered the hooks, cancelled the
 *   syncs and stopped the workers. Every other context (kprobe handlers
 *   with interrupts off, the sync work, workers with preemption off,
 *   debugfs readers) only reads it.
 * - @replicas_ready is set once the copies are taken, under text_mutex
 *   where it exists, and read locklessly by the patch hook (atomic).
 * - Replica bytes are written by patch.c alone (patch hook: atomic; sync
 *   work: process, under its sync_lock), and by inject.c, which the tests
 *   use on a quiet kernel.
 * - Node table entries are written by build.c at load and by inject.c.
 * - Patch counters and the log belong to patch.c, the workers' state to
 *   workload.c; each keeps it private and answers through its functions.
 */
struct ktr_engine {
	struct ktr_geom geom;
	struct ktrepl_region regions[KTR_NR_REGIONS];
	struct ktr_chunk *chunks;	/* sorted by va */
	int nr_chunks;
	struct ktr_node *nodes;		/* [nr_node_ids] */
	int master_nid;
	u64 *master_root;		/* direct-map VA */
	enum ktrepl_activation activation;
	const char *activation_reason;	/* why not what was asked, or "" */
	/* kallsyms lookups made at load */
	struct mutex *text_mutex;	/* NULL where not in kallsyms */
	struct mm_struct *(*mm_alloc)(void);
	/* page accounting, so that every unload can prove it freed all */
	unsigned int alloc_calls;
	unsigned long pages_allocated;
	unsigned long pages_freed;
	/* empty tables given to the master's tables for good (fresh.c) */
	unsigned long donated_pages;

	bool replicas_ready;
	bool alias_protected;	/* every replica's direct-map alias is RO */
	/*
	 * Held over every write to a node's tables made after load, and by
	 * the table mirror (modules.c) over its comparison: raw, since the
	 * mirror runs in kretprobe handlers.
	 */
	raw_spinlock_t tables_lock;
};

extern struct ktr_engine ktr;

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

/* build.c: process context, at load */
u64 *ktr_walk(u64 *root, unsigned long va, int stop_level, int *level);
struct ktr_chunk *ktr_search_chunks(struct ktr_chunk *chunks, int nr,
				    unsigned long va);
struct ktr_chunk *ktr_find_chunk(unsigned long va);
/* the module chunk whose master page is at pa; context as above */
struct ktr_chunk *ktr_module_chunk_at_pa(phys_addr_t pa);
struct page *ktr_alloc(int nid, unsigned int order);
void ktr_free(struct page *page, unsigned int order);
u64 *ktr_own_leaf(struct ktr_node *n, const struct ktr_chunk *c);
int ktr_map_chunk(struct ktr_node *n, const struct ktr_chunk *c);
u64 *ktr_master_table_of(const struct ktr_table *t);
phys_addr_t ktr_chunk_pa(const struct ktr_chunk *c, int nid);
struct ktr_table *ktr_owned_table(struct ktr_node *n, int level,
				  unsigned long va);
int ktr_collect_chunks(void);
void ktr_setup_nodes(void);
bool ktr_any_replica(void);
int ktr_alloc_replicas(void);
int ktr_alloc_chunk_replicas(struct ktr_chunk *c);
int ktr_chunk_extents(const struct ktr_chunk *chunks, int nr, int nid,
		      int region, ktrepl_extent_fn fn, void *arg);
int ktr_copy_replicas(void);
int ktr_recopy_quiesced(void);
int ktr_recopy_chunks(struct ktr_chunk *chunks, int nr);
u64 ktr_time_plain_memcpy(void);
int ktr_protect_replicas(bool ro);
int ktr_build_node_tables(struct ktr_node *n);
struct mm_struct *ktr_node_mm(u64 *root, pgd_t **orig);
void ktr_free_node(struct ktr_node *n);
void ktr_free_replicas(void);

/* patch.c */
int ktr_patch_init(void);		/* slots for replica writes */
int ktr_patch_start(void);		/* hook the patcher */
void ktr_patch_stop(void);		/* unhook, wait for handlers and syncs */
void ktr_patch_free(void);
void ktr_replica_write(int nid, unsigned long va, const void *src,
		       int fill, size_t len);	/* any context */
void ktr_write_phys(phys_addr_t pa, const void *src, size_t len); /* irqs off */
void ktr_patch_counters(u64 *patches, u64 *bytes, u64 *missed,
			bool *propagate);
int ktr_patch_log(struct ktrepl_patch_record *recs, int max);
void ktr_patch_flush(void);
void ktr_audit_counters(u64 *audits, u64 *repairs);
u64 ktr_patch_window(void);

/* workload.c */
int ktr_workload_init(void);		/* before the copy: see there */
void ktr_workload_stop(void);		/* for good: refuses new starts */
void ktr_workload_free(void);
int ktr_workload_ctl(enum ktrepl_workload_mode mode);
enum ktrepl_workload_mode ktr_workload_mode(void);
int ktr_tasks(struct ktrepl_task_record *recs, int max);

/* activation "mm" (x86_64: mm_x86.c), through ktr_arch.mm */
struct ktr_mm_ops {
	const char *(*start)(void);	/* NULL, or why not */
	void (*stop)(void);		/* every mm back on the master */
	int (*bound)(struct ktrepl_bound_record *recs, int max);
	int (*bound_past)(struct ktrepl_bound_record *recs, int max);
	int (*bind_ctl)(pid_t pid, int nid, int set_auto);
	int (*inject)(pid_t pid, int nid);
	bool (*auto_on)(void);
	void (*counters)(u64 *binds, u64 *unbinds);
	/* a leaf entry with its global bit set or clear */
	u64 (*leaf_global)(u64 e, bool global);
};
extern const struct ktr_mm_ops ktr_mm_x86;
unsigned long ktr_master_probe(void);

/* percpu_arm64.c, through ktr_arch */
const char *ktr_percpu_start(void);
void ktr_percpu_stop(void);
phys_addr_t ktr_percpu_installed_root(int cpu);
void ktr_percpu_counters(u64 *switches, u64 *reinstalls, u64 *switch_ns);
int ktr_percpu_pm_revert(int cpu);

/* fresh.c: copied tables kept identical to the master's (percpu) */
const char *ktr_fresh_start(void);	/* before the node tables are built */
void ktr_fresh_stop(void);
u64 ktr_fresh_vetoes(void);

/* modules.c: module text and rodata (modules=1) */
struct ktr_chunk *ktr_module_chunk(unsigned long va, bool mapped_only);
void ktr_modules_hook(void);		/* before the copy: table mirror */
int ktr_modules_start(void);		/* replicate the live ones, follow */
void ktr_modules_stop(void);		/* stop following loads and vmaps */
void ktr_modules_free(void);
struct ktrepl_module_info;
int ktr_modules_list(struct ktrepl_module_info *mods, int max);
int ktr_module_extents(int nid, const char *name, ktrepl_extent_fn fn,
		       void *arg);
void ktr_modules_counters(u64 *mirrored, u64 *missed);
typedef void (*ktr_chunk_fn)(struct ktr_chunk *c);
void ktr_modules_visit_chunks(ktr_chunk_fn fn);

/* failsafe.c */
enum ktr_failsafe_reason {
	KTR_FS_PATCH_MISSED,	/* the hook saw a patch it could not place */
	KTR_FS_PROBE_MISSED,	/* a patch probe could not run (nmissed) */
	KTR_FS_AUDIT_REPAIR,	/* the audit found a write the hook missed */
	KTR_FS_MIRROR_MISSED,	/* a module-area table update was missed */
	KTR_FS_NR,
};
void ktr_failsafe_trip(enum ktr_failsafe_reason why);	/* any context */
void ktr_failsafe_poll(void);				/* any context */
void ktr_failsafe_start(void);
void ktr_failsafe_stop(void);
void ktr_failsafe_counters(u64 *events, bool *now, const char **reason);
/* engine.c, for the fail-safe: process context, under its lock */
void ktr_activation_pause(void);
const char *ktr_activation_resume(void);
void ktr_activation_give_up(const char *why);
bool ktr_activation_paused(void);	/* any context */
/* patch.c, for the fail-safe */
u64 ktr_patch_probe_misses(void);
unsigned int ktr_patch_resync(bool repair);

/* provider.c */
extern struct ktrepl_provider ktr_provider;
void ktr_notify_changed(bool may_sleep);

/* engine.c: module init and exit, in this order */
int ktr_engine_init(void);
void ktr_engine_stop(void);		/* before the publisher goes */
void ktr_engine_free(void);
struct ktrepl_provider *ktr_engine_provider(void);

#endif
