/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_DUMP_MAIN_H
#define KTREPL_DUMP_MAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "err.h"
#include "memsrc.h"
#include "output.h"
#include "report.h"
#include "state.h"
#include "symbols.h"

/* Exit codes, like cmp(1): 0 clean, 1 differences found, 2 trouble. */
enum {
	EXIT_CLEAN = 0,
	EXIT_DIVERGED = 1,
	EXIT_TROUBLE = 2,
};

/*
 * A command's own options. getopt_long sees every option, global or a
 * command's, anywhere on the line (as bpftool's -j); each command then
 * says which of these it takes.
 */
enum {
	CMD_OPT_NODE = 1 << 0,
	CMD_OPT_REGION = 1 << 1,
	CMD_OPT_VA = 1 << 2,
	CMD_OPT_TAP = 1 << 3,
	CMD_OPT_AGAINST_VMLINUX = 1 << 4,
	CMD_OPT_ALL = 1 << 5,
	CMD_OPT_OUTPUT = 1 << 6,
	CMD_OPT_PROMETHEUS = 1 << 7,
	CMD_OPT_CRASH_DIR = 1 << 8,
	CMD_OPT_TIMEOUT = 1 << 9,
	CMD_OPT_NR = 10,
};

struct cmd_args {
	unsigned int given;	/* CMD_OPT_* seen on the line */
	const char *node;
	const char *region;
	const char *va;
	const char *output;
	const char *prometheus_file;	/* NULL: stdout */
	const char *crash_dir;
	const char *timeout;
};

struct dump_ctx {
	struct kt_out out;
	struct cmd_args args;
	const char *vmcore_path;
	const char *kcore_path;
	const char *raw_path;
	unsigned long long raw_base;
	const char *debugfs_dir;
	const char *vmlinux_path;
	const char *system_map_path;
	const char *kallsyms_path;
};

extern struct dump_ctx dump;

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	unsigned int opts;	/* the CMD_OPT_* it takes */
	const char *help;
};

int cmd_select(const struct cmd *cmds, int argc, char **argv);

/* Everything a command inspects, opened from the global options. */
struct dump_target {
	struct kt_state st;
	struct kt_memsrc *src;
	struct kt_symtab syms;
	bool have_syms;
	struct kt_target t;
};

int dump_open_memsrc(struct kt_memsrc **src);
/* 0, or an exit code after reporting the error */
int dump_target_open(struct dump_target *dt);
void dump_target_close(struct dump_target *dt);
/*
 * A vmcore at path, the dump's own kallsyms for symbols, errors in err
 * and not reported: triage writes them into a verdict.
 */
int dump_target_open_vmcore(struct dump_target *dt, const char *path,
			    struct kt_err *err);
/* --vmlinux against the kernel's build id (VMCOREINFO), when both exist */
int dump_check_vmlinux(struct dump_target *dt, struct kt_err *err);
/* Report err through the JSON-aware writer and return EXIT_TROUBLE. */
int dump_fail(const struct kt_err *err);
int dump_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int parse_u64(const char *s, uint64_t *val);
/* --prometheus: emit(fp, arg) onto stdout, or into the FILE put in place */
int dump_write_metrics(void (*emit)(FILE *fp, const void *arg),
		       const void *arg);

int do_read(int argc, char **argv);
int do_summary(int argc, char **argv);
int do_diff(int argc, char **argv);
int do_walk(int argc, char **argv);
int do_verify(int argc, char **argv);
int do_triage(int argc, char **argv);

#endif
