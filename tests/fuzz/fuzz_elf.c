// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF readers (a vmlinux's symbols, build id and text with its
 * patch-site tables) and the System.map reader, on the same input.
 */
#include "sparse.h"
#include "symbols.h"
#include "vmlinux_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_symtab tab;
	struct kt_vmlinux v;
	struct kt_err err;
	char path[64], id[128];
	uint8_t buf[16];
	int fd = input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	kt_err_clear(&err);
	memset(&tab, 0, sizeof(tab));
	if (!kt_symtab_load_vmlinux(&tab, path, &err)) {
		kt_symtab_format(&tab, 0xffffffff81000000ULL, (char *)buf,
				 sizeof(buf));
		kt_symtab_free(&tab);
	}
	kt_elf_build_id(path, id, sizeof(id), &err);
	memset(&v, 0, sizeof(v));
	if (!kt_vmlinux_open(&v, path, &err)) {
		kt_vmlinux_read(&v, v.stext, buf, sizeof(buf), &err);
		kt_vmlinux_close(&v);
	}
	memset(&tab, 0, sizeof(tab));
	if (!kt_symtab_load_map(&tab, path, &err))
		kt_symtab_free(&tab);
	close(fd);
	return 0;
}
