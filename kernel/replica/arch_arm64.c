// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 page-table geometry, root reads, TLB and cache maintenance, and
 * the instruction forms the tests inject (the entry bits: arch_arm64.h).
 *
 * Activation "percpu" (percpu_arm64.c) puts every CPU's TTBR1 on its
 * node's root; fresh.c keeps the copied tables identical to the master's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <asm/cacheflush.h>
#include <asm/fixmap.h>
#include <asm/insn.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>
#include <asm/tlbflush.h>

#include "core.h"
#include "build.h"
#include "testing.h"
#include "ktrepl_compat.h"

phys_addr_t ktr_arch_read_root(void)
{
	/* BADDR; the ASID above and CnP below are not part of the address */
	return read_sysreg(ttbr1_el1) & GENMASK_ULL(47, 2);
}

/* in the kernel, TTBR1 holds swapper_pg_dir (init_mm is not in kallsyms) */
phys_addr_t ktr_arch_master_root(void)
{
	return ktr_arch_read_root();
}

void ktr_arch_flush_local(unsigned long va)
{
	dsb(nshst);
	__tlbi(vaale1, __TLBI_VADDR(va, 0));
	dsb(nsh);
	isb();
}
NOKPROBE_SYMBOL(ktr_arch_flush_local);

void ktr_arch_sync_icache(void *alias, unsigned long va, size_t len)
{
	/* clean the alias to PoU; the I-cache is invalidated by VA */
	caches_clean_inval_pou((unsigned long)alias,
			       (unsigned long)alias + len);
}
NOKPROBE_SYMBOL(ktr_arch_sync_icache);

int ktr_arch_retval_insn(u8 *buf, size_t len, unsigned long value)
{
	u32 insn[2];

	if (len < sizeof(insn) || value > 0xffff)
		return -EINVAL;
	insn[0] = cpu_to_le32(0xd2800000 | (value << 5));	/* movz x0, #v */
	insn[1] = cpu_to_le32(0xd65f03c0);			/* ret */
	memcpy(buf, insn, sizeof(insn));
	return sizeof(insn);
}

int ktr_arch_trap_insn(u8 *buf, size_t len)
{
	u32 insn = cpu_to_le32(0xd4200000 | (0x800 << 5));	/* brk #0x800 */

	if (len < sizeof(insn))
		return -EINVAL;
	memcpy(buf, &insn, sizeof(insn));
	return sizeof(insn);
}

/* TTBR1 never changes: nothing ever runs on a node's tables */
void ktr_arch_release_cpu(void)
{
}

void ktr_arch_leave_root(void)
{
}

/*
 * With KPTI, every exception entry from EL0 adds TRAMP_SWAPPER_OFFSET
 * (two pages) to the current TTBR1 and every return subtracts it, so a
 * node root needs a copy of tramp_pg_dir two pages below it (and the
 * reserved page between). tramp_pg_dir is written once, at boot, so a
 * copy sharing its lower tables stays right.
 */
void ktr_arch_fill_root_lead(void *lead)
{
	memcpy(lead, (void *)ktr.master_root - 2 * PAGE_SIZE, PAGE_SIZE);
}

/*
 * vmlinux.lds.S puts idmap_pg_dir, tramp_pg_dir, reserved_pg_dir and
 * swapper_pg_dir right after rodata, in the same read-only segment; the
 * first of them is three pages below swapper_pg_dir, which TTBR1 holds.
 */
unsigned long ktr_arch_rodata_limit(void)
{
	return (unsigned long)__phys_to_kimg(ktr_arch_read_root()) - 3 * PAGE_SIZE;
}

/* as pmd/pud/p4d_populate() write a kernel table entry */
u64 ktr_arch_table_entry(phys_addr_t pa)
{
	return __phys_to_pte_val(pa) | PMD_TYPE_TABLE | PMD_TABLE_UXN;
}

void ktr_arch_flush_kernel_range(unsigned long start, unsigned long end)
{
	flush_tlb_kernel_range(start, end);
}

void ktr_arch_flush_all(void)
{
	/* TLBI VMALLE1IS: every ASID of every CPU in the inner domain */
	flush_tlb_all();
	ktr_test_lifetime("flush_all cpus=broadcast online=%u by=%ps",
			  num_online_cpus(), __builtin_return_address(0));
}

void ktr_arch_override_return(struct pt_regs *regs, unsigned long value)
{
	regs->regs[0] = value;
	instruction_pointer_set(regs, procedure_link_pointer(regs));
}
NOKPROBE_SYMBOL(ktr_arch_override_return);

/*
 * set_memory_ro() refuses the linear map on arm64. With rodata=full (the
 * Debian default) the linear map is made of page entries, so the alias of
 * each replica page is made read-only the way the kernel's own
 * __change_memory_common() does it: AP[2] set, DBM clear, then a
 * broadcast invalidate. A block entry means the map cannot be changed
 * page by page.
 */
static u64 *linear_pte(unsigned long va)
{
	int level;
	u64 *e = ktr_walk(ktr.master_root, va, -1, &level);

	if (level != ktr.geom.levels - 1 || !ktr_pte_present(*e) ||
	    (*e & PTE_CONT))
		return NULL;
	return e;
}

/* a protection change here rewrites no mapping of the image */
int ktr_arch_image_aliases_init(void)
{
	return 0;
}

/* set_memory_rox() is ro, then x */
const struct ktr_protect_probe ktr_arch_protect_probes[KTR_MAX_PROTECT_PROBES] = {
	{ "set_memory_ro", KTR_PROTECT_PAGES },
	{ "set_memory_rw", KTR_PROTECT_PAGES },
	{ "set_memory_x", KTR_PROTECT_PAGES },
	{ "set_memory_nx", KTR_PROTECT_PAGES },
};

/* set_memory_*(addr, numpages): the probe list has no other kind */
bool ktr_arch_protect_span(enum ktr_protect_args args, struct pt_regs *regs,
			   struct ktr_protect_span *s)
{
	/* an int: the upper half of the register is undefined */
	long numpages = (int)regs_get_kernel_argument(regs, 1);

	s->start = regs_get_kernel_argument(regs, 0);
	s->end = s->start + max(numpages, 0L) * PAGE_SIZE;
	s->alias_start = ULONG_MAX;
	s->alias_end = 0;
	return args == KTR_PROTECT_PAGES;
}
NOKPROBE_SYMBOL(ktr_arch_protect_span);

int ktr_arch_protect_alias(unsigned long addr, int numpages, bool ro)
{
	unsigned long va, end = addr + numpages * PAGE_SIZE;

	/* all or nothing: check every page before changing any */
	for (va = addr; va < end; va += PAGE_SIZE)
		if (!linear_pte(va))
			return -EOPNOTSUPP;
	for (va = addr; va < end; va += PAGE_SIZE) {
		u64 *e = linear_pte(va), v;

		v = READ_ONCE(*e);
		v = ro ? (v | PTE_RDONLY) & ~PTE_WRITE :
			 (v & ~PTE_RDONLY) | PTE_WRITE;
		WRITE_ONCE(*e, v);
	}
	dsb(ishst);
	flush_tlb_kernel_range(addr, end);
	return 0;
}

int ktr_arch_geometry(struct ktr_geom *g)
{
	int i;

	/*
	 * A 52-bit kernel on a CPU without LPA2 runs 48 or 47 VA bits, and
	 * with 16K pages folds its top level at boot: the tables are then
	 * not the ones CONFIG_PGTABLE_LEVELS describes.
	 */
	if (vabits_actual <= PGDIR_SHIFT) {
		pr_err("%llu-bit VAs fold a table level at boot: not supported\n",
		       (u64)vabits_actual);
		return -EOPNOTSUPP;
	}
	/* only the low output-address bits can be kept by masking */
	if ((__pa(high_memory - 1) >> KTR_COMPAT_PA_LIMIT_SHIFT) != 0) {
		pr_err("memory above 2^%d: not supported\n",
		       KTR_COMPAT_PA_LIMIT_SHIFT);
		return -EOPNOTSUPP;
	}

	g->levels = CONFIG_PGTABLE_LEVELS;
	/* each level resolves PAGE_SHIFT - 3 bits above the page offset */
	for (i = 0; i < g->levels; i++) {
		g->shift[i] = PAGE_SHIFT + (g->levels - 1 - i) * (PAGE_SHIFT - 3);
		g->bits[i] = PAGE_SHIFT - 3;
	}
	g->shift[0] = PGDIR_SHIFT;
	g->bits[0] = vabits_actual - PGDIR_SHIFT;
	g->root_order = 0;
	g->addr_mask = KTR_COMPAT_PTE_ADDR_MASK;
	g->kernel_first = 0;	/* TTBR1's table is all kernel */
	return 0;
}
