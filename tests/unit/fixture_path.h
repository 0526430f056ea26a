/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_FIXTURE_PATH_H
#define KTREPL_TEST_FIXTURE_PATH_H

/*
 * Fixtures are found from the test binary's own directory (FIXTURES_DIR
 * is tests/unit/fixtures relative to it, from the Makefile), so that a
 * test runs from any working directory.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "../../tests/unit/fixtures"
#endif

/* the path of fixture rel; each call's result lives for 8 more calls */
static inline const char *fixture_path(const char *rel)
{
	static char paths[8][PATH_MAX];
	static unsigned int next;
	char self[PATH_MAX], *path = paths[next++ % 8];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		n = 0;
	self[n] = '\0';
	snprintf(path, PATH_MAX, "%.*s/%s/%s", PATH_MAX / 2,
		 n ? dirname(self) : ".", FIXTURES_DIR, rel);
	return path;
}

#endif
