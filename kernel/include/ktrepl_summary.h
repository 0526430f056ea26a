/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_SUMMARY_H
#define KTREPL_SUMMARY_H

/*
 * The fields of debugfs summary's first line, declared once: the module
 * prints them from this table (kernel/debugfs/publish.c) and the tools
 * read them by these names and types (tools/lib/ktrepl/state.c, whose
 * table a unit test checks against this one). A field is only ever
 * added, at the end, with the ABI version it came in (docs/abi.md):
 * readers ignore keys they do not know.
 */
enum ktrepl_field_type {
	KTREPL_F_INT,	/* signed decimal */
	KTREPL_F_UINT,	/* unsigned decimal */
	KTREPL_F_HEX,	/* 0x and lower-case hex */
	KTREPL_F_STR,	/* a word: no spaces, "-" when empty */
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
	};

	return fields;
}

#endif
