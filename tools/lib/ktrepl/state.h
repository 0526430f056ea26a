/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_STATE_H
#define KTREPL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "ktrepl_abi.h"
#include "ktrepl_desc.h"
#include "memsrc.h"
#include "numa.h"	/* KT_MAX_NODES, KT_MAX_CPUS */

/* The ABI versions this library reads; see docs/abi.md. */
#define KT_ABI_MIN 1
#define KT_ABI_MAX 1

/*
 * A node's CPU list as text ("0-27,56-83"): room for any list of CPUs
 * below KT_MAX_CPUS; a longer one is refused, never cut.
 */
#define KT_CPULIST_MAX 4096

/* A node's part, as KTREPL_DESC_ROLE_* numbers it in the descriptor. */
/* the descriptor's KTREPL_DESC_ROLE_*, by number (ktrepl_desc.h) */
enum kt_role {
	KT_ROLE_NONE = KTREPL_DESC_ROLE_NONE,
	KT_ROLE_MASTER = KTREPL_DESC_ROLE_MASTER,
	KT_ROLE_REPLICA = KTREPL_DESC_ROLE_REPLICA,
	KT_ROLE_ALIAS = KTREPL_DESC_ROLE_ALIAS,
	KT_ROLE_LATE = KTREPL_DESC_ROLE_LATE,
	KT_ROLE_NR = KTREPL_DESC_ROLE_NR
};

/* Who runs on the replicas: the kernel's own list (ktrepl_abi.h). */
enum kt_activation {
	KT_ACT_NONE = KTREPL_ACT_NONE,
	KT_ACT_INACTIVE = KTREPL_ACT_INACTIVE,
	KT_ACT_WORKLOAD = KTREPL_ACT_WORKLOAD,
	KT_ACT_PERCPU = KTREPL_ACT_PERCPU,
	KT_ACT_MM = KTREPL_ACT_MM,
	KT_ACT_GONE = KTREPL_ACT_NR,	/* the module went away meanwhile */
	KT_ACT_NR
};

const char *kt_role_name(enum kt_role role);
const char *kt_activation_name(enum kt_activation act);
/* 0, or -1 for a name this library does not know */
int kt_role_parse(const char *name, enum kt_role *role);
int kt_activation_parse(const char *name, enum kt_activation *act);

struct kt_node_state {
	int nid;
	int memory_node;
	bool has_memory;
	enum kt_role role;
	char cpus[KT_CPULIST_MAX];
	uint64_t root_pa;
	uint64_t overhead;
	uint64_t mem_start;
	uint64_t mem_end;
};

/*
 * A replicated range: the image's "text" and "rodata", or a module's
 * text and rodata as "module:NAME", text up to text_end. From Linux 6.4 a
 * module's rodata is an area of its own: "module:NAME" is then its text
 * and "module:NAME/rodata" (KT_MODULE_RODATA) its rodata.
 */
struct kt_region_state {
	char name[72];
	uint64_t start;
	uint64_t end;
	uint64_t text_end;	/* [start, text_end) is text */
	bool module;
	int orig_node;		/* module: node of its own pages, or -1 */
	unsigned int master_copies;	/* module: pages the master runs copied */
};

#define KT_MODULE_PREFIX "module:"
#define KT_MODULE_RODATA "/rodata"

struct kt_extent_state {
	int node;
	int region;
	uint64_t va;
	uint64_t pa;
	uint64_t size;
	uint64_t page_size;
	int pa_node;
};

struct kt_cpu_state {
	int cpu;
	int node;
	uint64_t loaded_root_pa;
	uint64_t expected_root_pa;
	/*
	 * loaded_root_pa is what the module recorded at its last switch
	 * (a dump's descriptor), not what was read from the CPU
	 */
	bool root_recorded;
	/*
	 * loaded_root_pa is what the CPU itself read when it stopped for a
	 * crash dump (the descriptor's panic_root[]): the truth, on kdump
	 * dumps of both arches
	 */
	bool root_at_panic;
};

struct kt_task_state {
	int pid;
	char comm[16];
	int node;
	int cpu;
	uint64_t root_pa;
	uint64_t expected_root_pa;
	uint64_t iterations;
	uint64_t probe;
	uint64_t since_ns;	/* perf clock: on expected_root_pa from then */
	char tables[8];		/* node, or master */
};

/* a process whose mm runs on a node's set (activation mm; "bind") */
struct kt_bound_state {
	int pid;
	char comm[16];
	int node;
	bool manual;
	uint64_t mm_pgd_pa;
	uint64_t root_pa;	/* the set's root */
	uint64_t since_ns;	/* perf clock: on root_pa's set from then */
	uint64_t until_ns;	/* bound_past: until then; 0 while bound */
};

/*
 * Everything known about one kernel's replication, whatever it was read
 * from (the debugfs files of a live kernel, or the descriptor in a
 * vmcore). Field names follow the debugfs ABI.
 */
struct kt_state {
	int abi;
	char provider[32];
	char arch[16];
	unsigned int paging_levels;
	unsigned int va_bits;
	uint64_t page_size;
	int master_node;
	unsigned int nodes_online;
	enum kt_activation activation;
	/* why not the activation asked for ("-": it was); live only */
	char activation_reason[64];
	int propagate;
	uint64_t patches;
	uint64_t patch_window;	/* as last read: kt_state_patch_window() */
	uint64_t patch_bytes;
	uint64_t patches_missed;
	uint64_t overhead;
	uint64_t master_root_pa;
	uint64_t direct_map;
	uint64_t load_ns;	/* identifies one load of the module */
	/*
	 * Fail-safe (summary: failsafe, failsafe_active, failsafe_reason):
	 * events since load, whether replication is off because of one now,
	 * the last one's reason. failsafe_seen is the caller's: events an
	 * earlier verify already reported (0: report every one).
	 */
	uint64_t failsafe;
	bool failsafe_active;
	char failsafe_reason[32];
	uint64_t failsafe_seen;

	/*
	 * On the heap, grown as records come (kt_state_add_node, _region):
	 * nodes up to KT_MAX_NODES, regions without a limit (the image's,
	 * and one or two per replicated module). kt_state_free frees them.
	 */
	struct kt_node_state *nodes;
	int nr_nodes;
	struct kt_region_state *regions;
	int nr_regions;
	size_t nodes_cap, regions_cap;
	/* region indices sorted by name, for kt_state_region; may be stale */
	int *by_name;
	int nr_by_name;
	/* module records read ("module:NAME" regions, rodata not counted) */
	unsigned int nr_modules;
	/*
	 * The kernel replicates modules this state does not list: a
	 * descriptor that says it left modules_omitted out (a lower bound;
	 * 0 where it cannot say), an older one whose every slot is used, or
	 * a debugfs list as long as the kernel's KTREPL_MAX_MODULES. Their
	 * copies are then in node tables that nothing here explains
	 * (verify's "not-covered").
	 */
	bool modules_incomplete;
	unsigned int modules_omitted;
	struct kt_extent_state *extents;
	size_t nr_extents;
	struct kt_cpu_state *cpus;
	size_t nr_cpus;
	size_t panic_roots;	/* CPUs whose root_at_panic is set */
	struct kt_task_state *tasks;
	size_t nr_tasks;
	struct kt_bound_state *bound;
	size_t nr_bound;
	/*
	 * Bound processes the state does not list: a descriptor that counted
	 * bound_omitted past its slots, or an older one whose every slot is
	 * used (then bound_omitted is 0: it cannot say). Their samples
	 * resolve to the master's tables.
	 */
	bool bound_incomplete;
	unsigned int bound_omitted;
	/*
	 * Where the kernel died, from a dump's descriptor (its panic site,
	 * where the module records one): the CPU that panicked (-1: none
	 * got that far), the pid current there, and the pc and arm64 link
	 * register of the registers it saved.
	 */
	bool have_panic_site;
	int panic_cpu;
	uint32_t panic_pid;
	uint64_t panic_pc, panic_lr;
	/* bindings that ended lately ("bind_history"), for exact sampling */
	struct kt_bound_state *bound_past;
	size_t nr_bound_past;
};

/*
 * Read /sys/kernel/debug/ktrepl (or a copy of it at dir). Errors say
 * which file and line, and what to do when the module is not loaded.
 */
int kt_state_load_debugfs(struct kt_state *st, const char *dir,
			  struct kt_err *err);
void kt_state_free(struct kt_state *st);
/*
 * Re-read the counters of summary and the tasks: cheap enough for every
 * refresh, and without pgds, whose reads interrupt every CPU.
 */
int kt_state_refresh(struct kt_state *st, const char *dir, struct kt_err *err);

/*
 * Re-read the kernel's patch window (dir/patch_window, odd while a patch
 * is half made) into st->patch_window. -ENOENT from a module that does
 * not publish it.
 */
int kt_state_patch_window(struct kt_state *st, const char *dir,
			  struct kt_err *err);

/*
 * Whether pa holds a live descriptor (magic, ABI, its own address and the
 * checksum over its fixed part); err says which test failed.
 */
int kt_state_check_descriptor(struct kt_memsrc *src, uint64_t pa,
			      struct kt_err *err);
/*
 * The same facts from a dump: locate the descriptor (the source's hint,
 * VMCOREINFO's KTREPL_DESCRIPTOR, else a scan of page starts; each
 * candidate checked) and read it.
 */
int kt_state_find_descriptor(struct kt_memsrc *src, uint64_t *pa,
			     struct kt_err *err);
int kt_state_load_descriptor(struct kt_state *st, struct kt_memsrc *src,
			     uint64_t pa, struct kt_err *err);

/*
 * A kernel without ktrepl (activation "none"): architecture, paging and
 * the master's root from the VMCOREINFO of src (kcore or a dump).
 */
int kt_state_load_plain(struct kt_state *st, struct kt_memsrc *src,
			struct kt_err *err);

/*
 * A new node or region, zeroed (a region's orig_node -1), at the end of
 * st's arrays, which may move. NULL with err set: out of memory, or a
 * node past KT_MAX_NODES.
 */
struct kt_node_state *kt_state_add_node(struct kt_state *st,
					struct kt_err *err);
struct kt_region_state *kt_state_add_region(struct kt_state *st,
					    struct kt_err *err);
/*
 * Index the regions by name; the loaders do. A region added later is
 * still found (by a linear search until the next index).
 */
int kt_state_index_regions(struct kt_state *st, struct kt_err *err);

const struct kt_node_state *kt_state_node(const struct kt_state *st, int nid);
/*
 * The node whose set (replica and tables) n's CPUs run: its memory node,
 * or the master for a node onlined after the load (KT_ROLE_LATE), which
 * has none of its own.
 */
int kt_state_set_node(const struct kt_state *st, const struct kt_node_state *n);
/*
 * The node that owns the set whose root is root: a node whose memory node
 * is itself (a memoryless node shares its memory node's root), or NULL.
 */
const struct kt_node_state *kt_state_root_set(const struct kt_state *st,
					      uint64_t root);
/* the region of that name (the first, if several), or -1 */
int kt_state_region(const struct kt_state *st, const char *name);
/* the region holding va (the first, if several), or -1 */
int kt_state_region_at(const struct kt_state *st, uint64_t va);
/*
 * The reader's tables for summary's records against ktrepl_summary.h
 * (unit tests): 0, or -1 with the first mismatch in why.
 */
int kt_state_check_summary_table(char *why, size_t len);
int kt_state_check_node_table(char *why, size_t len);
int kt_state_check_region_table(char *why, size_t len);
int kt_state_check_module_table(char *why, size_t len);
/*
 * After module region text_region, its rodata [start, end) as a region of
 * its own (6.4+). Returns the new region's index, or -ENOMEM, -EINVAL.
 */
int kt_state_add_module_rodata(struct kt_state *st, int text_region,
			       uint64_t start, uint64_t end);
/* the module region of that name ("module:NAME") holding va, or -1 */
int kt_state_module_region(const struct kt_state *st, const char *name,
			   uint64_t va);
/* is va text (not rodata) of region r? */
bool kt_region_is_text(const struct kt_region_state *r, uint64_t va);
/* the node whose memory holds pa, or -1 */
int kt_state_pa_node(const struct kt_state *st, uint64_t pa);
/* the extent of node nid that maps va, or NULL */
const struct kt_extent_state *kt_state_extent(const struct kt_state *st,
					      int nid, uint64_t va);

/* Key-value records ("a=1 b=0x2"): the value of key in line, or NULL. */
const char *kt_kv_find(const char *line, const char *key, size_t *len);
int kt_kv_u64(const char *line, const char *key, uint64_t *val);
int kt_kv_int(const char *line, const char *key, int *val);
int kt_kv_str(const char *line, const char *key, char *buf, size_t size);

#endif
