// SPDX-License-Identifier: GPL-2.0
/*
 * The record tables (kernel/include/ktrepl_records.h) against what a
 * real module printed: every line of each debugfs file captured from a
 * guest (fixtures/x86_64-2x2/debugfs, tests/vm/capture-fixtures.py) has
 * exactly its table's keys, in the table's order, each value of the
 * field's type. A table that no longer says what the module prints, or
 * the other way round, fails here. Every kind of record must be in the
 * captures: module extents and patch records, which that load has none
 * of, come from a second one (x86_64-2x2-mods, capture-fixtures.py
 * --mods: the bench module loaded and its static key flipped).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ktrepl_records.h"
#include "fixture_path.h"
#include "tap.h"

#define DEBUGFS "x86_64-2x2/debugfs/"
#define DEBUGFS_MODS "x86_64-2x2-mods/debugfs/"

/* does value v (up to the next blank, or the line's end if last) fit? */
static bool value_fits(const char *v, size_t len, enum ktrepl_field_type t)
{
	size_t i = 0;

	if (!len)
		return t == KTREPL_F_CPULIST;
	switch (t) {
	case KTREPL_F_INT:
		if (v[0] == '-')
			i = 1;
		/* fall through */
	case KTREPL_F_UINT:
		if (i == len)
			return false;
		for (; i < len; i++)
			if (!isdigit((unsigned char)v[i]))
				return false;
		return true;
	case KTREPL_F_HEX:
		if (len < 3 || strncmp(v, "0x", 2))
			return false;
		for (i = 2; i < len; i++)
			if (!isxdigit((unsigned char)v[i]) ||
			    isupper((unsigned char)v[i]))
				return false;
		return true;
	case KTREPL_F_STR:
	case KTREPL_F_CPULIST:
		return true;
	}
	return false;
}

/*
 * Whether line holds exactly the first n fields of f, in order. The last
 * field's value runs to the line's end (patches' sym may hold a blank:
 * "name [module]"). On a mismatch, why in why.
 */
static bool line_matches(const char *line, const struct ktrepl_field *f,
			 int n, char *why, size_t why_size)
{
	const char *p = line;
	int i;

	for (i = 0; i < n; i++) {
		size_t klen = strlen(f[i].name), vlen;

		if (strncmp(p, f[i].name, klen) || p[klen] != '=') {
			snprintf(why, why_size, "field %d: want '%s=' at '%.20s'",
				 i, f[i].name, p);
			return false;
		}
		p += klen + 1;
		vlen = i == n - 1 ? strlen(p) : strcspn(p, " ");
		if (!value_fits(p, vlen, f[i].type)) {
			snprintf(why, why_size, "%s: '%.*s' is not of its type",
				 f[i].name, (int)vlen, p);
			return false;
		}
		p += vlen;
		if (i < n - 1) {
			if (*p != ' ') {
				snprintf(why, why_size, "a line of %d fields, want %d",
					 i + 1, n);
				return false;
			}
			p++;
		}
	}
	return true;
}

/* which of a file's tables (and how many of its fields) a line is */
struct record_kind {
	const char *first_key;	/* NULL: any line */
	const char *contains;	/* NULL: any line */
	const struct ktrepl_field *(*fields)(void);
	int nr;
};

/*
 * Every line of file is one of its kinds (the first that fits its
 * first_key and contains); seen[] counts the lines of each kind.
 */
static void check_file(const char *dir, const char *file,
		       const struct record_kind *kinds, int nr_kinds,
		       int *seen)
{
	char path[256], line[1024], why[160] = "", this[160];
	int lines = 0, bad = 0, k;
	FILE *fp;

	snprintf(path, sizeof(path), "%s", fixture_path(dir));
	strncat(path, file, sizeof(path) - strlen(path) - 1);
	fp = fopen(path, "r");
	if (!fp) {
		tap_ok(0, "%s: the captured file opens (%s)", file, path);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		lines++;
		for (k = 0; k < nr_kinds; k++) {
			const struct record_kind *rk = &kinds[k];

			if (rk->first_key &&
			    (strncmp(line, rk->first_key, strlen(rk->first_key)) ||
			     line[strlen(rk->first_key)] != '='))
				continue;
			if (rk->contains && !strstr(line, rk->contains))
				continue;
			break;
		}
		if (k == nr_kinds) {
			if (!bad++)
				snprintf(why, sizeof(why), "no kind of record: '%.60s'",
					 line);
			continue;
		}
		seen[k]++;
		if (!line_matches(line, kinds[k].fields(), kinds[k].nr, this,
				  sizeof(this)) && !bad++)
			snprintf(why, sizeof(why), "%s", this);
	}
	fclose(fp);
	tap_ok(lines > 0 && !bad,
	       "%s%s: each of its %d captured lines has its table's keys in order",
	       dir, file, lines);
	if (bad)
		printf("# %d lines do not; the first: %s\n", bad, why);
}

/* each kind of a file's records is in some capture */
static void check_kinds(const char *file, const char *const *names,
			const int *seen, int nr_kinds)
{
	int k;

	for (k = 0; k < nr_kinds; k++)
		tap_ok(seen[k] > 0, "%s: a %s is captured (%d lines)", file,
		       names[k], seen[k]);
}

int main(void)
{
	static const struct record_kind replicas[] = {
		{ NULL, "region=module", ktrepl_extent_fields, KTREPL_E_NR },
		{ NULL, NULL, ktrepl_extent_fields, KTREPL_E_NR_CORE },
	};
	static const struct record_kind pgds[] = {
		{ "cpu", NULL, ktrepl_cpu_fields, KTREPL_CPU_NR },
		{ "node", NULL, ktrepl_pgd_fields, KTREPL_PGD_NR },
	};
	static const struct record_kind patches[] = {
		{ "patches", NULL, ktrepl_patch_count_fields, KTREPL_PC_NR },
		{ "seq", NULL, ktrepl_patch_fields, KTREPL_P_NR },
	};
	static const struct record_kind tasks[] = {
		{ NULL, NULL, ktrepl_task_fields, KTREPL_T_NR },
	};
	static const struct record_kind mappings[] = {
		{ NULL, NULL, ktrepl_mapping_fields, KTREPL_MAP_NR },
	};
	static const char *const replicas_kinds[] = { "module extent",
						      "core extent" };
	static const char *const pgds_kinds[] = { "CPU's root", "node's set" };
	static const char *const patches_kinds[] = { "patch count",
						     "patch record" };
	static const char *const one_kind[] = { "record" };
	int seen_replicas[2] = { 0 }, seen_pgds[2] = { 0 };
	int seen_patches[2] = { 0 }, seen_tasks[1] = { 0 };
	int seen_node0[1] = { 0 }, seen_node1[1] = { 0 };
	char why[160];

	tap_header();
	tap_plan(21);
	check_file(DEBUGFS, "replicas", replicas, 2, seen_replicas);
	check_file(DEBUGFS_MODS, "replicas", replicas, 2, seen_replicas);
	check_file(DEBUGFS, "pgds", pgds, 2, seen_pgds);
	check_file(DEBUGFS, "patches", patches, 2, seen_patches);
	check_file(DEBUGFS_MODS, "patches", patches, 2, seen_patches);
	check_file(DEBUGFS, "tasks", tasks, 1, seen_tasks);
	check_file(DEBUGFS, "pgtables/node0", mappings, 1, seen_node0);
	check_file(DEBUGFS, "pgtables/node1", mappings, 1, seen_node1);
	check_kinds("replicas", replicas_kinds, seen_replicas, 2);
	check_kinds("pgds", pgds_kinds, seen_pgds, 2);
	check_kinds("patches", patches_kinds, seen_patches, 2);
	check_kinds("tasks", one_kind, seen_tasks, 1);
	check_kinds("pgtables/node0", one_kind, seen_node0, 1);
	check_kinds("pgtables/node1", one_kind, seen_node1, 1);

	/* the checker itself: it refuses what it should */
	tap_ok(!line_matches("node=0 region=text va=0x1", ktrepl_extent_fields(),
			     KTREPL_E_NR_CORE, why, sizeof(why)),
	       "a line short of its fields fails (%s)", why);
	tap_ok(!line_matches("cpu=0 node=x loaded_root_pa=0x1 loaded_set=master loaded_node_set=0 current_pid=1 expected_root_pa=0x1",
			     ktrepl_cpu_fields(), KTREPL_CPU_NR, why,
			     sizeof(why)),
	       "a value not of its type fails (%s)", why);
	tap_ok(!line_matches("pid=1 node=0 comm=x cpu=0 root_pa=0x1 expected_root_pa=0x1 tables=node since_ns=1 iterations=1 probe=1",
			     ktrepl_task_fields(), KTREPL_T_NR, why,
			     sizeof(why)),
	       "keys out of order fail (%s)", why);
	tap_ok(line_matches("seq=1 va=0xffffffffc0001000 len=1 nodes=1 propagated=1 sym=vfat_lookup [vfat]",
			    ktrepl_patch_fields(), KTREPL_P_NR, why,
			    sizeof(why)),
	       "a module symbol's blank in the last field is its value");
	return tap_finish();
}
