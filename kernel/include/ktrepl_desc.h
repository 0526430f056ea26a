/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_DESC_H
#define KTREPL_DESC_H

/*
 * The vmcore descriptor: the debugfs facts in one physically contiguous,
 * page-aligned block, so that offline tools find replication state in a
 * dump without DWARF for ktrepl's own structures. Layout version =
 * KTREPL_ABI_VERSION; all fields little-endian, fixed width; readers
 * check magic, version and size and ignore bytes past what they know.
 *
 * Finding it: VMCOREINFO carries "KTREPL_DESCRIPTOR=<pa in hex>" where
 * the module could add it (x86_64: the last such line wins; 0 means
 * unloaded); the module's variable ktrepl_descriptor_pa holds the same
 * (crash has module symbols); else tools scan page starts for the magic.
 * kdump-tools loads the crash kernel before any module, and the dump
 * then carries the VMCOREINFO of that moment, without the line: the
 * variable and the scan are the rule there, not the exception. Every
 * candidate is checked (self_pa, fixed_sum) before it is trusted
 * (docs/abi.md).
 *
 * Shared by the kernel module and the userspace library.
 */
#include <linux/types.h>	/* the kernel's, or linux-libc-dev's */

#define KTREPL_DESC_MAGIC "KTREPL-VMCORE-D\0"
#define KTREPL_DESC_MAGIC_LEN 16
#define KTREPL_DESC_MAX_BYTES (1U << 20)

/* nodes[].role; ktrepl_role_str() (ktrepl_abi.h) spells them */
enum {
	KTREPL_DESC_ROLE_NONE,
	KTREPL_DESC_ROLE_MASTER,
	KTREPL_DESC_ROLE_REPLICA,
	KTREPL_DESC_ROLE_ALIAS,
	KTREPL_DESC_ROLE_NR
};

struct ktrepl_desc_node {
	__s32 nid;
	__s32 memory_nid;
	__u32 has_memory;
	__u32 role;
	__u64 root_pa;
	__u64 overhead;
	__u64 mem_start;
	__u64 mem_end;
};

struct ktrepl_desc_region {
	char name[16];
	__u64 start;
	__u64 end;
};

struct ktrepl_desc_extent {
	__s32 node;
	__u32 region;
	__u64 va;
	__u64 pa;
	__u64 size;
	__u32 page_shift;
	__s32 pa_node;
};

struct ktrepl_desc_task {
	__s32 pid;
	__s32 node;
	__u64 root_pa;
	__u64 expected_root_pa;
	__u64 iterations;
};

/* a process bound to a node's set (x86_64 activation mm); pid 0: empty */
struct ktrepl_desc_bound {
	__s32 pid;
	__s32 node;
	__u64 mm_pgd_pa;
	__u64 root_pa;
	__u64 since_ns;
	char comm[16];
};

#define KTREPL_DESC_MAX_BOUND 256

/*
 * a replicated module; name[0] == 0: empty. Its copies are found by
 * walking each node's tables over start..end.
 */
struct ktrepl_desc_module {
	char name[56];
	__u64 start;
	__u64 text_end;
	__u64 end;
	__s32 orig_node;
	__u32 master_copies;	/* 0 in dumps older than the field */
};

/*
 * The one module limit: modules[] slots, and the provider's
 * KTREPL_MAX_MODULES (ktrepl_provider.h) is defined as this. 104 bytes
 * of descriptor per slot (this record and its rodata range).
 */
#define KTREPL_DESC_MAX_MODULES 4096

/*
 * modules[i]'s rodata where it is an area of its own (from Linux 6.4);
 * 0..0 where it follows the text inside start..end.
 */
struct ktrepl_desc_module_rodata {
	__u64 start;
	__u64 end;
};

struct ktrepl_desc {
	char magic[KTREPL_DESC_MAGIC_LEN];
	__u32 abi;
	__u32 size;		/* of everything, header included */
	char arch[16];
	char activation[16];
	__u32 paging_levels;
	__u32 va_bits;
	__u32 page_shift;
	__s32 master_node;
	__u32 propagate;
	__u32 nr_nodes;
	__u32 nr_regions;
	__u32 nr_extents;
	__u32 nr_cpus;		/* entries of cpu_node[] */
	__u32 nr_tasks;		/* slots of tasks[] */
	__u64 master_root_pa;
	__u64 direct_map;
	__u64 patches;
	__u64 patch_bytes;
	__u64 patches_missed;
	/* offsets from the start of the descriptor */
	__u32 nodes_off;
	__u32 regions_off;
	__u32 extents_off;
	__u32 cpu_node_off;	/* __s32 per CPU: its node, -1 if none */
	__u32 tasks_off;
	/*
	 * __u64 per CPU: the root it was last switched to (activation
	 * percpu; arm64 dumps carry no TTBR1), 0 where unknown. 0 here:
	 * not recorded (older modules wrote 0 in this field).
	 */
	__u32 cpu_root_off;
	/*
	 * Added later: valid when nodes_off, the end of the header, lies
	 * past them. slots of bound[], and their offset (0: none).
	 */
	__u32 nr_bound;
	__u32 bound_off;
	/* the same rule: slots of modules[], and their offset (0: none) */
	__u32 nr_modules;
	__u32 modules_off;
	/* the same rule: module_rodata[], nr_modules slots (0: none) */
	__u32 module_rodata_off;
	__u32 reserved;
	/*
	 * Added in what was the header's tail padding (0 in older
	 * descriptors), so valid only with their flag in flags. With
	 * KTREPL_DESC_F_MODULES_COUNTED: the replicated modules modules[]
	 * has no slot for (more of them than nr_modules), 0 when it lists
	 * every one; counted up to 4 * nr_modules + 4, a lower bound beyond.
	 * Without it, a modules[] whose every slot is used may have left
	 * some out.
	 */
	__u32 modules_omitted;
	__u32 flags;		/* KTREPL_DESC_F_* */
	/*
	 * Added later, the nodes_off rule: the fail-safe's events since
	 * load, whether replication is off because of one at the moment of
	 * the dump, and the last event's reason (summary's failsafe=,
	 * failsafe_active=, failsafe_reason=; "" for none).
	 */
	__u64 failsafe;
	__u32 failsafe_active;
	char failsafe_reason[20];
	/*
	 * Added later, the nodes_off rule. A candidate descriptor (from a
	 * VMCOREINFO line, a module variable or a scan) is this one only
	 * where self_pa is the address it was read at and fixed_sum equals
	 * ktrepl_desc_fixed_sum(): a stale line pointing at freed memory,
	 * or a page that merely starts with the magic, fails.
	 */
	__u64 self_pa;
	__u64 fixed_sum;
	/*
	 * The same rule: __u64 per CPU (nr_cpus), the root each CPU had
	 * loaded when it stopped for a crash dump (crash_save_cpu()), 0
	 * for a CPU that recorded none; panic_root_off 0: not recorded.
	 * Dumps by kdump carry no CR3 or TTBR1 of their own.
	 */
	__u32 panic_root_off;
	__u32 reserved2;
};

/*
 * FNV-1a over everything fixed once the descriptor is published: the
 * header's layout fields and self_pa, and the node, region, extent and
 * cpu_node arrays (nodes_off up to tasks_off). Counters, names that
 * change (activation) and the live arrays after tasks_off are left out,
 * so the kernel computes the sum once. The caller passes the arrays'
 * bytes, read at d->nodes_off, d->tasks_off - d->nodes_off long.
 */
#define KTREPL_DESC_OFF(field) __builtin_offsetof(struct ktrepl_desc, field)

static inline __u64 ktrepl_desc_fold(__u64 h, const __u8 *p, __u64 n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static inline __u64 ktrepl_desc_fold_span(__u64 h, const struct ktrepl_desc *d,
					  __u64 from, __u64 to)
{
	return ktrepl_desc_fold(h, (const __u8 *)d + from, to - from);
}

static inline __u64 ktrepl_desc_fixed_sum(const struct ktrepl_desc *d,
					  const void *arrays)
{
	__u64 h = 0xcbf29ce484222325ULL;

	h = ktrepl_desc_fold_span(h, d, KTREPL_DESC_OFF(abi),
				  KTREPL_DESC_OFF(activation));
	h = ktrepl_desc_fold_span(h, d, KTREPL_DESC_OFF(paging_levels),
				  KTREPL_DESC_OFF(propagate));
	h = ktrepl_desc_fold_span(h, d, KTREPL_DESC_OFF(nr_nodes),
				  KTREPL_DESC_OFF(patches));
	h = ktrepl_desc_fold_span(h, d, KTREPL_DESC_OFF(nodes_off),
				  KTREPL_DESC_OFF(modules_omitted));
	h = ktrepl_desc_fold(h, (const __u8 *)&d->self_pa, sizeof(d->self_pa));
	h = ktrepl_desc_fold(h, (const __u8 *)&d->panic_root_off,
			     sizeof(d->panic_root_off));
	return ktrepl_desc_fold(h, arrays, d->tasks_off - d->nodes_off);
}

#define KTREPL_DESC_F_MODULES_COUNTED (1U << 0)	/* modules_omitted */

#endif
