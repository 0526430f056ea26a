// SPDX-License-Identifier: GPL-2.0
/*
 * crash> ktrepl: replication state in a vmcore, through tools/lib/ktrepl.
 * Memory comes from crash's readmem(), symbols from crash's own table;
 * the descriptor reader, walkers, checks and printers are the library's.
 */
#include "defs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>

#include "check.h"
#include "dump_check.h"
#include "memsrc.h"
#include "output.h"
#include "qemu_cpu.h"
#include "report.h"
#include "state.h"
#include "symbols.h"

static int crash_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			    size_t len, struct kt_err *err)
{
	char *v = pc->read_vmcoreinfo ? pc->read_vmcoreinfo(key) : NULL;

	if (!v)
		return kt_err_set(err, ENOENT, "VMCOREINFO has no %s", key);
	snprintf(val, len, "%s", v);
	free(v);
	return 0;
}

/*
 * ktrepl.ko's own record of its descriptor (kernel/debugfs/vmcore_desc.c;
 * 0 while unpublished). crash has it where a module's data symbols are
 * in its in-memory symtab (x86_64's KALLSYMS_ALL), not in minimal mode.
 */
#define DESCRIPTOR_PA_SYMBOL "ktrepl_descriptor_pa"

static int crash_descriptor_hint(struct kt_memsrc *src, uint64_t *pa)
{
	uint64_t val;

	if (!symbol_exists(DESCRIPTOR_PA_SYMBOL) ||
	    !readmem(symbol_value(DESCRIPTOR_PA_SYMBOL), KVADDR, &val,
		     sizeof(val), DESCRIPTOR_PA_SYMBOL, RETURN_ON_ERROR | QUIET))
		return -ENOENT;
	*pa = val;
	return 0;
}

/*
 * What the dump holds, for the descriptor scan: kdump-tools loads the
 * crash kernel before ktrepl.ko, so its dumps carry no KTREPL_DESCRIPTOR
 * line, and arm64 kernels have no data symbols for the hint. The dump
 * file's own PT_LOADs or page bitmap (read as ktrepl-dump reads them)
 * where crash opened one we can parse; crash's node table otherwise (not
 * in minimal mode); else the kernel's max_pfn (phys_end).
 */
struct crash_memory {
	bool parsed;
	struct kt_dump_layout layout;
};

static struct crash_memory *crash_memory(struct kt_memsrc *src)
{
	struct crash_memory *m = src->priv;
	struct kt_err ignored;
	int fd;

	if (m->parsed)
		return m;
	m->parsed = true;
	if (!pc->dumpfile || !DUMPFILE())
		return m;
	fd = open(pc->dumpfile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return m;
	/* damage crash put up with, or a format we do not parse: no map */
	if (kt_dump_validate(fd, pc->dumpfile, &m->layout, &ignored))
		memset(&m->layout, 0, sizeof(m->layout));
	close(fd);
	return m;
}

/*
 * crash says only that readmem failed; the dump file's own map says
 * whether the page is in it at all.
 */
static int crash_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			   size_t len, struct kt_err *err)
{
	struct crash_memory *m;
	uint64_t start, end;

	if (readmem(pa, PHYSADDR, buf, (long)len, "ktrepl",
		    RETURN_ON_ERROR | QUIET))
		return 0;
	m = crash_memory(src);
	if (m->layout.nr_ranges &&
	    (kt_dump_layout_next_range(&m->layout, pa, &start, &end) ||
	     start > pa))
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " is not in the dump: excluded by the dump filter, or not RAM (ktrepl-dump --vmcore %s says which)",
				  pa, len, pa & ~(uint64_t)(PAGESIZE() - 1),
				  pc->dumpfile);
	return kt_err_set(err, KT_MEM_ABSENT,
			  "physical 0x%" PRIx64 "+%zu: crash cannot read it from the dump (a page the dump filter excluded, or not RAM; ktrepl-dump --vmcore names which)",
			  pa, len);
}

static int crash_next_range(struct kt_memsrc *src, uint64_t pa,
			    uint64_t *start, uint64_t *end)
{
	struct crash_memory *m = crash_memory(src);
	uint64_t best = UINT64_MAX, s, e;
	int i;

	if (m->layout.nr_ranges)
		return kt_dump_layout_next_range(&m->layout, pa, start, end);
	if (!vt->numnodes || !vt->node_table)
		return -ENOTSUP;	/* phys_end, then */
	for (i = 0; i < vt->numnodes; i++) {
		s = vt->node_table[i].start_paddr;
		e = s + (uint64_t)vt->node_table[i].size * PAGESIZE();
		if (e <= pa || s >= best)
			continue;
		best = s;
		*start = s > pa ? s : pa;
		*end = e;
	}
	return best == UINT64_MAX ? -ENOENT : 0;
}

/* one past the kernel's last page frame: its max_pfn */
static int crash_phys_end(struct kt_memsrc *src, uint64_t *end,
			  struct kt_err *err)
{
	ulong max_pfn;

	if (!symbol_exists("max_pfn") ||
	    !readmem(symbol_value("max_pfn"), KVADDR, &max_pfn,
		     sizeof(max_pfn), "max_pfn", RETURN_ON_ERROR | QUIET))
		return kt_err_set(err, ENOENT,
				  "crash knows neither this dump's memory map (its format, a node table) nor the kernel's max_pfn");
	*end = (uint64_t)max_pfn * PAGESIZE();
	return 0;
}

static void crash_close(struct kt_memsrc *src)
{
	struct crash_memory *m = src->priv;

	kt_dump_layout_free(&m->layout);
	free(m);
}

static const struct kt_memsrc_ops crash_ops = {
	.name = "crash",
	.read_phys = crash_read_phys,
	.vmcoreinfo = crash_vmcoreinfo,
	.phys_end = crash_phys_end,
	.next_range = crash_next_range,
	.descriptor_hint = crash_descriptor_hint,
	.close = crash_close,
};

static void add_syms(struct kt_symtab *tab, struct syment *sp, long count)
{
	long i;

	for (i = 0; i < count; i++) {
		tab->syms[tab->nr].addr = sp[i].value;
		tab->syms[tab->nr].name = strdup(sp[i].name);
		if (tab->syms[tab->nr].name)
			tab->nr++;
	}
}

/* crash's kernel and module symbols, already at runtime addresses */
static int crash_symtab(struct kt_symtab *tab)
{
	long total = st->symcnt + st->ext_module_symcnt;

	memset(tab, 0, sizeof(*tab));
	tab->syms = calloc(total ? total : 1, sizeof(*tab->syms));
	if (!tab->syms)
		return -ENOMEM;
	add_syms(tab, st->symtable, st->symcnt);
	add_syms(tab, st->ext_module_symtable, st->ext_module_symcnt);
	kt_symtab_sort(tab);
	return 0;
}

struct session {
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_symtab syms;
	struct kt_target t;
	struct kt_out out;
};

static bool session_open(struct session *s)
{
	struct crash_memory *mem;
	struct kt_err err;

	memset(s, 0, sizeof(*s));
	kt_err_clear(&err);
	mem = calloc(1, sizeof(*mem));
	s->src = mem ? kt_memsrc_new(&crash_ops, mem,
				     pc->dumpfile ? pc->dumpfile : "live") :
		       NULL;
	if (!s->src) {
		free(mem);
		error(INFO, "out of memory\n");
		return false;
	}
	crash_symtab(&s->syms);
	if (kt_target_open_dump(&s->t, &s->st, s->src, &s->syms, &err)) {
		error(INFO, "%s\n", err.msg);
		kt_symtab_free(&s->syms);
		kt_memsrc_close(s->src);
		return false;
	}
	kt_out_init(&s->out, "ktrepl", false, false);
	s->out.fp = fp;
	s->out.errfp = fp;
	return true;
}

static void session_close(struct session *s)
{
	kt_out_fini(&s->out);
	kt_symtab_free(&s->syms);
	kt_state_free(&s->st);
	kt_memsrc_close(s->src);
}

static int print_diff(const struct kt_diff *d, void *arg)
{
	struct session *s = arg;

	kt_report_diff(&s->out, &s->st, d);
	return 0;
}

static int print_violation(const struct kt_violation *v, void *arg)
{
	struct session *s = arg;

	kt_report_violation(&s->out, &s->st, v, false);
	return 0;
}

#define KTREPL_MAX_ADDRS 64
#define KTREPL_MAX_RANGES 4096
/* an instruction starting up to this many bytes before a diverged byte
 * may contain it: x86's longest instruction; a fixed-length arch's
 * instructions are as long as their alignment (arm64: 4) */
#define KTREPL_INSN_MAX 15

struct panic_diffs {
	struct kt_diff *d;
	int n;
};

static int collect_diff(const struct kt_diff *d, void *arg)
{
	struct panic_diffs *pd = arg;

	if (pd->n < KTREPL_MAX_RANGES)
		pd->d[pd->n++] = *d;
	return 0;
}

/*
 * crash's bt, false where it gave up. A crash older than the kernel may
 * not know how to unwind its stacks: its bt then leaves through the main
 * loop's longjmp, which would end the whole command.
 */
static bool back_trace_caught(struct bt_info *bt)
{
	jmp_buf main_loop_env;

	memcpy(main_loop_env, pc->main_loop_env, sizeof(main_loop_env));
	if (setjmp(pc->main_loop_env)) {
		memcpy(pc->main_loop_env, main_loop_env, sizeof(main_loop_env));
		return false;
	}
	back_trace(bt);
	memcpy(pc->main_loop_env, main_loop_env, sizeof(main_loop_env));
	return true;
}

/*
 * The exception PC and return addresses of the panic task, from crash's
 * bt; -1 when crash cannot read its stack.
 */
static int panic_addresses(ulong *addrs, int max)
{
	struct bt_info bt_info, *bt = &bt_info;
	char line[BUFSIZE], *p;
	int n = 0;

	BZERO(bt, sizeof(*bt));
	bt->task = tt->panic_task;
	bt->tc = task_to_context(bt->task);
	if (!bt->tc)
		return 0;
	bt->stackbase = GET_STACKBASE(bt->task);
	bt->stacktop = GET_STACKTOP(bt->task);
	/* a crash older than the kernel may not know its stack size */
	if (!bt->stackbase || bt->stacktop <= bt->stackbase)
		return -1;
	open_tmpfile();
	if (!back_trace_caught(bt)) {
		close_tmpfile();
		return -1;
	}
	rewind(pc->tmpfile);
	while (fgets(line, sizeof(line), pc->tmpfile) && n < max) {
		/*
		 * An exception frame's PC: x86_64's "[exception RIP: f+0x1]"
		 * carries "RIP: ffff..." below it, arm64's frame has a
		 * "PC: ffff...  [f+0x1]" line
		 */
		p = strstr(line, "RIP: ");
		if (!p)
			p = strstr(line, " PC: ");
		if (p && !strstr(line, "exception") &&
		    sscanf(strchr(p, ':') + 1, "%lx", &addrs[n]) == 1) {
			n++;
			continue;
		}
		/* " #9 [sp] f at pc", "#10 [sp] f at pc" */
		p = strstr(line, " at ");
		/* arm64's next frame repeats the exception frame's PC */
		if (line[strspn(line, " ")] == '#' && p &&
		    sscanf(p + 4, "%lx", &addrs[n]) == 1 &&
		    (!n || addrs[n] != addrs[n - 1]))
			n++;
	}
	close_tmpfile();
	return n;
}

/*
 * -p: did a replica divergence on the panicking CPU's node kill the box?
 * Every address the panic task was executing or returning to is checked
 * against the ranges where that node's replica differs from the master.
 */
/* the master's unexplained changes against crash's own vmlinux */
static void master_vs_file(struct session *s, struct panic_diffs *pd)
{
	struct kt_vdiff_stats stats;
	struct kt_vmlinux v;
	struct kt_err err;

	kt_err_clear(&err);
	if (kt_vmlinux_open(&v, pc->namelist, &err)) {
		fprintf(fp, "(the master's text is not compared with %s: %s)\n",
			pc->namelist, err.msg);
		return;
	}
	if (kt_diff_vmlinux_run(&s->t, &v, false, collect_diff, pd, &stats,
				&err))
		error(INFO, "%s\n", err.msg);
	else
		fprintf(fp, "master text vs %s: %" PRIu64 " changed range%s that no patch site or relocation explains\n",
			pc->namelist, stats.unexplained,
			stats.unexplained == 1 ? "" : "s");
	kt_vmlinux_close(&v);
}

/*
 * The set the panic task ran on: its CPU's node's (percpu), its bound
 * process's (mm), its worker's (workload), or the master's. Prints which
 * and why; NULL when the descriptor cannot say.
 */
static const struct kt_node_state *panic_set(struct session *s,
					     struct task_context *tc,
					     const struct kt_node_state *cpu_ns)
{
	const struct kt_node_state *ns = NULL;
	ulong tgid = task_tgid(tc->task);
	size_t i;

	if (s->st.activation == KT_ACT_PERCPU) {
		fprintf(fp, " (%s; every CPU runs on its node's set: node %d's)\n",
			kt_role_name(cpu_ns->role), cpu_ns->memory_node);
		return cpu_ns;
	}
	for (i = 0; i < s->st.nr_bound; i++) {
		const struct kt_bound_state *b = &s->st.bound[i];

		if ((ulong)b->pid != tgid)
			continue;
		ns = kt_state_node(&s->st, b->node);
		fprintf(fp, "; its process %lu is bound to node %d's set (mm pgd 0x%" PRIx64 ", set root 0x%" PRIx64 ")\n",
			tgid, b->node, b->mm_pgd_pa, b->root_pa);
		break;
	}
	for (i = 0; !ns && i < s->st.nr_tasks; i++) {
		if ((ulong)s->st.tasks[i].pid != tc->pid)
			continue;
		ns = kt_state_node(&s->st, s->st.tasks[i].node);
		fprintf(fp, "; a ktrepl worker on node %d's set (root 0x%" PRIx64 ")\n",
			s->st.tasks[i].node, s->st.tasks[i].expected_root_pa);
	}
	if (!ns) {
		ns = kt_state_node(&s->st, s->st.master_node);
		fprintf(fp, "; it ran on the master's tables (activation %s, not bound)\n",
			kt_activation_name(s->st.activation));
	}
	if (!ns)
		fprintf(fp, "ktrepl: the descriptor has no node %d\n",
			s->st.master_node);
	return ns;
}

static void panic_analysis(struct session *s)
{
	struct kt_diff_opts opts = { .region = -1 };
	struct panic_diffs pd = { 0 };
	ulong addrs[KTREPL_MAX_ADDRS];
	struct task_context *tc;
	uint64_t compared;
	struct kt_err err;
	int i, j, n, cpu, node = -1, hits = 0;
	const struct kt_node_state *ns;
	unsigned int insn_max = s->t.arch->insn_align > 1 ?
					s->t.arch->insn_align :
					KTREPL_INSN_MAX;

	if (!tt->panic_task || !(tc = task_to_context(tt->panic_task))) {
		fprintf(fp, "ktrepl: this dump has no panic task\n");
		return;
	}
	cpu = tc->processor;
	for (i = 0; i < (int)s->st.nr_cpus; i++)
		if (s->st.cpus[i].cpu == cpu)
			node = s->st.cpus[i].node;
	ns = kt_state_node(&s->st, node);
	fprintf(fp, "panic task %lu (%s) on cpu %d, node %d", tc->pid, tc->comm,
		cpu, node);
	if (!ns) {
		fprintf(fp, ": the node is unknown to the descriptor\n");
		return;
	}
	ns = panic_set(s, tc, ns);
	if (!ns)
		return;
	n = panic_addresses(addrs, KTREPL_MAX_ADDRS);
	pd.d = calloc(KTREPL_MAX_RANGES, sizeof(*pd.d));
	if (!pd.d)
		return;
	opts.node = ns->memory_node;
	kt_err_clear(&err);
	if (ns->memory_node != s->st.master_node &&
	    kt_diff_run(&s->t, &opts, collect_diff, &pd, &compared, &err)) {
		error(INFO, "%s\n", err.msg);
		free(pd.d);
		return;
	}
	/*
	 * A change to the master reaches every replica that is copied from
	 * it, and no replica diff shows it: the file does.
	 */
	master_vs_file(s, &pd);
	if (n < 0) {
		for (j = 0; j < pd.n; j++)
			kt_report_diff(&s->out, &s->st, &pd.d[j]);
		fprintf(fp, "verdict: unknown: this crash cannot read the panic task's stack on this kernel; %d range%s differ%s on node %d (above)\n",
			pd.n, pd.n == 1 ? "" : "s", pd.n == 1 ? "s" : "",
			ns->memory_node);
		free(pd.d);
		return;
	}
	for (i = 0; i < n; i++) {
		char sym[160];

		kt_symtab_format(&s->syms, addrs[i], sym, sizeof(sym));
		for (j = 0; j < pd.n; j++) {
			const struct kt_diff *d = &pd.d[j];

			if (addrs[i] + insn_max > d->va &&
			    addrs[i] < d->va + d->len)
				break;
		}
		if (j == pd.n) {
			fprintf(fp, "  %016lx %-40s not in a diverged range\n",
				addrs[i], sym);
			continue;
		}
		hits++;
		fprintf(fp, "  %016lx %-40s IN A DIVERGED RANGE: ", addrs[i],
			sym);
		fprintf(fp, "%s len %lu [%s]\n", pd.d[j].sym,
			(ulong)pd.d[j].len, pd.d[j].kind);
		kt_report_diff(&s->out, &s->st, &pd.d[j]);
	}
	if (hits)
		fprintf(fp, "verdict: the panic ran through %d diverged range%s of node %d's replica: a replica divergence is the likely cause\n",
			hits, hits == 1 ? "" : "s", ns->memory_node);
	else
		fprintf(fp, "verdict: not in a diverged range (%d ranges differ on node %d, none on the panic path)\n",
			pd.n, ns->memory_node);
	free(pd.d);
}

/*
 * A CPU's root in words, by the library's rule (kt_root_owner): under
 * percpu a CPU on anything but its node's set is wrong; under mm only
 * node-bound processes run on a node's set, so init_mm (idle, kernel
 * threads) and unbound processes on the master's are normal.
 */
static void print_root_owner(struct session *s, const struct kt_cpu_state *c,
			     uint64_t root)
{
	struct kt_root_owner o;
	struct kt_err err;
	char pid[32] = "";

	kt_err_clear(&err);
	if (kt_root_owner(&s->t, root, &o, &err)) {
		fprintf(fp, "cannot tell: %s\n", err.msg);
		return;
	}
	if (o.pid >= 0)
		snprintf(pid, sizeof(pid), "pid %d's mm, ", o.pid);
	if (o.kind == KT_ROOT_SET && o.set_root_pa == c->expected_root_pa)
		fprintf(fp, "its node's (%s)\n", o.master ? "master" : "node");
	else if (o.kind == KT_ROOT_SET)
		fprintf(fp, "NOT ITS NODE'S: the %s set of node %d\n",
			o.master ? "master" : "node", o.node);
	else if (o.kind == KT_ROOT_MM && o.set_root_pa == c->expected_root_pa &&
		 !o.master)
		fprintf(fp, "%sits node's set (bound to node %d)\n", pid, o.node);
	else if (o.kind == KT_ROOT_MM && o.master)
		fprintf(fp, "%s%s\n", pid,
			root == s->st.master_root_pa ?
				"init_mm, the master's (idle or a kernel thread: under mm only node-bound processes run on their node's set)" :
				"an mm on the master's kernel half (a process not bound to a node)");
	else if (o.kind == KT_ROOT_MM)
		fprintf(fp, "%sNOT ITS NODE'S: an mm on node %d's set\n", pid,
			o.node);
	else
		fprintf(fp, "TABLES NO SET OWNS (the kernel half is neither the master's nor a node set's)\n");
}

/*
 * The roots the module recorded at each switch (arm64: no dump format
 * carries TTBR1); 0 when it recorded none.
 */
static int recorded_roots(struct session *s, uint64_t *roots, int max)
{
	int i, n = 0;

	for (i = 0; i < (int)s->st.nr_cpus; i++) {
		const struct kt_cpu_state *c = &s->st.cpus[i];

		if (!c->root_recorded || c->cpu >= max)
			continue;
		roots[c->cpu] = c->loaded_root_pa;
		if (c->cpu >= n)
			n = c->cpu + 1;
	}
	return n;
}

/* -c: the root each CPU had loaded when the dump was taken */
static void cpu_roots(struct session *s)
{
	uint64_t roots[NR_CPUS];
	struct kt_err err;
	int i, n;

	kt_err_clear(&err);
	n = recorded_roots(s, roots, NR_CPUS);
	if (!n)
		n = kt_qemu_cpu_roots(pc->dumpfile, roots, NR_CPUS, &err);
	if (n < 0) {
		error(INFO, "%s\n", err.msg);
		return;
	}
	fprintf(fp, "%-4s %-5s %-18s %-18s %s\n", "CPU", "NODE",
		s->st.nr_cpus && s->st.cpus[0].root_recorded ? "RECORDED ROOT" :
							      "LOADED ROOT",
		"NODE'S ROOT", "SET");
	for (i = 0; i < (int)s->st.nr_cpus; i++) {
		const struct kt_cpu_state *c = &s->st.cpus[i];

		if (c->cpu >= n)
			continue;
		fprintf(fp, "%-4d %-5d 0x%-16" PRIx64 " 0x%-16" PRIx64 " ", c->cpu,
			c->node, roots[c->cpu], c->expected_root_pa);
		print_root_owner(s, c, roots[c->cpu]);
	}
}

static void cmd_ktrepl(void)
{
	int c, node = -1, mode = 's';
	ulonglong addr = 0;
	struct session s;
	struct kt_err err;

	optind = 0;
	while ((c = getopt(argcnt, args, "vdpcft:n:")) != EOF) {
		switch (c) {
		case 'v':
		case 'd':
		case 'p':
		case 'c':
		case 'f':
			mode = c;
			break;
		case 't':
			mode = 't';
			addr = symbol_exists(optarg) ?
				       symbol_value(optarg) :
				       htoll(optarg, FAULT_ON_ERROR, NULL);
			break;
		case 'n':
			node = (int)dtol(optarg, FAULT_ON_ERROR, NULL);
			break;
		default:
			argerrs++;
		}
	}
	if (argerrs || args[optind])
		cmd_usage(pc->curcmd, SYNOPSIS);
	if (!session_open(&s))
		return;
	kt_err_clear(&err);
	if (node >= 0 && !kt_state_node(&s.st, node)) {
		error(INFO, "no node %d in this dump\n", node);
		session_close(&s);
		return;
	}
	switch (mode) {
	case 's':
		kt_report_summary(&s.out, &s.st);
		break;
	case 'd': {
		struct kt_diff_opts opts = { .node = node, .region = -1 };
		uint64_t compared;

		if (kt_diff_run(&s.t, &opts, print_diff, &s, &compared, &err))
			error(INFO, "%s\n", err.msg);
		break;
	}
	case 'v': {
		struct kt_verify_stats stats;

		if (kt_verify_run(&s.t, print_violation, &s, &stats, &err))
			error(INFO, "%s\n", err.msg);
		else
			kt_report_verify_end(&s.out, &stats, false);
		break;
	}
	case 'p':
		panic_analysis(&s);
		break;
	case 'c':
		cpu_roots(&s);
		break;
	case 'f': {
		struct kt_vdiff_stats stats;
		struct kt_vmlinux v;

		if (kt_vmlinux_open(&v, pc->namelist, &err)) {
			error(INFO, "%s\n", err.msg);
			break;
		}
		if (kt_diff_vmlinux_run(&s.t, &v, false, print_diff, &s, &stats,
					&err))
			error(INFO, "%s\n", err.msg);
		else
			kt_report_vdiff_end(&s.out, &stats);
		kt_vmlinux_close(&v);
		break;
	}
	case 't': {
		const struct kt_node_state *n;
		struct kt_mapping m;
		int i;

		for (i = 0; i < s.st.nr_nodes; i++) {
			n = &s.st.nodes[i];
			if ((node >= 0 && n->nid != node) || !n->root_pa)
				continue;
			if (kt_translate(s.t.arch, &s.t.geo, s.src, n->root_pa,
					 addr, &m, &err))
				error(INFO, "%s\n", err.msg);
			else
				kt_report_mapping(&s.out, &s.t, n->nid, NULL, &m,
						  true);
		}
		break;
	}
	}
	session_close(&s);
}

static char *help_ktrepl[] = {
	"ktrepl",
	"NUMA kernel text replication: replicas, node tables, divergence",
	"[-v | -p | -c | -f | -d [-n node] | -t address [-n node]]",
	"  Reads the ktrepl descriptor that ktrepl.ko left in the dump and",
	"  shows the replication state. Without options: nodes, master node,",
	"  regions, per-node top-level tables, overhead and patch counters.",
	"",
	"    -v  verify: replica bytes, node locality, shared top-level entries,",
	"        writable text and executable rodata, as ktrepl-dump --verify.",
	"    -d  every range where a replica differs from the master, with the",
	"        symbol and the kind of patch site it matches.",
	"    -t  translate an address or symbol through each node's own tables,",
	"        printing every level's entry and the node of the final page",
	"        (vtop only walks swapper_pg_dir).",
	"    -p  panic analysis: the panic task's CPU and node, and for its PC",
	"        and each return address on its stack, whether it falls in a",
	"        range where that node's replica differs from the master, or",
	"        where the master's text differs from the vmlinux in a way no",
	"        patch site or KASLR relocation explains.",
	"    -f  the master's text against crash's vmlinux: the changes no boot",
	"        or runtime patch site and no KASLR relocation explains (x86_64,",
	"        Debian's -dbg vmlinux; without .rela.text, as from 6.9, a",
	"        relocation is recognised by its value).",
	"    -c  the top-level table each CPU had loaded at the time of the dump",
	"        (from QEMU's CPU notes), against the one its node should use.",
	"    -n  restrict -d or -t to one node.",
	"\nEXAMPLE",
	"  Check the replicas after a panic:\n",
	"    %s> ktrepl -v",
	"    bytes: node 0 0xffffffff815a06f1 len 1 int_sqrt+0x1 [unknown] differs from the master",
	"    verify: DIVERGED: 1 violation; 2 nodes, 96 mappings, 23219954 bytes compared",
	NULL
};

/*
 * MINIMAL: ktrepl needs only readmem() and symbols, and minimal mode is
 * how Debian's crash 8.0.2 opens 6.4+ dumps safely (README).
 */
static struct command_table_entry command_table[] = {
	{ "ktrepl", cmd_ktrepl, help_ktrepl, MINIMAL },
	{ NULL },
};

void __attribute__((constructor)) ktrepl_init(void)
{
	register_extension(command_table);
}

void __attribute__((destructor)) ktrepl_fini(void)
{
}
