/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_OUTPUT_H
#define KTREPL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "json_writer.h"

/* Bumped whenever a JSON field changes meaning; emitted as "version". */
#define KT_JSON_VERSION 1

/*
 * One place decides between plain text and JSON, like bpftool's
 * json_output flag. Tools hold one of these; the library's printers
 * take it as a parameter and never pick a stream themselves.
 */
struct kt_out {
	FILE *fp;
	FILE *errfp;
	bool json;
	bool pretty;
	struct json_writer *jw;
	const char *prog;
};

int kt_out_init(struct kt_out *out, const char *prog, bool json, bool pretty);
/* The same onto streams of the caller's (crash's fp, a test's memstream). */
int kt_out_init_fp(struct kt_out *out, const char *prog, bool json,
		   bool pretty, FILE *fp, FILE *errfp);
void kt_out_fini(struct kt_out *out);

/* An error: "prog: msg" on stderr, or {"error": msg} on stdout under -j. */
void kt_out_error(struct kt_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A warning: "prog: warning: msg" on stderr, under -j too (stdout stays
 * one JSON document).
 */
void kt_out_warn(struct kt_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Informational text for humans; silent under -j. */
void kt_out_info(struct kt_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
