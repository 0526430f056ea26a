/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's page-table entry bits and the engine's fixed choices, as
 * static inlines: each .ko is built for one arch, so these are known at
 * build time and cost no indirect call in the table mirror's and the
 * walks' loops. core.h includes the arch's one.
 */
#ifndef KTREPL_ARCH_ARM64_H
#define KTREPL_ARCH_ARM64_H

#include <linux/bits.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/pgtable.h>

struct pt_regs;

#include "ktrepl_compat.h"

#define KTR_ARCH_NAME "arm64"
/* TTBR1 is per CPU, not per task: activation percpu only */
#define KTR_ARCH_CAN_ACTIVATE false
/*
 * With KPTI, every exception entry from EL0 adds TRAMP_SWAPPER_OFFSET
 * (two pages) to TTBR1: a node root needs a copy of tramp_pg_dir two
 * pages below it (ktr_arch_fill_root_lead()).
 */
#define KTR_ARCH_ROOT_LEAD_PAGES 2
/* the linear map's protection changes touch no other alias */
#define KTR_ARCH_PROTECT_CHANGES_ALIASES false
/* a broadcast invalidate, no IPIs: fine with interrupts off */
#define KTR_ARCH_FLUSH_ANYWHERE true
/*
 * A live leaf may point at another page (of the same contents) only
 * through an invalid entry and a flush: break-before-make.
 */
#define KTR_ARCH_LEAF_MOVE_BREAKS true
/* percpu keeps the copied tables identical to the master's (fresh.c) */
#define KTR_ARCH_FRESH_TABLES true
/* TTBR1 moves whole CPUs: the text leaves keep their global bit */
#define KTR_ARCH_NONGLOBAL_TEXT false

static inline bool ktr_pte_present(u64 e)
{
	return e & PTE_VALID;
}

/* bits[1:0]: 01 block, 11 table (or page at the last level) */
static inline bool ktr_pte_leaf(u64 e, int level, int levels)
{
	return level == levels - 1 || (e & PTE_TYPE_MASK) == PMD_TYPE_SECT;
}

/*
 * Each replica chunk is allocated on its own, so the contiguous hint of
 * the master's entries would be a lie here.
 */
static inline u64 ktr_pte_node_leaf(u64 master, phys_addr_t pa)
{
	return (master & ~KTR_COMPAT_PTE_ADDR_MASK & ~PTE_CONT) | PTE_NG | pa;
}

static inline u64 ktr_pte_make_writable(u64 e)
{
	return (e & ~PTE_RDONLY) | PTE_WRITE;
}

/* a software bit: ignored by the walker in a table entry */
static inline u64 ktr_pte_mark_shared(u64 e)
{
	return e ^ BIT(55);
}

static inline bool ktr_pte_writable(u64 e, int level)
{
	return !(e & PTE_RDONLY);
}

static inline bool ktr_pte_executable(u64 e, int level)
{
	return !(e & PTE_PXN);
}

static inline bool ktr_pte_global(u64 e, int level)
{
	return !(e & PTE_NG);
}

static inline u64 ktr_pte_with_global(u64 e, bool global)
{
	return global ? e & ~(u64)PTE_NG : e | PTE_NG;
}

/* after table entries were written: make walkers see them */
static inline void ktr_arch_tables_changed(void)
{
	dsb(ishst);
	isb();
}

/* arch_arm64.c: the KPTI trampoline copy below a node root */
void ktr_arch_fill_root_lead(void *lead);
/*
 * where read-only data that is not rodata starts: the kernel's own
 * page-table pages follow rodata, read-only, and are written at run
 * time through a fixmap
 */
unsigned long ktr_arch_rodata_limit(void);
/* a table entry pointing at a kernel table page (fresh.c) */
u64 ktr_arch_table_entry(phys_addr_t pa);
/* from a kprobe pre-handler at a function's entry: return value */
void ktr_arch_override_return(struct pt_regs *regs, unsigned long value);

#endif /* KTREPL_ARCH_ARM64_H */
