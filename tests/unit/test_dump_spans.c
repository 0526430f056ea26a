// SPDX-License-Identifier: GPL-2.0
/*
 * The one search over a dump's sorted spans (kt_dump_first_ending_after),
 * which both the reader's segment lookup and next_range use: at each
 * span's first byte, last byte and one past it, in a gap, before the
 * first and past the last, for ranges and for loads (whose length is not
 * the second field).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_check.h"
#include "tap.h"

static const struct kt_dump_range ranges[] = {
	{ .pa = 0x1000, .size = 0x1000 }, /* [0x1000, 0x2000) */
	{ .pa = 0x2000, .size = 0x800 }, /* adjacent: [0x2000, 0x2800) */
	{ .pa = 0x8000, .size = 0x100 }, /* after a gap */
};

static const struct kt_dump_load loads[] = {
	{ .pa = 0x10000, .offset = 0x99, .filesz = 0x10, .memsz = 0x2000 },
	{ .pa = 0x20000, .offset = 0x99, .filesz = 0x10, .memsz = 0x1000 },
};

/* pa, and the index of the first span ending after it (nr: none) */
struct span_case {
	uint64_t pa;
	size_t want;
};

static const struct span_case range_cases[] = {
	{ 0x0, 0 },    { 0xfff, 0 },  { 0x1000, 0 },	 { 0x1fff, 0 },
	{ 0x2000, 1 }, { 0x27ff, 1 }, { 0x2800, 2 },	 { 0x7fff, 2 },
	{ 0x80ff, 2 }, { 0x8100, 3 }, { UINT64_MAX, 3 },
};

static const struct span_case load_cases[] = {
	/* memsz, not filesz or offset, is a load's length */
	{ 0x10000, 0 }, { 0x10010, 0 }, { 0x11fff, 0 },
	{ 0x12000, 1 }, { 0x20fff, 1 }, { 0x21000, 2 },
};

/* one point per case: kt_dump_first_ending_after() over those spans */
static void check_cases(const char *what, const void *spans, size_t nr,
			size_t stride, size_t len_off,
			const struct span_case *cases, size_t nr_cases)
{
	size_t i;

	for (i = 0; i < nr_cases; i++)
		tap_eq_u64(kt_dump_first_ending_after(spans, nr, stride,
						      len_off, cases[i].pa),
			   cases[i].want, "%s: the first ending after 0x%llx",
			   what, (unsigned long long)cases[i].pa);
}

int main(void)
{
	const struct kt_dump_layout layout = {
		.ranges = (struct kt_dump_range *)ranges,
		.nr_ranges = 3,
	};
	uint64_t start = 0, end = 0;
	int ret;

	tap_header();
	tap_plan(sizeof(range_cases) / sizeof(range_cases[0]) +
		 sizeof(load_cases) / sizeof(load_cases[0]) + 4);
	check_cases("ranges", ranges, 3, sizeof(ranges[0]),
		    offsetof(struct kt_dump_range, size), range_cases,
		    sizeof(range_cases) / sizeof(range_cases[0]));
	check_cases("loads", loads, 2, sizeof(loads[0]),
		    offsetof(struct kt_dump_load, memsz), load_cases,
		    sizeof(load_cases) / sizeof(load_cases[0]));
	ret = kt_dump_layout_next_range(&layout, 0x1fff, &start, &end);
	tap_ok(!ret && start == 0x1fff && end == 0x2000,
	       "next_range at a range's last byte: that byte to its end (got %d [0x%llx, 0x%llx))",
	       ret, (unsigned long long)start, (unsigned long long)end);
	ret = kt_dump_layout_next_range(&layout, 0x3000, &start, &end);
	tap_ok(!ret && start == 0x8000 && end == 0x8100,
	       "next_range in a gap: the next range whole (got %d [0x%llx, 0x%llx))",
	       ret, (unsigned long long)start, (unsigned long long)end);
	tap_eq_s64(kt_dump_layout_next_range(&layout, 0x8100, &start, &end),
		   -ENOENT, "next_range one past the last range: -ENOENT");
	tap_eq_u64(kt_dump_first_ending_after(
			   ranges, 0, sizeof(ranges[0]),
			   offsetof(struct kt_dump_range, size), 0),
		   0, "no spans: none");
	return tap_finish();
}
