// SPDX-License-Identifier: GPL-2.0
/* summary, diff, walk and verify: thin layers over the library. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "main.h"

int do_summary(int argc, char **argv)
{
	struct dump_target dt;
	int ret;

	if (argc)
		return dump_usage_error("summary takes no arguments");
	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	kt_report_summary(&dump.out, &dt.st);
	dump_target_close(&dt);
	return EXIT_CLEAN;
}

/* NODE and REGION filters shared by diff and walk */
static int parse_filters(int argc, char **argv, const char *cmd,
			 struct dump_target *dt, int *node, int *region,
			 uint64_t *va, bool *have_va)
{
	int i;

	*node = -1;
	*region = -1;
	for (i = 0; i < argc; i++) {
		uint64_t v;

		if (i + 1 >= argc)
			return dump_usage_error("%s: %s needs a value", cmd, argv[i]);
		if (!strcmp(argv[i], "--node") || !strcmp(argv[i], "-n")) {
			if (parse_u64(argv[++i], &v) || !kt_state_node(&dt->st, (int)v))
				return dump_usage_error("%s: no node '%s'", cmd, argv[i]);
			*node = (int)v;
		} else if (!strcmp(argv[i], "--region") || !strcmp(argv[i], "-r")) {
			*region = kt_state_region(&dt->st, argv[++i]);
			if (*region < 0)
				return dump_usage_error("%s: no region '%s' (text, rodata)",
							cmd, argv[i]);
		} else if (va && !strcmp(argv[i], "--va")) {
			if (parse_u64(argv[++i], va))
				return dump_usage_error("%s: bad address '%s'", cmd, argv[i]);
			*have_va = true;
		} else {
			return dump_usage_error("%s: unknown argument '%s'", cmd, argv[i]);
		}
	}
	return 0;
}

struct diff_print {
	struct kt_state *st;
	unsigned int ranges;
};

static int print_diff(const struct kt_diff *d, void *arg)
{
	struct diff_print *dp = arg;

	dp->ranges++;
	kt_report_diff(&dump.out, dp->st, d);
	return 0;
}

int do_diff(int argc, char **argv)
{
	struct kt_diff_opts opts;
	struct diff_print dp = { 0 };
	struct dump_target dt;
	uint64_t compared = 0;
	struct kt_err err;
	int ret;

	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	ret = parse_filters(argc, argv, "diff", &dt, &opts.node, &opts.region,
			    NULL, NULL);
	if (ret)
		goto out;
	dp.st = &dt.st;
	kt_err_clear(&err);
	kt_report_diff_begin(&dump.out);
	ret = kt_diff_run(&dt.t, &opts, print_diff, &dp, &compared, &err);
	if (ret) {
		kt_report_diff_end(&dump.out, dp.ranges, compared);
		ret = dump_fail(&err);
		goto out;
	}
	kt_report_diff_end(&dump.out, dp.ranges, compared);
	ret = dp.ranges ? EXIT_DIVERGED : EXIT_CLEAN;
out:
	dump_target_close(&dt);
	return ret;
}

static int walk_node(struct dump_target *dt, const struct kt_node_state *n,
		     int region, struct kt_err *err)
{
	int r, ret = 0;

	for (r = 0; r < dt->st.nr_regions && !ret; r++) {
		struct kt_mapping m;
		struct kt_walk w;

		if (region >= 0 && r != region)
			continue;
		ret = kt_walk_begin(&w, dt->t.arch, &dt->t.geo, dt->src,
				    n->root_pa, dt->st.regions[r].start,
				    dt->st.regions[r].end, err);
		while (!ret && (ret = kt_walk_next(&w, &m, err)) == 1) {
			ret = 0;
			kt_report_mapping(&dump.out, &dt->t, n->nid,
					  dt->st.regions[r].name, &m, false);
		}
		kt_walk_end(&w);
	}
	return ret;
}

int do_walk(int argc, char **argv)
{
	struct dump_target dt;
	bool have_va = false;
	int node, region, i, ret;
	struct kt_err err;
	uint64_t va = 0;

	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	ret = parse_filters(argc, argv, "walk", &dt, &node, &region, &va,
			    &have_va);
	if (ret)
		goto out;
	kt_err_clear(&err);
	kt_report_walk_begin(&dump.out);
	for (i = 0; i < dt.st.nr_nodes && !ret; i++) {
		const struct kt_node_state *n = &dt.st.nodes[i];
		struct kt_mapping m;

		if ((node >= 0 && n->nid != node) || !n->root_pa)
			continue;
		if (have_va) {
			ret = kt_translate(dt.t.arch, &dt.t.geo, dt.src,
					   n->root_pa, va, &m, &err);
			if (!ret)
				kt_report_mapping(&dump.out, &dt.t, n->nid, NULL,
						  &m, true);
		} else {
			ret = walk_node(&dt, n, region, &err);
		}
	}
	kt_report_walk_end(&dump.out);
	ret = ret ? dump_fail(&err) : EXIT_CLEAN;
out:
	dump_target_close(&dt);
	return ret;
}

struct verify_print {
	struct kt_state *st;
	bool tap;
};

static int print_violation(const struct kt_violation *v, void *arg)
{
	struct verify_print *vp = arg;

	kt_report_violation(&dump.out, vp->st, v, vp->tap);
	return 0;
}

int do_verify(int argc, char **argv)
{
	struct verify_print vp = { 0 };
	struct kt_verify_stats stats;
	struct dump_target dt;
	struct kt_err err;
	int i, ret;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--tap"))
			vp.tap = true;
		else
			return dump_usage_error("verify: unknown argument '%s'",
						argv[i]);
	}
	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	vp.st = &dt.st;
	kt_err_clear(&err);
	kt_report_verify_begin(&dump.out, vp.tap);
	ret = kt_verify_run(&dt.t, print_violation, &vp, &stats, &err);
	if (ret) {
		if (dump.out.jw) {
			jsonw_end_array(dump.out.jw);
			jsonw_end_object(dump.out.jw);
		}
		ret = dump_fail(&err);
	} else {
		kt_report_verify_end(&dump.out, &stats, vp.tap);
		ret = stats.total ? EXIT_DIVERGED : EXIT_CLEAN;
	}
	dump_target_close(&dt);
	return ret;
}
