/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_STATE_PARSE_H
#define KTREPL_STATE_PARSE_H

/*
 * What state.c and state_summary.c share to read debugfs files: where a
 * line came from, and how a bad one is reported. Internal to the library
 * (tools include state.h): summary's reader is apart only to keep each
 * file to one concern.
 */

#include "err.h"
#include "state.h"

/* the line being read: its file and number, and where an error goes */
struct kt_file_ctx {
	const char *path;
	int lineno;
	struct kt_err *err;
};

/* EPROTO with "path:lineno: what" */
int kt_bad_record(struct kt_file_ctx *fc, const char *what);
/* one line of summary: a header, node, region or module record */
int kt_summary_line(struct kt_state *st, const char *line,
		    struct kt_file_ctx *fc);

#endif
