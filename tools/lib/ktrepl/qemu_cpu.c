// SPDX-License-Identifier: GPL-2.0
/*
 * The top-level table each CPU had loaded, from the "QEMU" notes that
 * dump-guest-memory writes into ELF vmcores (x86_64: one QEMUCPUState per
 * CPU, in CPU order, after that CPU's NT_PRSTATUS). kdump's own notes do
 * not save CR3, so other dumps cannot answer this.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "qemu_cpu.h"

/* QEMUCPUState: version, size, 18 GPRs/rip/rflags, 10 segments, cr[5] */
#define QEMU_CPU_CR3_OFFSET (8 + 18 * 8 + 10 * 24 + 3 * 8)

int kt_qemu_cpu_roots(const char *path, uint64_t *roots, int max,
		      struct kt_err *err)
{
	size_t nr_phdrs, i;
	int fd, n = 0;
	Elf *elf;

	if (kt_elf_open(path, &fd, &elf, err))
		return -err->code;
	if (!elf || elf_getphdrnum(elf, &nr_phdrs)) {
		kt_elf_close(fd, elf);
		return kt_err_set(err, ENOTSUP,
				  "%s: not an ELF dump; only QEMU's ELF dumps record each CPU's page-table root",
				  path);
	}
	for (i = 0; i < nr_phdrs && n < max; i++) {
		size_t off = 0, name_off, desc_off;
		Elf_Data *data;
		GElf_Phdr phdr;
		GElf_Nhdr nhdr;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, phdr.p_offset, phdr.p_filesz,
					    ELF_T_NHDR);
		while (data && n < max &&
		       (off = gelf_getnote(data, off, &nhdr, &name_off,
					   &desc_off)) > 0) {
			const char *name = (const char *)data->d_buf + name_off;
			uint64_t cr3;

			if (nhdr.n_namesz != 5 || memcmp(name, "QEMU", 5) ||
			    nhdr.n_descsz < QEMU_CPU_CR3_OFFSET + 8)
				continue;
			memcpy(&cr3, (const char *)data->d_buf + desc_off +
					     QEMU_CPU_CR3_OFFSET,
			       8);
			/* the low 12 bits are the PCID, not address */
			roots[n++] = cr3 & 0x000ffffffffff000ULL;
		}
	}
	kt_elf_close(fd, elf);
	if (!n)
		return kt_err_set(err, ENOENT,
				  "%s: no QEMU CPU notes (not a QEMU dump-guest-memory ELF dump)",
				  path);
	return n;
}
