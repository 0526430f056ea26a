// SPDX-License-Identifier: GPL-2.0
/*
 * The module-area table mirror. A node owns copies of the leaf tables
 * (and of the tables above them) that map its module replicas, and the
 * kernel keeps writing only the master's originals. The mirror keeps
 * every owned copy equal to its master except for the entries that
 * point at the node's own replicas and tables: kretprobes on the
 * functions that map, unmap and change the protections of vmalloc
 * ranges (the non-inlined ones: vmalloc.c inlines its inner map and
 * unmap calls) mirror each range that crosses an owned table, after the
 * kernel wrote the master's and before the caller can use it (a new
 * mapping), or before the pages go back to the allocator (an unmap:
 * vfree() flushes and frees only after vunmap_range_noflush()).
 *
 * Locking: the owned tables' entries and the span they cover
 * (mirror_lo, mirror_last) are written under tables_lock (raw
 * spinlock, tables.c's: ktr_tables_lock()), from any context: the
 * probes' handlers, and modules.c under mods_lock when it maps, unmaps
 * or lists tables. The handlers' first test of the span is lockless
 * (READ_ONCE), and only decides whether to take the lock. The probe
 * table is registered and unregistered by ktr_mirror_hook()/_unhook(),
 * from the engine's load and stop, never concurrently.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/vmalloc.h>

#include "engine.h"
#include "testing.h"
#include "ktrepl_compat.h"

static atomic64_t nr_mirrored;
/*
 * The VAs the owned leaf and next-to-leaf tables cover, inclusive (the
 * last table of the address space ends at 2^64), under tables_lock.
 */
static unsigned long mirror_lo = ULONG_MAX, mirror_last;


/*
 * What entry idx of node n's owned table t should hold, given the
 * master's: the master's, except where n points at its own lower table
 * or its own replica of a mapped chunk.
 */
static bool wanted_entry(struct ktr_node *n, const struct ktr_table *t,
			 unsigned long va, u64 master, u64 cur, u64 *want)
{
	struct ktr_chunk *c;

	ktr_tables_lock_assert_held();
	*want = master;
	if (t->level < ktr.geom.levels - 1 && ktr_pte_present(cur) &&
	    !ktr_pte_leaf(cur, t->level, ktr.geom.levels)) {
		struct ktr_table *lower = ktr_owned_table(n, t->level + 1, va);

		if (lower && page_to_phys(lower->page) ==
				     (cur & ktr.geom.addr_mask))
			return false;
	}
	if (ktr_pte_present(master) &&
	    ktr_pte_leaf(master, t->level, ktr.geom.levels)) {
		c = ktr_module_chunk(va, true);
		if (!c)
			c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
		if (c && c->va == va && c->copy && c->copy[n->nid] &&
		    c->page_shift == ktr.geom.shift[t->level])
			*want = ktr_pte_node_leaf(master,
						   ktr_chunk_pa(c, n->nid));
	}
	return cur != *want;
}

/*
 * Make every owned table that translates part of [start, end) equal to
 * its master again, but for the node's own entries. Returns whether a
 * present entry changed (a TLB may hold it). Context: any.
 */
bool ktr_mirror_range(unsigned long start, unsigned long end)
{
	bool flush = false;
	unsigned long flags;
	int nid;

	flags = ktr_tables_lock();
	if (end - 1 < mirror_lo || start > mirror_last)
		goto out;
	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];
		struct ktr_table *t;

		if (!n->own_replica || !n->root)
			continue;
		/* the list grows under tables_lock: see ktr_owned_table() */
		list_for_each_entry_rcu(t, ktr_node_tables(n), list,
					ktr_tables_lock_held()) {
			unsigned long size = ktr_level_size(t->level);
			unsigned long span = ktr_level_size(t->level - 1);
			unsigned long lo = max(start, t->va) & ~(size - 1);
			unsigned long hi = min(end - 1, t->va + span - 1);
			u64 *master, *copy = page_address(t->page);
			unsigned long va;

			if (start > t->va + (span - 1) || end - 1 < t->va)
				continue;
			master = ktr_master_table_of(t);
			if (!master)
				continue;
			for (va = lo; va <= hi && va >= lo; va += size) {
				unsigned int i = ktr_level_index(va, t->level);
				u64 cur = READ_ONCE(copy[i]), want;

				if (cur == READ_ONCE(master[i]))
					continue;
				if (!wanted_entry(n, t, va, READ_ONCE(master[i]),
						  cur, &want))
					continue;
				WRITE_ONCE(copy[i], want);
				flush |= ktr_pte_present(cur);
				atomic64_inc(&nr_mirrored);
			}
		}
	}
	ktr_arch_tables_changed();
out:
	ktr_tables_unlock(flags);
	return flush;
}
NOKPROBE_SYMBOL(ktr_mirror_range);

/* the mirror hooks: (start, end) taken at entry, mirrored at return */
struct mirror_args {
	unsigned long start, end;
};

static bool crosses_owned(unsigned long start, unsigned long end)
{
	return end - 1 >= READ_ONCE(mirror_lo) &&
	       start <= READ_ONCE(mirror_last);
}

static int range_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;

	a->start = regs_get_kernel_argument(regs, 0);
	a->end = regs_get_kernel_argument(regs, 1);
	/* nonzero: no return handler, the instance goes back at once */
	return !crosses_owned(a->start, a->end);
}
NOKPROBE_SYMBOL(range_entry);

static int pages_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;

	a->start = regs_get_kernel_argument(regs, 0);
	a->end = a->start + regs_get_kernel_argument(regs, 1) * PAGE_SIZE;
	/* x86 CPA rewrites the image's alias of a page too: see below */
	if (KTR_ARCH_PROTECT_CHANGES_ALIASES) {
		a->start = 0;
		a->end = ULONG_MAX;
	}
	return !crosses_owned(a->start, a->end);
}
NOKPROBE_SYMBOL(pages_entry);

static int mirror_return(struct kretprobe_instance *ri, struct pt_regs *regs);

/*
 * __vmalloc_node_range(size, ...) and vmap(pages, count, ...): the area
 * is known at return. Their inner map calls are inlined in vmalloc.c.
 */
static int alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;

	a->end = PAGE_ALIGN(regs_get_kernel_argument(regs, 0));
	return 0;
}
NOKPROBE_SYMBOL(alloc_entry);

static int vmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;

	a->end = regs_get_kernel_argument(regs, 1) << PAGE_SHIFT;
	return 0;
}
NOKPROBE_SYMBOL(vmap_entry);

static int alloc_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;
	unsigned long addr = regs_return_value(regs);

	if (!addr || !crosses_owned(addr, addr + a->end))
		return 0;
	a->start = addr;
	a->end += addr;
	return mirror_return(ri, regs);
}
NOKPROBE_SYMBOL(alloc_return);

/* remove_vm_area(addr): the range is known at return, from its area */
static int area_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long addr = regs_get_kernel_argument(regs, 0);

	return !crosses_owned(addr, addr + 1);
}
NOKPROBE_SYMBOL(area_entry);

static int area_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_struct *vm = (void *)regs_return_value(regs);
	struct mirror_args *a = (void *)ri->data;

	if (!vm)
		return 0;
	a->start = (unsigned long)vm->addr;
	a->end = a->start + vm->size;
	return mirror_return(ri, regs);
}
NOKPROBE_SYMBOL(area_return);

static int mirror_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mirror_args *a = (void *)ri->data;

	/*
	 * A protection change: the kernel flushed before returning, and a
	 * CPU on a node's tables may have refilled from the old entry. arm64
	 * invalidates by broadcast, in any context; x86 takes a spurious
	 * fault on a stale read-only or no-exec entry, which re-walks and
	 * finds the mirrored one.
	 */
	if (ktr_mirror_range(a->start, a->end) && KTR_ARCH_FLUSH_ANYWHERE)
		ktr_arch_flush_kernel_range(a->start, a->end);
	return 0;
}
NOKPROBE_SYMBOL(mirror_return);

#define MIRROR_PROBE(sym, entry, ret)                                 \
	{ .kp.symbol_name = sym, .entry_handler = entry,               \
	  .handler = ret,                                              \
	  .data_size = sizeof(struct mirror_args) }

#define PAGES_PROBE(sym) MIRROR_PROBE(sym, pages_entry, mirror_return)

static struct kretprobe mirror_probes[] = {
	MIRROR_PROBE(KTR_COMPAT_VMALLOC_RANGE_SYMBOL, alloc_entry, alloc_return),
	MIRROR_PROBE("vmap", vmap_entry, alloc_return),
	/* (addr, end, prot, pages, page_shift): maps by other files */
	MIRROR_PROBE("__vmap_pages_range_noflush", range_entry, mirror_return),
	MIRROR_PROBE("vmap_pages_range_noflush", range_entry, mirror_return),
	/*
	 * (start, end): unmappings by other files; vmalloc.c inlines its
	 * own calls (vfree, vunmap), which all pass remove_vm_area()
	 */
	MIRROR_PROBE("vunmap_range_noflush", range_entry, mirror_return),
	MIRROR_PROBE("remove_vm_area", area_entry, area_return),
	/* (addr, numpages) */
	MIRROR_PROBE("set_memory_ro", pages_entry, mirror_return),
	MIRROR_PROBE("set_memory_rw", pages_entry, mirror_return),
	MIRROR_PROBE("set_memory_x", pages_entry, mirror_return),
	MIRROR_PROBE("set_memory_nx", pages_entry, mirror_return),
	KTR_COMPAT_OWN_ROX_PROBES(PAGES_PROBE)
};
static unsigned int nr_mirror_probes;

/* whether every probe is registered: modules are replicated only then */
bool ktr_mirror_hooked(void)
{
	return nr_mirror_probes == ARRAY_SIZE(mirror_probes);
}

/*
 * Before the core's copy is taken (arming a kprobe patches core text):
 * false, with the probes that did register left for ktr_mirror_unhook(),
 * when one cannot be.
 */
bool ktr_mirror_hook(void)
{
	int ret;

	for (; nr_mirror_probes < ARRAY_SIZE(mirror_probes); nr_mirror_probes++) {
		/*
		 * These functions sleep, so calls in flight are bounded by
		 * tasks, not CPUs: a miss ends replication (fail-safe), so
		 * room for a fork storm's vmap stacks on every CPU.
		 */
		mirror_probes[nr_mirror_probes].maxactive =
			max(1024U, 32 * num_possible_cpus());
		ret = register_kretprobe(&mirror_probes[nr_mirror_probes]);
		if (ret) {
			pr_err("cannot hook %s to keep module tables fresh: %d; modules are not replicated\n",
			       mirror_probes[nr_mirror_probes].kp.symbol_name,
			       ret);
			return false;
		}
	}
	return true;
}

/* waits for running handlers (unregister_kretprobe() does) */
void ktr_mirror_unhook(void)
{
	while (nr_mirror_probes > 0)
		unregister_kretprobe(&mirror_probes[--nr_mirror_probes]);
}

/* the VAs the owned tables cover, [lo, last]; (ULONG_MAX, 0): none */
void ktr_mirror_set_span(unsigned long lo, unsigned long last)
{
	unsigned long flags;

	flags = ktr_tables_lock();
	WRITE_ONCE(mirror_lo, lo);
	WRITE_ONCE(mirror_last, last);
	ktr_tables_unlock(flags);
}

#ifdef KTREPL_TEST
/* test build: a module-area table update the mirror's probe missed */
int ktr_mirror_force_miss(void)
{
	if (!nr_mirror_probes)
		return -EOPNOTSUPP;
	mirror_probes[0].nmissed++;
	ktr_failsafe_poll();
	return 0;
}
#endif

void ktr_mirror_counters(u64 *mirrored, u64 *missed)
{
	unsigned int i;

	*mirrored = atomic64_read(&nr_mirrored);
	*missed = 0;
	for (i = 0; i < nr_mirror_probes; i++)
		*missed += READ_ONCE(mirror_probes[i].nmissed) +
			   READ_ONCE(mirror_probes[i].kp.nmissed);
}
