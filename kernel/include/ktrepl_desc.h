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
	KTREPL_DESC_ROLE_LATE,
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
	 * past them (each late field's rule: ktrepl_desc_late_fields()).
	 * slots of bound[], and their offset (0: none).
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
	/*
	 * Added in what was reserved2 (0 in older descriptors), so valid
	 * only with KTREPL_DESC_F_BOUND_COUNTED in flags: the bound
	 * processes bound[] has no slot for (more than nr_bound), 0 when it
	 * lists every one. Without the flag, a full bound[] may have left
	 * some out.
	 */
	__u32 bound_omitted;
	/*
	 * Added later, the nodes_off rule, and valid only with
	 * KTREPL_DESC_F_PANIC_SITE in flags (the crash_save_cpu() probe was
	 * armed): where the kernel died, for tools that have no crash and
	 * no data symbols (arm64's Debian kernels have no KALLSYMS_ALL, so
	 * no panic_cpu or crash_notes). Every stopping CPU writes them, the
	 * panicking one last (it saves itself once the others have
	 * stopped): its id (-1 until a crash), the pid current there, and
	 * the pc of the registers it saved (an oops: the trapping
	 * instruction) with arm64's link register (0 elsewhere). Written at
	 * the crash, so outside fixed_sum.
	 */
	__s32 panic_cpu;
	__u32 panic_pid;
	__u64 panic_pc;
	__u64 panic_lr;
};

/* where a header field lies; in the kernel and the tools alike */
#define KTREPL_DESC_OFF(field) __builtin_offsetof(struct ktrepl_desc, field)
#define KTREPL_DESC_SIZE(field) (sizeof(((struct ktrepl_desc *)0)->field))
#define KTREPL_DESC_END(field) (KTREPL_DESC_OFF(field) + KTREPL_DESC_SIZE(field))

/*
 * Layout version 1, frozen at the offsets and sizes docs/abi.md gives
 * ("vmcore descriptor layout"): dumps already written are read by these
 * numbers, so a field moved, resized or reordered must fail the build,
 * not the readers. _Static_assert is C11, which the kernel (gnu11) and
 * the tools both build with.
 */
#define KTREPL_DESC_FROZEN(rec, field, off, size)			\
	_Static_assert(__builtin_offsetof(struct rec, field) == (off) &&	\
		       sizeof(((struct rec *)0)->field) == (size),	\
		       "ABI: " #rec "." #field " is not at " #off ", " #size " bytes")
#define KTREPL_DESC_FROZEN_SIZE(rec, size)				\
	_Static_assert(sizeof(struct rec) == (size),			\
		       "ABI: struct " #rec " is not " #size " bytes")

KTREPL_DESC_FROZEN(ktrepl_desc, magic, 0, 16);
KTREPL_DESC_FROZEN(ktrepl_desc, abi, 16, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, size, 20, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, arch, 24, 16);
KTREPL_DESC_FROZEN(ktrepl_desc, activation, 40, 16);
KTREPL_DESC_FROZEN(ktrepl_desc, paging_levels, 56, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, va_bits, 60, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, page_shift, 64, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, master_node, 68, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, propagate, 72, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_nodes, 76, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_regions, 80, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_extents, 84, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_cpus, 88, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_tasks, 92, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, master_root_pa, 96, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, direct_map, 104, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, patches, 112, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, patch_bytes, 120, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, patches_missed, 128, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, nodes_off, 136, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, regions_off, 140, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, extents_off, 144, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, cpu_node_off, 148, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, tasks_off, 152, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, cpu_root_off, 156, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_bound, 160, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, bound_off, 164, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, nr_modules, 168, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, modules_off, 172, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, module_rodata_off, 176, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, reserved, 180, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, modules_omitted, 184, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, flags, 188, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, failsafe, 192, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, failsafe_active, 200, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, failsafe_reason, 204, 20);
KTREPL_DESC_FROZEN(ktrepl_desc, self_pa, 224, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, fixed_sum, 232, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, panic_root_off, 240, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, bound_omitted, 244, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, panic_cpu, 248, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, panic_pid, 252, 4);
KTREPL_DESC_FROZEN(ktrepl_desc, panic_pc, 256, 8);
KTREPL_DESC_FROZEN(ktrepl_desc, panic_lr, 264, 8);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc, 272);

KTREPL_DESC_FROZEN(ktrepl_desc_node, nid, 0, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_node, memory_nid, 4, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_node, has_memory, 8, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_node, role, 12, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_node, root_pa, 16, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_node, overhead, 24, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_node, mem_start, 32, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_node, mem_end, 40, 8);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_node, 48);

KTREPL_DESC_FROZEN(ktrepl_desc_region, name, 0, 16);
KTREPL_DESC_FROZEN(ktrepl_desc_region, start, 16, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_region, end, 24, 8);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_region, 32);

KTREPL_DESC_FROZEN(ktrepl_desc_extent, node, 0, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, region, 4, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, va, 8, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, pa, 16, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, size, 24, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, page_shift, 32, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_extent, pa_node, 36, 4);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_extent, 40);

KTREPL_DESC_FROZEN(ktrepl_desc_task, pid, 0, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_task, node, 4, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_task, root_pa, 8, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_task, expected_root_pa, 16, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_task, iterations, 24, 8);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_task, 32);

KTREPL_DESC_FROZEN(ktrepl_desc_bound, pid, 0, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_bound, node, 4, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_bound, mm_pgd_pa, 8, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_bound, root_pa, 16, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_bound, since_ns, 24, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_bound, comm, 32, 16);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_bound, 48);

KTREPL_DESC_FROZEN(ktrepl_desc_module, name, 0, 56);
KTREPL_DESC_FROZEN(ktrepl_desc_module, start, 56, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_module, text_end, 64, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_module, end, 72, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_module, orig_node, 80, 4);
KTREPL_DESC_FROZEN(ktrepl_desc_module, master_copies, 84, 4);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_module, 88);

KTREPL_DESC_FROZEN(ktrepl_desc_module_rodata, start, 0, 8);
KTREPL_DESC_FROZEN(ktrepl_desc_module_rodata, end, 8, 8);
KTREPL_DESC_FROZEN_SIZE(ktrepl_desc_module_rodata, 16);

#define KTREPL_DESC_F_MODULES_COUNTED (1U << 0)	/* modules_omitted */
#define KTREPL_DESC_F_BOUND_COUNTED (1U << 1)	/* bound_omitted */
#define KTREPL_DESC_F_PANIC_SITE (1U << 2)	/* panic_cpu .. panic_lr */

/*
 * Every version-1 header has the fields up to cpu_root_off: a header
 * shorter than this (nodes_off below it) is damage, not an old module.
 */
#define KTREPL_DESC_BASE_END KTREPL_DESC_END(cpu_root_off)

/*
 * The header fields added after the first version-1 header, each with
 * what makes it valid: nodes_off, the end of the header the module
 * wrote, lies past it (an older header ends before it, and what a reader
 * finds there is the node array); and where flag is set, that bit in
 * flags too, for a field that took over what was tail padding, which
 * older modules left 0 (0 there says nothing). Readers test a field with
 * ktrepl_desc_has(), never by offset. A field is only ever added, at the
 * end of the header, with a row here and in docs/abi.md.
 */
enum ktrepl_desc_late_field {
	KTREPL_DESC_L_NR_BOUND,
	KTREPL_DESC_L_BOUND_OFF,
	KTREPL_DESC_L_NR_MODULES,
	KTREPL_DESC_L_MODULES_OFF,
	KTREPL_DESC_L_MODULE_RODATA_OFF,
	KTREPL_DESC_L_MODULES_OMITTED,
	KTREPL_DESC_L_FLAGS,
	KTREPL_DESC_L_FAILSAFE,
	KTREPL_DESC_L_FAILSAFE_ACTIVE,
	KTREPL_DESC_L_FAILSAFE_REASON,
	KTREPL_DESC_L_SELF_PA,
	KTREPL_DESC_L_FIXED_SUM,
	KTREPL_DESC_L_PANIC_ROOT_OFF,
	KTREPL_DESC_L_BOUND_OMITTED,
	KTREPL_DESC_L_PANIC_CPU,
	KTREPL_DESC_L_PANIC_PID,
	KTREPL_DESC_L_PANIC_PC,
	KTREPL_DESC_L_PANIC_LR,
	KTREPL_DESC_L_NR
};

struct ktrepl_desc_late {
	const char *name;	/* the field's, as in struct ktrepl_desc */
	__u32 off;
	__u32 size;
	__u32 flag;		/* KTREPL_DESC_F_*; 0: the nodes_off rule alone */
};

/* in the order of the header; a function, so no unit has an unused copy */
static inline const struct ktrepl_desc_late *ktrepl_desc_late_fields(void)
{
	static const struct ktrepl_desc_late fields[KTREPL_DESC_L_NR] = {
		[KTREPL_DESC_L_NR_BOUND] = { "nr_bound",
			KTREPL_DESC_OFF(nr_bound), KTREPL_DESC_SIZE(nr_bound), 0 },
		[KTREPL_DESC_L_BOUND_OFF] = { "bound_off",
			KTREPL_DESC_OFF(bound_off), KTREPL_DESC_SIZE(bound_off), 0 },
		[KTREPL_DESC_L_NR_MODULES] = { "nr_modules",
			KTREPL_DESC_OFF(nr_modules),
			KTREPL_DESC_SIZE(nr_modules), 0 },
		[KTREPL_DESC_L_MODULES_OFF] = { "modules_off",
			KTREPL_DESC_OFF(modules_off),
			KTREPL_DESC_SIZE(modules_off), 0 },
		[KTREPL_DESC_L_MODULE_RODATA_OFF] = { "module_rodata_off",
			KTREPL_DESC_OFF(module_rodata_off),
			KTREPL_DESC_SIZE(module_rodata_off), 0 },
		[KTREPL_DESC_L_MODULES_OMITTED] = { "modules_omitted",
			KTREPL_DESC_OFF(modules_omitted),
			KTREPL_DESC_SIZE(modules_omitted),
			KTREPL_DESC_F_MODULES_COUNTED },
		[KTREPL_DESC_L_FLAGS] = { "flags",
			KTREPL_DESC_OFF(flags), KTREPL_DESC_SIZE(flags), 0 },
		[KTREPL_DESC_L_FAILSAFE] = { "failsafe",
			KTREPL_DESC_OFF(failsafe), KTREPL_DESC_SIZE(failsafe), 0 },
		[KTREPL_DESC_L_FAILSAFE_ACTIVE] = { "failsafe_active",
			KTREPL_DESC_OFF(failsafe_active),
			KTREPL_DESC_SIZE(failsafe_active), 0 },
		[KTREPL_DESC_L_FAILSAFE_REASON] = { "failsafe_reason",
			KTREPL_DESC_OFF(failsafe_reason),
			KTREPL_DESC_SIZE(failsafe_reason), 0 },
		[KTREPL_DESC_L_SELF_PA] = { "self_pa",
			KTREPL_DESC_OFF(self_pa), KTREPL_DESC_SIZE(self_pa), 0 },
		[KTREPL_DESC_L_FIXED_SUM] = { "fixed_sum",
			KTREPL_DESC_OFF(fixed_sum), KTREPL_DESC_SIZE(fixed_sum), 0 },
		[KTREPL_DESC_L_PANIC_ROOT_OFF] = { "panic_root_off",
			KTREPL_DESC_OFF(panic_root_off),
			KTREPL_DESC_SIZE(panic_root_off), 0 },
		[KTREPL_DESC_L_BOUND_OMITTED] = { "bound_omitted",
			KTREPL_DESC_OFF(bound_omitted),
			KTREPL_DESC_SIZE(bound_omitted),
			KTREPL_DESC_F_BOUND_COUNTED },
		[KTREPL_DESC_L_PANIC_CPU] = { "panic_cpu",
			KTREPL_DESC_OFF(panic_cpu), KTREPL_DESC_SIZE(panic_cpu),
			KTREPL_DESC_F_PANIC_SITE },
		[KTREPL_DESC_L_PANIC_PID] = { "panic_pid",
			KTREPL_DESC_OFF(panic_pid), KTREPL_DESC_SIZE(panic_pid),
			KTREPL_DESC_F_PANIC_SITE },
		[KTREPL_DESC_L_PANIC_PC] = { "panic_pc",
			KTREPL_DESC_OFF(panic_pc), KTREPL_DESC_SIZE(panic_pc),
			KTREPL_DESC_F_PANIC_SITE },
		[KTREPL_DESC_L_PANIC_LR] = { "panic_lr",
			KTREPL_DESC_OFF(panic_lr), KTREPL_DESC_SIZE(panic_lr),
			KTREPL_DESC_F_PANIC_SITE },
	};

	return fields;
}

/* whether d's header carries field id, and what it holds is valid */
static inline int ktrepl_desc_has(const struct ktrepl_desc *d,
				  enum ktrepl_desc_late_field id)
{
	const struct ktrepl_desc_late *f = &ktrepl_desc_late_fields()[id];

	if (d->nodes_off < f->off + f->size)
		return 0;
	return !f->flag || (d->nodes_off >= KTREPL_DESC_END(flags) &&
			    (d->flags & f->flag));
}

/*
 * FNV-1a over everything fixed once the descriptor is published: the
 * header's layout fields and self_pa, and the node, region, extent and
 * cpu_node arrays (nodes_off up to tasks_off). Counters, names that
 * change (activation) and the live arrays after tasks_off are left out,
 * so the kernel computes the sum once. The caller passes the arrays'
 * bytes, read at d->nodes_off, d->tasks_off - d->nodes_off long.
 */
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

/*
 * Whether d is sealed (self_pa and fixed_sum), with every field the sum
 * covers; a module older than these offers the magic alone.
 */
static inline int ktrepl_desc_sealed(const struct ktrepl_desc *d)
{
	return ktrepl_desc_has(d, KTREPL_DESC_L_SELF_PA) &&
	       ktrepl_desc_has(d, KTREPL_DESC_L_FIXED_SUM) &&
	       ktrepl_desc_has(d, KTREPL_DESC_L_PANIC_ROOT_OFF);
}

#endif
