// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "state.h"
#include "symbols.h"

int kt_symtab_add(struct kt_symtab *tab, size_t *cap, uint64_t addr,
		  char type, const char *name, const char *module,
		  struct kt_err *err)
{
	if (tab->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		struct kt_sym *n = realloc(tab->syms, ncap * sizeof(*n));

		if (!n)
			return kt_err_set(err, ENOMEM, "out of memory for symbols");
		tab->syms = n;
		*cap = ncap;
	}
	tab->syms[tab->nr].addr = addr;
	tab->syms[tab->nr].type = type;
	tab->syms[tab->nr].name = strdup(name);
	tab->syms[tab->nr].module = module ? strdup(module) : NULL;
	if (!tab->syms[tab->nr].name || (module && !tab->syms[tab->nr].module)) {
		free(tab->syms[tab->nr].name);
		free(tab->syms[tab->nr].module);
		return kt_err_set(err, ENOMEM, "out of memory for symbols");
	}
	tab->nr++;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kt_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int kt_symtab_load_map(struct kt_symtab *tab, const char *path,
		       struct kt_err *err)
{
	char line[512], name[256], module[72], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *fp;
	int ret = 0;

	memset(tab, 0, sizeof(*tab));
	fp = fopen(path, "r");
	if (!fp)
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		int fields = sscanf(line, "%llx %c %255s [%71[^]]]", &addr,
				    &type, name, module);

		if (fields < 3)
			continue;
		/* absolute and undefined symbols say nothing about text */
		if (type == 'a' || type == 'A' || type == 'U' || !addr)
			continue;
		ret = kt_symtab_add(tab, &cap, addr, type, name,
				    fields == 4 ? module : NULL, err);
		if (ret)
			break;
	}
	fclose(fp);
	if (!ret && !tab->nr)
		ret = kt_err_set(err, EINVAL,
				 "%s: no symbols (kptr_restrict hides kallsyms addresses from non-root)",
				 path);
	if (ret) {
		kt_symtab_free(tab);
		return ret;
	}
	kt_symtab_sort(tab);
	return 0;
}

int kt_symtab_load_vmlinux(struct kt_symtab *tab, const char *path,
			   struct kt_err *err)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	Elf *elf;
	int fd, ret = 0;
	bool found = false;

	memset(tab, 0, sizeof(*tab));
	if (kt_elf_open(path, &fd, &elf, err))
		return -err->code;
	if (!elf) {
		ret = kt_err_set(err, EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		found = true;
		data = elf_getdata(scn, NULL);
		n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
		for (i = 0; data && i < n && !ret; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			ret = kt_symtab_add(tab, &cap, sym.st_value, 0, name,
					    NULL, err);
		}
	}
	if (!ret && !found)
		ret = kt_err_set(err, EINVAL, "%s: no symbol table (stripped?)",
				 path);
out:
	kt_elf_close(fd, elf);
	if (ret) {
		kt_symtab_free(tab);
		return ret;
	}
	kt_symtab_sort(tab);
	return 0;
}

void kt_symtab_sort(struct kt_symtab *tab)
{
	/* a symbol table with no usable symbol leaves syms NULL */
	if (tab->nr)
		qsort(tab->syms, tab->nr, sizeof(*tab->syms), cmp_sym);
}

/* the module a region belongs to: "module:NAME[/rodata]" gives NAME */
static bool region_of_module(const struct kt_region_state *r,
			     const char *module)
{
	const char *name = r->name + strlen(KT_MODULE_PREFIX);
	size_t len = strcspn(name, "/");

	return strlen(module) == len && !strncmp(name, module, len);
}

size_t kt_symtab_drop_foreign(struct kt_symtab *tab,
			      const struct kt_state *st)
{
	size_t i, kept = 0, dropped;

	for (i = 0; i < tab->nr; i++) {
		struct kt_sym *s = &tab->syms[i];
		int r = s->module ? kt_state_region_at(st, s->addr +
							   (uint64_t)tab->slide) :
				    -1;

		if (r >= 0 && st->regions[r].module &&
		    !region_of_module(&st->regions[r], s->module)) {
			free(s->name);
			free(s->module);
			continue;
		}
		tab->syms[kept++] = *s;
	}
	dropped = tab->nr - kept;
	tab->nr = kept;
	return dropped;
}

void kt_symtab_free(struct kt_symtab *tab)
{
	size_t i;

	for (i = 0; i < tab->nr; i++) {
		free(tab->syms[i].name);
		free(tab->syms[i].module);
	}
	free(tab->syms);
	memset(tab, 0, sizeof(*tab));
}

uint64_t kt_symtab_addr(const struct kt_symtab *tab, const char *name)
{
	size_t i;

	for (i = 0; i < tab->nr; i++)
		if (!strcmp(tab->syms[i].name, name))
			return tab->syms[i].addr + tab->slide;
	return 0;
}

int kt_symtab_relocate(struct kt_symtab *tab, const char *name,
		       uint64_t addr, struct kt_err *err)
{
	uint64_t file_addr;

	tab->slide = 0;
	file_addr = kt_symtab_addr(tab, name);
	if (!file_addr)
		return kt_err_set(err, ENOENT, "symbol %s not in the symbol file",
				  name);
	tab->slide = (int64_t)(addr - file_addr);
	return 0;
}

const struct kt_sym *kt_symtab_lookup(const struct kt_symtab *tab,
				      uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = tab->nr;
	uint64_t file_addr = addr - (uint64_t)tab->slide;

	if (!tab->nr || file_addr < tab->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (tab->syms[mid].addr <= file_addr)
			lo = mid;
		else
			hi = mid;
	}
	*off = file_addr - tab->syms[lo].addr;
	return &tab->syms[lo];
}

void kt_symtab_format(const struct kt_symtab *tab, uint64_t addr, char *buf,
		      size_t len)
{
	const struct kt_sym *s;
	uint64_t off = 0;

	s = tab ? kt_symtab_lookup(tab, addr, &off) : NULL;
	/*
	 * past 1 MiB from a symbol is not that symbol's code: a module's
	 * address against a vmlinux's symbols, say
	 */
	if (s && off >= (1 << 20))
		s = NULL;
	if (s && s->module)
		snprintf(buf, len, "%s+0x%" PRIx64 " [%s]", s->name, off,
			 s->module);
	else if (s)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, off);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

int kt_elf_build_id(const char *path, char *buf, size_t len,
		    struct kt_err *err)
{
	Elf_Scn *scn = NULL;
	int fd, ret = -1;
	Elf *elf;

	if (kt_elf_open(path, &fd, &elf, err))
		return -err->code;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		GElf_Nhdr nhdr;
		size_t off = 0, name_off, desc_off, i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off,
						   &desc_off)) > 0) {
			const uint8_t *d = (const uint8_t *)data->d_buf + desc_off;
			const char *name = (const char *)data->d_buf + name_off;

			/* other owners (Xen, Linux) use type 3 as well */
			if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
			    memcmp(name, "GNU", 4) ||
			    nhdr.n_descsz * 2 + 1 > len)
				continue;
			for (i = 0; i < nhdr.n_descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", d[i]);
			ret = 0;
			goto out;
		}
	}
out:
	kt_elf_close(fd, elf);
	if (ret)
		return kt_err_set(err, EINVAL, "%s: no build id (not a vmlinux?)",
				  path);
	return 0;
}
