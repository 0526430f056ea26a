// SPDX-License-Identifier: GPL-2.0
/* arm64 stage-1 tables: 4K, 16K and 64K granules, 39..52-bit VAs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "insn.h"
#include "pgtable.h"

#define ARM64_VALID (1ULL << 0)
#define ARM64_TABLE (1ULL << 1)
#define ARM64_USER (1ULL << 6)
#define ARM64_RDONLY (1ULL << 7)
#define ARM64_NG (1ULL << 11)
#define ARM64_PXN (1ULL << 53)
#define ARM64_OA_HI_MASK 0x0000f000ULL	/* 64K + 52-bit PA: PA[51:48] */
#define ARM64_LPA2_OA_MID (3ULL << 48)	/* LPA2: PA[49:48] in place */
#define ARM64_LPA2_OA_HI 0x300ULL	/* LPA2: PA[51:50] in bits [9:8] */

static int arm64_configure(struct kt_pt_geometry *geo, unsigned int levels,
			   unsigned int page_shift, unsigned int va_bits,
			   struct kt_err *err)
{
	unsigned int granule_kb = page_shift ? (1U << page_shift) >> 10 : 4;
	unsigned int g, stride, l, left;

	if (!va_bits)
		va_bits = 48;
	switch (granule_kb) {
	case 4:
		g = 12;
		break;
	case 16:
		g = 14;
		break;
	case 64:
		g = 16;
		break;
	default:
		return kt_err_set(err, EINVAL, "arm64 granule %uK: want 4, 16 or 64",
				  granule_kb);
	}
	if (va_bits < 36 || va_bits > 52)
		return kt_err_set(err, EINVAL, "arm64 VA bits %u with a %uK granule",
				  va_bits, granule_kb);
	stride = g - 3;
	geo->levels = (va_bits - g + stride - 1) / stride;
	if (geo->levels > KT_MAX_LEVELS)
		return kt_err_set(err, EINVAL, "arm64: too many levels");
	if (levels && levels != geo->levels)
		return kt_err_set(err, EINVAL,
				  "arm64 %uK pages and %u VA bits take %u levels, not %u",
				  granule_kb, va_bits, geo->levels, levels);
	left = va_bits;
	for (l = geo->levels; l-- > 0;) {
		unsigned int shift = g + stride * (geo->levels - 1 - l);

		geo->shift[l] = shift;
		geo->bits[l] = l ? stride : left - shift;
	}
	geo->page_shift = g;
	geo->va_bits = va_bits;
	geo->kernel_first = 0;	/* TTBR1's table holds only the kernel */
	return 0;
}

static bool arm64_present(uint64_t e)
{
	return e & ARM64_VALID;
}

static bool arm64_leaf(const struct kt_pt_geometry *geo, uint64_t e, int level)
{
	return (unsigned int)level == geo->levels - 1 || !(e & ARM64_TABLE);
}

/*
 * Above 48 bits of PA: 64K pages keep PA[51:48] in bits [15:12]; 4K and
 * 16K pages do under LPA2, which a kernel runs exactly when its VAs are
 * wider than 48 bits (without LPA2 a 52-bit kernel falls back to 48, and
 * bits [9:8] are then shareability).
 */
static uint64_t arm64_addr(const struct kt_pt_geometry *geo, uint64_t e)
{
	uint64_t pa = e & ((1ULL << 48) - 1) & ~((1ULL << geo->page_shift) - 1);

	if (geo->page_shift == 16)
		pa |= (e & ARM64_OA_HI_MASK) << 36;
	else if (geo->va_bits > 48)
		pa |= (e & ARM64_LPA2_OA_MID) | (e & ARM64_LPA2_OA_HI) << 42;
	return pa;
}

static uint64_t arm64_next_pa(const struct kt_pt_geometry *geo, uint64_t e,
			      int level)
{
	return arm64_addr(geo, e);
}

static void arm64_decode_leaf(const struct kt_pt_geometry *geo, uint64_t e,
			      int level, struct kt_mapping *m)
{
	m->pa = arm64_addr(geo, e) & ~(m->size - 1);
	m->writable = !(e & ARM64_RDONLY);
	m->executable = !(e & ARM64_PXN);
	m->global = !(e & ARM64_NG);
	m->user = e & ARM64_USER;
}

static const char *const arm64_level_names[] = { "pgd", "p4d", "pud", "pmd",
						 "pte" };

const struct kt_arch kt_arch_arm64 = {
	.name = "arm64",
	.configure = arm64_configure,
	.present = arm64_present,
	.leaf = arm64_leaf,
	.next_pa = arm64_next_pa,
	.decode_leaf = arm64_decode_leaf,
	.level_names = arm64_level_names,
	.insn_align = 4,
	.classify = kt_arm64_classify,
	.site_len = kt_arm64_site_len,
	/* struct user_pt_regs: x0..x30, sp, pc */
	.prstatus_pc = 32 * 8,
	.prstatus_lr = 30 * 8,
};
