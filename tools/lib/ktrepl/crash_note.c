// SPDX-License-Identifier: GPL-2.0
/*
 * One CPU's crash note (include/linux/elfcore.h, kernel/crash_core.c):
 * an Elf64_Nhdr, the name "CORE" padded to 4 bytes, then struct
 * elf_prstatus, whose pr_reg is the architecture's user register set.
 */
#include <elf.h>
#include <string.h>

#include "crash_note.h"

/*
 * struct elf_prstatus_common on a 64-bit kernel: pr_info (12), pr_cursig
 * (2) and padding to 16, pr_sigpend and pr_sighold (8 each), then the
 * four pids, then four 16-byte timevals: pr_reg follows at 112.
 */
#define PRSTATUS_PID 32
#define PRSTATUS_REG 112

/* the header and "CORE" with its padding */
#define NOTE_DESC (sizeof(Elf64_Nhdr) + 8)

static size_t regs_need(const struct kt_arch *arch)
{
	unsigned int last = arch->prstatus_lr > arch->prstatus_pc ?
				    arch->prstatus_lr :
				    arch->prstatus_pc;

	return PRSTATUS_REG + last + 8;
}

size_t kt_crash_note_size(const struct kt_arch *arch)
{
	return NOTE_DESC + regs_need(arch);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int kt_crash_note_parse(const struct kt_arch *arch, const void *buf,
			size_t len, struct kt_crash_note *note,
			struct kt_err *err)
{
	static const uint8_t zero[sizeof(Elf64_Nhdr)];
	const uint8_t *p = buf;
	Elf64_Nhdr nh;
	size_t desc, need;
	int32_t pid;

	memset(note, 0, sizeof(*note));
	if (!arch->prstatus_pc)
		return kt_err_set(err, ENOTSUP,
				  "%s: no register layout for crash notes",
				  arch->name);
	if (len < sizeof(nh))
		return kt_err_set(err, EINVAL,
				  "crash note: %zu bytes, shorter than its header",
				  len);
	if (!memcmp(p, zero, sizeof(zero)))
		return kt_err_set(err, ENOENT,
				  "crash note: empty (this CPU saved no registers)");
	memcpy(&nh, p, sizeof(nh));
	desc = sizeof(nh) + ((nh.n_namesz + 3) & ~3u);
	if (nh.n_type != NT_PRSTATUS || nh.n_namesz != sizeof("CORE") ||
	    desc > len || memcmp(p + sizeof(nh), "CORE", sizeof("CORE")))
		return kt_err_set(err, EINVAL,
				  "crash note: type %u, name size %u: not the NT_PRSTATUS note of \"CORE\"",
				  nh.n_type, nh.n_namesz);
	need = regs_need(arch);
	if (nh.n_descsz < need || desc + need > len)
		return kt_err_set(err, EINVAL,
				  "crash note: prstatus of %u bytes (%zu readable), %s's registers need %zu",
				  nh.n_descsz, len - desc, arch->name, need);
	memcpy(&pid, p + desc + PRSTATUS_PID, sizeof(pid));
	note->pid = pid;
	note->pc = get64(p + desc + PRSTATUS_REG + arch->prstatus_pc);
	if (arch->prstatus_lr)
		note->lr = get64(p + desc + PRSTATUS_REG + arch->prstatus_lr);
	return 0;
}
