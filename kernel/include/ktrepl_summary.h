/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_SUMMARY_H
#define KTREPL_SUMMARY_H

/*
 * The fields of debugfs summary's records, declared once: its first
 * line, and its node, region and module records. The module prints each
 * record from its table (kernel/debugfs/publish.c) and the tools read it
 * by these names and types (tools/lib/ktrepl/state_summary.c, whose
 * tables a unit test checks against these). A field is only ever added,
 * at the end of its record, with the ABI version it came in
 * (docs/abi.md): readers ignore keys they do not know.
 */
enum ktrepl_field_type {
	KTREPL_F_INT,	/* signed decimal */
	KTREPL_F_UINT,	/* unsigned decimal */
	KTREPL_F_HEX,	/* 0x and lower-case hex */
	KTREPL_F_STR,	/* a word: no spaces, "-" when empty */
	KTREPL_F_CPULIST,	/* CPUs as "0-3,8" (%*pbl); empty for none */
};

struct ktrepl_field {
	const char *name;
	enum ktrepl_field_type type;
	int since;	/* the ABI version that added it */
};

enum ktrepl_summary_field {
	KTREPL_S_ABI,
	KTREPL_S_PROVIDER,
	KTREPL_S_ARCH,
	KTREPL_S_PAGING_LEVELS,
	KTREPL_S_VA_BITS,
	KTREPL_S_PAGE_SIZE,
	KTREPL_S_MASTER_NODE,
	KTREPL_S_NODES,
	KTREPL_S_ACTIVATION,
	KTREPL_S_PROPAGATE,
	KTREPL_S_PATCHES,
	KTREPL_S_PATCH_BYTES,
	KTREPL_S_PATCHES_MISSED,
	KTREPL_S_OVERHEAD_BYTES,
	KTREPL_S_MASTER_ROOT_PA,
	KTREPL_S_DIRECT_MAP,
	KTREPL_S_ALLOCATIONS,
	KTREPL_S_LOAD_NS,
	KTREPL_S_REPLICATE_NS,
	KTREPL_S_HOOK_NS,
	KTREPL_S_MEMCPY_NS,
	KTREPL_S_ACTIVATION_REASON,
	KTREPL_S_AUDITS,
	KTREPL_S_AUDIT_REPAIRS,
	KTREPL_S_SWITCHES,
	KTREPL_S_REINSTALLS,
	KTREPL_S_SWITCH_NS,
	KTREPL_S_DONATED_PAGES,
	KTREPL_S_VETOES,
	KTREPL_S_BINDS,
	KTREPL_S_UNBINDS,
	KTREPL_S_MODULES,
	KTREPL_S_MODULE_BYTES,
	KTREPL_S_TABLE_MIRRORS,
	KTREPL_S_MIRROR_MISSED,
	KTREPL_S_PATCH_WINDOW,
	KTREPL_S_FAILSAFE,
	KTREPL_S_FAILSAFE_ACTIVE,
	KTREPL_S_FAILSAFE_REASON,
	KTREPL_S_MEMSET_NS,
	KTREPL_S_NR
};

/* in the order of the line; a function, so no unit has an unused copy */
static inline const struct ktrepl_field *ktrepl_summary_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_S_NR] = {
		[KTREPL_S_ABI] = { "abi", KTREPL_F_INT, 1 },
		[KTREPL_S_PROVIDER] = { "provider", KTREPL_F_STR, 1 },
		[KTREPL_S_ARCH] = { "arch", KTREPL_F_STR, 1 },
		[KTREPL_S_PAGING_LEVELS] = { "paging_levels", KTREPL_F_UINT, 1 },
		[KTREPL_S_VA_BITS] = { "va_bits", KTREPL_F_UINT, 1 },
		[KTREPL_S_PAGE_SIZE] = { "page_size", KTREPL_F_UINT, 1 },
		[KTREPL_S_MASTER_NODE] = { "master_node", KTREPL_F_INT, 1 },
		[KTREPL_S_NODES] = { "nodes", KTREPL_F_UINT, 1 },
		[KTREPL_S_ACTIVATION] = { "activation", KTREPL_F_STR, 1 },
		[KTREPL_S_PROPAGATE] = { "propagate", KTREPL_F_INT, 1 },
		[KTREPL_S_PATCHES] = { "patches", KTREPL_F_UINT, 1 },
		[KTREPL_S_PATCH_BYTES] = { "patch_bytes", KTREPL_F_UINT, 1 },
		[KTREPL_S_PATCHES_MISSED] = { "patches_missed", KTREPL_F_UINT, 1 },
		[KTREPL_S_OVERHEAD_BYTES] = { "overhead_bytes", KTREPL_F_UINT, 1 },
		[KTREPL_S_MASTER_ROOT_PA] = { "master_root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_S_DIRECT_MAP] = { "direct_map", KTREPL_F_HEX, 1 },
		[KTREPL_S_ALLOCATIONS] = { "allocations", KTREPL_F_UINT, 1 },
		[KTREPL_S_LOAD_NS] = { "load_ns", KTREPL_F_UINT, 1 },
		[KTREPL_S_REPLICATE_NS] = { "replicate_ns", KTREPL_F_UINT, 1 },
		[KTREPL_S_HOOK_NS] = { "hook_ns", KTREPL_F_UINT, 1 },
		[KTREPL_S_MEMCPY_NS] = { "memcpy_ns", KTREPL_F_UINT, 1 },
		[KTREPL_S_ACTIVATION_REASON] = { "activation_reason",
						 KTREPL_F_STR, 1 },
		[KTREPL_S_AUDITS] = { "audits", KTREPL_F_UINT, 1 },
		[KTREPL_S_AUDIT_REPAIRS] = { "audit_repairs", KTREPL_F_UINT, 1 },
		[KTREPL_S_SWITCHES] = { "switches", KTREPL_F_UINT, 1 },
		[KTREPL_S_REINSTALLS] = { "reinstalls", KTREPL_F_UINT, 1 },
		[KTREPL_S_SWITCH_NS] = { "switch_ns", KTREPL_F_UINT, 1 },
		[KTREPL_S_DONATED_PAGES] = { "donated_pages", KTREPL_F_UINT, 1 },
		[KTREPL_S_VETOES] = { "vetoes", KTREPL_F_UINT, 1 },
		[KTREPL_S_BINDS] = { "binds", KTREPL_F_UINT, 1 },
		[KTREPL_S_UNBINDS] = { "unbinds", KTREPL_F_UINT, 1 },
		[KTREPL_S_MODULES] = { "modules", KTREPL_F_INT, 1 },
		[KTREPL_S_MODULE_BYTES] = { "module_bytes", KTREPL_F_UINT, 1 },
		[KTREPL_S_TABLE_MIRRORS] = { "table_mirrors", KTREPL_F_UINT, 1 },
		[KTREPL_S_MIRROR_MISSED] = { "mirror_missed", KTREPL_F_UINT, 1 },
		[KTREPL_S_PATCH_WINDOW] = { "patch_window", KTREPL_F_UINT, 1 },
		[KTREPL_S_FAILSAFE] = { "failsafe", KTREPL_F_UINT, 1 },
		[KTREPL_S_FAILSAFE_ACTIVE] = { "failsafe_active",
					       KTREPL_F_INT, 1 },
		[KTREPL_S_FAILSAFE_REASON] = { "failsafe_reason",
					       KTREPL_F_STR, 1 },
		[KTREPL_S_MEMSET_NS] = { "memset_ns", KTREPL_F_UINT, 1 },
	};

	return fields;
}

enum ktrepl_node_field {
	KTREPL_N_NODE,
	KTREPL_N_MEMORY_NODE,
	KTREPL_N_HAS_MEMORY,
	KTREPL_N_ROLE,
	KTREPL_N_CPUS,
	KTREPL_N_ROOT_PA,
	KTREPL_N_OVERHEAD_BYTES,
	KTREPL_N_MEM_START,
	KTREPL_N_MEM_END,
	KTREPL_N_NR
};

/* a node record, one per online node, in the order of the line */
static inline const struct ktrepl_field *ktrepl_node_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_N_NR] = {
		[KTREPL_N_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_N_MEMORY_NODE] = { "memory_node", KTREPL_F_INT, 1 },
		[KTREPL_N_HAS_MEMORY] = { "has_memory", KTREPL_F_INT, 1 },
		[KTREPL_N_ROLE] = { "role", KTREPL_F_STR, 1 },
		[KTREPL_N_CPUS] = { "cpus", KTREPL_F_CPULIST, 1 },
		[KTREPL_N_ROOT_PA] = { "root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_N_OVERHEAD_BYTES] = { "overhead_bytes", KTREPL_F_UINT, 1 },
		[KTREPL_N_MEM_START] = { "mem_start", KTREPL_F_HEX, 1 },
		[KTREPL_N_MEM_END] = { "mem_end", KTREPL_F_HEX, 1 },
	};

	return fields;
}

enum ktrepl_region_field {
	KTREPL_R_REGION,
	KTREPL_R_START,
	KTREPL_R_END,
	KTREPL_R_SIZE,
	KTREPL_R_NR
};

/* a region record ("text", "rodata"), in the order of the line */
static inline const struct ktrepl_field *ktrepl_region_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_R_NR] = {
		[KTREPL_R_REGION] = { "region", KTREPL_F_STR, 1 },
		[KTREPL_R_START] = { "start", KTREPL_F_HEX, 1 },
		[KTREPL_R_END] = { "end", KTREPL_F_HEX, 1 },
		[KTREPL_R_SIZE] = { "size", KTREPL_F_UINT, 1 },
	};

	return fields;
}

/*
 * A module record's fields. The last two are optional per record: the
 * rodata's own range is there only where the kernel allocates a
 * module's rodata apart from its text (6.4+). They are last so that
 * every record is a prefix of this table: its first KTREPL_M_NR_ALWAYS
 * fields, or all of them.
 */
enum ktrepl_module_field {
	KTREPL_M_MODULE,
	KTREPL_M_START,
	KTREPL_M_TEXT_END,
	KTREPL_M_END,
	KTREPL_M_SIZE,
	KTREPL_M_ORIG_NODE,
	KTREPL_M_MASTER_COPIES,
	KTREPL_M_SINCE_NS,
	KTREPL_M_RODATA_START,	/* optional from here */
	KTREPL_M_RODATA_END,
	KTREPL_M_NR,
	KTREPL_M_NR_ALWAYS = KTREPL_M_RODATA_START
};

/* a module record, one per replicated module, in the order of the line */
static inline const struct ktrepl_field *ktrepl_module_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_M_NR] = {
		[KTREPL_M_MODULE] = { "module", KTREPL_F_STR, 1 },
		[KTREPL_M_START] = { "start", KTREPL_F_HEX, 1 },
		[KTREPL_M_TEXT_END] = { "text_end", KTREPL_F_HEX, 1 },
		[KTREPL_M_END] = { "end", KTREPL_F_HEX, 1 },
		[KTREPL_M_SIZE] = { "size", KTREPL_F_UINT, 1 },
		[KTREPL_M_ORIG_NODE] = { "orig_node", KTREPL_F_INT, 1 },
		[KTREPL_M_MASTER_COPIES] = { "master_copies", KTREPL_F_UINT, 1 },
		[KTREPL_M_SINCE_NS] = { "since_ns", KTREPL_F_UINT, 1 },
		[KTREPL_M_RODATA_START] = { "rodata_start", KTREPL_F_HEX, 1 },
		[KTREPL_M_RODATA_END] = { "rodata_end", KTREPL_F_HEX, 1 },
	};

	return fields;
}

#endif
