// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

struct dump_ctx dump = {
	.kcore_path = "/proc/kcore",
};

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "read", do_read, "read ADDR LEN       hex dump of physical memory" },
	{ "help", do_help, "help                this text" },
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

int dump_fail(const struct kt_err *err)
{
	kt_out_error(&dump.out, "%s", err->msg);
	return EXIT_TROUBLE;
}

int dump_open_memsrc(struct kt_memsrc **src)
{
	struct kt_err err;
	int ret;

	kt_err_clear(&err);
	if (dump.raw_path)
		ret = kt_memsrc_open_raw(src, dump.raw_path, dump.raw_base, &err);
	else if (dump.vmcore_path)
		ret = kt_memsrc_open_vmcore(src, dump.vmcore_path, &err);
	else
		ret = kt_memsrc_open_kcore(src, dump.kcore_path, &err);
	if (ret)
		return dump_fail(&err);
	return 0;
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
	enum { OPT_VMCORE = 256, OPT_KCORE, OPT_RAW };
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "vmcore", required_argument, NULL, OPT_VMCORE },
		{ "kcore", required_argument, NULL, OPT_KCORE },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, pretty = false, bad_raw = false;
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
	} else {
		ret = cmd_select(cmds, argc - optind, argv + optind);
	}
	kt_out_fini(&dump.out);
	return ret;
}
