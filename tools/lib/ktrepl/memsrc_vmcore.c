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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char *line = NULL;
	kdump_status st;

	st = kdump_vmcoreinfo_line(vc->ctx, key, &line);
	if (st != KDUMP_OK)
		return kt_err_set(err, ENOENT, "VMCOREINFO has no %s: %s", key,
				  kdump_get_err(vc->ctx));
	snprintf(val, len, "%s", line);
	free(line);
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
	.close = vmcore_close,
};

/*
 * QEMU's kdump-compressed header leaves the architecture empty, and
 * libkdumpfile then refuses to translate; the machine name in the
 * utsname (or the ELF machine) is enough to set it.
 */
static void vmcore_fix_arch(kdump_ctx_t *ctx)
{
	const char *arch = NULL, *machine = NULL;

	if (kdump_get_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, &arch) ==
		    KDUMP_OK &&
	    arch && *arch)
		return;
	kdump_clear_err(ctx);
	if (kdump_get_string_attr(ctx, "linux.uts.machine", &machine) !=
		    KDUMP_OK ||
	    !machine || !*machine) {
		kdump_clear_err(ctx);
		return;
	}
	kdump_set_string_attr(ctx, KDUMP_ATTR_ARCH_NAME, machine);
	kdump_clear_err(ctx);
}

int kt_memsrc_open_vmcore(struct kt_memsrc **out, const char *path,
			  struct kt_err *err)
{
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
	kdump_set_string_attr(vc->ctx, KDUMP_ATTR_OSTYPE, "linux");
	kdump_clear_err(vc->ctx);
	vmcore_fix_arch(vc->ctx);
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
