// SPDX-License-Identifier: GPL-2.0
/*
 * Writing into replicas: a temporary writable mapping per CPU, like
 * text_poke's poking_mm, so that the replicas' direct-map alias stays
 * read-only. The patch hooks, the audit, the resync and the module
 * table mirror write through it, from any context.
 *
 * Ownership: slots[] is set up by ktr_slots_init() and torn down by
 * ktr_slots_free(), before and after anything can write. In between a
 * CPU's slot is its own while interrupts are off (slot_map() to
 * slot_unmap()), so it needs no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/io.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core.h"
#include "build.h"
#include "slot.h"

/* one temporary writable mapping per CPU, like text_poke's poking_mm */
struct ktr_slot {
	struct page *backing;
	void *va;
	pte_t *pte;
	pte_t orig;
};

static struct ktr_slot *slots;	/* [nr_cpu_ids] */

/* a CPU may have cached a slot's first mapping: drop them all */
static void forget_slots(void *unused)
{
	int cpu;

	for_each_possible_cpu(cpu)
		ktr_arch_flush_local((unsigned long)slots[cpu].va);
}

int ktr_slots_init(void)
{
	int cpu;

	slots = kcalloc(nr_cpu_ids, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ktr_slot *s = &slots[cpu];
		pte_t *pte;
		int level;

		s->backing = alloc_page(GFP_KERNEL);
		if (!s->backing)
			return -ENOMEM;
		s->va = vmap(&s->backing, 1, VM_MAP, PAGE_KERNEL);
		if (!s->va)
			return -ENOMEM;
		pte = (pte_t *)ktr_walk(ktr.master_root, (unsigned long)s->va,
					-1, &level);
		if (level != ktr.geom.levels - 1) {
			pr_err("a vmap slot is not mapped by a PTE\n");
			return -EINVAL;
		}
		s->pte = pte;
		s->orig = *pte;
		/*
		 * Idle slots map nothing: mapping one then needs no TLB
		 * invalidation, only unmapping it does.
		 */
		set_pte(s->pte, __pte(0));
	}
	on_each_cpu(forget_slots, NULL, 1);
	return 0;
}

void ktr_slots_free(void)
{
	int cpu;

	if (!slots)
		return;
	for_each_possible_cpu(cpu) {
		if (slots[cpu].pte)
			set_pte(slots[cpu].pte, slots[cpu].orig);
		if (slots[cpu].va)
			vunmap(slots[cpu].va);
		if (slots[cpu].backing)
			__free_page(slots[cpu].backing);
	}
	kfree(slots);
	slots = NULL;
}

/* this CPU's slot onto page, writable; interrupts off until slot_unmap() */
static void *slot_map(struct page *page)
{
	struct ktr_slot *s = &slots[smp_processor_id()];

	/* the slot is this CPU's until slot_unmap(): nothing may preempt */
	lockdep_assert_irqs_disabled();
	set_pte(s->pte, mk_pte(page, PAGE_KERNEL));
	return s->va;
}
NOKPROBE_SYMBOL(slot_map);

static void slot_unmap(void)
{
	struct ktr_slot *s = &slots[smp_processor_id()];

	lockdep_assert_irqs_disabled();
	set_pte(s->pte, __pte(0));
	ktr_arch_flush_local((unsigned long)s->va);
}
NOKPROBE_SYMBOL(slot_unmap);

/*
 * Write len bytes into node nid's replica at va, through this CPU's
 * slot: the replica's direct-map alias stays read-only throughout.
 * src NULL with fill >= 0 means memset. Atomic context is fine.
 */
void ktr_replica_write(int nid, unsigned long va, const void *src, int fill,
		       size_t len)
{
	unsigned long flags;

	local_irq_save(flags);
	while (len) {
		struct ktr_chunk *c = ktr_find_chunk(va);
		unsigned long off;
		struct page *page;
		void *alias;
		size_t n;

		if (!c || !c->copy[nid])
			break;
		off = va - c->va;
		page = c->copy[nid] + (off >> PAGE_SHIFT);
		off &= ~PAGE_MASK;
		n = min_t(size_t, len, PAGE_SIZE - off);
		alias = slot_map(page) + off;
		if (src)
			memcpy(alias, src, n);
		else
			memset(alias, fill, n);
		ktr_arch_sync_icache(alias, va, n);
		slot_unmap();
		va += n;
		len -= n;
		if (src)
			src += n;
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(ktr_replica_write);

/*
 * Write len bytes (within one page) at a physical address, through this
 * CPU's slot: for pages whose other mappings are read-only, such as
 * swapper_pg_dir's linear alias or the master's text, which the kernel
 * itself writes through a fixmap slot. Interrupts off.
 */
void ktr_write_phys(phys_addr_t pa, const void *src, size_t len)
{
	void *alias = slot_map(pfn_to_page(PHYS_PFN(pa))) + offset_in_page(pa);

	/*
	 * The raw bytes, not KASAN's view of them: src may be a module's
	 * page at its own address, whose globals' redzones KASAN checks and
	 * whose copy its memcpy() would then skip, leaving the replica stale
	 * (the debug kernel's module-move path did exactly that).
	 */
	if (len == sizeof(u64))
		WRITE_ONCE(*(u64 *)alias, *(const u64 *)src);
	else
		__memcpy(alias, src, len);
	slot_unmap();
}
NOKPROBE_SYMBOL(ktr_write_phys);
