// SPDX-License-Identifier: GPL-2.0
/*
 * Whether KASLR's relocations explain a difference between a vmlinux's
 * text and memory: by the file's .rela.text, or, when the file has none
 * (x86 from 6.9), by a field holding the file's value moved by the slide.
 * Apart from vmlinux_text.c, which reads the file and its tables.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmlinux_text.h"

static const struct kt_reloc *first_reloc(const struct kt_vmlinux *v,
					  uint64_t va)
{
	size_t lo = 0, hi = v->nr_relocs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->relocs[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nr_relocs ? &v->relocs[lo] : NULL;
}

/* does a field of size bytes at va hold the file's value moved by slide? */
static bool field_moved(uint64_t base, const uint8_t *mem,
			const uint8_t *file, uint64_t buflen, uint64_t va,
			uint8_t size, int8_t sign, int64_t slide)
{
	uint64_t fv = 0, mv = 0, want;

	if (va < base || va + size > base + buflen)
		return false;
	memcpy(&fv, file + (va - base), size);
	memcpy(&mv, mem + (va - base), size);
	want = fv + (uint64_t)(sign * slide);
	if (size == 4)
		want &= 0xffffffffULL;
	return mv == want;
}

/* some 4- or 8-byte field over at, of either sign for 4 bytes */
static bool inferred_field_moved(uint64_t base, const uint8_t *mem,
				 const uint8_t *file, uint64_t buflen,
				 uint64_t at, int64_t slide)
{
	static const struct {
		uint8_t size;
		int8_t sign;
	} shapes[] = { { 8, 1 }, { 4, 1 }, { 4, -1 } };
	size_t i;
	uint64_t va;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (va = at >= shapes[i].size - 1U ? at - (shapes[i].size - 1U) : 0;
		     va <= at; va++)
			if (field_moved(base, mem, file, buflen, va,
					shapes[i].size, shapes[i].sign, slide))
				return true;
	return false;
}

bool kt_vmlinux_relocated(const struct kt_vmlinux *v, uint64_t base,
			  const uint8_t *mem, const uint8_t *file,
			  uint64_t buflen, uint64_t va, uint64_t len,
			  int64_t slide)
{
	uint64_t at;

	for (at = va; at < va + len; at++) {
		const struct kt_reloc *r;
		bool ok = false;

		if (mem[at - base] == file[at - base])
			continue;
		if (v->relocs_inferred) {
			if (!slide || !inferred_field_moved(base, mem, file,
							    buflen, at, slide))
				return false;
			continue;
		}
		/* a field covering at starts at most 7 bytes before it */
		for (r = first_reloc(v, at >= 7 ? at - 7 : 0);
		     r && r < v->relocs + v->nr_relocs && r->va <= at; r++) {
			if (at >= r->va + r->size)
				continue;
			if (field_moved(base, mem, file, buflen, r->va,
					r->size, r->sign, slide)) {
				ok = true;
				break;
			}
		}
		if (!ok)
			return false;
	}
	return true;
}
