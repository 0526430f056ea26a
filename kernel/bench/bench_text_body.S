/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's text: KTREPL_BENCH_TEXT_BYTES of straight-line integer
 * adds (set by the build, see kernel/Kbuild), no branch, no load, no
 * store. Four independent chains keep the core from waiting on its own
 * results, so a pass is bound by how fast the CPU fetches the
 * instructions, which is what replication changes. Every instruction is
 * 4 bytes on both arches; the body is a whole number of 64 KiB blocks.
 *
 * The first block is assembled from the mnemonics; the others repeat
 * their encoding as words. Parsing eight million instructions cost the
 * assembler 20 s (x86_64) to 50 s (arm64) of every build, DKMS's on a
 * user's host included; the words cost it 3 to 4 s. t16 checks that
 * every block of a built module is the first one's bytes.
 */
#include <linux/linkage.h>

#define KTREPL_BENCH_BLOCKS (KTREPL_BENCH_TEXT_BYTES / 65536)

	.text
	.balign 64
/* unsigned long ktrepl_bench_text_body(void): the sum of the chains */
SYM_FUNC_START(ktrepl_bench_text_body)
#if defined(CONFIG_X86_64)
	xorl	%eax, %eax
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%esi, %esi
	.rept	4096
	addq	$1, %rax
	addq	$1, %rcx
	addq	$1, %rdx
	addq	$1, %rsi
	.endr
	/* 48 83 c0 01, 48 83 c1 01, 48 83 c2 01, 48 83 c6 01 */
	.rept	KTREPL_BENCH_BLOCKS - 1
	.rept	4096
	.quad	0x01c1834801c08348, 0x01c6834801c28348
	.endr
	.endr
	addq	%rcx, %rax
	addq	%rdx, %rax
	addq	%rsi, %rax
	RET
#elif defined(CONFIG_ARM64)
	mov	x0, #0
	mov	x1, #0
	mov	x2, #0
	mov	x3, #0
	.rept	4096
	add	x0, x0, #1
	add	x1, x1, #1
	add	x2, x2, #1
	add	x3, x3, #1
	.endr
	.rept	KTREPL_BENCH_BLOCKS - 1
	.rept	4096
	.inst	0x91000400, 0x91000421, 0x91000442, 0x91000463
	.endr
	.endr
	add	x0, x0, x1
	add	x0, x0, x2
	add	x0, x0, x3
	ret
#else
#error "ktrepl_bench_text is built for x86_64 and arm64 only"
#endif
SYM_FUNC_END(ktrepl_bench_text_body)
