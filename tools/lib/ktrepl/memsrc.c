// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memsrc.h"

struct kt_memsrc *kt_memsrc_new(const struct kt_memsrc_ops *ops, void *priv,
				const char *path)
{
	struct kt_memsrc *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->ops = ops;
	src->priv = priv;
	snprintf(src->path, sizeof(src->path), "%s", path);
	return src;
}

int kt_memsrc_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			size_t len, struct kt_err *err)
{
	int ret;

	if (pa + len < pa)
		return kt_err_set(err, EINVAL,
				  "%s: read 0x%" PRIx64 "+%zu wraps around",
				  src->path, pa, len);
	ret = src->ops->read_phys(src, pa, buf, len, err);
	if (ret)
		return kt_err_wrap(err, "%s %s", src->ops->name, src->path);
	return 0;
}

int kt_memsrc_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			 size_t len, struct kt_err *err)
{
	if (!src->ops->vmcoreinfo)
		return kt_err_set(err, ENOENT, "%s %s has no VMCOREINFO",
				  src->ops->name, src->path);
	return src->ops->vmcoreinfo(src, key, val, len, err);
}

int kt_memsrc_phys_end(struct kt_memsrc *src, uint64_t *end,
		       struct kt_err *err)
{
	if (!src->ops->phys_end)
		return kt_err_set(err, ENOTSUP, "%s %s cannot tell its size",
				  src->ops->name, src->path);
	return src->ops->phys_end(src, end, err);
}

int kt_memsrc_descriptor_hint(struct kt_memsrc *src, uint64_t *pa)
{
	if (!src->ops->descriptor_hint)
		return -ENOENT;
	return src->ops->descriptor_hint(src, pa);
}

int kt_memsrc_next_range(struct kt_memsrc *src, uint64_t pa, uint64_t *start,
			 uint64_t *end, struct kt_err *err)
{
	int ret;

	if (src->ops->next_range) {
		ret = src->ops->next_range(src, pa, start, end);
		if (ret != -ENOTSUP)
			return ret;
	}
	ret = kt_memsrc_phys_end(src, end, err);
	if (ret)
		return ret;
	*start = pa;
	return pa < *end ? 0 : -ENOENT;
}

int kt_memsrc_first_gap(struct kt_memsrc *src, uint64_t pa, uint64_t len,
			uint64_t *gap_start, uint64_t *gap_end)
{
	uint64_t end = pa + len, start, run_end;
	int ret;

	if (!src->ops->next_range)
		return -ENOTSUP;
	while (pa < end) {
		ret = src->ops->next_range(src, pa, &start, &run_end);
		if (ret == -ENOENT) {
			*gap_start = pa;
			*gap_end = end;
			return 0;
		}
		if (ret)
			return ret;
		if (start > pa) {
			*gap_start = pa;
			*gap_end = start < end ? start : end;
			return 0;
		}
		pa = run_end;
	}
	return -ENOENT;
}

void kt_memsrc_close(struct kt_memsrc *src)
{
	if (!src)
		return;
	if (src->ops->close)
		src->ops->close(src);
	free(src);
}

int kt_vmcoreinfo_lookup(const char *text, const char *key, char *val,
			 size_t len, struct kt_err *err)
{
	size_t klen = strlen(key);
	const char *found = NULL, *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			found = p + klen + 1;
	if (!found)
		return kt_err_set(err, ENOENT, "VMCOREINFO has no %s", key);
	snprintf(val, len, "%.*s", (int)strcspn(found, "\n"), found);
	return 0;
}
