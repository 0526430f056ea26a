// SPDX-License-Identifier: GPL-2.0
/* summary, diff, walk and verify: thin layers over the library. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "main.h"
#include "prometheus.h"

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

/* --node, --region and --va, as diff and walk take them */
static int parse_filters(const char *cmd, struct dump_target *dt, int *node,
			 int *region, uint64_t *va, bool *have_va)
{
	const struct cmd_args *a = &dump.args;
	uint64_t v;

	*node = -1;
	*region = -1;
	if (a->given & CMD_OPT_NODE) {
		if (parse_u64(a->node, &v) || !kt_state_node(&dt->st, (int)v))
			return dump_usage_error("%s: no node '%s'", cmd, a->node);
		*node = (int)v;
	}
	if (a->given & CMD_OPT_REGION) {
		*region = kt_state_region(&dt->st, a->region);
		/* a module the descriptor had no room for is no typo */
		if (*region < 0 && dt->st.modules_incomplete &&
		    !strncmp(a->region, KT_MODULE_PREFIX,
			     strlen(KT_MODULE_PREFIX)))
			return dump_usage_error("%s: no region '%s': the state lists %u replicated modules and leaves %s out; this may be one of them",
						cmd, a->region,
						dt->st.nr_modules,
						dt->st.modules_omitted ?
						"more" : "perhaps more");
		if (*region < 0)
			return dump_usage_error("%s: no region '%s' (text, rodata, module:NAME)",
						cmd, a->region);
	}
	if (a->given & CMD_OPT_VA) {
		if (parse_u64(a->va, va))
			return dump_usage_error("%s: bad address '%s'", cmd, a->va);
		*have_va = true;
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

	bool against = dump.args.given & CMD_OPT_AGAINST_VMLINUX;
	bool all = dump.args.given & CMD_OPT_ALL;

	if (argc)
		return dump_usage_error("diff: unexpected argument '%s'", argv[0]);
	if (all && !against)
		return dump_usage_error("diff: --all goes with --against-vmlinux");
	if (against && (dump.args.given & (CMD_OPT_NODE | CMD_OPT_REGION)))
		return dump_usage_error("diff --against-vmlinux compares the master's text; it takes no --node or --region");
	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	if (against) {
		ret = diff_against_vmlinux(&dt, all);
		goto out;
	}
	ret = parse_filters("diff", &dt, &opts.node, &opts.region, NULL, NULL);
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

	if (argc)
		return dump_usage_error("walk: unexpected argument '%s'", argv[0]);
	ret = dump_target_open(&dt);
	if (ret)
		return ret;
	ret = parse_filters("walk", &dt, &node, &region, &va, &have_va);
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

static double now_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void emit_verify_metrics(FILE *fp, const void *run)
{
	kt_prometheus_write(fp, run);
}

static int ignore_violation(const struct kt_violation *v, void *arg)
{
	return 0;
}

/*
 * Live verify reports a fail-safe once: how many events of this load of
 * the module (this boot's id and its load_ns) a verify already reported
 * is kept in FAILSAFE_SEEN. A dump has no such record: every event since
 * load is reported. A record that cannot be read or written only makes
 * the report repeat.
 */
#define FAILSAFE_SEEN_DIR "/run/ktrepl"
#define FAILSAFE_SEEN FAILSAFE_SEEN_DIR "/verify-failsafe"

static void failsafe_key(char *key, size_t size, const struct kt_state *st)
{
	char boot[64] = "-";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			strcpy(boot, "-");
		boot[strcspn(boot, "\n")] = '\0';
		fclose(f);
	}
	snprintf(key, size, "boot=%s load_ns=%" PRIu64, boot, st->load_ns);
}

static void failsafe_seen_read(struct kt_state *st)
{
	char key[128], line[192], want[160];
	uint64_t seen;
	FILE *f;

	failsafe_key(key, sizeof(key), st);
	f = fopen(FAILSAFE_SEEN, "re");
	if (!f)
		return;
	snprintf(want, sizeof(want), "%s failsafe=", key);
	if (fgets(line, sizeof(line), f) &&
	    !strncmp(line, want, strlen(want)) &&
	    sscanf(line + strlen(want), "%" SCNu64, &seen) == 1 &&
	    seen <= st->failsafe)
		st->failsafe_seen = seen;
	fclose(f);
}

static void failsafe_seen_write(const struct kt_state *st)
{
	char key[128];
	int fd;

	if (st->failsafe == st->failsafe_seen)
		return;
	failsafe_key(key, sizeof(key), st);
	mkdir(FAILSAFE_SEEN_DIR, 0700);
	fd = open(FAILSAFE_SEEN, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "%s failsafe=%" PRIu64 "\n", key, st->failsafe);
	close(fd);
}

/*
 * KTREPL_VERIFY_TIMES: where a verify's time goes, on stderr, from this
 * command's start: opening the target, each check, the rest of the run
 * (the fail-safe record and the report), closing, and the total. What
 * comes before (exec, the loader, option parsing) is the caller's to time.
 */
struct verify_times {
	double start, opened, checked, reported, closed;
};

static void print_verify_times(const struct verify_times *t,
			       const struct kt_verify_stats *s)
{
	int i;

	fprintf(stderr, "ktrepl-dump: verify times (ms): open=%.1f",
		(t->opened - t->start) * 1e3);
	/* a check that did not run (the run stopped first) is left out */
	for (i = 0; i < KT_VERIFY_NR_CHECKS; i++)
		if (s->check_ns[i])
			fprintf(stderr, " %s=%.1f", kt_verify_check_names[i],
				s->check_ns[i] / 1e6);
	fprintf(stderr,
		" report=%.1f close=%.1f total=%.1f compared_bytes=%" PRIu64
		" tables=%" PRIu64 "\n",
		(t->reported - t->checked) * 1e3,
		(t->closed - t->reported) * 1e3, (t->closed - t->start) * 1e3,
		s->compared_bytes, s->tables);
}

int do_verify(int argc, char **argv)
{
	bool prometheus = dump.args.given & CMD_OPT_PROMETHEUS;
	struct kt_prometheus_run run = {
		.timestamp = now_seconds(CLOCK_REALTIME),
	};
	struct verify_times times = { .start = now_seconds(CLOCK_MONOTONIC) };
	struct verify_print vp = { 0 };
	struct kt_verify_stats stats;
	struct dump_target dt;
	struct kt_err err;
	int ret;

	if (argc)
		return dump_usage_error("verify: unexpected argument '%s'", argv[0]);
	vp.tap = dump.args.given & CMD_OPT_TAP;
	if (vp.tap && prometheus)
		return dump_usage_error("verify: --tap or --prometheus, not both");
	ret = dump_target_open(&dt);
	if (ret) {
		if (prometheus) {
			run.duration = now_seconds(CLOCK_MONOTONIC) - times.start;
			dump_write_metrics(emit_verify_metrics, &run);
		}
		return ret;
	}
	times.opened = now_seconds(CLOCK_MONOTONIC);
	vp.st = &dt.st;
	kt_err_clear(&err);
	if (!dump.vmcore_path && !dump.raw_path)
		failsafe_seen_read(&dt.st);
	if (!prometheus)
		kt_report_verify_begin(&dump.out, vp.tap);
	ret = kt_verify_run(&dt.t, prometheus ? ignore_violation :
			    print_violation, &vp, &stats, &err);
	times.checked = now_seconds(CLOCK_MONOTONIC);
	if (!ret && !dump.vmcore_path && !dump.raw_path)
		failsafe_seen_write(&dt.st);
	if (ret) {
		kt_report_abort(&dump.out, err.msg);
		ret = EXIT_TROUBLE;
	} else {
		if (!prometheus)
			kt_report_verify_end(&dump.out, &stats, vp.tap);
		ret = stats.total > stats.count[KT_V_UNSETTLED] ?
			      EXIT_DIVERGED :
		      stats.total ? EXIT_TROUBLE :
				    EXIT_CLEAN;
	}
	if (prometheus) {
		run.checked = ret != EXIT_TROUBLE || stats.total;
		run.st = &dt.st;
		run.stats = &stats;
		run.duration = now_seconds(CLOCK_MONOTONIC) - times.start;
		if (dump_write_metrics(emit_verify_metrics, &run))
			ret = EXIT_TROUBLE;
	}
	times.reported = now_seconds(CLOCK_MONOTONIC);
	dump_target_close(&dt);
	times.closed = now_seconds(CLOCK_MONOTONIC);
	if (getenv("KTREPL_VERIFY_TIMES"))
		print_verify_times(&times, &stats);
	return ret;
}
