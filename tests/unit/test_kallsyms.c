// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms decoder on real kernels' tables (fixtures/kallsyms/, cut
 * from guest dumps by tests/vm/capture-kallsyms.py: the first K symbols
 * of each table), checked against names, types and addresses from a
 * source that is not the tables (nm on the -dbg vmlinux, the guest's
 * /proc/kallsyms); then damaged copies of them, each an error naming what
 * is wrong; then the "big" (two-byte) length on a table made here.
 *
 * With --vmcore CORE --expect FILE [--subset] it decodes a whole dump
 * instead and compares every symbol with FILE ("addr type name" lines):
 * the capture script's check of complete tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "kallsyms.h"
#include "fixture_path.h"
#include "tap.h"

/* the Makefile says where the fixtures are from the test binary */

static const char *const fixtures[] = {
	"x86_64-6.1.0-50-cloud-amd64",
	"arm64-6.1.0-50-cloud-arm64",
	"x86_64-6.12.117+deb12-cloud-amd64",
	"arm64-6.12.117+deb12-arm64-16k",
};

/*
 * Memory that holds the tables and nothing else: each table's bytes at
 * its VA, and VA = PA (the translation a dump needs is the page-table
 * walkers', tested on their own).
 */
struct seg {
	uint64_t va;
	size_t len;
	uint8_t *bytes;
};

struct fake {
	struct seg segs[KT_KS_NR + 2];
	int nr;
	char vmcoreinfo[4096];
	char arch[16];
	unsigned int k;
};

static const struct seg *seg_at(const struct fake *f, uint64_t va)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (va >= f->segs[i].va && va < f->segs[i].va + f->segs[i].len)
			return &f->segs[i];
	return NULL;
}

static int fake_read(struct kt_memsrc *src, uint64_t pa, void *buf,
		     size_t len, struct kt_err *err)
{
	const struct seg *s = seg_at(src->priv, pa);

	if (!s || pa + len > s->va + s->len)
		return kt_err_set(err, KT_MEM_ABSENT, "0x%" PRIx64 "+%zu is not in the fixture",
				  pa, len);
	memcpy(buf, s->bytes + (pa - s->va), len);
	return 0;
}

static int fake_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			   size_t len, struct kt_err *err)
{
	struct fake *f = src->priv;

	return kt_vmcoreinfo_lookup(f->vmcoreinfo, key, val, len, err);
}

static const struct kt_memsrc_ops fake_ops = {
	.name = "fixture",
	.read_phys = fake_read,
	.vmcoreinfo = fake_vmcoreinfo,
};

static int identity(void *arg, uint64_t va, uint64_t *pa, uint64_t *contig,
		    struct kt_err *err)
{
	const struct seg *s = seg_at(arg, va);

	if (!s)
		return kt_err_set(err, EFAULT, "0x%" PRIx64 " is not mapped", va);
	*pa = va;
	*contig = s->va + s->len - va;
	return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	buf = fstat(fd, &sb) ? NULL : malloc(sb.st_size + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, sb.st_size) != sb.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	buf[sb.st_size] = '\0';
	*len = sb.st_size;
	return buf;
}

static void fake_free(struct fake *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		free(f->segs[i].bytes);
	f->nr = 0;
}

/* dir/<table>.bin at the VA dir/vmcoreinfo gives the table */
static int fake_load(struct fake *f, const char *dir)
{
	char path[PATH_MAX + 256], *text, *p;
	size_t len;
	int i;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/vmcoreinfo", dir);
	text = (char *)slurp(path, &len);
	if (!text || len >= sizeof(f->vmcoreinfo)) {
		free(text);
		return -1;
	}
	memcpy(f->vmcoreinfo, text, len + 1);
	free(text);
	snprintf(path, sizeof(path), "%s/info", dir);
	text = (char *)slurp(path, &len);
	if (!text)
		return -1;
	p = strstr(text, "arch=");
	if (p)
		sscanf(p, "arch=%15s", f->arch);
	p = strstr(text, "k=");
	if (p)
		sscanf(p, "k=%u", &f->k);
	free(text);
	for (i = 0; i < KT_KS_NR; i++) {
		char key[64], val[32];
		struct kt_err err;
		struct seg *s = &f->segs[f->nr];

		snprintf(key, sizeof(key), "SYMBOL(%s)",
			 kt_kallsyms_table_names[i]);
		if (kt_vmcoreinfo_lookup(f->vmcoreinfo, key, val, sizeof(val),
					 &err))
			return -1;
		s->va = strtoull(val, NULL, 16);
		snprintf(path, sizeof(path), "%s/%s.bin", dir,
			 kt_kallsyms_table_names[i]);
		s->bytes = slurp(path, &s->len);
		if (!s->bytes)
			return -1;
		f->nr++;
	}
	return 0;
}

static struct seg *fake_table(struct fake *f, enum kt_kallsyms_table t)
{
	return &f->segs[t];
}

static int fake_decode(struct fake *f, struct kt_symtab *tab,
		       struct kt_err *err)
{
	struct kt_memsrc *src = kt_memsrc_new(&fake_ops, f, "fixture");
	struct kt_kva_map map = { identity, f };
	struct kt_kallsyms_layout lay;
	int ret;

	kt_err_clear(err);
	ret = kt_kallsyms_layout_from_vmcoreinfo(&lay, src, f->arch, err);
	if (!ret)
		ret = kt_kallsyms_load(tab, src, &map, &lay, err);
	kt_memsrc_close(src);
	return ret;
}

struct want {
	uint64_t addr;
	char type;
	char name[512];
};

static bool has_sym(const struct kt_symtab *tab, const struct want *w)
{
	size_t i;

	for (i = 0; i < tab->nr; i++)
		if (tab->syms[i].addr == w->addr &&
		    tab->syms[i].type == w->type &&
		    !strcmp(tab->syms[i].name, w->name))
			return true;
	return false;
}

static void check_expected(const char *name, const char *dir,
			   const struct kt_symtab *tab)
{
	char path[PATH_MAX + 256], line[600];
	unsigned int want = 0, got = 0;
	struct want w;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/expected", dir);
	fp = fopen(path, "r");
	if (!fp) {
		tap_ok(0, "%s: expected symbols in %s", name, path);
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long addr;

		if (sscanf(line, "%llx %c %511s", &addr, &w.type, w.name) != 3)
			continue;
		w.addr = addr;
		want++;
		if (has_sym(tab, &w))
			got++;
		else
			printf("# missing: %016" PRIx64 " %c %s\n", w.addr,
			       w.type, w.name);
	}
	fclose(fp);
	tap_ok(want > 0 && got == want,
	       "%s: every symbol the independent source names is decoded with its address and type (got %u, want %u)",
	       name, got, want);
}

/* a damaged copy of fixture f must fail with an error containing want */
static void damaged(const char *name, const char *what, struct fake *f,
		    const char *want)
{
	struct kt_symtab tab;
	struct kt_err err;
	int ret = fake_decode(f, &tab, &err);

	tap_ok(ret < 0 && strstr(err.msg, want),
	       "%s, %s: an error that says so (got \"%s\", want \"%s\")",
	       name, what, ret < 0 ? err.msg : "no error", want);
	if (!ret)
		kt_symtab_free(&tab);
}

static void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	while (bytes--) {
		*p++ = v & 0xff;
		v >>= 8;
	}
}

/* byte length of the first n names in a names table */
static size_t names_len(const uint8_t *names, size_t len, unsigned int n)
{
	size_t off = 0;

	while (n-- && off < len) {
		unsigned int l = names[off];

		if (l & 0x80)
			off += 2 + ((l & 0x7f) | names[off + 1] << 7);
		else
			off += 1 + l;
	}
	return off;
}

static void damage_tests(const char *name, const char *dir)
{
	struct fake f;
	struct seg *s;
	size_t full, cut;

	if (fake_load(&f, dir))
		return;
	/* the last name cut short: the table ends inside it */
	s = fake_table(&f, KT_KS_NAMES);
	full = s->len;
	cut = names_len(s->bytes, full, f.k - 1);
	s->len = cut + 1;
	damaged(name, "kallsyms_names cut inside the last name", &f,
		"kallsyms_names: symbol");
	s->len = full;
	/* a length byte of 0 */
	s->bytes[names_len(s->bytes, full, f.k / 2)] = 0;
	damaged(name, "a zero name length", &f, "has 0 tokens");
	fake_free(&f);

	if (fake_load(&f, dir))
		return;
	/* a token starts past the token table */
	s = fake_table(&f, KT_KS_TOKEN_INDEX);
	put_le(s->bytes + 2 * 77, 0xfff0, 2);
	damaged(name, "kallsyms_token_index[77] out of range", &f,
		"kallsyms_token_index[77] is 65520");
	fake_free(&f);

	if (fake_load(&f, dir))
		return;
	/* the last token loses its NUL: it would run off the table */
	s = fake_table(&f, KT_KS_TOKEN_TABLE);
	while (s->len && s->bytes[s->len - 1] == '\0')
		s->len--;
	damaged(name, "kallsyms_token_table cut before its last NUL", &f,
		"has no end");
	fake_free(&f);

	if (fake_load(&f, dir))
		return;
	s = fake_table(&f, KT_KS_NUM_SYMS);
	put_le(s->bytes, 0xffffffffu, 4);
	damaged(name, "kallsyms_num_syms 0xffffffff", &f,
		"kallsyms_num_syms is 4294967295");
	/* more symbols than kallsyms_offsets has room for before the next table */
	put_le(s->bytes, KT_KALLSYMS_MAX_SYMS, 4);
	damaged(name, "kallsyms_num_syms past the offsets' room", &f,
		"kallsyms_offsets would run");
	/* one more symbol than the fixture holds: names end early */
	put_le(s->bytes, f.k + 1, 4);
	damaged(name, "one symbol more than the tables hold", &f,
		"kallsyms_offsets");
	fake_free(&f);

	if (fake_load(&f, dir))
		return;
	/* percpu read the other way: _stext lands elsewhere */
	strcpy(f.arch, strcmp(f.arch, "x86_64") ? "x86_64" : "arm64");
	damaged(name, "offsets read with the other percpu rule", &f,
		"VMCOREINFO at");
	fake_free(&f);

	if (fake_load(&f, dir))
		return;
	/* kernels before 6.0 export no table */
	*strstr(f.vmcoreinfo, "SYMBOL(kallsyms_names)") = 'X';
	damaged(name, "VMCOREINFO without SYMBOL(kallsyms_names)", &f,
		"VMCOREINFO has no SYMBOL(kallsyms_names)");
	fake_free(&f);
}

static void fixture_tests(const char *name)
{
	char dir[PATH_MAX];
	struct kt_symtab tab;
	struct kt_err err;
	struct fake f;
	size_t i;
	bool sorted = true;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_path("kallsyms"), name);
	if (access(dir, R_OK)) {
		tap_ok(0, "%s: fixture at %s (tests/vm/capture-kallsyms.py --write makes it)",
		       name, dir);
		return;
	}
	ret = fake_load(&f, dir);
	tap_ok(!ret && f.k && f.arch[0], "%s: fixture loads (%u symbols, %s)",
	       name, f.k, f.arch);
	if (ret)
		return;
	ret = fake_decode(&f, &tab, &err);
	tap_ok(!ret && tab.nr == f.k,
	       "%s: the tables decode (got %zu symbols, want %u) %s", name,
	       ret ? 0 : tab.nr, f.k, ret ? err.msg : "");
	fake_free(&f);
	if (ret)
		return;
	for (i = 1; i < tab.nr; i++)
		sorted &= tab.syms[i - 1].addr <= tab.syms[i].addr;
	tap_ok(sorted && kt_symtab_addr(&tab, "_stext"),
	       "%s: sorted by address, _stext among them (0x%" PRIx64 ")",
	       name, kt_symtab_addr(&tab, "_stext"));
	check_expected(name, dir, &tab);
	kt_symtab_free(&tab);
	damage_tests(name, dir);
}

/*
 * A table made here, for what no real kernel's table has: a name of 200
 * tokens, whose length takes two bytes (0xc8 0x01), between two small
 * ones, with relative (arm64) addresses.
 */
#define SYN_BASE UINT64_C(0xffff800008000000)

static void big_symbol_test(void)
{
	static uint8_t names[512], tokens[600], index[512], offsets[12];
	static uint8_t base[8], num[4];
	char big[256], stext[] = "T_stext";
	struct kt_symtab tab;
	struct kt_err err;
	struct fake f;
	size_t n = 0, t = 0;
	int i;

	memset(&f, 0, sizeof(f));
	strcpy(f.arch, "arm64");
	/* token i: the single character i, "T" and "_" among them */
	for (i = 0; i < 256; i++) {
		put_le(index + 2 * i, t, 2);
		tokens[t++] = i ? i : 'x';
		tokens[t++] = '\0';
	}
	/* _stext */
	names[n++] = strlen(stext);
	for (i = 0; stext[i]; i++)
		names[n++] = stext[i];
	/* "t" and 199 a's */
	names[n++] = 0x80 | (200 & 0x7f);
	names[n++] = 200 >> 7;
	names[n++] = 't';
	for (i = 0; i < 199; i++)
		names[n++] = 'a';
	memset(big, 'a', 199);
	big[199] = '\0';
	/* "tz" */
	names[n++] = 2;
	names[n++] = 't';
	names[n++] = 'z';
	put_le(offsets, 0, 4);
	put_le(offsets + 4, 0x10, 4);
	put_le(offsets + 8, 0x20, 4);
	put_le(base, SYN_BASE, 8);
	put_le(num, 3, 4);
	snprintf(f.vmcoreinfo, sizeof(f.vmcoreinfo),
		 "SYMBOL(kallsyms_offsets)=ffff800009000000\n"
		 "SYMBOL(kallsyms_relative_base)=ffff800009000010\n"
		 "SYMBOL(kallsyms_num_syms)=ffff800009000018\n"
		 "SYMBOL(kallsyms_names)=ffff800009000020\n"
		 "SYMBOL(kallsyms_token_table)=ffff800009001000\n"
		 "SYMBOL(kallsyms_token_index)=ffff800009002000\n"
		 "SYMBOL(_stext)=%" PRIx64 "\n", SYN_BASE);
	f.segs[KT_KS_OFFSETS] = (struct seg){ 0xffff800009000000ull, 12, offsets };
	f.segs[KT_KS_RELATIVE_BASE] = (struct seg){ 0xffff800009000010ull, 8, base };
	f.segs[KT_KS_NUM_SYMS] = (struct seg){ 0xffff800009000018ull, 4, num };
	f.segs[KT_KS_NAMES] = (struct seg){ 0xffff800009000020ull, n, names };
	f.segs[KT_KS_TOKEN_TABLE] = (struct seg){ 0xffff800009001000ull, t, tokens };
	f.segs[KT_KS_TOKEN_INDEX] = (struct seg){ 0xffff800009002000ull, 512, index };
	f.nr = KT_KS_NR;
	if (fake_decode(&f, &tab, &err)) {
		tap_ok(0, "synthetic big symbol: decodes (%s)", err.msg);
	} else {
		tap_ok(tab.nr == 3 && tab.syms[1].addr == SYN_BASE + 0x10 &&
		       tab.syms[1].type == 't' && !strcmp(tab.syms[1].name, big) &&
		       !strcmp(tab.syms[2].name, "z"),
		       "synthetic big symbol: a 200-token name (length 0xc8 0x01) decodes, and the name after it (got %zu symbols, second %zu chars, third %s)",
		       tab.nr, tab.nr > 1 ? strlen(tab.syms[1].name) : 0,
		       tab.nr > 2 ? tab.syms[2].name : "-");
		kt_symtab_free(&tab);
	}
	/* its second length byte says 0x3f80 more tokens than the table has */
	names[strlen(stext) + 2] = 0x7f;
	damaged("synthetic big symbol", "a two-byte length past the table", &f,
		"runs past the table");
	names[strlen(stext) + 2] = 200 >> 7;
	/* the type letter and a name are all there is to a symbol */
	names[strlen(stext) + 1] = 1;
	names[strlen(stext) + 2] = 0x01;
	damaged("synthetic big symbol", "a token that expands to a control byte",
		&f, "has byte 0x01");
}

/* --vmcore CORE --expect FILE [--subset]: a whole dump's tables */
struct line {
	uint64_t addr;
	char type;
	char *name;
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->type != y->type)
		return x->type - y->type;
	return strcmp(x->name, y->name);
}

static struct line *read_lines(const char *path, size_t *nr)
{
	char buf[700], name[600], type;
	size_t cap = 0;
	struct line *l = NULL;
	unsigned long long addr;
	FILE *fp = fopen(path, "r");

	*nr = 0;
	if (!fp)
		return NULL;
	while (fgets(buf, sizeof(buf), fp)) {
		if (strchr(buf, '[') ||
		    sscanf(buf, "%llx %c %599s", &addr, &type, name) != 3)
			continue;
		if (*nr == cap) {
			cap = cap ? 2 * cap : 65536;
			l = realloc(l, cap * sizeof(*l));
		}
		l[*nr].addr = addr;
		l[*nr].type = type;
		l[(*nr)++].name = strdup(name);
	}
	fclose(fp);
	return l;
}

static int dump_mode(const char *core, const char *expect, bool subset)
{
	struct kt_kallsyms_layout lay;
	struct kt_kva_pgtable pt;
	struct kt_kva_map map = { kt_kva_pgtable_to_pa, &pt };
	struct kt_symtab tab;
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_target t;
	struct kt_err err;
	struct timespec t0, t1;
	struct line *want, *got;
	size_t nwant, i, j, matched = 0;
	uint64_t desc;
	int ret;

	tap_header();
	tap_plan(3);
	kt_err_clear(&err);
	ret = kt_memsrc_open_vmcore(&src, core, &err);
	/* the master's tables where ktrepl ran, the kernel's own otherwise */
	if (!ret && !kt_state_find_descriptor(src, &desc, &err)) {
		ret = kt_state_load_descriptor(&st, src, desc, &err);
	} else if (!ret) {
		kt_err_clear(&err);
		ret = kt_state_load_plain(&st, src, &err);
	}
	if (!ret)
		ret = kt_target_init(&t, &st, src, NULL, &err);
	tap_ok(!ret, "%s opens (%s)", core, ret ? err.msg : st.arch);
	if (ret)
		return tap_finish();
	pt = (struct kt_kva_pgtable){ t.arch, &t.geo, src, st.master_root_pa };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = kt_kallsyms_layout_from_vmcoreinfo(&lay, src, st.arch, &err);
	if (!ret)
		ret = kt_kallsyms_load(&tab, src, &map, &lay, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_ok(!ret, "the dump's kallsyms decode: %zu symbols in %.0f ms %s",
	       ret ? 0 : tab.nr,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
	       ret ? err.msg : "");
	if (ret)
		return tap_finish();
	want = read_lines(expect, &nwant);
	got = calloc(tab.nr + 1, sizeof(*got));
	for (i = 0; i < tab.nr; i++)
		got[i] = (struct line){ tab.syms[i].addr, tab.syms[i].type,
					tab.syms[i].name };
	qsort(got, tab.nr, sizeof(*got), cmp_line);
	if (want)
		qsort(want, nwant, sizeof(*want), cmp_line);
	for (i = j = 0; i < tab.nr && j < nwant;) {
		int c = cmp_line(&got[i], &want[j]);

		if (!c) {
			matched++;
			i++;
			j++;
		} else if (c < 0) {
			if (i - matched < 40)
				printf("# decoded only: %016" PRIx64 " %c %s\n",
				       got[i].addr, got[i].type, got[i].name);
			i++;
		} else {
			j++;
		}
	}
	if (subset)
		tap_eq_u64(matched, tab.nr,
		       "every decoded symbol is in %s (got %zu of %zu matched; the file has %zu)",
		       expect, matched, tab.nr, nwant);
	else
		tap_ok(matched == tab.nr && matched == nwant,
		       "decoded symbols equal %s (address, type, name): got %zu decoded, %zu matched, want %zu",
		       expect, tab.nr, matched, nwant);
	for (j = 0; j < nwant; j++)
		free(want[j].name);
	free(want);
	free(got);
	kt_symtab_free(&tab);
	kt_state_free(&st);
	kt_memsrc_close(src);
	return tap_finish();
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc >= 5 && !strcmp(argv[1], "--vmcore") &&
	    !strcmp(argv[3], "--expect"))
		return dump_mode(argv[2], argv[4],
				 argc > 5 && !strcmp(argv[5], "--subset"));
	tap_header();
	/* 4 points and 9 damaged copies per fixture, 3 for the big symbol */
	tap_plan(sizeof(fixtures) / sizeof(fixtures[0]) * 13 + 3);
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		fixture_tests(fixtures[i]);
	big_symbol_test();
	return tap_finish();
}
