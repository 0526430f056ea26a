/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel internal ktrepl touches that differs between the series
 * it supports (Debian's 6.1 and 6.12) goes through a helper here, so the
 * engine itself carries no version test. Each switch names the release
 * that changed the interface upstream.
 */
#ifndef KTREPL_COMPAT_H
#define KTREPL_COMPAT_H

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/version.h>

/* the one place the kernel's version is read (checkpatch.t allows it) */
#define KTR_SINCE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/*
 * The series the tests cover (the profiles in scripts/kernels; the DKMS
 * package's BUILD_EXCLUSIVE_KERNEL says the same). Anything else loads
 * only with allow_untested=1 (main.c).
 */
#define KTR_SERIES(major, minor) \
	((LINUX_VERSION_CODE >> 8) == (KERNEL_VERSION(major, minor, 0) >> 8))
#define KTR_COMPAT_TESTED_SERIES (KTR_SERIES(6, 1) || KTR_SERIES(6, 12))
#define KTR_COMPAT_TESTED_NAMES "6.1, 6.12"

/*
 * The core text and rodata of a module, as the engine replicates them.
 * Up to 6.3 the loader put both in one allocation, text first: one range,
 * [start, end), text up to text_end, and no second range. From 6.4
 * (struct module_memory) each is its own vmalloc area: the text is
 * [start, text_end = end) and the rodata [rodata_start, rodata_end).
 */
struct ktr_compat_module_ranges {
	unsigned long start, text_end, end;
	unsigned long rodata_start, rodata_end;	/* 0: in the first range */
};

static inline void ktr_compat_module_core(const struct module *mod,
					  struct ktr_compat_module_ranges *r)
{
#if KTR_SINCE(6, 4)
	r->start = (unsigned long)mod->mem[MOD_TEXT].base;
	r->text_end = r->start + PAGE_ALIGN(mod->mem[MOD_TEXT].size);
	r->end = r->text_end;
	r->rodata_start = (unsigned long)mod->mem[MOD_RODATA].base;
	r->rodata_end = r->rodata_start + PAGE_ALIGN(mod->mem[MOD_RODATA].size);
	if (!mod->mem[MOD_RODATA].size)
		r->rodata_start = r->rodata_end = 0;
#else
	r->start = (unsigned long)mod->core_layout.base;
	r->text_end = r->start + mod->core_layout.text_size;
	r->end = r->start + mod->core_layout.ro_size;
	r->rodata_start = r->rodata_end = 0;
#endif
}

/* construct a PMD table page the way pmd_alloc_one() does (6.6: ptdesc) */
static inline void ktr_compat_pmd_table_ctor(struct page *page)
{
#if KTR_SINCE(6, 6)
	pagetable_pmd_ctor(page_ptdesc(page));
#else
	pgtable_pmd_page_ctor(page);
#endif
}

#ifdef CONFIG_X86_64
#include <asm/mmu.h>
#include <linux/smp.h>

/* 6.8 dropped leave_mm()'s CPU argument: it is always this CPU */
static inline void ktr_compat_leave_mm(void)
{
#if KTR_SINCE(6, 8)
	leave_mm();
#else
	leave_mm(smp_processor_id());
#endif
}
#endif

#ifdef CONFIG_ARM64
#include <asm/pgtable-hwdef.h>

/*
 * The output address bits of a descriptor. 6.9 (LPA2: 52-bit PAs with
 * 4K and 16K pages) split them into PTE_ADDR_LOW and PTE_ADDR_HIGH, where
 * the high part reuses the shareability bits [9:8]. The engine keeps an
 * entry's other bits by masking, which only the low part allows, so the
 * mask is PTE_ADDR_LOW: ktrepl refuses memory above it at load.
 */
#ifdef PTE_ADDR_MASK
#define KTR_COMPAT_PTE_ADDR_MASK PTE_ADDR_MASK
#define KTR_COMPAT_PA_LIMIT_SHIFT PHYS_MASK_SHIFT
#else
#define KTR_COMPAT_PTE_ADDR_MASK PTE_ADDR_LOW
#define KTR_COMPAT_PA_LIMIT_SHIFT 50
#endif
#endif

#endif
