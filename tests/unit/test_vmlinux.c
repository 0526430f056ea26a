// SPDX-License-Identifier: GPL-2.0
/*
 * The vmlinux reader on the pinned kernel's real -dbg vmlinux (make deps
 * caches it; KTREPL_VMLINUX points elsewhere): every patch-site table
 * yields sites, they lie in text, and the file's own bytes at ftrace and
 * jump label sites are states the kernel writes there.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtable.h"
#include "symbols.h"
#include "tap.h"
#include "vmlinux_text.h"

#define DEFAULT_VMLINUX_6_12                                              \
	"/var/cache/ktrepl/kernels/6.12.117+deb12-cloud-amd64/usr/lib/debug/" \
	"boot/vmlinux-6.12.117+deb12-cloud-amd64"

#define DEFAULT_VMLINUX                                                  \
	"/var/cache/ktrepl/kernels/6.1.0-50-cloud-amd64/usr/lib/debug/boot/" \
	"vmlinux-6.1.0-50-cloud-amd64"

static void test_sites(const struct kt_vmlinux *v)
{
	size_t count[KT_SITE_NR] = { 0 }, i, sorted = 1, outside = 0;
	size_t checked[2] = { 0 }, valid[2] = { 0 };
	struct kt_err err;
	int k;

	for (i = 0; i < v->nr_sites; i++) {
		const struct kt_site *s = &v->sites[i];
		uint8_t b[8];

		count[s->kind]++;
		if (i && s->va < v->sites[i - 1].va)
			sorted = 0;
		if (s->va < v->stext || s->va + s->len > v->etext)
			outside++;
		if (s->kind != KT_SITE_FTRACE && s->kind != KT_SITE_JUMP_LABEL)
			continue;
		if (s->len > sizeof(b) || kt_vmlinux_read(v, s->va, b, s->len, &err))
			continue;
		k = s->kind == KT_SITE_JUMP_LABEL;
		checked[k]++;
		valid[k] += kt_arch_x86_64.site_bytes_valid(s->kind, s->len, b);
	}
	/* 6.1 has neither sealed ENDBRs nor runtime constants */
	for (k = 0; k < KT_SITE_ENDBR_SEAL; k++)
		tap_ok(count[k] > 0, "%s: %zu sites", kt_site_names[k], count[k]);
	tap_ok(sorted && !outside, "sites are sorted and lie in text (%zu outside)",
	       outside);
	tap_ok(checked[0] > 1000 && valid[0] == checked[0],
	       "every ftrace site in the file is a state ftrace writes (%zu of %zu)",
	       valid[0], checked[0]);
	tap_ok(checked[1] > 100 && valid[1] == checked[1],
	       "every jump label site in the file is a NOP or jmp (%zu of %zu)",
	       valid[1], checked[1]);
	tap_ok(v->nr_relocs > 10000 && !v->relocs_inferred,
	       "%zu KASLR relocations in text", v->nr_relocs);
	tap_ok(v->alt->entry == 12, "6.1: 12-byte alt_instr entries");
}

/* vfs_read's fentry call is an ftrace site (after endbr64, if any) */
static void test_lookup(const struct kt_vmlinux *v, const char *path)
{
	const struct kt_site *site = NULL;
	struct kt_symtab syms;
	struct kt_err err;
	uint64_t addr = 0;
	size_t i;

	if (kt_symtab_load_vmlinux(&syms, path, &err)) {
		tap_ok(0, "symbols of %s: %s", path, err.msg);
		return;
	}
	for (i = 0; i < syms.nr; i++)
		if (!strcmp(syms.syms[i].name, "vfs_read"))
			addr = syms.syms[i].addr;
	for (i = 0; addr && i <= 4 && !site; i += 4)
		site = kt_vmlinux_site(v, addr + i);
	tap_ok(site && site->kind == KT_SITE_FTRACE && site->len == 5,
	       "vfs_read's entry is a 5-byte ftrace site (0x%" PRIx64 ")", addr);
	kt_symtab_free(&syms);
}

/*
 * 6.9+ strips .rela.text from x86's vmlinux: a relocated field is then
 * recognised by value. Whole fields moved by the slide (either sign for
 * 4 bytes) pass; a byte changed any other way does not.
 */
static void test_inferred_relocs(void)
{
	const struct kt_vmlinux v = { .relocs_inferred = true };
	const int64_t slide = 0x1c000000;
	uint8_t file[64], mem[64];
	uint64_t base = 0xffffffff81000000ULL, f64;
	uint32_t f32;
	int i;

	for (i = 0; i < 64; i++)
		file[i] = (uint8_t)(i * 37 + 11);
	memcpy(mem, file, sizeof(mem));
	memcpy(&f32, file + 8, 4);
	f32 += (uint32_t)slide;
	memcpy(mem + 8, &f32, 4);
	memcpy(&f64, file + 24, 8);
	f64 += (uint64_t)slide;
	memcpy(mem + 24, &f64, 8);
	memcpy(&f32, file + 40, 4);
	f32 -= (uint32_t)slide;
	memcpy(mem + 40, &f32, 4);
	tap_ok(kt_vmlinux_relocated(&v, base, mem, file, 64, base, 64, slide),
	       "inferred: 4-byte, 8-byte and per-CPU (negative) fields moved by the slide are relocations");
	mem[50] ^= 0xff;
	tap_ok(!kt_vmlinux_relocated(&v, base, mem, file, 64, base + 48, 8,
				     slide),
	       "inferred: a flipped byte next to them is not");
	mem[50] ^= 0xff;
	mem[10] ^= 0x01;
	tap_ok(!kt_vmlinux_relocated(&v, base, mem, file, 64, base + 8, 4,
				     slide),
	       "inferred: a relocated field with one more bit flipped is not");
	mem[10] ^= 0x01;
	tap_ok(!kt_vmlinux_relocated(&v, base, mem, file, 64, base + 8, 4, 0),
	       "inferred: without a slide nothing is a relocation");
}

/*
 * The 6.12 -dbg vmlinux: a wider struct alt_instr, sealed ENDBRs, runtime
 * constants, and no .rela.text (relocations inferred).
 */
static void test_6_12(const char *path)
{
	size_t count[KT_SITE_NR] = { 0 }, i;
	struct kt_vmlinux v;
	struct kt_err err;

	/* its 3 points, skipped when there is no such vmlinux */
	if (access(path, R_OK)) {
		for (i = 0; i < 3; i++)
			tap_skip("no %s (make deps KERNEL=6.12)", path);
		return;
	}
	if (kt_vmlinux_open(&v, path, &err)) {
		tap_ok(0, "the 6.12 -dbg vmlinux opens: %s", err.msg);
		return;
	}
	for (i = 0; i < v.nr_sites; i++)
		count[v.sites[i].kind]++;
	tap_ok(v.alt->entry == 14 && count[KT_SITE_ALTERNATIVE] > 1000,
	       "6.12: 14-byte alt_instr entries, %zu alternative sites",
	       count[KT_SITE_ALTERNATIVE]);
	tap_ok(count[KT_SITE_ENDBR_SEAL] > 10000 &&
		       count[KT_SITE_RUNTIME_CONST] > 10,
	       "6.12: %zu sealable ENDBRs, %zu runtime constants",
	       count[KT_SITE_ENDBR_SEAL], count[KT_SITE_RUNTIME_CONST]);
	tap_ok(v.relocs_inferred && !v.nr_relocs,
	       "6.12: no .rela.text, relocations are inferred");
	kt_vmlinux_close(&v);
}

int main(void)
{
	const char *path = getenv("KTREPL_VMLINUX");
	struct kt_vmlinux v;
	struct kt_err err;
	int ret;

	if (!path)
		path = DEFAULT_VMLINUX;
	tap_header();
	if (access(path, R_OK)) {
		/* a skip-all plan; prove fails kselftest's exit 4, so 0 */
		printf("1..0 # SKIP no %s (run make deps)\n", path);
		return 0;
	}
	tap_plan(23);
	kt_err_clear(&err);
	ret = kt_vmlinux_open(&v, path, &err);
	tap_ok(!ret, "the -dbg vmlinux opens (%s)", err.msg);
	if (!ret) {
		test_sites(&v);
		test_lookup(&v, path);
		kt_vmlinux_close(&v);
	}
	test_inferred_relocs();
	test_6_12(DEFAULT_VMLINUX_6_12);
	ret = kt_vmlinux_open(&v, "/bin/sh", &err);
	tap_ok(ret < 0 && strstr(err.msg, "not a vmlinux"),
	       "a program is not a vmlinux: %s", err.msg);
	if (!ret)
		kt_vmlinux_close(&v);
	return tap_finish();
}
