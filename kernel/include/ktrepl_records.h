/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_RECORDS_H
#define KTREPL_RECORDS_H

/*
 * The fields of the debugfs records other than summary's, declared once,
 * as ktrepl_summary.h declares summary's: replicas, pgds, pgtables/nodeN
 * and patches (kernel/debugfs/publish.c), tasks, bind and bind_history
 * (kernel/debugfs/control.c). The module prints each record from its
 * table; the tools read replicas, pgds, tasks, bind and bind_history by
 * these names (tools/lib/ktrepl/state.c). A field is only ever added,
 * at the end of its record, with the ABI version it came in
 * (docs/abi.md): readers ignore keys they do not know.
 */
#include "ktrepl_summary.h"

/*
 * replicas: one extent of a node's replica (or the master's, node =
 * master_node). A module's extent says region=module and adds its name
 * last: every record is a prefix of this table.
 */
enum ktrepl_extent_field {
	KTREPL_E_NODE,
	KTREPL_E_REGION,
	KTREPL_E_VA,
	KTREPL_E_PA,
	KTREPL_E_SIZE,
	KTREPL_E_PAGE_SIZE,
	KTREPL_E_PA_NODE,
	KTREPL_E_MODULE,	/* region=module only */
	KTREPL_E_NR,
	KTREPL_E_NR_CORE = KTREPL_E_MODULE
};

static inline const struct ktrepl_field *ktrepl_extent_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_E_NR] = {
		[KTREPL_E_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_E_REGION] = { "region", KTREPL_F_STR, 1 },
		[KTREPL_E_VA] = { "va", KTREPL_F_HEX, 1 },
		[KTREPL_E_PA] = { "pa", KTREPL_F_HEX, 1 },
		[KTREPL_E_SIZE] = { "size", KTREPL_F_UINT, 1 },
		[KTREPL_E_PAGE_SIZE] = { "page_size", KTREPL_F_UINT, 1 },
		[KTREPL_E_PA_NODE] = { "pa_node", KTREPL_F_INT, 1 },
		[KTREPL_E_MODULE] = { "module", KTREPL_F_STR, 1 },
	};

	return fields;
}

/* pgds: one record per online node, then one per online CPU */
enum ktrepl_pgd_field {
	KTREPL_PGD_NODE,
	KTREPL_PGD_MEMORY_NODE,
	KTREPL_PGD_ROOT_PA,
	KTREPL_PGD_ROOT_VA,
	KTREPL_PGD_ROOT_NODE,
	KTREPL_PGD_OWN_ENTRIES,
	KTREPL_PGD_DIFFERING_ENTRIES,
	KTREPL_PGD_NR
};

static inline const struct ktrepl_field *ktrepl_pgd_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_PGD_NR] = {
		[KTREPL_PGD_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_PGD_MEMORY_NODE] = { "memory_node", KTREPL_F_INT, 1 },
		[KTREPL_PGD_ROOT_PA] = { "root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_PGD_ROOT_VA] = { "root_va", KTREPL_F_HEX, 1 },
		[KTREPL_PGD_ROOT_NODE] = { "root_node", KTREPL_F_INT, 1 },
		[KTREPL_PGD_OWN_ENTRIES] = { "own_entries", KTREPL_F_UINT, 1 },
		[KTREPL_PGD_DIFFERING_ENTRIES] = { "differing_entries",
						   KTREPL_F_UINT, 1 },
	};

	return fields;
}

enum ktrepl_cpu_field {
	KTREPL_CPU_CPU,
	KTREPL_CPU_NODE,
	KTREPL_CPU_LOADED_ROOT_PA,
	KTREPL_CPU_LOADED_SET,
	KTREPL_CPU_LOADED_NODE_SET,
	KTREPL_CPU_CURRENT_PID,
	KTREPL_CPU_EXPECTED_ROOT_PA,
	KTREPL_CPU_NR
};

static inline const struct ktrepl_field *ktrepl_cpu_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_CPU_NR] = {
		[KTREPL_CPU_CPU] = { "cpu", KTREPL_F_INT, 1 },
		[KTREPL_CPU_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_CPU_LOADED_ROOT_PA] = { "loaded_root_pa",
						KTREPL_F_HEX, 1 },
		[KTREPL_CPU_LOADED_SET] = { "loaded_set", KTREPL_F_STR, 1 },
		[KTREPL_CPU_LOADED_NODE_SET] = { "loaded_node_set",
						 KTREPL_F_INT, 1 },
		[KTREPL_CPU_CURRENT_PID] = { "current_pid", KTREPL_F_INT, 1 },
		[KTREPL_CPU_EXPECTED_ROOT_PA] = { "expected_root_pa",
						  KTREPL_F_HEX, 1 },
	};

	return fields;
}

/*
 * pgtables/nodeN: one leaf mapping. flags is "P|NP,RW|RO,X|NX,GLB|NG";
 * level is the kernel's name for it (pgd, p4d, pud, pmd, pte).
 */
enum ktrepl_mapping_field {
	KTREPL_MAP_VA,
	KTREPL_MAP_SIZE,
	KTREPL_MAP_LEVEL,
	KTREPL_MAP_ENTRY,
	KTREPL_MAP_PA,
	KTREPL_MAP_PA_NODE,
	KTREPL_MAP_FLAGS,
	KTREPL_MAP_SHARED,
	KTREPL_MAP_NR
};

static inline const struct ktrepl_field *ktrepl_mapping_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_MAP_NR] = {
		[KTREPL_MAP_VA] = { "va", KTREPL_F_HEX, 1 },
		[KTREPL_MAP_SIZE] = { "size", KTREPL_F_UINT, 1 },
		[KTREPL_MAP_LEVEL] = { "level", KTREPL_F_STR, 1 },
		[KTREPL_MAP_ENTRY] = { "entry", KTREPL_F_HEX, 1 },
		[KTREPL_MAP_PA] = { "pa", KTREPL_F_HEX, 1 },
		[KTREPL_MAP_PA_NODE] = { "pa_node", KTREPL_F_INT, 1 },
		[KTREPL_MAP_FLAGS] = { "flags", KTREPL_F_STR, 1 },
		[KTREPL_MAP_SHARED] = { "shared", KTREPL_F_INT, 1 },
	};

	return fields;
}

/* patches: its first line, the counters */
enum ktrepl_patch_count_field {
	KTREPL_PC_PATCHES,
	KTREPL_PC_BYTES,
	KTREPL_PC_MISSED,
	KTREPL_PC_PROPAGATE,
	KTREPL_PC_NR
};

static inline const struct ktrepl_field *ktrepl_patch_count_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_PC_NR] = {
		[KTREPL_PC_PATCHES] = { "patches", KTREPL_F_UINT, 1 },
		[KTREPL_PC_BYTES] = { "bytes", KTREPL_F_UINT, 1 },
		[KTREPL_PC_MISSED] = { "missed", KTREPL_F_UINT, 1 },
		[KTREPL_PC_PROPAGATE] = { "propagate", KTREPL_F_INT, 1 },
	};

	return fields;
}

/*
 * patches: one logged patch. sym is last: the kernel's %ps, which adds
 * " [module]" for a module's symbol.
 */
enum ktrepl_patch_field {
	KTREPL_P_SEQ,
	KTREPL_P_VA,
	KTREPL_P_LEN,
	KTREPL_P_NODES,
	KTREPL_P_PROPAGATED,
	KTREPL_P_SYM,
	KTREPL_P_NR
};

static inline const struct ktrepl_field *ktrepl_patch_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_P_NR] = {
		[KTREPL_P_SEQ] = { "seq", KTREPL_F_UINT, 1 },
		[KTREPL_P_VA] = { "va", KTREPL_F_HEX, 1 },
		[KTREPL_P_LEN] = { "len", KTREPL_F_UINT, 1 },
		[KTREPL_P_NODES] = { "nodes", KTREPL_F_UINT, 1 },
		[KTREPL_P_PROPAGATED] = { "propagated", KTREPL_F_INT, 1 },
		[KTREPL_P_SYM] = { "sym", KTREPL_F_STR, 1 },
	};

	return fields;
}

/* tasks: one workload worker */
enum ktrepl_task_field {
	KTREPL_T_PID,
	KTREPL_T_COMM,
	KTREPL_T_NODE,
	KTREPL_T_CPU,
	KTREPL_T_ROOT_PA,
	KTREPL_T_EXPECTED_ROOT_PA,
	KTREPL_T_TABLES,
	KTREPL_T_SINCE_NS,
	KTREPL_T_ITERATIONS,
	KTREPL_T_PROBE,
	KTREPL_T_NR
};

static inline const struct ktrepl_field *ktrepl_task_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_T_NR] = {
		[KTREPL_T_PID] = { "pid", KTREPL_F_INT, 1 },
		[KTREPL_T_COMM] = { "comm", KTREPL_F_STR, 1 },
		[KTREPL_T_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_T_CPU] = { "cpu", KTREPL_F_INT, 1 },
		[KTREPL_T_ROOT_PA] = { "root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_T_EXPECTED_ROOT_PA] = { "expected_root_pa",
						KTREPL_F_HEX, 1 },
		[KTREPL_T_TABLES] = { "tables", KTREPL_F_STR, 1 },
		[KTREPL_T_SINCE_NS] = { "since_ns", KTREPL_F_UINT, 1 },
		[KTREPL_T_ITERATIONS] = { "iterations", KTREPL_F_UINT, 1 },
		[KTREPL_T_PROBE] = { "probe", KTREPL_F_UINT, 1 },
	};

	return fields;
}

/* bind: one process bound to its node's tables now */
enum ktrepl_bind_field {
	KTREPL_B_PID,
	KTREPL_B_COMM,
	KTREPL_B_NODE,
	KTREPL_B_HOW,
	KTREPL_B_MM_PGD_PA,
	KTREPL_B_ROOT_PA,
	KTREPL_B_SINCE_NS,
	KTREPL_B_NR
};

static inline const struct ktrepl_field *ktrepl_bind_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_B_NR] = {
		[KTREPL_B_PID] = { "pid", KTREPL_F_INT, 1 },
		[KTREPL_B_COMM] = { "comm", KTREPL_F_STR, 1 },
		[KTREPL_B_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_B_HOW] = { "how", KTREPL_F_STR, 1 },
		[KTREPL_B_MM_PGD_PA] = { "mm_pgd_pa", KTREPL_F_HEX, 1 },
		[KTREPL_B_ROOT_PA] = { "root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_B_SINCE_NS] = { "since_ns", KTREPL_F_UINT, 1 },
	};

	return fields;
}

/* bind_history: one binding that ended */
enum ktrepl_bound_field {
	KTREPL_BH_PID,
	KTREPL_BH_COMM,
	KTREPL_BH_NODE,
	KTREPL_BH_ROOT_PA,
	KTREPL_BH_SINCE_NS,
	KTREPL_BH_UNTIL_NS,
	KTREPL_BH_NR
};

static inline const struct ktrepl_field *ktrepl_bound_fields(void)
{
	static const struct ktrepl_field fields[KTREPL_BH_NR] = {
		[KTREPL_BH_PID] = { "pid", KTREPL_F_INT, 1 },
		[KTREPL_BH_COMM] = { "comm", KTREPL_F_STR, 1 },
		[KTREPL_BH_NODE] = { "node", KTREPL_F_INT, 1 },
		[KTREPL_BH_ROOT_PA] = { "root_pa", KTREPL_F_HEX, 1 },
		[KTREPL_BH_SINCE_NS] = { "since_ns", KTREPL_F_UINT, 1 },
		[KTREPL_BH_UNTIL_NS] = { "until_ns", KTREPL_F_UINT, 1 },
	};

	return fields;
}

#endif
