// SPDX-License-Identifier: GPL-2.0
/*
 * What a kernel without ktrepl still tells: its paging and its one set
 * of tables, from the VMCOREINFO note that /proc/kcore and dumps carry.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* x86_64's kernel image mapping starts here (__START_KERNEL_map) */
#define X86_KERNEL_MAP 0xffffffff80000000ULL

static int info_u64(struct kt_memsrc *src, const char *key, int base,
		    uint64_t *val, struct kt_err *err)
{
	char buf[64], *end;

	if (kt_memsrc_vmcoreinfo(src, key, buf, sizeof(buf), err))
		return -err->code;
	*val = strtoull(buf, &end, base);
	if (end == buf || *end)
		return kt_err_set(err, EINVAL, "VMCOREINFO %s=%s is not a number",
				  key, buf);
	return 0;
}

static int plain_x86_64(struct kt_state *st, struct kt_memsrc *src,
			struct kt_err *err)
{
	uint64_t pgd, phys_base, l5 = 0;

	if (info_u64(src, "SYMBOL(init_top_pgt)", 16, &pgd, err) ||
	    info_u64(src, "NUMBER(phys_base)", 10, &phys_base, err))
		return -err->code;
	if (info_u64(src, "NUMBER(pgtable_l5_enabled)", 10, &l5, err))
		kt_err_clear(err);	/* kernels before 4.17 */
	strcpy(st->arch, "x86_64");
	st->paging_levels = l5 ? 5 : 4;
	st->va_bits = l5 ? 57 : 48;
	st->page_size = 4096;
	st->master_root_pa = pgd - X86_KERNEL_MAP + phys_base;
	return 0;
}

static int plain_arm64(struct kt_state *st, struct kt_memsrc *src,
		       struct kt_err *err)
{
	uint64_t pgd, voffset, va_bits, page_size;

	if (info_u64(src, "SYMBOL(swapper_pg_dir)", 16, &pgd, err) ||
	    info_u64(src, "NUMBER(kimage_voffset)", 16, &voffset, err) ||
	    info_u64(src, "NUMBER(VA_BITS)", 10, &va_bits, err) ||
	    info_u64(src, "PAGESIZE", 10, &page_size, err))
		return -err->code;
	strcpy(st->arch, "arm64");
	st->va_bits = va_bits;
	st->page_size = page_size;
	st->master_root_pa = pgd - voffset;
	return 0;
}

int kt_state_load_plain(struct kt_state *st, struct kt_memsrc *src,
			struct kt_err *err)
{
	char probe[64];
	int ret;

	memset(st, 0, sizeof(*st));
	st->activation = KT_ACT_NONE;
	strcpy(st->provider, "none");
	st->master_node = -1;
	if (!kt_memsrc_vmcoreinfo(src, "NUMBER(kimage_voffset)", probe,
				  sizeof(probe), err))
		ret = plain_arm64(st, src, err);
	else if (!kt_memsrc_vmcoreinfo(src, "SYMBOL(init_top_pgt)", probe,
				       sizeof(probe), err))
		ret = plain_x86_64(st, src, err);
	else
		return kt_err_wrap(err, "%s: cannot tell the kernel's paging",
				   src->path);
	return ret ? kt_err_wrap(err, "%s", src->path) : 0;
}
