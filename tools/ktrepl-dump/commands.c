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
	unsigned int unsettled;
};

static int print_diff(const struct kt_diff *d, void *arg)
{
	struct diff_print *dp = arg;

	dp->ranges++;
	dp->unsettled += d->unsettled;
	kt_report_diff(&dump.out, dp->st, d);
	return 0;
}

/*
 * diff --against-vmlinux [--all]: the master's text against the file.
 * Exit 1 only for ranges that nothing the kernel does explains.
 */
static int diff_against_vmlinux(struct dump_target *dt, bool all)
{
	struct diff_print dp = { .st = &dt->st };
	struct kt_vdiff_stats stats;
	struct kt_vmlinux v;
	struct kt_err err;
	int ret;

	kt_err_clear(&err);
	if (!dump.vmlinux_path)
		return dump_usage_error("diff --against-vmlinux needs --vmlinux FILE (the kernel's -dbg vmlinux)");
	ret = dump_check_vmlinux(dt, &err);
	if (!ret)
		ret = kt_vmlinux_open(&v, dump.vmlinux_path, &err);
	if (ret)
		return dump_fail(&err);
	kt_report_diff_begin(&dump.out);
	ret = kt_diff_vmlinux_run(&dt->t, &v, all, print_diff, &dp, &stats,
				  &err);
	kt_vmlinux_close(&v);
	if (ret) {
		kt_report_abort(&dump.out, err.msg);
		return EXIT_TROUBLE;
	}
	kt_report_vdiff_end(&dump.out, &stats);
	return stats.unexplained ? EXIT_DIVERGED : EXIT_CLEAN;
}

int do_diff(int argc, char **argv)
{
	struct kt_diff_opts opts;
	struct diff_print dp = { 0 };
	struct dump_target dt;
	uint64_t compared = 0;
	struct kt_err err;
	int ret;

	bool against = false, all = false;
	int i, n = 0;

	/* the file comparison's own flags; the rest are the filters */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--against-vmlinux"))
			against = true;
		else if (!strcmp(argv[i], "--all"))
			all = true;
		else
			argv[n++] = argv[i];
	}
	argc = n;
	if (all && !against)
		return dump_usage_error("diff: --all goes with --against-vmlinux");
	if (against && argc)
		return dump_usage_error("diff --against-vmlinux compares the master's text; it takes no --node or --region");
	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	if (against) {
		ret = diff_against_vmlinux(&dt, all);
		goto out;
	}
	ret = parse_filters(argc, argv, "diff", &dt, &opts.node, &opts.region,
			    NULL, NULL);
	if (ret)
		goto out;
	dp.st = &dt.st;
	kt_err_clear(&err);
	kt_report_diff_begin(&dump.out);
	ret = kt_diff_run(&dt.t, &opts, print_diff, &dp, &compared, &err);
	if (ret) {
		kt_report_abort(&dump.out, err.msg);
		ret = EXIT_TROUBLE;
		goto out;
	}
	kt_report_diff_end(&dump.out, dp.ranges, dp.unsettled, compared);
	/* only ranges that kept changing under patches: no conclusion */
	ret = dp.ranges > dp.unsettled ? EXIT_DIVERGED :
	      dp.unsettled	      ? EXIT_TROUBLE :
					EXIT_CLEAN;
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
	if (ret) {
		kt_report_abort(&dump.out, err.msg);
		ret = EXIT_TROUBLE;
	} else {
		kt_report_walk_end(&dump.out);
		ret = EXIT_CLEAN;
	}
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
		kt_report_abort(&dump.out, err.msg);
		ret = EXIT_TROUBLE;
	} else {
		kt_report_verify_end(&dump.out, &stats, vp.tap);
		ret = stats.total > stats.count[KT_V_UNSETTLED] ?
			      EXIT_DIVERGED :
		      stats.total ? EXIT_TROUBLE :
				    EXIT_CLEAN;
	}
	dump_target_close(&dt);
	return ret;
}
