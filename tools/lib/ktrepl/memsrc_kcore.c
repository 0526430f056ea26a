// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kcore. A kernel-text VA read through kcore returns whatever the
 * reading CPU's page tables map there, i.e. that CPU's replica, so every
 * read here is physical: kcore tags its direct-map (KCORE_RAM) segments
 * with p_paddr, and only those segments are used to serve a physical
 * address.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockdown.h"
#include "memsrc.h"

struct kcore_segment {
	uint64_t pa;
	uint64_t len;
	uint64_t offset;
	uint64_t va;
};

struct kcore {
	int fd;
	char *vmcoreinfo;	/* the note's text, or NULL */
	size_t nr_segments;
	struct kcore_segment *segments;
};

static int kcore_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			   size_t len, struct kt_err *err)
{
	struct kcore *kc = src->priv;
	char *dst = buf;

	while (len) {
		const struct kcore_segment *seg = NULL;
		size_t i, chunk;
		ssize_t n;

		for (i = 0; i < kc->nr_segments; i++) {
			if (pa >= kc->segments[i].pa &&
			    pa - kc->segments[i].pa < kc->segments[i].len) {
				seg = &kc->segments[i];
				break;
			}
		}
		if (!seg)
			return kt_err_set(err, KT_MEM_ABSENT,
					  "physical 0x%" PRIx64 " is in no RAM segment", pa);
		chunk = seg->len - (pa - seg->pa);
		if (chunk > len)
			chunk = len;
		n = pread(kc->fd, dst, chunk,
			  (off_t)(seg->offset + (pa - seg->pa)));
		if (n < 0)
			return kt_err_set(err, errno,
					  "read physical 0x%" PRIx64 ": %s", pa,
					  strerror(errno));
		if ((size_t)n != chunk)
			return kt_err_set(err, EIO,
					  "short read at physical 0x%" PRIx64, pa);
		dst += chunk;
		pa += chunk;
		len -= chunk;
	}
	return 0;
}

static int kcore_vmcoreinfo(struct kt_memsrc *src, const char *key,
			    char *val, size_t len, struct kt_err *err)
{
	struct kcore *kc = src->priv;

	if (!kc->vmcoreinfo)
		return kt_err_set(err, ENOENT, "%s has no VMCOREINFO note",
				  src->path);
	return kt_vmcoreinfo_lookup(kc->vmcoreinfo, key, val, len, err);
}

static void kcore_close(struct kt_memsrc *src)
{
	struct kcore *kc = src->priv;

	close(kc->fd);
	free(kc->vmcoreinfo);
	free(kc->segments);
	free(kc);
}

static const struct kt_memsrc_ops kcore_ops = {
	.name = "kcore",
	.read_phys = kcore_read_phys,
	.vmcoreinfo = kcore_vmcoreinfo,
	.close = kcore_close,
};

/*
 * The text segment also carries a p_paddr, but reads through it follow
 * this CPU's page tables. The direct map is the one VA-PA offset that
 * covers the most bytes; drop every segment with another offset.
 */
static void kcore_keep_direct_map(struct kcore *kc)
{
	uint64_t best_offset = 0, best_len = 0;
	size_t i, j, kept = 0;

	for (i = 0; i < kc->nr_segments; i++) {
		uint64_t off = kc->segments[i].va - kc->segments[i].pa, len = 0;

		for (j = 0; j < kc->nr_segments; j++)
			if (kc->segments[j].va - kc->segments[j].pa == off)
				len += kc->segments[j].len;
		if (len > best_len) {
			best_len = len;
			best_offset = off;
		}
	}
	for (i = 0; i < kc->nr_segments; i++)
		if (kc->segments[i].va - kc->segments[i].pa == best_offset)
			kc->segments[kept++] = kc->segments[i];
	kc->nr_segments = kept;
}

/* kcore has carried the VMCOREINFO note since Linux 4.19 */
static void kcore_load_vmcoreinfo(struct kcore *kc, Elf *elf,
				  const GElf_Phdr *phdr)
{
	size_t off = 0, name_off, desc_off;
	Elf_Data *data;
	GElf_Nhdr nhdr;

	data = elf_getdata_rawchunk(elf, phdr->p_offset, phdr->p_filesz,
				    ELF_T_NHDR);
	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
		if (nhdr.n_namesz == sizeof("VMCOREINFO") &&
		    !memcmp((char *)data->d_buf + name_off, "VMCOREINFO",
			    sizeof("VMCOREINFO")) && !kc->vmcoreinfo) {
			kc->vmcoreinfo = strndup((char *)data->d_buf + desc_off,
						 nhdr.n_descsz);
		}
	}
}

static int kcore_load_segments(struct kcore *kc, const char *path,
			       struct kt_err *err)
{
	size_t nr_phdrs, i;
	Elf *elf;
	int ret = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(kc->fd, ELF_C_READ, NULL);
	if (!elf) {
		ret = kt_err_set(err, EINVAL, "%s: cannot read ELF: %s", path,
				 elf_errmsg(-1));
		goto out;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		ret = kt_err_set(err, EINVAL, "%s: not an ELF core file", path);
		goto out;
	}
	if (elf_getphdrnum(elf, &nr_phdrs)) {
		ret = kt_err_set(err, EINVAL, "%s: no program headers: %s",
				 path, elf_errmsg(-1));
		goto out;
	}
	kc->segments = calloc(nr_phdrs ? nr_phdrs : 1, sizeof(*kc->segments));
	if (!kc->segments) {
		ret = kt_err_set(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (i = 0; i < nr_phdrs; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			continue;
		if (phdr.p_type == PT_NOTE)
			kcore_load_vmcoreinfo(kc, elf, &phdr);
		if (phdr.p_type != PT_LOAD)
			continue;
		/* kcore marks segments without a physical alias with -1 */
		if (phdr.p_paddr == (GElf_Addr)-1 || !phdr.p_filesz)
			continue;
		kc->segments[kc->nr_segments++] = (struct kcore_segment){
			.pa = phdr.p_paddr,
			.len = phdr.p_filesz,
			.offset = phdr.p_offset,
			.va = phdr.p_vaddr,
		};
	}
	kcore_keep_direct_map(kc);
	if (!kc->nr_segments)
		ret = kt_err_set(err, ENOENT,
				 "%s: no RAM segments with physical addresses", path);
out:
	if (elf)
		elf_end(elf);
	return ret;
}

int kt_memsrc_open_kcore(struct kt_memsrc **out, const char *path,
			 struct kt_err *err)
{
	struct kcore *kc;
	int ret;

	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
	kc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0) {
		/* not root, or lockdown=confidentiality: say which */
		ret = kt_lockdown_err(err, KT_LOCKDOWN_USE_KCORE, path, errno,
				      NULL);
		free(kc);
		return ret;
	}
	ret = kcore_load_segments(kc, path, err);
	if (!ret) {
		*out = kt_memsrc_new(&kcore_ops, kc, path);
		if (*out)
			return 0;
		ret = kt_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	close(kc->fd);
	free(kc->vmcoreinfo);
	free(kc->segments);
	free(kc);
	return ret;
}
