/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_SYMBOLS_H
#define KTREPL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct kt_sym {
	uint64_t addr;
	char *name;
	char *module;	/* kallsyms' "[module]", or NULL for the image */
	char type;	/* nm's letter (T, t, D, ...); 0 where the source has none */
};

/*
 * Kernel symbols from /proc/kallsyms, a System.map, a vmlinux, or the
 * kallsyms tables in a dump's memory (kallsyms.h).
 */
struct kt_symtab {
	struct kt_sym *syms;
	size_t nr;
	int64_t slide;	/* added to every file address (KASLR) */
};

/* "ADDR TYPE NAME" lines: /proc/kallsyms and System.map alike. */
int kt_symtab_load_map(struct kt_symtab *tab, const char *path,
		       struct kt_err *err);
/* the ELF symbol table of a vmlinux */
int kt_symtab_load_vmlinux(struct kt_symtab *tab, const char *path,
			   struct kt_err *err);
void kt_symtab_free(struct kt_symtab *tab);
/*
 * Append one symbol (name and module copied); *cap is the room in
 * tab->syms, grown as needed. Sort the table when all are in.
 */
int kt_symtab_add(struct kt_symtab *tab, size_t *cap, uint64_t addr,
		  char type, const char *name, const char *module,
		  struct kt_err *err);
/* after filling syms by hand (the crash extension) */
void kt_symtab_sort(struct kt_symtab *tab);

/* Shift the table so that symbol name lands at runtime address addr. */
int kt_symtab_relocate(struct kt_symtab *tab, const char *name,
		       uint64_t addr, struct kt_err *err);
/* address of name (after the slide), or 0 */
uint64_t kt_symtab_addr(const struct kt_symtab *tab, const char *name);
/* the symbol at or below addr; offset in *off; NULL if none */
const struct kt_sym *kt_symtab_lookup(const struct kt_symtab *tab,
				      uint64_t addr, uint64_t *off);
/* "name+0xoff", "name+0xoff [module]" or "0xaddr" into buf */
void kt_symtab_format(const struct kt_symtab *tab, uint64_t addr, char *buf,
		      size_t len);

struct kt_state;
/*
 * Drop module symbols that lie in another module's memory: kallsyms keeps
 * a module's init symbols after its init memory was freed and reused by a
 * later module, and would name that one's code after them. Returns how
 * many went.
 */
size_t kt_symtab_drop_foreign(struct kt_symtab *tab,
			      const struct kt_state *st);

/* the GNU build id of an ELF file, as lowercase hex */
int kt_elf_build_id(const char *path, char *buf, size_t len,
		    struct kt_err *err);

#endif
