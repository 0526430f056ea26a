// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-top's model without a terminal or perf: synthetic tables in a
 * raw image, a synthetic two-node machine, hand-made samples; plus the
 * sysfs NUMA reader and the VMCOREINFO-only state on fake inputs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locality.h"
#include "memsrc.h"
#include "numa.h"
#include "state.h"
#include "rawimg.h"
#include "tap.h"

#define IMG_SIZE (8u << 20)
#define NODE1_BASE (4u << 20)
#define TEXT_VA 0xffffffff81000000ull
#define MOD_VA 0xffffffffc0000000ull
#define MASTER_ROOT 0x1000ull
#define NODE1_ROOT (NODE1_BASE + 0x1000ull)

static uint8_t *img;

static void put(uint64_t pa, uint64_t v)
{
	memcpy(img + pa, &v, 8);
}

static unsigned int idx(uint64_t va, unsigned int shift)
{
	return (va >> shift) & 511;
}

/*
 * A 4-level x86_64 set: root, then one table per level at base+0x1000..
 * Two 4K text pages map to text_pa and text_pa + 4K; a third text page is
 * absent. The module page maps to 0x300000 (node 0) from every root.
 */
static void build_tables(uint64_t root, uint64_t text_pa)
{
	uint64_t pud = root + 0x1000, pmd = root + 0x2000, pte = root + 0x3000;
	uint64_t mpmd = root + 0x4000, mpte = root + 0x5000;

	put(root + 8 * idx(TEXT_VA, 39), pud | 0x63);
	put(pud + 8 * idx(TEXT_VA, 30), pmd | 0x63);
	put(pmd + 8 * idx(TEXT_VA, 21), pte | 0x63);
	put(pte + 0, text_pa | 0x161);
	put(pte + 8, (text_pa + 0x1000) | 0x161);
	/* the module area is under the same top-level entry */
	put(pud + 8 * idx(MOD_VA, 30), mpmd | 0x63);
	put(mpmd + 8 * idx(MOD_VA, 21), mpte | 0x63);
	put(mpte + 0, 0x300000 | 0x161);
}

static struct kt_memsrc *open_img(char *path)
{
	return open_raw_image(img, IMG_SIZE, path);
}

static struct kt_numa two_nodes(void)
{
	static struct kt_numa_range ranges[] = {
		{ 0, NODE1_BASE, 0 },
		{ NODE1_BASE, IMG_SIZE, 1 },
	};
	struct kt_numa numa;
	int i;

	memset(&numa, 0, sizeof(numa));
	for (i = 0; i < KT_NUMA_MAX_CPUS; i++)
		numa.cpu_node[i] = -1;
	numa.cpu_node[0] = numa.cpu_node[1] = 0;
	numa.cpu_node[2] = numa.cpu_node[3] = 1;
	numa.nr_cpus = 4;
	numa.nr_nodes = 2;
	numa.memory_node[0] = 0;
	numa.memory_node[1] = 1;
	numa.ranges = ranges;
	numa.nr_ranges = 2;
	return numa;
}

static struct kt_sample smp(int cpu, uint32_t tid, uint64_t ip, uint64_t t)
{
	return (struct kt_sample){ .cpu = cpu, .tid = tid, .pid = tid,
				   .ip = ip, .time = t };
}

static void test_model(struct kt_memsrc *src)
{
	static struct kt_locality loc;
	struct kt_numa numa = two_nodes();
	struct kt_task_state task = { .pid = 100, .node = 1,
				      .expected_root_pa = NODE1_ROOT,
				      .since_ns = 1000 };
	struct kt_state st;
	struct kt_symtab syms = { 0 };
	struct kt_sym sym_list[] = {
		{ TEXT_VA, "text_fn" },
		{ TEXT_VA + 0x1000, "text_fn2" },
		{ MOD_VA, "mod_fn" },
	};
	struct kt_fetches t;
	struct kt_sample s;
	struct kt_err err;
	size_t i;

	memset(&loc, 0, sizeof(loc));
	memset(&st, 0, sizeof(st));
	tap_ok(!kt_arch_x86_64.configure(&loc.geo, 4, 12, 48, &err),
	       "x86_64 4level geometry");
	loc.arch = &kt_arch_x86_64;
	loc.src = src;
	loc.numa = &numa;
	loc.core = (struct kt_text_range){ TEXT_VA, TEXT_VA + 0x3000 };
	loc.modules = calloc(1, sizeof(*loc.modules));
	loc.modules[0] = (struct kt_text_range){ MOD_VA, MOD_VA + 0x1000 };
	loc.nr_modules = 1;
	syms.syms = sym_list;
	syms.nr = 3;
	loc.syms = &syms;

	st.activation = KT_ACT_WORKLOAD;
	st.master_root_pa = MASTER_ROOT;
	st.tasks = &task;
	st.nr_tasks = 1;
	tap_ok(!kt_loc_set_rule(&loc, &st, &err) && loc.rule == KT_RULE_WORKLOAD &&
		       loc.nr_workers == 1,
	       "activation=workload gives the worker rule with one worker");
	kt_loc_init(&loc);

	s = smp(2, 100, TEXT_VA + 0x10, 2000);
	tap_eq_u64(kt_loc_root(&loc, &s), NODE1_ROOT,
	       "a worker's sample after since_ns resolves through its root");
	s = smp(2, 100, TEXT_VA + 0x10, 999);
	tap_eq_u64(kt_loc_root(&loc, &s), MASTER_ROOT,
	       "a worker's sample before since_ns resolves through the master's");
	s = smp(3, 55, TEXT_VA + 0x10, 2000);
	tap_eq_u64(kt_loc_root(&loc, &s), MASTER_ROOT,
	       "any other task resolves through the master's root");

	/* node 1: 3 local (worker), 2 remote (other task, early worker) */
	for (i = 0; i < 3; i++) {
		s = smp(2, 100, TEXT_VA + 0x1000 + i, 5000);
		kt_loc_add(&loc, &s);
	}
	s = smp(3, 55, TEXT_VA + 0x20, 5000);
	kt_loc_add(&loc, &s);
	s = smp(2, 100, TEXT_VA + 0x20, 10);
	kt_loc_add(&loc, &s);
	/* module text is on node 0 whichever root: remote for node 1 */
	s = smp(2, 100, MOD_VA + 0x40, 5000);
	kt_loc_add(&loc, &s);
	/* node 0: 2 local core samples */
	s = smp(0, 55, TEXT_VA + 0x30, 5000);
	kt_loc_add(&loc, &s);
	s = smp(1, 56, TEXT_VA + 0x1030, 5000);
	kt_loc_add(&loc, &s);
	/* idle, not text, and an unmapped text page */
	s = smp(1, 0, TEXT_VA, 5000);
	kt_loc_add(&loc, &s);
	s = smp(1, 56, 0x401000, 5000);
	kt_loc_add(&loc, &s);
	s = smp(1, 56, TEXT_VA + 0x2000, 5000);
	kt_loc_add(&loc, &s);

	tap_ok(loc.samples == 11 && loc.idle == 1 && loc.not_text == 1,
	       "11 samples: 1 idle, 1 not kernel text (%llu %llu %llu)",
	       (unsigned long long)loc.samples, (unsigned long long)loc.idle,
	       (unsigned long long)loc.not_text);
	tap_eq_u64(loc.on_worker_tables, 4,
	       "4 samples went through a worker's root (%llu)",
	       (unsigned long long)loc.on_worker_tables);
	t = loc.nodes[1].text[KT_TEXT_CORE];
	tap_ok(t.local == 3 && t.remote == 2 && t.unresolved == 0,
	       "node 1 core text: 3 local, 2 remote (%llu, %llu)",
	       (unsigned long long)t.local, (unsigned long long)t.remote);
	t = loc.nodes[1].text[KT_TEXT_MODULE];
	tap_ok(t.local == 0 && t.remote == 1,
	       "node 1 module text: the module page on node 0 is remote");
	t = loc.nodes[0].text[KT_TEXT_CORE];
	tap_ok(t.local == 2 && t.remote == 0 && t.unresolved == 1,
	       "node 0 core text: 2 local, 1 unresolved (unmapped page)");
	t = kt_fetches_total(loc.nodes[1].text);
	tap_ok(kt_fetches_local_pct(&t) == 50.0,
	       "node 1 locality is 3 of 6 = 50%%");
	tap_ok(loc.cpus[2].text[KT_TEXT_CORE].local == 3 &&
		       loc.cpus[3].text[KT_TEXT_CORE].remote == 1,
	       "per-CPU counts follow the samples' CPUs");
	tap_eq_u64(loc.nr_funcs, 3,
	       "three functions had resolved fetches (%zu)", loc.nr_funcs);
	for (i = 0; i < loc.nr_funcs; i++) {
		if (!strcmp(loc.funcs[i].name, "text_fn"))
			tap_ok(loc.funcs[i].remote == 2 && loc.funcs[i].node == 1,
			       "text_fn: 2 remote fetches, from node 1's CPUs");
		if (!strcmp(loc.funcs[i].name, "mod_fn"))
			tap_ok(loc.funcs[i].remote == 1 && loc.funcs[i].local == 0,
			       "mod_fn: 1 remote fetch");
	}

	kt_loc_end_frame(&loc);
	tap_ok(loc.nodes[1].nr_history == 1 && loc.nodes[1].history[0] == 50.0,
	       "closing the frame records node 1's 50%% in its history");
	kt_loc_begin_frame(&loc);
	tap_ok(loc.samples == 0 && loc.nr_funcs == 0 &&
		       loc.nodes[1].nr_history == 1 &&
		       kt_fetches_total(loc.nodes[1].text).remote == 0,
	       "a new frame zeroes the counters and keeps the history");
	kt_loc_end_frame(&loc);
	tap_ok(loc.nodes[1].history[1] < 0,
	       "a frame without samples records no share, not 0%%");

	/* per-CPU activation: every CPU on its node's root */
	st.activation = KT_ACT_PERCPU;
	kt_state_add_node(&st, &err);
	kt_state_add_node(&st, &err);
	tap_eq_u64(st.nr_nodes, 2, "a state grows its nodes on the heap");
	st.nodes[0] = (struct kt_node_state){ .nid = 0, .root_pa = MASTER_ROOT };
	st.nodes[1] = (struct kt_node_state){ .nid = 1, .root_pa = NODE1_ROOT };
	tap_ok(!kt_loc_set_rule(&loc, &st, &err) && loc.rule == KT_RULE_PERCPU,
	       "activation=percpu gives the per-CPU rule");
	kt_loc_begin_frame(&loc);
	s = smp(3, 55, TEXT_VA + 0x20, 5);
	kt_loc_add(&loc, &s);
	tap_eq_u64(loc.nodes[1].text[KT_TEXT_CORE].local, 1,
	       "per-CPU rule: any task on node 1 fetches node 1's replica");

	/* no replication: everything through the master */
	st.activation = KT_ACT_NONE;
	tap_ok(!kt_loc_set_rule(&loc, &st, &err) && loc.rule == KT_RULE_MASTER,
	       "activation=none gives the master rule");
	kt_loc_begin_frame(&loc);
	s = smp(2, 100, TEXT_VA + 0x20, 5000);
	kt_loc_add(&loc, &s);
	tap_eq_u64(loc.nodes[1].text[KT_TEXT_CORE].remote, 1,
	       "master rule: even a worker's sample is on the master's text");

	free(loc.modules);
	loc.modules = NULL;
	kt_loc_free(&loc);
	free(st.nodes);	/* its tasks are this function's own */
}

/*
 * The trust flags: a frame is lossy past 1% lost, slow when a CPU got
 * under 80% of its rate, and a share needs 100 resolved samples.
 */
static void test_fidelity(void)
{
	struct kt_numa numa = two_nodes();
	struct kt_locality loc = { .numa = &numa };
	struct kt_loc_fidelity f;
	struct kt_fetches few = { .local = 60, .remote = 39, .unresolved = 50 };
	struct kt_fetches enough = { .local = 99, .remote = 1 };
	int cpu;

	/* 1 s at 1 kHz: CPUs 0-2 delivered it all, CPU 3 only 790 */
	for (cpu = 0; cpu < 4; cpu++)
		loc.cpus[cpu].samples = cpu == 3 ? 790 : 1000;
	loc.samples = 3790;
	loc.lost = 38;
	kt_loc_fidelity(&loc, 1000, 1000000000ULL, &f);
	tap_ok(f.min_cpu == 3 && f.min_hz > 789 && f.min_hz < 791 &&
		       f.mean_hz > 947 && f.mean_hz < 948,
	       "achieved rate: slowest CPU 3 at %.0f Hz, mean %.1f Hz",
	       f.min_hz, f.mean_hz);
	tap_ok(f.slow && !f.lossy && f.lost_pct > 0.99 && f.lost_pct < 1.0,
	       "790 of 1000 Hz is slow; %.3f%% lost is not lossy", f.lost_pct);
	loc.cpus[3].samples = 800;
	loc.lost = 39;
	kt_loc_fidelity(&loc, 1000, 1000000000ULL, &f);
	tap_ok(!f.slow && f.lossy,
	       "800 of 1000 Hz is enough; 39 lost of 3839 (%.3f%%) is lossy",
	       f.lost_pct);
	kt_loc_fidelity(&loc, 1000, 2000000000ULL, &f);
	tap_ok(f.slow && f.min_hz > 399 && f.min_hz < 401,
	       "over 2 s the same samples are half the rate (%.0f Hz)",
	       f.min_hz);
	tap_ok(!kt_fetches_enough(&few) && kt_fetches_enough(&enough),
	       "99 resolved samples are too few, 100 are enough");
	memset(&loc, 0, sizeof(loc));
	loc.numa = &numa;
	kt_loc_fidelity(&loc, 1000, 0, &f);
	tap_ok(f.slow && !f.lossy && f.lost_pct == 0,
	       "an empty frame is slow, not lossy, and divides by nothing");
}

static int mkfile(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

static void test_numa_sysfs(void)
{
	char root[] = "/tmp/ktrepl-sysfs-XXXXXX", path[512];
	const char *dirs[] = { "devices", "devices/system", "devices/system/memory",
			       "devices/system/node", "devices/system/node/node0",
			       "devices/system/node/node1",
			       "devices/system/node/node2",
			       "devices/system/node/node0/memory0",
			       "devices/system/node/node0/memory1",
			       "devices/system/node/node1/memory3" };
	unsigned char mask[16] = { 0 };
	struct kt_numa numa;
	struct kt_err err;
	size_t i;

	tap_ok(!kt_parse_cpulist("0-2,5,7-8\n", mask, 16) && mask[0] && mask[2] &&
		       !mask[3] && mask[5] && mask[8] && !mask[9],
	       "cpulist 0-2,5,7-8 parses");
	tap_ok(kt_parse_cpulist("3-1", mask, 16) == -EINVAL &&
		       kt_parse_cpulist("x", mask, 16) == -EINVAL,
	       "backwards ranges and garbage are refused");
	tap_ok(kt_parse_cpulist("0-16", mask, 16) == -E2BIG &&
		       kt_parse_cpulist("3,99", mask, 16) == -E2BIG,
	       "a CPU at or past the limit is refused, not dropped");
	if (!mkdtemp(root)) {
		tap_ok(0, "temporary sysfs");
		return;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/devices/system", root);
	mkfile(path, "memory/block_size_bytes", "8000000\n");
	mkfile(path, "node/node0/cpulist", "0-1\n");
	mkfile(path, "node/node1/cpulist", "2-3\n");
	mkfile(path, "node/node2/cpulist", "4\n");
	/* node 2 has no memory; node 1 is nearer to it than node 0 */
	mkfile(path, "node/node2/distance", "30 20 10\n");
	tap_ok(!kt_numa_load(&numa, root, &err), "a fake sysfs loads: %s",
	       err.msg);
	tap_ok(numa.nr_nodes == 3 && numa.cpu_node[1] == 0 &&
		       numa.cpu_node[3] == 1 && numa.cpu_node[4] == 2 &&
		       numa.cpu_node[5] == -1,
	       "CPUs map to their nodes");
	tap_ok(kt_numa_pa_node(&numa, 0x8000000 + 5) == 0 &&
		       kt_numa_pa_node(&numa, 3ull * 0x8000000) == 1 &&
		       kt_numa_pa_node(&numa, 2ull * 0x8000000) == -1,
	       "memory blocks map physical addresses to nodes, gaps to -1");
	tap_eq_u64(numa.nr_ranges, 2, "adjacent blocks of a node merge (%zu)",
	       numa.nr_ranges);
	tap_ok(numa.memory_node[0] == 0 && numa.memory_node[2] == 1,
	       "memoryless node 2 counts node 1 (nearest) as local");
	kt_numa_free(&numa);
	/* past the tools' limits: refused, naming the limit */
	snprintf(path, sizeof(path), "%s/devices/system", root);
	mkfile(path, "node/node2/cpulist", "4,1024\n");
	tap_ok(kt_numa_load(&numa, root, &err) == -E2BIG &&
		       strstr(err.msg, "KT_MAX_CPUS") && strstr(err.msg, "1024"),
	       "a CPU past KT_MAX_CPUS is an error naming the limit: %s",
	       err.msg);
	mkfile(path, "node/node2/cpulist", "4\n");
	snprintf(path, sizeof(path), "%s/devices/system/node/node64", root);
	mkdir(path, 0755);
	tap_ok(kt_numa_load(&numa, root, &err) == -E2BIG &&
		       strstr(err.msg, "KT_MAX_NODES") && strstr(err.msg, "64"),
	       "a node past KT_MAX_NODES is an error naming the limit: %s",
	       err.msg);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/nonexistent", root);
	tap_ok(kt_numa_load(&numa, path, &err) == -ENOENT &&
		       strstr(err.msg, "block_size_bytes"),
	       "a missing sysfs is an error naming the file: %s", err.msg);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	if (system(path))
		printf("# could not remove %s\n", root);
}

struct fake_info {
	const char *text;
};

static int fake_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			   size_t len, struct kt_err *err)
{
	struct fake_info *fi = src->priv;

	return kt_vmcoreinfo_lookup(fi->text, key, val, len, err);
}

static const struct kt_memsrc_ops fake_ops = {
	.name = "fake",
	.vmcoreinfo = fake_vmcoreinfo,
};

static void test_plain_state(void)
{
	struct fake_info x86 = {
		"OSRELEASE=6.1\nSYMBOL(init_top_pgt)=ffffffff82a0a000\n"
		"NUMBER(phys_base)=1048576\nNUMBER(pgtable_l5_enabled)=0\n"
		"NUMBER(pgtable_l5_enabled)=1\n"
	};
	struct fake_info arm = {
		"SYMBOL(swapper_pg_dir)=ffff800009a3e000\nPAGESIZE=16384\n"
		"NUMBER(VA_BITS)=47\nNUMBER(kimage_voffset)=ffff7fffc0000000\n"
	};
	struct fake_info none = { "OSRELEASE=6.1\n" };
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_err err;
	char val[32];

	tap_ok(!kt_vmcoreinfo_lookup(x86.text, "NUMBER(pgtable_l5_enabled)", val,
				     sizeof(val), &err) && !strcmp(val, "1"),
	       "VMCOREINFO: the last line for a key wins");
	src = kt_memsrc_new(&fake_ops, &x86, "fake-x86");
	tap_ok(src && !kt_state_load_plain(&st, src, &err) &&
		       !strcmp(st.arch, "x86_64") && st.paging_levels == 5 &&
		       st.master_root_pa == 0x2a0a000 + 0x100000 &&
		       st.activation == KT_ACT_NONE,
	       "x86_64 without ktrepl: 5-level, root = init_top_pgt's PA (0x%llx)",
	       (unsigned long long)st.master_root_pa);
	kt_memsrc_close(src);
	src = kt_memsrc_new(&fake_ops, &arm, "fake-arm64");
	tap_ok(src && !kt_state_load_plain(&st, src, &err) &&
		       !strcmp(st.arch, "arm64") && st.page_size == 16384 &&
		       st.va_bits == 47 && st.master_root_pa == 0x49a3e000,
	       "arm64 without ktrepl: 16K/47-bit, root = swapper_pg_dir - kimage_voffset");
	kt_memsrc_close(src);
	src = kt_memsrc_new(&fake_ops, &none, "fake-none");
	tap_ok(src && kt_state_load_plain(&st, src, &err) &&
		       strstr(err.msg, "fake-none"),
	       "no paging facts: an error naming the source: %s", err.msg);
	kt_memsrc_close(src);
}

int main(void)
{
	char path[] = "/tmp/ktrepl-loc-XXXXXX";
	struct kt_memsrc *src;

	tap_header();
	tap_plan(45);
	img = calloc(1, IMG_SIZE);
	build_tables(MASTER_ROOT, 0x200000);
	build_tables(NODE1_ROOT, NODE1_BASE + 0x200000);
	src = open_img(path);
	tap_ok(src != NULL, "image opens");
	if (src) {
		test_model(src);
		kt_memsrc_close(src);
	}
	unlink(path);
	test_fidelity();
	test_numa_sysfs();
	test_plain_state();
	free(img);
	return tap_finish();
}
