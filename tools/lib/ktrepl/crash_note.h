/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_CRASH_NOTE_H
#define KTREPL_CRASH_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "pgtable.h"

/*
 * What a CPU saved of itself when the kernel crashed: crash_save_cpu()
 * writes one ELF note (NT_PRSTATUS, "CORE") per CPU into the per-CPU
 * crash_notes buffer, with the registers of the trap that killed it on
 * the crashing CPU. A dump holds that buffer in memory even where the
 * dump tool names no panic task, so it is the record of last resort.
 */
struct kt_crash_note {
	int pid;		/* pr_pid: the task that was current */
	uint64_t pc;		/* the trapping or interrupted instruction */
	uint64_t lr;		/* arm64's link register (x30); 0 elsewhere */
};

/*
 * Parse the note at buf (len bytes, the start of one CPU's crash_notes
 * buffer) with arch's register layout. -ENOENT: the CPU saved nothing
 * (an all-zero buffer); -EINVAL: not an NT_PRSTATUS note of "CORE", or
 * shorter than the registers need.
 */
/* the bytes of a crash note that hold everything the parser reads */
size_t kt_crash_note_size(const struct kt_arch *arch);

int kt_crash_note_parse(const struct kt_arch *arch, const void *buf,
			size_t len, struct kt_crash_note *note,
			struct kt_err *err);

#endif
