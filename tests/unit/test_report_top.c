// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-top's batch frames as report_top.c prints them, plain and JSON,
 * for two synthetic frames. The expected text is what ktrepl-top's own
 * printers (tools/ktrepl-top/batch.c before the move into the library)
 * wrote for the same frames, byte for byte: t05-top.py and the man page
 * read these keys, their order and their number formats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_top.h"
#include "tap.h"

static struct kt_loc_func fx_funcs[5];
static struct kt_node_state fx_nodes[3];

static void fx_fetches(struct kt_fetches *f, uint64_t l, uint64_t r,
		       uint64_t u)
{
	f->local = l;
	f->remote = r;
	f->unresolved = u;
}

static void fx_func(int i, const char *name, uint64_t addr, uint64_t remote,
		    uint64_t local, int node)
{
	snprintf(fx_funcs[i].name, sizeof(fx_funcs[i].name), "%s", name);
	fx_funcs[i].addr = addr;
	fx_funcs[i].remote = remote;
	fx_funcs[i].local = local;
	fx_funcs[i].node = node;
}

/*
 * Frame A: 4 nodes (node 2 memoryless, node 3 without CPUs), CPU 5
 * offline, CPU 3 slow, lossy, a refresh warning, replicas, more remote
 * functions than shown, a name JSON must escape, a class without samples.
 */
static void fx_frame_a(struct kt_numa *numa, struct kt_locality *loc,
		       struct kt_state *st, struct kt_loc_fidelity *fid,
		       uint64_t *frame_ns, unsigned int *rate_hz)
{
	static const uint64_t cpu_samples[] = { 1500, 1490, 1450, 900, 1500 };
	int i;

	memset(numa, 0, sizeof(*numa));
	memset(loc, 0, sizeof(*loc));
	memset(st, 0, sizeof(*st));
	numa->nr_nodes = 4;
	numa->memory_node[0] = 0;
	numa->memory_node[1] = 1;
	numa->memory_node[2] = 1;
	numa->memory_node[3] = 3;
	numa->nr_cpus = 6;
	numa->cpu_node[0] = 0;
	numa->cpu_node[1] = 0;
	numa->cpu_node[2] = 1;
	numa->cpu_node[3] = 1;
	numa->cpu_node[4] = 2;
	numa->cpu_node[5] = -1;
	loc->numa = numa;
	loc->nodes[0].nr_cpus = 2;
	loc->nodes[1].nr_cpus = 2;
	loc->nodes[2].nr_cpus = 1;
	fx_fetches(&loc->nodes[0].text[KT_TEXT_CORE], 300, 20, 5);
	fx_fetches(&loc->nodes[0].text[KT_TEXT_MODULE], 40, 10, 0);
	fx_fetches(&loc->nodes[0].on_sets[KT_TEXT_CORE], 200, 2, 1);
	fx_fetches(&loc->nodes[1].text[KT_TEXT_CORE], 10, 50, 1);
	fx_fetches(&loc->nodes[1].text[KT_TEXT_OTHER], 0, 0, 7);
	fx_fetches(&loc->nodes[1].on_sets[KT_TEXT_MODULE], 3, 4, 0);
	for (i = 0; i < 5; i++)
		loc->cpus[i].samples = cpu_samples[i];
	fx_fetches(&loc->cpus[0].text[KT_TEXT_CORE], 150, 10, 2);
	fx_fetches(&loc->cpus[0].text[KT_TEXT_MODULE], 40, 10, 0);
	fx_fetches(&loc->cpus[1].text[KT_TEXT_CORE], 150, 10, 3);
	fx_fetches(&loc->cpus[2].text[KT_TEXT_CORE], 10, 50, 1);
	fx_fetches(&loc->cpus[3].text[KT_TEXT_OTHER], 0, 0, 7);
	loc->samples = 6840;
	loc->idle = 2000;
	loc->not_text = 100;
	loc->on_worker_tables = 250;
	loc->lost = 80;
	loc->throttles = 3;
	fx_func(0, "schedule", 0xffffffff81a00010ULL, 30, 100, 1);
	fx_func(1, "do_\"quoted\"\\", 0xffffffff81200000ULL, 50, 5, 0);
	fx_func(2, "no_remote", 0xffffffff81300000ULL, 0, 99, 0);
	fx_func(3, "ext4_map [ext4]", 0xffffffffc0123000ULL, 30, 50, 1);
	fx_func(4, "0xffffffff81400000", 0xffffffff81400000ULL, 1, 0, 2);
	loc->funcs = fx_funcs;
	loc->nr_funcs = 5;
	fx_nodes[0].role = KT_ROLE_MASTER;
	fx_nodes[0].overhead = 999;
	fx_nodes[1].role = KT_ROLE_REPLICA;
	fx_nodes[1].overhead = 5767168;	/* 5.5 MiB */
	fx_nodes[2].role = KT_ROLE_REPLICA;
	fx_nodes[2].overhead = 6553600;	/* 6.25 MiB */
	st->nodes = fx_nodes;
	st->nr_nodes = 3;
	st->activation = KT_ACT_WORKLOAD;
	st->master_node = 0;
	st->patches = 12;
	st->patches_missed = 1;
	st->overhead = 123456789;
	*frame_ns = 1500000000ULL;
	*rate_hz = 1000;
	kt_loc_fidelity(loc, *rate_hz, *frame_ns, fid);
}

/*
 * Frame B: one node, CPU 1 offline, no module, no replicas, no remote
 * functions, the CPU at its rate, no loss.
 */
static void fx_frame_b(struct kt_numa *numa, struct kt_locality *loc,
		       struct kt_state *st, struct kt_loc_fidelity *fid,
		       uint64_t *frame_ns, unsigned int *rate_hz)
{
	memset(numa, 0, sizeof(*numa));
	memset(loc, 0, sizeof(*loc));
	memset(st, 0, sizeof(*st));
	numa->nr_nodes = 1;
	numa->nr_cpus = 2;
	numa->cpu_node[1] = -1;
	loc->numa = numa;
	loc->nodes[0].nr_cpus = 1;
	fx_fetches(&loc->nodes[0].text[KT_TEXT_CORE], 700, 0, 3);
	fx_fetches(&loc->nodes[0].on_sets[KT_TEXT_CORE], 600, 0, 0);
	loc->cpus[0].samples = 1200;
	fx_fetches(&loc->cpus[0].text[KT_TEXT_CORE], 700, 0, 3);
	fx_func(0, "no_remote", 0xffffffff81300000ULL, 0, 99, 0);
	loc->funcs = fx_funcs;
	loc->nr_funcs = 1;
	loc->samples = 1200;
	loc->idle = 497;
	st->activation = KT_ACT_NONE;
	*frame_ns = 1000000000ULL;
	*rate_hz = 1200;
	kt_loc_fidelity(loc, *rate_hz, *frame_ns, fid);
}

static const char want_plain_a[] =
	"ktrepl-top frame 7: activation=workload nodes=3 master_node=0 replica_overhead/node=5.9 MiB patches=12 missed=1\n"
	"event=cpu-clock rate=1000Hz achieved_min=600Hz achieved_mean=912Hz interval=1.50s samples=6840 idle=2000 not_text=100 on_node_tables=250 lost=80 lost_pct=1.16 throttles=3 trust=lossy,slow\n"
	"warning: ktrepl.ko was unloaded: every CPU is on the master's tables\n"
	"NODE  CPUS  SAMPLES  LOCAL% REMOTE% CORE_L%  MOD_L%  UNRES TRUST\n"
	"   0     2      375    91.9     8.1    93.8    80.0      5    ok\n"
	"   1     2       68    16.7    83.3    16.7       -      8   few\n"
	"   2     1        0       -       -       -       -      0   few\n"
	" CPU  NODE  SAMPLES  LOCAL% REMOTE%      HZ TRUST\n"
	"   0     0      212    90.5     9.5    1000    ok\n"
	"   1     0      163    93.8     6.2     993    ok\n"
	"   2     1       61    16.7    83.3     967   few\n"
	"   3     1        7       -       -     600  slow\n"
	"   4     2        0       -       -    1000   few\n"
	"HOT REMOTE FUNCTIONS\n"
	"  REMOTE    LOCAL  NODE  FUNCTION\n"
	"      50        5     0  do_\"quoted\"\\\n"
	"      30       50     1  ext4_map [ext4]\n"
	"      30      100     1  schedule\n"
	"\n";

static const char want_plain_b[] =
	"ktrepl-top frame 8: activation=none nodes=1 master_node=0 replica_overhead/node=- patches=0 missed=0\n"
	"event=cycles rate=1200Hz achieved_min=1200Hz achieved_mean=1200Hz interval=1.00s samples=1200 idle=497 not_text=0 on_node_tables=0 lost=0 lost_pct=0.00 throttles=0 trust=ok\n"
	"NODE  CPUS  SAMPLES  LOCAL% REMOTE% CORE_L%  MOD_L%  UNRES TRUST\n"
	"   0     1      703   100.0     0.0   100.0       -      3    ok\n"
	" CPU  NODE  SAMPLES  LOCAL% REMOTE%      HZ TRUST\n"
	"   0     0      703   100.0     0.0    1200    ok\n"
	"HOT REMOTE FUNCTIONS\n"
	"  REMOTE    LOCAL  NODE  FUNCTION\n"
	"\n";

static const char want_json_a[] =
	"{\"version\":1,\"frame\":7,\"interval_s\":1.500,"
	"\"activation\":\"workload\",\"module\":true,\"master_node\":0,"
	"\"overhead_bytes\":123456789,\"patches\":12,\"patches_missed\":1,"
	"\"event\":\"cpu-clock\",\"rate_hz\":1000,\"samples\":6840,"
	"\"idle\":2000,\"not_text\":100,\"on_node_tables\":250,\"lost\":80,"
	"\"lost_pct\":1.156,\"throttles\":3,"
	"\"achieved_hz\":{\"min\":600.000,\"mean\":912.000,\"min_cpu\":3},"
	"\"lossy\":true,\"slow\":true,\"trusted\":false,"
	"\"warning\":\"ktrepl.ko was unloaded: every CPU is on the master's tables\","
	"\"nodes\":[{\"node\":0,\"memory_node\":0,\"cpus\":2,"
	"\"samples\":375,\"local\":340,\"remote\":30,\"unresolved\":5,"
	"\"local_pct\":91.892,\"enough_samples\":true,"
	"\"core\":{\"local\":300,\"remote\":20,\"unresolved\":5,"
	"\"local_pct\":93.750},\"module\":{\"local\":40,\"remote\":10,"
	"\"unresolved\":0,\"local_pct\":80.000},\"other\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"on_sets\":{\"samples\":203,\"local\":200,\"remote\":2,"
	"\"unresolved\":1,\"local_pct\":99.010,\"enough_samples\":true,"
	"\"core\":{\"local\":200,\"remote\":2,\"unresolved\":1,"
	"\"local_pct\":99.010},\"module\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"other\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null}}},{\"node\":1,"
	"\"memory_node\":1,\"cpus\":2,\"samples\":68,\"local\":10,"
	"\"remote\":50,\"unresolved\":8,\"local_pct\":16.667,"
	"\"enough_samples\":false,\"core\":{\"local\":10,\"remote\":50,"
	"\"unresolved\":1,\"local_pct\":16.667},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":7,"
	"\"local_pct\":null},\"on_sets\":{\"samples\":7,\"local\":3,"
	"\"remote\":4,\"unresolved\":0,\"local_pct\":42.857,"
	"\"enough_samples\":false,\"core\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"module\":{\"local\":3,"
	"\"remote\":4,\"unresolved\":0,\"local_pct\":42.857},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}}},{\"node\":2,\"memory_node\":1,\"cpus\":1,"
	"\"samples\":0,\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null,\"enough_samples\":false,\"core\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"module\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null},\"other\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"on_sets\":{\"samples\":0,"
	"\"local\":0,\"remote\":0,\"unresolved\":0,\"local_pct\":null,"
	"\"enough_samples\":false,\"core\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}}}],\"cpus\":[{\"cpu\":0,\"node\":0,"
	"\"achieved_hz\":1000.000,\"rate_ok\":true,\"samples\":212,"
	"\"local\":190,\"remote\":20,\"unresolved\":2,\"local_pct\":90.476,"
	"\"enough_samples\":true,\"core\":{\"local\":150,\"remote\":10,"
	"\"unresolved\":2,\"local_pct\":93.750},\"module\":{\"local\":40,"
	"\"remote\":10,\"unresolved\":0,\"local_pct\":80.000},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}},{\"cpu\":1,\"node\":0,"
	"\"achieved_hz\":993.333,\"rate_ok\":true,\"samples\":163,"
	"\"local\":150,\"remote\":10,\"unresolved\":3,\"local_pct\":93.750,"
	"\"enough_samples\":true,\"core\":{\"local\":150,\"remote\":10,"
	"\"unresolved\":3,\"local_pct\":93.750},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}},{\"cpu\":2,\"node\":1,"
	"\"achieved_hz\":966.667,\"rate_ok\":true,\"samples\":61,"
	"\"local\":10,\"remote\":50,\"unresolved\":1,\"local_pct\":16.667,"
	"\"enough_samples\":false,\"core\":{\"local\":10,\"remote\":50,"
	"\"unresolved\":1,\"local_pct\":16.667},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}},{\"cpu\":3,\"node\":1,"
	"\"achieved_hz\":600.000,\"rate_ok\":false,\"samples\":7,"
	"\"local\":0,\"remote\":0,\"unresolved\":7,\"local_pct\":null,"
	"\"enough_samples\":false,\"core\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":7,"
	"\"local_pct\":null}},{\"cpu\":4,\"node\":2,"
	"\"achieved_hz\":1000.000,\"rate_ok\":true,\"samples\":0,"
	"\"local\":0,\"remote\":0,\"unresolved\":0,\"local_pct\":null,"
	"\"enough_samples\":false,\"core\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"module\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"other\":{\"local\":0,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":null}}],"
	"\"hot_remote_functions\":[{\"function\":\"do_\\\"quoted\\\"\\\\\","
	"\"addr\":\"0xffffffff81200000\",\"remote\":50,\"local\":5,"
	"\"node\":0},{\"function\":\"ext4_map [ext4]\","
	"\"addr\":\"0xffffffffc0123000\",\"remote\":30,\"local\":50,"
	"\"node\":1},{\"function\":\"schedule\","
	"\"addr\":\"0xffffffff81a00010\",\"remote\":30,\"local\":100,"
	"\"node\":1}]}\n";

static const char want_json_b[] =
	"{\"version\":1,\"frame\":8,\"interval_s\":1.000,"
	"\"activation\":\"none\",\"module\":false,\"master_node\":0,"
	"\"overhead_bytes\":0,\"patches\":0,\"patches_missed\":0,"
	"\"event\":\"cycles\",\"rate_hz\":1200,\"samples\":1200,"
	"\"idle\":497,\"not_text\":0,\"on_node_tables\":0,\"lost\":0,"
	"\"lost_pct\":0.000,\"throttles\":0,"
	"\"achieved_hz\":{\"min\":1200.000,\"mean\":1200.000,"
	"\"min_cpu\":0},\"lossy\":false,\"slow\":false,\"trusted\":true,"
	"\"nodes\":[{\"node\":0,\"memory_node\":0,\"cpus\":1,"
	"\"samples\":703,\"local\":700,\"remote\":0,\"unresolved\":3,"
	"\"local_pct\":100.000,\"enough_samples\":true,"
	"\"core\":{\"local\":700,\"remote\":0,\"unresolved\":3,"
	"\"local_pct\":100.000},\"module\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"other\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null},"
	"\"on_sets\":{\"samples\":600,\"local\":600,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":100.000,\"enough_samples\":true,"
	"\"core\":{\"local\":600,\"remote\":0,\"unresolved\":0,"
	"\"local_pct\":100.000},\"module\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"other\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null}}}],"
	"\"cpus\":[{\"cpu\":0,\"node\":0,\"achieved_hz\":1200.000,"
	"\"rate_ok\":true,\"samples\":703,\"local\":700,\"remote\":0,"
	"\"unresolved\":3,\"local_pct\":100.000,\"enough_samples\":true,"
	"\"core\":{\"local\":700,\"remote\":0,\"unresolved\":3,"
	"\"local_pct\":100.000},\"module\":{\"local\":0,\"remote\":0,"
	"\"unresolved\":0,\"local_pct\":null},\"other\":{\"local\":0,"
	"\"remote\":0,\"unresolved\":0,\"local_pct\":null}}],"
	"\"hot_remote_functions\":[]}\n";

/* ktrepl-top's batch.c: the rows sorted by id, functions by remote fetches */
static const int nodes_a[] = { 0, 1, 2, 3 }, cpus_a[] = { 0, 1, 2, 3, 4 };
static const size_t funcs_a[] = { 1, 3, 0 };	/* 3 shown of 4 remote */
static const int nodes_b[] = { 0 }, cpus_b[] = { 0 };

/* a frame through a kt_out of its own, as batch.c gives each frame one */
static char *render(const struct kt_top_frame *f, bool json, char **errtext)
{
	char *buf = NULL, *ebuf = NULL;
	size_t len, elen;
	FILE *fp = open_memstream(&buf, &len);
	FILE *efp = open_memstream(&ebuf, &elen);
	struct kt_out out;

	*errtext = NULL;
	if (!fp || !efp ||
	    kt_out_init_fp(&out, "ktrepl-top", json, false, fp, efp)) {
		if (fp)
			fclose(fp);
		if (efp)
			fclose(efp);
		free(buf);
		free(ebuf);
		return NULL;
	}
	kt_report_top_frame(&out, f);
	kt_out_fini(&out);
	fclose(fp);
	fclose(efp);
	*errtext = ebuf;
	return buf;
}

static void check_frame(const struct kt_top_frame *f, bool json,
			const char *want, const char *what)
{
	char *errtext, *got = render(f, json, &errtext);

	tap_streq(got, want, "%s, %s: the bytes ktrepl-top printed before",
		  what, json ? "JSON" : "plain");
	tap_streq(errtext, "", "%s, %s: nothing on the error stream", what,
		  json ? "JSON" : "plain");
	free(got);
	free(errtext);
}

/*
 * A memoryless node (an alias) shares its memory node's set, root and
 * all; a process on that set is on its memory node's, whichever of the
 * two the descriptor lists last. (Seen in CI: the alias listed after
 * its memory node named the set.)
 */
static void check_set_node(void)
{
	static struct kt_numa numa;
	static struct kt_locality loc;
	struct kt_node_state nodes[3] = {
		{ .nid = 0, .role = KT_ROLE_MASTER, .memory_node = 0,
		  .root_pa = 0x1000 },
		{ .nid = 1, .role = KT_ROLE_REPLICA, .memory_node = 1,
		  .root_pa = 0x2000 },
		{ .nid = 2, .role = KT_ROLE_ALIAS, .memory_node = 1,
		  .root_pa = 0x2000 },
	};
	struct kt_state st = { .nodes = nodes, .nr_nodes = 3,
			       .master_node = 0 };
	struct kt_loc_proc p = { .pid = 42, .on_set = 10,
				 .set_root = 0x2000 };
	struct kt_top_proc row = { .p = &p };

	loc.numa = &numa;
	loc.rule = KT_RULE_WORKLOAD;
	fx_fetches(&p.by_node[2], 10, 0, 0);
	kt_top_proc_describe(&loc, &st, &row);
	tap_ok(!strcmp(row.tables, "node") && row.set_node == 1,
	       "a process on the set node 1 shares with memoryless node 2: on node 1's set (got %s set_node %d, want node 1)",
	       row.tables, row.set_node);
}

static void check_helpers(void)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} sizes[] = {
		{ 0, "0.0 KiB" },
		{ 1536, "1.5 KiB" },
		{ (1ULL << 20) - 1, "1024.0 KiB" },
		{ 1ULL << 20, "1.0 MiB" },
		{ 5767168, "5.5 MiB" },
		{ (1ULL << 30) + (1ULL << 29), "1.5 GiB" },
	};
	static const struct {
		bool lossy, slow;
		const char *want;
	} trusts[] = {
		{ false, false, "ok" },
		{ true, false, "lossy" },
		{ false, true, "slow" },
		{ true, true, "lossy,slow" },
	};
	static struct kt_numa numa;
	static struct kt_locality loc;
	struct kt_node_state nodes[2] = {
		{ .role = KT_ROLE_MASTER, .overhead = 4096 },
		{ .role = KT_ROLE_ALIAS, .overhead = 8192 },
	};
	struct kt_state st = { .nodes = nodes, .nr_nodes = 2 };
	struct kt_loc_fidelity fid = { 0 };
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		kt_top_format_bytes(sizes[i].bytes, buf, sizeof(buf));
		tap_streq(buf, sizes[i].want, "%llu bytes read as %s",
			  (unsigned long long)sizes[i].bytes, sizes[i].want);
	}
	for (i = 0; i < sizeof(trusts) / sizeof(trusts[0]); i++) {
		fid.lossy = trusts[i].lossy;
		fid.slow = trusts[i].slow;
		tap_streq(kt_top_trust(&fid, buf, sizeof(buf)), trusts[i].want,
			  "trust of a frame lossy=%d slow=%d", fid.lossy,
			  fid.slow);
	}
	tap_eq_u64(kt_top_replica_overhead(&st), 0,
		   "no replica node: no replica overhead (master and alias not counted)");
	nodes[1].role = KT_ROLE_REPLICA;
	tap_eq_u64(kt_top_replica_overhead(&st), 8192,
		   "one replica: its overhead alone, not the master's");
	check_set_node();
	loc.numa = &numa;
	loc.cpus[0].samples = 800;
	loc.cpus[1].samples = 799;
	tap_ok(kt_top_cpu_rate_ok(&loc, 0, 1000, 1000000000ULL),
	       "800 Hz of 1000 asked is at the rate (KT_LOC_MIN_RATE_SHARE)");
	tap_ok(!kt_top_cpu_rate_ok(&loc, 1, 1000, 1000000000ULL),
	       "799 Hz of 1000 asked is slow");
}

int main(void)
{
	static struct kt_numa numa;
	static struct kt_locality loc;
	static struct kt_state st;
	struct kt_loc_fidelity fid;
	struct kt_top_frame f;

	tap_header();
	tap_plan(23);
	f = (struct kt_top_frame){
		.frame = 7,
		.event = "cpu-clock",
		.loc = &loc,
		.fidelity = &fid,
		.st = &st,
		.have_module = true,
		.warning = "ktrepl.ko was unloaded: every CPU is on the master's tables",
		.nodes = nodes_a,
		.nr_nodes = 4,
		.cpus = cpus_a,
		.nr_cpus = 5,
		.funcs = funcs_a,
		.nr_funcs = 3,
	};
	fx_frame_a(&numa, &loc, &st, &fid, &f.frame_ns, &f.rate_hz);
	check_frame(&f, false, want_plain_a, "frame A (lossy, slow, replicas)");
	check_frame(&f, true, want_json_a, "frame A (lossy, slow, replicas)");

	f = (struct kt_top_frame){
		.frame = 8,
		.event = "cycles",
		.loc = &loc,
		.fidelity = &fid,
		.st = &st,
		.warning = "",
		.nodes = nodes_b,
		.nr_nodes = 1,
		.cpus = cpus_b,
		.nr_cpus = 1,
	};
	fx_frame_b(&numa, &loc, &st, &fid, &f.frame_ns, &f.rate_hz);
	check_frame(&f, false, want_plain_b, "frame B (no module, no functions)");
	f.warning = NULL;
	check_frame(&f, true, want_json_b, "frame B (no module, no functions)");

	check_helpers();
	return tap_finish();
}
