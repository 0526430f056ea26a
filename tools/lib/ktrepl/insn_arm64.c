// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 instruction forms the kernel patches between: every instruction
 * is 4 bytes, little-endian; the top byte ([3]) tells the class.
 */
#include "insn.h"

static bool is_bl(const uint8_t *i)
{
	return (i[3] & 0xfc) == 0x94;
}

static bool is_b(const uint8_t *i)
{
	return (i[3] & 0xfc) == 0x14;
}

static bool is_brk(const uint8_t *i)
{
	return i[3] == 0xd4 && (i[2] & 0xe0) == 0x20;
}

/* m and r start at the instruction */
const char *kt_arm64_classify(const uint8_t *m, const uint8_t *r,
			      uint64_t len, const char *sym)
{
	if (is_bl(m) || is_bl(r))
		return "ftrace";
	if (is_b(m) || is_b(r))
		return "jump_label";
	if (is_brk(m) || is_brk(r))
		return "kprobe";
	return NULL;
}

unsigned int kt_arm64_site_len(const uint8_t *m, const uint8_t *r,
			       uint64_t left)
{
	return 4;	/* the whole aligned instruction */
}
