// SPDX-License-Identifier: GPL-2.0
/* Library basics: error context, JSON writer, raw-image memory source. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "json_writer.h"
#include "memsrc.h"
#include "output.h"
#include "state.h"
#include "symbols.h"
#include "tap.h"

static void test_err(void)
{
	struct kt_err err;
	char big[2000];
	int ret;

	kt_err_clear(&err);
	ret = kt_err_set(&err, ENOENT, "no %s", "thing");
	tap_ok(ret == -ENOENT && err.code == ENOENT, "kt_err_set returns -code");
	kt_err_wrap(&err, "layer %d", 2);
	kt_err_wrap(&err, "top");
	tap_streq(err.msg, "top: layer 2: no thing",
	       "kt_err_wrap prepends context (got '%s')", err.msg);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kt_err_set(&err, EIO, "%s", big);
	kt_err_wrap(&err, "ctx");
	tap_ok(strlen(err.msg) == sizeof(err.msg) - 1 &&
		       !strncmp(err.msg, "ctx: xxx", 8),
	       "an overlong message is cut at the tail, context kept");
	ret = kt_err_set(&err, 0, "a caller that gave no code");
	tap_eq_u64(-ret, EIO, "an error set with code 0 is EIO, never EPERM");
	kt_err_clear(&err);
	ret = kt_err_wrap(&err, "wrapped with no code");
	tap_eq_u64(-ret, EIO, "an error wrapped with code 0 is EIO, never EPERM");
	tap_streq(err.msg, "wrapped with no code: ",
		  "wrapping an empty message keeps the context");
}

static void test_json(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct json_writer *jw = jsonw_new(fp, false);

	jsonw_start_object(jw);
	jsonw_uint_field(jw, "version", 1);
	jsonw_hex_field(jw, "pa", 0xffffffff81000000ull);
	jsonw_string_field(jw, "s", "a\"b\\c\n\x01");
	jsonw_name(jw, "list");
	jsonw_start_array(jw);
	jsonw_int(jw, -3);
	jsonw_bool(jw, true);
	jsonw_start_object(jw);
	jsonw_end_object(jw);
	jsonw_start_array(jw);
	jsonw_end_array(jw);
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fclose(fp);
	tap_streq(text,
		  "{\"version\":1,\"pa\":\"0xffffffff81000000\","
		  "\"s\":\"a\\\"b\\\\c\\n\\u0001\","
		  "\"list\":[-3,true,{},[]]}\n",
		  "compact JSON is exact");
	free(text);
}

/* bytes from a damaged dump never make an undecodable message */
static void test_unclean_text(void)
{
	static const char name[] = "ok \xc3\xa9 bad \xff\xc3( \xed\xa0\x80 \x1b";
	char *text = NULL, *errs = NULL;
	size_t len = 0, elen = 0;
	FILE *fp = open_memstream(&text, &len);
	FILE *efp = open_memstream(&errs, &elen);
	struct kt_out out;

	kt_out_init_fp(&out, "t", true, false, fp, efp);
	kt_out_error(&out, "name %s", name);
	kt_out_fini(&out);
	kt_out_init_fp(&out, "t", false, false, fp, efp);
	kt_out_error(&out, "name %s", name);
	kt_out_warn(&out, "w %s", "\x80");
	fclose(fp);
	fclose(efp);
	tap_streq(text,
		  "{\"version\":1,\"error\":\"name ok \xc3\xa9 bad \\u00ff\\u00c3( \\u00ed\\u00a0\\u0080 \\u001b\"}\n",
		  "JSON: valid UTF-8 kept, every other byte its \\u00XX");
	tap_streq(errs,
		  "t: error: name ok \xc3\xa9 bad \\xff\\xc3( \\xed\\xa0\\x80 \\x1b\nt: warning: w \\x80\n",
		  "text: valid UTF-8 kept, every other byte and controls as \\xNN");
	free(text);
	free(errs);
}

static void test_raw(void)
{
	char path[] = "/tmp/ktrepl-unit-XXXXXX";
	uint8_t img[8192], buf[16];
	struct kt_memsrc *src = NULL;
	struct kt_err err;
	int fd, i, ret;

	for (i = 0; i < (int)sizeof(img); i++)
		img[i] = (uint8_t)(i * 7);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, img, sizeof(img)) != (ssize_t)sizeof(img)) {
		tap_ok(0, "temporary image written");
		return;
	}
	close(fd);
	kt_err_clear(&err);
	ret = kt_memsrc_open_raw(&src, path, 0x100000, &err);
	tap_eq_s64(ret, 0, "raw image opens");
	if (ret)
		goto out;
	ret = kt_memsrc_read_phys(src, 0x100ff8, buf, 16, &err);
	tap_ok(ret == 0 && !memcmp(buf, img + 0xff8, 16),
	       "read across a page boundary returns the file bytes");
	ret = kt_memsrc_read_phys(src, 0x101ff8, buf, 16, &err);
	tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "outside the image"),
	       "read past the end fails with context (%s)", err.msg);
	ret = kt_memsrc_read_phys(src, 0xff000, buf, 16, &err);
	tap_eq_s64(ret, -KT_MEM_ABSENT, "read below the base fails");
	ret = kt_memsrc_read_phys(src, UINT64_MAX - 4, buf, 16, &err);
	tap_eq_s64(ret, -EINVAL, "a wrapping read is refused");
	kt_memsrc_close(src);
	ret = kt_memsrc_open_raw(&src, "/nonexistent/ktrepl", 0, &err);
	tap_ok(ret == -ENOENT && strstr(err.msg, "/nonexistent/ktrepl"),
	       "a missing image names its path (%s)", err.msg);
	ret = kt_memsrc_open_kcore(&src, path, &err);
	tap_ok(ret == -EINVAL && strstr(err.msg, "not an ELF"),
	       "a non-ELF file is refused as kcore (%s)", err.msg);
	ret = kt_memsrc_open_vmcore(&src, path, &err);
	tap_ok(ret < 0 && strstr(err.msg, "not a vmcore"),
	       "a non-dump file is refused as vmcore (%s)", err.msg);
out:
	unlink(path);
}

/*
 * kallsyms keeps a module's init symbols after its init memory is freed;
 * a later module's text there must not be named after them.
 */
static void test_foreign_symbols(void)
{
	static const struct { const char *name; uint64_t start, end; } mods[] = {
		{ "module:dm_zero", 0xffffffffc2484000ull, 0xffffffffc2486000ull },
		{ "module:dm_mod/rodata", 0xffffffffc2500000ull,
		  0xffffffffc2501000ull },
	};
	struct kt_state st;
	struct kt_symtab tab = { 0 };
	struct kt_sym syms[4] = {
		{ 0xffffffffc2484000ull, strdup("zero_ctr"), strdup("dm_zero") },
		{ 0xffffffffc2484000ull, strdup("dm_mirror_init"),
		  strdup("dm_mirror") },
		{ 0xffffffffc2500010ull, strdup("dm_table"), strdup("dm_mod") },
		{ 0xffffffff81000000ull, strdup("_stext"), NULL },
	};
	const struct kt_sym *s;
	struct kt_err err;
	uint64_t off = 0;
	size_t i, dropped;

	memset(&st, 0, sizeof(st));
	kt_err_clear(&err);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		struct kt_region_state *r = kt_state_add_region(&st, &err);

		if (!r)
			break;
		snprintf(r->name, sizeof(r->name), "%s", mods[i].name);
		r->start = mods[i].start;
		r->end = mods[i].end;
		r->module = true;
	}
	tab.syms = malloc(sizeof(syms));
	if (tab.syms) {
		memcpy(tab.syms, syms, sizeof(syms));
		tab.nr = 4;
	}
	kt_symtab_sort(&tab);
	dropped = kt_symtab_drop_foreign(&tab, &st);
	tap_ok(dropped == 1 && tab.nr == 3,
	       "a module symbol in another module's memory is dropped (got %zu of %zu kept, want 3)",
	       tab.nr, tab.nr + dropped);
	s = kt_symtab_lookup(&tab, 0xffffffffc2484001ull, &off);
	tap_ok(s && !strcmp(s->name, "zero_ctr") && off == 1,
	       "the address is named after its own module's symbol (got %s+%#llx)",
	       s ? s->name : "-", (unsigned long long)off);
	s = kt_symtab_lookup(&tab, 0xffffffffc2500011ull, &off);
	tap_ok(s && !strcmp(s->name, "dm_table"),
	       "a symbol in its module's rodata region stays (got %s)",
	       s ? s->name : "-");
	kt_symtab_free(&tab);
	kt_state_free(&st);
}

int main(void)
{
	tap_header();
	tap_plan(20);
	test_foreign_symbols();
	test_err();
	test_json();
	test_unclean_text();
	test_raw();
	return tap_finish();
}
