/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_ENGINE_H
#define KTREPL_ENGINE_H

#include <linux/mm_types.h>
#include <linux/nodemask.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

#include "ktrepl_provider.h"

#define KTR_MAX_LEVELS 5

/*
 * A replicated unit: one master leaf mapping (a 2 MiB block or a 4 KiB
 * page) and its copy on every replica node. Chunks never straddle a
 * master leaf, so a node's leaf entry can simply point at its copy.
 */
struct ktr_chunk {
	unsigned long va;
	unsigned int page_shift;
	int region;
	phys_addr_t master_pa;
	struct page **copy;	/* [nr_node_ids]; NULL where no replica */
	u64 *sums;		/* per page: master contents at last sync */
};

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
	struct mm_struct *mm;
	pgd_t *mm_orig_pgd;
	struct task_struct *worker;
	/* written by the worker itself */
	phys_addr_t worker_root;
	int worker_cpu;
	u64 worker_since;	/* local_clock() once on its tables */
	struct preempt_notifier preempt;
	bool worker_needs_flush;	/* TLB may hold the master's text */
	u64 iterations;
	unsigned long probe;
};

struct ktr_geom {
	unsigned int levels;
	unsigned int shift[KTR_MAX_LEVELS];	/* top level first */
	unsigned int bits[KTR_MAX_LEVELS];
	unsigned int root_order;		/* pages of a top-level table */
	unsigned int kernel_first;		/* first kernel entry of the root */
	u64 addr_mask;				/* output address in an entry */
};

/* Page-table geometry and entry decoding, one per architecture. */
struct ktr_arch {
	const char *name;
	void (*geometry)(struct ktr_geom *geom);
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
	/* the text-patching function hooked before every write, or NULL */
	const char *patch_symbol;
	/*
	 * Where the writers cannot be hooked (kprobes refuse them), entry
	 * points whose return triggers a sync of changed master pages.
	 */
	const char *const *sync_symbols;
	/* decode (va, src, len, fill) from the hooked function's arguments */
	bool (*patch_args)(struct pt_regs *regs, unsigned long *va,
			   const void **src, size_t *len, bool *fill);
	bool can_activate;
	/* can make the direct-map alias of a replica read-only */
	bool protect_alias;
};

extern const struct ktr_arch ktr_arch_x86;
extern const struct ktr_arch ktr_arch_arm64;

#include "ktrepl_ksym.h"

int ktr_engine_init(void);
void ktr_engine_exit(void);
struct ktrepl_provider *ktr_engine_provider(void);

#endif
