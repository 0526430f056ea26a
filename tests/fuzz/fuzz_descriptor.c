// SPDX-License-Identifier: GPL-2.0
/*
 * The vmcore descriptor reader, then everything a dump check does with
 * what it read: find the descriptor in a sparse image, load it, and run
 * verify (walks through every node's tables, diffs every extent).
 */
#include "check.h"
#include "sparse.h"
#include "state.h"

static int ignore_violation(const struct kt_violation *v, void *arg)
{
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sparse_image img;
	struct kt_verify_stats stats;
	struct kt_memsrc *src;
	struct kt_target t;
	struct kt_state st;
	struct kt_err err;

	sparse_parse(&img, data, size);
	src = kt_memsrc_new(&sparse_ops, &img, "fuzz");
	if (!src)
		return 0;
	kt_err_clear(&err);
	memset(&st, 0, sizeof(st));
	if (!kt_target_open_dump(&t, &st, src, NULL, &err)) {
		kt_verify_run(&t, ignore_violation, NULL, &stats, &err);
		kt_state_free(&st);
	}
	kt_memsrc_close(src);
	return 0;
}
