// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU's crash note, as crash_save_cpu() writes it: the registers that
 * crash> ktrepl -p falls back to where crash names no panic task. The
 * layout here is written from the kernel's structs (elfcore.h, each
 * arch's user register set) and measured by the compiler, apart from
 * the library's offsets.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "crash_note.h"
#include "tap.h"

struct timeval64 {
	int64_t sec, usec;
};

/* struct elf_prstatus on a 64-bit kernel, pr_reg as arm64's (the larger) */
struct prstatus {
	int32_t si_signo, si_code, si_errno;
	int16_t cursig;
	uint64_t sigpend, sighold;
	int32_t pid, ppid, pgrp, sid;
	struct timeval64 utime, stime, cutime, cstime;
	uint64_t reg[34];
	int32_t fpvalid;
};

/*
 * append_elf_note() rounds the header and the name to 4 bytes, no more:
 * the prstatus starts at 20, not on its own alignment
 */
struct note {
	Elf64_Nhdr nh;
	char name[8];
	struct prstatus pr;
} __attribute__((packed));

/* user_regs_struct: r15 ... orig_ax, rip (the 17th); user_pt_regs: x0..x30, sp, pc */
#define X86_RIP 16
#define ARM64_LR 30
#define ARM64_PC 32

static void note_init(struct note *n, int pid)
{
	int i;

	memset(n, 0, sizeof(*n));
	n->nh.n_namesz = sizeof("CORE");
	n->nh.n_descsz = sizeof(n->pr);
	n->nh.n_type = NT_PRSTATUS;
	memcpy(n->name, "CORE", sizeof("CORE"));
	n->pr.pid = pid;
	n->pr.ppid = pid - 1;
	for (i = 0; i < 34; i++)
		n->pr.reg[i] = 0xffff800008000000ull + 0x100 * i;
}

static void test_layouts(void)
{
	struct kt_crash_note cn;
	struct kt_err err;
	struct note n;
	int ret;

	tap_eq_u64(offsetof(struct prstatus, reg), 112,
		   "the test's prstatus puts pr_reg where the kernel does");
	tap_eq_u64(offsetof(struct note, pr), 20,
		   "the test's note puts the prstatus where the kernel does");
	note_init(&n, 4242);
	kt_err_clear(&err);
	ret = kt_crash_note_parse(&kt_arch_x86_64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, 0, "x86_64: an NT_PRSTATUS note parses (%s)", err.msg);
	tap_eq_u64(cn.pid, 4242, "x86_64: pr_pid");
	tap_eq_u64(cn.pc, n.pr.reg[X86_RIP], "x86_64: the pc is rip");
	tap_eq_u64(cn.lr, 0, "x86_64: no link register");

	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, 0, "arm64: an NT_PRSTATUS note parses (%s)", err.msg);
	tap_eq_u64(cn.pid, 4242, "arm64: pr_pid");
	tap_eq_u64(cn.pc, n.pr.reg[ARM64_PC], "arm64: the pc");
	tap_eq_u64(cn.lr, n.pr.reg[ARM64_LR], "arm64: the link register, x30");

	/* what the parser needs is what the caller reads: no more */
	tap_eq_u64(kt_crash_note_size(&kt_arch_x86_64),
		   offsetof(struct note, pr.reg[X86_RIP + 1]),
		   "x86_64: the note's size to read ends with rip");
	tap_eq_u64(kt_crash_note_size(&kt_arch_arm64),
		   offsetof(struct note, pr.reg[ARM64_PC + 1]),
		   "arm64: the note's size to read ends with the pc");
	ret = kt_crash_note_parse(&kt_arch_arm64, &n,
				  kt_crash_note_size(&kt_arch_arm64), &cn,
				  &err);
	tap_eq_s64(ret, 0, "arm64: exactly that many bytes parse (%s)",
		   err.msg);
}

static void test_refusals(void)
{
	struct kt_crash_note cn;
	struct kt_err err;
	struct note n;
	int ret;

	memset(&n, 0, sizeof(n));
	kt_err_clear(&err);
	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, -ENOENT,
		   "a CPU that saved nothing (zeros) is -ENOENT: %s", err.msg);

	note_init(&n, 1);
	n.nh.n_type = NT_PRFPREG;
	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, -EINVAL, "another note type is refused: %s", err.msg);

	note_init(&n, 1);
	memcpy(n.name, "LINU", 5);
	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, -EINVAL, "another owner than CORE is refused");

	note_init(&n, 1);
	n.nh.n_descsz = offsetof(struct prstatus, reg[ARM64_PC]);
	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(n), &cn, &err);
	tap_eq_s64(ret, -EINVAL,
		   "a prstatus that ends before the pc is refused: %s",
		   err.msg);

	note_init(&n, 1);
	ret = kt_crash_note_parse(&kt_arch_arm64, &n,
				  kt_crash_note_size(&kt_arch_arm64) - 1, &cn,
				  &err);
	tap_eq_s64(ret, -EINVAL, "a buffer one byte short is refused: %s",
		   err.msg);

	ret = kt_crash_note_parse(&kt_arch_arm64, &n, sizeof(Elf64_Nhdr) - 1,
				  &cn, &err);
	tap_eq_s64(ret, -EINVAL, "a buffer shorter than the header is refused");
	tap_eq_u64(cn.pc, 0, "a refused note leaves no pc behind");
}

int main(void)
{
	tap_header();
	tap_plan(20);
	test_layouts();
	test_refusals();
	return tap_finish();
}
