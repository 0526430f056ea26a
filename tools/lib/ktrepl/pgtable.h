/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PGTABLE_H
#define KTREPL_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "memsrc.h"

#define KT_MAX_LEVELS 5

/* How a given kernel lays out its tables; built once by kt_arch->configure. */
struct kt_pt_geometry {
	unsigned int levels;
	unsigned int shift[KT_MAX_LEVELS];	/* top level first */
	unsigned int bits[KT_MAX_LEVELS];
	unsigned int page_shift;
	unsigned int va_bits;
	/* the top-level index where the kernel's half starts */
	unsigned int kernel_first;
};

/* One translation: a leaf mapping, or a hole at some level. */
struct kt_mapping {
	uint64_t va;		/* first VA the entry covers */
	uint64_t size;
	uint64_t pa;		/* of va; meaningless when !present */
	int level;		/* 0 = top */
	uint64_t entry[KT_MAX_LEVELS];	/* the entry read at each level */
	uint64_t table_pa[KT_MAX_LEVELS];	/* table each entry was in */
	bool present;
	bool writable;
	bool executable;
	bool global;
	bool user;
};

/*
 * Where the kernel rewrites its own text on purpose: the patch-site
 * tables it walks at boot and at runtime (see vmlinux_text.h).
 */
enum kt_site_kind {
	KT_SITE_ALTERNATIVE,
	KT_SITE_RETPOLINE,
	KT_SITE_RETURN_THUNK,
	KT_SITE_PARAVIRT,
	KT_SITE_FTRACE,
	KT_SITE_JUMP_LABEL,
	KT_SITE_STATIC_CALL,
	KT_SITE_LOCK_PREFIX,
	KT_SITE_ENDBR_SEAL,	/* 6.2+: unused ENDBR64s poisoned at boot */
	KT_SITE_RUNTIME_CONST,	/* 6.11+: immediates set once at boot */
	KT_SITE_NR,
};

/*
 * One per architecture, like libdrgn's architecture info: every fact
 * about the architecture lives here, paging and instructions alike. No
 * I/O happens here; the walker reads tables through a memory source. A
 * NULL hook means the architecture does not need it or is not supported.
 */
struct kt_arch {
	const char *name;
	/* geometry of a kernel with these paging facts (from its state) */
	int (*configure)(struct kt_pt_geometry *geo, unsigned int levels,
			 unsigned int page_shift, unsigned int va_bits,
			 struct kt_err *err);
	bool (*present)(uint64_t e);
	bool (*leaf)(const struct kt_pt_geometry *geo, uint64_t e, int level);
	uint64_t (*next_pa)(const struct kt_pt_geometry *geo, uint64_t e,
			    int level);
	void (*decode_leaf)(const struct kt_pt_geometry *geo, uint64_t e,
			    int level, struct kt_mapping *m);
	/* ptdump-like names of the levels, top first for 5 levels */
	const char *const *level_names;

	/* instructions start at multiples of this (1: variable length) */
	unsigned int insn_align;
	/*
	 * Which patch-site kind turns master bytes m into r (len bytes; sym
	 * names the first byte, or is NULL); NULL when none does.
	 */
	const char *(*classify)(const uint8_t *m, const uint8_t *r,
				uint64_t len, const char *sym);
	/*
	 * The length of a patch site starting at a differing byte, when m
	 * and r (left bytes each) are a known instruction pair; 0: unknown.
	 */
	unsigned int (*site_len)(const uint8_t *m, const uint8_t *r,
				 uint64_t left);
	/*
	 * A range of len differing bytes may start inside an instruction
	 * whose first bytes both sides share (a call's target): given the
	 * 4 bytes before it on each side, how far back the instruction
	 * starts (0: it starts at the range).
	 */
	unsigned int (*insn_backup)(const uint8_t *m_before,
				    const uint8_t *r_before, uint64_t len);
	/* the length of the jump, call or NOP at b (2 bytes readable) */
	unsigned int (*branch_len)(const uint8_t *b);
	/* are site bytes mem a state the kernel itself writes there? */
	bool (*site_bytes_valid)(enum kt_site_kind kind, uint32_t len,
				 const uint8_t *mem);
	/*
	 * Byte offsets of the PC and the link register (0: none) in the
	 * pr_reg of a crash note's elf_prstatus (crash_note.h)
	 */
	unsigned int prstatus_pc;
	unsigned int prstatus_lr;
};

extern const struct kt_arch kt_arch_x86_64;
extern const struct kt_arch kt_arch_arm64;

const struct kt_arch *kt_arch_find(const char *name);

/*
 * The patch-site kind behind a differing range, or "unknown": the
 * architecture's instruction forms, plus static_call trampolines by name.
 */
const char *kt_classify(const struct kt_arch *arch, const uint8_t *master,
			const uint8_t *replica, uint64_t len, const char *sym);

/*
 * An iterator over [start, end) through one root table. It yields leaf
 * mappings and holes in VA order; it re-reads a table only when the
 * walk moves to another one, and gives up after a bounded number of
 * steps, so garbage or cyclic tables cannot keep it busy forever.
 */
struct kt_walk {
	const struct kt_arch *arch;
	const struct kt_pt_geometry *geo;
	struct kt_memsrc *src;
	uint64_t root_pa;
	uint64_t va;
	uint64_t end;
	bool done;
	unsigned long steps;
	unsigned long max_steps;
	uint64_t cached_pa[KT_MAX_LEVELS];
	uint64_t *cached[KT_MAX_LEVELS];
};

int kt_walk_begin(struct kt_walk *w, const struct kt_arch *arch,
		  const struct kt_pt_geometry *geo, struct kt_memsrc *src,
		  uint64_t root_pa, uint64_t start, uint64_t end,
		  struct kt_err *err);
/* 1: *m filled; 0: done; <0: error in err */
int kt_walk_next(struct kt_walk *w, struct kt_mapping *m, struct kt_err *err);
void kt_walk_end(struct kt_walk *w);

/* Translate one VA (crash's vtop through an arbitrary root). */
int kt_translate(const struct kt_arch *arch, const struct kt_pt_geometry *geo,
		 struct kt_memsrc *src, uint64_t root_pa, uint64_t va,
		 struct kt_mapping *m, struct kt_err *err);

/* "RO,X,GLB" style flags for plain output */
void kt_mapping_flags(const struct kt_mapping *m, char *buf, unsigned int len);

#endif
