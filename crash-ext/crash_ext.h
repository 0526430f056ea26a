/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crash> ktrepl, one file per command group: session.c opens the dump
 * through tools/lib/ktrepl (memory from crash's readmem(), symbols from
 * crash's table), panic.c is -p, roots.c is -c, ktrepl.c the command.
 */
#ifndef KTREPL_CRASH_EXT_H
#define KTREPL_CRASH_EXT_H

#include "defs.h"

#include "check.h"
#include "memsrc.h"
#include "output.h"
#include "report.h"
#include "state.h"
#include "symbols.h"

struct session {
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_symtab syms;
	struct kt_target t;
	struct kt_out out;
};

/* len bytes at a kernel symbol plus offset; false where crash cannot */
bool crash_read_symbol(char *sym, ulong offset, void *buf, long len);

/* false after saying why in crash's output */
bool session_open(struct session *s);
void session_close(struct session *s);

/* -p: did a replica divergence on the panicking CPU's node kill it? */
void panic_analysis(struct session *s);
/* -c: the root each CPU had loaded when the dump was taken */
void cpu_roots(struct session *s);

#endif
