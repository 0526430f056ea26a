// SPDX-License-Identifier: GPL-2.0
/*
 * Walkers on synthetic tables in a raw image: x86_64 4- and 5-level,
 * arm64 4K/16K/64K, and garbage that must not keep a walk busy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "memsrc.h"
#include "pgtable.h"
#include "rawimg.h"
#include "tap.h"

#define IMG_SIZE (8u << 20)

static uint8_t *img;

static void put(uint64_t pa, uint64_t v)
{
	memcpy(img + pa, &v, 8);
}

static struct kt_memsrc *open_img(char *path)
{
	return open_raw_image(img, IMG_SIZE, path);
}

static unsigned int idx(uint64_t va, unsigned int shift, unsigned int bits)
{
	return (va >> shift) & ((1u << bits) - 1);
}

static void test_x86(bool five)
{
	char path[] = "/tmp/ktrepl-pgt-XXXXXX";
	const uint64_t va = 0xffffffff81000000ull;
	struct kt_pt_geometry geo;
	struct kt_memsrc *src;
	struct kt_mapping m;
	struct kt_walk w;
	struct kt_err err;
	uint64_t t[5] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };
	int l, first, n = 0, ret;

	memset(img, 0, IMG_SIZE);
	tap_ok(!kt_arch_x86_64.configure(&geo, five ? 5 : 4, 12, 0, &err),
	       "x86_64 %s configures", five ? "5level" : "4level");
	first = 0;
	for (l = 0; l < (int)geo.levels - 2; l++)
		put(t[l] + 8 * idx(va, geo.shift[l], 9), t[l + 1] | 0x63);
	/* a 2 MiB RO+X global leaf at va, a 4K NX RW page table after it */
	put(t[l] + 8 * idx(va, geo.shift[l], 9), 0x200000 | 0x1e1);
	put(t[l] + 8 * idx(va + 0x200000, geo.shift[l], 9), t[l + 1] | 0x63);
	put(t[l + 1] + 8 * 0, 0x400000 | 0x8000000000000063ull);
	put(t[l + 1] + 8 * 1, 0x401000 | 0x8000000000000063ull);
	src = open_img(path);
	tap_ok(src != NULL, "image opens");
	if (!src)
		return;
	ret = kt_walk_begin(&w, &kt_arch_x86_64, &geo, src, t[first], va,
			    va + 0x202000, &err);
	while (!ret && (ret = kt_walk_next(&w, &m, &err)) == 1) {
		ret = 0;
		if (n == 0)
			tap_ok(m.present && m.va == va && m.size == 0x200000 &&
				       m.pa == 0x200000 && !m.writable &&
				       m.executable && m.global &&
				       m.level == (int)geo.levels - 2,
			       "2M leaf decoded (pa 0x%llx level %d)",
			       (unsigned long long)m.pa, m.level);
		if (n == 2)
			tap_ok(m.present && m.size == 4096 && m.pa == 0x401000 &&
				       m.writable && !m.executable,
			       "4K leaf decoded (pa 0x%llx)",
			       (unsigned long long)m.pa);
		n++;
	}
	kt_walk_end(&w);
	tap_ok(ret == 0 && n == 3, "walk yields 3 mappings and ends (%d, %d)",
	       n, ret);
	ret = kt_translate(&kt_arch_x86_64, &geo, src, t[0], va + 0x1234, &m,
			   &err);
	tap_ok(!ret && m.pa == 0x201234 && m.entry[0] == (t[1] | 0x63),
	       "translate gives the byte's PA and every level's entry");
	kt_memsrc_close(src);
	unlink(path);
}

/* a 1 GiB leaf (PS at the PUD level), as the direct map has them */
static void test_x86_1g(void)
{
	char path[] = "/tmp/ktrepl-pgt-XXXXXX";
	const uint64_t va = 0xffff888040000000ull;
	struct kt_pt_geometry geo;
	struct kt_memsrc *src;
	struct kt_mapping m;
	struct kt_err err;
	int ret;

	memset(img, 0, IMG_SIZE);
	kt_arch_x86_64.configure(&geo, 4, 12, 0, &err);
	put(0x1000 + 8 * idx(va, geo.shift[0], 9), 0x2000 | 0x63);
	/* present, RW, PS, global, NX: beyond the image, never read */
	put(0x2000 + 8 * idx(va, geo.shift[1], 9),
	    0x40000000 | 0x8000000000000183ull);
	src = open_img(path);
	if (!src)
		return;
	ret = kt_translate(&kt_arch_x86_64, &geo, src, 0x1000, va + 0x1234,
			   &m, &err);
	tap_ok(!ret && m.present && m.size == 1ull << 30 &&
		       m.pa == 0x40001234 && m.level == 1 && m.global &&
		       m.writable && !m.executable,
	       "1G leaf decoded (ret %d pa 0x%llx size 0x%llx level %d): %s",
	       ret, (unsigned long long)m.pa, (unsigned long long)m.size,
	       m.level, ret ? err.msg : "ok");
	kt_memsrc_close(src);
	unlink(path);
}

/*
 * high: output-address bits above 48 on the leaf. With 52-bit VAs on 4K
 * or 16K pages (LPA2), PA[49:48] stay in place and PA[51:50] sit in the
 * descriptor's bits [9:8]; with 64K pages, PA[51:48] in bits [15:12].
 */
static void test_arm64(unsigned int kb, unsigned int va_bits, uint64_t va,
		       uint64_t high)
{
	char path[] = "/tmp/ktrepl-pgt-XXXXXX", variant[16];
	struct kt_pt_geometry geo;
	struct kt_memsrc *src;
	struct kt_mapping m;
	struct kt_err err;
	uint64_t gran, tables[5] = { 0 };
	int l, ret;

	memset(img, 0, IMG_SIZE);
	snprintf(variant, sizeof(variant), "%uk:%u", kb, va_bits);
	/* levels 0: whatever the granule and VA bits make */
	ret = kt_arch_arm64.configure(&geo, 0, __builtin_ctz(kb) + 10, va_bits,
				      &err);
	tap_ok(!ret, "arm64 %s configures (%u levels)", variant, geo.levels);
	if (ret)
		return;
	gran = 1ull << geo.page_shift;
	for (l = 0; l < (int)geo.levels; l++)
		tables[l] = gran * (l + 1);
	for (l = 0; l < (int)geo.levels - 1; l++)
		put(tables[l] + 8 * idx(va, geo.shift[l], geo.bits[l]),
		    tables[l + 1] | 3);
	/* a last-level page: valid|page, AF, RDONLY, PXN clear, nG */
	put(tables[l] + 8 * idx(va, geo.shift[l], geo.bits[l]),
	    (gran * 40) | 3 | (1 << 10) | (1 << 7) | (1 << 11) |
		    (kb == 64 ? (high >> 36) & 0xf000 :
				(high & (3ull << 48)) | ((high >> 42) & 0x300)));
	src = open_img(path);
	if (!src)
		return;
	ret = kt_translate(&kt_arch_arm64, &geo, src, tables[0], va + 8, &m,
			   &err);
	tap_ok(!ret && m.present && m.pa == ((gran * 40 + 8) | high) &&
		       !m.writable &&
		       m.executable && !m.global && m.size == gran,
	       "arm64 %s page decoded (pa 0x%llx)", variant,
	       (unsigned long long)m.pa);
	kt_memsrc_close(src);
	unlink(path);
}

/* a table that points at itself, and a walk over a huge range */
static void test_garbage(void)
{
	char path[] = "/tmp/ktrepl-pgt-XXXXXX";
	struct kt_pt_geometry geo;
	struct kt_memsrc *src;
	struct kt_mapping m;
	struct kt_walk w;
	struct kt_err err;
	unsigned int i;
	int ret, n = 0;

	memset(img, 0, IMG_SIZE);
	kt_arch_x86_64.configure(&geo, 4, 12, 48, &err);
	for (i = 0; i < 512; i++)
		put(0x1000 + 8 * i, 0x1000 | 0x63);	/* cycle to itself */
	put(0x2000, 0x000ff00000001063ull);		/* beyond the image */
	src = open_img(path);
	if (!src)
		return;
	ret = kt_walk_begin(&w, &kt_arch_x86_64, &geo, src, 0x1000, 0,
			    0x00007fffffffffffull, &err);
	while (!ret && (ret = kt_walk_next(&w, &m, &err)) == 1) {
		ret = 0;
		n++;
	}
	kt_walk_end(&w);
	/*
	 * Every leaf of the cycle maps a page, so only the step bound ends
	 * the walk: 2^35 pages lie below the end
	 */
	tap_ok(ret == -ELOOP && strstr(err.msg, "gave up"),
	       "a self-referencing table ends the walk with -ELOOP (got %d after %d steps: %s)",
	       ret, n, ret ? err.msg : "no error");
	ret = kt_translate(&kt_arch_x86_64, &geo, src, 0x2000, 0, &m, &err);
	tap_ok(ret < 0 && strstr(err.msg, "outside the image"),
	       "a table pointer beyond memory is an error: %s", err.msg);
	kt_memsrc_close(src);
	unlink(path);
}

static void test_classify(void)
{
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t call[] = { 0xe8, 1, 2, 3, 4 };
	static const uint8_t jmp[] = { 0xe9, 1, 2, 3, 4 };
	static const uint8_t nop2[] = { 0x66, 0x90 }, jmp2[] = { 0xeb, 0x10 };
	static const uint8_t int3[] = { 0xcc }, push[] = { 0x55 };
	static const uint8_t a64_nop[] = { 0x1f, 0x20, 0x03, 0xd5 };
	static const uint8_t a64_bl[] = { 0x10, 0x00, 0x00, 0x94 };

	tap_streq(kt_classify(&kt_arch_x86_64, nop5, call, 5, "vfs_read+0x0"), "ftrace",
	       "nop5 -> call at entry is ftrace");
	tap_streq(kt_classify(&kt_arch_x86_64, nop5, call, 5, "__schedule+0x4f3"), "call",
	       "nop5 -> call inside a function is a call site, not ftrace");
	tap_streq(kt_classify(&kt_arch_x86_64, nop5, jmp, 5, "f+0x10"), "jump_label",
	       "nop5 -> jmp is a jump label");
	tap_streq(kt_classify(&kt_arch_x86_64, nop2, jmp2, 2, "f+0x10"), "jump_label",
	       "2-byte nop -> jmp is a jump label");
	tap_streq(kt_classify(&kt_arch_x86_64, push, int3, 1, "f+0x0"), "kprobe",
	       "int3 is a kprobe");
	tap_streq(kt_classify(&kt_arch_x86_64, call, jmp, 5, "__SCT__foo+0x0"), "static_call",
	       "a static call trampoline is a static call");
	tap_streq(kt_classify(&kt_arch_x86_64, push, nop2, 1, "f+0x7"), "unknown",
	       "anything else is unknown (corruption)");
	tap_streq(kt_classify(&kt_arch_arm64, a64_nop, a64_bl, 4, "f+0x4"), "ftrace",
	       "arm64 nop -> bl is ftrace");
}

int main(void)
{
	img = calloc(1, IMG_SIZE);
	if (!img)
		return 1;
	tap_header();
	tap_plan(37);
	test_x86(false);
	test_x86(true);
	test_x86_1g();
	test_arm64(4, 48, 0xffff800008010000ull, 0);
	test_arm64(4, 39, 0xffffffc008010000ull, 0);
	test_arm64(16, 47, 0xffff800008010000ull, 0);
	/* Debian's arm64-16k: 52-bit VAs under LPA2 */
	test_arm64(16, 52, 0xfff0000008010000ull, 0);
	test_arm64(16, 52, 0xfff0000008010000ull, 0xf000000000000ull);
	test_arm64(64, 42, 0xfffffc0008010000ull, 0);
	test_arm64(64, 52, 0xfff0000008010000ull, 0xf000000000000ull);
	test_garbage();
	test_classify();
	free(img);
	return tap_finish();
}
