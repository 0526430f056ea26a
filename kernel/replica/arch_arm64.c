// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 page-table geometry, entry bits and text-patch hook.
 *
 * Replicas and node tables are built, but no CPU switches TTBR1 to them
 * (activation "inactive"): doing that safely needs every later change to
 * the kernel's top-level entries mirrored into each node's root, which a
 * module cannot hook on a stock kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <asm/cacheflush.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>

#include "engine.h"

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
	return (master & ~PTE_ADDR_MASK & ~PTE_CONT) | PTE_NG | pa;
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
 * arm64's instruction writers (aarch64_insn_write and its callers) are
 * __kprobes, and kprobes refuse everything under kernel/trace. So the
 * engine syncs changed master pages when these return: static keys,
 * kprobes and BPF. ftrace's own updates are not reachable from a module,
 * so a periodic sync (sync_period_ms) catches them; an in-tree
 * implementation writes every replica in __aarch64_insn_write, as
 * openEuler does.
 */
static const char *const arm64_sync_symbols[] = {
	"jump_label_update",
	"register_kprobe",
	"unregister_kprobe",
	"enable_kprobe",
	"disable_kprobe",
	"bpf_arch_text_poke",
	NULL,
};

/* TTBR1 never changes: nothing ever runs on a node's tables */
static void arm64_release_cpu(void)
{
}

static void arm64_geometry(struct ktr_geom *g)
{
	int i, first = 4 - CONFIG_PGTABLE_LEVELS;
	static const unsigned int shifts[] = { 39, 30, 21, 12 };

	g->levels = CONFIG_PGTABLE_LEVELS;
	for (i = 0; i < g->levels; i++) {
		g->shift[i] = shifts[i + first] + PAGE_SHIFT - 12;
		g->bits[i] = PAGE_SHIFT - 3;
	}
	g->shift[0] = PGDIR_SHIFT;
	g->bits[0] = VA_BITS - PGDIR_SHIFT;
	g->root_order = 0;
	g->addr_mask = PTE_ADDR_MASK;
	g->kernel_first = 0;	/* TTBR1's table is all kernel */
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
	.sync_symbols = arm64_sync_symbols,
	.can_activate = false,
	/*
	 * set_memory_ro() covers only vmalloc areas on arm64, not the
	 * linear map; the replicas are never executed here anyway.
	 */
	.protect_alias = false,
};
