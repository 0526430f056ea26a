// SPDX-License-Identifier: GPL-2.0
/*
 * The vmcore descriptor (include/ktrepl_desc.h): the published facts in
 * one physically contiguous block, announced in VMCOREINFO, so that a
 * dump taken by kdump or QEMU tells offline tools where everything is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/elf.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/topology.h>

#include "ktrepl_abi.h"
#include "ktrepl_desc.h"
#include "ktrepl_ksym.h"
#include "ktrepl_node.h"
#include "publish.h"

/* descriptor bytes per module slot: its record and its rodata range */
#define KTREPL_DESC_MODULE_BYTES (sizeof(struct ktrepl_desc_module) + \
				  sizeof(struct ktrepl_desc_module_rodata))
/* the fewest module slots a descriptor settles for (the old limit) */
#define KTREPL_DESC_MIN_MODULES 256
#define VMCOREINFO_NAME "VMCOREINFO"

/*
 * desc_lock serializes the sleeping half of a refresh: the bound, module
 * and task arrays are rewritten slot by slot from lists the provider
 * builds under its own mutexes (bind_lock, mods_lock, workload_lock).
 * Only lists_work takes it, and the unpublish: a notify from the engine
 * (ktr_notify_changed(), under whatever engine lock its caller holds)
 * only queues that work, so desc_lock is outside every engine lock and
 * has no place in the engine's order. Order: desc_lock, then the
 * provider's.
 *
 * counters_lock serializes the non-sleeping half: the header's counters,
 * each CPU's root and the fail-safe's reason and activation strings,
 * read from the provider and written inside it, from any context (patch
 * hooks under hook_lock, the fail-safe, CPU PM). Two writers at once
 * would tear a string, or leave the older reading last: a dump could
 * then say "percpu" after the fail-safe turned replication off. It is
 * only ever trylocked, so it never waits and orders against no other
 * lock: a writer that finds it held marks counters_dirty and leaves,
 * and the holder, which checks the mark after unlocking, writes again.
 */
static DEFINE_MUTEX(desc_lock);
static DEFINE_RAW_SPINLOCK(counters_lock);
static atomic_t counters_dirty = ATOMIC_INIT(0);

static const struct ktrepl_provider *prov;
static struct ktrepl_desc *desc;
static struct page *desc_pages;
static unsigned int desc_order;

/* VMCOREINFO internals, reachable through kallsyms where it has data */
static void (*append_str)(const char *fmt, ...);
static size_t *info_size;
static unsigned char **info_data;
static u32 **info_note;
static size_t size_before, size_after;

/*
 * Read from the dump, never here: crash has module symbols where the
 * kernel keeps data symbols (KALLSYMS_ALL), and kdump-tools' order
 * leaves the VMCOREINFO line out of dumps (ktrepl_desc.h).
 */
u64 ktrepl_descriptor_pa;

struct extent_fill {
	struct ktrepl_desc_extent *ext;
	unsigned int n, max;
	int node, region;
};

static int fill_extent(const struct ktrepl_extent *e, void *arg)
{
	struct extent_fill *f = arg;
	struct ktrepl_desc_extent *d;

	if (f->n >= f->max)
		return -ENOSPC;
	d = &f->ext[f->n++];
	d->node = f->node;
	d->region = f->region;
	d->va = e->va;
	d->pa = e->pa;
	d->size = e->size;
	d->page_shift = e->page_shift;
	d->pa_node = ktrepl_pa_node(e->pa);
	return 0;
}

static int count_extent(const struct ktrepl_extent *e, void *arg)
{
	(*(unsigned int *)arg)++;
	return 0;
}

/* the bound processes (the provider's list takes a mutex) */
static void refresh_bound(void)
{
	struct ktrepl_bound_record *recs;
	struct ktrepl_desc_bound *slots;
	int i, n;

	lockdep_assert_held(&desc_lock);
	if (!desc->bound_off)
		return;
	recs = kcalloc(KTREPL_DESC_MAX_BOUND, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return;
	n = prov->bound(recs, KTREPL_DESC_MAX_BOUND);
	WRITE_ONCE(desc->bound_omitted, n > KTREPL_DESC_MAX_BOUND ?
					n - KTREPL_DESC_MAX_BOUND : 0);
	slots = (void *)desc + desc->bound_off;
	for (i = 0; i < KTREPL_DESC_MAX_BOUND; i++) {
		slots[i] = (struct ktrepl_desc_bound){ .pid = 0, .node = -1 };
		if (i >= n)
			continue;
		slots[i].pid = recs[i].pid;
		slots[i].node = recs[i].node;
		slots[i].mm_pgd_pa = recs[i].mm_pgd_pa;
		slots[i].root_pa = recs[i].root_pa;
		slots[i].since_ns = recs[i].since_ns;
		memcpy(slots[i].comm, recs[i].comm, sizeof(slots[i].comm));
	}
	kfree(recs);
}

/*
 * The provider's modules, counting past the descriptor's slots so that
 * the descriptor can say how many it leaves out; kvfree() the result.
 */
static struct ktrepl_module_info *list_modules(unsigned int slots, int *nr)
{
	unsigned int cap = slots + 1, most = 4 * slots + 4;
	struct ktrepl_module_info *mods;

	for (;;) {
		mods = kvcalloc(cap, sizeof(*mods), GFP_KERNEL);
		if (!mods)
			return NULL;
		*nr = prov->modules(mods, cap);
		if (*nr < cap || cap >= most)
			return mods;
		kvfree(mods);
		cap = min(2 * cap, most);
	}
}

/* the replicated modules (the provider's list takes a mutex) */
static void refresh_modules(void)
{
	struct ktrepl_module_info *mods;
	struct ktrepl_desc_module_rodata *rodata;
	struct ktrepl_desc_module *slots;
	unsigned int omitted = 0;
	int i, n;

	lockdep_assert_held(&desc_lock);
	if (!desc->modules_off)
		return;
	mods = list_modules(desc->nr_modules, &n);
	if (!mods)
		return;
	slots = (void *)desc + desc->modules_off;
	rodata = (void *)desc + desc->module_rodata_off;
	for (i = 0; i < desc->nr_modules; i++) {
		struct ktrepl_desc_module m = { .orig_node = -1 };
		/*
		 * An unused slot's rodata is never read (its name is empty);
		 * filled, so that a run of unused slots is not an all-zero
		 * page, which makedumpfile -d 1 leaves out of the dump.
		 */
		struct ktrepl_desc_module_rodata ro = { ~0ULL, ~0ULL };

		if (i < n) {
			ro.start = mods[i].rodata_start;
			ro.end = mods[i].rodata_end;
			strscpy(m.name, mods[i].name, sizeof(m.name));
			m.start = mods[i].start;
			m.text_end = mods[i].text_end;
			m.end = mods[i].end;
			m.orig_node = mods[i].orig_node;
			m.master_copies = mods[i].master_copies;
		}
		slots[i] = m;
		rodata[i] = ro;
	}
	if (n > desc->nr_modules) {
		omitted = n - desc->nr_modules;
		pr_warn_once("%d replicated modules, more than the vmcore descriptor's %u slots: dumps list the first %u and count the rest as omitted\n",
			     n, desc->nr_modules, desc->nr_modules);
	}
	WRITE_ONCE(desc->modules_omitted, omitted);
	kvfree(mods);
}

/*
 * The fail-safe's counters, and the activation it may have turned off.
 * Context: any (the provider's engine_counters does not sleep).
 */
static void refresh_failsafe(void)
{
	struct ktrepl_engine_counters ec = { 0 };

	lockdep_assert_held(&counters_lock);
	if (!prov->engine_counters)
		return;
	prov->engine_counters(&ec);
	WRITE_ONCE(desc->failsafe, ec.failsafe);
	WRITE_ONCE(desc->failsafe_active, ec.failsafe_active);
	strscpy(desc->failsafe_reason, ec.failsafe_reason ?: "",
		sizeof(desc->failsafe_reason));
	strscpy(desc->activation,
		ktrepl_activation_name(READ_ONCE(prov->activation)),
		sizeof(desc->activation));
}

/* the workload's tasks (the provider's list takes a mutex) */
static void refresh_tasks(void)
{
	struct ktrepl_task_record *recs;
	struct ktrepl_desc_task *tasks;
	int i, n;

	lockdep_assert_held(&desc_lock);
	if (!prov->tasks)
		return;
	recs = kcalloc(KTREPL_MAX_TASK_RECORDS, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return;
	n = prov->tasks(recs, KTREPL_MAX_TASK_RECORDS);
	tasks = (void *)desc + desc->tasks_off;
	for (i = 0; i < KTREPL_MAX_TASK_RECORDS; i++) {
		tasks[i] = (struct ktrepl_desc_task){ .pid = 0, .node = -1 };
		if (i >= n)
			continue;
		tasks[i].pid = recs[i].pid;
		tasks[i].node = recs[i].node;
		tasks[i].root_pa = recs[i].root_pa;
		tasks[i].expected_root_pa = recs[i].runs_on_pa;
		tasks[i].iterations = recs[i].iterations;
	}
	kfree(recs);
}

static void write_counters(void)
{
	u64 patches, bytes, missed;
	bool propagate;
	int i;

	lockdep_assert_held(&counters_lock);
	prov->patch_counters(&patches, &bytes, &missed, &propagate);
	if (desc->cpu_root_off) {
		u64 *cpu_root = (void *)desc + desc->cpu_root_off;

		for (i = 0; i < nr_cpu_ids; i++)
			WRITE_ONCE(cpu_root[i], prov->installed_root(i));
	}
	WRITE_ONCE(desc->patches, patches);
	WRITE_ONCE(desc->patch_bytes, bytes);
	WRITE_ONCE(desc->patches_missed, missed);
	WRITE_ONCE(desc->propagate, propagate);
	refresh_failsafe();
}

/* the non-sleeping half: the last writer's reading is the one left */
static void refresh_counters(void)
{
	unsigned long flags;

	atomic_set(&counters_dirty, 1);
	smp_mb();	/* the mark before the trylock; pairs with below */
	for (;;) {
		if (!raw_spin_trylock_irqsave(&counters_lock, flags))
			return;	/* its holder sees the mark and writes again */
		if (atomic_xchg(&counters_dirty, 0))
			write_counters();
		raw_spin_unlock_irqrestore(&counters_lock, flags);
		smp_mb();	/* the unlock before reading the mark */
		if (!atomic_read(&counters_dirty))
			return;
	}
}
NOKPROBE_SYMBOL(refresh_counters);

static void refresh_lists_fn(struct work_struct *work)
{
	mutex_lock(&desc_lock);
	/* an unpublish that ran since the work was queued freed it */
	if (desc) {
		refresh_bound();
		refresh_modules();
		refresh_tasks();
	}
	mutex_unlock(&desc_lock);
}
static DECLARE_WORK(lists_work, refresh_lists_fn);

/*
 * The provider's notify. The counters at once, from any context: a dump
 * taken right after a fail-safe must not say "percpu". The lists (bound
 * processes, modules, tasks), which may have changed where the caller
 * could sleep, are rewritten by lists_work, so that no engine lock is
 * held across desc_lock.
 */
void ktrepl_desc_refresh(bool lists_changed)
{
	if (!READ_ONCE(desc))
		return;
	refresh_counters();
	if (lists_changed)
		schedule_work(&lists_work);
}
NOKPROBE_SYMBOL(ktrepl_desc_refresh);

/* Rebuild the VMCOREINFO ELF note the way the kernel does at boot. */
static void rewrite_note(void)
{
	u32 *buf = *info_note;
	size_t namesz = sizeof(VMCOREINFO_NAME);

	buf[0] = namesz;
	buf[1] = *info_size;
	buf[2] = 0;
	buf += 3;
	memcpy(buf, VMCOREINFO_NAME, namesz);
	buf += DIV_ROUND_UP(namesz, sizeof(u32));
	memcpy(buf, *info_data, *info_size);
	buf += DIV_ROUND_UP(*info_size, sizeof(u32));
	memset(buf, 0, sizeof(struct elf_note));	/* the final, empty note */
}

static void announce(void)
{
	append_str = (void *)ktr_ksym_quiet("vmcoreinfo_append_str");
	info_size = (void *)ktr_ksym_quiet("vmcoreinfo_size");
	info_data = (void *)ktr_ksym_quiet("vmcoreinfo_data");
	info_note = (void *)ktr_ksym_quiet("vmcoreinfo_note");
	if (!append_str || !info_size || !info_data || !info_note ||
	    !*info_data || !*info_note) {
		pr_info("VMCOREINFO not reachable; offline tools will scan for the descriptor\n");
		append_str = NULL;
		return;
	}
	size_before = *info_size;
	append_str("KTREPL_DESCRIPTOR=%llx\n", (u64)page_to_phys(desc_pages));
	size_after = *info_size;
	rewrite_note();
}

static void withdraw(void)
{
	if (!append_str)
		return;
	if (*info_size == size_after) {
		memset(*info_data + size_before, 0, size_after - size_before);
		*info_size = size_before;
	} else {
		/* someone appended after us: readers take the last line */
		append_str("KTREPL_DESCRIPTOR=0\n");
	}
	rewrite_note();
	append_str = NULL;
}

static bool panic_probe_propagates(void)
{
	u64 patches, bytes, missed;
	bool propagate;

	prov->patch_counters(&patches, &bytes, &missed, &propagate);
	if (!propagate)
		pr_info("dumps will not record each CPU's root at panic: patch propagation is off\n");
	return propagate;
}

int ktrepl_desc_publish(const struct ktrepl_provider *provider)
{
	unsigned int nr_nodes = num_online_nodes(), nr_ext = 0, off;
	struct ktrepl_desc_node *nodes;
	struct ktrepl_desc_region *regions;
	struct extent_fill fill;
	s32 *cpu_node;
	unsigned int slots;
	size_t size;
	int nid, r, cpu, i;

	prov = provider;
	for_each_online_node(nid)
		for (r = 0; r < prov->nr_regions; r++)
			prov->for_each_extent(nid, r, count_extent, &nr_ext);
	size = sizeof(*desc) + nr_nodes * sizeof(*nodes) +
	       prov->nr_regions * sizeof(*regions) +
	       nr_ext * sizeof(struct ktrepl_desc_extent) +
	       nr_cpu_ids * (sizeof(*cpu_node) + sizeof(u64)) +
	       KTREPL_MAX_TASK_RECORDS * sizeof(struct ktrepl_desc_task) +
	       KTREPL_DESC_MAX_BOUND * sizeof(struct ktrepl_desc_bound) +
	       nr_cpu_ids * sizeof(u64);	/* panic_root[] */
	slots = prov->modules ? KTREPL_DESC_MAX_MODULES : 0;
	/*
	 * Physically contiguous, since dumps are read by physical address:
	 * 4096 module slots are 416 KiB of it. Where memory is too
	 * fragmented for that many (or they pass the size bound), fewer
	 * slots; modules_omitted then counts the modules left out.
	 */
	for (;;) {
		bool last = slots <= KTREPL_DESC_MIN_MODULES;
		size_t all = size + slots * KTREPL_DESC_MODULE_BYTES;

		if (all <= KTREPL_DESC_MAX_BYTES) {
			desc_order = get_order(all);
			desc_pages = alloc_pages_node(prov->master_node,
						      GFP_KERNEL | __GFP_ZERO |
						      (last ? 0 : __GFP_NORETRY |
						       __GFP_NOWARN),
						      desc_order);
			if (desc_pages)
				break;
			if (last)
				return -ENOMEM;
		} else if (last) {
			return -E2BIG;
		}
		slots /= 2;
	}
	if (prov->modules && slots < KTREPL_DESC_MAX_MODULES)
		pr_warn("vmcore descriptor: %u module slots, not %u (%zu bytes in one block were past the bound or not to be had); more modules are counted, not listed\n",
			slots, KTREPL_DESC_MAX_MODULES,
			size + KTREPL_DESC_MAX_MODULES * KTREPL_DESC_MODULE_BYTES);
	desc = page_address(desc_pages);

	/*
	 * The header's end: past every field added later, so that readers
	 * take each of them (ktrepl_desc_has(), ktrepl_desc.h); the one
	 * with a flag, modules_omitted, gets it with the modules below.
	 */
	off = sizeof(*desc);
	desc->nodes_off = off;
	nodes = (void *)desc + off;
	i = 0;
	for_each_online_node(nid) {
		nodes[i].nid = nid;
		nodes[i].memory_nid = prov->memory_node(nid);
		nodes[i].has_memory = node_state(nid, N_MEMORY);
		nodes[i].role = ktrepl_node_role(prov, nid);
		nodes[i].root_pa = prov->node_root(nid);
		nodes[i].overhead = prov->overhead_bytes(nid);
		nodes[i].mem_start = PFN_PHYS(node_start_pfn(nid));
		nodes[i].mem_end = PFN_PHYS(node_end_pfn(nid));
		i++;
	}
	off += nr_nodes * sizeof(*nodes);
	desc->regions_off = off;
	regions = (void *)desc + off;
	for (r = 0; r < prov->nr_regions; r++) {
		strscpy(regions[r].name, prov->regions[r].name,
			sizeof(regions[r].name));
		regions[r].start = prov->regions[r].start;
		regions[r].end = prov->regions[r].end;
	}
	off += prov->nr_regions * sizeof(*regions);
	desc->extents_off = off;
	fill = (struct extent_fill){ .ext = (void *)desc + off, .max = nr_ext };
	for_each_online_node(nid) {
		fill.node = nid;
		for (fill.region = 0; fill.region < prov->nr_regions;
		     fill.region++)
			prov->for_each_extent(nid, fill.region, fill_extent,
					      &fill);
	}
	off += nr_ext * sizeof(struct ktrepl_desc_extent);
	desc->cpu_node_off = off;
	cpu_node = (void *)desc + off;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		cpu_node[cpu] = cpu_possible(cpu) ? cpu_to_node(cpu) : -1;
	off += nr_cpu_ids * sizeof(*cpu_node);
	desc->tasks_off = off;
	off += KTREPL_MAX_TASK_RECORDS * sizeof(struct ktrepl_desc_task);
	/* only switched CPUs have a root worth recording */
	if (prov->installed_root && prov->activation == KTREPL_ACT_PERCPU) {
		desc->cpu_root_off = off;
		off += nr_cpu_ids * sizeof(u64);
	}
	if (prov->bound) {
		desc->bound_off = off;
		desc->nr_bound = KTREPL_DESC_MAX_BOUND;
		off += KTREPL_DESC_MAX_BOUND * sizeof(struct ktrepl_desc_bound);
		desc->flags |= KTREPL_DESC_F_BOUND_COUNTED;
	}
	if (prov->modules) {
		desc->modules_off = off;
		desc->nr_modules = slots;
		off += slots * sizeof(struct ktrepl_desc_module);
		desc->module_rodata_off = off;
		off += slots * sizeof(struct ktrepl_desc_module_rodata);
		desc->flags |= KTREPL_DESC_F_MODULES_COUNTED;
	}
	/*
	 * The probe is a text patch; with propagation off (a test build's
	 * propagate=0) it would itself leave the replicas behind.
	 */
	if (panic_probe_propagates() &&
	    ktrepl_panic_roots_arm((void *)desc + off, nr_cpu_ids, desc,
				   prov->read_root)) {
		desc->panic_root_off = off;
		desc->flags |= KTREPL_DESC_F_PANIC_SITE;
		off += nr_cpu_ids * sizeof(u64);
	}

	desc->abi = KTREPL_ABI_VERSION;
	desc->size = off;
	strscpy(desc->arch, prov->arch,
		sizeof(desc->arch));
	strscpy(desc->activation, ktrepl_activation_name(prov->activation),
		sizeof(desc->activation));
	desc->paging_levels = prov->paging_levels;
	desc->va_bits = prov->va_bits;
	desc->page_shift = prov->page_shift;
	desc->master_node = prov->master_node;
	desc->nr_nodes = nr_nodes;
	desc->nr_regions = prov->nr_regions;
	desc->nr_extents = fill.n;
	desc->nr_cpus = nr_cpu_ids;
	desc->nr_tasks = KTREPL_MAX_TASK_RECORDS;
	desc->master_root_pa = prov->master_root;
	desc->direct_map = ktrepl_direct_map(prov);
	desc->self_pa = page_to_phys(desc_pages);
	desc->fixed_sum = ktrepl_desc_fixed_sum(desc,
						(void *)desc + desc->nodes_off);
	/* whole before the magic: the lists now, not in the work */
	refresh_counters();
	refresh_lists_fn(NULL);
	/* the magic last: a scan never sees a half-built descriptor */
	wmb();
	memcpy(desc->magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN);
	WRITE_ONCE(ktrepl_descriptor_pa, desc->self_pa);
	announce();
	return 0;
}

void ktrepl_desc_unpublish(void)
{
	if (!desc)
		return;
	withdraw();
	WRITE_ONCE(ktrepl_descriptor_pa, 0);
	ktrepl_panic_roots_disarm();
	/* a stale descriptor in a later dump must not look valid */
	mutex_lock(&desc_lock);
	memset(desc->magic, 0, sizeof(desc->magic));
	__free_pages(desc_pages, desc_order);
	desc = NULL;
	desc_pages = NULL;
	mutex_unlock(&desc_lock);
	/* the provider stopped notifying: nothing queues it again */
	cancel_work_sync(&lists_work);
}
