/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A replicated module, shared by modules.c (which lists it, under
 * mods_lock) and module_leaves.c (which moves its leaves onto its copies
 * and back). Every field is written under mods_lock; the RCU readers of
 * modules.c's list read ready and mapped with READ_ONCE.
 */
#ifndef KTREPL_MODULE_H
#define KTREPL_MODULE_H

#include <linux/module.h>

#include "core.h"

struct leaf_write {
	u64 *entry;
	u64 val;
};

struct ktr_module {
	struct list_head list;	/* in ktr_modules: RCU, writers under mods_lock */
	struct module *mod;	/* valid while listed and followed */
	char name[MODULE_NAME_LEN];
	/* [start, end): text up to text_end, then (to 6.3) its rodata */
	unsigned long start, text_end, end;
	/* from 6.4 the rodata is an area of its own; 0 before */
	unsigned long rodata_start, rodata_end;
	struct ktr_chunk *chunks;
	int nr_chunks;
	struct ktr_master_copy *master_copies;	/* [nr_chunks] */
	/* room for every leaf of every set, taken at load: unload cannot fail */
	struct leaf_write *leaf_writes;
	int nr_global_cleared;	/* master leaves made non-global (mm) */
	bool ready;		/* copies taken: the patch hook writes them */
	bool mapped;		/* node leaves point at them: the mirror keeps them */
	u64 since_ns;
};

/*
 * The master node's copy of a module page the loader put on another
 * node. While the module is replicated the master's leaf maps it, so the
 * master node runs local text too, and the kernel's own writes land in
 * it (its text poker follows the master's leaf: vmalloc_to_page()). The
 * loader's page goes back under the leaf, with the current bytes, before
 * the module is freed: vfree() frees the pages it allocated.
 */
struct ktr_master_copy {
	struct page *page;	/* NULL: the loader's page is on the master node */
	phys_addr_t loader_pa;
};

int ktr_module_alloc_master_copies(struct ktr_module *km);
/* onto the copies or back, every CPU seeing one set: see there */
void ktr_module_move_leaves(struct ktr_module *km, bool to_copies);
void ktr_module_leaves_global(struct ktr_module *km, bool global);

#endif
