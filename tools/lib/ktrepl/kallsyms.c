// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms as the kernel's scripts/kallsyms.c writes it (kernel/kallsyms.c
 * reads it the same way):
 *
 *   kallsyms_names        per symbol its length in tokens, one byte, or
 *                         for 128 and more ("big" symbols, 6.1+) two:
 *                         the low 7 bits with 0x80 set, then the rest;
 *                         then that many token numbers
 *   kallsyms_token_table  256 NUL-terminated strings
 *   kallsyms_token_index  u16[256], where token n starts in the table
 *   kallsyms_offsets      s32[num_syms], in the same order as the names
 *   kallsyms_relative_base, kallsyms_num_syms
 *
 * A name expands to its type letter followed by the symbol. The tables
 * are read a window at a time and every length and index is checked
 * against what was read, so garbage costs an error and nothing else.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

const char *const kt_kallsyms_table_names[KT_KS_NR] = {
	[KT_KS_NAMES] = "kallsyms_names",
	[KT_KS_NUM_SYMS] = "kallsyms_num_syms",
	[KT_KS_TOKEN_TABLE] = "kallsyms_token_table",
	[KT_KS_TOKEN_INDEX] = "kallsyms_token_index",
	[KT_KS_OFFSETS] = "kallsyms_offsets",
	[KT_KS_RELATIVE_BASE] = "kallsyms_relative_base",
};

/* KSYM_NAME_LEN (6.1+): a name with its NUL; with the type letter, one more */
#define KS_NAME_LEN 512
/* scripts/kallsyms.c refuses names of more tokens than two bytes hold */
#define KS_MAX_TOKENS 0x3fff
/* the token table of a real kernel is a few hundred bytes */
#define KS_TOKEN_TABLE_MAX (64u << 10)
#define KS_WINDOW (64u << 10)

int kt_kva_pgtable_to_pa(void *arg, uint64_t va, uint64_t *pa,
			 uint64_t *contig, struct kt_err *err)
{
	const struct kt_kva_pgtable *pt = arg;
	struct kt_mapping m;

	if (kt_translate(pt->arch, pt->geo, pt->src, pt->root_pa, va, &m, err))
		return kt_err_wrap(err, "translating 0x%" PRIx64, va);
	if (!m.present)
		return kt_err_set(err, EFAULT,
				  "0x%" PRIx64 " is not mapped by the tables at 0x%" PRIx64,
				  va, pt->root_pa);
	*pa = m.pa;
	*contig = m.va + m.size - va;
	return 0;
}

/*
 * Bytes at kernel VA va: at least min of them, and up to max as long as
 * memory goes on (a window may stop where the mapping does). *got says
 * how many.
 */
static int read_kva(struct kt_memsrc *src, const struct kt_kva_map *map,
		    uint64_t va, uint8_t *buf, size_t min, size_t max,
		    size_t *got, struct kt_err *err)
{
	size_t done = 0;

	while (done < max) {
		uint64_t pa, contig;
		size_t n = 0;
		int ret;

		ret = map->to_pa(map->arg, va + done, &pa, &contig, err);
		if (!ret) {
			n = contig < max - done ? (size_t)contig : max - done;
			ret = kt_memsrc_read_phys(src, pa, buf + done, n, err);
		}
		if (ret) {
			if (done >= min) {
				kt_err_clear(err);
				break;
			}
			return ret;
		}
		done += n;
	}
	*got = done;
	return 0;
}

int kt_kva_read(struct kt_memsrc *src, const struct kt_kva_map *map,
		uint64_t va, void *buf, size_t len, struct kt_err *err)
{
	size_t got;

	return read_kva(src, map, va, buf, len, len, &got, err);
}

static uint64_t le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/*
 * The nearest start of another table above table t: no table runs into
 * the next one. 0 when t is the highest.
 */
static uint64_t next_table(const struct kt_kallsyms_layout *lay,
			   enum kt_kallsyms_table t)
{
	uint64_t next = 0;
	int i;

	for (i = 0; i < KT_KS_NR; i++)
		if (lay->va[i] > lay->va[t] && (!next || lay->va[i] < next))
			next = lay->va[i];
	return next;
}

/* how far table t may reach: to the next table, at most max bytes */
static uint64_t table_room(const struct kt_kallsyms_layout *lay,
			   enum kt_kallsyms_table t, uint64_t max)
{
	uint64_t next = next_table(lay, t);

	return next && next - lay->va[t] < max ? next - lay->va[t] : max;
}

struct ks_tokens {
	char *table;
	size_t len;
	uint16_t index[256];
};

static int read_tokens(struct ks_tokens *tok, struct kt_memsrc *src,
		       const struct kt_kva_map *map,
		       const struct kt_kallsyms_layout *lay, struct kt_err *err)
{
	uint64_t room = table_room(lay, KT_KS_TOKEN_TABLE, KS_TOKEN_TABLE_MAX);
	uint8_t raw[512];
	unsigned int i, highest = 0;
	int ret;

	ret = kt_kva_read(src, map, lay->va[KT_KS_TOKEN_INDEX], raw, sizeof(raw),
			 err);
	if (ret)
		return kt_err_wrap(err, "kallsyms_token_index");
	for (i = 0; i < 256; i++) {
		tok->index[i] = le(raw + 2 * i, 2);
		if (tok->index[i] >= room)
			return kt_err_set(err, ERANGE,
					  "kallsyms_token_index[%u] is %u, past the %" PRIu64 " bytes kallsyms_token_table may have",
					  i, tok->index[i], room);
		if (tok->index[i] > highest)
			highest = tok->index[i];
	}
	tok->table = malloc(room + 1);
	if (!tok->table)
		return kt_err_set(err, ENOMEM, "out of memory for kallsyms");
	ret = read_kva(src, map, lay->va[KT_KS_TOKEN_TABLE],
		       (uint8_t *)tok->table, highest + 1, room, &tok->len, err);
	if (ret)
		return kt_err_wrap(err, "kallsyms_token_table");
	tok->table[tok->len] = '\0';
	for (i = 0; i < 256; i++)
		if (!memchr(tok->table + tok->index[i], '\0',
			    tok->len - tok->index[i]))
			return kt_err_set(err, ERANGE,
					  "kallsyms token %u (at %u in kallsyms_token_table) has no end within its %zu bytes",
					  i, tok->index[i], tok->len);
	return 0;
}

/* kallsyms_names, read a window at a time, never past room */
struct ks_names {
	struct kt_memsrc *src;
	const struct kt_kva_map *map;
	uint64_t va;
	uint64_t room;
	uint8_t *win;
	uint64_t win_off;	/* of win[0] in the table */
	size_t win_len;
};

/* n bytes of the table from off, in the window (a pointer to them) */
static const uint8_t *names_at(struct ks_names *nm, uint64_t off, size_t n,
			       unsigned int sym, struct kt_err *err)
{
	size_t max;

	if (off >= nm->win_off && off + n <= nm->win_off + nm->win_len)
		return nm->win + (off - nm->win_off);
	if (off + n > nm->room) {
		kt_err_set(err, ERANGE,
			   "kallsyms_names: symbol %u at offset %" PRIu64 " runs past the table's %" PRIu64 " bytes",
			   sym, off, nm->room);
		return NULL;
	}
	max = nm->room - off < KS_WINDOW ? nm->room - off : KS_WINDOW;
	if (read_kva(nm->src, nm->map, nm->va + off, nm->win, n, max,
		     &nm->win_len, err)) {
		kt_err_wrap(err, "kallsyms_names: symbol %u at offset %" PRIu64,
			    sym, off);
		return NULL;
	}
	nm->win_off = off;
	return nm->win;
}

/*
 * Symbol sym at *off: its type letter and name into buf, *off moved past
 * it. The tokens were checked to end inside the token table.
 */
static int expand_name(struct ks_names *nm, const struct ks_tokens *tok,
		       unsigned int sym, uint64_t *off, char *buf,
		       struct kt_err *err)
{
	const uint8_t *p = names_at(nm, *off, 1, sym, err);
	unsigned int len, hdr = 1, i;
	size_t out = 0;

	if (!p)
		return -err->code;
	len = p[0];
	if (len & 0x80) {
		p = names_at(nm, *off, 2, sym, err);
		if (!p)
			return -err->code;
		len = (len & 0x7f) | (unsigned int)p[1] << 7;
		hdr = 2;
	}
	if (!len || len > KS_MAX_TOKENS)
		return kt_err_set(err, ERANGE,
				  "kallsyms_names: symbol %u at offset %" PRIu64 " has %u tokens",
				  sym, *off, len);
	p = names_at(nm, *off, hdr + len, sym, err);
	if (!p)
		return -err->code;
	for (i = 0; i < len; i++) {
		const char *t = tok->table + tok->index[p[hdr + i]];
		size_t tlen = strlen(t);

		if (out + tlen >= KS_NAME_LEN + 1)
			return kt_err_set(err, ERANGE,
					  "kallsyms_names: symbol %u at offset %" PRIu64 " expands past %d characters",
					  sym, *off, KS_NAME_LEN);
		memcpy(buf + out, t, tlen);
		out += tlen;
	}
	buf[out] = '\0';
	for (i = 0; i < out; i++)
		if (!isgraph((unsigned char)buf[i]))
			return kt_err_set(err, EINVAL,
					  "kallsyms_names: symbol %u at offset %" PRIu64 " has byte 0x%02x at %u",
					  sym, *off, (unsigned char)buf[i], i);
	if (!out)
		return kt_err_set(err, EINVAL,
				  "kallsyms_names: symbol %u at offset %" PRIu64 " is empty",
				  sym, *off);
	*off += hdr + len;
	return 0;
}

static uint64_t sym_address(const struct kt_kallsyms_layout *lay,
			    uint64_t base, int32_t off)
{
	if (!lay->absolute_percpu)
		return base + (uint32_t)off;
	if (off >= 0)
		return (uint64_t)off;
	return base - 1 - (uint64_t)(int64_t)off;
}

static int check_stext(const struct kt_symtab *tab,
		       const struct kt_kallsyms_layout *lay, struct kt_err *err)
{
	uint64_t got;

	if (!lay->stext)
		return 0;
	got = kt_symtab_addr(tab, "_stext");
	if (got != lay->stext)
		return kt_err_set(err, EINVAL,
				  "kallsyms gives _stext at 0x%" PRIx64 ", VMCOREINFO at 0x%" PRIx64 ": the offsets are not in the layout assumed (percpu symbols %s)",
				  got, lay->stext,
				  lay->absolute_percpu ? "absolute" : "relative");
	return 0;
}

static int decode(struct kt_symtab *tab, struct kt_memsrc *src,
		  const struct kt_kva_map *map,
		  const struct kt_kallsyms_layout *lay, struct ks_tokens *tok,
		  struct ks_names *nm, uint8_t **offsets, struct kt_err *err)
{
	char name[KS_NAME_LEN + 2];
	uint8_t raw[8];
	uint64_t base, next, names_off = 0;
	uint32_t nr, i;
	size_t cap = 0;
	int ret;

	ret = kt_kva_read(src, map, lay->va[KT_KS_NUM_SYMS], raw, 4, err);
	if (ret)
		return kt_err_wrap(err, "kallsyms_num_syms");
	nr = le(raw, 4);
	if (!nr || nr > KT_KALLSYMS_MAX_SYMS)
		return kt_err_set(err, ERANGE,
				  "kallsyms_num_syms is %u: want 1..%u", nr,
				  KT_KALLSYMS_MAX_SYMS);
	next = next_table(lay, KT_KS_OFFSETS);
	if (next && next - lay->va[KT_KS_OFFSETS] < (uint64_t)nr * 4)
		return kt_err_set(err, ERANGE,
				  "kallsyms_num_syms %u: kallsyms_offsets would run %" PRIu64 " bytes into the next table",
				  nr, (uint64_t)nr * 4 - (next - lay->va[KT_KS_OFFSETS]));
	ret = kt_kva_read(src, map, lay->va[KT_KS_RELATIVE_BASE], raw, 8, err);
	if (ret)
		return kt_err_wrap(err, "kallsyms_relative_base");
	base = le(raw, 8);
	ret = read_tokens(tok, src, map, lay, err);
	if (ret)
		return ret;
	*offsets = malloc((size_t)nr * 4);
	nm->win = malloc(KS_WINDOW);
	if (!*offsets || !nm->win)
		return kt_err_set(err, ENOMEM, "out of memory for kallsyms");
	ret = kt_kva_read(src, map, lay->va[KT_KS_OFFSETS], *offsets,
			 (size_t)nr * 4, err);
	if (ret)
		return kt_err_wrap(err, "kallsyms_offsets (%u symbols)", nr);
	nm->src = src;
	nm->map = map;
	nm->va = lay->va[KT_KS_NAMES];
	/* every name takes at least two bytes: its length and one token */
	nm->room = table_room(lay, KT_KS_NAMES,
			      (uint64_t)nr * (2 + KS_MAX_TOKENS));
	for (i = 0; i < nr; i++) {
		ret = expand_name(nm, tok, i, &names_off, name, err);
		if (ret)
			return ret;
		ret = kt_symtab_add(tab, &cap,
				    sym_address(lay, base,
						(int32_t)le(*offsets + 4 * i, 4)),
				    name[0], name + 1, NULL, err);
		if (ret)
			return ret;
	}
	kt_symtab_sort(tab);
	return check_stext(tab, lay, err);
}

int kt_kallsyms_load(struct kt_symtab *tab, struct kt_memsrc *src,
		     const struct kt_kva_map *map,
		     const struct kt_kallsyms_layout *lay, struct kt_err *err)
{
	struct ks_tokens tok = { 0 };
	struct ks_names nm = { 0 };
	uint8_t *offsets = NULL;
	int ret;

	memset(tab, 0, sizeof(*tab));
	ret = decode(tab, src, map, lay, &tok, &nm, &offsets, err);
	free(tok.table);
	free(nm.win);
	free(offsets);
	if (ret)
		kt_symtab_free(tab);
	return ret;
}

static int symbol_va(struct kt_memsrc *src, const char *name, uint64_t *va,
		     struct kt_err *err)
{
	char key[64], val[32], *end;
	int ret;

	snprintf(key, sizeof(key), "SYMBOL(%s)", name);
	ret = kt_memsrc_vmcoreinfo(src, key, val, sizeof(val), err);
	if (ret)
		return ret;
	*va = strtoull(val, &end, 16);
	if (end == val || *end || !*va)
		return kt_err_set(err, EINVAL, "VMCOREINFO %s=%s is not an address",
				  key, val);
	return 0;
}

int kt_kallsyms_layout_from_vmcoreinfo(struct kt_kallsyms_layout *lay,
				       struct kt_memsrc *src, const char *arch,
				       struct kt_err *err)
{
	uint64_t unused;
	int i, ret;

	memset(lay, 0, sizeof(*lay));
	for (i = 0; i < KT_KS_NR; i++) {
		ret = symbol_va(src, kt_kallsyms_table_names[i], &lay->va[i], err);
		if (ret == -ENOENT && i == KT_KS_OFFSETS &&
		    !symbol_va(src, "kallsyms_addresses", &unused, err))
			return kt_err_set(err, ENOTSUP,
					  "%s: kallsyms has absolute addresses (no CONFIG_KALLSYMS_BASE_RELATIVE), which this tool does not decode",
					  src->path);
		if (ret == -ENOENT)
			return kt_err_set(err, ENOENT,
					  "%s: VMCOREINFO has no SYMBOL(%s) (kernels before 6.0 do not say where kallsyms is)",
					  src->path, kt_kallsyms_table_names[i]);
		if (ret)
			return kt_err_wrap(err, "%s", src->path);
	}
	ret = symbol_va(src, "_stext", &lay->stext, err);
	if (ret && ret != -ENOENT)
		return kt_err_wrap(err, "%s", src->path);
	kt_err_clear(err);
	lay->absolute_percpu = !strcmp(arch, "x86_64");
	return 0;
}
