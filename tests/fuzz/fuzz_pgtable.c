// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table walkers over a sparse image, cyclic and garbage tables
 * included: a 32-byte header picks the arch and its paging (x86_64 4- or
 * 5-level; arm64 4K, 16K or 64K granules at any level count), the root
 * and a VA range; the rest are the table pages at their addresses.
 */
#include "pgtable.h"
#include "sparse.h"

struct header {
	uint8_t arch, levels, granule, va_bits;
	uint32_t pad;
	uint64_t root_pa;
	uint64_t start;
	uint64_t span;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int shifts[] = { 12, 14, 16 };
	const struct kt_arch *arch;
	struct kt_pt_geometry geo;
	struct sparse_image img;
	struct kt_memsrc *src;
	struct kt_mapping m;
	struct kt_walk w;
	struct kt_err err;
	struct header h;
	unsigned int page_shift;
	int n = 0;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	arch = h.arch & 1 ? &kt_arch_arm64 : &kt_arch_x86_64;
	page_shift = h.arch & 1 ? shifts[h.granule % 3] : 12;
	kt_err_clear(&err);
	if (arch->configure(&geo, 2 + h.levels % 4, page_shift,
			    36 + h.va_bits % 22, &err))
		return 0;
	sparse_parse(&img, data + sizeof(h), size - sizeof(h));
	src = kt_memsrc_new(&sparse_ops, &img, "fuzz");
	if (!src)
		return 0;
	if (!kt_walk_begin(&w, arch, &geo, src, h.root_pa, h.start,
			   h.start + (h.span & ((1ULL << 40) - 1)), &err)) {
		while (kt_walk_next(&w, &m, &err) == 1 && ++n < 100000)
			;
		kt_walk_end(&w);
	}
	kt_translate(arch, &geo, src, h.root_pa, h.start, &m, &err);
	kt_memsrc_close(src);
	return 0;
}
