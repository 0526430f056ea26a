// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl engine: real per-node replicas of kernel text and rodata, and a
 * per-node page-table set, built beside the master's on a stock kernel.
 * This file loads, stops and frees it; core.h says which file does
 * what and who may touch the shared state.
 *
 * Context: process, from module init and exit only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "engine.h"
#include "build.h"
#include "armed.h"
#include "failsafe.h"
#include "fresh.h"
#include "modules.h"
#include "patch.h"
#include "provider.h"
#include "slot.h"
#include "tables.h"
#include "workload.h"
#include "ktrepl_node.h"
#include "activation.h"
#include "testing.h"

/*
 * Where kallsyms has no data symbols (arm64 without KALLSYMS_ALL), the
 * rodata segment is the run of present, read-only, non-executable
 * mappings that follows text in the master's own tables.
 */
static unsigned long rodata_end_from_mappings(unsigned long start)
{
	unsigned long va = start;
	int n = 0;

	while (n++ < (1 << 20)) {
		int level;
		u64 e = READ_ONCE(*ktr_walk(ktr.master_root, va, -1, &level));

		if (!ktr_pte_present(e) || ktr_pte_writable(e, level) ||
		    ktr_pte_executable(e, level))
			break;
		va = (va & ~(ktr_level_size(level) - 1)) + ktr_level_size(level);
	}
	return va;
}

static int resolve_regions(void)
{
	struct ktrepl_region *text = &ktr.regions[0], *rodata = &ktr.regions[1];

	*text = (struct ktrepl_region){
		.name = "text",
		.start = ktr_ksym("_stext"),
		.end = ktr_ksym("_etext"),
	};
	*rodata = (struct ktrepl_region){
		.name = "rodata",
		.start = ktr_ksym_quiet("__start_rodata"),
		.end = ktr_ksym_quiet("__end_rodata"),
	};
	if (!text->start || !text->end)
		return -ENOENT;
	if (rodata->start && rodata->end)
		return 0;
	rodata->start = PAGE_ALIGN(text->end);
	rodata->end = rodata_end_from_mappings(rodata->start);
	rodata->end = min(rodata->end, ktr_arch_rodata_limit());
	pr_info("rodata taken from the master's mappings: %lu KiB after text\n",
		(rodata->end - rodata->start) >> 10);
	return rodata->end == rodata->start ? -ENOENT : 0;
}

static int resolve_symbols(void)
{
	int ret = resolve_regions();

	if (ret)
		return ret;
	ktr.text_mutex = (void *)ktr_ksym_quiet("text_mutex");
	/* data symbols: where kallsyms lists them (armed.c) */
	ktr.kprobes_all_disarmed = (void *)ktr_ksym_quiet("kprobes_all_disarmed");
	ktr.ftrace_enabled = (void *)ktr_ksym_quiet("ftrace_enabled");
	if (KTR_ARCH_CAN_ACTIVATE) {
		ktr.mm_alloc = (void *)ktr_ksym("mm_alloc");
		if (!ktr.mm_alloc)
			return -ENOENT;
	}
	return 0;
}

/* The node whose memory holds the master's first text byte. */
static int find_master_node(void)
{
	unsigned long text = ktr.regions[0].start;
	/* the core's own: no module is replicated yet */
	struct ktr_chunk *first = ktr_search_chunks(ktr.chunks, ktr.nr_chunks,
						    text);

	if (!first)
		return NUMA_NO_NODE;
	return ktrepl_pa_node(first->master_pa + (text - first->va));
}

/* Everything up to knowing which nodes get a replica. */
static int discover(void)
{
	int ret;

	ret = ktr_arch_geometry(&ktr.geom);
	if (ret)
		return ret;
	ktr_provider.arch = KTR_ARCH_NAME;
	ktr_provider.paging_levels = ktr.geom.levels;
	ktr_provider.va_bits = ktr.geom.shift[0] + ktr.geom.bits[0];
	ktr_provider.page_shift = PAGE_SHIFT;

	ret = ktr_ksym_init();
	if (ret)
		return ret;
	ktr_provider.master_root = ktr_arch_master_root();
	if (!ktr_provider.master_root)
		return -ENOENT;
	ktr.master_root = __va(ktr_provider.master_root);
	ret = resolve_symbols();
	if (ret)
		return ret;
	ret = ktr_nodes_alloc();
	if (ret)
		return ret;
	ret = ktr_collect_chunks();
	if (ret) {
		pr_err("cannot find the kernel's text in its page tables: %d\n",
		       ret);
		return ret;
	}
	ktr.master_nid = find_master_node();
	if (ktr.master_nid == NUMA_NO_NODE) {
		pr_err("the node holding the kernel's text is unknown\n");
		return -ENODEV;
	}
	ktr_provider.master_node = ktr.master_nid;
	ktr_setup_nodes();
	return 0;
}

static int build_tables(void)
{
	int nid, ret;

	for_each_online_node(nid) {
		struct ktr_node *n = &ktr.nodes[nid];

		if (!n->own_replica)
			continue;
		ret = ktr_build_node_tables(n);
		if (ret)
			return ret;
		if (!KTR_ARCH_CAN_ACTIVATE)
			continue;
		n->mm = ktr_node_mm(n->root, &n->mm_orig_pgd);
		if (!n->mm)
			return -ENOMEM;
	}
	return 0;
}

#define BASELINE_ROUNDS 5

static int cmp_ns(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median_ns(u64 *ns, int n)
{
	sort(ns, n, sizeof(*ns), cmp_ns, NULL);
	return ns[n / 2];
}

/*
 * The baseline the load is judged against (bench=1), untimed for us:
 * the memcpy and the memset of the same bytes, each the median of
 * BASELINE_ROUNDS alternated rounds (one round's time drifts twofold
 * under TCG).
 */
static u64 time_baseline(void)
{
	u64 start = ktime_get_ns(), cp[BASELINE_ROUNDS], set[BASELINE_ROUNDS];
	int i;

	ktr_time_plain_memcpy();	/* warm up, as the real copy will be */
	for (i = 0; i < BASELINE_ROUNDS; i++) {
		set[i] = ktr_time_plain_memset();
		cp[i] = ktr_time_plain_memcpy();
	}
	ktr_provider.memcpy_ns = median_ns(cp, BASELINE_ROUNDS);
	ktr_provider.memset_ns = median_ns(set, BASELINE_ROUNDS);
	return ktime_get_ns() - start;
}

/*
 * Where a load's time goes, step by step: the load is judged against a
 * plain memcpy() of the same bytes (bench=1), and a user whose load is
 * slow needs the step to blame. Written by replicate() alone, at init.
 */
enum load_step {
	LOAD_ALLOC,	/* the replicas' pages */
	LOAD_HOOK,	/* the patch hooks and the module notifier */
	LOAD_WORKLOAD,	/* the workers' probes (a static key flip) */
	LOAD_COPY,	/* the copies and sums, arm64's catch-up passes */
	LOAD_PROTECT,	/* the copies' direct-map alias made read-only */
	LOAD_TABLES,	/* each node's tables */
	LOAD_ACTIVATE,	/* CPUs or processes onto them */
	LOAD_MODULES,	/* the modules loaded before us */
	LOAD_NR
};

static const char *const load_step_names[LOAD_NR] = {
	[LOAD_ALLOC] = "alloc", [LOAD_HOOK] = "hook",
	[LOAD_WORKLOAD] = "workload", [LOAD_COPY] = "copy",
	[LOAD_PROTECT] = "protect", [LOAD_TABLES] = "tables",
	[LOAD_ACTIVATE] = "activate", [LOAD_MODULES] = "modules",
};

static u64 load_step_ns[LOAD_NR];

/* the step just ended took from *t until now; *t moves on */
static void load_step_done(enum load_step step, u64 *t)
{
	u64 now = ktime_get_ns();

	load_step_ns[step] += now - *t;
	*t = now;
}

static void load_steps_report(u64 baseline_ns)
{
	char buf[256];
	int i, n = 0;

	for (i = 0; i < LOAD_NR; i++)
		n += scnprintf(buf + n, sizeof(buf) - n, " %s=%llu",
			       load_step_names[i],
			       div_u64(load_step_ns[i], NSEC_PER_USEC));
	if (baseline_ns)
		n += scnprintf(buf + n, sizeof(buf) - n,
			       " memcpy=%llu memset=%llu",
			       div_u64(ktr_provider.memcpy_ns, NSEC_PER_USEC),
			       div_u64(ktr_provider.memset_ns, NSEC_PER_USEC));
	pr_info("load steps (us):%s\n", buf);
}

/* Replicas, hooks, copies and tables, with the time each step took. */
static int replicate(void)
{
	u64 start, hook_ns, baseline_ns = 0, t;
	bool alias_writable = false;
	int ret;

	ret = ktr_slots_init();
	if (ret)
		return ret;
	start = ktime_get_ns();
	t = start;
	ret = ktr_alloc_replicas();
	if (ret)
		return ret;
	load_step_done(LOAD_ALLOC, &t);

	ret = ktr_patch_start();
	if (ret)
		return ret;
	ret = ktr_modules_hook();
	if (ret)
		return ret;
	/* before the copies: arming it writes text (our own module's) */
	ret = ktr_armed_start();
	if (ret)
		return ret;
	load_step_done(LOAD_HOOK, &t);
	hook_ns = load_step_ns[LOAD_HOOK];

	if (ktr_test_bench())
		baseline_ns = time_baseline();
	t = ktime_get_ns();
	ret = ktr_workload_init();
	load_step_done(LOAD_WORKLOAD, &t);
	if (!ret)
		ret = ktr_copy_replicas();
	load_step_done(LOAD_COPY, &t);
	if (!ret) {
		ret = ktr_protect_replicas(true);
		/* then no CPU may run the replicas: see prepare_percpu() */
		alias_writable = ret == -EOPNOTSUPP;
		if (alias_writable)
			ret = 0;
	}
	load_step_done(LOAD_PROTECT, &t);
	if (!ret)
		ktr_activation_prepare(alias_writable);
	if (!ret)
		ret = build_tables();
	load_step_done(LOAD_TABLES, &t);
	if (ret)
		return ret;
	ktr_activation_start();
	load_step_done(LOAD_ACTIVATE, &t);
	ret = ktr_modules_start();
	load_step_done(LOAD_MODULES, &t);
	if (ret)
		return ret;
	ktr_provider.hook_ns = hook_ns;
	/* building the replicas and tables, without hooking the patcher */
	ktr_provider.replicate_ns = ktime_get_ns() - start - hook_ns -
				    baseline_ns;
	load_steps_report(baseline_ns);
	return 0;
}

int ktr_engine_init(void)
{
	u64 start = ktime_get_ns();
	int ret;

	ret = discover();
	if (ret)
		goto fail;
	ret = ktr_activation_choose(ktr_any_replica());
	if (ret)
		goto fail;
	if (!ktr_any_replica()) {
		pr_info("one memory node, nothing to replicate\n");
		return 0;
	}
	ret = replicate();
	if (ret)
		goto fail;
	ktr_activation_report();
	ktr_provider.allocations = ktr_alloc_calls();
	ktr_provider.load_ns = ktime_get_ns() - start;
	ktr_failsafe_start();
#ifdef KTREPL_TEST
	ktr_test_taint_at_load();
	if (ktr_test_inject_on())
		ktr_provider.inject = ktr_inject;
#endif
	return 0;
fail:
	ktr_engine_stop();
	ktr_engine_free();
	return ret;
}

/*
 * Stop every producer: workers, the patch hooks and the syncs. After this
 * nothing calls ->changed, so the publisher can go; the replicas and
 * tables stay until ktr_engine_free().
 */
void ktr_engine_stop(void)
{
	/* a fail-safe under way finishes first, and none starts after */
	ktr_failsafe_stop();
	/*
	 * every CPU off the node roots, and every mm off the sets, before
	 * their tables may change or go
	 */
	ktr_activation_stop();
	/* then the module-area tables may go stale: nobody walks them */
	ktr_modules_stop();
	ktr_fresh_stop();
	ktr_workload_stop();
	ktr_patch_stop();
	/* no audit asks any more whether the probes are armed */
	ktr_armed_stop();
	/* a trip from the last audit or hook call may have queued one */
	ktr_failsafe_stop();
}

/*
 * After ktr_engine_stop() no leaf moves. One flush of every TLB and
 * PCID here is the backstop for every free below: none of those pages
 * can be reached through any TLB, even if a step before forgot its own.
 */
void ktr_engine_free(void)
{
	int nid;

	ktr_arch_flush_all();
	ktr_workload_free();
	ktr_slots_free();
	ktr_modules_free();
	/* every id: a node may have gone offline since it was set up */
	if (ktr.nodes)
		for (nid = 0; nid < nr_node_ids; nid++)
			ktr_free_node(&ktr.nodes[nid]);
	ktr_free_replicas();
	ktr_test_lifetime("freed core replicas and node tables");
	ktr_nodes_free();
	ktr_accounting_report(ktr_fresh_donated_pages());
}
