// SPDX-License-Identifier: GPL-2.0
/*
 * Dump headers checked by hand before libkdumpfile sees them: a vmcore
 * copied off a crashed machine may be damaged anywhere, and a library
 * that trusts an offset or a size reads out of bounds. Every check names
 * the field it found wrong; nothing here trusts what it has not checked.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump_check.h"

/* more would be no dump anyone writes: refuse rather than allocate */
#define MAX_PHDRS (1U << 20)
#define MAX_NOTES_BYTES (64U << 20)
#define KDUMP_SIGNATURE "KDUMP   "
#define KDUMP_MAX_BLOCK (1U << 20)

struct dump_file {
	int fd;
	const char *path;
	uint64_t size;
};

static int read_at(const struct dump_file *f, uint64_t off, void *buf,
		   size_t len, const char *what, struct kt_err *err)
{
	ssize_t got;

	if (off > f->size || len > f->size - off)
		return kt_err_set(err, EPROTO,
				  "%s: %s at byte %" PRIu64 " (+%zu) lies past the end of the file (%" PRIu64 " bytes)",
				  f->path, what, off, len, f->size);
	got = pread(f->fd, buf, len, (off_t)off);
	if (got != (ssize_t)len)
		return kt_err_set(err, got < 0 ? errno : EIO, "%s: reading %s: %s",
				  f->path, what, got < 0 ? strerror(errno) : "short read");
	return 0;
}

/* does [off, off + len) lie inside the file, without wrapping? */
static bool in_file(const struct dump_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* ---- ELF ---------------------------------------------------------- */

/* the first VMCOREINFO note's text, kept for a reader that wants it */
static int keep_vmcoreinfo(const uint8_t *note, const Elf64_Nhdr *nh,
			   struct kt_dump_layout *layout)
{
	static const char name[] = "VMCOREINFO";
	uint64_t desc_at = sizeof(*nh) + (((uint64_t)nh->n_namesz + 3) & ~3ULL);

	if (layout->vmcoreinfo || nh->n_namesz != sizeof(name) ||
	    memcmp(note + sizeof(*nh), name, sizeof(name)))
		return 0;
	layout->vmcoreinfo = strndup((const char *)note + desc_at,
				     nh->n_descsz);
	return layout->vmcoreinfo ? 0 : -ENOMEM;
}

static int elf_check_notes(const struct dump_file *f, const Elf64_Phdr *ph,
			   unsigned int index, struct kt_dump_layout *layout,
			   struct kt_err *err)
{
	uint64_t pos = 0;
	uint8_t *buf;
	int ret;

	if (ph->p_filesz > MAX_NOTES_BYTES)
		return kt_err_set(err, EPROTO,
				  "%s: program header %u: PT_NOTE p_filesz %" PRIu64 " is implausibly large",
				  f->path, index, (uint64_t)ph->p_filesz);
	buf = malloc(ph->p_filesz ? ph->p_filesz : 1);
	if (!buf)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = read_at(f, ph->p_offset, buf, ph->p_filesz, "PT_NOTE", err);
	while (!ret && pos + sizeof(Elf64_Nhdr) <= ph->p_filesz) {
		Elf64_Nhdr nh;
		uint64_t name, desc;

		memcpy(&nh, buf + pos, sizeof(nh));
		name = ((uint64_t)nh.n_namesz + 3) & ~3ULL;
		desc = ((uint64_t)nh.n_descsz + 3) & ~3ULL;
		if (name + desc > ph->p_filesz - pos - sizeof(nh))
			ret = kt_err_set(err, EPROTO,
					 "%s: program header %u: the note at +%" PRIu64 " (n_namesz %u, n_descsz %u) overruns its segment (p_filesz %" PRIu64 ")",
					 f->path, index, pos, nh.n_namesz,
					 nh.n_descsz, (uint64_t)ph->p_filesz);
		else if (keep_vmcoreinfo(buf + pos, &nh, layout))
			ret = kt_err_set(err, ENOMEM, "out of memory");
		pos += sizeof(nh) + name + desc;
	}
	free(buf);
	return ret;
}

static int cmp_range(const void *a, const void *b)
{
	const struct kt_dump_range *x = a, *y = b;

	return x->pa < y->pa ? -1 : x->pa > y->pa;
}

static int elf_check_phdr(const struct dump_file *f, const Elf64_Phdr *ph,
			  unsigned int i, struct kt_dump_layout *layout,
			  struct kt_err *err)
{
	if (ph->p_type != PT_LOAD && ph->p_type != PT_NOTE)
		return 0;
	if (!in_file(f, ph->p_offset, ph->p_filesz))
		return kt_err_set(err, EPROTO,
				  "%s: truncated vmcore: segment %u (%s, physical 0x%" PRIx64 ") ends at byte %" PRIu64 " (p_offset + p_filesz), the file has %" PRIu64,
				  f->path, i, ph->p_type == PT_LOAD ? "PT_LOAD" : "PT_NOTE",
				  (uint64_t)ph->p_paddr,
				  (uint64_t)ph->p_offset + ph->p_filesz, f->size);
	if (ph->p_type == PT_NOTE)
		return elf_check_notes(f, ph, i, layout, err);
	if (ph->p_filesz > ph->p_memsz || ph->p_paddr + ph->p_memsz < ph->p_paddr)
		return kt_err_set(err, EPROTO,
				  "%s: program header %u: PT_LOAD at physical 0x%" PRIx64 " has p_filesz %" PRIu64 " and p_memsz %" PRIu64,
				  f->path, i, (uint64_t)ph->p_paddr,
				  (uint64_t)ph->p_filesz, (uint64_t)ph->p_memsz);
	if (ph->p_memsz > ph->p_filesz)
		layout->elf_filtered = true;
	if (ph->p_filesz)
		layout->ranges[layout->nr_ranges++] = (struct kt_dump_range){
			ph->p_paddr, ph->p_filesz
		};
	if (ph->p_memsz)
		layout->loads[layout->nr_loads++] = (struct kt_dump_load){
			ph->p_paddr, ph->p_offset, ph->p_filesz, ph->p_memsz
		};
	return 0;
}

static int cmp_load(const void *a, const void *b)
{
	const struct kt_dump_load *x = a, *y = b;

	return x->pa < y->pa ? -1 : x->pa > y->pa;
}

static void sort_loads(struct kt_dump_layout *layout)
{
	size_t i;

	/*
	 * Every PT_LOAD at physical 0 (an old /proc/kcore copy): the file
	 * says nothing of physical addresses, and libkdumpfile reads none
	 * from it. The direct reader takes no such segment either.
	 */
	for (i = 0; i < layout->nr_loads && !layout->loads[i].pa; i++)
		;
	if (layout->nr_loads > 1 && i == layout->nr_loads) {
		layout->nr_loads = 0;
		return;
	}
	if (layout->nr_loads)
		qsort(layout->loads, layout->nr_loads, sizeof(*layout->loads),
		      cmp_load);
	for (i = 1; i < layout->nr_loads; i++)
		if (layout->loads[i].pa <
		    layout->loads[i - 1].pa + layout->loads[i - 1].memsz)
			layout->loads_overlap = true;
}

/* e_phnum, or with PN_XNUM the count kept in section 0's sh_info */
static int elf_phnum(const struct dump_file *f, const Elf64_Ehdr *eh,
		     uint64_t *phnum, struct kt_err *err)
{
	Elf64_Shdr sh0;

	*phnum = eh->e_phnum;
	if (eh->e_phnum != PN_XNUM)
		return 0;
	if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    read_at(f, eh->e_shoff, &sh0, sizeof(sh0), "section header 0", err))
		return kt_err_set(err, EPROTO,
				  "%s: e_phnum is PN_XNUM but section header 0 (e_shoff %" PRIu64 ") cannot hold the count",
				  f->path, (uint64_t)eh->e_shoff);
	*phnum = sh0.sh_info;
	return 0;
}

static int elf_check_sections(const struct dump_file *f, const Elf64_Ehdr *eh,
			      struct kt_err *err)
{
	Elf64_Shdr sh;
	unsigned int i;
	int ret;

	if (!eh->e_shoff && !eh->e_shnum)
		return 0;
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return kt_err_set(err, EPROTO, "%s: e_shentsize is %u, not %zu",
				  f->path, eh->e_shentsize, sizeof(Elf64_Shdr));
	if (!in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(sh)))
		return kt_err_set(err, EPROTO,
				  "%s: section headers (e_shoff %" PRIu64 ", e_shnum %u) run past the end of the file",
				  f->path, (uint64_t)eh->e_shoff, eh->e_shnum);
	for (i = 0; i < eh->e_shnum; i++) {
		ret = read_at(f, eh->e_shoff + (uint64_t)i * sizeof(sh), &sh,
			      sizeof(sh), "a section header", err);
		if (ret)
			return ret;
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    !in_file(f, sh.sh_offset, sh.sh_size))
			return kt_err_set(err, EPROTO,
					  "%s: corrupt vmcore: section header %u: sh_offset %" PRIu64 " + sh_size %" PRIu64 " runs past the end of the file",
					  f->path, i, (uint64_t)sh.sh_offset,
					  (uint64_t)sh.sh_size);
	}
	return 0;
}

static int elf_check_header(const struct dump_file *f, const Elf64_Ehdr *eh,
			    struct kt_err *err)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return kt_err_set(err, EPROTO, "%s: EI_CLASS %u: only 64-bit dumps are read",
				  f->path, eh->e_ident[EI_CLASS]);
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return kt_err_set(err, EPROTO, "%s: EI_DATA %u: only little-endian dumps are read",
				  f->path, eh->e_ident[EI_DATA]);
	if (eh->e_type != ET_CORE)
		return kt_err_set(err, EPROTO, "%s: e_type %u is not ET_CORE: not a vmcore",
				  f->path, eh->e_type);
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return kt_err_set(err, EPROTO, "%s: e_phentsize is %u, not %zu",
				  f->path, eh->e_phentsize, sizeof(Elf64_Phdr));
	return 0;
}

static int elf_validate(const struct dump_file *f, struct kt_dump_layout *layout,
			struct kt_err *err)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	uint64_t phnum, i;
	int ret;

	layout->format = KT_DUMP_ELF;
	ret = read_at(f, 0, &eh, sizeof(eh), "the ELF header", err);
	if (!ret)
		ret = elf_check_header(f, &eh, err);
	if (!ret)
		ret = elf_phnum(f, &eh, &phnum, err);
	if (ret)
		return ret;
	if (!phnum || phnum > MAX_PHDRS)
		return kt_err_set(err, EPROTO, "%s: e_phnum %" PRIu64 ": no plausible program header count",
				  f->path, phnum);
	if (!in_file(f, eh.e_phoff, phnum * sizeof(*ph)))
		return kt_err_set(err, EPROTO,
				  "%s: program headers (e_phoff %" PRIu64 ", e_phnum %" PRIu64 ") run past the end of the file (%" PRIu64 " bytes)",
				  f->path, (uint64_t)eh.e_phoff, phnum, f->size);
	ph = calloc(phnum, sizeof(*ph));
	layout->ranges = calloc(phnum, sizeof(*layout->ranges));
	layout->loads = calloc(phnum, sizeof(*layout->loads));
	if (!ph || !layout->ranges || !layout->loads) {
		free(ph);
		return kt_err_set(err, ENOMEM, "out of memory");
	}
	ret = read_at(f, eh.e_phoff, ph, phnum * sizeof(*ph), "program headers",
		      err);
	for (i = 0; !ret && i < phnum; i++)
		ret = elf_check_phdr(f, &ph[i], (unsigned int)i, layout, err);
	free(ph);
	/* after the segments: a cut file is "truncated", not "bad section" */
	if (!ret)
		ret = elf_check_sections(f, &eh, err);
	if (!ret && !layout->nr_ranges)
		ret = kt_err_set(err, EPROTO, "%s: no PT_LOAD holds any memory",
				 f->path);
	if (layout->nr_ranges)
		qsort(layout->ranges, layout->nr_ranges,
		      sizeof(*layout->ranges), cmp_range);
	sort_loads(layout);
	return ret;
}

/* ---- kdump (makedumpfile's diskdump format) ---------------------- */

/* the fixed part of struct disk_dump_header after its utsname */
struct kdump_header_tail {
	uint32_t status;
	int32_t block_size;
	int32_t sub_hdr_size;	/* in blocks */
	uint32_t bitmap_blocks;
	uint32_t max_mapnr;
	uint32_t total_ram_blocks;
	uint32_t device_blocks;
	uint32_t written_blocks;
	uint32_t current_cpu;
	int32_t nr_cpus;
};

#define KDUMP_TAIL_OFFSET 424	/* 8 + 4 + 6 * 65, aligned, + timeval */

struct kdump_sub_header {
	uint64_t phys_base;
	int32_t dump_level;
	int32_t split;
	uint64_t start_pfn, end_pfn;
	int64_t offset_vmcoreinfo;
	uint64_t size_vmcoreinfo;
	int64_t offset_note;
	uint64_t size_note;
	int64_t offset_eraseinfo;
	uint64_t size_eraseinfo;
	uint64_t start_pfn_64, end_pfn_64, max_mapnr_64;
};

struct kdump_page_desc {
	uint64_t offset;
	uint32_t size;
	uint32_t flags;
	uint64_t page_flags;
};

static int kdump_check_blob(const struct dump_file *f, int64_t off,
			    uint64_t size, const char *what, struct kt_err *err)
{
	if (!size)
		return 0;
	if (off < 0 || !in_file(f, (uint64_t)off, size))
		return kt_err_set(err, EPROTO,
				  "%s: kdump sub-header: %s (offset %" PRId64 ", size %" PRIu64 ") lies outside the file",
				  f->path, what, off, size);
	return 0;
}

static uint64_t popcount_bytes(const uint8_t *p, uint64_t len)
{
	uint64_t n = 0, i;

	for (i = 0; i < len; i++)
		n += (uint64_t)__builtin_popcount(p[i]);
	return n;
}

/* each dumpable page's descriptor must point inside the file */
static int kdump_check_descs(const struct dump_file *f, uint64_t start,
			     uint64_t count, uint32_t block, struct kt_err *err)
{
	struct kdump_page_desc d[256];
	uint64_t i, n;
	int ret;

	if (count > (f->size - start) / sizeof(d[0]) || !in_file(f, start, 0))
		return kt_err_set(err, EPROTO,
				  "%s: kdump: %" PRIu64 " page descriptors at byte %" PRIu64 " run past the end of the file (bitmap_blocks or the bitmaps are corrupt)",
				  f->path, count, start);
	for (i = 0; i < count; i += n) {
		uint64_t k;

		n = count - i < 256 ? count - i : 256;
		ret = read_at(f, start + i * sizeof(d[0]), d, n * sizeof(d[0]),
			      "page descriptors", err);
		if (ret)
			return ret;
		for (k = 0; k < n; k++)
			if (d[k].size > block || !in_file(f, d[k].offset, d[k].size))
				return kt_err_set(err, EPROTO,
						  "%s: kdump page descriptor %" PRIu64 ": offset %" PRIu64 ", size %u lies outside the file or exceeds block_size %u",
						  f->path, i + k, d[k].offset,
						  d[k].size, block);
	}
	return 0;
}

/* the runs of pages the dumpable bitmap says the file holds */
static int kdump_ranges(const uint8_t *bitmap, uint64_t max_mapnr,
			uint32_t page_size, struct kt_dump_layout *layout,
			struct kt_err *err)
{
	uint64_t pfn, first = 0, runs = 0;
	struct kt_dump_range *r;
	bool in_run = false, set;
	int pass;

	/* count the runs, then fill them */
	for (pass = 0; pass < 2; pass++) {
		for (pfn = 0; pfn <= max_mapnr; pfn++) {
			/* whole bytes that continue the state: terabytes */
			while (!(pfn & 7) && pfn + 8 <= max_mapnr &&
			       bitmap[pfn >> 3] == (in_run ? 0xff : 0))
				pfn += 8;
			set = pfn < max_mapnr &&
			      (bitmap[pfn >> 3] >> (pfn & 7)) & 1;
			if (set && !in_run)
				first = pfn;
			if (!set && in_run && !pass)
				runs++;
			if (!set && in_run && pass) {
				r = &layout->ranges[layout->nr_ranges++];
				r->pa = first * page_size;
				r->size = (pfn - first) * page_size;
			}
			in_run = set;
		}
		if (!pass) {
			layout->ranges = calloc(runs ? runs : 1,
						sizeof(*layout->ranges));
			if (!layout->ranges)
				return kt_err_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int kdump_validate(const struct dump_file *f, int32_t version,
			  struct kt_dump_layout *layout, struct kt_err *err)
{
	struct kdump_header_tail h;
	struct kdump_sub_header sub;
	uint64_t bitmap_off, bitmap_len, max_mapnr;
	uint8_t *bitmap;
	int ret;

	layout->format = KT_DUMP_KDUMP;
	ret = read_at(f, KDUMP_TAIL_OFFSET, &h, sizeof(h), "the kdump header",
		      err);
	if (ret)
		return ret;
	if (h.block_size < 512 || h.block_size > (int32_t)KDUMP_MAX_BLOCK ||
	    (h.block_size & (h.block_size - 1)))
		return kt_err_set(err, EPROTO, "%s: kdump header: block_size %d is not a power of two in 512..1M",
				  f->path, h.block_size);
	if (h.sub_hdr_size < 1 || h.bitmap_blocks < 1)
		return kt_err_set(err, EPROTO, "%s: kdump header: sub_hdr_size %d, bitmap_blocks %u",
				  f->path, h.sub_hdr_size, h.bitmap_blocks);
	ret = read_at(f, h.block_size, &sub, sizeof(sub), "the kdump sub-header",
		      err);
	if (ret)
		return ret;
	max_mapnr = version >= 6 ? sub.max_mapnr_64 : h.max_mapnr;
	layout->dump_level = version >= 1 ? sub.dump_level : -1;
	bitmap_off = (1 + (uint64_t)h.sub_hdr_size) * h.block_size;
	bitmap_len = (uint64_t)h.bitmap_blocks * h.block_size;
	if (!in_file(f, bitmap_off, bitmap_len))
		return kt_err_set(err, EPROTO,
				  "%s: kdump header: bitmaps (sub_hdr_size %d, bitmap_blocks %u of %d bytes) run past the end of the file",
				  f->path, h.sub_hdr_size, h.bitmap_blocks, h.block_size);
	/* two bitmaps (valid, dumpable), one bit per page each */
	if (max_mapnr > bitmap_len / 2 * 8)
		return kt_err_set(err, EPROTO,
				  "%s: kdump header: max_mapnr %" PRIu64 " needs more than bitmap_blocks %u hold",
				  f->path, max_mapnr, h.bitmap_blocks);
	if ((version >= 3 && kdump_check_blob(f, sub.offset_vmcoreinfo,
					      sub.size_vmcoreinfo, "VMCOREINFO",
					      err)) ||
	    (version >= 4 && kdump_check_blob(f, sub.offset_note, sub.size_note,
					      "the ELF notes", err)) ||
	    (version >= 5 && kdump_check_blob(f, sub.offset_eraseinfo,
					      sub.size_eraseinfo, "eraseinfo", err)))
		return -err->code;
	bitmap = malloc(bitmap_len / 2);
	if (!bitmap)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = read_at(f, bitmap_off + bitmap_len / 2, bitmap, bitmap_len / 2,
		      "the dumpable-page bitmap", err);
	if (!ret)
		ret = kdump_check_descs(f, bitmap_off + bitmap_len,
					popcount_bytes(bitmap, (max_mapnr + 7) / 8),
					(uint32_t)h.block_size, err);
	if (!ret)
		ret = kdump_ranges(bitmap, max_mapnr, h.block_size, layout, err);
	free(bitmap);
	return ret;
}

int kt_dump_validate(int fd, const char *path, struct kt_dump_layout *layout,
		     struct kt_err *err)
{
	struct dump_file f = { .fd = fd, .path = path };
	unsigned char magic[12];
	struct stat sb;
	int32_t version;
	int ret;

	memset(layout, 0, sizeof(*layout));
	layout->dump_level = -1;
	if (fstat(fd, &sb))
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	f.size = (uint64_t)sb.st_size;
	if (f.size < sizeof(magic) ||
	    pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic))
		return 0;	/* too short for either: the reader says what it is */
	if (!memcmp(magic, ELFMAG, SELFMAG))
		ret = elf_validate(&f, layout, err);
	else if (!memcmp(magic, KDUMP_SIGNATURE, 8)) {
		memcpy(&version, magic + 8, sizeof(version));
		ret = kdump_validate(&f, version, layout, err);
	} else {
		return 0;
	}
	if (ret)
		kt_dump_layout_free(layout);
	return ret;
}

static uint64_t span_word(const void *spans, size_t i, size_t stride,
			  size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)spans + i * stride + off, sizeof(v));
	return v;
}

size_t kt_dump_first_ending_after(const void *spans, size_t nr,
				  size_t stride, size_t len_off, uint64_t pa)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (span_word(spans, mid, stride, 0) +
			    span_word(spans, mid, stride, len_off) <=
		    pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kt_dump_layout_next_range(const struct kt_dump_layout *layout,
			      uint64_t pa, uint64_t *start, uint64_t *end)
{
	size_t lo = kt_dump_first_ending_after(
		layout->ranges, layout->nr_ranges, sizeof(*layout->ranges),
		offsetof(struct kt_dump_range, size), pa);

	if (lo == layout->nr_ranges)
		return -ENOENT;
	*start = layout->ranges[lo].pa > pa ? layout->ranges[lo].pa : pa;
	*end = layout->ranges[lo].pa + layout->ranges[lo].size;
	return 0;
}

void kt_dump_layout_free(struct kt_dump_layout *layout)
{
	free(layout->ranges);
	layout->ranges = NULL;
	layout->nr_ranges = 0;
	free(layout->loads);
	layout->loads = NULL;
	layout->nr_loads = 0;
	free(layout->vmcoreinfo);
	layout->vmcoreinfo = NULL;
}
