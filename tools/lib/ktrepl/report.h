/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_REPORT_H
#define KTREPL_REPORT_H

#include "check.h"
#include "output.h"

/*
 * Twin printers (plain and JSON) for everything the tools show, chosen
 * by struct kt_out. ktrepl-dump and the crash extension both print
 * through these, so the same dump reads the same in both.
 */
void kt_report_summary(struct kt_out *out, const struct kt_state *st);

void kt_report_diff_begin(struct kt_out *out);
void kt_report_diff(struct kt_out *out, const struct kt_state *st,
		    const struct kt_diff *d);
/* after kt_diff_vmlinux_run: per-kind counts and the unexplained */
void kt_report_vdiff_end(struct kt_out *out, const struct kt_vdiff_stats *s);
void kt_report_diff_end(struct kt_out *out, unsigned int ranges,
			unsigned int unsettled, uint64_t compared);

/* tap: kselftest-style TAP instead of lines */
void kt_report_verify_begin(struct kt_out *out, bool tap);
void kt_report_violation(struct kt_out *out, const struct kt_state *st,
			 const struct kt_violation *v, bool tap);
void kt_report_verify_end(struct kt_out *out,
			  const struct kt_verify_stats *stats, bool tap);
/*
 * A diff, verify or walk report stopped by an error: under JSON the
 * error closes the one object begin opened (output stays one JSON value);
 * in text it is the error line alone, with no totals that would mislead.
 */
void kt_report_abort(struct kt_out *out, const char *msg);
/* -V: the program's version and the formats it reads */
void kt_report_version(struct kt_out *out, const char *version);

void kt_report_walk_begin(struct kt_out *out);
void kt_report_mapping(struct kt_out *out, const struct kt_target *t,
		       int node, const char *region, const struct kt_mapping *m,
		       bool levels);
void kt_report_walk_end(struct kt_out *out);

#endif
