// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-bench: does replication help on this machine? The seeds'
 * measurements, off against on, with the spread shown and no claim the
 * noise could explain (docs/man/ktrepl-bench.8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bench.h"
#include "option_error.h"
#include "report.h"

#define DEBUGFS_MAGIC_NUMBER 0x64626720

struct bench_def {
	const char *name;
	bool implemented;
	const char *help;
};

static const struct bench_def benches[] = {
	{ "text", true,
	  "text       the seed's module of straight-line code, run on each node" },
	{ "syscalls", true,
	  "syscalls   fork, mmap, open/close, mount, kill, hot and cold, on each node" },
	{ "costs", true,
	  "costs      memory per node, load time, ftrace and static key latency, bind cost" },
	{ NULL, false, NULL },
};

static void usage(FILE *fp)
{
	const struct bench_def *b;

	fprintf(fp,
		"Usage: ktrepl-bench [OPTIONS] [BENCH...]\n"
		"\n"
		"Measure each benchmark with replication off (ktrepl.ko not loaded)\n"
		"and on (loaded, the arch's default activation), alternating, until\n"
		"the 95%% confidence interval of every node's median is within the\n"
		"bound or the time limit ends the run. Needs root.\n"
		"\n"
		"Benchmarks (default: all three):\n");
	for (b = benches; b->name; b++)
		fprintf(fp, "  %s\n", b->help);
	fprintf(fp,
		"\n"
		"Options:\n"
		"      --module PATH        ktrepl.ko to load (default: modprobe ktrepl)\n"
		"      --bench-module PATH  ktrepl_bench_text.ko (default: modprobe)\n"
		"      --bench-param P=V    a parameter for the benchmark module (repeatable;\n"
		"                           the test build's delay_node, delay_us, delay_phase\n"
		"                           test the harness)\n"
		"      --quick              short runs, for tests: 40 ms text runs, 16-iteration\n"
		"                           loops, 3 loads, and a 300 s limit (--max-time)\n"
		"      --control            both arms with replication off (an A/A run:\n"
		"                           how much difference the noise alone shows)\n"
		"      --bound PCT          stop once every interval is within +-PCT%% of\n"
		"                           its median (default 2)\n"
		"      --max-time SECONDS   the whole run's limit (default 3600; --quick: 300),\n"
		"                           shared text 3 : syscalls 1 : costs 1; a benchmark\n"
		"                           cut by it says so\n"
		"      --progress           a progress line on standard error per round\n"
		"                           even off a terminal (on one, always)\n"
		"  -j, --json               JSON output\n"
		"  -p, --pretty             indented JSON output (implies -j)\n"
		"      --markdown           Markdown, for pasting into a mailing-list reply\n"
		"  -V, --version            version\n"
		"  -h, --help               this text\n"
		"\n"
		"Exit status: 0 measured, 2 could not measure (the reason is printed).\n");
}

/*
 * --max-time bounds the whole run. Each benchmark gets its share of what
 * is left when it starts, so time one leaves unused goes to those after
 * it: text 3, syscalls 1, costs 1.
 */
#define RUN_S 3600
#define QUICK_RUN_S 300
#define TEXT_SHARE 3
#define SYSCALLS_SHARE 1
#define COSTS_SHARE 1

static double stage_end(double run_end, unsigned int share,
			unsigned int *shares_left)
{
	double now = bench_now_s(), left = run_end - now;
	unsigned int of = *shares_left;

	*shares_left -= share;
	return now + (left > 0 ? left * share / of : 0);
}

static const struct bench_def *find_bench(const char *name)
{
	const struct bench_def *b;

	for (b = benches; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

static int add_param(struct bench_opts *o, const char *p)
{
	size_t used = strlen(o->bench_params);

	if (!strchr(p, '=') || strchr(p, ' ') ||
	    used + strlen(p) + 2 > sizeof(o->bench_params))
		return -1;
	snprintf(o->bench_params + used, sizeof(o->bench_params) - used,
		 "%s%s", used ? " " : "", p);
	return 0;
}

static bool positive(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && *v > 0;
}

/* what stands in the way of any benchmark, as one refusal */
static int preflight(struct kt_out *out, const struct bench_machine *m)
{
	struct statfs sfs;
	int i, cpu_nodes = 0, mem_nodes = 0;

	if (geteuid()) {
		kt_out_error(out, "needs root: it loads kernel modules and writes to debugfs");
		return EXIT_TROUBLE;
	}
	if (statfs(BENCH_DEBUGFS, &sfs) || sfs.f_type != DEBUGFS_MAGIC_NUMBER) {
		kt_out_error(out, "debugfs is not mounted at %s (mount -t debugfs none %s): the benchmark module is driven through it",
			     BENCH_DEBUGFS, BENCH_DEBUGFS);
		return EXIT_TROUBLE;
	}
	for (i = 0; i < m->nr_nodes; i++) {
		cpu_nodes += m->node_cpus[i][0] != '\0';
		mem_nodes += m->node_mem_kb[i] > 0;
	}
	if (cpu_nodes < 2 || mem_nodes < 2) {
		kt_out_error(out, "one NUMA node only (%d with CPUs, %d with memory): nothing to replicate, nothing to compare",
			     cpu_nodes, mem_nodes);
		return EXIT_TROUBLE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum {
		OPT_MODULE = 256,
		OPT_BENCH_MODULE,
		OPT_BENCH_PARAM,
		OPT_QUICK,
		OPT_CONTROL,
		OPT_BOUND,
		OPT_MAX_TIME,
		OPT_MARKDOWN,
		OPT_PROGRESS,
	};
	static const struct option options[] = {
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "bench-module", required_argument, NULL, OPT_BENCH_MODULE },
		{ "bench-param", required_argument, NULL, OPT_BENCH_PARAM },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "control", no_argument, NULL, OPT_CONTROL },
		{ "bound", required_argument, NULL, OPT_BOUND },
		{ "max-time", required_argument, NULL, OPT_MAX_TIME },
		{ "markdown", no_argument, NULL, OPT_MARKDOWN },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { .bound_pct = 2 };
	struct bench_result results[1 + BENCH_SYSCALLS];
	static struct bench_costs costs;
	bool json = false, pretty = false, want_text = false;
	bool want_syscalls = false, want_costs = false, version = false;
	char bad[256] = "";	/* the first usage error, reported as -j says */
	double max_time = 0, run_end;
	unsigned int shares_left;
	static struct bench_machine m;	/* 4 MiB of cpulists: not on the stack */
	struct kt_out out;
	struct kt_err err;
	int opt, ret, i;
	size_t nr = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jpVh", options, NULL)) != -1) {
		switch (opt) {
		case OPT_MODULE:
			o.module_path = optarg;
			break;
		case OPT_BENCH_MODULE:
			o.bench_module_path = optarg;
			break;
		case OPT_BENCH_PARAM:
			if (add_param(&o, optarg) && !*bad)
				snprintf(bad, sizeof(bad),
					 "--bench-param wants NAME=VALUE, no blanks: '%s'",
					 optarg);
			break;
		case OPT_QUICK:
			o.quick = true;
			break;
		case OPT_CONTROL:
			o.control = true;
			break;
		case OPT_BOUND:
			if (!positive(optarg, &o.bound_pct) && !*bad)
				snprintf(bad, sizeof(bad),
					 "--bound wants a percentage above 0: '%s'",
					 optarg);
			break;
		case OPT_MAX_TIME:
			if (!positive(optarg, &max_time) && !*bad)
				snprintf(bad, sizeof(bad),
					 "--max-time wants seconds above 0: '%s'",
					 optarg);
			break;
		case OPT_MARKDOWN:
			o.markdown = true;
			break;
		case OPT_PROGRESS:
			bench_progress_always();
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'V':
			version = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
		default:
			if (!*bad) {
				kt_option_error(bad, sizeof(bad) - 32, argv,
						opt == ':', options);
				strcat(bad, "; try 'ktrepl-bench --help'");
			}
			break;
		}
	}
	if ((json || pretty) && o.markdown && !*bad)
		snprintf(bad, sizeof(bad),
			 "-j and --markdown are two formats: pick one");
	o.max_seconds = max_time ? max_time : o.quick ? QUICK_RUN_S : RUN_S;
	if (kt_out_init(&out, "ktrepl-bench", json, pretty)) {
		fprintf(stderr, "ktrepl-bench: error: out of memory\n");
		return EXIT_TROUBLE;
	}
	ret = EXIT_TROUBLE;
	if (*bad) {
		kt_out_error(&out, "%s", bad);
		goto out;
	}
	if (version) {
		kt_report_version(&out, KTREPL_VERSION);
		ret = EXIT_MEASURED;
		goto out;
	}
	for (i = optind; i < argc; i++) {
		const struct bench_def *b = find_bench(argv[i]);

		if (!b) {
			kt_out_error(&out, "unknown benchmark '%s': text, syscalls or costs",
				     argv[i]);
			goto out;
		}
		if (!b->implemented) {
			kt_out_error(&out, "benchmark '%s' is not implemented yet",
				     b->name);
			goto out;
		}
		want_text |= !strcmp(b->name, "text");
		want_syscalls |= !strcmp(b->name, "syscalls");
		want_costs |= !strcmp(b->name, "costs");
	}
	if (optind == argc)
		want_text = want_syscalls = want_costs = true;
	if (bench_machine_load(&m, &err)) {
		kt_out_error(&out, "reading the machine's NUMA layout: %s", err.msg);
		goto out;
	}
	ret = preflight(&out, &m);
	if (ret)
		goto out;
	kt_err_clear(&err);
	run_end = bench_now_s() + o.max_seconds;
	shares_left = want_text * TEXT_SHARE + want_syscalls * SYSCALLS_SHARE +
		      want_costs * COSTS_SHARE;
	if (want_text) {
		o.stage_deadline = stage_end(run_end, TEXT_SHARE, &shares_left);
		memset(&results[nr], 0, sizeof(results[nr]));
		if (bench_text_run(&o, &m, &results[nr], &err)) {
			kt_out_error(&out, "text: %s", err.msg);
			ret = EXIT_TROUBLE;
			goto out;
		}
		bench_verdict(&m, &o, &results[nr]);
		nr++;
	}
	if (want_syscalls) {
		size_t s;

		o.stage_deadline = stage_end(run_end, SYSCALLS_SHARE,
					     &shares_left);
		memset(&results[nr], 0, BENCH_SYSCALLS * sizeof(results[0]));
		if (bench_syscalls_run(&o, &m, &results[nr], &err)) {
			kt_out_error(&out, "syscalls: %s", err.msg);
			ret = EXIT_TROUBLE;
			goto out;
		}
		for (s = 0; s < BENCH_SYSCALLS; s++)
			bench_verdict(&m, &o, &results[nr + s]);
		nr += BENCH_SYSCALLS;
	}
	if (want_costs)
		o.stage_deadline = stage_end(run_end, COSTS_SHARE, &shares_left);
	if (want_costs && bench_costs_run(&o, &m, &costs, &err)) {
		kt_out_error(&out, "costs: %s", err.msg);
		ret = EXIT_TROUBLE;
		goto out;
	}
	bench_report(&out, &o, &m, results, nr, want_costs ? &costs : NULL);
	ret = EXIT_MEASURED;
out:
	kt_out_fini(&out);
	return ret;
}
