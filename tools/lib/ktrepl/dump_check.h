/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_DUMP_CHECK_H
#define KTREPL_DUMP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* A run of physical memory the dump file really holds. */
struct kt_dump_range {
	uint64_t pa;
	uint64_t size;
};

/*
 * An ELF PT_LOAD: memory [pa, pa + memsz), whose first filesz bytes are
 * at offset in the file; the rest reads as zeros (what a filter left out).
 */
struct kt_dump_load {
	uint64_t pa;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
};

/* What validation learnt about a dump, for the reader that follows. */
struct kt_dump_layout {
	enum { KT_DUMP_ELF, KT_DUMP_KDUMP } format;
	/*
	 * What the file holds, sorted by pa: ELF, the file-backed part of
	 * each PT_LOAD; kdump, the runs of its dumpable-page bitmap
	 */
	struct kt_dump_range *ranges;
	size_t nr_ranges;
	/*
	 * ELF: some PT_LOAD has p_memsz past p_filesz, the pages a filter
	 * (makedumpfile -E -d N) left out; the ELF records neither N nor why.
	 */
	bool elf_filtered;
	/* ELF: every PT_LOAD with memory, sorted by pa */
	struct kt_dump_load *loads;
	size_t nr_loads;
	/* ELF: two of them cover the same memory (x86's kernel text one) */
	bool loads_overlap;
	/* ELF: the first VMCOREINFO note's text (NUL-terminated), or NULL */
	char *vmcoreinfo;
	/* kdump: the sub-header's dump_level (makedumpfile -d), -1 if absent */
	int dump_level;
};

/*
 * Check everything libkdumpfile will trust before it sees the dump: for
 * ELF the header, program and section header tables, every PT_LOAD and
 * PT_NOTE inside the file, and every note inside its segment; for kdump
 * the header, sub-header, bitmaps and page descriptors. An error names
 * the path and the field. Neither format: 0, the layout format unset.
 */
int kt_dump_validate(int fd, const char *path, struct kt_dump_layout *layout,
		     struct kt_err *err);
/*
 * Of nr spans sorted by pa and not overlapping, stride bytes apart, each
 * a uint64_t pa first and a uint64_t length len_off bytes in (the
 * layout's ranges and loads): the index of the first that ends after
 * pa, nr if none.
 */
size_t kt_dump_first_ending_after(const void *spans, size_t nr,
				  size_t stride, size_t len_off, uint64_t pa);
/*
 * The first run the file holds that ends after pa, as [*start, *end)
 * (the memsrc next_range rule); -ENOENT past the last.
 */
int kt_dump_layout_next_range(const struct kt_dump_layout *layout,
			      uint64_t pa, uint64_t *start, uint64_t *end);
void kt_dump_layout_free(struct kt_dump_layout *layout);

#endif
