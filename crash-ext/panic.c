// SPDX-License-Identifier: GPL-2.0
/*
 * crash> ktrepl -p: every address the panicking CPU was executing or
 * returning to, against the ranges where its node's replica differs from
 * the master, and the master against crash's vmlinux.
 */
#include <inttypes.h>

#include "crash_ext.h"
#include "crash_note.h"

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
 * Where the panic happened and what it was running: from crash's panic
 * task and its backtrace where crash names one, else from the kernel's
 * own record (panic_cpu, and the registers that CPU saved in its crash
 * note when a kdump kernel took the dump).
 */
struct panic_site {
	int cpu;
	ulong pid;	/* the thread */
	ulong tgid;	/* its process, for the bound records */
	char comm[TASK_COMM_LEN + 1];
	bool no_task;	/* crash names none: the cpu is panic_cpu */
	bool from_note;	/* the registers are the cpu's crash note's */
	ulong addrs[KTREPL_MAX_ADDRS];
	int n;		/* -1: crash cannot read the task's stack */
	const char *why_unknown;
};

static bool site_from_crash(struct panic_site *ps)
{
	struct task_context *tc;

	if (!tt->panic_task || !(tc = task_to_context(tt->panic_task)))
		return false;
	ps->cpu = tc->processor;
	ps->pid = tc->pid;
	ps->tgid = task_tgid(tc->task);
	snprintf(ps->comm, sizeof(ps->comm), "%s", tc->comm);
	ps->n = panic_addresses(ps->addrs, KTREPL_MAX_ADDRS);
	ps->why_unknown = "this crash cannot read the panic task's stack on this kernel";
	return true;
}

/*
 * The registers that cpu saved in its crash note (crash_save_cpu(), when
 * a kdump kernel took the dump): its pc, and arm64's link register.
 * False, with why_unknown set, where there are none to read.
 */
static bool note_regs(struct session *s, int cpu, struct panic_site *ps)
{
	uint8_t buf[512];
	size_t len = kt_crash_note_size(s->t.arch);
	struct kt_crash_note note;
	ulong notes, offset;
	struct kt_err err;

	if (len > sizeof(buf) ||
	    !crash_read_symbol("crash_notes", 0, &notes, sizeof(notes)) ||
	    !crash_read_symbol("__per_cpu_offset", (ulong)cpu * sizeof(ulong),
			 &offset, sizeof(offset)) ||
	    !readmem(notes + offset, KVADDR, buf, (long)len, "crash note",
		     RETURN_ON_ERROR | QUIET)) {
		ps->why_unknown = "the panic CPU's crash note cannot be read from this dump";
		return false;
	}
	kt_err_clear(&err);
	if (kt_crash_note_parse(s->t.arch, buf, len, &note, &err)) {
		ps->why_unknown = err.code == ENOENT ?
			"no CPU saved its registers (no kdump kernel took this dump, so crash_notes is empty)" :
			"the panic CPU's crash note is damaged";
		return false;
	}
	ps->from_note = true;
	if (!ps->pid)
		ps->pid = ps->tgid = (ulong)note.pid;
	ps->n = 0;
	ps->addrs[ps->n++] = note.pc;
	if (note.lr && note.lr != note.pc)
		ps->addrs[ps->n++] = note.lr;
	return true;
}

static int kernel_panic_cpu(void)
{
	int cpu;

	if (!crash_read_symbol("panic_cpu", 0, &cpu, sizeof(cpu)))
		return -1;
	return cpu;
}

/*
 * An oops that kdump caught in die() is no panic() to crash 8.0.2 (its
 * sys says PANIC: "" on arm64, and names no task), but crash_kexec()
 * claimed panic_cpu, and that CPU's crash note holds its trap registers.
 */
static bool site_from_kernel(struct session *s, struct panic_site *ps)
{
	int cpu = kernel_panic_cpu();

	if (cpu < 0) {
		fprintf(fp, "ktrepl: this dump has no panic task (crash names none, and the kernel's panic_cpu is %s)\n",
			symbol_exists("panic_cpu") ? "unset or unreadable" :
						     "not a symbol crash knows");
		return false;
	}
	ps->cpu = cpu;
	ps->n = -1;
	ps->no_task = true;
	note_regs(s, cpu, ps);
	return true;
}

/*
 * The set the panic task ran on: its CPU's node's (percpu), its bound
 * process's (mm), its worker's (workload), or the master's. Prints which
 * and why; NULL when the descriptor cannot say. A crash note's pid is the
 * thread's: taken as its process, which holds for a single thread.
 */
static const struct kt_node_state *panic_set(struct session *s,
					     const struct panic_site *ps,
					     const struct kt_node_state *cpu_ns)
{
	const struct kt_node_state *ns = NULL;
	size_t i;

	/* no set of its own, so no worker or binding either: see abi.md */
	if (cpu_ns->role == KT_ROLE_LATE) {
		fprintf(fp, " (late: onlined after ktrepl.ko loaded; its CPUs ran on the master's set)\n");
		return kt_state_node(&s->st, s->st.master_node);
	}
	if (s->st.activation == KT_ACT_PERCPU) {
		fprintf(fp, " (%s; every CPU runs on its node's set: node %d's)\n",
			kt_role_name(cpu_ns->role), cpu_ns->memory_node);
		return cpu_ns;
	}
	for (i = 0; ps->tgid && i < s->st.nr_bound; i++) {
		const struct kt_bound_state *b = &s->st.bound[i];

		if ((ulong)b->pid != ps->tgid)
			continue;
		ns = kt_state_node(&s->st, b->node);
		fprintf(fp, "; its process %lu is bound to node %d's set (mm pgd 0x%" PRIx64 ", set root 0x%" PRIx64 ")\n",
			ps->tgid, b->node, b->mm_pgd_pa, b->root_pa);
		break;
	}
	for (i = 0; !ns && ps->pid && i < s->st.nr_tasks; i++) {
		if ((ulong)s->st.tasks[i].pid != ps->pid)
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

static void print_site(struct session *s, const struct panic_site *ps,
		       int node)
{
	if (!ps->no_task)
		fprintf(fp, "panic task %lu (%s) on cpu %d, node %d", ps->pid,
			ps->comm, ps->cpu, node);
	else if (ps->from_note)
		fprintf(fp, "panic on cpu %d, node %d, pid %lu (crash names no panic task: the cpu is the kernel's panic_cpu, the pid and registers its crash note's)",
			ps->cpu, node, ps->pid);
	else
		fprintf(fp, "panic on cpu %d, node %d (crash names no panic task: the cpu is the kernel's panic_cpu)",
			ps->cpu, node);
}

/* which of the ranges diverged holds an instruction at addr */
static int range_at(const struct panic_diffs *pd, ulong addr,
		    unsigned int insn_max)
{
	int j;

	for (j = 0; j < pd->n; j++)
		if (addr + insn_max > pd->d[j].va &&
		    addr < pd->d[j].va + pd->d[j].len)
			return j;
	return -1;
}

void panic_analysis(struct session *s)
{
	struct kt_diff_opts opts = { .region = -1 };
	struct panic_diffs pd = { 0 };
	struct panic_site ps = { .cpu = -1 };
	uint64_t compared;
	struct kt_err err;
	int i, j, node = -1, ranges = 0;
	const struct kt_node_state *ns;
	unsigned int insn_max = s->t.arch->insn_align > 1 ?
					s->t.arch->insn_align :
					KTREPL_INSN_MAX;
	bool *hit;

	if (!site_from_crash(&ps) && !site_from_kernel(s, &ps))
		return;
	for (i = 0; i < (int)s->st.nr_cpus; i++)
		if (s->st.cpus[i].cpu == ps.cpu)
			node = s->st.cpus[i].node;
	ns = kt_state_node(&s->st, node);
	print_site(s, &ps, node);
	if (!ns) {
		fprintf(fp, ": the node is unknown to the descriptor\n");
		return;
	}
	ns = panic_set(s, &ps, ns);
	if (!ns)
		return;
	/* a stack crash cannot unwind: the CPU's own record of its trap */
	if (ps.n < 0 && !ps.no_task && ps.cpu == kernel_panic_cpu()) {
		const char *why = ps.why_unknown;

		if (note_regs(s, ps.cpu, &ps))
			fprintf(fp, "(crash cannot unwind the panic task's stack: the registers of cpu %d's crash note)\n",
				ps.cpu);
		else
			ps.why_unknown = why;
	}
	pd.d = calloc(KTREPL_MAX_RANGES, sizeof(*pd.d));
	hit = calloc(KTREPL_MAX_RANGES, sizeof(*hit));
	if (!pd.d || !hit)
		goto out;
	opts.node = ns->memory_node;
	kt_err_clear(&err);
	if (ns->memory_node != s->st.master_node &&
	    kt_diff_run(&s->t, &opts, collect_diff, &pd, &compared, &err)) {
		error(INFO, "%s\n", err.msg);
		goto out;
	}
	/*
	 * A change to the master reaches every replica that is copied from
	 * it, and no replica diff shows it: the file does.
	 */
	master_vs_file(s, &pd);
	if (ps.n < 0) {
		for (j = 0; j < pd.n; j++)
			kt_report_diff(&s->out, &s->st, &pd.d[j]);
		fprintf(fp, "verdict: unknown: %s; %d range%s differ%s on node %d (above)\n",
			ps.why_unknown, pd.n, pd.n == 1 ? "" : "s",
			pd.n == 1 ? "s" : "", ns->memory_node);
		goto out;
	}
	for (i = 0; i < ps.n; i++) {
		char sym[160];

		kt_symtab_format(&s->syms, ps.addrs[i], sym, sizeof(sym));
		j = range_at(&pd, ps.addrs[i], insn_max);
		if (j < 0) {
			fprintf(fp, "  %016lx %-40s not in a diverged range\n",
				ps.addrs[i], sym);
			continue;
		}
		fprintf(fp, "  %016lx %-40s IN A DIVERGED RANGE: ",
			ps.addrs[i], sym);
		fprintf(fp, "%s len %lu [%s]\n", pd.d[j].sym,
			(ulong)pd.d[j].len, pd.d[j].kind);
		/* a range the PC and a return address share counts once */
		if (hit[j])
			continue;
		hit[j] = true;
		ranges++;
		kt_report_diff(&s->out, &s->st, &pd.d[j]);
	}
	if (ranges)
		fprintf(fp, "verdict: the panic ran through %d diverged range%s of node %d's replica: a replica divergence is the likely cause\n",
			ranges, ranges == 1 ? "" : "s", ns->memory_node);
	else
		fprintf(fp, "verdict: not in a diverged range (%d ranges differ on node %d, none on the panic path)\n",
			pd.n, ns->memory_node);
out:
	free(hit);
	free(pd.d);
}
