// SPDX-License-Identifier: GPL-2.0
/*
 * A replicated module's leaves: the master node's own copies of pages
 * the loader put on another node, and the move of every leaf over the
 * module onto its node's copies (at replication) and back (at unload,
 * or when ktrepl stops), so that every CPU sees either the old leaves or
 * the new ones, never a mix, and no text write is in flight meanwhile.
 *
 * Context: process, under modules.c's mods_lock (asserted); the move
 * itself under tables_lock, inside stop_machine() where a leaf may not
 * change its page in one write (arm64), else under text_mutex with
 * interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>

#include "core.h"
#include "build.h"
#include "modules.h"
#include "slot.h"
#include "tables.h"
#include "ktrepl_node.h"
#include "module.h"
#include "testing.h"

/* the master node's copies, for pages the loader put elsewhere */
int ktr_module_alloc_master_copies(struct ktr_module *km)
{
	int i;

	km->master_copies = kcalloc(km->nr_chunks, sizeof(*km->master_copies),
				    GFP_KERNEL);
	if (!km->master_copies)
		return -ENOMEM;
	for (i = 0; i < km->nr_chunks; i++) {
		struct ktr_master_copy *mc = &km->master_copies[i];

		mc->loader_pa = km->chunks[i].master_pa;
		if (ktrepl_pa_node(mc->loader_pa) == ktr.master_nid)
			continue;
		mc->page = ktr_alloc(ktr.master_nid, 0);
		if (!mc->page) {
			pr_err("no memory on node %d for the master's copy of %s\n",
			       ktr.master_nid, km->name);
			return -ENOMEM;
		}
	}
	return 0;
}

/* one move of a module's leaves: onto the copies, or back */
struct leaf_move {
	struct ktr_module *km;
	bool to_copies;
	int nr_writes;
};

static void add_write(struct leaf_move *m, u64 *entry, u64 val)
{
	if (READ_ONCE(*entry) != val)
		m->km->leaf_writes[m->nr_writes++] =
			(struct leaf_write){ entry, val };
}

/*
 * The master's leaf for chunk i, and each node's, as they are to be.
 * Moving onto the copies, the master's copy first takes the current
 * bytes; moving back, the loader's page does. Interrupts off.
 */
static void plan_leaf_writes(struct leaf_move *m, int i)
{
	struct ktr_chunk *c = &m->km->chunks[i];
	struct ktr_master_copy *mc = &m->km->master_copies[i];
	int level, nid, leaf_level = ktr.geom.levels - 1;
	u64 *e = ktr_walk(ktr.master_root, c->va, -1, &level);
	u64 master = READ_ONCE(*e);

	ktr_tables_lock_assert_held();
	if (mc->page) {
		phys_addr_t to = m->to_copies ? page_to_phys(mc->page) :
						mc->loader_pa;

		ktr_write_phys(to, (void *)c->va, PAGE_SIZE);
		ktr_arch_sync_icache(phys_to_virt(to), c->va, PAGE_SIZE);
		master = (master & ~ktr.geom.addr_mask) | to;
		add_write(m, e, master);
	}
	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];

		if (!n->own_replica || !n->root || !c->copy[nid])
			continue;
		/* only a leaf in a table the node owns is the node's own */
		if (!ktr_owned_table(n, leaf_level, c->va))
			continue;
		e = ktr_walk(n->root, c->va, -1, &level);
		if (level != leaf_level)
			continue;
		add_write(m, e, m->to_copies ?
			  ktr_pte_node_leaf(master,
					     page_to_phys(c->copy[nid])) :
			  master);
	}
}

/*
 * Every CPU that may fetch the module sees only the old leaves or only
 * the new ones: both map the same bytes, and no write to the text is in
 * flight (stop_machine(), or text_mutex). Where a leaf may not change its
 * page in one write (arm64), every leaf goes through an invalid entry and
 * a broadcast invalidate first; no CPU runs the module meanwhile, since
 * every other one spins in stop_machine() with interrupts off.
 */
static int move_leaves_now(void *arg)
{
	struct leaf_move *m = arg;
	struct ktr_module *km = m->km;
	struct leaf_write *w = km->leaf_writes;
	unsigned long flags;
	int i;

	flags = ktr_tables_lock();
	m->nr_writes = 0;
	for (i = 0; i < km->nr_chunks; i++)
		plan_leaf_writes(m, i);
	if (KTR_ARCH_LEAF_MOVE_BREAKS) {
		/* arm64, the one arch here: a broadcast TLBI, no IPI */
		for (i = 0; i < m->nr_writes; i++)
			WRITE_ONCE(*w[i].entry, 0);
		ktr_arch_tables_changed();
		ktr_arch_flush_kernel_range(km->start, km->end);
		if (km->rodata_end)
			ktr_arch_flush_kernel_range(km->rodata_start,
						    km->rodata_end);
	}
	for (i = 0; i < m->nr_writes; i++)
		WRITE_ONCE(*w[i].entry, w[i].val);
	ktr_arch_tables_changed();
	/* where arm64's ktr_patch_arch_write_master() writes the master: now here */
	for (i = 0; i < km->nr_chunks; i++) {
		struct ktr_master_copy *mc = &km->master_copies[i];

		if (mc->page)
			km->chunks[i].master_pa = m->to_copies ?
				page_to_phys(mc->page) : mc->loader_pa;
	}
	WRITE_ONCE(km->mapped, m->to_copies);
	ktr_tables_unlock(flags);
	return 0;
}

void ktr_module_move_leaves(struct ktr_module *km, bool to_copies)
{
	struct leaf_move m = { .km = km, .to_copies = to_copies };
	unsigned long flags;

	ktr_modules_lock_assert_held();
	/*
	 * stop_machine() excludes an arm64 patch, made with interrupts off;
	 * an x86 one sleeps under text_mutex, which must not be taken
	 * around stop_machine() (static keys take it inside the CPU
	 * hotplug lock).
	 */
	if (KTR_ARCH_LEAF_MOVE_BREAKS) {
		stop_machine(move_leaves_now, &m, NULL);
	} else {
		if (ktr.text_mutex)
			mutex_lock(ktr.text_mutex);
		local_irq_save(flags);
		move_leaves_now(&m);
		local_irq_restore(flags);
	}
	ktr_test_lifetime("leaves_moved module=%s to=%s writes=%d", km->name,
			  to_copies ? "copies" : "loader", m.nr_writes);
	/*
	 * Before any page a leaf left may be freed: every CPU, every PCID.
	 * Under mm the master's leaves over the module are not global, and
	 * INVLPG, all a range flush does for a few pages, drops them from
	 * the current PCID only.
	 */
	ktr_arch_flush_all();
	if (!KTR_ARCH_LEAF_MOVE_BREAKS && ktr.text_mutex)
		mutex_unlock(ktr.text_mutex);
}

/*
 * Activation mm: a CPU keeps a global TLB entry across the CR3 switch
 * into a bound process, so while a module is replicated under mm the
 * master's leaves over it are not global, as the core's are not
 * (mm_x86.c). modules.c asks for !global only while the activation
 * wants it (ktr_modules_want_nonglobal()). Each leaf gets its global bit
 * back from what was recorded when it was cleared (global_cleared),
 * whatever the activation is by then: a fail-safe's give-up ends it, and
 * the leaves must still be global again before ktrepl.ko goes.
 */
void ktr_module_leaves_global(struct ktr_module *km, bool global)
{
	int i, changed = 0;

	ktr_modules_lock_assert_held();
	if (!KTR_ARCH_NONGLOBAL_TEXT)
		return;
	if (global && !km->nr_global_cleared)
		return;
	for (i = 0; i < km->nr_chunks; i++) {
		struct ktr_chunk *c = &km->chunks[i];
		int level;
		u64 *e = ktr_walk(ktr.master_root, c->va, -1, &level);
		u64 v = READ_ONCE(*e);

		if (!global && !c->global_cleared && ktr_pte_global(v, level)) {
			WRITE_ONCE(*e, ktr_pte_with_global(v, false));
			c->global_cleared = true;
			km->nr_global_cleared++;
			changed++;
		} else if (global && c->global_cleared) {
			WRITE_ONCE(*e, ktr_pte_with_global(v, true));
			c->global_cleared = false;
			km->nr_global_cleared--;
			changed++;
		}
	}
	ktr_test_lifetime("leaves_global module=%s global=%d changed=%d",
			  km->name, global, changed);
	if (changed)
		ktr_arch_flush_all();	/* every PCID: see ktr_module_move_leaves() */
}
