// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-top: where each NUMA node's CPUs fetch kernel text from, live.
 * Samples kernel IPs with perf, translates each through the tables its
 * CPU had loaded, and shows the share served by the CPU's own node.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "top.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: ktrepl-top [OPTIONS]\n"
		"\n"
		"Live per-node and per-CPU locality of kernel text fetches: the share of\n"
		"each node's sampled kernel instructions whose page is on that node.\n"
		"Works with ktrepl.ko loaded (replicated text) and without it.\n"
		"\n"
		"  -d, --delay SECONDS     refresh interval (default 1.0)\n"
		"  -b, --batch             plain-text frames on stdout, no curses\n"
		"  -n, --iterations N      stop after N frames (default: until q or ^C)\n"
		"  -j, --json              batch frames as JSON lines (implies -b)\n"
		"      --sample-rate HZ    samples per second per CPU (default 1000)\n"
		"      --event EVENT       cpu-clock (default: the rate asked for) or cycles\n"
		"      --functions N       hot remote functions per batch frame (default 10)\n"
		"      --processes[=N]     the process view: in batch frames the N processes\n"
		"                          with the most remote fetches (default 20); without\n"
		"                          -b the screen opens on it\n"
		"      --prometheus[=FILE] the window's locality as Prometheus metrics (implies\n"
		"                          -b): on stdout at the end, or FILE rewritten whole\n"
		"                          after every frame\n"
		"      --debugfs DIR       ktrepl's debugfs directory (/sys/kernel/debug/ktrepl)\n"
		"      --kcore FILE        kernel memory (/proc/kcore)\n"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"Keys: q quit, h/? help, n nodes, c CPUs, f functions, p processes,\n"
		"1-5 sort,"
		" arrows scroll, d delay.\n"
		"Exit status: 0 done, 2 could not measure (the message says why).\n"
		"See ktrepl-top(8).\n");
}

void top_report_error(struct top *top, const struct kt_err *err)
{
	if (top->opts.json) {
		top->out.jw = jsonw_new(stdout, false);
		kt_out_error(&top->out, "%s", err->msg);
		jsonw_destroy(&top->out.jw);
		return;
	}
	kt_out_error(&top->out, "%s", err->msg);
}

static int bad_usage(struct top *top, const char *fmt, const char *arg)
{
	struct kt_err err;

	kt_err_clear(&err);
	kt_err_set(&err, EINVAL, fmt, arg);
	top_report_error(top, &err);
	if (!top->opts.json)
		fprintf(stderr, "Try 'ktrepl-top --help'.\n");
	return EXIT_TROUBLE;
}

int main(int argc, char **argv)
{
	enum { OPT_RATE = 256, OPT_DEBUGFS, OPT_KCORE, OPT_SYSFS, OPT_KALLSYMS,
	       OPT_MODULES, OPT_FUNCS, OPT_EVENT, OPT_PROMETHEUS,
	       OPT_PROCS };
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "sample-rate", required_argument, NULL, OPT_RATE },
		{ "functions", required_argument, NULL, OPT_FUNCS },
		{ "processes", optional_argument, NULL, OPT_PROCS },
		{ "prometheus", optional_argument, NULL, OPT_PROMETHEUS },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "debugfs", required_argument, NULL, OPT_DEBUGFS },
		{ "kcore", required_argument, NULL, OPT_KCORE },
		/* for tests: the same files elsewhere */
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static struct top top;
	struct kt_err err;
	char *end;
	int c, ret;

	top.opts = (struct top_opts){
		.delay = 1.0,
		.rate_hz = 1000,
		.debugfs_dir = "/sys/kernel/debug/ktrepl",
		.kcore_path = "/proc/kcore",
		.sysfs_dir = "/sys",
		.kallsyms_path = "/proc/kallsyms",
		.modules_path = "/proc/modules",
		.top_funcs = 10,
	};
	/* -j decides how even option errors are reported */
	for (c = 1; c < argc; c++)
		if (!strcmp(argv[c], "-j") || !strcmp(argv[c], "--json"))
			top.opts.json = true;
	kt_out_init(&top.out, "ktrepl-top", false, false);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:bn:jhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			top.opts.delay = strtod(optarg, &end);
			if (end == optarg || *end || top.opts.delay < 0.1 ||
			    top.opts.delay > 3600)
				return bad_usage(&top, "-d %s: the delay is 0.1 to 3600 seconds", optarg);
			break;
		case 'b':
			top.opts.batch = true;
			break;
		case 'n':
			top.opts.iterations = strtol(optarg, &end, 10);
			if (end == optarg || *end || top.opts.iterations < 1)
				return bad_usage(&top, "-n %s: not a positive number of frames", optarg);
			break;
		case 'j':
			top.opts.json = top.opts.batch = true;
			break;
		case OPT_RATE:
			top.opts.rate_hz = strtoul(optarg, &end, 10);
			if (end == optarg || *end || !top.opts.rate_hz ||
			    top.opts.rate_hz > 100000)
				return bad_usage(&top, "--sample-rate %s: 1 to 100000 Hz", optarg);
			break;
		case OPT_EVENT:
			if (kt_sampler_event_parse(optarg, &top.opts.event))
				return bad_usage(&top, "--event %s: cpu-clock or cycles", optarg);
			break;
		case OPT_FUNCS:
			top.opts.top_funcs = strtol(optarg, &end, 10);
			if (end == optarg || *end || top.opts.top_funcs < 0)
				return bad_usage(&top, "--functions %s: not a count", optarg);
			break;
		case OPT_PROCS:
			top.opts.top_procs = 20;
			if (!optarg)
				break;
			top.opts.top_procs = strtol(optarg, &end, 10);
			if (end == optarg || *end || top.opts.top_procs < 1)
				return bad_usage(&top, "--processes=%s: not a positive count", optarg);
			break;
		case OPT_PROMETHEUS:
			top.opts.prometheus = top.opts.batch = true;
			top.opts.prometheus_file = optarg;
			if (optarg && !*optarg)
				return bad_usage(&top, "--prometheus=%s: an empty file name", optarg);
			break;
		case OPT_DEBUGFS:
			top.opts.debugfs_dir = optarg;
			break;
		case OPT_KCORE:
			top.opts.kcore_path = optarg;
			break;
		case OPT_SYSFS:
			top.opts.sysfs_dir = optarg;
			break;
		case OPT_KALLSYMS:
			top.opts.kallsyms_path = optarg;
			break;
		case OPT_MODULES:
			top.opts.modules_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V': {
			struct kt_out version_out;

			kt_out_init(&version_out, "ktrepl-top", top.opts.json,
				    false);
			kt_report_version(&version_out, KTREPL_VERSION);
			kt_out_fini(&version_out);
			return EXIT_OK;
		}
		case ':':
			return bad_usage(&top, "%s needs an argument", argv[optind - 1]);
		default:
			return bad_usage(&top, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_usage(&top, "unexpected argument '%s'", argv[optind]);
	if (top.opts.json && top.opts.prometheus)
		return bad_usage(&top, "%s or --prometheus, not both", "-j");
	/* for tests: a ring small enough to overflow */
	if (getenv("KTREPL_TOP_RING_PAGES"))
		top.opts.ring_pages = strtoul(getenv("KTREPL_TOP_RING_PAGES"),
					      NULL, 10);
	kt_err_clear(&err);
	if (top_open(&top, &err)) {
		top_report_error(&top, &err);
		top_close(&top);
		return EXIT_TROUBLE;
	}
	ret = top.opts.batch ? top_run_batch(&top) : top_run_tui(&top);
	top_close(&top);
	return ret;
}
