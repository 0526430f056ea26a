// SPDX-License-Identifier: GPL-2.0
/*
 * The engine as a struct ktrepl_provider: what the publisher reads.
 *
 * Context: the ops run from debugfs readers and the descriptor refresh
 * (process context), except ktr_read_root (an IPI) and whatever the
 * publisher sets in ->changed; see ktrepl_provider.h for each op.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/rculist.h>

#include "activation.h"
#include "core.h"
#include "activation_mm.h"
#include "audit.h"
#include "build.h"
#include "failsafe.h"
#include "fresh.h"
#include "mirror.h"
#include "modules.h"
#include "patch.h"
#include "provider.h"
#include "tables.h"
#include "workload.h"

static int ktr_memory_node(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !node_online(nid))
		return NUMA_NO_NODE;
	return ktr_memory_nid(nid);
}

static int ktr_walk_extents(int nid, int region, ktrepl_extent_fn fn,
			    void *arg)
{
	return ktr_chunk_extents(ktr.chunks, ktr.nr_chunks, nid, region, fn,
				 arg);
}

static u64 *root_of(int nid)
{
	int mem = ktr_memory_node(nid);

	return mem != NUMA_NO_NODE && ktr.nodes[mem].root ?
		       ktr.nodes[mem].root : ktr.master_root;
}

/* a late node's CPUs run on the master's tables: its root is that one */
static phys_addr_t ktr_node_root(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !node_online(nid))
		return 0;
	return __pa(root_of(nid));
}

/* nid's leaf for the chunk at m->va, and whether its path is private */
static void chunk_mapping(struct ktr_node *mem, u64 *root,
			  struct ktrepl_mapping *m)
{
	u64 *table = root, v = 0;
	int l;

	m->shared = true;
	for (l = 0; l < ktr.geom.levels; l++) {
		v = READ_ONCE(table[ktr_level_index(m->va, l)]);
		if (!ktr_pte_present(v) || ktr_pte_leaf(v, l, ktr.geom.levels))
			break;
		/*
		 * private all the way down unless a master page is met; a
		 * module load may be growing the node's table list
		 */
		rcu_read_lock();
		m->shared = !(l + 1 < ktr.geom.levels && mem->root &&
			      ktr_owned_table(mem, l + 1, m->va));
		rcu_read_unlock();
		table = ktr_table_va(v);
	}
	if (l == ktr.geom.levels)
		l = ktr.geom.levels - 1;
	m->level = l;
	m->size = ktr_level_size(l);
	m->entry = v;
	m->present = ktr_pte_present(v);
	if (!m->present)
		return;
	m->pa = v & ktr.geom.addr_mask & ~((u64)m->size - 1);
	m->writable = ktr_pte_writable(v, l);
	m->executable = ktr_pte_executable(v, l);
	m->global = ktr_pte_global(v, l);
}

static int ktr_walk_mappings(int nid, ktrepl_mapping_fn fn, void *arg)
{
	int mem = ktr_memory_node(nid), i, ret;

	if (mem == NUMA_NO_NODE)
		return -EINVAL;
	for (i = 0; i < ktr.nr_chunks; i++) {
		struct ktrepl_mapping m = { .va = ktr.chunks[i].va };

		chunk_mapping(&ktr.nodes[mem], root_of(nid), &m);
		ret = fn(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* debugfs, while a module load may be growing the list: see tables.c */
static bool owns_page(struct ktr_node *n, u64 entry)
{
	struct ktr_table *t;
	bool own = false;

	rcu_read_lock();
	list_for_each_entry_rcu(t, ktr_node_tables(n), list) {
		if (page_to_phys(t->page) == (entry & ktr.geom.addr_mask)) {
			own = true;
			break;
		}
	}
	rcu_read_unlock();
	return own;
}

static int ktr_root_diff(int nid, unsigned int *own, unsigned int *differ)
{
	u64 *root = root_of(nid);
	unsigned int i;

	*own = 0;
	*differ = 0;
	if (root == ktr.master_root)
		return 0;
	for (i = ktr.geom.kernel_first; i < (1U << ktr.geom.bits[0]); i++) {
		if (root[i] == ktr.master_root[i])
			continue;
		if (owns_page(&ktr.nodes[ktr_memory_node(nid)], root[i]))
			(*own)++;
		else
			(*differ)++;
	}
	return 0;
}

static u64 ktr_overhead_bytes(int nid)
{
	if (nid < 0 || nid >= nr_node_ids || !node_online(nid))
		return 0;
	return ktr_node_bytes(nid);
}

static void ktr_engine_counters(struct ktrepl_engine_counters *c)
{
	memset(c, 0, sizeof(*c));
	ktr_audit_counters(&c->audits, &c->audit_repairs);
	c->patch_window = ktr_patch_window();
	if (ktr_arch.percpu_counters)
		ktr_arch.percpu_counters(&c->switches, &c->reinstalls,
					 &c->switch_ns);
	c->donated_pages = ktr_fresh_donated_pages();
	c->vetoes = ktr_fresh_vetoes();
	if (ktr_activation() == KTREPL_ACT_MM)
		ktr_arch.mm->counters(&c->binds, &c->unbinds);
	ktr_mirror_counters(&c->table_mirrors, &c->mirror_missed);
	ktr_failsafe_counters(&c->failsafe, &c->failsafe_active,
			      &c->failsafe_reason);
}

static phys_addr_t ktr_installed_root(int cpu)
{
	if (ktr_activation() != KTREPL_ACT_PERCPU || !ktr_arch.installed_root)
		return 0;
	return ktr_arch.installed_root(cpu);
}

static phys_addr_t ktr_read_root(void)
{
	return ktr_arch_read_root();
}

/*
 * The ops of core.c's provider, filled once the engine is loaded and
 * before the publisher first reads them. Process context.
 */
struct ktrepl_provider *ktr_engine_provider(void)
{
	struct ktrepl_provider *p = &ktr_provider;

	p->memory_node = ktr_memory_node;
	p->for_each_extent = ktr_walk_extents;
	p->modules = ktr_modules_list;
	p->for_each_module_extent = ktr_module_extents;
	p->node_root = ktr_node_root;
	p->for_each_mapping = ktr_walk_mappings;
	p->root_diff = ktr_root_diff;
	p->overhead_bytes = ktr_overhead_bytes;
	p->patch_counters = ktr_patch_counters;
	p->engine_counters = ktr_engine_counters;
	p->installed_root = ktr_installed_root;
	p->flush = ktr_audit_flush;
	p->patch_log = ktr_patch_log;
	p->tasks = ktr_tasks;
	p->workload_ctl = ktr_workload_ctl;
	p->workload_mode = ktr_workload_mode;
	p->master_probe = ktr_master_probe;
	p->read_root = ktr_read_root;
	return p;
}
