/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_RAWIMG_H
#define KTREPL_TEST_RAWIMG_H

/* Synthetic physical memory for the unit tests, behind the raw backend. */
#include <stdlib.h>
#include <unistd.h>

#include "memsrc.h"

/*
 * Write size bytes of img to a temporary file (path: a mkstemp template)
 * holding physical memory from base on.
 */
static inline struct kt_memsrc *open_raw_image_at(const void *img, size_t size,
						  uint64_t base, char *path)
{
	struct kt_memsrc *src = NULL;
	struct kt_err err;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return NULL;
	}
	close(fd);
	if (kt_memsrc_open_raw(&src, path, base, &err))
		return NULL;
	return src;
}

static inline struct kt_memsrc *open_raw_image(const void *img, size_t size,
					       char *path)
{
	return open_raw_image_at(img, size, 0, path);
}

#endif
