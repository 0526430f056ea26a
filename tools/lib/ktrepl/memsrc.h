/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_MEMSRC_H
#define KTREPL_MEMSRC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * Every place memory can come from (live kcore, a vmcore, a raw
 * physical image, crash's readmem) is one of these. Page-table walkers
 * and diffing only ever see physical reads, so they work the same on a
 * live box and on a dump; address translation lives in the walkers,
 * never in a backend.
 */
struct kt_memsrc;

/*
 * The error every source's read_phys gives for an address it does not
 * hold: not RAM, outside an image, left out of a dump. A caller tells
 * "not there" from a failed read by this code alone.
 */
#define KT_MEM_ABSENT ENODATA

struct kt_memsrc_ops {
	const char *name;
	/* Read exactly len bytes at physical address pa, or fail. */
	int (*read_phys)(struct kt_memsrc *src, uint64_t pa, void *buf,
			 size_t len, struct kt_err *err);
	/*
	 * Optional: the value of a VMCOREINFO key (e.g. "SYMBOL(_stext)"),
	 * copied into val. Returns -ENOENT when the key or the note is absent.
	 */
	int (*vmcoreinfo)(struct kt_memsrc *src, const char *key, char *val,
			  size_t len, struct kt_err *err);
	/* Optional: one past the highest physical address, for scans. */
	int (*phys_end)(struct kt_memsrc *src, uint64_t *end,
			struct kt_err *err);
	/*
	 * Optional: the first run [*start, *end) the source really holds
	 * that ends after pa; -ENOENT past the last; -ENOTSUP where it
	 * cannot tell this time (phys_end is asked then). Lets a scan skip
	 * what a header claims but the file does not hold.
	 */
	int (*next_range)(struct kt_memsrc *src, uint64_t pa, uint64_t *start,
			  uint64_t *end);
	/*
	 * Optional: where the source's own means (crash's module symbols)
	 * say the ktrepl descriptor is; 0 with *pa set, -ENOENT where they
	 * cannot say. Checked like every other candidate before use.
	 */
	int (*descriptor_hint)(struct kt_memsrc *src, uint64_t *pa);
	void (*close)(struct kt_memsrc *src);
};

struct kt_memsrc {
	const struct kt_memsrc_ops *ops;
	void *priv;
	char path[512];
};

int kt_memsrc_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			size_t len, struct kt_err *err);
int kt_memsrc_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			 size_t len, struct kt_err *err);
int kt_memsrc_phys_end(struct kt_memsrc *src, uint64_t *end,
		       struct kt_err *err);
/* next_range, or [pa, phys_end) where the source cannot tell (-ENOTSUP) */
int kt_memsrc_next_range(struct kt_memsrc *src, uint64_t pa, uint64_t *start,
			 uint64_t *end, struct kt_err *err);
/*
 * The first part [*gap_start, *gap_end) of [pa, pa + len) that the
 * source does not hold, though reading it succeeds (an ELF dump's
 * filtered pages read as zeros): 0 then, -ENOENT when it holds all of
 * it, -ENOTSUP when it cannot tell.
 */
int kt_memsrc_first_gap(struct kt_memsrc *src, uint64_t pa, uint64_t len,
			uint64_t *gap_start, uint64_t *gap_end);
/* descriptor_hint, or -ENOENT where the source has none */
int kt_memsrc_descriptor_hint(struct kt_memsrc *src, uint64_t *pa);
void kt_memsrc_close(struct kt_memsrc *src);

/* A raw file whose byte at offset (pa - base) is physical address pa. */
int kt_memsrc_open_raw(struct kt_memsrc **out, const char *path,
		       uint64_t base, struct kt_err *err);
/* /proc/kcore (or a copy): physical reads through its KCORE_RAM segments. */
int kt_memsrc_open_kcore(struct kt_memsrc **out, const char *path,
			 struct kt_err *err);
/*
 * A vmcore in any format libkdumpfile reads (ELF, kdump-compressed), or
 * makedumpfile's flattened format, rebuilt first in $TMPDIR.
 */
int kt_memsrc_open_vmcore(struct kt_memsrc **out, const char *path,
			  struct kt_err *err);

/*
 * The value of key in VMCOREINFO text. The last "key=" line wins, so a
 * line appended later overrides an earlier one.
 */
int kt_vmcoreinfo_lookup(const char *text, const char *key, char *val,
			 size_t len, struct kt_err *err);

/* Used by backends outside this library (the crash extension). */
struct kt_memsrc *kt_memsrc_new(const struct kt_memsrc_ops *ops, void *priv,
				const char *path);

#endif
