// SPDX-License-Identifier: GPL-2.0
/*
 * Module text and rodata, replicated like the core image's (modules=1).
 *
 * Which modules, and when: every module that is LIVE, at load, and each
 * one loaded later from its MODULE_STATE_LIVE notification. By then the
 * loader has relocated it, applied its alternatives and jump labels,
 * made its text read-only and executable, and run its init; from then on
 * its core text and rodata change only through the text patcher, whose
 * hook reaches module chunks as it reaches the core's. Init text, and a
 * module still COMING, run from the master. ro_after_init data is data
 * and is not replicated. ktrepl.ko replicates itself once LIVE where a
 * leaf can change its page in one write (x86: its probes run in every
 * fork and exec of a bound process), not where the move breaks the leaf
 * first (arm64: it would unmap the code doing the move). It has no patch
 * sites of its own, and its copies are freed only after every CPU and
 * process left the node tables (ktr_engine_stop()).
 *
 * Tables: a module's pages are 4 KiB vmalloc pages, so its chunks are
 * leaf entries of a PTE page it shares with other module-area mappings
 * (other modules, BPF programs, kprobe and ftrace trampolines). A node
 * then owns copies of those PTE pages and of the PMD page above them,
 * and the kernel keeps writing only the master's originals; the table
 * mirror (mirror.c) keeps every owned copy equal to its master.
 *
 * The master node runs a copy too where the loader put a page on another
 * node: see struct ktr_master_copy (module.h). A leaf that changes its page
 * changes it with no text write in flight: see move_leaves_now()
 * (module_leaves.c).
 *
 * Unload of a module: its leaves are pointed back at its own pages and
 * every CPU's TLB flushed while the patch hook still writes its copies;
 * only then are the copies unlisted and, after an RCU grace period (the
 * patch hook runs with preemption off), freed, before the module's own
 * memory is (the GOING notifier runs before free_module()).
 *
 * The audit (audit.c) covers module chunks as it covers the core's,
 * from the sums taken with the copy.
 *
 * Context: process (notifier, load, unload), under mods_lock. core.h,
 * "Locking", has the whole picture.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>

#include "core.h"
#include "build.h"
#include "failsafe.h"
#include "mirror.h"
#include "modules.h"
#include "tables.h"
#include "testing.h"
#include "ktrepl_compat.h"
#include "ktrepl_node.h"
#include "module.h"

static bool modules = true;
module_param(modules, bool, 0400);
MODULE_PARM_DESC(modules, "replicate the text and rodata of loaded modules too (default 1)");

/*
 * mods_lock serializes everything that changes ktr_modules or a listed
 * module: the module notifier (process, from the loader), the load's
 * first pass over the live modules, ktr_modules_stop() and _free(); and
 * the debugfs readers of the list take it for a stable view. Atomic
 * readers (the patch hooks, the mirror, ktr_replica_write()) walk the
 * list under RCU without it: entries go with list_del_rcu() and are
 * freed after synchronize_rcu(). While following, its holder is also
 * the only writer of the engine's page accounting and of the nodes'
 * table lists (core.h).
 */
static LIST_HEAD(ktr_modules);
static DEFINE_MUTEX(mods_lock);
static bool following;		/* notifier and mirror hooks registered */
/*
 * Whether a module replicated now gets non-global master leaves
 * (module_leaves.c): activation.c says so when the activation is chosen
 * or changes (ktr_modules_want_nonglobal()). Under mods_lock.
 */
static bool want_nonglobal;

/* every config: an empty function where lockdep is off */
void ktr_modules_lock_assert_held(void)
{
	lockdep_assert_held(&mods_lock);
}

/*
 * The fail-safe's table resync holds it so that no module is mapped or
 * unmapped meanwhile: a map links tables and grows the mirror's span
 * before it mirrors what the span gained, and a check pass in between
 * would count the entries the mirror has yet to copy. Order: under
 * failsafe_lock (core.h).
 */
void ktr_modules_lock(void)
{
	mutex_lock(&mods_lock);
}

void ktr_modules_unlock(void)
{
	mutex_unlock(&mods_lock);
}

/*
 * Activation mm keeps the master's text leaves non-global (mm_x86.c), and
 * so those over each replicated module (module_leaves.c). The activation
 * calls this down when it is chosen, before any module is replicated, and
 * when it changes; the leaves already non-global stay so until unload,
 * which restores them from what was recorded. Context: process, under
 * act_lock.
 */
void ktr_modules_want_nonglobal(bool want)
{
	struct ktr_module *km;

	mutex_lock(&mods_lock);
	if (want && !want_nonglobal)
		list_for_each_entry(km, &ktr_modules, list)
			ktr_module_leaves_global(km, false);
	want_nonglobal = want;
	mutex_unlock(&mods_lock);
}

static bool module_covers(const struct ktr_module *km, unsigned long va)
{
	return (va >= km->start && va < km->end) ||
	       (va >= km->rodata_start && va < km->rodata_end);
}
NOKPROBE_SYMBOL(module_covers);

static unsigned long module_bytes(const struct ktr_module *km)
{
	return km->end - km->start + km->rodata_end - km->rodata_start;
}

/* Context: under mods_lock, or an RCU reader (preemption off is one) */
struct ktr_chunk *ktr_module_chunk(unsigned long va, bool mapped_only)
{
	struct ktr_module *km;

	list_for_each_entry_rcu(km, &ktr_modules, list,
				lockdep_is_held(&mods_lock)) {
		if (!module_covers(km, va))
			continue;
		if (!READ_ONCE(km->ready) ||
		    (mapped_only && !READ_ONCE(km->mapped)))
			return NULL;
		return ktr_search_chunks(km->chunks, km->nr_chunks, va);
	}
	return NULL;
}
NOKPROBE_SYMBOL(ktr_module_chunk);

/* for ktr_find_chunk(): any replicated module's chunk, mapped or not */
static struct ktr_chunk *any_module_chunk(unsigned long va)
{
	return ktr_module_chunk(va, false);
}
NOKPROBE_SYMBOL(any_module_chunk);

/* the chunk whose master page is at pa; context as ktr_module_chunk() */
struct ktr_chunk *ktr_module_chunk_at_pa(phys_addr_t pa)
{
	struct ktr_module *km;
	int i;

	/* the arm64 poke probe: preemption off */
	list_for_each_entry_rcu(km, &ktr_modules, list,
				lockdep_is_held(&mods_lock)) {
		if (!READ_ONCE(km->ready))
			continue;
		for (i = 0; i < km->nr_chunks; i++) {
			struct page *copy = km->master_copies[i].page;
			phys_addr_t master = READ_ONCE(km->mapped) && copy ?
				page_to_phys(copy) : km->chunks[i].master_pa;

			if (master == pa)
				return &km->chunks[i];
		}
	}
	return NULL;
}
NOKPROBE_SYMBOL(ktr_module_chunk_at_pa);

static void free_module_replicas(struct ktr_module *km)
{
	int i, copies = 0;

	ktr_test_lifetime("freeing module=%s chunks=%d", km->name,
			  km->nr_chunks);
	/* a master leaf still not global would outlive its module's replication */
	WARN_ON_ONCE(km->nr_global_cleared);
	if (km->chunks)
		ktr_free_chunks_replicas(km->chunks, km->nr_chunks);
	for (i = 0; km->master_copies && i < km->nr_chunks; i++) {
		struct page *page = km->master_copies[i].page;

		if (!page)
			continue;
		if (ktr_alias_protected())
			ktr_arch_protect_alias((unsigned long)page_address(page),
					       1, false);
		ktr_free(page, 0);
		copies++;
	}
	ktr_test_lifetime("freed module=%s master_copies=%d", km->name,
			  copies);
	kfree(km->master_copies);
	kvfree(km->leaf_writes);
	kfree(km->chunks);
	kfree(km);
}

/* chunks over the master's 4 KiB leaves of [start, end), appended */
static int collect_range(struct ktr_module *km, unsigned long start,
			 unsigned long end)
{
	unsigned long va;

	for (va = start; va < end; va += PAGE_SIZE) {
		int level;
		u64 e = READ_ONCE(*ktr_walk(ktr.master_root, va, -1, &level));
		struct ktr_chunk *c = &km->chunks[km->nr_chunks];

		if (!ktr_pte_present(e) || level != ktr.geom.levels - 1)
			return -EINVAL;
		c->va = va;
		c->page_shift = PAGE_SHIFT;
		c->region = va >= km->start && va < km->text_end ? 0 : 1;
		c->master_pa = e & ktr.geom.addr_mask;
		km->nr_chunks++;
	}
	return 0;
}

/* the chunks of both ranges, in VA order (lookups bisect them) */
static int collect_module_chunks(struct ktr_module *km)
{
	bool rodata_first = km->rodata_end && km->rodata_start < km->start;
	int ret;

	/* a page for each page either range starts in */
	km->chunks = kcalloc(DIV_ROUND_UP(km->end - km->start, PAGE_SIZE) +
			     DIV_ROUND_UP(km->rodata_end - km->rodata_start,
					  PAGE_SIZE),
			     sizeof(*km->chunks), GFP_KERNEL);
	if (!km->chunks)
		return -ENOMEM;
	if (rodata_first) {
		ret = collect_range(km, km->rodata_start, km->rodata_end);
		if (!ret)
			ret = collect_range(km, km->start, km->end);
	} else {
		ret = collect_range(km, km->start, km->end);
		if (!ret)
			ret = collect_range(km, km->rodata_start,
					    km->rodata_end);
	}
	return ret;
}

/* the core's copy protocol (build.c), its copies run at once */
static int copy_module(struct ktr_module *km)
{
	lockdep_assert_held(&mods_lock);
	return ktr_copy_chunks(km->chunks, km->nr_chunks, &km->ready, true,
			       km->name);
}

/* the VAs the owned leaf and next-to-leaf tables cover: see mirror.c */
static void owned_span(unsigned long *lo_out, unsigned long *last_out)
{
	unsigned long lo = ULONG_MAX, last = 0;
	int nid;

	/* the lists' only writer is this thread: see ktr_owned_table() */
	lockdep_assert_held(&mods_lock);
	for_each_online_node(nid) {
		struct ktr_table *t;

		if (!ktr.nodes[nid].own_replica)
			continue;
		list_for_each_entry_rcu(t, ktr_node_tables(&ktr.nodes[nid]), list,
					lockdep_is_held(&mods_lock)) {
			if (t->level < ktr.geom.levels - 2)
				continue;
			lo = min(lo, t->va);
			last = max(last,
				   t->va + (ktr_level_size(t->level - 1) - 1));
		}
	}
	*lo_out = lo;
	*last_out = last;
}

static int map_module(struct ktr_module *km)
{
	unsigned long lo, last;
	int i, nid, ret = 0;

	lockdep_assert_held(&mods_lock);
	/* the entries the copies below start from */
	ktr_mirror_upper_tables();
	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];

		if (!n->own_replica || !n->root)
			continue;
		for (i = 0; i < km->nr_chunks && !ret; i++) {
			u64 *e = ktr_own_leaf(n, &km->chunks[i]);

			if (IS_ERR(e))
				ret = PTR_ERR(e);
		}
		if (ret)
			break;
	}
	/*
	 * A failed map too: the tables it linked before the failure stay
	 * owned, and a node runs through them; the mirror must watch them,
	 * and a master entry written before the span grew goes into them.
	 */
	owned_span(&lo, &last);
	ktr_mirror_grow_span(lo, last);
	if (!ret)
		ktr_module_move_leaves(km, true);
	return ret;
}

/* every leaf back on the loader's pages, every TLB flushed, unlisted */
static void unmap_and_unlist(struct ktr_module *km)
{
	lockdep_assert_held(&mods_lock);
	ktr_module_leaves_global(km, true);
	if (READ_ONCE(km->mapped))
		ktr_module_move_leaves(km, false);
	list_del_rcu(&km->list);
	/*
	 * The patch hook runs with preemption off. Expedited: a normal grace
	 * period made each module's unload 16 ms longer under TCG, on top
	 * of the kernel's own (a module unload is an admin's act, as the
	 * copy's expedited one is; rcupdate.rcu_normal=1 makes it normal).
	 */
	synchronize_rcu_expedited();
}

static struct ktr_module *find_listed(struct module *mod)
{
	struct ktr_module *km;

	lockdep_assert_held(&mods_lock);
	list_for_each_entry(km, &ktr_modules, list)
		if (km->mod == mod)
			return km;
	return NULL;
}

/* as the core's: no executed replica has a writable alias */
static void protect_module(struct ktr_module *km)
{
	int i, nid;

	for_each_online_node(nid)
		ktr_protect_chunk_copies(km->chunks, km->nr_chunks, nid, true);
	for (i = 0; i < km->nr_chunks; i++) {
		struct page *master_copy = km->master_copies[i].page;

		if (master_copy)
			ktr_arch_protect_alias((unsigned long)page_address(
						       master_copy), 1, true);
	}
}

/*
 * Unmapped, unlisted, freed, and its aliases writable in every node's
 * tables. As at replication, the aliases' protection changes reach the
 * node tables through one deferred mirror, not one per set_memory call
 * (a module's unload paid 15 ms for them under TCG). A copy is freed
 * before that mirror runs, and no node reaches it meanwhile: no node
 * leaf maps it any more, its direct-map alias lies in tables no node
 * owns, and where an x86 copy came from the image's span, nothing uses
 * its image alias, which a node may see stale until that mirror.
 */
static void forget_module(struct ktr_module *km)
{
	lockdep_assert_held(&mods_lock);
	unmap_and_unlist(km);
	ktr_mirror_defer(true);
	free_module_replicas(km);
	ktr_mirror_defer(false);
}

/* Context: process, under mods_lock. */
static int replicate_module(struct module *mod)
{
	struct ktr_compat_module_ranges ranges;
	struct ktr_module *km;
	int ret;

	lockdep_assert_held(&mods_lock);
	if (find_listed(mod))
		return 0;
	/*
	 * Where a leaf moves through an invalid entry (arm64), our own text
	 * cannot: the move runs in it. Only our probes run from it there.
	 */
	if (mod == THIS_MODULE && KTR_ARCH_LEAF_MOVE_BREAKS)
		return 0;
	km = kzalloc(sizeof(*km), GFP_KERNEL);
	if (!km)
		return -ENOMEM;
	km->mod = mod;
	strscpy(km->name, mod->name, sizeof(km->name));
	ktr_compat_module_core(mod, &ranges);
	km->start = ranges.start;
	km->text_end = ranges.text_end;
	km->end = ranges.end;
	km->rodata_start = ranges.rodata_start;
	km->rodata_end = ranges.rodata_end;
	if (km->end <= km->start) {
		kfree(km);
		return 0;
	}
	/* the mirror would not see writes to tables it never expected */
	if (!ktr_mirror_watches(km->start, km->end) ||
	    (km->rodata_end > km->rodata_start &&
	     !ktr_mirror_watches(km->rodata_start, km->rodata_end))) {
		pr_err("module %s not replicated: at 0x%lx, outside the table mirror's reach\n",
		       km->name, km->start);
		kfree(km);
		return -ERANGE;
	}
	ret = collect_module_chunks(km);
	if (!ret)
		ret = ktr_alloc_chunks_replicas(km->chunks, km->nr_chunks);
	if (!ret)
		ret = ktr_module_alloc_master_copies(km);
	if (!ret) {
		km->leaf_writes = kvcalloc(km->nr_chunks *
						   (1 + num_online_nodes()),
					   sizeof(*km->leaf_writes),
					   GFP_KERNEL);
		if (!km->leaf_writes)
			ret = -ENOMEM;
	}
	if (ret) {
		/* the same outcome line as a failure once listed, below */
		pr_err("module %s not replicated: %d\n", km->name, ret);
		free_module_replicas(km);
		return ret;
	}
	list_add_tail_rcu(&km->list, &ktr_modules);
	ret = copy_module(km);
	/*
	 * The aliases' new protection reaches the node tables through one
	 * deferred mirror over what the calls touched, before any node runs
	 * the copies, not one mirror per set_memory call (a page of master
	 * copies is a call, and each takes tables_lock over every node).
	 */
	if (!ret && ktr_alias_protected()) {
		ktr_mirror_defer(true);
		protect_module(km);
		ktr_mirror_defer(false);
	}
	if (!ret)
		ret = map_module(km);
	if (ret) {
		pr_err("module %s not replicated: %d\n", km->name, ret);
		forget_module(km);
		return ret;
	}
	if (want_nonglobal)
		ktr_module_leaves_global(km, false);
	km->since_ns = local_clock();
	pr_info("module %s replicated: %lu KiB of text and rodata per node\n",
		km->name, module_bytes(km) >> 10);
	return 0;
}

static int module_event(struct notifier_block *nb, unsigned long state,
			void *data)
{
	struct module *mod = data;
	struct ktr_module *km;

	if (state != MODULE_STATE_LIVE && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&mods_lock);
	if (!READ_ONCE(following)) {
		mutex_unlock(&mods_lock);
		return NOTIFY_DONE;
	}
	if (state == MODULE_STATE_LIVE) {
		replicate_module(mod);
	} else {
		km = find_listed(mod);
		if (km) {
			forget_module(km);
			pr_info("module %s: replicas freed\n", mod->name);
		}
	}
	mutex_unlock(&mods_lock);
	/* the publisher reads the list back, under mods_lock */
	ktr_notify_changed(true);
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};
static bool notifier_on;

/*
 * The modules list is not exported: walk it from our own entry. Its head
 * is the one node that is not inside a module's memory. The list is RCU
 * (sched) protected, as kallsyms walks it.
 */
static int pin_live_modules(struct module **pinned, int max)
{
	struct module *(*module_at)(unsigned long addr);
	struct list_head *p;
	int n = 0;

	/* not exported on 6.1 */
	module_at = (void *)ktr_ksym("__module_address");
	if (!module_at)
		return -ENOENT;
	preempt_disable();
	for (p = READ_ONCE(THIS_MODULE->list.next);
	     p != &THIS_MODULE->list && n < max; p = READ_ONCE(p->next)) {
		struct module *mod = list_entry(p, struct module, list);

		if (!module_at((unsigned long)p))
			continue;
		if (mod->state != MODULE_STATE_LIVE || !try_module_get(mod))
			continue;
		pinned[n++] = mod;
	}
	preempt_enable();
	return n;
}

/*
 * Before the core's copy is taken: arming a kprobe patches core text,
 * which the copy then carries even with propagate=0. The handlers do
 * nothing until ktr_modules_start() sets the owned tables' span. On
 * x86 the mirror serves the image's own tables too, which CPA's alias
 * changes rewrite (freed init memory): with modules=0 as well, and
 * without it the nodes would keep a mapping the master changed, so the
 * load fails. Elsewhere only the modules are lost.
 */
int ktr_modules_hook(void)
{
	int ret;

	if (!modules && !KTR_ARCH_PROTECT_CHANGES_ALIASES)
		return 0;
	ret = ktr_mirror_hook();
	if (!ret)
		return 0;
	if (KTR_ARCH_PROTECT_CHANGES_ALIASES) {
		pr_err("the image's tables cannot follow its protection changes: not replicating\n");
		return ret;
	}
	/* before the copy: the ones registered would feed the miss count */
	ktr_mirror_unhook();
	pr_err("modules are not replicated\n");
	return 0;
}

int ktr_modules_start(void)
{
	struct module **pinned;
	unsigned long lo, last;
	int i, n, ret;

	if (!ktr_mirror_hooked())
		return 0;
	/*
	 * The core's tables from now, not from the first module's map: a
	 * host may load none. A master write since their copy: into them.
	 */
	mutex_lock(&mods_lock);
	owned_span(&lo, &last);
	ktr_mirror_set_span(lo, last);
	ktr_mirror_range(0, ULONG_MAX);
	mutex_unlock(&mods_lock);
	if (!modules)
		return 0;
	WRITE_ONCE(following, true);
	ktr_accounting_follow(&mods_lock);
	ktr_chunks_beyond_core(any_module_chunk);
	ret = register_module_notifier(&module_nb);
	if (ret) {
		pr_err("cannot follow module loads: %d\n", ret);
		return 0;
	}
	notifier_on = true;
	pinned = kvcalloc(KTREPL_MAX_MODULES, sizeof(*pinned), GFP_KERNEL);
	if (!pinned)
		return -ENOMEM;
	n = pin_live_modules(pinned, KTREPL_MAX_MODULES);
	if (n < 0)
		pr_err("cannot walk the loaded modules: only later loads are replicated\n");
	/* at load, a module that cannot be replicated fails the load */
	for (i = 0, ret = 0; i < n; i++) {
		mutex_lock(&mods_lock);
		if (!ret)
			ret = replicate_module(pinned[i]);
		mutex_unlock(&mods_lock);
		module_put(pinned[i]);
	}
	kvfree(pinned);
	ktr_notify_changed(true);
	return ret;
}

/*
 * Once no CPU runs on node tables: every module's leaves go back to its
 * own pages, and module loads and vmaps are no longer followed, so the
 * node tables may go stale from here on. The copies stay, mapped by
 * nobody, until ktr_modules_free().
 */
void ktr_modules_stop(void)
{
	struct ktr_module *km;

	mutex_lock(&mods_lock);
	WRITE_ONCE(following, false);
	ktr_accounting_follow(NULL);
	/*
	 * While each module is still known to be loaded: its leaves go back
	 * to the loader's pages, which outlive ktrepl.ko.
	 */
	list_for_each_entry(km, &ktr_modules, list) {
		ktr_module_leaves_global(km, true);
		if (km->mapped)
			ktr_module_move_leaves(km, false);
	}
	mutex_unlock(&mods_lock);
	if (notifier_on)
		unregister_module_notifier(&module_nb);
	notifier_on = false;
	ktr_mirror_unhook();
}

void ktr_modules_free(void)
{
	struct ktr_module *km, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&mods_lock);
	/*
	 * One grace period for all (the patch hook runs with preemption off),
	 * not one a module: 3 s of an unload among 200 modules under TCG.
	 */
	list_splice_init_rcu(&ktr_modules, &gone, synchronize_rcu);
	list_for_each_entry_safe(km, tmp, &gone, list)
		free_module_replicas(km);
	mutex_unlock(&mods_lock);
	ktr_chunks_beyond_core(NULL);
	ktr_mirror_set_span(ULONG_MAX, 0);
}

int ktr_modules_list(struct ktrepl_module_info *mods, int max)
{
	struct ktr_module *km;
	int n = 0, i;

	mutex_lock(&mods_lock);
	list_for_each_entry(km, &ktr_modules, list) {
		if (n == max)
			break;
		if (!km->mapped)
			continue;
		strscpy(mods[n].name, km->name, sizeof(mods[n].name));
		mods[n].start = km->start;
		mods[n].text_end = km->text_end;
		mods[n].end = km->end;
		mods[n].rodata_start = km->rodata_start;
		mods[n].rodata_end = km->rodata_end;
		mods[n].since_ns = km->since_ns;
		mods[n].orig_node = ktrepl_pa_node(km->master_copies[0].loader_pa);
		mods[n].master_copies = 0;
		for (i = 0; i < km->nr_chunks; i++)
			mods[n].master_copies += !!km->master_copies[i].page;
		n++;
	}
	mutex_unlock(&mods_lock);
	return n;
}

int ktr_module_extents(int nid, const char *name, ktrepl_extent_fn fn,
		       void *arg)
{
	struct ktr_module *km;
	int ret = -ENOENT;

	mutex_lock(&mods_lock);
	list_for_each_entry(km, &ktr_modules, list) {
		if (strcmp(km->name, name) || !km->mapped)
			continue;
		ret = ktr_chunk_extents(km->chunks, km->nr_chunks, nid, -1, fn,
					arg);
		break;
	}
	mutex_unlock(&mods_lock);
	return ret;
}

/* visit every chunk of every mapped module; process context */
void ktr_modules_visit_chunks(ktr_chunk_fn visit)
{
	struct ktr_module *km;
	int i;

	mutex_lock(&mods_lock);
	list_for_each_entry(km, &ktr_modules, list)
		for (i = 0; km->mapped && i < km->nr_chunks; i++)
			visit(&km->chunks[i]);
	mutex_unlock(&mods_lock);
}
