/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64's page-table entry bits and the engine's fixed choices, as
 * static inlines: each .ko is built for one arch, so these are known at
 * build time and cost no indirect call (a retpoline) in the table
 * mirror's and the walks' loops. core.h includes the arch's one.
 */
#ifndef KTREPL_ARCH_X86_H
#define KTREPL_ARCH_X86_H

#include <linux/limits.h>
#include <linux/types.h>
#include <asm/pgtable_types.h>

struct pt_regs;

#define KTR_ARCH_NAME "x86_64"
/* the engine can run a task on a node's tables (workload, mm) */
#define KTR_ARCH_CAN_ACTIVATE true
/* no pages below a root that the kernel expects there */
#define KTR_ARCH_ROOT_LEAD_PAGES 0
/*
 * A change to a page's direct-map mapping rewrites the image's mapping
 * of it too where the image keeps it mapped (freed init memory, reused
 * for module pages), in tables every node owns: the table mirror must
 * follow those as well (ktr_arch_protect_probes[]).
 */
#define KTR_ARCH_PROTECT_CHANGES_ALIASES true
/* flush_tlb_kernel_range() sends IPIs: process context only */
#define KTR_ARCH_FLUSH_ANYWHERE false
/* a live leaf may be repointed at a page of the same contents in place */
#define KTR_ARCH_LEAF_MOVE_BREAKS false
/* no percpu activation, so no copied tables to keep fresh (fresh.c) */
#define KTR_ARCH_FRESH_TABLES false
/*
 * Activation "mm" clears the global bit of the text leaves, the core's
 * (mm_x86.c) and each replicated module's (module_leaves.c)
 */
#define KTR_ARCH_NONGLOBAL_TEXT true

static inline bool ktr_pte_present(u64 e)
{
	return e & _PAGE_PRESENT;
}

static inline bool ktr_pte_leaf(u64 e, int level, int levels)
{
	return level == levels - 1 || (e & _PAGE_PSE);
}

/*
 * A node's leaf keeps the master's protections but drops _PAGE_GLOBAL:
 * a global TLB entry of the master's text would survive the CR3 switch
 * into the node's tables (the x86 RFC made these ranges non-global too).
 */
static inline u64 ktr_pte_node_leaf(u64 master, phys_addr_t pa)
{
	u64 keep = ~PTE_PFN_MASK;

	if (master & _PAGE_PSE)
		keep |= _PAGE_PAT_LARGE;
	return (master & keep & ~(u64)_PAGE_GLOBAL) | pa;
}

static inline u64 ktr_pte_make_writable(u64 e)
{
	return e | _PAGE_RW;
}

/* an ignored bit in a non-leaf entry: changes the value, not the walk */
static inline u64 ktr_pte_mark_shared(u64 e)
{
	return e ^ _PAGE_SOFTW1;
}

static inline bool ktr_pte_writable(u64 e, int level)
{
	return e & _PAGE_RW;
}

static inline bool ktr_pte_executable(u64 e, int level)
{
	return !(e & _PAGE_NX);
}

static inline bool ktr_pte_global(u64 e, int level)
{
	return e & _PAGE_GLOBAL;
}

static inline u64 ktr_pte_with_global(u64 e, bool global)
{
	return global ? e | _PAGE_GLOBAL : e & ~(u64)_PAGE_GLOBAL;
}

/*
 * What only arm64 needs: no pages below a root, nothing after rodata
 * that is not rodata, and table writes that the walker sees as they are
 * made. Never called where the constants above rule them out.
 */
static inline void ktr_arch_fill_root_lead(void *lead)
{
}

static inline unsigned long ktr_arch_rodata_limit(void)
{
	return ULONG_MAX;
}

static inline void ktr_arch_tables_changed(void)
{
}

static inline u64 ktr_arch_table_entry(phys_addr_t pa)
{
	return 0;
}

static inline void ktr_arch_override_return(struct pt_regs *regs,
					    unsigned long value)
{
}

#endif /* KTREPL_ARCH_X86_H */
