// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 instruction forms the kernel patches between: NOPs, rel32 calls
 * and jumps, 2-byte jumps, int3, ret. The one place that knows them; the
 * arch object (arch_x86_64.c) points here.
 */
#include <stdlib.h>
#include <string.h>

#include "insn.h"

/* the kernel's 5-byte NOP (x86_nops[5]), what ftrace and jump labels use */
const uint8_t kt_x86_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
/* static_call's "return 0": cs cs cs xor %eax,%eax */
static const uint8_t xor5rax[5] = { 0x2e, 0x2e, 0x2e, 0x31, 0xc0 };

#define OP_CALL 0xe8
#define OP_JMP32 0xe9
#define OP_JMP8 0xeb
#define OP_INT3 0xcc
#define OP_RET 0xc3

static bool is_rel32(uint8_t op)
{
	return op == OP_CALL || op == OP_JMP32;
}

static bool is_nop2(const uint8_t *b)
{
	return b[0] == 0x66 && b[1] == 0x90;
}

static bool is_jcc32(const uint8_t *b)
{
	return b[0] == 0x0f && (b[1] & 0xf0) == 0x80;
}

/* is sym "name+0xOFF" with exactly this offset? */
static bool sym_offset_is(const char *sym, unsigned long long off)
{
	const char *plus = sym ? strrchr(sym, '+') : NULL;
	char *end;

	return plus && strtoull(plus + 1, &end, 16) == off && !*end &&
	       end != plus + 1;
}

const char *kt_x86_classify(const uint8_t *m, const uint8_t *r, uint64_t len,
			    const char *sym)
{
	bool m_nop5 = len <= 5 && !memcmp(m, kt_x86_nop5, len);
	bool r_nop5 = len <= 5 && !memcmp(r, kt_x86_nop5, len);
	/* ftrace's site is a function's first instruction, or after endbr64 */
	bool at_entry = sym_offset_is(sym, 0) || sym_offset_is(sym, 4);

	if (len == 1 && (m[0] == OP_INT3 || r[0] == OP_INT3))
		return "kprobe";
	if (len > 5)
		return NULL;
	if ((m_nop5 && r[0] == OP_CALL) || (r_nop5 && m[0] == OP_CALL))
		return at_entry ? "ftrace" : "call";
	if ((m_nop5 && r[0] == OP_JMP32) || (r_nop5 && m[0] == OP_JMP32))
		return "jump_label";
	if (len <= 2 && ((m[0] == 0x66 && r[0] == OP_JMP8) ||
			 (r[0] == 0x66 && m[0] == OP_JMP8)))
		return "jump_label";
	if (m[0] == OP_CALL && r[0] == OP_CALL)
		return at_entry ? "ftrace" : "call";
	if (is_rel32(m[0]) && is_rel32(r[0]))
		return "jump_label";
	return NULL;
}

unsigned int kt_x86_site_len(const uint8_t *m, const uint8_t *r, uint64_t left)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const uint8_t *a = i ? r : m, *b = i ? m : r;

		if (left >= 5 && !memcmp(a, kt_x86_nop5, 5) && is_rel32(b[0]))
			return 5;
		if (left >= 5 && a[0] == OP_CALL && b[0] == OP_JMP32)
			return 5;
		if (left >= 2 && is_nop2(a) && b[0] == OP_JMP8)
			return 2;
		if (a[0] == OP_INT3)
			return 1;
	}
	return 0;
}

/*
 * A changed call or jump target leaves the opcode byte equal, so the
 * range starts inside the instruction: back up to a shared e8/e9 that
 * the range fits behind.
 */
unsigned int kt_x86_insn_backup(const uint8_t *m, const uint8_t *r,
				uint64_t len)
{
	unsigned int k;

	if (len > 4)
		return 0;
	for (k = 1; k <= 4 && k + len <= 5; k++)
		if (m[4 - k] == r[4 - k] && is_rel32(m[4 - k]))
			return k;
	return 0;
}

unsigned int kt_x86_branch_len(const uint8_t *b)
{
	if (b[0] == OP_JMP8 || is_nop2(b))
		return 2;
	if (is_jcc32(b))
		return 6;
	return 5;
}

/* A site only excuses bytes that look like its own patching. */
bool kt_x86_site_bytes_valid(enum kt_site_kind kind, uint32_t len,
			     const uint8_t *mem)
{
	bool nop = len == 5 && !memcmp(mem, kt_x86_nop5, 5);
	bool rel32 = is_rel32(mem[0]);

	switch (kind) {
	case KT_SITE_FTRACE:
		return len != 5 || nop || rel32;
	case KT_SITE_JUMP_LABEL:
		if (len == 2)
			return is_nop2(mem) || mem[0] == OP_JMP8;
		return nop || mem[0] == OP_JMP32;
	case KT_SITE_STATIC_CALL:
		/* sites: call, jmp, NOP or ret; trampolines are longer */
		return len != 5 || nop || rel32 || mem[0] == OP_RET ||
		       !memcmp(mem, xor5rax, 5);
	case KT_SITE_RETURN_THUNK:
		return mem[0] == OP_RET || mem[0] == OP_JMP32 || is_jcc32(mem);
	case KT_SITE_LOCK_PREFIX:
		return mem[0] == 0xf0 || mem[0] == 0x3e;
	case KT_SITE_ENDBR_SEAL:
		/* ENDBR64, or the 4-byte NOP the boot poisons it with */
		return len == 4 && (!memcmp(mem, "\xf3\x0f\x1e\xfa", 4) ||
				    !memcmp(mem, "\x66\x0f\x1f\x00", 4));
	default:
		/* alternatives, retpolines, paravirt: any replacement;
		 * runtime constants: any value
		 */
		return true;
	}
}
