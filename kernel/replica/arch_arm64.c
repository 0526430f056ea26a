// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 page-table geometry, entry bits and text-patch hook.
 *
 * Activation "percpu" (percpu_arm64.c) puts every CPU's TTBR1 on its
 * node's root; fresh.c keeps the copied tables identical to the master's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <asm/cacheflush.h>
#include <asm/fixmap.h>
#include <asm/insn.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>
#include <asm/tlbflush.h>

#include "engine.h"
#include "ktrepl_compat.h"

static bool arm64_present(u64 e)
{
	return e & PTE_VALID;
}

/* bits[1:0]: 01 block, 11 table (or page at the last level) */
static bool arm64_leaf(u64 e, int level, int levels)
{
	return level == levels - 1 || (e & PTE_TYPE_MASK) == PMD_TYPE_SECT;
}

/*
 * Each replica chunk is allocated on its own, so the contiguous hint of
 * the master's entries would be a lie here.
 */
static u64 arm64_node_leaf(u64 master, phys_addr_t pa)
{
	return (master & ~KTR_COMPAT_PTE_ADDR_MASK & ~PTE_CONT) | PTE_NG | pa;
}

static u64 arm64_make_writable(u64 e)
{
	return (e & ~PTE_RDONLY) | PTE_WRITE;
}

/* a software bit: ignored by the walker in a table entry */
static u64 arm64_mark_shared_entry(u64 e)
{
	return e ^ BIT(55);
}

static phys_addr_t arm64_read_root(void)
{
	/* BADDR; the ASID above and CnP below are not part of the address */
	return read_sysreg(ttbr1_el1) & GENMASK_ULL(47, 2);
}

/* in the kernel, TTBR1 holds swapper_pg_dir (init_mm is not in kallsyms) */
static phys_addr_t arm64_master_root(void)
{
	return arm64_read_root();
}

static void arm64_flush_local(unsigned long va)
{
	dsb(nshst);
	__tlbi(vaale1, __TLBI_VADDR(va, 0));
	dsb(nsh);
	isb();
}

static void arm64_sync_icache(void *alias, unsigned long va, size_t len)
{
	/* clean the alias to PoU; the I-cache is invalidated by VA */
	caches_clean_inval_pou((unsigned long)alias,
			       (unsigned long)alias + len);
}

static bool arm64_writable(u64 e, int level)
{
	return !(e & PTE_RDONLY);
}

static bool arm64_executable(u64 e, int level)
{
	return !(e & PTE_PXN);
}

static bool arm64_global(u64 e, int level)
{
	return !(e & PTE_NG);
}

static int arm64_retval_insn(u8 *buf, size_t len, unsigned long value)
{
	u32 insn[2];

	if (len < sizeof(insn) || value > 0xffff)
		return -EINVAL;
	insn[0] = cpu_to_le32(0xd2800000 | (value << 5));	/* movz x0, #v */
	insn[1] = cpu_to_le32(0xd65f03c0);			/* ret */
	memcpy(buf, insn, sizeof(insn));
	return sizeof(insn);
}

static int arm64_trap_insn(u8 *buf, size_t len)
{
	u32 insn = cpu_to_le32(0xd4200000 | (0x800 << 5));	/* brk #0x800 */

	if (len < sizeof(insn))
		return -EINVAL;
	memcpy(buf, &insn, sizeof(insn));
	return sizeof(insn);
}

/*
 * __aarch64_insn_write(void *addr, __le32 insn): the one function every
 * core-text write reaches. aarch64_insn_patch_text_nosync() is not that
 * funnel: patching.c inlines it into the stop_machine() callback that
 * arms and disarms kprobes, so a hook there never sees those writes.
 */
static bool arm64_patch_args(struct pt_regs *regs, unsigned long *va,
			     const void **src, size_t *len, bool *fill)
{
	*va = regs->regs[0];
	*src = &regs->regs[1];	/* the low 32 bits: little-endian */
	*len = AARCH64_INSN_SIZE;
	*fill = false;
	return true;
}

/*
 * The kernel writes the master through its fixmap and then cleans the
 * *VA* it was given, which on a CPU running a replica is that replica's
 * line, not the master's. So the master is written here, through a
 * writable alias of its physical page, and cleaned through its linear
 * alias, which every CPU translates to the master. pa is the master's
 * physical address of va: the image's, or a module page's.
 */
static void arm64_write_master(unsigned long va, phys_addr_t pa,
			       const void *src, size_t len)
{
	unsigned long alias = (unsigned long)phys_to_virt(pa);

	ktr_write_phys(pa, src, len);
	caches_clean_inval_pou(alias, alias + len);
}

/* where a taken-over __aarch64_insn_write() returns from: success */
static noinline int notrace arm64_insn_written(void *addr, __le32 insn)
{
	return 0;
}

/*
 * The master and every replica are written already, so the kernel's own
 * write (a fixmap map and unmap, each a broadcast TLB invalidate) would
 * only repeat the master's. The hooked call resumes in a stub rather
 * than at the caller's return address: a function-graph tracer that hooks
 * this call's return then still sees a function return.
 */
static void arm64_skip_kernel_write(struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)arm64_insn_written);
}

/* __set_fixmap(idx, phys, prot): prot 0 clears the slot */
static bool arm64_poke_slot(struct pt_regs *regs, phys_addr_t *pa, bool *map)
{
	if (regs->regs[0] != FIX_TEXT_POKE0)
		return false;
	*pa = regs->regs[1] & PAGE_MASK;
	*map = regs->regs[2] != 0;
	return true;
}

static unsigned long arm64_image_va(phys_addr_t pa)
{
	return (unsigned long)pa + kimage_voffset;
}

/* TTBR1 never changes: nothing ever runs on a node's tables */
static void arm64_release_cpu(void)
{
}

/*
 * With KPTI, every exception entry from EL0 adds TRAMP_SWAPPER_OFFSET
 * (two pages) to the current TTBR1 and every return subtracts it, so a
 * node root needs a copy of tramp_pg_dir two pages below it (and the
 * reserved page between). tramp_pg_dir is written once, at boot, so a
 * copy sharing its lower tables stays right.
 */
static void arm64_fill_root_lead(void *lead)
{
	memcpy(lead, (void *)ktr.master_root - 2 * PAGE_SIZE, PAGE_SIZE);
}

/*
 * vmlinux.lds.S puts idmap_pg_dir, tramp_pg_dir, reserved_pg_dir and
 * swapper_pg_dir right after rodata, in the same read-only segment; the
 * first of them is three pages below swapper_pg_dir, which TTBR1 holds.
 */
static unsigned long arm64_rodata_limit(void)
{
	return (unsigned long)__phys_to_kimg(arm64_read_root()) - 3 * PAGE_SIZE;
}

/* as pmd/pud/p4d_populate() write a kernel table entry */
static u64 arm64_table_entry(phys_addr_t pa)
{
	return __phys_to_pte_val(pa) | PMD_TYPE_TABLE | PMD_TABLE_UXN;
}

static void arm64_tables_changed(void)
{
	dsb(ishst);
	isb();
}

static void arm64_flush_kernel_range(unsigned long start, unsigned long end)
{
	flush_tlb_kernel_range(start, end);
}

static void arm64_override_return(struct pt_regs *regs, unsigned long value)
{
	regs->regs[0] = value;
	instruction_pointer_set(regs, procedure_link_pointer(regs));
}

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

	if (level != ktr.geom.levels - 1 || !arm64_present(*e) ||
	    (*e & PTE_CONT))
		return NULL;
	return e;
}

static int arm64_protect_alias(unsigned long addr, int numpages, bool ro)
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

static int arm64_geometry(struct ktr_geom *g)
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

const struct ktr_arch ktr_arch = {
	.name = "arm64",
	.geometry = arm64_geometry,
	.present = arm64_present,
	.leaf = arm64_leaf,
	.node_leaf = arm64_node_leaf,
	.make_writable = arm64_make_writable,
	.mark_shared_entry = arm64_mark_shared_entry,
	.read_root = arm64_read_root,
	.master_root = arm64_master_root,
	.flush_local = arm64_flush_local,
	.sync_icache = arm64_sync_icache,
	.writable = arm64_writable,
	.executable = arm64_executable,
	.global = arm64_global,
	.retval_insn = arm64_retval_insn,
	.trap_insn = arm64_trap_insn,
	.release_cpu = arm64_release_cpu,
	.leave_root = arm64_release_cpu,
	.patch_symbol = "__aarch64_insn_write",
	.patch_args = arm64_patch_args,
	.write_master = arm64_write_master,
	.skip_kernel_write = arm64_skip_kernel_write,
	.poke_symbol = "__set_fixmap",
	.poke_slot = arm64_poke_slot,
	.image_va = arm64_image_va,
	.rodata_limit = arm64_rodata_limit,
	.root_lead_pages = 2,
	.fill_root_lead = arm64_fill_root_lead,
	.table_entry = arm64_table_entry,
	.tables_changed = arm64_tables_changed,
	.override_return = arm64_override_return,
	.percpu_start = ktr_percpu_start,
	.percpu_stop = ktr_percpu_stop,
	.installed_root = ktr_percpu_installed_root,
	.percpu_counters = ktr_percpu_counters,
	.pm_revert = ktr_percpu_pm_revert,
	.can_activate = false,
	.protect_alias = arm64_protect_alias,
	.flush_kernel_range = arm64_flush_kernel_range,
	.flush_anywhere = true,
	.leaf_move_breaks = true,
};
