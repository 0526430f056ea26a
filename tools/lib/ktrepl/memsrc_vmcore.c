// SPDX-License-Identifier: GPL-2.0
/*
 * vmcores through libkdumpfile: ELF and kdump-compressed, including
 * QEMU's dump-guest-memory output once makedumpfile -R has undone the
 * flattened format.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libkdumpfile/kdumpfile.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dump_check.h"
#include "flattened.h"
#include "memsrc.h"

/*
 * How long libkdumpfile may take to open a dump in the probe, in seconds;
 * KTREPL_DUMP_OPEN_TIMEOUT overrides it (documented in ktrepl-dump(8)).
 */
#define PROBE_TIMEOUT_S 30

static int probe_timeout_ms(void)
{
	const char *env = getenv("KTREPL_DUMP_OPEN_TIMEOUT");
	int s = env ? atoi(env) : 0;

	if (s > INT_MAX / 1000)
		s = INT_MAX / 1000;
	return (s > 0 ? s : PROBE_TIMEOUT_S) * 1000;
}

struct vmcore {
	int fd;
	kdump_ctx_t *ctx;
	struct kt_dump_layout layout;
	uint64_t page_size;
	/* kdump: the pages that were RAM (NULL: unknown) */
	kdump_bmp_t *mem_map;
	/* ELF: read the segments from the file ourselves (elf_read) */
	bool direct;
	/* what libkdumpfile opens, when it is first needed (vmcore_ctx) */
	char path[512];
	char probe_path[512];
	/* why it could not, kept: a later call gets the same answer */
	struct kt_err ctx_err;
};

/*
 * Which reader an ELF dump gets: "direct" (elf_read, the default) or
 * "libkdumpfile" (KTREPL_DUMP_READER, documented in ktrepl-dump(8)), so
 * that tests and bench.py can hold one against the other.
 */
static bool direct_reader_wanted(void)
{
	const char *env = getenv("KTREPL_DUMP_READER");

	return !env || strcmp(env, "libkdumpfile");
}

/*
 * The segment holding pa: with overlaps (x86 /proc/vmcore's kernel text
 * PT_LOAD lies inside a RAM one, the same memory) the lowest-starting
 * one, by a scan; else the one a binary search finds.
 */
static const struct kt_dump_load *elf_load_at(const struct kt_dump_layout *l,
					      uint64_t pa)
{
	size_t lo, i;

	if (l->loads_overlap) {
		for (i = 0; i < l->nr_loads; i++)
			if (pa - l->loads[i].pa < l->loads[i].memsz &&
			    pa >= l->loads[i].pa)
				return &l->loads[i];
		return NULL;
	}
	lo = kt_dump_first_ending_after(l->loads, l->nr_loads,
					sizeof(*l->loads),
					offsetof(struct kt_dump_load, memsz),
					pa);
	return lo < l->nr_loads && l->loads[lo].pa <= pa ? &l->loads[lo] :
							    NULL;
}

/*
 * An ELF dump read as libkdumpfile reads it with zero_excluded set (the
 * bytes of the segment, zeros past p_filesz), but in one pread per
 * segment crossed rather than a copy per page through its cache: that
 * copy was half of vmcore verify's time (issue 42). -ENOENT, nothing
 * set, when some byte is in no segment: libkdumpfile then says why.
 */
static int elf_read(struct vmcore *vc, uint64_t pa, uint8_t *buf, size_t len,
		    struct kt_err *err)
{
	while (len) {
		const struct kt_dump_load *ld = elf_load_at(&vc->layout, pa);
		uint64_t off, n, from_file = 0;
		ssize_t got;

		if (!ld)
			return -ENOENT;
		off = pa - ld->pa;
		n = ld->memsz - off < len ? ld->memsz - off : len;
		if (off < ld->filesz)
			from_file = ld->filesz - off < n ? ld->filesz - off : n;
		while (from_file) {
			got = pread(vc->fd, buf, from_file, ld->offset + off);
			if (got <= 0)
				return kt_err_set(err, got ? errno : EIO,
						  "physical 0x%" PRIx64 ": reading the dump at byte %" PRIu64 ": %s",
						  pa, ld->offset + off,
						  got ? strerror(errno) :
							"the file ends there");
			buf += got;
			pa += got;
			off += got;
			len -= got;
			n -= got;
			from_file -= got;
		}
		memset(buf, 0, n);
		buf += n;
		pa += n;
		len -= n;
	}
	return 0;
}

/* makedumpfile's -d bits (its DL_EXCLUDE_*), lowest first */
static const char *const dump_level_pages[] = {
	"zero", "cache", "cache-private", "user", "free",
};

#define DUMP_LEVEL_ZERO 1

/* the kinds of page level drops, "zero, cache and free" (last: "or") */
static void dump_level_words(int level, const char *last, char *buf,
			     size_t len)
{
	size_t i, used = 0, n = 0, total = 0;
	const size_t kinds = sizeof(dump_level_pages) / sizeof(dump_level_pages[0]);

	buf[0] = '\0';
	for (i = 0; i < kinds; i++)
		total += (level >> i) & 1;
	for (i = 0; i < kinds && used < len; i++) {
		if (!((level >> i) & 1))
			continue;
		n++;
		used += snprintf(buf + used, len - used, "%s%s",
				 n == 1 ? "" : n == total ? last : ", ",
				 dump_level_pages[i]);
	}
}

/* is bit idx of a libkdumpfile page map set? */
static bool pagemap_has(kdump_bmp_t *map, kdump_addr_t idx)
{
	kdump_addr_t found = idx;

	return map && kdump_bmp_find_set(map, &found) == KDUMP_OK &&
	       found == idx;
}

/*
 * Why a page the dump does not hold is missing, and what that means to a
 * reader of kernel memory. Zero pages never get here: a kdump-compressed
 * dump keeps them (as zeros), an ELF one reads them as zeros.
 */
static int vmcore_missing(struct vmcore *vc, uint64_t pa, size_t len,
			  size_t got, struct kt_err *err)
{
	uint64_t page = (pa + got) & ~(vc->page_size - 1);
	int level = vc->layout.dump_level;
	char dropped[96], other[96], why[160] = "";

	if (vc->layout.format == KT_DUMP_ELF)
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " is not in the dump: no PT_LOAD segment of this ELF dump covers it, so it was not RAM, or the tool that wrote the dump left it out%s",
				  pa, len, page,
				  vc->layout.elf_filtered ?
					  " (the dump is filtered, as by makedumpfile -E -d, which never leaves such gaps: the pages it left out lie inside segments and read as zeros, as in crash; an ELF dump records neither the level nor why a page was left out)" :
					  "");
	if (vc->mem_map && !pagemap_has(vc->mem_map, page / vc->page_size))
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " is not in the dump: the dump's memory bitmap says it was not RAM",
				  pa, len, page);
	if (level < 0)
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " was RAM but is not in the dump: excluded by a dump filter (the dump does not record its level)",
				  pa, len, page);
	dump_level_words(level, " and ", dropped, sizeof(dropped));
	dump_level_words(level & ~DUMP_LEVEL_ZERO, " or ", other, sizeof(other));
	if (!other[0])
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " was RAM but is not in the dump, and its level (-d %d) drops no page that is not zero: the dump is damaged or was written by a tool that leaves out more than its level says",
				  pa, len, page, level);
	if (level & DUMP_LEVEL_ZERO)
		snprintf(why, sizeof(why),
			 "; this format keeps zero pages, as zeros, so it was a %s page",
			 other);
	return kt_err_set(err, KT_MEM_ABSENT,
			  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " excluded by the dump filter (makedumpfile -d %d drops %s pages%s): ktrepl reads only kernel memory (its descriptor, page tables, text), which makedumpfile drops only as zero pages, so the address came from damaged or unrelated data; to keep such pages, take the dump at a lower level (-d 1 drops only zero pages)",
			  pa, len, page, level, dropped, why);
}

static int vmcore_ctx(struct vmcore *vc, struct kt_err *err);

static int vmcore_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			    size_t len, struct kt_err *err)
{
	struct vmcore *vc = src->priv;
	size_t got = len;
	kdump_status st;
	int ret;

	if (vc->direct) {
		ret = elf_read(vc, pa, buf, len, err);
		if (ret != -ENOENT)
			return ret;
	}
	/* a byte in no segment: libkdumpfile's read says why */
	ret = vmcore_ctx(vc, err);
	if (ret)
		return ret;
	st = kdump_read(vc->ctx, KDUMP_KPHYSADDR, pa, buf, &got);
	if (st == KDUMP_OK)
		return 0;
	if (st == KDUMP_ERR_NODATA)
		return vmcore_missing(vc, pa, len, got, err);
	return kt_err_set(err, EIO, "physical 0x%" PRIx64 "+%zu (read %zu): %s",
			  pa, len, got, kdump_get_err(vc->ctx));
}

static int vmcore_vmcoreinfo(struct kt_memsrc *src, const char *key,
			     char *val, size_t len, struct kt_err *err)
{
	struct vmcore *vc = src->priv;
	char *raw = NULL;
	int ret;

	if (vc->direct && vc->layout.vmcoreinfo)
		return kt_vmcoreinfo_lookup(vc->layout.vmcoreinfo, key, val,
					    len, err);
	ret = vmcore_ctx(vc, err);
	if (ret)
		return ret;
	if (kdump_vmcoreinfo_raw(vc->ctx, &raw) != KDUMP_OK || !raw)
		return kt_err_set(err, ENOENT, "the dump has no VMCOREINFO");
	ret = kt_vmcoreinfo_lookup(raw, key, val, len, err);
	free(raw);
	return ret;
}

static int vmcore_phys_end(struct kt_memsrc *src, uint64_t *end,
			   struct kt_err *err)
{
	struct vmcore *vc = src->priv;
	kdump_num_t max_pfn, page_size;
	size_t i;
	int ret;

	if (vc->direct) {
		*end = 0;
		for (i = 0; i < vc->layout.nr_loads; i++)
			if (vc->layout.loads[i].pa + vc->layout.loads[i].memsz >
			    *end)
				*end = vc->layout.loads[i].pa +
				       vc->layout.loads[i].memsz;
		return 0;
	}
	ret = vmcore_ctx(vc, err);
	if (ret)
		return ret;
	if (kdump_get_number_attr(vc->ctx, "max_pfn", &max_pfn) != KDUMP_OK ||
	    kdump_get_number_attr(vc->ctx, KDUMP_ATTR_PAGE_SIZE, &page_size) !=
		    KDUMP_OK)
		return kt_err_set(err, ENOENT, "the dump does not say how big memory is: %s",
				  kdump_get_err(vc->ctx));
	*end = (uint64_t)max_pfn * page_size;
	return 0;
}

/*
 * The runs the file holds (dump_check.c): for ELF the file-backed part of
 * each PT_LOAD (the zeros past p_filesz hold no descriptor), for kdump
 * the pages its bitmap says the file has (zero pages included).
 */
static int vmcore_next_range(struct kt_memsrc *src, uint64_t pa,
			     uint64_t *start, uint64_t *end)
{
	struct vmcore *vc = src->priv;

	return kt_dump_layout_next_range(&vc->layout, pa, start, end);
}

static void vmcore_free(struct vmcore *vc)
{
	if (vc->mem_map)
		kdump_bmp_decref(vc->mem_map);
	if (vc->ctx)
		kdump_free(vc->ctx);
	if (vc->fd >= 0)
		close(vc->fd);
	kt_dump_layout_free(&vc->layout);
	free(vc);
}

static void vmcore_close(struct kt_memsrc *src)
{
	vmcore_free(src->priv);
}

static const struct kt_memsrc_ops vmcore_ops = {
	.name = "vmcore",
	.read_phys = vmcore_read_phys,
	.vmcoreinfo = vmcore_vmcoreinfo,
	.phys_end = vmcore_phys_end,
	.next_range = vmcore_next_range,
	.close = vmcore_close,
};

/*
 * Which architecture VMCOREINFO describes. Each arch exports numbers no
 * other one does; libkdumpfile hands out the notes only once an arch and
 * the OS type are set, so a throwaway context guesses first.
 */
static const char *vmcore_arch_from_vmcoreinfo(const char *path)
{
	kdump_ctx_t *probe = kdump_new();
	const char *arch = NULL;
	char *raw = NULL;
	int probe_fd;

	if (!probe)
		return NULL;
	/* the probe gets its own open file: contexts must not share one */
	probe_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (probe_fd >= 0 &&
	    kdump_set_number_attr(probe, KDUMP_ATTR_FILE_FD, probe_fd) == KDUMP_OK &&
	    kdump_set_string_attr(probe, KDUMP_ATTR_ARCH_NAME, "x86_64") ==
		    KDUMP_OK &&
	    kdump_set_string_attr(probe, KDUMP_ATTR_OSTYPE, "linux") ==
		    KDUMP_OK &&
	    kdump_vmcoreinfo_raw(probe, &raw) == KDUMP_OK && raw) {
		if (strstr(raw, "NUMBER(kimage_voffset)="))
			arch = "aarch64";
		else if (strstr(raw, "SYMBOL(init_top_pgt)=") ||
			 strstr(raw, "NUMBER(phys_base)="))
			arch = "x86_64";
	}
	free(raw);
	kdump_free(probe);
	return arch;
}

/*
 * QEMU's kdump-compressed header leaves the architecture empty, and
 * libkdumpfile then can neither translate nor show VMCOREINFO.
 */
static void vmcore_fix_arch(kdump_ctx_t *ctx, const char *path)
{
	const char *arch = NULL;

	if (kdump_get_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, &arch) ==
		    KDUMP_OK &&
	    arch && *arch)
		return;
	kdump_clear_err(ctx);
	arch = vmcore_arch_from_vmcoreinfo(path);
	if (arch)
		kdump_set_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, arch);
	kdump_clear_err(ctx);
}

/* Everything libkdumpfile does when a dump is opened and first read. */
static kdump_ctx_t *vmcore_open_ctx(int fd, const char *probe_path,
				    const struct kt_dump_layout *layout)
{
	kdump_ctx_t *ctx = kdump_new();
	char *raw = NULL;
	uint8_t byte;
	size_t one = 1;

	if (!ctx)
		return NULL;
	if (kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_FD, fd) != KDUMP_OK) {
		kdump_free(ctx);
		return NULL;
	}
	vmcore_fix_arch(ctx, probe_path);
	kdump_set_string_attr(ctx, KDUMP_ATTR_OSTYPE, "linux");
	/*
	 * An ELF dump's p_memsz past p_filesz is what makedumpfile -E -d
	 * left out: zero pages (the only kind a kernel page ktrepl reads
	 * ever is), or cache, user and free pages; which, the ELF does not
	 * say. crash reads them as zeros, and so do we. Not for kdump
	 * dumps: they keep zero pages, so what they leave out is never one.
	 */
	if (layout->format == KT_DUMP_ELF)
		kdump_set_number_attr(ctx, KDUMP_ATTR_ZERO_EXCLUDED, 1);
	kdump_clear_err(ctx);
	/* the first reads a tool makes: VMCOREINFO and memory */
	if (kdump_vmcoreinfo_raw(ctx, &raw) == KDUMP_OK)
		free(raw);
	if (layout->nr_ranges)
		kdump_read(ctx, KDUMP_KPHYSADDR, layout->ranges[0].pa, &byte,
			   &one);
	kdump_clear_err(ctx);
	return ctx;
}

static kdump_bmp_t *vmcore_bitmap(kdump_ctx_t *ctx, const char *key)
{
	kdump_attr_t attr = { .type = KDUMP_BITMAP };

	if (kdump_get_typed_attr(ctx, key, &attr) != KDUMP_OK ||
	    !attr.val.bitmap) {
		kdump_clear_err(ctx);
		return NULL;
	}
	kdump_bmp_incref(attr.val.bitmap);
	return attr.val.bitmap;
}

/* the page size, and for kdump which pages were RAM */
static void vmcore_get_maps(struct vmcore *vc)
{
	kdump_num_t page_size;

	vc->page_size = 4096;
	if (kdump_get_number_attr(vc->ctx, KDUMP_ATTR_PAGE_SIZE, &page_size) ==
		    KDUMP_OK &&
	    page_size && !(page_size & (page_size - 1)))
		vc->page_size = page_size;
	kdump_clear_err(vc->ctx);
	if (vc->layout.format != KT_DUMP_KDUMP)
		return;
	vc->mem_map = vmcore_bitmap(vc->ctx, KDUMP_ATTR_MEMORY_PAGEMAP);
}

/*
 * Wait up to limit_ms for the probe child: on its pidfd, so that the wait
 * ends when the child does (a dump opens in a few ms, a 10 ms polling
 * tick cost more than the open), or by polling where pidfds are missing.
 * 0 with *status, or -ETIMEDOUT with the child still running.
 */
static int probe_wait(pid_t pid, int *status, int limit_ms)
{
	struct timespec tick = { 0, 1000 * 1000 };
	int fd = pidfd_open(pid, 0), n, waited_ms;
	pid_t done;

	if (fd >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		do
			n = poll(&pfd, 1, limit_ms);
		while (n < 0 && errno == EINTR);
		close(fd);
		if (!n)
			return -ETIMEDOUT;
		/* readable: the child has exited, so this wait cannot hang */
		if (n > 0) {
			do
				done = waitpid(pid, status, 0);
			while (done < 0 && errno == EINTR);
			return 0;
		}
		/* poll itself failed: fall back to polling the child */
	}
	for (waited_ms = 0; waited_ms < limit_ms; waited_ms++) {
		done = waitpid(pid, status, WNOHANG);
		if (done == pid || (done < 0 && errno != EINTR))
			return 0;
		nanosleep(&tick, NULL);
	}
	return -ETIMEDOUT;
}

/*
 * Damage the checks in dump_check.c do not cover may still crash or hang
 * libkdumpfile. Open the dump once in a child first: if that child dies
 * or does not finish, say so instead of taking the tool down with it.
 */
static int vmcore_probe(int fd, const char *path, const char *probe_path,
			const struct kt_dump_layout *layout, struct kt_err *err)
{
	int status = 0, limit_ms = probe_timeout_ms();
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0;	/* no probe, no protection: carry on */
	if (!pid) {
		kdump_ctx_t *ctx = vmcore_open_ctx(fd, probe_path, layout);

		_exit(ctx ? 0 : 3);
	}
	if (probe_wait(pid, &status, limit_ms)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return kt_err_set(err, ETIMEDOUT,
				  "%s: libkdumpfile did not finish opening it in %d s: the dump is damaged",
				  path, limit_ms / 1000);
	}
	if (WIFSIGNALED(status))
		return kt_err_set(err, EPROTO,
				  "%s: libkdumpfile crashed opening it (%s): the dump is damaged in a way the header checks do not catch",
				  path, strsignal(WTERMSIG(status)));
	return 0;
}

/*
 * libkdumpfile's context, opened (after the probe) the first time it is
 * needed: at open for a kdump-compressed dump, which it reads; for an
 * ELF dump read directly only when a read falls outside every segment
 * (its error says why) or VMCOREINFO is in no note. A verify of the 4x1
 * bench dump then pays neither the probe's fork nor two opens.
 */
static int vmcore_ctx(struct vmcore *vc, struct kt_err *err)
{
	int ret;

	if (vc->ctx)
		return 0;
	if (vc->ctx_err.code) {
		*err = vc->ctx_err;
		return -vc->ctx_err.code;
	}
	kt_err_clear(&vc->ctx_err);
	ret = vmcore_probe(vc->fd, vc->path, vc->probe_path, &vc->layout,
			   &vc->ctx_err);
	if (!ret) {
		vc->ctx = vmcore_open_ctx(vc->fd, vc->probe_path, &vc->layout);
		if (!vc->ctx)
			ret = kt_err_set(&vc->ctx_err, EINVAL,
					 "%s: not a vmcore libkdumpfile can read",
					 vc->path);
	}
	if (ret) {
		*err = vc->ctx_err;
		return ret;
	}
	vmcore_get_maps(vc);
	return 0;
}

int kt_memsrc_open_vmcore(struct kt_memsrc **out, const char *path,
			  struct kt_err *err)
{
	struct vmcore *vc;
	int ret;

	vc = calloc(1, sizeof(*vc));
	if (!vc)
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
	snprintf(vc->path, sizeof(vc->path), "%s", path);
	snprintf(vc->probe_path, sizeof(vc->probe_path), "%s", path);
	vc->page_size = 4096;
	vc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (vc->fd < 0) {
		ret = kt_err_set(err, errno, "%s: %s", path, strerror(errno));
		free(vc);
		return ret;
	}
	if (kt_is_flattened(vc->fd)) {
		int real;

		ret = kt_unflatten(vc->fd, path, &real, err);
		close(vc->fd);
		vc->fd = -1;
		if (ret) {
			vmcore_free(vc);
			return ret;
		}
		vc->fd = real;
		/* the rebuilt file has no name: reach it through our fd */
		snprintf(vc->probe_path, sizeof(vc->probe_path),
			 "/proc/self/fd/%d", real);
	}
	ret = kt_dump_validate(vc->fd, path, &vc->layout, err);
	vc->direct = !ret && vc->layout.format == KT_DUMP_ELF &&
		     vc->layout.nr_loads && direct_reader_wanted();
	if (!ret && !vc->direct)
		ret = vmcore_ctx(vc, err);
	if (ret) {
		vmcore_free(vc);
		return ret;
	}
	*out = kt_memsrc_new(&vmcore_ops, vc, path);
	if (*out)
		return 0;
	vmcore_free(vc);
	return kt_err_set(err, ENOMEM, "%s: out of memory", path);
}
