// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

struct dump_ctx dump = {
	.kcore_path = "/proc/kcore",
	.debugfs_dir = "/sys/kernel/debug/ktrepl",
};

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "summary", do_summary, "summary                         nodes, regions, roots, counters" },
	{ "diff", do_diff, "diff [--node N] [--region R]    replica bytes that differ from the master\n"
			   "  diff --against-vmlinux [--all]    the master's text against --vmlinux" },
	{ "walk", do_walk, "walk [--node N] [--region R] [--va ADDR]\n"
			   "                                  each node's mappings of the replicated ranges" },
	{ "verify", do_verify, "verify [--tap]                  the health check (also --verify)" },
	{ "read", do_read, "read PHYSADDR LEN               hex dump of physical memory" },
	{ "help", do_help, "help                            this text" },
	{ NULL, NULL, NULL },
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
		"      --verify          same as the verify command\n"
		"  -h, --help            this text\n"
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
		if (!strcmp(c->name, argv[0]))
			return c->func(argc - 1, argv + 1);
		if (!strncmp(c->name, argv[0], len)) {
			if (found) {
				kt_out_error(&dump.out, "command '%s' is ambiguous",
					     argv[0]);
				return EXIT_TROUBLE;
			}
			found = c;
		}
	}
	if (found)
		return found->func(argc - 1, argv + 1);
	kt_out_error(&dump.out, "unknown command '%s'; try 'ktrepl-dump help'",
		     argv[0]);
	return EXIT_TROUBLE;
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
		{ "tap", no_argument, NULL, OPT_TAP },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, pretty = false, bad_raw = false, verify = false;
	bool tap = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+jph", options, NULL)) != -1) {
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
			tap = true;
			break;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}
	if (kt_out_init(&dump.out, "ktrepl-dump", json, pretty)) {
		fprintf(stderr, "ktrepl-dump: error: out of memory\n");
		return EXIT_TROUBLE;
	}
	if (bad_raw) {
		kt_out_error(&dump.out, "--raw wants FILE or FILE@BASE, BASE a number");
		ret = EXIT_TROUBLE;
	} else if (verify) {
		char tap_arg[] = "--tap";
		char *verify_argv[] = { tap_arg, NULL };

		if (optind < argc)
			ret = dump_usage_error("--verify takes no command");
		else
			ret = do_verify(tap ? 1 : 0, verify_argv);
	} else {
		ret = cmd_select(cmds, argc - optind, argv + optind);
	}
	kt_out_fini(&dump.out);
	return ret;
}
