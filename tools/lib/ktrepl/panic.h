/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_PANIC_H
#define KTREPL_PANIC_H

/*
 * Did a replica divergence cause this panic? One rule for crash> ktrepl
 * -p, which knows the panic from crash's backtrace, and for ktrepl-dump
 * triage, which has no crash and no -dbg vmlinux and knows it from the
 * kernel's own record: panic_cpu, and the registers that CPU saved in its
 * crash note. Either way: the set the panicking CPU fetched its text
 * through, the ranges where that set's node differs from the master,
 * and whether an instruction it was executing or returning to lies in
 * one of them.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "crash_note.h"
#include "err.h"
#include "symbols.h"

#define KT_PANIC_MAX_ADDRS 64
/* ranges kept per verdict; a replica with more is damaged beyond this */
#define KT_PANIC_MAX_RANGES 4096

/* What says which set the panicking thread ran on. */
enum kt_panic_set_why {
	KT_PANIC_SET_LATE,	/* its node was onlined after load: master */
	KT_PANIC_SET_PERCPU,	/* percpu: every CPU on its node's set */
	KT_PANIC_SET_BOUND,	/* its process was bound to a node's set */
	KT_PANIC_SET_WORKER,	/* a ktrepl worker on a node's set */
	KT_PANIC_SET_ROOT,	/* the root its CPU had at the panic */
	KT_PANIC_SET_MASTER,	/* nothing put it on a replica */
	KT_PANIC_SET_NR
};

extern const char *const kt_panic_set_names[KT_PANIC_SET_NR];

struct kt_panic_set {
	enum kt_panic_set_why why;
	int cpu_node;		/* the CPU's node; -1: not in the descriptor */
	/* the set's node; NULL: the descriptor has no such node */
	const struct kt_node_state *ns;
	const struct kt_bound_state *bound;	/* KT_PANIC_SET_BOUND */
	const struct kt_task_state *task;	/* KT_PANIC_SET_WORKER */
	uint64_t root;				/* KT_PANIC_SET_ROOT */
};

/*
 * The set that thread pid of process tgid (0: unknown) ran on, on cpu.
 * -ENOENT when the descriptor does not list the CPU.
 */
int kt_panic_set_of(struct kt_target *t, int cpu, long pid, long tgid,
		    struct kt_panic_set *set, struct kt_err *err);

/* The kernel's own record of a panic, read from a dump. */
struct kt_panic_record {
	int cpu;		/* panic_cpu; -1: no CPU claimed the panic */
	bool have_note;		/* note holds that CPU's registers */
	struct kt_crash_note note;
	const char *why_no_note;	/* static text, when !have_note */
	/* "descriptor" (ktrepl's panic site) or "crash_note" (the kernel's) */
	const char *from;
};

/*
 * Where the panic was: the descriptor's panic site where the module
 * recorded one (no symbol needed: arm64's Debian kallsyms has no data
 * symbols), else panic_cpu and its crash note, read through the master's
 * tables at the addresses syms gives (syms may be NULL then). -ENOENT:
 * neither says (no site, and syms lacks panic_cpu); reads that fail
 * leave have_note false.
 */
int kt_panic_record_read(struct kt_target *t, const struct kt_symtab *syms,
			 struct kt_panic_record *rec, struct kt_err *err);

enum kt_panic_outcome {
	KT_PANIC_UNKNOWN,	/* no address to judge */
	KT_PANIC_NOT_DIVERGED,	/* no address in a diverged range */
	KT_PANIC_DIVERGED,	/* one or more addresses in one */
	KT_PANIC_NR_OUTCOMES
};

extern const char *const kt_panic_outcome_names[KT_PANIC_NR_OUTCOMES];

struct kt_panic_verdict {
	enum kt_panic_outcome outcome;
	/* the ranges: the set's node against the master, and any added */
	struct kt_diff *ranges;
	size_t nr_ranges;
	bool ranges_truncated;	/* more than KT_PANIC_MAX_RANGES */
	uint64_t addrs[KT_PANIC_MAX_ADDRS];
	int nr_addrs;
	int addr_range[KT_PANIC_MAX_ADDRS];	/* into ranges, or -1 */
	unsigned int ranges_hit;	/* distinct ranges an address is in */
};

/* the ranges where set's node differs from the master (none: master) */
int kt_panic_ranges(struct kt_target *t, const struct kt_panic_set *set,
		    struct kt_panic_verdict *v, struct kt_err *err);
/* a kt_diff_fn that adds d to the kt_panic_verdict arg */
int kt_panic_add_range(const struct kt_diff *d, void *arg);
/*
 * Judge nr addresses (executing or returning to) against the ranges. An
 * instruction starting up to one instruction's length before a diverged
 * byte may contain it.
 */
void kt_panic_match(struct kt_target *t, struct kt_panic_verdict *v,
		    const uint64_t *addrs, int nr);
void kt_panic_verdict_free(struct kt_panic_verdict *v);

/* ktrepl-dump triage's word for one saved dump: verdict files, metrics */
enum kt_triage_verdict {
	KT_TRIAGE_DIVERGED,	/* the panic ran through a diverged range */
	KT_TRIAGE_NOT_DIVERGED,	/* it did not */
	KT_TRIAGE_UNKNOWN,	/* nothing in the dump says where it was */
	KT_TRIAGE_NO_KTREPL,	/* no trusted ktrepl descriptor in the dump */
	KT_TRIAGE_DAMAGED,	/* the dump, or part of it, cannot be read */
	KT_TRIAGE_FAILED,	/* the analysis died or ran out of time */
	KT_TRIAGE_NR
};

extern const char *const kt_triage_verdict_names[KT_TRIAGE_NR];
/* the verdict named name, or KT_TRIAGE_NR */
enum kt_triage_verdict kt_triage_verdict_parse(const char *name);

#endif
