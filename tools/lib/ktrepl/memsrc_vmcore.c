// SPDX-License-Identifier: GPL-2.0
/*
 * vmcores through libkdumpfile: ELF and kdump-compressed, including
 * QEMU's dump-guest-memory output once makedumpfile -R has undone the
 * flattened format.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flattened.h"
#include "memsrc.h"

struct vmcore {
	int fd;
	kdump_ctx_t *ctx;
};

static int vmcore_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			    size_t len, struct kt_err *err)
{
	struct vmcore *vc = src->priv;
	size_t got = len;
	kdump_status st;

	st = kdump_read(vc->ctx, KDUMP_KPHYSADDR, pa, buf, &got);
	if (st == KDUMP_OK)
		return 0;
	return kt_err_set(err, st == KDUMP_ERR_NODATA ? ENODATA : EIO,
			  "physical 0x%" PRIx64 "+%zu (read %zu): %s%s", pa,
			  len, got, kdump_get_err(vc->ctx),
			  st == KDUMP_ERR_NODATA ?
				  " (page missing: filtered or truncated dump)" :
				  "");
}

static int vmcore_vmcoreinfo(struct kt_memsrc *src, const char *key,
			     char *val, size_t len, struct kt_err *err)
{
	struct vmcore *vc = src->priv;
	char *raw = NULL;
	int ret;

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

	if (kdump_get_number_attr(vc->ctx, "max_pfn", &max_pfn) != KDUMP_OK ||
	    kdump_get_number_attr(vc->ctx, KDUMP_ATTR_PAGE_SIZE, &page_size) !=
		    KDUMP_OK)
		return kt_err_set(err, ENOENT, "the dump does not say how big memory is: %s",
				  kdump_get_err(vc->ctx));
	*end = (uint64_t)max_pfn * page_size;
	return 0;
}

static void vmcore_close(struct kt_memsrc *src)
{
	struct vmcore *vc = src->priv;

	kdump_free(vc->ctx);
	close(vc->fd);
	free(vc);
}

static const struct kt_memsrc_ops vmcore_ops = {
	.name = "vmcore",
	.read_phys = vmcore_read_phys,
	.vmcoreinfo = vmcore_vmcoreinfo,
	.phys_end = vmcore_phys_end,
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

/*
 * libkdumpfile reads past the end of a cut ELF dump as if the memory
 * were there; a copy cut short in transfer must be an error, not a
 * replica that looks like zeroes.
 */
static int vmcore_check_elf_complete(int fd, const char *path,
				     struct kt_err *err)
{
	size_t nr_phdrs, i;
	struct stat sb;
	int ret = 0;
	Elf *elf;

	if (fstat(fd, &sb))
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return 0;	/* not ELF: the other formats check themselves */
	}
	if (!elf_getphdrnum(elf, &nr_phdrs)) {
		for (i = 0; i < nr_phdrs; i++) {
			GElf_Phdr phdr;

			if (!gelf_getphdr(elf, (int)i, &phdr))
				continue;
			if (phdr.p_offset + phdr.p_filesz > (uint64_t)sb.st_size) {
				ret = kt_err_set(err, EIO,
						 "%s: truncated vmcore: segment %zu (physical 0x%" PRIx64 ") ends at byte %" PRIu64 ", the file has %" PRIu64,
						 path, i, (uint64_t)phdr.p_paddr,
						 (uint64_t)(phdr.p_offset + phdr.p_filesz),
						 (uint64_t)sb.st_size);
				break;
			}
		}
	}
	elf_end(elf);
	return ret;
}

int kt_memsrc_open_vmcore(struct kt_memsrc **out, const char *path,
			  struct kt_err *err)
{
	const char *probe_path = path;
	char real_path[64];
	struct vmcore *vc;
	kdump_status st;
	int ret;

	vc = calloc(1, sizeof(*vc));
	if (!vc)
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
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
		if (ret) {
			free(vc);
			return ret;
		}
		vc->fd = real;
		/* the rebuilt file has no name: reach it through our fd */
		snprintf(real_path, sizeof(real_path), "/proc/self/fd/%d", real);
		probe_path = real_path;
	}
	ret = vmcore_check_elf_complete(vc->fd, path, err);
	if (ret) {
		close(vc->fd);
		free(vc);
		return ret;
	}
	vc->ctx = kdump_new();
	if (!vc->ctx) {
		ret = kt_err_set(err, ENOMEM, "%s: cannot allocate a dump context",
				 path);
		goto fail;
	}
	st = kdump_set_number_attr(vc->ctx, KDUMP_ATTR_FILE_FD, vc->fd);
	if (st != KDUMP_OK) {
		ret = kt_err_set(err, EINVAL, "%s: not a vmcore: %s", path,
				 kdump_get_err(vc->ctx));
		goto fail;
	}
	vmcore_fix_arch(vc->ctx, probe_path);
	kdump_set_string_attr(vc->ctx, KDUMP_ATTR_OSTYPE, "linux");
	kdump_clear_err(vc->ctx);
	*out = kt_memsrc_new(&vmcore_ops, vc, path);
	if (*out)
		return 0;
	ret = kt_err_set(err, ENOMEM, "%s: out of memory", path);
fail:
	if (vc->ctx)
		kdump_free(vc->ctx);
	close(vc->fd);
	free(vc);
	return ret;
}
