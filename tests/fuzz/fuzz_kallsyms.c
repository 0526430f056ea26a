// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms decoder over garbage tables. The input: six little-endian
 * u32s, where each table (enum kt_kallsyms_table order) starts in the
 * body; a flags byte (bit 0: x86_64's absolute percpu rule; bit 1: check
 * _stext against the body's start); 7 bytes of padding; then the body,
 * which is kernel memory from KS_BASE on (VA = KS_BASE + PA). The seed
 * (corpus/kallsyms/) is the x86_64 6.1 fixture's tables, packed so.
 */
#include <errno.h>
#include <string.h>

#include "kallsyms.h"

#define KS_HDR 32
#define KS_BASE 0xffffffff82000000ULL

struct body {
	const uint8_t *bytes;
	size_t len;
};

static int body_read(struct kt_memsrc *src, uint64_t pa, void *buf,
		     size_t len, struct kt_err *err)
{
	const struct body *b = src->priv;

	if (pa > b->len || len > b->len - pa)
		return kt_err_set(err, EFAULT, "0x%llx+%zu is past the input",
				  (unsigned long long)pa, len);
	memcpy(buf, b->bytes + pa, len);
	return 0;
}

static const struct kt_memsrc_ops body_ops = {
	.name = "fuzz",
	.read_phys = body_read,
};

static int body_to_pa(void *arg, uint64_t va, uint64_t *pa, uint64_t *contig,
		      struct kt_err *err)
{
	const struct body *b = arg;

	if (va < KS_BASE || va - KS_BASE >= b->len)
		return kt_err_set(err, EFAULT, "0x%llx is not mapped",
				  (unsigned long long)va);
	*pa = va - KS_BASE;
	*contig = b->len - *pa;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct body b = { data + KS_HDR, size > KS_HDR ? size - KS_HDR : 0 };
	struct kt_kva_map map = { body_to_pa, &b };
	struct kt_kallsyms_layout lay;
	struct kt_symtab tab;
	struct kt_memsrc src = { .ops = &body_ops, .priv = &b };
	struct kt_err err;
	int i;

	if (size < KS_HDR)
		return 0;
	memset(&lay, 0, sizeof(lay));
	for (i = 0; i < KT_KS_NR; i++) {
		uint32_t off;

		memcpy(&off, data + 4 * i, 4);
		lay.va[i] = KS_BASE + off;
	}
	lay.absolute_percpu = data[24] & 1;
	lay.stext = data[24] & 2 ? KS_BASE : 0;
	kt_err_clear(&err);
	if (!kt_kallsyms_load(&tab, &src, &map, &lay, &err)) {
		char buf[160];

		kt_symtab_format(&tab, KS_BASE, buf, sizeof(buf));
		kt_symtab_free(&tab);
	}
	return 0;
}
