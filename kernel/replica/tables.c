// SPDX-License-Identifier: GPL-2.0
/*
 * Each replica node's tables: a private copy of only the table pages on
 * the path to its copies (every other entry still points at the master's
 * table pages), its top-level table, and the kernel-only mm on it.
 *
 * Owned here: the nodes' array, each node's list of its own tables and
 * their byte count, and tables_lock. A list and its count have one
 * writer at a time: the init or exit thread, or, while module loads are
 * followed, the holder of mods_lock (modules.c); a list also grows under
 * tables_lock, against the table mirror (mirror.c), and shrinks only at
 * free. The count is read locklessly (debugfs). tables_lock is held over
 * every write to a node's tables made while the mirror may run: here,
 * in the mirror, in a module's leaf move (module_leaves.c) and in the
 * non-global rewrite (mm_x86.c), which take it through
 * ktr_tables_lock().
 *
 * Context: process, at load and unload, and at module load and unload
 * under mods_lock; the lock's functions, from any context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "core.h"
#include "build.h"
#include "tables.h"
#include "testing.h"

static DEFINE_RAW_SPINLOCK(tables_lock);

/* [nr_node_ids], beside ktr.nodes: the tables a node owns */
static struct ktr_node_own {
	struct list_head tables;	/* struct ktr_table, by list */
	u64 table_bytes;		/* read locklessly (debugfs) */
} *node_own;

int ktr_nodes_alloc(void)
{
	int nid;

	ktr.nodes = kcalloc(nr_node_ids, sizeof(*ktr.nodes), GFP_KERNEL);
	node_own = kcalloc(nr_node_ids, sizeof(*node_own), GFP_KERNEL);
	/* both or neither: ktr_free_node() walks node_own beside ktr.nodes */
	if (!ktr.nodes || !node_own) {
		ktr_nodes_free();
		return -ENOMEM;
	}
	/* a failure from here on frees every node's (empty) table list */
	for (nid = 0; nid < nr_node_ids; nid++) {
		INIT_LIST_HEAD(&node_own[nid].tables);
		ktr.nodes[nid].nid = nid;
		/* a node onlined after load has no set: see ktr_memory_nid() */
		ktr.nodes[nid].memory_nid = NUMA_NO_NODE;
	}
	return 0;
}

void ktr_nodes_free(void)
{
	kfree(ktr.nodes);
	ktr.nodes = NULL;
	kfree(node_own);
	node_own = NULL;
}

struct list_head *ktr_node_tables(const struct ktr_node *n)
{
	return &node_own[n->nid].tables;
}
NOKPROBE_SYMBOL(ktr_node_tables);

u64 ktr_node_table_bytes(int nid)
{
	return READ_ONCE(node_own[nid].table_bytes);
}

unsigned long ktr_tables_lock(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tables_lock, flags);
	return flags;
}
NOKPROBE_SYMBOL(ktr_tables_lock);

void ktr_tables_unlock(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&tables_lock, flags);
}
NOKPROBE_SYMBOL(ktr_tables_unlock);

void ktr_tables_lock_assert_held(void)
{
	lockdep_assert_held(&tables_lock);
}
NOKPROBE_SYMBOL(ktr_tables_lock_assert_held);

#ifdef CONFIG_LOCKDEP
bool ktr_tables_lock_held(void)
{
	return lockdep_is_held(&tables_lock);
}
#endif

/*
 * n's own table at level over va, or NULL. The list grows under
 * tables_lock, by the holder of mods_lock once module loads are followed
 * (before, and after ktr_modules_stop(), by the init or exit thread
 * alone): a walker holds one of the two, is that thread, or is an RCU
 * reader (rcu_read_lock(), or preemption or interrupts off).
 */
struct ktr_table *ktr_owned_table(struct ktr_node *n, int level,
				  unsigned long va)
{
	struct ktr_table *t;
	unsigned long base = level ? va & ~(ktr_level_size(level - 1) - 1) : 0;

	list_for_each_entry_rcu(t, &node_own[n->nid].tables, list,
				lockdep_is_held(&tables_lock) ||
				ktr_accounting_writer())
		if (t->level == level && t->va == base)
			return t;
	return NULL;
}
NOKPROBE_SYMBOL(ktr_owned_table);

/*
 * Make the table at 'level' that translates va private to node n:
 * copy the master's table page to a node-local one and point the
 * parent entry (already private) at it.
 */
static int own_table(struct ktr_node *n, u64 *parent, int level,
		     unsigned long va)
{
	u64 parent_entry = READ_ONCE(*parent);
	unsigned long flags;
	struct ktr_table *t;
	struct page *page;

	if (ktr_owned_table(n, level, va))
		return 0;
	/*
	 * No table to copy: a master entry the mirror let by (a region
	 * outside its span) and has yet to bring in. The map fails; a copy
	 * of what the entry's zero address maps would be the node's table.
	 */
	if (!ktr_pte_present(parent_entry) ||
	    ktr_pte_leaf(parent_entry, level - 1, ktr.geom.levels))
		return -EFAULT;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	page = ktr_accounting_followed() && ktr_test_fail_table(level) ?
		       NULL : ktr_alloc(n->nid, 0);
	if (!page) {
		kfree(t);
		pr_err("no memory on node %d for a level-%d table\n", n->nid,
		       level);
		return -ENOMEM;
	}
	t->page = page;
	t->level = level;
	t->va = va & ~(ktr_level_size(level - 1) - 1);
	/*
	 * The copy, the listing and the switch are one step for the table
	 * mirror (mirror.c): a master entry written before it is in the
	 * copy, one written after it is mirrored into the listed copy.
	 */
	raw_spin_lock_irqsave(&tables_lock, flags);
	memcpy(page_address(page), ktr_table_va(*parent), PAGE_SIZE);
	list_add_tail_rcu(&t->list, &node_own[n->nid].tables);
	node_own[n->nid].table_bytes += PAGE_SIZE;
	WRITE_ONCE(*parent,
		   (*parent & ~ktr.geom.addr_mask) | page_to_phys(page));
	raw_spin_unlock_irqrestore(&tables_lock, flags);
	return 0;
}

/* the master's table page that node table t copies, or NULL */
u64 *ktr_master_table_of(const struct ktr_table *t)
{
	int level;
	u64 *e = ktr_walk(ktr.master_root, t->va, t->level - 1, &level);

	if (level != t->level - 1 || !ktr_pte_present(*e) ||
	    ktr_pte_leaf(*e, level, ktr.geom.levels))
		return NULL;
	return ktr_table_va(*e);
}
NOKPROBE_SYMBOL(ktr_master_table_of);

static int leaf_level_of(const struct ktr_chunk *c)
{
	int l;

	for (l = ktr.geom.levels - 1; l >= 0; l--)
		if (ktr.geom.shift[l] == c->page_shift)
			return l;
	return -1;
}

/*
 * Node n's leaf entry for chunk c, owning the tables on the way to it:
 * the entry is n's own to write. ERR_PTR on failure.
 */
u64 *ktr_own_leaf(struct ktr_node *n, const struct ktr_chunk *c)
{
	int leaf_level = leaf_level_of(c), l, ret;
	u64 *table = n->root, *e;

	if (leaf_level < 0)
		return ERR_PTR(-EINVAL);
	for (l = 0; l < leaf_level; l++) {
		e = &table[ktr_level_index(c->va, l)];
		ret = own_table(n, e, l + 1, c->va);
		if (ret)
			return ERR_PTR(ret);
		table = ktr_table_va(*e);
	}
	return &table[ktr_level_index(c->va, leaf_level)];
}

/*
 * Point node n's leaf for chunk c at its copy, owning the path to it.
 * The address comes from ktr_chunk_pa(), as the mirror's does: the full
 * mirror pass after modules start would otherwise quietly heal a leaf
 * that this function got wrong, and no check would ever see it.
 */
int ktr_map_chunk(struct ktr_node *n, const struct ktr_chunk *c)
{
	u64 *e = ktr_own_leaf(n, c);
	unsigned long flags;

	if (IS_ERR(e))
		return PTR_ERR(e);
	raw_spin_lock_irqsave(&tables_lock, flags);
	WRITE_ONCE(*e, ktr_pte_node_leaf(*e, ktr_chunk_pa(c, n->nid)));
	raw_spin_unlock_irqrestore(&tables_lock, flags);
	return 0;
}

int ktr_build_node_tables(struct ktr_node *n)
{
	unsigned int lead = KTR_ARCH_ROOT_LEAD_PAGES;
	int i, ret;

	n->root_order = order_base_2(lead + (1U << ktr.geom.root_order));
	n->root_page = ktr_alloc_zeroed(n->nid, n->root_order);
	if (!n->root_page) {
		pr_err("no memory on node %d for its top-level table\n",
		       n->nid);
		return -ENOMEM;
	}
	if (lead)
		ktr_arch_fill_root_lead(page_address(n->root_page));
	n->root = page_address(n->root_page) + lead * PAGE_SIZE;
	memcpy(n->root, ktr.master_root, PAGE_SIZE);
	node_own[n->nid].table_bytes += PAGE_SIZE << n->root_order;

	for (i = 0; i < ktr.nr_chunks; i++) {
		ret = ktr_map_chunk(n, &ktr.chunks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A kernel-only mm whose tables are the node's set, for kthread_use_mm. */
struct mm_struct *ktr_node_mm(u64 *root, pgd_t **orig)
{
	struct mm_struct *mm = ktr.mm_alloc();

	if (!mm)
		return NULL;
	*orig = mm->pgd;
	mm->pgd = (pgd_t *)root;
	return mm;
}

void ktr_free_node(struct ktr_node *n)
{
	struct ktr_table *t, *tmp;

	if (n->mm) {
		n->mm->pgd = n->mm_orig_pgd;
		mmput(n->mm);
		n->mm = NULL;
	}
	list_for_each_entry_safe(t, tmp, &node_own[n->nid].tables, list) {
		ktr_free(t->page, 0);
		list_del(&t->list);
		kfree(t);
	}
	if (n->root_page)
		ktr_free(n->root_page, n->root_order);
	n->root_page = NULL;
	n->root = NULL;
}
