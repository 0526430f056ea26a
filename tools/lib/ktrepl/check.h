/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_CHECK_H
#define KTREPL_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "memsrc.h"
#include "pgtable.h"
#include "state.h"
#include "symbols.h"
#include "vmlinux_text.h"

/* What every check needs: the state, memory, paging and symbols. */
struct kt_target {
	struct kt_state *st;
	struct kt_memsrc *src;
	const struct kt_arch *arch;
	struct kt_pt_geometry geo;
	struct kt_symtab *syms;	/* may be NULL */
	/*
	 * Optional: loads syms on first use. Symbols are only needed to name
	 * a divergence, and a healthy check should not pay for parsing them.
	 */
	struct kt_symtab *(*load_syms)(struct kt_target *t);
	void *load_arg;
	/*
	 * Optional, live kernels only: the kernel's patch window, odd while
	 * a patch is half made (the replicas written, the master not yet).
	 * A differing range is read again inside one even value of it
	 * before it is reported. NULL: memory at rest, such as a dump.
	 */
	int (*patch_window)(struct kt_target *t, uint64_t *window,
			    struct kt_err *err);
	struct kt_settle_stats {
		uint64_t rechecked;	/* differing ranges read again */
		uint64_t transient;	/* equal at rest: a patch in flight */
		uint64_t unsettled;	/* never read at rest */
	} settle;
};

/* re-reads of a differing range before it counts as unsettled */
#define KT_SETTLE_TRIES 40

/* arch and paging geometry from the state, built once */
int kt_target_init(struct kt_target *t, struct kt_state *st,
		   struct kt_memsrc *src, struct kt_symtab *syms,
		   struct kt_err *err);
/*
 * A dump (or crash's memory) as a target: find and load its descriptor
 * into st, refuse a dump with nothing replicated, then kt_target_init.
 * On error st holds nothing to free.
 */
int kt_target_open_dump(struct kt_target *t, struct kt_state *st,
			struct kt_memsrc *src, struct kt_symtab *syms,
			struct kt_err *err);

/* bytes of the master's text or rodata at va, through its extents */
int kt_read_master(struct kt_target *t, uint64_t va, void *buf,
		   uint64_t len, struct kt_err *err);

/* x86_64 __START_KERNEL_map: the image entry a bound mm points at a set */
#define KT_KERNEL_IMAGE_VA 0xffffffff80000000ULL

#define KT_DIFF_SHOW 32
#define KT_DIFF_CONTEXT 8

/* One coalesced range where a replica differs from the master. */
struct kt_diff {
	int node;
	int region;
	uint64_t va;
	uint64_t len;
	uint64_t master_pa;
	uint64_t replica_pa;
	uint8_t master[KT_DIFF_SHOW];
	uint8_t replica[KT_DIFF_SHOW];
	uint8_t before[KT_DIFF_CONTEXT];	/* master bytes before va */
	uint8_t after[KT_DIFF_CONTEXT];		/* master bytes after */
	char sym[160];
	const char *kind;	/* ftrace, jump_label, kprobe, ... unknown */
	bool vs_file;	/* master: memory, replica: the vmlinux file */
	/* it differed at every read, but never with no patch in flight */
	bool unsettled;
};

struct kt_diff_opts {
	int node;	/* -1: every replica node */
	int region;	/* -1: every region */
};

typedef int (*kt_diff_fn)(const struct kt_diff *d, void *arg);

/*
 * Compare every replica byte with the master's; fn gets each range.
 * *compared counts the bytes read from each side.
 */
int kt_diff_run(struct kt_target *t, const struct kt_diff_opts *opts,
		kt_diff_fn fn, void *arg, uint64_t *compared,
		struct kt_err *err);

#define KT_VDIFF_MAX_KINDS 24

struct kt_vdiff_stats {
	uint64_t compared;
	int64_t slide;		/* KASLR: runtime minus link address */
	uint64_t unexplained;	/* ranges no patch site or relocation explains */
	bool relocs_inferred;	/* see struct kt_vmlinux */
	struct {
		const char *name;
		uint64_t ranges;
	} kinds[KT_VDIFF_MAX_KINDS];
	size_t nr_kinds;
};

/*
 * Compare the master's text with the vmlinux file's. Each differing
 * range is classified by the file's patch-site tables, as a KASLR
 * relocation, or by its bytes; fn gets the unexplained ones (all of them
 * with all). In the kt_diff, master holds memory and replica the file.
 */
int kt_diff_vmlinux_run(struct kt_target *t, const struct kt_vmlinux *v,
			bool all, kt_diff_fn fn, void *arg,
			struct kt_vdiff_stats *stats, struct kt_err *err);


enum kt_violation_kind {
	KT_V_BYTES,		/* replica bytes differ */
	KT_V_LOCALITY,		/* mapped to memory of another node */
	KT_V_UNMAPPED,		/* replicated VA not mapped in a node */
	KT_V_ROOT,		/* shared top-level entry differs */
	KT_V_WRITABLE_TEXT,
	KT_V_EXEC_RODATA,
	KT_V_WRITABLE_ALIAS,	/* replica writable through the direct map */
	KT_V_CPU_ROOT,		/* a CPU runs on another node's tables */
	KT_V_TASK_ROOT,		/* a replica task runs on the wrong tables */
	KT_V_STALE_TABLE,	/* a lower node table entry missed an update */
	KT_V_MM_ENTRY,		/* a bound process's mm is not on its set */
	/*
	 * Not a divergence: bytes that differed at every read while the
	 * kernel kept patching them. The check could not conclude.
	 */
	KT_V_UNSETTLED,
	/*
	 * Not a divergence either: node table entries (a run of them in one
	 * table, len bytes from va) that look like copies of modules the
	 * state does not list (kt_state.modules_incomplete): the state
	 * cannot say what they should be, so they are not judged.
	 */
	KT_V_NOT_COVERED,
	/*
	 * The engine went through fail-safe (a write the replicas may have
	 * missed) since the last verify, or is in it now: replicas may have
	 * run stale text. got is the event count, want the count already
	 * reported.
	 */
	KT_V_FAILSAFE,
	KT_V_NR
};

extern const char *const kt_violation_names[KT_V_NR];

struct kt_violation {
	enum kt_violation_kind kind;
	int node;
	int cpu;		/* or pid for task roots */
	uint64_t va;
	uint64_t len;
	uint64_t pa;
	int pa_node;
	int expected_node;
	int level;		/* of the table holding the entry */
	unsigned int index;	/* entry in that table */
	unsigned int entries;	/* KT_V_NOT_COVERED: from index on, len */
	uint64_t got;		/* entry or root value seen */
	uint64_t want;		/* and expected */
	const struct kt_diff *diff;	/* KT_V_BYTES only */
};

typedef int (*kt_violation_fn)(const struct kt_violation *v, void *arg);

/* verify's checks, in the order they run (kt_verify_check_names[]) */
enum {
	KT_VERIFY_FAILSAFE,
	KT_VERIFY_BYTES,
	KT_VERIFY_NODE_TABLES,
	KT_VERIFY_ALIASES,
	KT_VERIFY_TABLES_IN_USE,
	KT_VERIFY_NR_CHECKS
};

extern const char *const kt_verify_check_names[KT_VERIFY_NR_CHECKS];

struct kt_verify_stats {
	uint64_t check_ns[KT_VERIFY_NR_CHECKS];	/* each check's wall time */
	uint64_t compared_bytes;
	uint64_t rechecked;	/* differing ranges read again at rest */
	uint64_t transient;	/* and found equal: patches in flight */
	uint64_t mappings;
	uint64_t tables;	/* node table pages compared */
	unsigned int nodes;
	unsigned int count[KT_V_NR];
	/* violations: every kind but KT_V_NOT_COVERED, which is no verdict */
	unsigned int total;
};

int kt_verify_run(struct kt_target *t, kt_violation_fn fn, void *arg,
		  struct kt_verify_stats *stats, struct kt_err *err);

/* the target's symbols, loaded on first use; NULL when there are none */
struct kt_symtab *kt_target_symbols(struct kt_target *t);

/*
 * A kernel address's name: its symbol, loading symbols on first use; or
 * where none covers it (module text in a dump with no module symbols)
 * the module and the offset into its text or rodata, "[vfat]+0x1a4" or
 * "[vfat rodata]+0x10"; or the address. Returns whether a symbol named
 * it (instruction classes read a symbol's offset, never a region's).
 */
bool kt_target_name_addr(struct kt_target *t, uint64_t va, char *buf,
			 size_t len);

/* Whose tables a page-table root is (root_owner.c). */
enum kt_root_kind {
	KT_ROOT_SET,		/* a set's own root */
	KT_ROOT_MM,		/* an mm over a set's kernel image entry (mm) */
	KT_ROOT_UNOWNED,	/* tables no set owns: freed, or foreign */
};

struct kt_root_owner {
	enum kt_root_kind kind;
	int node;		/* the set's node; -1 when unowned */
	uint64_t set_root_pa;	/* the set's root; 0 when unowned */
	bool master;		/* the set is the master's */
	int pid;		/* the bound process whose mm it is, or -1 */
};

/*
 * From the state alone: true when that settles it (a set's root, or any
 * root outside mm), false when only the root's tables can (an mm's root
 * under mm; kt_root_owner reads them). The printers, which hold no
 * target, use this; verify and crash> ktrepl -c use kt_root_owner.
 */
bool kt_state_root_owner(const struct kt_state *st, uint64_t root,
			 struct kt_root_owner *o);
int kt_root_owner(struct kt_target *t, uint64_t root, struct kt_root_owner *o,
		  struct kt_err *err);

#endif
