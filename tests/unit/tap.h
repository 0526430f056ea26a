/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_TAP_H
#define KTREPL_TEST_TAP_H

/*
 * kselftest-style TAP for the unit tests: exit 0 pass, 1 fail, 4 skip.
 * The plan comes first (tap_plan, as kselftest's ksft_set_plan), so that
 * a test that stops early fails: tap_finish fails when the points run
 * are not the points planned, or when there was no plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned = -1;

static inline void tap_header(void)
{
	printf("TAP version 13\n");
}

/* 1..n, right after the header and before any point */
static inline void tap_plan(int n)
{
	if (tap_planned >= 0 || tap_n) {
		printf("# tap_plan(%d) after %s\n", n,
		       tap_n ? "the first point" : "a plan");
		tap_failed++;
		return;
	}
	tap_planned = n;
	printf("1..%d\n", n);
}

#define tap_ok(cond, ...)                                          \
	do {                                                       \
		int ok_ = !!(cond);                                \
		tap_n++;                                           \
		if (!ok_)                                          \
			tap_failed++;                              \
		printf("%s %d - ", ok_ ? "ok" : "not ok", tap_n); \
		printf(__VA_ARGS__);                               \
		printf("\n");                                      \
		if (!ok_)                                          \
			printf("# failed at %s:%d: %s\n", __FILE__, \
			       __LINE__, #cond);                   \
	} while (0)

/* an equality that shows what it got and what it wanted when it fails */
#define tap_eq_u64(got, want, ...)                                       \
	do {                                                             \
		unsigned long long got_ = (got), want_ = (want);         \
		tap_ok(got_ == want_, __VA_ARGS__);                      \
		if (got_ != want_)                                       \
			printf("# got 0x%llx (%llu), want 0x%llx (%llu)\n", \
			       got_, got_, want_, want_);                \
	} while (0)

/* the same for signed values: return codes, negative errnos */
#define tap_eq_s64(got, want, ...)                                       \
	do {                                                             \
		long long sgot_ = (got), swant_ = (want);                \
		tap_ok(sgot_ == swant_, __VA_ARGS__);                    \
		if (sgot_ != swant_)                                     \
			printf("# got %lld, want %lld\n", sgot_, swant_); \
	} while (0)

#define tap_streq(got, want, ...)                                        \
	do {                                                             \
		const char *sgot_ = (got), *swant_ = (want);             \
		int same_ = sgot_ && swant_ && !strcmp(sgot_, swant_);    \
		tap_ok(same_, __VA_ARGS__);                              \
		if (!same_)                                              \
			printf("# got '%s', want '%s'\n",                \
			       sgot_ ? sgot_ : "(null)",                 \
			       swant_ ? swant_ : "(null)");              \
	} while (0)

#define tap_skip(...)                        \
	do {                                 \
		tap_n++;                     \
		printf("ok %d - # SKIP ", tap_n); \
		printf(__VA_ARGS__);         \
		printf("\n");                \
	} while (0)

/* the plan was printed first: here only whether it held */
static inline int tap_finish(void)
{
	if (tap_planned < 0) {
		printf("# no plan: call tap_plan(N) after tap_header (ran %d)\n",
		       tap_n);
		return 1;
	}
	if (tap_n != tap_planned) {
		printf("# planned %d, ran %d\n", tap_planned, tap_n);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif
