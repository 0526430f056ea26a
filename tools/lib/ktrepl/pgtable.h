/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PGTABLE_H
#define KTREPL_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "memsrc.h"

#define KT_MAX_LEVELS 5

/* How a given kernel lays out its tables; filled by kt_arch->configure. */
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
 * One per architecture, like libdrgn's architecture info: geometry and
 * entry decoding only. No I/O happens here; the walker reads tables
 * through a memory source.
 */
struct kt_arch {
	const char *name;
	/* variant: "4level"/"5level" on x86_64, "4k:48" style on arm64 */
	int (*configure)(struct kt_pt_geometry *geo, const char *variant,
			 struct kt_err *err);
	bool (*present)(uint64_t e);
	bool (*leaf)(const struct kt_pt_geometry *geo, uint64_t e, int level);
	uint64_t (*next_pa)(const struct kt_pt_geometry *geo, uint64_t e,
			    int level);
	void (*decode_leaf)(const struct kt_pt_geometry *geo, uint64_t e,
			    int level, struct kt_mapping *m);
	/* ptdump-like names of the levels, top first for 5 levels */
	const char *const *level_names;
};

extern const struct kt_arch kt_arch_x86_64;
extern const struct kt_arch kt_arch_arm64;

const struct kt_arch *kt_arch_find(const char *name);

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
