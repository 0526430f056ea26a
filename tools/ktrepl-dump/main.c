// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"
#include "option_error.h"

struct dump_ctx dump = {
	.kcore_path = "/proc/kcore",
	.debugfs_dir = "/sys/kernel/debug/ktrepl",
};

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "summary", do_summary, 0,
	  "summary                         nodes, regions, roots, counters" },
	{ "diff", do_diff,
	  CMD_OPT_NODE | CMD_OPT_REGION | CMD_OPT_AGAINST_VMLINUX | CMD_OPT_ALL,
	  "diff [--node N] [--region R]    replica bytes that differ from the master\n"
	  "  diff --against-vmlinux [--all]    the master's text against --vmlinux" },
	{ "walk", do_walk, CMD_OPT_NODE | CMD_OPT_REGION | CMD_OPT_VA,
	  "walk [--node N] [--region R] [--va ADDR]\n"
	  "                                  each node's mappings of the replicated ranges" },
	{ "verify", do_verify, CMD_OPT_TAP | CMD_OPT_PROMETHEUS,
	  "verify [--tap | --prometheus[=FILE]]\n"
	  "                                  the health check (also --verify)" },
	{ "triage", do_triage,
	  CMD_OPT_CRASH_DIR | CMD_OPT_PROMETHEUS | CMD_OPT_TIMEOUT,
	  "triage [--crash-dir DIR] [--prometheus[=FILE]] [--timeout SEC]\n"
	  "                                  judge each saved crash dump not yet judged" },
	{ "read", do_read, CMD_OPT_OUTPUT,
	  "read [-o FILE] PHYSADDR LEN     hex dump of physical memory" },
	{ "help", do_help, 0, "help                            this text" },
	{ NULL, NULL, 0, NULL },
};

/* the command options' names, by bit, for errors */
static const char *const cmd_opt_names[CMD_OPT_NR] = {
	"--node", "--region", "--va", "--tap", "--against-vmlinux", "--all",
	"--output", "--prometheus", "--crash-dir", "--timeout",
};

static void usage(FILE *fp)
{
	const struct cmd *c;

	fprintf(fp,
		"Usage: ktrepl-dump [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Inspect NUMA kernel text replicas, live or in a vmcore.\n"
		"\n"
		"Commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(fp, "  %s\n", c->help);
	fprintf(fp,
		"\n"
		"Options:\n"
		"  -j, --json            JSON output\n"
		"  -p, --pretty          indented JSON output (implies -j)\n"
		"      --vmcore FILE     read a vmcore instead of the live kernel\n"
		"      --kcore FILE      live memory file (default /proc/kcore)\n"
		"      --raw FILE[@BASE] a raw physical image starting at BASE\n"
		"      --debugfs DIR     ktrepl's debugfs directory (default\n"
		"                        /sys/kernel/debug/ktrepl)\n"
		"      --vmlinux FILE    symbols from a vmlinux\n"
		"      --system-map FILE symbols from a System.map\n"
		"      --kallsyms FILE   symbols from a kallsyms copy\n"
		"                        (none of the three: live, /proc/kallsyms;\n"
		"                        a vmcore, the kallsyms tables in the dump)\n"
		"      --verify          same as the verify command\n"
		"  -o, --output FILE     read: the bytes, raw, into FILE (a new\n"
		"                        file, or the null device)\n"
		"  -V, --version         version and the formats it reads\n"
		"  -h, --help            this text\n"
		"\n"
		"Options go anywhere on the line, before or after the command.\n"
		"\n"
		"Exit status: 0 healthy, 1 divergence found, 2 could not check.\n");
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_CLEAN;
}

/* the command options given that c does not take: an error naming one */
static int check_cmd_opts(const struct cmd *c)
{
	unsigned int extra = dump.args.given & ~c->opts;
	int bit;

	if (!extra)
		return 0;
	for (bit = 0; !(extra & (1U << bit)); bit++)
		;
	return dump_usage_error("%s does not take %s; try 'ktrepl-dump help'",
				c->name, cmd_opt_names[bit]);
}

/* Exact match first, then a unique prefix, as bpftool does. */
int cmd_select(const struct cmd *table, int argc, char **argv)
{
	const struct cmd *c, *found = NULL;
	size_t len;

	if (argc < 1) {
		kt_out_error(&dump.out, "no command given; try 'ktrepl-dump help'");
		return EXIT_TROUBLE;
	}
	len = strlen(argv[0]);
	for (c = table; c->name; c++) {
		if (!strcmp(c->name, argv[0])) {
			found = c;
			break;
		}
		if (!strncmp(c->name, argv[0], len)) {
			if (found) {
				kt_out_error(&dump.out, "command '%s' is ambiguous",
					     argv[0]);
				return EXIT_TROUBLE;
			}
			found = c;
		}
	}
	if (!found) {
		kt_out_error(&dump.out,
			     "unknown command '%s'; try 'ktrepl-dump help'",
			     argv[0]);
		return EXIT_TROUBLE;
	}
	return check_cmd_opts(found) ?: found->func(argc - 1, argv + 1);
}

static int parse_raw_spec(char *spec)
{
	char *at = strrchr(spec, '@'), *end;

	dump.raw_path = spec;
	if (!at)
		return 0;
	*at = '\0';
	errno = 0;
	dump.raw_base = strtoull(at + 1, &end, 0);
	if (errno || *end || end == at + 1)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	enum {
		OPT_VMCORE = 256,
		OPT_KCORE,
		OPT_RAW,
		OPT_DEBUGFS,
		OPT_VMLINUX,
		OPT_SYSMAP,
		OPT_KALLSYMS,
		OPT_VERIFY,
		OPT_TAP,
		OPT_VA,
		OPT_AGAINST_VMLINUX,
		OPT_ALL,
		OPT_PROMETHEUS,
		OPT_CRASH_DIR,
		OPT_TIMEOUT,
	};
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "vmcore", required_argument, NULL, OPT_VMCORE },
		{ "kcore", required_argument, NULL, OPT_KCORE },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ "debugfs", required_argument, NULL, OPT_DEBUGFS },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "system-map", required_argument, NULL, OPT_SYSMAP },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "version", no_argument, NULL, 'V' },
		/* the commands' own */
		{ "node", required_argument, NULL, 'n' },
		{ "region", required_argument, NULL, 'r' },
		{ "va", required_argument, NULL, OPT_VA },
		{ "tap", no_argument, NULL, OPT_TAP },
		{ "against-vmlinux", no_argument, NULL, OPT_AGAINST_VMLINUX },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "output", required_argument, NULL, 'o' },
		{ "prometheus", optional_argument, NULL, OPT_PROMETHEUS },
		{ "crash-dir", required_argument, NULL, OPT_CRASH_DIR },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, pretty = false, bad_raw = false, verify = false;
	bool version = false;
	struct cmd_args *a = &dump.args;
	char bad_option[160] = "";
	int opt, ret;

	/* the loop goes on past an option error: -j anywhere decides how
	 * it is reported */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jphVn:r:o:", options, NULL)) !=
	       -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_CLEAN;
		case 'V':
			version = true;
			break;
		case 'n':
			a->given |= CMD_OPT_NODE;
			a->node = optarg;
			break;
		case 'r':
			a->given |= CMD_OPT_REGION;
			a->region = optarg;
			break;
		case OPT_VA:
			a->given |= CMD_OPT_VA;
			a->va = optarg;
			break;
		case OPT_AGAINST_VMLINUX:
			a->given |= CMD_OPT_AGAINST_VMLINUX;
			break;
		case OPT_ALL:
			a->given |= CMD_OPT_ALL;
			break;
		case 'o':
			a->given |= CMD_OPT_OUTPUT;
			a->output = optarg;
			break;
		case OPT_PROMETHEUS:
			a->given |= CMD_OPT_PROMETHEUS;
			a->prometheus_file = optarg;
			break;
		case OPT_CRASH_DIR:
			a->given |= CMD_OPT_CRASH_DIR;
			a->crash_dir = optarg;
			break;
		case OPT_TIMEOUT:
			a->given |= CMD_OPT_TIMEOUT;
			a->timeout = optarg;
			break;
		case OPT_VMCORE:
			dump.vmcore_path = optarg;
			break;
		case OPT_KCORE:
			dump.kcore_path = optarg;
			break;
		case OPT_RAW:
			bad_raw = parse_raw_spec(optarg) < 0;
			break;
		case OPT_DEBUGFS:
			dump.debugfs_dir = optarg;
			break;
		case OPT_VMLINUX:
			dump.vmlinux_path = optarg;
			break;
		case OPT_SYSMAP:
			dump.system_map_path = optarg;
			break;
		case OPT_KALLSYMS:
			dump.kallsyms_path = optarg;
			break;
		case OPT_VERIFY:
			verify = true;
			break;
		case OPT_TAP:
			a->given |= CMD_OPT_TAP;
			break;
		case ':':
			if (!*bad_option)
				kt_option_error(bad_option, sizeof(bad_option),
						argv, true, options);
			break;
		default:
			if (!*bad_option)
				kt_option_error(bad_option, sizeof(bad_option),
						argv, false, options);
			break;
		}
	}
	if (kt_out_init(&dump.out, "ktrepl-dump", json, pretty)) {
		fprintf(stderr, "ktrepl-dump: error: out of memory\n");
		return EXIT_TROUBLE;
	}
	if (*bad_option) {
		kt_out_error(&dump.out, "%s; try 'ktrepl-dump --help'",
			     bad_option);
		ret = EXIT_TROUBLE;
	} else if (bad_raw) {
		kt_out_error(&dump.out, "--raw wants FILE or FILE@BASE, BASE a number");
		ret = EXIT_TROUBLE;
	} else if (version) {
		kt_report_version(&dump.out, KTREPL_VERSION);
		ret = EXIT_CLEAN;
	} else if (verify) {
		char verify_name[] = "verify";
		char *verify_argv[] = { verify_name, NULL };

		if (optind < argc)
			ret = dump_usage_error("--verify takes no command");
		else
			ret = cmd_select(cmds, 1, verify_argv);
	} else {
		ret = cmd_select(cmds, argc - optind, argv + optind);
	}
	kt_out_fini(&dump.out);
	return ret;
}
