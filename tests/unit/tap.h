/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_TAP_H
#define KTREPL_TEST_TAP_H

/* kselftest-style TAP for the unit tests: exit 0 pass, 1 fail, 4 skip. */
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static inline void tap_header(void)
{
	printf("TAP version 13\n");
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

#define tap_skip(...)                        \
	do {                                 \
		tap_n++;                     \
		printf("ok %d - # SKIP ", tap_n); \
		printf(__VA_ARGS__);         \
		printf("\n");                \
	} while (0)

static inline int tap_finish(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
