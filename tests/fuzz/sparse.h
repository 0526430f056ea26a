/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: a memory source over a "sparse image" (a
 * header, then pages each at a physical address of its own, so a few
 * real page-table pages or a real descriptor keep their real addresses),
 * and files made from the input for the readers that take a path.
 */
#ifndef KTREPL_FUZZ_SPARSE_H
#define KTREPL_FUZZ_SPARSE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memsrc.h"

#define SPARSE_PAGE 4096
#define SPARSE_MAX_PAGES 64

/* one page record: its physical address, then its bytes */
struct sparse_page {
	uint64_t pa;
	const uint8_t *bytes;
	size_t len;	/* SPARSE_PAGE, or less for a short last record */
};

struct sparse_image {
	struct sparse_page pages[SPARSE_MAX_PAGES];
	unsigned int nr;
};

/* records of 8 bytes of address and up to a page of bytes, in order */
static inline void sparse_parse(struct sparse_image *img, const uint8_t *data,
				size_t size)
{
	img->nr = 0;
	while (size > 8 && img->nr < SPARSE_MAX_PAGES) {
		struct sparse_page *p = &img->pages[img->nr++];

		memcpy(&p->pa, data, 8);
		p->pa &= ~(uint64_t)(SPARSE_PAGE - 1);
		data += 8;
		size -= 8;
		p->bytes = data;
		p->len = size < SPARSE_PAGE ? size : SPARSE_PAGE;
		data += p->len;
		size -= p->len;
	}
}

static int sparse_read(struct kt_memsrc *src, uint64_t pa, void *buf,
		       size_t len, struct kt_err *err)
{
	const struct sparse_image *img = src->priv;
	uint8_t *out = buf;

	while (len) {
		uint64_t page = pa & ~(uint64_t)(SPARSE_PAGE - 1), off = pa - page;
		size_t n = SPARSE_PAGE - off < len ? SPARSE_PAGE - off : len;
		unsigned int i;

		for (i = 0; i < img->nr; i++)
			if (img->pages[i].pa == page && off + n <= img->pages[i].len)
				break;
		if (i == img->nr)
			return kt_err_set(err, EFAULT,
					  "sparse image: 0x%llx not held",
					  (unsigned long long)pa);
		memcpy(out, img->pages[i].bytes + off, n);
		out += n;
		pa += n;
		len -= n;
	}
	return 0;
}

static int sparse_next_range(struct kt_memsrc *src, uint64_t pa,
			     uint64_t *start, uint64_t *end)
{
	const struct sparse_image *img = src->priv;
	uint64_t best = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < img->nr; i++)
		if (img->pages[i].pa + SPARSE_PAGE > pa &&
		    img->pages[i].pa < best)
			best = img->pages[i].pa;
	if (best == UINT64_MAX)
		return -ENOENT;
	*start = best;
	*end = best + SPARSE_PAGE;
	return 0;
}

static int sparse_phys_end(struct kt_memsrc *src, uint64_t *end,
			   struct kt_err *err)
{
	const struct sparse_image *img = src->priv;
	unsigned int i;

	*end = 0;
	for (i = 0; i < img->nr; i++)
		if (img->pages[i].pa + SPARSE_PAGE > *end)
			*end = img->pages[i].pa + SPARSE_PAGE;
	return 0;
}

static const struct kt_memsrc_ops sparse_ops = {
	.name = "sparse",
	.read_phys = sparse_read,
	.phys_end = sparse_phys_end,
	.next_range = sparse_next_range,
};

/* a file holding data, named by a path the readers can open */
static inline int input_file(const uint8_t *data, size_t size, char *path,
			     size_t len)
{
	int fd = memfd_create("fuzz-input", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
