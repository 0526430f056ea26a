// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-top's per-sample cost natively, which TCG guests cannot show:
 * kernel-text samples through the locality model with this host's own
 * kallsyms for symbolization (run as root, or addresses read as 0).
 * Translations are pre-filled, as in a steady frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locality.h"

#define SAMPLES 2000000
#define PAGES 70

int main(void)
{
	static struct kt_numa_range all = { 0, 1ULL << 52, 0 };
	static struct kt_locality loc;
	static struct kt_numa numa;
	struct kt_symtab syms = { 0 };
	struct kt_state st = { 0 };
	struct timespec a, b;
	struct kt_err err;
	uint64_t base;
	int i;

	kt_err_clear(&err);
	if (kt_symtab_load_map(&syms, "/proc/kallsyms", &err)) {
		fprintf(stderr, "model_bench: %s\n", err.msg);
		return 2;
	}
	base = kt_symtab_addr(&syms, "int_sqrt");
	if (!base) {
		fprintf(stderr, "model_bench: no int_sqrt in /proc/kallsyms (not root?)\n");
		return 2;
	}
	for (i = 0; i < KT_NUMA_MAX_CPUS; i++)
		numa.cpu_node[i] = -1;
	numa.cpu_node[0] = 0;
	numa.nr_cpus = 1;
	numa.nr_nodes = 1;
	numa.ranges = &all;
	numa.nr_ranges = 1;
	kt_arch_x86_64.configure(&loc.geo, 4, 12, 48, &err);
	loc.arch = &kt_arch_x86_64;
	loc.numa = &numa;
	loc.syms = &syms;
	loc.core.start = kt_symtab_addr(&syms, "_stext");
	loc.core.end = kt_symtab_addr(&syms, "_etext");
	kt_loc_load_modules(&loc, "/proc/modules", &err);
	st.activation = KT_ACT_NONE;
	kt_loc_set_rule(&loc, &st, &err);
	kt_loc_init(&loc);
	for (i = 0; i < PAGES; i++) {
		uint64_t page = (base >> 12) + i + 1;

		loc.cache[page % KT_LOC_CACHE_SIZE].page = page;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < SAMPLES; i++) {
		struct kt_sample s = {
			.ip = base + (uint64_t)i * 37 % ((PAGES - 1) * 4096),
			.tid = 5,
		};

		kt_loc_add(&loc, &s);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("{\"ns_per_sample\": %.1f, \"functions\": %zu, \"symbols\": %zu}\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / SAMPLES,
	       loc.nr_funcs, syms.nr);
	kt_loc_free(&loc);
	kt_symtab_free(&syms);
	return 0;
}
