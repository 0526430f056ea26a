/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_VMLINUX_TEXT_H
#define KTREPL_VMLINUX_TEXT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "pgtable.h"

/*
 * The text a kernel was linked with, and every place its boot or its
 * runtime rewrites that text on purpose: the patch-site tables the kernel
 * itself walks (alternatives, retpolines, return thunks, paravirt, ftrace,
 * jump labels, static calls, lock prefixes) and the relocations KASLR
 * applies. Whatever differs between memory and the file outside those is
 * not the kernel's doing. x86_64 only: arm64 vmlinux files carry none of
 * these tables in this form.
 */

extern const char *const kt_site_names[KT_SITE_NR];

struct kt_site {
	uint64_t va;	/* link-time address */
	uint32_t len;
	uint8_t kind;
};

/* an absolute (+1) or inverse per-CPU (-1) field that KASLR shifts */
struct kt_reloc {
	uint64_t va;
	uint8_t size;
	int8_t sign;
};

struct kt_alt_layout {
	uint8_t entry;
	uint8_t instrlen;	/* replacementlen follows it */
};

struct kt_vmlinux_section {
	uint64_t addr;
	uint64_t size;
	uint64_t offset;
};

struct kt_vmlinux {
	const char *path;
	int fd;
	Elf *elf;
	struct kt_vmlinux_section *secs;
	size_t nr_secs;
	struct kt_site *sites;	/* sorted by va */
	size_t nr_sites, sites_cap;
	struct kt_reloc *relocs;	/* sorted by va */
	size_t nr_relocs;
	/*
	 * No .rela.text: from 6.9 x86 strips the relocations from vmlinux
	 * (they live only in the boot image). A relocated field is then
	 * recognised by its value: memory equals the file plus the slide.
	 */
	bool relocs_inferred;
	/* struct alt_instr: its size and where instrlen is, per series */
	const struct kt_alt_layout *alt;
	uint64_t stext;	/* link-time _stext and _etext */
	uint64_t etext;
};

int kt_vmlinux_open(struct kt_vmlinux *v, const char *path,
		    struct kt_err *err);
void kt_vmlinux_close(struct kt_vmlinux *v);
/* file bytes at link-time address va */
int kt_vmlinux_read(const struct kt_vmlinux *v, uint64_t va, void *buf,
		    size_t len, struct kt_err *err);
/* the site that covers [va, va + len), or NULL */
const struct kt_site *kt_vmlinux_site(const struct kt_vmlinux *v, uint64_t va);
/*
 * Do KASLR relocations explain every differing byte of [va, va + len)?
 * mem and file hold the bytes of [base, base + buflen), which must hold
 * whole relocated fields; base and va are link-time addresses, slide is
 * runtime minus link address. With relocs_inferred, any 4- or 8-byte
 * field over a differing byte that holds the file's value moved by the
 * slide counts as relocated.
 */
bool kt_vmlinux_relocated(const struct kt_vmlinux *v, uint64_t base,
			  const uint8_t *mem, const uint8_t *file,
			  uint64_t buflen, uint64_t va, uint64_t len,
			  int64_t slide);

#endif
