// SPDX-License-Identifier: GPL-2.0
/* x86_64 4- and 5-level paging. */
#include <errno.h>
#include <string.h>

#include "insn.h"
#include "pgtable.h"

#define X86_PRESENT (1ULL << 0)
#define X86_RW (1ULL << 1)
#define X86_USER (1ULL << 2)
#define X86_PSE (1ULL << 7)
#define X86_GLOBAL (1ULL << 8)
#define X86_PAT_LARGE (1ULL << 12)
#define X86_NX (1ULL << 63)
/* bits 12..51; SME's encryption bit, if any, sits above and is masked */
#define X86_ADDR_MASK 0x000ffffffffff000ULL

static int x86_configure(struct kt_pt_geometry *geo, unsigned int levels,
			 unsigned int page_shift, unsigned int va_bits,
			 struct kt_err *err)
{
	static const unsigned int shifts[] = { 48, 39, 30, 21, 12 };
	unsigned int skip, l;

	if (levels != 4 && levels != 5)
		return kt_err_set(err, EINVAL,
				  "x86_64 paging with %u levels: want 4 or 5",
				  levels);
	if (page_shift && page_shift != 12)
		return kt_err_set(err, EINVAL, "x86_64 base pages of 2^%u bytes",
				  page_shift);
	skip = 5 - levels;
	geo->levels = levels;
	for (l = 0; l < geo->levels; l++) {
		geo->shift[l] = shifts[l + skip];
		geo->bits[l] = 9;
	}
	geo->page_shift = 12;
	geo->va_bits = geo->shift[0] + 9;
	if (va_bits && va_bits != geo->va_bits)
		return kt_err_set(err, EINVAL,
				  "x86_64 %u-level paging has %u VA bits, not %u",
				  levels, geo->va_bits, va_bits);
	geo->kernel_first = 256;
	return 0;
}

static bool x86_present(uint64_t e)
{
	return e & X86_PRESENT;
}

static bool x86_leaf(const struct kt_pt_geometry *geo, uint64_t e, int level)
{
	return (unsigned int)level == geo->levels - 1 ||
	       ((e & X86_PSE) && level >= (int)geo->levels - 3);
}

static uint64_t x86_next_pa(const struct kt_pt_geometry *geo, uint64_t e,
			    int level)
{
	return e & X86_ADDR_MASK;
}

static void x86_decode_leaf(const struct kt_pt_geometry *geo, uint64_t e,
			    int level, struct kt_mapping *m)
{
	uint64_t mask = X86_ADDR_MASK;

	if ((unsigned int)level != geo->levels - 1)
		mask &= ~(X86_PAT_LARGE | (m->size - 1));
	m->pa = e & mask;
	m->writable = e & X86_RW;
	m->executable = !(e & X86_NX);
	m->global = e & X86_GLOBAL;
	m->user = e & X86_USER;
}

static const char *const x86_level_names[] = { "pgd", "p4d", "pud", "pmd",
					       "pte" };

const struct kt_arch kt_arch_x86_64 = {
	.name = "x86_64",
	.configure = x86_configure,
	.present = x86_present,
	.leaf = x86_leaf,
	.next_pa = x86_next_pa,
	.decode_leaf = x86_decode_leaf,
	.level_names = x86_level_names,
	.insn_align = 1,
	.classify = kt_x86_classify,
	.site_len = kt_x86_site_len,
	.insn_backup = kt_x86_insn_backup,
	.branch_len = kt_x86_branch_len,
	.site_bytes_valid = kt_x86_site_bytes_valid,
	/* struct user_regs_struct: rip is the 17th register */
	.prstatus_pc = 16 * 8,
};
