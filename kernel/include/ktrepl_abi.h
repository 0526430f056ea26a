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
	}
	return NULL;
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
