// SPDX-License-Identifier: GPL-2.0
/*
 * A vmlinux's text, its patch-site tables and its KASLR relocations
 * (vmlinux_reloc.c tells which differences those relocations explain).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "vmlinux_text.h"

const char *const kt_site_names[KT_SITE_NR] = {
	[KT_SITE_ALTERNATIVE] = "alternative",
	[KT_SITE_RETPOLINE] = "retpoline",
	[KT_SITE_RETURN_THUNK] = "return_thunk",
	[KT_SITE_PARAVIRT] = "paravirt",
	[KT_SITE_FTRACE] = "ftrace",
	[KT_SITE_JUMP_LABEL] = "jump_label",
	[KT_SITE_STATIC_CALL] = "static_call",
	[KT_SITE_LOCK_PREFIX] = "lock_prefix",
	[KT_SITE_ENDBR_SEAL] = "endbr_seal",
	[KT_SITE_RUNTIME_CONST] = "runtime_const",
};

/*
 * struct alt_instr: s32 instr_offset, s32 repl_offset, the CPU feature,
 * u8 instrlen, u8 replacementlen. 6.3 widened the feature from a u16 to
 * a u32 (ft_flags). The file's layout is the one under which every entry
 * points into .altinstr_replacement and pads its site to its replacement.
 */
static const struct kt_alt_layout alt_layouts[] = {
	{ .entry = 12, .instrlen = 10 },	/* up to 6.2 */
	{ .entry = 14, .instrlen = 12 },	/* 6.3 and later */
};

/* entry sizes of the other tables (x86_64, the same from 6.1 to 6.12) */
#define PARAVIRT_SITE_SIZE 16	/* u8 *instr, u8 type, u8 len */
#define JUMP_ENTRY_SIZE 16	/* s32 code, s32 target, long key */
#define STATIC_CALL_SITE_SIZE 8	/* s32 addr, s32 key */

#define R_X86_64_64 1
#define R_X86_64_PC32 2
#define R_X86_64_32 10
#define R_X86_64_32S 11

int kt_vmlinux_read(const struct kt_vmlinux *v, uint64_t va, void *buf,
		    size_t len, struct kt_err *err)
{
	size_t i;

	for (i = 0; i < v->nr_secs; i++) {
		const struct kt_vmlinux_section *s = &v->secs[i];

		if (va < s->addr || va + len > s->addr + s->size)
			continue;
		if (pread(v->fd, buf, len, (off_t)(s->offset + (va - s->addr))) !=
		    (ssize_t)len)
			return kt_err_set(err, EIO, "%s: short read at 0x%" PRIx64,
					  v->path, va);
		return 0;
	}
	return kt_err_set(err, ENOENT, "%s: no section holds 0x%" PRIx64 "+%zu",
			  v->path, va, len);
}

static int add_site(struct kt_vmlinux *v, uint64_t va, uint32_t len,
		    enum kt_site_kind kind, struct kt_err *err)
{
	if (va < v->stext || va >= v->etext || !len)
		return 0;	/* init text and friends: freed by now */
	if (v->nr_sites == v->sites_cap) {
		size_t n = v->sites_cap ? v->sites_cap * 2 : 4096;
		struct kt_site *grown = realloc(v->sites, n * sizeof(*grown));

		if (!grown)
			return kt_err_set(err, ENOMEM, "out of memory");
		v->sites = grown;
		v->sites_cap = n;
	}
	v->sites[v->nr_sites++] = (struct kt_site){ va, len, kind };
	return 0;
}

struct table {
	uint64_t start;
	uint64_t end;
};

/*
 * A table's bytes, from a section or a __start_/__stop_ symbol pair.
 * An absent or empty table is no error: *buf stays NULL, *n 0.
 */
static int read_table(struct kt_vmlinux *v, const struct table *t,
		      size_t entry, uint8_t **buf, size_t *n,
		      struct kt_err *err)
{
	*buf = NULL;
	*n = 0;
	if (!t->start || t->end <= t->start)
		return 0;
	if ((t->end - t->start) % entry)
		return kt_err_set(err, EPROTO,
				  "%s: a table at 0x%" PRIx64 " is not made of %zu-byte entries; not a Linux 6.1 to 6.12 x86_64 vmlinux?",
				  v->path, t->start, entry);
	*buf = malloc(t->end - t->start);
	if (!*buf)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (kt_vmlinux_read(v, t->start, *buf, t->end - t->start, err)) {
		free(*buf);
		*buf = NULL;
		return -err->code;
	}
	*n = (t->end - t->start) / entry;
	return 0;
}

static int32_t s32_at(const uint8_t *p)
{
	int32_t x;

	memcpy(&x, p, 4);
	return x;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

/* how long the jump, call or NOP at va is in the file */
static uint32_t insn_len(struct kt_vmlinux *v, uint64_t va)
{
	uint8_t b[2];
	struct kt_err err;

	if (kt_vmlinux_read(v, va, b, 2, &err))
		return 5;
	return kt_arch_x86_64.branch_len(b);
}

/*
 * Where one entry of a table says a site is and how long it is; at is the
 * entry's own link-time address (for self-relative offsets).
 */
typedef void (*site_decode_fn)(struct kt_vmlinux *v, uint64_t at,
			       const uint8_t *e, uint64_t *va, uint32_t *len);

static void decode_alt(struct kt_vmlinux *v, uint64_t at, const uint8_t *e,
		       uint64_t *va, uint32_t *len)
{
	*va = at + s32_at(e);
	*len = e[v->alt->instrlen];
}

/* struct paravirt_patch_site: u8 *instr, u8 type, u8 len */
static void decode_paravirt(struct kt_vmlinux *v, uint64_t at,
			    const uint8_t *e, uint64_t *va, uint32_t *len)
{
	*va = u64_at(e);
	*len = e[9];
}

/* __mcount_loc: the absolute address of each 5-byte fentry call */
static void decode_mcount(struct kt_vmlinux *v, uint64_t at, const uint8_t *e,
			  uint64_t *va, uint32_t *len)
{
	*va = u64_at(e);
	*len = 5;
}

/* a self-relative s32 to a jump, call or NOP, as long as the file has it */
static void decode_rel_branch(struct kt_vmlinux *v, uint64_t at,
			      const uint8_t *e, uint64_t *va, uint32_t *len)
{
	*va = at + s32_at(e);
	*len = insn_len(v, *va);
}

/* a self-relative s32 to a site of the table's fixed length */
static void decode_rel(struct kt_vmlinux *v, uint64_t at, const uint8_t *e,
		       uint64_t *va, uint32_t *len)
{
	*va = at + s32_at(e);
}

/*
 * Every patch-site table the kernel walks, found by section name or by a
 * __start_/__stop_ symbol pair, with its entry size and decoder, and the
 * length of its sites where the entry does not say it.
 */
static const struct site_table {
	const char *section;
	const char *start_sym, *stop_sym;
	size_t entry;
	site_decode_fn decode;
	enum kt_site_kind kind;
	uint32_t len;
} site_tables[] = {
	/* entry 0: the file's alt_layouts[] entry; len 0: the decoder's */
	{ ".altinstructions", NULL, NULL, 0, decode_alt, KT_SITE_ALTERNATIVE, 0 },
	{ ".retpoline_sites", NULL, NULL, 4, decode_rel_branch,
	  KT_SITE_RETPOLINE, 0 },
	{ ".return_sites", NULL, NULL, 4, decode_rel_branch,
	  KT_SITE_RETURN_THUNK, 0 },
	{ ".parainstructions", NULL, NULL, PARAVIRT_SITE_SIZE, decode_paravirt,
	  KT_SITE_PARAVIRT, 0 },
	/* a lock prefix; an ENDBR64 */
	{ ".smp_locks", NULL, NULL, 4, decode_rel, KT_SITE_LOCK_PREFIX, 1 },
	{ ".ibt_endbr_seal", NULL, NULL, 4, decode_rel, KT_SITE_ENDBR_SEAL, 4 },
	{ NULL, "__start_mcount_loc", "__stop_mcount_loc", 8, decode_mcount,
	  KT_SITE_FTRACE, 0 },
	{ NULL, "__start___jump_table", "__stop___jump_table", JUMP_ENTRY_SIZE,
	  decode_rel_branch, KT_SITE_JUMP_LABEL, 0 },
	/* a 5-byte call (the key's flags are elsewhere) */
	{ NULL, "__start_static_call_sites", "__stop_static_call_sites",
	  STATIC_CALL_SITE_SIZE, decode_rel, KT_SITE_STATIC_CALL, 5 },
};

#define NR_SITE_TABLES (sizeof(site_tables) / sizeof(site_tables[0]))

/* does every entry of the table fit this struct alt_instr layout? */
static bool alt_layout_fits(const struct kt_alt_layout *l,
			    const struct table *t, const struct table *repl,
			    const uint8_t *b)
{
	uint64_t size = t->end - t->start, i;

	if (size % l->entry)
		return false;
	for (i = 0; i < size / l->entry; i++) {
		const uint8_t *e = b + i * l->entry;
		uint64_t to = t->start + i * l->entry + 4 + s32_at(e + 4);
		uint8_t instrlen = e[l->instrlen], repllen = e[l->instrlen + 1];

		if (to < repl->start || to + repllen > repl->end ||
		    instrlen < repllen)
			return false;
	}
	return true;
}

static int choose_alt_layout(struct kt_vmlinux *v, const struct table *t,
			     const struct table *repl, struct kt_err *err)
{
	uint64_t size = t->end - t->start;
	uint8_t *b;
	size_t i;

	v->alt = &alt_layouts[0];
	if (!t->start || t->end <= t->start)
		return 0;
	b = malloc(size);
	if (!b)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (kt_vmlinux_read(v, t->start, b, size, err)) {
		free(b);
		return -err->code;
	}
	for (i = 0; i < sizeof(alt_layouts) / sizeof(alt_layouts[0]); i++)
		if (alt_layout_fits(&alt_layouts[i], t, repl, b))
			break;
	free(b);
	if (i == sizeof(alt_layouts) / sizeof(alt_layouts[0]))
		return kt_err_set(err, EPROTO,
				  "%s: .altinstructions fits no struct alt_instr layout known (Linux 6.1 to 6.12)",
				  v->path);
	v->alt = &alt_layouts[i];
	return 0;
}

static int load_table_sites(struct kt_vmlinux *v, const struct site_table *st,
			    const struct table *t, struct kt_err *err)
{
	size_t entry = st->entry ? st->entry : v->alt->entry, n, i;
	uint8_t *b;
	int ret;

	ret = read_table(v, t, entry, &b, &n, err);
	for (i = 0; i < n && !ret; i++) {
		uint64_t va;
		uint32_t len = st->len;

		st->decode(v, t->start + i * entry, b + i * entry, &va, &len);
		ret = add_site(v, va, len, st->kind, err);
	}
	free(b);
	return ret;
}

static int load_sites(struct kt_vmlinux *v, const struct table *tables,
		      struct kt_err *err)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < NR_SITE_TABLES && !ret; i++)
		ret = load_table_sites(v, &site_tables[i], &tables[i], err);
	return ret;
}

/*
 * runtime_ptr_SYM and runtime_shift_SYM (6.11+): one section per
 * constant, each a table of self-relative s32s to the immediates the
 * boot sets (runtime_const_init()).
 */
static const struct runtime_const_table {
	const char *prefix;
	uint32_t len;
} runtime_const_tables[] = {
	{ "runtime_ptr_", 8 },		/* a mov's 8-byte immediate */
	{ "runtime_shift_", 1 },	/* a shift's count */
};

static int load_runtime_const_sites(struct kt_vmlinux *v, size_t shstrndx,
				    struct kt_err *err)
{
	Elf_Scn *scn = NULL;
	size_t i;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(v->elf, scn))) {
		const char *name;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(v->elf, shstrndx, shdr.sh_name);
		for (i = 0; name && i < sizeof(runtime_const_tables) /
					       sizeof(runtime_const_tables[0]);
		     i++) {
			const struct runtime_const_table *rc =
				&runtime_const_tables[i];
			struct site_table st = { .entry = 4,
						 .decode = decode_rel,
						 .kind = KT_SITE_RUNTIME_CONST,
						 .len = rc->len };
			struct table t = { shdr.sh_addr,
					   shdr.sh_addr + shdr.sh_size };

			if (!strncmp(name, rc->prefix, strlen(rc->prefix)))
				ret = load_table_sites(v, &st, &t, err);
		}
	}
	return ret;
}

static int cmp_site(const void *a, const void *b)
{
	const struct kt_site *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct kt_reloc *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

static int load_relocs(struct kt_vmlinux *v, Elf_Scn *scn,
		       const GElf_Shdr *shdr, size_t *cap, struct kt_err *err)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i;

	if (!data)
		return 0;
	n = shdr->sh_size / (shdr->sh_entsize ? shdr->sh_entsize : 24);
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		uint8_t size;
		int8_t sign;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		switch (GELF_R_TYPE(r.r_info)) {
		case R_X86_64_64:
			size = 8;
			sign = 1;
			break;
		case R_X86_64_32:
		case R_X86_64_32S:
			size = 4;
			sign = 1;
			break;
		case R_X86_64_PC32:
			size = 4;	/* shifted the other way for per-CPU data */
			sign = -1;
			break;
		default:
			continue;
		}
		if (r.r_offset < v->stext || r.r_offset >= v->etext)
			continue;
		if (v->nr_relocs == *cap) {
			size_t c = *cap ? *cap * 2 : 65536;
			struct kt_reloc *grown = realloc(v->relocs, c * sizeof(*grown));

			if (!grown)
				return kt_err_set(err, ENOMEM, "out of memory");
			v->relocs = grown;
			*cap = c;
		}
		v->relocs[v->nr_relocs++] = (struct kt_reloc){ r.r_offset, size,
							       sign };
	}
	return 0;
}

static void note_symbol(const char *name, uint64_t value, struct table *t,
			struct kt_vmlinux *v)
{
	size_t i;

	if (!strcmp(name, "_stext"))
		v->stext = value;
	else if (!strcmp(name, "_etext"))
		v->etext = value;
	for (i = 0; i < NR_SITE_TABLES; i++) {
		if (!site_tables[i].start_sym)
			continue;
		if (!strcmp(name, site_tables[i].start_sym))
			t[i].start = value;
		else if (!strcmp(name, site_tables[i].stop_sym))
			t[i].end = value;
	}
}

static int scan_symbols(struct kt_vmlinux *v, struct table *t,
			struct kt_err *err)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t n, i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		n = data && shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(v->elf, shdr.sh_link, sym.st_name);
			if (name)
				note_symbol(name, sym.st_value, t, v);
		}
		/*
		 * Once the text bounds are known: static call trampolines, and
		 * the calls in ftrace's own trampolines that it points at the
		 * current tracer.
		 */
		for (i = 0; i < n && v->etext; i++) {
			GElf_Sym sym;
			const char *name;
			int ret = 0;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(v->elf, shdr.sh_link, sym.st_name);
			if (!name)
				continue;
			if (!strncmp(name, "__SCT__", 7))
				ret = add_site(v, sym.st_value,
					       sym.st_size ? sym.st_size : 8,
					       KT_SITE_STATIC_CALL, err);
			else if (!strcmp(name, "ftrace_call") ||
				 !strcmp(name, "ftrace_regs_call") ||
				 !strcmp(name, "ftrace_graph_call"))
				ret = add_site(v, sym.st_value, 5, KT_SITE_FTRACE,
					       err);
			if (ret)
				return ret;
		}
	}
	if (!v->stext || v->etext <= v->stext)
		return kt_err_set(err, ENOENT,
				  "%s: no _stext/_etext in its symbol table (stripped?)",
				  v->path);
	return 0;
}

int kt_vmlinux_open(struct kt_vmlinux *v, const char *path,
		    struct kt_err *err)
{
	struct table tables[NR_SITE_TABLES] = { 0 }, alt_repl = { 0 };
	size_t reloc_cap = 0, shstrndx, i;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	int ret;

	memset(v, 0, sizeof(*v));
	v->path = path;
	ret = kt_elf_open(path, &v->fd, &v->elf, err);
	if (ret)
		return ret;
	if (!v->elf || !gelf_getehdr(v->elf, &ehdr) || ehdr.e_type != ET_EXEC) {
		kt_vmlinux_close(v);
		return kt_err_set(err, EINVAL, "%s: not a vmlinux (ELF executable)",
				  path);
	}
	if (ehdr.e_machine != EM_X86_64) {
		kt_vmlinux_close(v);
		return kt_err_set(err, ENOTSUP,
				  "%s: comparing text with the file is implemented for x86_64 only",
				  path);
	}
	elf_getshdrstrndx(v->elf, &shstrndx);
	v->secs = calloc(ehdr.e_shnum ? ehdr.e_shnum : 1, sizeof(*v->secs));
	if (!v->secs) {
		kt_vmlinux_close(v);
		return kt_err_set(err, ENOMEM, "out of memory");
	}
	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(v->elf, shstrndx, shdr.sh_name);
		if (shdr.sh_type == SHT_PROGBITS && (shdr.sh_flags & SHF_ALLOC))
			v->secs[v->nr_secs++] = (struct kt_vmlinux_section){
				shdr.sh_addr, shdr.sh_size, shdr.sh_offset
			};
		if (name && !strcmp(name, ".altinstr_replacement"))
			alt_repl = (struct table){ shdr.sh_addr,
						   shdr.sh_addr + shdr.sh_size };
		for (i = 0; name && i < NR_SITE_TABLES; i++)
			if (site_tables[i].section &&
			    !strcmp(name, site_tables[i].section))
				tables[i] = (struct table){
					shdr.sh_addr, shdr.sh_addr + shdr.sh_size
				};
	}
	ret = scan_symbols(v, tables, err);
	scn = NULL;
	while (!ret && (scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA)
			continue;
		name = elf_strptr(v->elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".rela.text"))
			ret = load_relocs(v, scn, &shdr, &reloc_cap, err);
	}
	v->relocs_inferred = !v->nr_relocs;
	if (!ret)
		ret = choose_alt_layout(v, &tables[0], &alt_repl, err);
	if (!ret)
		ret = load_sites(v, tables, err);
	if (!ret)
		ret = load_runtime_const_sites(v, shstrndx, err);
	if (ret) {
		kt_vmlinux_close(v);
		return ret;
	}
	/* qsort() must not see the NULL of an empty table */
	if (v->nr_sites)
		qsort(v->sites, v->nr_sites, sizeof(*v->sites), cmp_site);
	if (v->nr_relocs)
		qsort(v->relocs, v->nr_relocs, sizeof(*v->relocs), cmp_reloc);
	return 0;
}

void kt_vmlinux_close(struct kt_vmlinux *v)
{
	if (v->fd > 0 || v->elf)
		kt_elf_close(v->fd, v->elf);
	free(v->secs);
	free(v->sites);
	free(v->relocs);
	v->elf = NULL;
	v->fd = -1;
	v->secs = NULL;
	v->sites = NULL;
	v->relocs = NULL;
}

const struct kt_site *kt_vmlinux_site(const struct kt_vmlinux *v, uint64_t va)
{
	size_t lo = 0, hi = v->nr_sites;
	const struct kt_site *best = NULL;

	/* the last site starting at or before va; sites are short */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->sites[mid].va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct kt_site *s = &v->sites[--lo];

		if (va - s->va >= 64)
			break;
		if (va < s->va + s->len && (!best || s->len > best->len))
			best = s;
	}
	return best;
}
