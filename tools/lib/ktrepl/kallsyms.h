/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_KALLSYMS_H
#define KTREPL_KALLSYMS_H

/*
 * The kernel's own symbol table, kallsyms, decoded from its memory: what
 * names a dump's addresses where no symbol file exists (Debian's arm64
 * kernels ship no -dbg vmlinux, and every System.map is a placeholder).
 * VMCOREINFO says where the tables are (Linux 6.0 and later).
 *
 * Reads are physical, through a memory source; where a kernel VA lives
 * is the business of a struct kt_kva_map, so the decoder never knows
 * how addresses are translated.
 */
#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "memsrc.h"
#include "pgtable.h"
#include "symbols.h"

/* Where a kernel virtual address is in physical memory. */
struct kt_kva_map {
	/*
	 * The PA of va, and in *contig how many bytes from va on the same
	 * mapping covers (at least 1).
	 */
	int (*to_pa)(void *arg, uint64_t va, uint64_t *pa, uint64_t *contig,
		     struct kt_err *err);
	void *arg;
};

/* Translation through a kernel's own tables: the master's, in a dump. */
struct kt_kva_pgtable {
	const struct kt_arch *arch;
	const struct kt_pt_geometry *geo;
	struct kt_memsrc *src;
	uint64_t root_pa;
};

/* to_pa for arg a struct kt_kva_pgtable */
int kt_kva_pgtable_to_pa(void *arg, uint64_t va, uint64_t *pa,
			 uint64_t *contig, struct kt_err *err);

/* exactly len bytes at kernel VA va, across mappings as they go */
int kt_kva_read(struct kt_memsrc *src, const struct kt_kva_map *map,
		uint64_t va, void *buf, size_t len, struct kt_err *err);

/* A kernel's tables, by VA, as VMCOREINFO's SYMBOL() lines give them. */
enum kt_kallsyms_table {
	KT_KS_NAMES,		/* u8[]: per symbol a length, then tokens */
	KT_KS_NUM_SYMS,		/* u32 */
	KT_KS_TOKEN_TABLE,	/* 256 NUL-terminated strings */
	KT_KS_TOKEN_INDEX,	/* u16[256]: each token's offset in the table */
	KT_KS_OFFSETS,		/* s32[num_syms] */
	KT_KS_RELATIVE_BASE,	/* u64 */
	KT_KS_NR
};

extern const char *const kt_kallsyms_table_names[KT_KS_NR];

struct kt_kallsyms_layout {
	uint64_t va[KT_KS_NR];
	/*
	 * CONFIG_KALLSYMS_ABSOLUTE_PERCPU: an offset >= 0 is the address
	 * itself (x86_64's percpu symbols), a negative one counts down from
	 * relative_base - 1. Off, every offset is unsigned from relative_base.
	 */
	bool absolute_percpu;
	/* VMCOREINFO's SYMBOL(_stext): the decoded _stext must land there */
	uint64_t stext;
};

/* More symbols than any kernel has: a num_syms past it is damage. */
#define KT_KALLSYMS_MAX_SYMS (1u << 22)

/*
 * The layout from src's VMCOREINFO. arch says whether percpu symbols are
 * absolute: x86_64 (CONFIG_KALLSYMS_ABSOLUTE_PERCPU is "def_bool X86_64 &&
 * SMP" up to Linux 6.14; Debian's 6.1 and 6.12 configs have it), never
 * arm64. -ENOENT where VMCOREINFO has no kallsyms lines (before 6.0), or
 * ENOTSUP for a layout this decoder does not read (kallsyms_addresses,
 * without CONFIG_KALLSYMS_BASE_RELATIVE).
 */
int kt_kallsyms_layout_from_vmcoreinfo(struct kt_kallsyms_layout *lay,
				       struct kt_memsrc *src, const char *arch,
				       struct kt_err *err);

/*
 * Decode every symbol into tab (at runtime addresses, slide 0, each with
 * its type letter). Every length and index is bounded by the tables'
 * sizes: damaged tables are an error naming the table, the symbol and
 * the offset, never a read past them. Where lay->stext is set, the
 * decoded _stext must equal it.
 */
int kt_kallsyms_load(struct kt_symtab *tab, struct kt_memsrc *src,
		     const struct kt_kva_map *map,
		     const struct kt_kallsyms_layout *lay, struct kt_err *err);

#endif
