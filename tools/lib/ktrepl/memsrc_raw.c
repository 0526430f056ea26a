// SPDX-License-Identifier: GPL-2.0
/*
 * A raw physical image: a plain file in which offset (pa - base) holds
 * physical address pa. Unit tests and fuzzers build these by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memsrc.h"

struct raw_image {
	int fd;
	uint64_t base;
	uint64_t size;
};

static int raw_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			 size_t len, struct kt_err *err)
{
	struct raw_image *img = src->priv;
	ssize_t n;

	if (pa < img->base || pa - img->base > img->size ||
	    len > img->size - (pa - img->base))
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu is outside the image [0x%" PRIx64 "-0x%" PRIx64 ")",
				  pa, len, img->base, img->base + img->size);
	n = pread(img->fd, buf, len, (off_t)(pa - img->base));
	if (n < 0)
		return kt_err_set(err, errno, "read at 0x%" PRIx64 ": %s", pa,
				  strerror(errno));
	if ((size_t)n != len)
		return kt_err_set(err, EIO, "short read at 0x%" PRIx64, pa);
	return 0;
}

static int raw_next_range(struct kt_memsrc *src, uint64_t pa,
			  uint64_t *start, uint64_t *end)
{
	struct raw_image *img = src->priv;

	if (pa >= img->base + img->size)
		return -ENOENT;
	*start = pa > img->base ? pa : img->base;
	*end = img->base + img->size;
	return 0;
}

static int raw_phys_end(struct kt_memsrc *src, uint64_t *end,
			struct kt_err *err)
{
	struct raw_image *img = src->priv;

	*end = img->base + img->size;
	return 0;
}

static void raw_close(struct kt_memsrc *src)
{
	struct raw_image *img = src->priv;

	close(img->fd);
	free(img);
}

static const struct kt_memsrc_ops raw_ops = {
	.name = "raw image",
	.read_phys = raw_read_phys,
	.phys_end = raw_phys_end,
	.next_range = raw_next_range,
	.close = raw_close,
};

int kt_memsrc_open_raw(struct kt_memsrc **out, const char *path,
		       uint64_t base, struct kt_err *err)
{
	struct raw_image *img;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kt_err_set(err, EINVAL, "%s: not a regular file", path);
	}
	img = calloc(1, sizeof(*img));
	if (!img) {
		close(fd);
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	img->fd = fd;
	img->base = base;
	img->size = (uint64_t)st.st_size;
	*out = kt_memsrc_new(&raw_ops, img, path);
	if (!*out) {
		raw_close(&(struct kt_memsrc){ .priv = img });
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	return 0;
}
