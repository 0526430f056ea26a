/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_DUMP_MAIN_H
#define KTREPL_DUMP_MAIN_H

#include <stdbool.h>

#include "err.h"
#include "memsrc.h"
#include "output.h"

/* Exit codes, like cmp(1): 0 clean, 1 differences found, 2 trouble. */
enum {
	EXIT_CLEAN = 0,
	EXIT_DIVERGED = 1,
	EXIT_TROUBLE = 2,
};

struct dump_ctx {
	struct kt_out out;
	const char *vmcore_path;
	const char *kcore_path;
	const char *raw_path;
	unsigned long long raw_base;
};

extern struct dump_ctx dump;

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *help;
};

int cmd_select(const struct cmd *cmds, int argc, char **argv);

/* Open the memory source the global options chose. */
int dump_open_memsrc(struct kt_memsrc **src);
/* Report err through the JSON-aware writer and return EXIT_TROUBLE. */
int dump_fail(const struct kt_err *err);

int do_read(int argc, char **argv);

#endif
