// SPDX-License-Identifier: GPL-2.0
/*
 * Filtered ELF vmcores, laid out the way makedumpfile -E -d 31 writes
 * them: a run of excluded pages becomes p_memsz past a segment's
 * p_filesz, and the next segment starts after the run. Zero pages in a
 * real descriptor (its empty module slots) land there. They must read
 * as zeros, as in crash; memory no segment covers must be refused,
 * saying it was not in the dump (never "truncated").
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "ktrepl_desc.h"
#include "memsrc.h"
#include "state.h"
#include "tap.h"

#define PAGE 4096ULL
#define MEM_SIZE (4ULL << 20)
#define DESC_PA 0x100000ULL
#define DESC_SLOTS 256
#define DESC_USED 2
#define MAX_SEGS 4

struct seg {
	uint64_t pa, filesz, memsz;
};

/*
 * A descriptor whose header ends where the module-era headers ended
 * (failsafe_reason), as an older module wrote it: readers take such a
 * header by the nodes_off rule. Two nodes, text and rodata, two CPUs,
 * DESC_SLOTS module slots of which DESC_USED are filled: the slots in
 * between are zero pages, as in a real one.
 */
static size_t put_descriptor(uint8_t *mem)
{
	struct ktrepl_desc *d = (void *)(mem + DESC_PA);
	size_t off = (offsetof(struct ktrepl_desc, failsafe_reason) +
		      sizeof(d->failsafe_reason) + 7) & ~7UL;
	struct ktrepl_desc_node *nodes;
	struct ktrepl_desc_region *regions;
	struct ktrepl_desc_module *mods;
	struct ktrepl_desc_module_rodata *ro;
	int32_t *cpu_node;
	unsigned int i;

	memcpy(d->magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN);
	d->abi = 1;
	strcpy(d->arch, "x86_64");
	strcpy(d->activation, "percpu");
	d->paging_levels = 4;
	d->va_bits = 48;
	d->page_shift = 12;
	d->nr_nodes = 2;
	d->nr_regions = 2;
	d->nr_cpus = 2;
	d->master_root_pa = 0x1000;
	d->nodes_off = off;
	nodes = (void *)((uint8_t *)d + off);
	for (i = 0; i < 2; i++)
		nodes[i] = (struct ktrepl_desc_node){
			.nid = i, .memory_nid = i, .has_memory = 1,
			.role = i ? KTREPL_DESC_ROLE_REPLICA :
				    KTREPL_DESC_ROLE_MASTER,
			.root_pa = 0x1000 + i * 0x200000,
			.mem_start = i * 0x200000, .mem_end = (i + 1) * 0x200000,
		};
	off += 2 * sizeof(*nodes);
	d->regions_off = off;
	regions = (void *)((uint8_t *)d + off);
	regions[0] = (struct ktrepl_desc_region){ "text", 0xffffffff81000000ULL,
						  0xffffffff82000000ULL };
	regions[1] = (struct ktrepl_desc_region){ "rodata", 0xffffffff82000000ULL,
						  0xffffffff82800000ULL };
	off += 2 * sizeof(*regions);
	d->extents_off = off;
	d->cpu_node_off = off;
	cpu_node = (void *)((uint8_t *)d + off);
	cpu_node[0] = 0;
	cpu_node[1] = 1;
	off += 2 * sizeof(*cpu_node);
	d->tasks_off = off;
	d->nr_modules = DESC_SLOTS;
	d->modules_off = off;
	mods = (void *)((uint8_t *)d + off);
	off += DESC_SLOTS * sizeof(*mods);
	d->module_rodata_off = off;
	ro = (void *)((uint8_t *)d + off);
	off += DESC_SLOTS * sizeof(*ro);
	for (i = 0; i < DESC_USED; i++) {
		snprintf(mods[i].name, sizeof(mods[i].name), "mod%u", i);
		mods[i].start = 0xffffffffc0000000ULL + i * 0x10000;
		mods[i].text_end = mods[i].end = mods[i].start + 0x4000;
	}
	/* the last slot's rodata: the descriptor's tail page is not zero */
	ro[DESC_SLOTS - 1].start = 0xffffffffc1000000ULL;
	ro[DESC_SLOTS - 1].end = 0xffffffffc1002000ULL;
	snprintf(mods[DESC_SLOTS - 1].name, sizeof(mods[0].name), "last");
	mods[DESC_SLOTS - 1].start = 0xffffffffc0800000ULL;
	mods[DESC_SLOTS - 1].text_end = mods[DESC_SLOTS - 1].end =
		0xffffffffc0804000ULL;
	d->size = off;
	return off;
}

static void put_note(uint8_t *p, size_t *len, const char *text)
{
	Elf64_Nhdr nh = { .n_namesz = 11, .n_descsz = strlen(text), .n_type = 0 };

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + sizeof(nh), "VMCOREINFO\0\0", 12);
	memcpy(p + sizeof(nh) + 12, text, nh.n_descsz);
	*len = sizeof(nh) + 12 + ((nh.n_descsz + 3) & ~3U);
}

/* an ET_CORE file: one PT_NOTE (VMCOREINFO), then the segments' data */
static int write_core(const char *path, const uint8_t *mem,
		      const struct seg *segs, int nr, const char *vmcoreinfo)
{
	uint8_t head[PAGE] = { 0 };
	Elf64_Ehdr *eh = (void *)head;
	Elf64_Phdr *ph = (void *)(head + sizeof(*eh));
	uint64_t off = 2 * PAGE;
	size_t note_len;
	FILE *f = fopen(path, "wb");
	int i;

	if (!f)
		return -1;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_CORE;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = nr + 1;
	put_note(head + PAGE / 2, &note_len, vmcoreinfo);
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = PAGE / 2,
			      .p_filesz = note_len, .p_memsz = note_len };
	for (i = 0; i < nr; i++) {
		ph[i + 1] = (Elf64_Phdr){
			.p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X,
			.p_offset = segs[i].filesz ? off : 0,
			.p_vaddr = 0xffff888000000000ULL + segs[i].pa,
			.p_paddr = segs[i].pa, .p_filesz = segs[i].filesz,
			.p_memsz = segs[i].memsz, .p_align = PAGE,
		};
		off += segs[i].filesz;
	}
	fwrite(head, 1, PAGE, f);
	fseek(f, 2 * PAGE, SEEK_SET);
	for (i = 0; i < nr; i++)
		fwrite(mem + segs[i].pa, 1, segs[i].filesz, f);
	return fclose(f);
}

#define VMCOREINFO_BASE                                                  \
	"OSRELEASE=6.1.0-50-cloud-amd64\nPAGESIZE=4096\n"                 \
	"SYMBOL(init_top_pgt)=ffffffff80001000\nNUMBER(phys_base)=0\n"     \
	"NUMBER(pgtable_l5_enabled)=0\nKERNELOFFSET=0\n"

static struct kt_memsrc *open_core(const uint8_t *mem, const struct seg *segs,
				   int nr, bool with_line, char *path)
{
	char text[256];
	struct kt_memsrc *src = NULL;
	struct kt_err err;
	int fd;

	snprintf(text, sizeof(text), "%s%s", VMCOREINFO_BASE,
		 with_line ? "KTREPL_DESCRIPTOR=100000\n" : "");
	strcpy(path, "/tmp/ktrepl-elfcore-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	kt_err_clear(&err);
	if (write_core(path, mem, segs, nr, text) ||
	    kt_memsrc_open_vmcore(&src, path, &err))
		printf("# %s: %s\n", path, err.msg);
	return src;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

static void test_filtered(const uint8_t *mem, size_t desc_len)
{
	/*
	 * RAM is [0, 2M) and [3M, 4M). The descriptor's pages 1..4 (empty
	 * slots) were left out, as was everything from its end to 2M.
	 */
	const uint64_t desc_end = DESC_PA + ((desc_len + PAGE - 1) & ~(PAGE - 1));
	const struct seg segs[] = {
		{ 0, DESC_PA + PAGE, DESC_PA + 5 * PAGE },
		{ DESC_PA + 5 * PAGE, desc_end - DESC_PA - 5 * PAGE,
		  0x200000 - DESC_PA - 5 * PAGE },
		{ 0x300000, 0x100000, 0x100000 },
	};
	uint8_t buf[2 * PAGE];
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_err err;
	uint64_t pa = 0, gap_start = 0, gap_end = 0;
	char path[64];
	int ret, line;

	for (line = 1; line >= 0; line--) {
		src = open_core(mem, segs, 3, line, path);
		tap_ok(src, "a filtered ELF core (p_memsz past p_filesz) opens");
		if (!src)
			return;
		memset(buf, 0xa5, sizeof(buf));
		kt_err_clear(&err);
		ret = kt_memsrc_read_phys(src, DESC_PA + PAGE - 8, buf, PAGE, &err);
		tap_ok(!ret && !memcmp(buf, mem + DESC_PA + PAGE - 8, 8) &&
		       all_zero(buf + 8, PAGE - 8),
		       "a read from file data into p_memsz past p_filesz gives the data, then zeros (%s)",
		       err.msg);
		ret = kt_memsrc_first_gap(src, DESC_PA + PAGE - 8, PAGE,
					  &gap_start, &gap_end);
		tap_ok(!ret && gap_start == DESC_PA + PAGE &&
		       gap_end == DESC_PA + PAGE - 8 + PAGE,
		       "first_gap names the zeros of that read: got %d [0x%" PRIx64 ", 0x%" PRIx64 "), want 0 [0x%" PRIx64 ", 0x%" PRIx64 ")",
		       ret, gap_start, gap_end, (uint64_t)(DESC_PA + PAGE),
		       (uint64_t)(DESC_PA + 2 * PAGE - 8));
		ret = kt_memsrc_first_gap(src, DESC_PA, PAGE, &gap_start,
					  &gap_end);
		tap_eq_s64(ret, -ENOENT,
		       "first_gap: the descriptor's first page is all in the file (got %d, want -ENOENT)",
		       ret);
		ret = kt_memsrc_first_gap(src, DESC_PA + 4 * PAGE, 2 * PAGE,
					  &gap_start, &gap_end);
		tap_ok(!ret && gap_start == DESC_PA + 4 * PAGE &&
		       gap_end == DESC_PA + 5 * PAGE,
		       "first_gap stops where the next segment's file data starts: got %d [0x%" PRIx64 ", 0x%" PRIx64 ")",
		       ret, gap_start, gap_end);
		kt_err_clear(&err);
		ret = kt_memsrc_read_phys(src, 0x1ff000, buf, PAGE, &err);
		tap_ok(!ret && all_zero(buf, PAGE),
		       "the segment's last excluded page reads as zeros (%s)",
		       err.msg);
		kt_err_clear(&err);
		ret = kt_memsrc_read_phys(src, 0x280000, buf, 16, &err);
		tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "page 0x280000") &&
		       strstr(err.msg, "no PT_LOAD") &&
		       strstr(err.msg, "not in the dump") &&
		       strstr(err.msg, "filtered") &&
		       !strstr(err.msg, "truncated"),
		       "a hole between segments is refused: not in the dump, the dump filtered, never truncated (%d: %s)",
		       ret, err.msg);
		kt_err_clear(&err);
		ret = kt_state_find_descriptor(src, &pa, &err);
		tap_ok(!ret && pa == DESC_PA,
		       "%s finds the descriptor at 0x%" PRIx64 " (%s)",
		       line ? "VMCOREINFO" : "without VMCOREINFO, the scan",
		       pa, err.msg);
		kt_err_clear(&err);
		ret = kt_state_load_descriptor(&st, src, DESC_PA, &err);
		tap_ok(!ret && st.nr_modules == DESC_USED + 1 &&
		       st.nr_nodes == 2,
		       "the descriptor, its empty slots in excluded pages, loads: %zu modules, want %d (%s)",
		       ret ? 0 : (size_t)st.nr_modules, DESC_USED + 1, err.msg);
		if (!ret)
			kt_state_free(&st);
		kt_memsrc_close(src);
		unlink(path);
	}
}

static void test_hole(const uint8_t *mem, size_t desc_len)
{
	/* the same pages as a hole: no segment says they were RAM */
	const uint64_t desc_end = DESC_PA + ((desc_len + PAGE - 1) & ~(PAGE - 1));
	const struct seg segs[] = {
		{ 0, DESC_PA + PAGE, DESC_PA + PAGE },
		{ DESC_PA + 5 * PAGE, desc_end - DESC_PA - 5 * PAGE,
		  desc_end - DESC_PA - 5 * PAGE },
	};
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_err err;
	uint8_t buf[16];
	char path[64];
	int ret;

	src = open_core(mem, segs, 2, true, path);
	tap_ok(src, "an unfiltered ELF core with a hole opens");
	if (!src)
		return;
	kt_err_clear(&err);
	ret = kt_memsrc_read_phys(src, DESC_PA + 2 * PAGE, buf, sizeof(buf), &err);
	tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "no PT_LOAD") &&
	       strstr(err.msg, "not in the dump") && !strstr(err.msg, "filtered") &&
	       !strstr(err.msg, "truncated"),
	       "a page in the hole is refused as not in the dump, not as filtered or truncated (%s)",
	       err.msg);
	kt_err_clear(&err);
	ret = kt_state_load_descriptor(&st, src, DESC_PA, &err);
	tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "descriptor") &&
	       strstr(err.msg, "no PT_LOAD"),
	       "a descriptor whose pages are not in the dump is refused, saying where (%s)",
	       err.msg);
	if (!ret)
		kt_state_free(&st);
	kt_memsrc_close(src);
	unlink(path);
}

/*
 * The direct ELF reader (memsrc_vmcore.c's elf_read) against
 * libkdumpfile's, byte for byte: a segment with excluded pages at its
 * end, one wholly excluded (p_filesz 0), one lying inside another (x86
 * /proc/vmcore's kernel text), a hole, and reads that cross each edge.
 */
static void test_readers_agree(const uint8_t *mem)
{
	const struct seg segs[] = {
		{ 0, 0x80000, 0x100000 },
		{ 0x100000, 0, 0x40000 },
		{ 0x140000, 0xc0000, 0xc0000 },
		{ 0x180000, 0x20000, 0x20000 },
		{ 0x300000, 0x100000, 0x100000 },
	};
	static const size_t lens[] = { 8, 4096, 3 * 4096 + 5, 1 << 20 };
	static const char *const keys[] = { "OSRELEASE", "PAGESIZE",
					    "KTREPL_DESCRIPTOR",
					    "SYMBOL(init_top_pgt)", "NOPE" };
	uint64_t end_a = 0, end_b = 0;
	static uint8_t a[1 << 20], b[1 << 20];
	struct kt_memsrc *direct, *lib;
	char path_d[64], path_l[64];
	unsigned int reads = 0, differ = 0, absent = 0;
	struct kt_err ea, eb;
	uint64_t pa;
	size_t i;
	int ra, rb;

	direct = open_core(mem, segs, 5, true, path_d);
	setenv("KTREPL_DUMP_READER", "libkdumpfile", 1);
	lib = open_core(mem, segs, 5, true, path_l);
	unsetenv("KTREPL_DUMP_READER");
	tap_ok(direct && lib, "the same ELF core opens with either reader");
	if (!direct || !lib)
		goto out;
	for (pa = 0; pa < MEM_SIZE; pa += 0x7ff8) {
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			if (pa + lens[i] > MEM_SIZE)
				continue;
			memset(a, 0xa5, lens[i]);
			memset(b, 0x5a, lens[i]);
			kt_err_clear(&ea);
			kt_err_clear(&eb);
			ra = kt_memsrc_read_phys(direct, pa, a, lens[i], &ea);
			rb = kt_memsrc_read_phys(lib, pa, b, lens[i], &eb);
			reads++;
			absent += ra == -KT_MEM_ABSENT;
			/* the messages differ only by the file's name */
			if (ra != rb || (!ra && memcmp(a, b, lens[i])) ||
			    (ra && strcmp(strstr(ea.msg, ": ") ?: "",
					  strstr(eb.msg, ": ") ?: ""))) {
				if (!differ)
					printf("# first difference: 0x%" PRIx64 "+%zu: direct %d (%s), libkdumpfile %d (%s)\n",
					       pa, lens[i], ra, ea.msg, rb,
					       eb.msg);
				differ++;
			}
		}
	}
	tap_ok(!differ && absent && absent < reads,
	       "the direct reader and libkdumpfile agree on every read: %u of %u differ (want 0), %u refused as not in the dump by both (want some, not all)",
	       differ, reads, absent);
	for (i = 0, differ = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char va[64] = "", vb[64] = "";

		kt_err_clear(&ea);
		kt_err_clear(&eb);
		ra = kt_memsrc_vmcoreinfo(direct, keys[i], va, sizeof(va), &ea);
		rb = kt_memsrc_vmcoreinfo(lib, keys[i], vb, sizeof(vb), &eb);
		if (ra != rb || strcmp(va, vb)) {
			printf("# %s: direct %d '%s' (%s), libkdumpfile %d '%s' (%s)\n",
			       keys[i], ra, va, ea.msg, rb, vb, eb.msg);
			differ++;
		}
	}
	ra = kt_memsrc_phys_end(direct, &end_a, &ea);
	rb = kt_memsrc_phys_end(lib, &end_b, &eb);
	tap_ok(!differ && !ra && !rb && end_a == end_b,
	       "and on VMCOREINFO (%zu keys, one absent: %u differ) and the end of memory (0x%" PRIx64 ", 0x%" PRIx64 ")",
	       sizeof(keys) / sizeof(keys[0]), differ, end_a, end_b);
out:
	if (direct)
		kt_memsrc_close(direct);
	if (lib)
		kt_memsrc_close(lib);
	unlink(path_d);
	unlink(path_l);
}

/*
 * The same memory as makedumpfile -d 31 writes it, each page compressed
 * as -c, -l, -p or -z would (Debian's makedumpfile writes neither snappy
 * nor zstd, but libkdumpfile reads both, and other builds write them):
 * RAM [0, 2M) and [3M, 4M), the filter dropped [1.5M, 2M) (as user or
 * free pages) and stored zero pages as one shared zero page.
 * header_version 6, block size = page size.
 */
#define KD_MAX_PFN (MEM_SIZE / PAGE)
#define KD_HOLE_START 0x200000ULL
#define KD_HOLE_END 0x300000ULL
#define KD_EXCLUDED_START 0x180000ULL

/* makedumpfile's page flags (DUMP_DH_COMPRESSED_*) */
enum kd_compress { KD_NONE = 0, KD_ZLIB = 1, KD_LZO = 2, KD_SNAPPY = 4,
		   KD_ZSTD = 0x20 };

static const struct {
	enum kd_compress how;
	const char *name;
} kd_formats[] = {
	{ KD_NONE, "uncompressed" }, { KD_ZLIB, "zlib (-c)" },
	{ KD_LZO, "lzo (-l)" }, { KD_SNAPPY, "snappy (-p)" },
	{ KD_ZSTD, "zstd (-z)" },
};

/* page compressed by how into out; 0 where it would not shrink */
static size_t kd_compress(enum kd_compress how, const uint8_t *page,
			  uint8_t *out, size_t room)
{
	static uint8_t lzo_work[LZO1X_1_MEM_COMPRESS];
	unsigned long zlen = room;
	lzo_uint llen = room;
	size_t n = room;

	switch (how) {
	case KD_ZLIB:
		n = compress2(out, &zlen, page, PAGE, Z_BEST_SPEED) == Z_OK ?
			    zlen : 0;
		break;
	case KD_LZO:
		n = lzo_init() == LZO_E_OK &&
		    lzo1x_1_compress(page, PAGE, out, &llen, lzo_work) == LZO_E_OK ?
			    llen : 0;
		break;
	case KD_SNAPPY:
		n = snappy_compress((const char *)page, PAGE, (char *)out, &n) ==
			    SNAPPY_OK ? n : 0;
		break;
	case KD_ZSTD:
		n = ZSTD_compress(out, room, page, PAGE, 1);
		n = ZSTD_isError(n) ? 0 : n;
		break;
	default:
		n = 0;
	}
	return n < PAGE ? n : 0;
}

struct kd_page_desc {
	uint64_t offset;
	uint32_t size, flags;
	uint64_t page_flags;
};

static void kd_put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, 4);
}

static void kd_put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static bool kd_ram(uint64_t pa)
{
	return pa < KD_HOLE_START || pa >= KD_HOLE_END;
}

static bool kd_dumpable(uint64_t pa)
{
	return kd_ram(pa) && !(pa >= KD_EXCLUDED_START && pa < KD_HOLE_START);
}

static int write_kdump(const char *path, const uint8_t *mem, int level,
			enum kd_compress how, unsigned int *compressed)
{
	static uint8_t packed[2 * PAGE];
	size_t packed_len;
	const char *info = VMCOREINFO_BASE;
	uint8_t blk[PAGE], bitmap[2][PAGE];
	uint64_t pfn, ndump = 0, data_off, descs_off = 5 * PAGE;
	struct kd_page_desc pd, zero_pd;
	size_t note_len;
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	memset(bitmap, 0, sizeof(bitmap));
	for (pfn = 0; pfn < KD_MAX_PFN; pfn++) {
		if (kd_ram(pfn * PAGE))
			bitmap[0][pfn / 8] |= 1 << (pfn % 8);
		if (kd_dumpable(pfn * PAGE)) {
			bitmap[1][pfn / 8] |= 1 << (pfn % 8);
			ndump++;
		}
	}
	/* block 0: the header; offsets as in dump_check.c's tail */
	memset(blk, 0, sizeof(blk));
	memcpy(blk, "KDUMP   ", 8);
	kd_put32(blk, 8, 6);
	memcpy(blk + 12 + 4 * 65, "x86_64", 6);	/* utsname.machine */
	kd_put32(blk, 428, PAGE);		/* block_size */
	kd_put32(blk, 432, 2);			/* sub_hdr_size */
	kd_put32(blk, 436, 2);			/* bitmap_blocks */
	kd_put32(blk, 440, KD_MAX_PFN);		/* max_mapnr */
	kd_put32(blk, 456, 1);			/* nr_cpus */
	fwrite(blk, 1, PAGE, f);
	/* block 2: the note and VMCOREINFO; block 1: the sub-header */
	memset(blk, 0, sizeof(blk));
	put_note(blk, &note_len, info);
	memcpy(blk + PAGE / 2, info, strlen(info));
	fseek(f, 2 * PAGE, SEEK_SET);
	fwrite(blk, 1, PAGE, f);
	memset(blk, 0, sizeof(blk));
	kd_put32(blk, 8, (uint32_t)level);
	kd_put64(blk, 32, 2 * PAGE + PAGE / 2);	/* offset_vmcoreinfo */
	kd_put64(blk, 40, strlen(info));
	kd_put64(blk, 48, 2 * PAGE);		/* offset_note */
	kd_put64(blk, 56, note_len);
	kd_put64(blk, 96, KD_MAX_PFN);		/* max_mapnr_64 */
	fseek(f, PAGE, SEEK_SET);
	fwrite(blk, 1, PAGE, f);
	fseek(f, 3 * PAGE, SEEK_SET);
	fwrite(bitmap, 1, sizeof(bitmap), f);
	/* the descriptors, then the shared zero page, then every other page */
	data_off = descs_off + ((ndump * sizeof(pd) + PAGE - 1) & ~(PAGE - 1));
	zero_pd = (struct kd_page_desc){ data_off, PAGE, 0, 0 };
	data_off += PAGE;
	for (pfn = 0; pfn < KD_MAX_PFN; pfn++) {
		if (!kd_dumpable(pfn * PAGE))
			continue;
		if (level & 1 && all_zero(mem + pfn * PAGE, PAGE)) {
			fwrite(&zero_pd, sizeof(zero_pd), 1, f);
			continue;
		}
		packed_len = kd_compress(how, mem + pfn * PAGE, packed,
					 sizeof(packed));
		pd = (struct kd_page_desc){ data_off,
					    packed_len ? packed_len : PAGE,
					    packed_len ? how : 0, 0 };
		fwrite(&pd, sizeof(pd), 1, f);
		data_off += pd.size;
		*compressed += packed_len != 0;
	}
	fseek(f, zero_pd.offset, SEEK_SET);
	memset(blk, 0, sizeof(blk));
	fwrite(blk, 1, PAGE, f);
	for (pfn = 0; pfn < KD_MAX_PFN; pfn++) {
		if (!kd_dumpable(pfn * PAGE) ||
		    (level & 1 && all_zero(mem + pfn * PAGE, PAGE)))
			continue;
		packed_len = kd_compress(how, mem + pfn * PAGE, packed,
					 sizeof(packed));
		if (packed_len)
			fwrite(packed, 1, packed_len, f);
		else
			fwrite(mem + pfn * PAGE, 1, PAGE, f);
	}
	return fclose(f);
}

static void test_kdump(const uint8_t *mem, enum kd_compress how,
		       const char *name)
{
	struct kt_memsrc *src = NULL;
	struct kt_state st;
	struct kt_err err;
	uint8_t buf[PAGE];
	uint64_t pa = 0;
	unsigned int compressed = 0;
	char path[64];
	int ret, fd;

	strcpy(path, "/tmp/ktrepl-kdcore-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return;
	close(fd);
	kt_err_clear(&err);
	ret = write_kdump(path, mem, 31, how, &compressed);
	if (!ret)
		ret = kt_memsrc_open_vmcore(&src, path, &err);
	tap_ok(!ret && (how == KD_NONE) == !compressed,
	       "kdump %s at -d 31 (%u pages compressed) opens (%s)", name,
	       compressed, err.msg);
	if (ret) {
		unlink(path);
		return;
	}
	kt_err_clear(&err);
	ret = kt_memsrc_read_phys(src, 0x300000, buf, PAGE, &err);
	tap_ok(!ret && !memcmp(buf, mem + 0x300000, PAGE),
	       "kdump %s: a page reads as it was (%s)", name, err.msg);
	kt_err_clear(&err);
	ret = kt_memsrc_read_phys(src, DESC_PA + PAGE, buf, PAGE, &err);
	tap_ok(!ret && all_zero(buf, PAGE),
	       "kdump %s: a zero page the filter stored as its shared zero page reads as zeros (%s)",
	       name, err.msg);
	kt_err_clear(&err);
	ret = kt_memsrc_read_phys(src, KD_EXCLUDED_START + 0x10, buf, 16, &err);
	tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "page 0x180000") &&
	       strstr(err.msg, "excluded by the dump filter") &&
	       strstr(err.msg, "-d 31") &&
	       strstr(err.msg, "zero, cache, cache-private, user and free") &&
	       strstr(err.msg, "a cache, cache-private, user or free page") &&
	       !strstr(err.msg, "truncated"),
	       "kdump %s: a page the filter dropped is named excluded at -d 31, with what that level drops (%s)",
	       name, err.msg);
	kt_err_clear(&err);
	ret = kt_memsrc_read_phys(src, KD_HOLE_START, buf, 16, &err);
	tap_ok(ret == -KT_MEM_ABSENT && strstr(err.msg, "not RAM") &&
	       !strstr(err.msg, "filter") && !strstr(err.msg, "truncated"),
	       "kdump %s: a page that was not RAM is named so (%s)", name,
	       err.msg);
	kt_err_clear(&err);
	ret = kt_state_find_descriptor(src, &pa, &err);
	tap_ok(!ret && pa == DESC_PA,
	       "kdump %s: without VMCOREINFO, the scan of what the file holds finds the descriptor at 0x%" PRIx64 " (%s)",
	       name, pa, err.msg);
	kt_err_clear(&err);
	ret = kt_state_load_descriptor(&st, src, DESC_PA, &err);
	tap_ok(!ret && st.nr_modules == DESC_USED + 1,
	       "kdump %s: it loads, %zu modules, want %d (%s)", name,
	       ret ? 0 : (size_t)st.nr_modules, DESC_USED + 1, err.msg);
	if (!ret)
		kt_state_free(&st);
	kt_memsrc_close(src);
	unlink(path);
}

int main(void)
{
	uint8_t *mem = calloc(1, MEM_SIZE);
	size_t desc_len, i;
	uint64_t p;

	tap_header();
	/* 25 points before the kdump formats, 7 for each of them */
	tap_plan(25 + sizeof(kd_formats) / sizeof(kd_formats[0]) * 7);
	if (!mem)
		return 1;
	/* "RAM" that is not zero, so that zeros prove the excluded part */
	for (p = 0; p < MEM_SIZE; p += 8)
		memcpy(mem + p, &p, 8);
	memset(mem + DESC_PA, 0, 8 * PAGE);
	desc_len = put_descriptor(mem);
	tap_ok(desc_len > 5 * PAGE && all_zero(mem + DESC_PA + PAGE, 4 * PAGE) &&
	       !all_zero(mem + DESC_PA + 5 * PAGE, PAGE),
	       "the descriptor (%zu bytes) has zero pages 1..4 and data after them",
	       desc_len);
	test_filtered(mem, desc_len);
	test_hole(mem, desc_len);
	test_readers_agree(mem);
	for (i = 0; i < sizeof(kd_formats) / sizeof(kd_formats[0]); i++)
		test_kdump(mem, kd_formats[i].how, kd_formats[i].name);
	free(mem);
	return tap_finish();
}
