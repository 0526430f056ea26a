// SPDX-License-Identifier: GPL-2.0
/*
 * What the library judges, without a guest: the diff coalescer and each
 * verify check, failing and passing, on the synthetic two-node kernel of
 * fixture.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "desc_seal.h"
#include "fixture.h"
#include "tap.h"

#define MAX_RANGES 32

struct ranges {
	struct kt_diff d[MAX_RANGES];
	int n;
};

static int collect_diff(const struct kt_diff *d, void *arg)
{
	struct ranges *r = arg;

	if (r->n < MAX_RANGES)
		r->d[r->n] = *d;
	r->n++;
	return 0;
}

struct found {
	unsigned int count[KT_V_NR];
	struct kt_violation last[KT_V_NR];
};

static int collect_violation(const struct kt_violation *v, void *arg)
{
	struct found *f = arg;

	f->count[v->kind]++;
	f->last[v->kind] = *v;
	f->last[v->kind].diff = NULL;
	return 0;
}

static uint8_t *img;

static uint8_t *replica_text(struct fixture *fx, uint64_t off)
{
	return fx->img + fx_replica.text_pa + off;
}

static const struct kt_diff *range_at(const struct ranges *r, uint64_t off)
{
	int i;

	for (i = 0; i < r->n && i < MAX_RANGES; i++)
		if (r->d[i].va == FX_TEXT_VA + off)
			return &r->d[i];
	return NULL;
}

static void expect_range(const struct ranges *r, uint64_t off, uint64_t len,
			 const char *kind, const char *what)
{
	const struct kt_diff *d = range_at(r, off);

	tap_ok(d && d->len == len && !strcmp(d->kind, kind) && d->node == 1,
	       "%s: one range at +0x%" PRIx64 ", %" PRIu64 " bytes, %s (got %s, %" PRIu64 " bytes, %s)",
	       what, off, len, kind, d ? d->sym : "none", d ? d->len : 0,
	       d ? d->kind : "-");
}

static void test_diff_coalescer(void)
{
	static const uint8_t jl2[] = { 0xeb, 0x05, 0xeb, 0x07 };
	static const uint8_t ftrace_call[] = { 0xe8, 0xaa, 0xbb, 0xcc, 0xdd };
	struct fixture fx;
	struct ranges r = { .n = 0 };
	struct kt_err err;
	uint64_t compared;
	int ret;

	fx_init(&fx, img);
	/* 3 apart: one range; 6 apart: two */
	replica_text(&fx, 0x10)[0] ^= 1;
	replica_text(&fx, 0x13)[0] ^= 1;
	replica_text(&fx, 0x20)[0] ^= 1;
	replica_text(&fx, 0x26)[0] ^= 1;
	/* two adjacent 2-byte jump labels, both enabled */
	memcpy(replica_text(&fx, 0x40), jl2, sizeof(jl2));
	/* a call whose target's third byte changed */
	replica_text(&fx, 0x63)[0] = 0x99;
	/* ftrace enabled at func_b's entry */
	memcpy(replica_text(&fx, 0x100), ftrace_call, sizeof(ftrace_call));
	/* a kprobe */
	replica_text(&fx, 0x180)[0] = 0xcc;
	/* rodata damage */
	fx.img[fx_replica.rodata_pa + 0x10] ^= 0xff;

	tap_ok(!fx_open(&fx), "the fixture opens as a target");
	kt_err_clear(&err);
	ret = kt_diff_run(&fx.t, NULL, collect_diff, &r, &compared, &err);
	tap_ok(!ret, "diff runs (%s)", err.msg);
	tap_eq_u64(compared, FX_TEXT_SIZE + FX_RODATA_SIZE,
	       "every replicated byte is compared once per replica node (%" PRIu64 ")",
	       compared);
	tap_eq_u64(r.n, 9, "9 ranges found (got %d)", r.n);
	expect_range(&r, 0x10, 4, "unknown", "bytes 3 apart merge");
	expect_range(&r, 0x20, 1, "unknown", "bytes 6 apart stay apart (first)");
	expect_range(&r, 0x26, 1, "unknown", "bytes 6 apart stay apart (second)");
	expect_range(&r, 0x40, 2, "jump_label", "adjacent jump labels: the first");
	expect_range(&r, 0x42, 2, "jump_label", "adjacent jump labels: the second");
	expect_range(&r, 0x60, 4, "call", "a changed call target backs up to its e8");
	expect_range(&r, 0x100, 5, "ftrace", "NOP to call at a function entry");
	expect_range(&r, 0x180, 1, "kprobe", "int3");
	tap_ok(r.n >= 9 && r.d[8].region == 1 &&
	       r.d[8].va == FX_RODATA_VA + 0x10 && r.d[8].len == 1,
	       "the rodata range comes last, in its region");
	tap_ok(range_at(&r, 0x100) &&
	       !strcmp(range_at(&r, 0x100)->sym, "func_b+0x0"),
	       "ranges are symbolized (func_b+0x0)");
	tap_ok(range_at(&r, 0x60) && range_at(&r, 0x60)->master[0] == 0xe8 &&
	       range_at(&r, 0x60)->replica[3] == 0x99,
	       "a range carries both sides' bytes");
	fx_close(&fx);

	fx_init(&fx, img);
	r.n = 0;
	fx_open(&fx);
	ret = kt_diff_run(&fx.t, NULL, collect_diff, &r, &compared, &err);
	tap_ok(!ret && r.n == 0, "a healthy replica has no range (%d)", r.n);
	fx_close(&fx);
}

/*
 * A scripted patch window: each read returns the next value (values
 * NULL: a new even value at every read); at the read numbered heal_at
 * the replica byte is put back in the image file (the kernel's write to
 * the master landing, seen from the other side).
 */
struct window_script {
	const uint64_t *values;
	unsigned int nr, reads, heal_at;
	const char *path;
	uint64_t byte_pa;
	uint8_t good;
};

static struct window_script *script;

static int scripted_window(struct kt_target *t, uint64_t *window,
			   struct kt_err *err)
{
	struct window_script *w = script;

	if (w->reads == w->heal_at) {
		int fd = open(w->path, O_WRONLY);

		if (fd < 0 || pwrite(fd, &w->good, 1, w->byte_pa) != 1)
			return kt_err_set(err, EIO, "cannot heal the image");
		close(fd);
	}
	*window = w->values ? w->values[w->reads < w->nr ? w->reads : w->nr - 1] :
			      2 * w->reads;
	w->reads++;
	return 0;
}

static void settle_case(const char *what, const uint64_t *values,
			unsigned int nr, unsigned int heal_at,
			unsigned int want_ranges, bool want_unsettled,
			uint64_t want_transient)
{
	struct window_script w = { values, nr, 0, heal_at };
	struct ranges r = { .n = 0 };
	struct fixture fx;
	struct kt_err err;
	uint64_t compared;
	int ret;

	fx_init(&fx, img);
	w.byte_pa = fx_replica.text_pa + 0x30;
	w.good = fx.img[w.byte_pa];
	fx.img[w.byte_pa] ^= 0x5a;
	fx_open(&fx);
	w.path = fx.path;
	script = &w;
	fx.t.patch_window = scripted_window;
	kt_err_clear(&err);
	ret = kt_diff_run(&fx.t, NULL, collect_diff, &r, &compared, &err);
	tap_ok(!ret && r.n == (int)want_ranges &&
		       (!r.n || r.d[0].unsettled == want_unsettled) &&
		       fx.t.settle.transient == want_transient &&
		       fx.t.settle.rechecked == 1,
	       "settle: %s (%d ranges%s, %" PRIu64 " transient, %u window reads; %s)",
	       what, r.n, r.n && r.d[0].unsettled ? ", unsettled" : "",
	       fx.t.settle.transient, w.reads, err.msg);
	fx_close(&fx);
}

static void test_settle(void)
{
	static const uint64_t quiet[] = { 6 };
	static const uint64_t busy_then_quiet[] = { 7, 7, 8, 9, 10, 10 };
	static const uint64_t always_open[] = { 11 };

	settle_case("a difference read at rest is reported", quiet, 1, ~0U, 1,
		    false, 0);
	/* the byte is healed once the patch in flight completes */
	settle_case("a patch in flight, equal at rest, is dropped",
		    busy_then_quiet, 6, 3, 0, false, 1);
	settle_case("a window that never closes: unsettled", always_open, 1,
		    ~0U, 1, true, 0);
	settle_case("a window moving at every read: unsettled", NULL, 0, ~0U,
		    1, true, 0);
}

/*
 * What verify covers of a fixture it passes: every node (each owns
 * FX_NODE_MEM of the image) maps text and rodata one leaf per page, and
 * each replica's copy of them is compared with the master's once.
 */
#define FX_NODES (FX_IMG_SIZE / FX_NODE_MEM)
#define FX_MAPPINGS (FX_NODES * (FX_TEXT_SIZE + FX_RODATA_SIZE) / FX_PAGE_SIZE)
#define FX_COMPARED ((FX_NODES - 1) * (FX_TEXT_SIZE + FX_RODATA_SIZE))

/* fault: break one thing; kind: what verify must report, KT_V_NR: none */
struct verify_case {
	const char *name;
	void (*fault)(struct fixture *fx);
	enum kt_violation_kind kind;
	unsigned int count;	/* of kind; 0 means 1 */
};

static void no_fault(struct fixture *fx)
{
}

static void flip_text(struct fixture *fx)
{
	replica_text(fx, 0x123)[0] ^= 0x40;
}

static void map_master_copy(struct fixture *fx)
{
	fx_put(fx, fx_pte(&fx_replica, FX_TEXT_VA + 0x1000),
	       (fx_master.text_pa + 0x1000) | FX_P | FX_GLB);
}

static void unmap_text(struct fixture *fx)
{
	fx_put(fx, fx_pte(&fx_replica, FX_TEXT_VA), 0);
}

static void change_root_entry(struct fixture *fx)
{
	fx_put(fx, fx_replica.root + 8 * 300, 0x9000 | FX_P | FX_RW);
}

/* the node's PMD page (private: on the text path) misses an entry */
static void stale_pmd_entry(struct fixture *fx)
{
	fx_put(fx, fx_master.pmd + 8 * 7, 0x7000 | FX_P | FX_RW);
}

static void writable_text(struct fixture *fx)
{
	uint64_t pte = fx_pte(&fx_replica, FX_TEXT_VA);

	fx_put(fx, pte, fx_get(fx, pte) | FX_RW);
}

static void exec_rodata(struct fixture *fx)
{
	uint64_t pte = fx_pte(&fx_replica, FX_RODATA_VA);

	fx_put(fx, pte, fx_get(fx, pte) & ~FX_NX);
}

static void writable_alias(struct fixture *fx)
{
	uint64_t pmd = FX_DMAP_PMD + 8 * (fx_replica.text_pa >> 21);

	fx_put(fx, pmd, fx_get(fx, pmd) | FX_RW);
}

/* the same alias, but nothing executes inactive replicas */
static void writable_alias_inactive(struct fixture *fx)
{
	writable_alias(fx);
	fx->st.activation = KT_ACT_INACTIVE;
}

static struct kt_cpu_state cpus[2];

static void percpu_state(struct fixture *fx, uint64_t cpu1_root)
{
	cpus[0] = (struct kt_cpu_state){ 0, 0, fx_master.root, fx_master.root };
	cpus[1] = (struct kt_cpu_state){ 2, 1, cpu1_root, fx_replica.root };
	fx->st.activation = KT_ACT_PERCPU;
	fx->st.cpus = cpus;
	fx->st.nr_cpus = 2;
}

static void percpu_right(struct fixture *fx)
{
	percpu_state(fx, fx_replica.root);
}

static void percpu_wrong(struct fixture *fx)
{
	percpu_state(fx, fx_master.root);
}

static struct kt_task_state tasks[2];

static void task_state(struct fixture *fx, uint64_t root)
{
	tasks[0] = (struct kt_task_state){ .pid = 100, .node = 1,
					   .root_pa = root,
					   .expected_root_pa = fx_replica.root };
	/* a worker that has not run yet reports no root: never a violation */
	tasks[1] = (struct kt_task_state){ .pid = 101, .node = 1,
					   .expected_root_pa = fx_replica.root };
	fx->st.tasks = tasks;
	fx->st.nr_tasks = 2;
}

static void task_right(struct fixture *fx)
{
	task_state(fx, fx_replica.root);
}

static void task_wrong(struct fixture *fx)
{
	task_state(fx, fx_master.root);
}

static const struct verify_case verify_cases[] = {
	{ "healthy", no_fault, KT_V_NR },
	{ "a flipped replica byte", flip_text, KT_V_BYTES },
	{ "a leaf pointing at the master's copy", map_master_copy, KT_V_LOCALITY },
	{ "a replicated page unmapped", unmap_text, KT_V_UNMAPPED },
	{ "a shared top-level entry changed", change_root_entry, KT_V_ROOT },
	{ "a private lower table missed an update", stale_pmd_entry,
	  KT_V_STALE_TABLE },
	{ "writable replica text", writable_text, KT_V_WRITABLE_TEXT },
	{ "executable replica rodata", exec_rodata, KT_V_EXEC_RODATA },
	/* the text and the rodata copy share the one writable 2M page */
	{ "a writable direct-map alias", writable_alias, KT_V_WRITABLE_ALIAS, 2 },
	{ "the same alias with replication inactive", writable_alias_inactive,
	  KT_V_NR },
	{ "every CPU on its node's root", percpu_right, KT_V_NR },
	{ "a CPU on the master's root under percpu", percpu_wrong, KT_V_CPU_ROOT },
	{ "workers on their node's root", task_right, KT_V_NR },
	{ "a worker on the master's root", task_wrong, KT_V_TASK_ROOT },
};

/* fail-safe events, as summary and the caller's record give them */
static void failsafe_new(struct fixture *fx)
{
	fx->st.failsafe = 2;
	fx->st.failsafe_seen = 1;
	strcpy(fx->st.failsafe_reason, "audit_repair");
}

static void failsafe_reported(struct fixture *fx)
{
	fx->st.failsafe = 2;
	fx->st.failsafe_seen = 2;
}

static void failsafe_now(struct fixture *fx)
{
	failsafe_reported(fx);
	fx->st.failsafe_active = true;
}

static const struct verify_case failsafe_cases[] = {
	{ "a fail-safe since the last verify", failsafe_new, KT_V_FAILSAFE },
	{ "fail-safes an earlier verify reported", failsafe_reported,
	  KT_V_NR },
	{ "in fail-safe now, already reported", failsafe_now, KT_V_FAILSAFE },
};

static void run_verify_case(const struct verify_case *c)
{
	struct kt_verify_stats stats;
	struct found f;
	struct fixture fx;
	struct kt_err err;
	unsigned int k, others = 0, want = c->count ? c->count : 1;
	int ret;

	memset(&f, 0, sizeof(f));
	fx_init(&fx, img);
	c->fault(&fx);
	if (fx_open(&fx)) {
		tap_ok(0, "%s: the fixture opens", c->name);
		return;
	}
	kt_err_clear(&err);
	ret = kt_verify_run(&fx.t, collect_violation, &f, &stats, &err);
	for (k = 0; k < KT_V_NR; k++)
		if (k != c->kind)
			others += f.count[k];
	if (c->kind == KT_V_NR)
		tap_ok(!ret && stats.total == 0 && stats.nodes == FX_NODES &&
			       stats.mappings == FX_MAPPINGS &&
			       stats.compared_bytes == FX_COMPARED,
		       "verify: %s: no violation (got %u violation(s), %u nodes, %" PRIu64 " mappings, %" PRIu64 " bytes compared; want 0, %u, %llu, %llu; %s)",
		       c->name, stats.total, stats.nodes, stats.mappings,
		       stats.compared_bytes, FX_NODES, FX_MAPPINGS, FX_COMPARED,
		       ret ? err.msg : "no error");
	else
		tap_ok(!ret && f.count[c->kind] == want && !others &&
			       stats.count[c->kind] == want && stats.total == want,
		       "verify: %s: exactly %u %s violation(s) (%u of it, %u others: %s)",
		       c->name, want, kt_violation_names[c->kind],
		       f.count[c->kind], others, err.msg);
	fx_close(&fx);
}

/* verify a fixture with the given faults; the last violation of each kind */
static void verify_with(void (*const *faults)(struct fixture *fx),
			struct found *f)
{
	struct kt_verify_stats stats;
	struct fixture fx;
	struct kt_err err;

	memset(f, 0, sizeof(*f));
	fx_init(&fx, img);
	for (; *faults; faults++)
		(*faults)(&fx);
	fx_open(&fx);
	kt_verify_run(&fx.t, collect_violation, f, &stats, &err);
	fx_close(&fx);
}

static void test_verify_details(void)
{
	static void (*const locality_and_root[])(struct fixture *) = {
		map_master_copy, change_root_entry, NULL,
	};
	static void (*const stale[])(struct fixture *) = {
		stale_pmd_entry, NULL,
	};
	struct found f;

	verify_with(locality_and_root, &f);
	tap_ok(f.last[KT_V_LOCALITY].va == FX_TEXT_VA + 0x1000 &&
	       f.last[KT_V_LOCALITY].pa_node == 0 &&
	       f.last[KT_V_LOCALITY].expected_node == 1,
	       "locality names the VA, the node of the page and the node it should be on");
	tap_ok(f.last[KT_V_ROOT].index == 300 &&
	       f.last[KT_V_ROOT].got == (0x9000 | FX_P | FX_RW) &&
	       f.last[KT_V_ROOT].want == 0,
	       "root names the entry and both values");
	verify_with(stale, &f);
	tap_ok(f.last[KT_V_STALE_TABLE].level == 2 &&
	       f.last[KT_V_STALE_TABLE].index == 7 &&
	       f.last[KT_V_STALE_TABLE].va == 0xffffffff80e00000ull &&
	       f.last[KT_V_STALE_TABLE].want == (0x7000 | FX_P | FX_RW) &&
	       f.last[KT_V_STALE_TABLE].got == 0,
	       "stale-table names the node's level, entry, VA and both values");
}


struct uncovered_case {
	const char *name;
	bool incomplete;	/* the state may leave modules out */
	bool writable;		/* node 1's PTE 5 writable: no module's copy */
	unsigned int not_covered, stale;
};

static void run_uncovered_case(const struct uncovered_case *c)
{
	struct kt_verify_stats stats;
	struct fixture fx;
	struct found f;
	struct kt_err err;
	unsigned int k, others = 0;
	int ret;

	memset(&f, 0, sizeof(f));
	fx_init(&fx, img);
	fx_unlisted_modules(&fx);
	if (c->writable)
		fx_put(&fx, FX_MOD_PTE_R + 8 * 5,
		       fx_get(&fx, FX_MOD_PTE_R + 8 * 5) | FX_RW);
	fx.st.modules_incomplete = c->incomplete;
	fx.st.nr_modules = 0;
	fx.st.modules_omitted = c->incomplete ? 2 : 0;
	if (fx_open(&fx)) {
		tap_ok(0, "%s: the fixture opens", c->name);
		return;
	}
	kt_err_clear(&err);
	ret = kt_verify_run(&fx.t, collect_violation, &f, &stats, &err);
	for (k = 0; k < KT_V_NR; k++)
		if (k != KT_V_NOT_COVERED && k != KT_V_STALE_TABLE)
			others += f.count[k];
	tap_ok(!ret && f.count[KT_V_NOT_COVERED] == c->not_covered &&
		       f.count[KT_V_STALE_TABLE] == c->stale && !others &&
		       stats.count[KT_V_NOT_COVERED] == c->not_covered &&
		       stats.total == c->stale,
	       "verify: %s: %u not-covered, %u stale-table, %u violations (got %u, %u, %u; %u others; %s)",
	       c->name, c->not_covered, c->stale, c->stale,
	       f.count[KT_V_NOT_COVERED], f.count[KT_V_STALE_TABLE],
	       stats.total, others, err.msg);
	fx_close(&fx);
}

static void test_not_covered(void)
{
	static const struct uncovered_case cases[] = {
		{ "a module list known whole, and node copies no listed module explains",
		  false, false, 0, 3 },
		{ "a truncated descriptor: unlisted modules' copies are not covered, not stale",
		  true, false, 2, 0 },
		{ "a truncated descriptor and a writable node entry: that one is still stale",
		  true, true, 1, 1 },
	};
	struct kt_verify_stats stats;
	struct fixture fx;
	struct found f;
	struct kt_err err;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_uncovered_case(&cases[i]);

	/* the run's details: node, level, first entry, entries, span */
	memset(&f, 0, sizeof(f));
	fx_init(&fx, img);
	fx_unlisted_modules(&fx);
	fx.st.modules_incomplete = true;
	fx_open(&fx);
	kt_verify_run(&fx.t, collect_violation, &f, &stats, &err);
	fx_close(&fx);
	tap_ok(f.last[KT_V_NOT_COVERED].node == 1 &&
		       f.last[KT_V_NOT_COVERED].level == 3 &&
		       f.last[KT_V_NOT_COVERED].index == 5 &&
		       f.last[KT_V_NOT_COVERED].entries == 1 &&
		       f.last[KT_V_NOT_COVERED].va == FX_MOD_VA + 0x5000 &&
		       f.last[KT_V_NOT_COVERED].want == (0x115000 | FX_P | FX_GLB),
	       "not-covered names the node, level, entry and both values");
	tap_ok(stats.count[KT_V_NOT_COVERED] == 2 && stats.total == 0,
	       "adjacent entries make one run (PTEs 0-1), PTE 5 another; no violation");

	/*
	 * The same copies 6 GiB below the image, past any module's reach:
	 * stale, whatever the list leaves out.
	 */
	memset(&f, 0, sizeof(f));
	fx_init(&fx, img);
	fx_unlisted_modules_at(&fx, 0xfffffffe00000000ull);
	fx.st.modules_incomplete = true;
	fx_open(&fx);
	kt_err_clear(&err);
	ret = kt_verify_run(&fx.t, collect_violation, &f, &stats, &err);
	fx_close(&fx);
	tap_ok(!ret && f.count[KT_V_NOT_COVERED] == 0 &&
		       f.count[KT_V_STALE_TABLE] == 3 && stats.total == 3,
	       "beyond the module area's reach of the image: stale-table (%u; %s)",
	       f.count[KT_V_STALE_TABLE], err.msg);
}


/*
 * End to end: the fixture image with a vmcore descriptor in it, as a
 * module writes one, that lists no module and says omitted were left
 * out (0: none), found by the page scan as in a dump.
 */
#define FX_DESC_PA 0x300000ull

static void put_descriptor(struct fixture *fx, unsigned int omitted)
{
	uint8_t *buf = fx->img + FX_DESC_PA;
	struct ktrepl_desc *d = (void *)buf;
	struct ktrepl_desc_node *nodes;
	struct ktrepl_desc_region *regions;
	struct ktrepl_desc_extent *ext;
	int32_t *cpu_node;
	size_t off = sizeof(*d);
	unsigned int i;

	memcpy(d->magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN);
	d->abi = 1;
	strcpy(d->arch, "x86_64");
	strcpy(d->activation, "workload");
	d->paging_levels = 4;
	d->va_bits = 48;
	d->page_shift = 12;
	d->propagate = 1;
	d->nr_nodes = 2;
	d->nr_regions = 2;
	d->nr_extents = 4;
	d->nr_cpus = 4;
	d->master_root_pa = fx_master.root;
	d->direct_map = FX_DMAP;
	d->nodes_off = off;
	nodes = (void *)(buf + off);
	for (i = 0; i < 2; i++)
		nodes[i] = (struct ktrepl_desc_node){
			.nid = i, .memory_nid = i, .has_memory = 1,
			.role = i ? KTREPL_DESC_ROLE_REPLICA :
				    KTREPL_DESC_ROLE_MASTER,
			.root_pa = i ? fx_replica.root : fx_master.root,
			.mem_start = i * FX_NODE_MEM,
			.mem_end = (i + 1) * FX_NODE_MEM,
		};
	off += 2 * sizeof(*nodes);
	d->regions_off = off;
	regions = (void *)(buf + off);
	regions[0] = (struct ktrepl_desc_region){ "text", FX_TEXT_VA,
						  FX_TEXT_VA + FX_TEXT_SIZE };
	regions[1] = (struct ktrepl_desc_region){ "rodata", FX_RODATA_VA,
						  FX_RODATA_VA + FX_RODATA_SIZE };
	off += 2 * sizeof(*regions);
	d->extents_off = off;
	ext = (void *)(buf + off);
	for (i = 0; i < 4; i++) {
		const struct fx_node *n = i < 2 ? &fx_master : &fx_replica;

		ext[i] = (struct ktrepl_desc_extent){
			.node = i / 2, .region = i % 2,
			.va = i % 2 ? FX_RODATA_VA : FX_TEXT_VA,
			.pa = i % 2 ? n->rodata_pa : n->text_pa,
			.size = i % 2 ? FX_RODATA_SIZE : FX_TEXT_SIZE,
			.page_shift = 12, .pa_node = i / 2,
		};
	}
	off += 4 * sizeof(*ext);
	d->cpu_node_off = off;
	cpu_node = (void *)(buf + off);
	for (i = 0; i < 4; i++)
		cpu_node[i] = i / 2;
	off += 4 * sizeof(*cpu_node);
	d->tasks_off = off;
	/* module slots, none used */
	d->nr_modules = 4;
	d->modules_off = off;
	off += 4 * sizeof(struct ktrepl_desc_module);
	d->module_rodata_off = off;
	off += 4 * sizeof(struct ktrepl_desc_module_rodata);
	d->modules_omitted = omitted;
	d->flags = KTREPL_DESC_F_MODULES_COUNTED;
	d->size = off;
	fx_seal_descriptor(d, FX_DESC_PA);
}

static void descriptor_case(unsigned int omitted, unsigned int not_covered,
			    unsigned int stale, const char *what)
{
	struct kt_verify_stats stats;
	struct kt_target t;
	struct kt_state st;
	struct fixture fx;
	struct found f;
	struct kt_err err;
	int ret;

	memset(&f, 0, sizeof(f));
	fx_init(&fx, img);
	fx_unlisted_modules(&fx);
	put_descriptor(&fx, omitted);
	if (fx_open(&fx)) {
		tap_ok(0, "%s: the fixture opens", what);
		return;
	}
	kt_err_clear(&err);
	ret = kt_target_open_dump(&t, &st, fx.src, NULL, &err);
	if (!ret) {
		ret = kt_verify_run(&t, collect_violation, &f, &stats, &err);
		kt_state_free(&st);
	}
	tap_ok(!ret && f.count[KT_V_NOT_COVERED] == not_covered &&
		       f.count[KT_V_STALE_TABLE] == stale &&
		       stats.total == stale && stats.nodes == 2,
	       "a dump whose descriptor %s: %u not-covered, %u stale-table (got %u, %u; %u violations; %s)",
	       what, not_covered, stale, f.count[KT_V_NOT_COVERED],
	       f.count[KT_V_STALE_TABLE], stats.total, err.msg);
	fx_close(&fx);
}

static void test_descriptor_coverage(void)
{
	descriptor_case(2, 2, 0, "says it left 2 modules out");
	descriptor_case(0, 0, 3, "says it lists every module");
}

/*
 * kt_root_owner: the one rule for whose tables a root is. Three "mm"
 * pgds over the kernel image slot: the master's entry (init_mm or an
 * unbound process), node 1's (a process bound to node 1), and neither.
 */
static void test_root_owner(void)
{
	const uint64_t slot = 8 * fx_idx(FX_TEXT_VA, 39);
	const uint64_t on_master = 0x3f0000, on_node1 = 0x3f1000,
		       foreign = 0x3f2000;
	struct kt_bound_state bound = { .pid = 77, .node = 1,
					.mm_pgd_pa = on_node1,
					.root_pa = fx_replica.root };
	static const char *const kinds[] = { "set", "mm", "unowned" };
	const struct {
		uint64_t root;
		enum kt_activation activation;
		enum kt_root_kind kind;
		int node, pid;
		bool master;
	} cases[] = {
		{ fx_master.root, KT_ACT_PERCPU, KT_ROOT_SET, 0, -1, true },
		{ fx_replica.root, KT_ACT_PERCPU, KT_ROOT_SET, 1, -1, false },
		{ on_master, KT_ACT_PERCPU, KT_ROOT_UNOWNED, -1, -1, false },
		{ on_master, KT_ACT_MM, KT_ROOT_MM, 0, -1, true },
		{ on_node1, KT_ACT_MM, KT_ROOT_MM, 1, 77, false },
		{ foreign, KT_ACT_MM, KT_ROOT_UNOWNED, -1, -1, false },
	};
	struct kt_root_owner o, so;
	bool settled, want;
	struct fixture fx;
	struct kt_err err;
	size_t i;
	int ret;

	fx_init(&fx, img);
	fx_put(&fx, on_master + slot, fx_get(&fx, fx_master.root + slot));
	fx_put(&fx, on_node1 + slot, fx_get(&fx, fx_replica.root + slot));
	fx_put(&fx, foreign + slot, 0x3f3000 | FX_P | FX_RW);
	if (fx_open(&fx)) {
		tap_ok(0, "root owner: the fixture opens");
		return;
	}
	fx.st.bound = &bound;
	fx.st.nr_bound = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx.st.activation = cases[i].activation;
		kt_err_clear(&err);
		ret = kt_root_owner(&fx.t, cases[i].root, &o, &err);
		tap_ok(!ret && o.kind == cases[i].kind &&
			       o.node == cases[i].node &&
			       o.pid == cases[i].pid &&
			       o.master == cases[i].master,
		       "root owner of 0x%" PRIx64 " under %s: got %s node %d pid %d%s, want %s node %d pid %d%s (%s)",
		       cases[i].root,
		       cases[i].activation == KT_ACT_MM ? "mm" : "percpu",
		       ret ? "error" : kinds[o.kind], o.node, o.pid,
		       o.master ? " master" : "", kinds[cases[i].kind],
		       cases[i].node, cases[i].pid,
		       cases[i].master ? " master" : "", err.msg);
		/* the state alone settles every case but an mm's root */
		settled = kt_state_root_owner(&fx.st, cases[i].root, &so);
		want = cases[i].kind == KT_ROOT_SET ||
		       cases[i].activation != KT_ACT_MM;
		tap_ok(settled == want &&
			       (!settled ||
				(so.kind == o.kind && so.node == o.node &&
				 so.master == o.master)),
		       "kt_state_root_owner of 0x%" PRIx64 ": %s%s, want %s",
		       cases[i].root,
		       settled ? "settled as " : "left to the tables",
		       settled ? kinds[so.kind] : "",
		       want ? "settled as kt_root_owner has it" :
			      "left to the tables");
	}
	fx.st.bound = NULL;
	fx.st.nr_bound = 0;
	fx_close(&fx);
}

/* kt_target_name_addr: a symbol, else a module region, else the address */
static void test_name_addr(void)
{
	const struct {
		uint64_t va;
		const char *want;
		bool named;
	} cases[] = {
		{ FX_TEXT_VA + 0x104, "func_b+0x4", true },
		{ FX_MOD_VA + 0x1a4, "[vfat]+0x1a4", false },
		{ FX_MOD_VA + 0x2010, "[vfat rodata]+0x10", false },
		{ 0xffffffffc1000000ull, "0xffffffffc1000000", false },
	};
	struct fixture fx;
	struct kt_err err;
	char buf[128];
	size_t i;
	bool named;

	fx_init(&fx, img);
	if (fx_open(&fx) || !kt_state_add_region(&fx.st, &err) ||
	    !kt_state_add_region(&fx.st, &err)) {
		tap_ok(0, "name_addr: the fixture opens");
		return;
	}
	strcpy(fx.st.regions[2].name, KT_MODULE_PREFIX "vfat");
	fx.st.regions[2].module = true;
	fx.st.regions[2].start = FX_MOD_VA;
	fx.st.regions[2].end = FX_MOD_VA + 0x2000;
	strcpy(fx.st.regions[3].name, KT_MODULE_PREFIX "vfat" KT_MODULE_RODATA);
	fx.st.regions[3].module = true;
	fx.st.regions[3].start = FX_MOD_VA + 0x2000;
	fx.st.regions[3].end = FX_MOD_VA + 0x3000;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		named = kt_target_name_addr(&fx.t, cases[i].va, buf,
					    sizeof(buf));
		tap_ok(!strcmp(buf, cases[i].want) && named == cases[i].named,
		       "name of 0x%" PRIx64 ": got \"%s\"%s, want \"%s\"%s",
		       cases[i].va, buf, named ? " (a symbol)" : "",
		       cases[i].want, cases[i].named ? " (a symbol)" : "");
	}
	fx_close(&fx);
}

int main(void)
{
	size_t i;

	img = calloc(1, FX_IMG_SIZE);
	if (!img)
		return 1;
	tap_header();
	tap_plan(64);
	test_diff_coalescer();
	for (i = 0; i < sizeof(verify_cases) / sizeof(verify_cases[0]); i++)
		run_verify_case(&verify_cases[i]);
	for (i = 0; i < sizeof(failsafe_cases) / sizeof(failsafe_cases[0]); i++)
		run_verify_case(&failsafe_cases[i]);
	test_verify_details();
	test_not_covered();
	test_descriptor_coverage();
	test_settle();
	test_root_owner();
	test_name_addr();
	free(img);
	return tap_finish();
}
