/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_ABI_H
#define KTREPL_ABI_H

#include "ktrepl_desc.h"	/* KTREPL_DESC_ROLE_* */

/*
 * Version of the debugfs text format and of the vmcore descriptor, see
 * docs/abi.md. Any change in the meaning of a field bumps it.
 */
#define KTREPL_ABI_VERSION 1

/*
 * Who runs on the replicas. summary's activation=, the descriptor's
 * activation[16] and the module's activation= parameter spell these;
 * the kernel and the tools number them with this enum (the tools add
 * values of their own after KTREPL_ACT_NR).
 */
enum ktrepl_activation {
	KTREPL_ACT_NONE,	/* nothing to replicate (one memory node) */
	KTREPL_ACT_INACTIVE,	/* replicas built, no CPU runs on them */
	KTREPL_ACT_WORKLOAD,	/* selected kernel threads run on them */
	KTREPL_ACT_PERCPU,	/* every CPU runs on its node's set */
	KTREPL_ACT_MM,		/* node-bound processes run on their set */
	KTREPL_ACT_NR
};

static inline const char *ktrepl_activation_str(int act)
{
	switch (act) {
	case KTREPL_ACT_NONE:
		return "none";
	case KTREPL_ACT_INACTIVE:
		return "inactive";
	case KTREPL_ACT_WORKLOAD:
		return "workload";
	case KTREPL_ACT_PERCPU:
		return "percpu";
	case KTREPL_ACT_MM:
		return "mm";
	}
	return NULL;
}

/* A node's role (the descriptor's KTREPL_DESC_ROLE_*), as summary has it. */
static inline const char *ktrepl_role_str(int role)
{
	switch (role) {
	case KTREPL_DESC_ROLE_NONE:
		return "none";
	case KTREPL_DESC_ROLE_MASTER:
		return "master";
	case KTREPL_DESC_ROLE_REPLICA:
		return "replica";
	case KTREPL_DESC_ROLE_ALIAS:
		return "alias";
	case KTREPL_DESC_ROLE_LATE:
		return "late";
	}
	return NULL;
}

/*
 * Why replication is less than what was asked for, and what a fail-safe
 * event was, in words the module publishes: summary's activation_reason=
 * (at load, or when a fail-safe gave up) and failsafe_reason= (the last
 * event's), the descriptor's failsafe_reason[20], and dmesg. Users and tests match the
 * words, so each is spelled here once, documented in docs/abi.md (the
 * unit test test_abi_words.c checks both) and never changed; the enum's
 * values are not ABI, only the words are.
 */
enum ktrepl_reason {
	KTREPL_REASON_NONE,	/* none: "-" in summary, "" in the descriptor */
	/* activation_reason, at load: percpu (arm64) */
	KTREPL_REASON_PAGING_GEOMETRY,
	KTREPL_REASON_SYMBOLS_MISSING,
	KTREPL_REASON_IMAGE_ABOVE_48_BIT_PA,
	KTREPL_REASON_IDMAP_NOT_FOUND,
	KTREPL_REASON_CPU_PM_NOTIFIER_REFUSED,
	KTREPL_REASON_CPUHP_REFUSED,
	KTREPL_REASON_DIRECT_MAP_NOT_PAGE_GRANULAR,
	/* percpu: the copied tables cannot be kept identical (fresh.c) */
	KTREPL_REASON_ARCH_UNSUPPORTED,
	KTREPL_REASON_SPLIT_PTLOCKS,
	KTREPL_REASON_TABLE_WALK_FAILED,
	KTREPL_REASON_MEMORY_NOTIFIER_REFUSED,
	KTREPL_REASON_TABLE_FREE_HOOK_REFUSED,
	KTREPL_REASON_PREPOPULATE_FAILED,
	KTREPL_REASON_VM_AREA_SYMBOLS_MISSING,
	KTREPL_REASON_LEAF_TABLE_SHARED_WITH_VMALLOC,
	KTREPL_REASON_LEAF_TABLE_GAPS,
	KTREPL_REASON_LEAF_TABLE_GAP_TAKEN,
	KTREPL_REASON_HUGE_MAPPING_IN_COPIED_TABLE,
	/* activation_reason, at load: mm (x86_64) */
	KTREPL_REASON_NO_FORK_EXEC_TRACEPOINTS,
	KTREPL_REASON_OUT_OF_MEMORY,
	KTREPL_REASON_TRACEPOINT_REGISTRATION_FAILED,
	/* activation_reason: a fail-safe gave up */
	KTREPL_REASON_FAILSAFE_TABLES_UNVERIFIED,
	KTREPL_REASON_FAILSAFE_REPLICAS_UNVERIFIED,
	KTREPL_REASON_FAILSAFE_NO_PATCH_EXCLUSION,
	KTREPL_REASON_FAILSAFE_RECURRING,
	KTREPL_REASON_FAILSAFE_WORKLOAD_RESTART_FAILED,
	/* failsafe_reason: the events, from here to the end */
	KTREPL_REASON_PATCH_MISSED,
	KTREPL_REASON_PROBE_MISSED,
	KTREPL_REASON_AUDIT_REPAIR,
	KTREPL_REASON_MIRROR_MISSED,
	KTREPL_REASON_PROBES_DISARMED,
	KTREPL_REASON_VETO_MISSED,
	KTREPL_REASON_NR
};

/* the word, or NULL for none; a function, so no unit has an unused copy */
static inline const char *ktrepl_reason_name(enum ktrepl_reason r)
{
	static const char *const names[KTREPL_REASON_NR] = {
		[KTREPL_REASON_PAGING_GEOMETRY] = "paging_geometry",
		[KTREPL_REASON_SYMBOLS_MISSING] = "symbols_missing",
		[KTREPL_REASON_IMAGE_ABOVE_48_BIT_PA] = "image_above_48_bit_pa",
		[KTREPL_REASON_IDMAP_NOT_FOUND] = "idmap_not_found",
		[KTREPL_REASON_CPU_PM_NOTIFIER_REFUSED] =
			"cpu_pm_notifier_refused",
		[KTREPL_REASON_CPUHP_REFUSED] = "cpuhp_refused",
		[KTREPL_REASON_DIRECT_MAP_NOT_PAGE_GRANULAR] =
			"direct_map_not_page_granular",
		[KTREPL_REASON_ARCH_UNSUPPORTED] = "arch_unsupported",
		[KTREPL_REASON_SPLIT_PTLOCKS] = "split_ptlocks",
		[KTREPL_REASON_TABLE_WALK_FAILED] = "table_walk_failed",
		[KTREPL_REASON_MEMORY_NOTIFIER_REFUSED] =
			"memory_notifier_refused",
		[KTREPL_REASON_TABLE_FREE_HOOK_REFUSED] =
			"table_free_hook_refused",
		[KTREPL_REASON_PREPOPULATE_FAILED] = "prepopulate_failed",
		[KTREPL_REASON_VM_AREA_SYMBOLS_MISSING] =
			"vm_area_symbols_missing",
		[KTREPL_REASON_LEAF_TABLE_SHARED_WITH_VMALLOC] =
			"leaf_table_shared_with_vmalloc",
		[KTREPL_REASON_LEAF_TABLE_GAPS] = "leaf_table_gaps",
		[KTREPL_REASON_LEAF_TABLE_GAP_TAKEN] = "leaf_table_gap_taken",
		[KTREPL_REASON_HUGE_MAPPING_IN_COPIED_TABLE] =
			"huge_mapping_in_copied_table",
		[KTREPL_REASON_NO_FORK_EXEC_TRACEPOINTS] =
			"no_fork_exec_tracepoints",
		[KTREPL_REASON_OUT_OF_MEMORY] = "out_of_memory",
		[KTREPL_REASON_TRACEPOINT_REGISTRATION_FAILED] =
			"tracepoint_registration_failed",
		[KTREPL_REASON_FAILSAFE_TABLES_UNVERIFIED] =
			"failsafe_tables_unverified",
		[KTREPL_REASON_FAILSAFE_REPLICAS_UNVERIFIED] =
			"failsafe_replicas_unverified",
		[KTREPL_REASON_FAILSAFE_NO_PATCH_EXCLUSION] =
			"failsafe_no_patch_exclusion",
		[KTREPL_REASON_FAILSAFE_RECURRING] = "failsafe_recurring",
		[KTREPL_REASON_FAILSAFE_WORKLOAD_RESTART_FAILED] =
			"failsafe_workload_restart_failed",
		[KTREPL_REASON_PATCH_MISSED] = "patch_missed",
		[KTREPL_REASON_PROBE_MISSED] = "probe_missed",
		[KTREPL_REASON_AUDIT_REPAIR] = "audit_repair",
		[KTREPL_REASON_MIRROR_MISSED] = "mirror_missed",
		[KTREPL_REASON_PROBES_DISARMED] = "probes_disarmed",
		[KTREPL_REASON_VETO_MISSED] = "veto_missed",
	};

	return (unsigned int)r < KTREPL_REASON_NR ? names[r] : NULL;
}

/* the summary field a word is published in, or NULL for none */
static inline const char *ktrepl_reason_field(enum ktrepl_reason r)
{
	if (r == KTREPL_REASON_NONE || (unsigned int)r >= KTREPL_REASON_NR)
		return NULL;
	return r >= KTREPL_REASON_PATCH_MISSED ? "failsafe_reason" :
					    "activation_reason";
}

/* The enum value of name in str(0..nr-1), or -1: one parser for both. */
static inline int ktrepl_abi_lookup(const char *(*str)(int), int nr,
				    const char *name)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		const char *s = str(i);

		for (j = 0; s && s[j] && s[j] == name[j]; j++)
			;
		if (s && !s[j] && !name[j])
			return i;
	}
	return -1;
}

#endif
