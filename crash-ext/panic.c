// SPDX-License-Identifier: GPL-2.0
/*
 * crash> ktrepl -p: every address the panicking CPU was executing or
 * returning to, against the ranges where its node's replica differs from
 * the master, and the master against crash's vmlinux.
 */
#include <inttypes.h>

#include "crash_ext.h"
#include "crash_note.h"

#include "panic.h"

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
static void master_vs_file(struct session *s, struct kt_panic_verdict *v)
{
	struct kt_vdiff_stats stats;
	struct kt_vmlinux vml;
	struct kt_err err;

	kt_err_clear(&err);
	if (kt_vmlinux_open(&vml, pc->namelist, &err)) {
		fprintf(fp, "(the master's text is not compared with %s: %s)\n",
			pc->namelist, err.msg);
		return;
	}
	if (kt_diff_vmlinux_run(&s->t, &vml, false, kt_panic_add_range, v,
				&stats, &err))
		error(INFO, "%s\n", err.msg);
	else
		fprintf(fp, "master text vs %s: %" PRIu64 " changed range%s that no patch site or relocation explains\n",
			pc->namelist, stats.unexplained,
			stats.unexplained == 1 ? "" : "s");
	kt_vmlinux_close(&vml);
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
	ulong addrs[KT_PANIC_MAX_ADDRS];
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
	ps->n = panic_addresses(ps->addrs, KT_PANIC_MAX_ADDRS);
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
 * The set the panic task ran on, by the library's rule (panic.h), and
 * why. NULL when the descriptor cannot say. A crash note's pid is the
 * thread's: taken as its process, which holds for a single thread.
 */
static const struct kt_node_state *panic_set(struct session *s,
					     const struct panic_site *ps)
{
	struct kt_panic_set set;
	struct kt_err err;

	kt_err_clear(&err);
	if (kt_panic_set_of(&s->t, ps->cpu, (long)ps->pid, (long)ps->tgid,
			    &set, &err)) {
		fprintf(fp, ": %s\n", err.msg);
		return NULL;
	}
	switch (set.why) {
	case KT_PANIC_SET_LATE:
		fprintf(fp, " (late: onlined after ktrepl.ko loaded; its CPUs ran on the master's set)\n");
		break;
	case KT_PANIC_SET_PERCPU:
		fprintf(fp, " (%s; every CPU runs on its node's set: node %d's)\n",
			kt_role_name(kt_state_node(&s->st, set.cpu_node)->role),
			set.ns ? set.ns->nid : -1);
		break;
	case KT_PANIC_SET_BOUND:
		fprintf(fp, "; its process %lu is bound to node %d's set (mm pgd 0x%" PRIx64 ", set root 0x%" PRIx64 ")\n",
			ps->tgid, set.bound->node, set.bound->mm_pgd_pa,
			set.bound->root_pa);
		break;
	case KT_PANIC_SET_WORKER:
		fprintf(fp, "; a ktrepl worker on node %d's set (root 0x%" PRIx64 ")\n",
			set.task->node, set.task->expected_root_pa);
		break;
	case KT_PANIC_SET_ROOT:
		fprintf(fp, "; its CPU's root at the panic, 0x%" PRIx64 ", is node %d's set\n",
			set.root, set.ns->nid);
		break;
	default:
		fprintf(fp, "; it ran on the master's tables (activation %s, not bound)\n",
			kt_activation_name(s->st.activation));
	}
	if (!set.ns)
		fprintf(fp, "ktrepl: the descriptor has no node for that set\n");
	return set.ns;
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

void panic_analysis(struct session *s)
{
	struct kt_panic_verdict v = { 0 };
	struct panic_site ps = { .cpu = -1 };
	const struct kt_node_state *ns;
	struct kt_err err;
	int i, j, node = -1;
	size_t k;

	if (!site_from_crash(&ps) && !site_from_kernel(s, &ps))
		return;
	for (k = 0; k < s->st.nr_cpus; k++)
		if (s->st.cpus[k].cpu == ps.cpu)
			node = s->st.cpus[k].node;
	print_site(s, &ps, node);
	if (!kt_state_node(&s->st, node)) {
		fprintf(fp, ": the node is unknown to the descriptor\n");
		return;
	}
	ns = panic_set(s, &ps);
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
	kt_err_clear(&err);
	if (kt_panic_ranges(&s->t, &(struct kt_panic_set){ .ns = ns }, &v,
			    &err)) {
		error(INFO, "%s\n", err.msg);
		goto out;
	}
	/*
	 * A change to the master reaches every replica that is copied from
	 * it, and no replica diff shows it: the file does.
	 */
	master_vs_file(s, &v);
	if (ps.n < 0) {
		for (k = 0; k < v.nr_ranges; k++)
			kt_report_diff(&s->out, &s->st, &v.ranges[k]);
		fprintf(fp, "verdict: unknown: %s; %zu range%s differ%s on node %d (above)\n",
			ps.why_unknown, v.nr_ranges, v.nr_ranges == 1 ? "" : "s",
			v.nr_ranges == 1 ? "s" : "", ns->memory_node);
		goto out;
	}
	kt_panic_match(&s->t, &v, (const uint64_t *)ps.addrs, ps.n);
	for (i = 0; i < v.nr_addrs; i++) {
		const struct kt_diff *d;
		char sym[160];

		kt_symtab_format(&s->syms, v.addrs[i], sym, sizeof(sym));
		if (v.addr_range[i] < 0) {
			fprintf(fp, "  %016" PRIx64 " %-40s not in a diverged range\n",
				v.addrs[i], sym);
			continue;
		}
		d = &v.ranges[v.addr_range[i]];
		fprintf(fp, "  %016" PRIx64 " %-40s IN A DIVERGED RANGE: %s len %lu [%s]\n",
			v.addrs[i], sym, d->sym, (ulong)d->len, d->kind);
		/* a range the PC and a return address share is shown once */
		for (j = 0; j < i; j++)
			if (v.addr_range[j] == v.addr_range[i])
				break;
		if (j == i)
			kt_report_diff(&s->out, &s->st, d);
	}
	if (v.outcome == KT_PANIC_DIVERGED)
		fprintf(fp, "verdict: the panic ran through %u diverged range%s of node %d's replica: a replica divergence is the likely cause\n",
			v.ranges_hit, v.ranges_hit == 1 ? "" : "s",
			ns->memory_node);
	else
		fprintf(fp, "verdict: not in a diverged range (%zu ranges differ on node %d, none on the panic path)\n",
			v.nr_ranges, ns->memory_node);
out:
	kt_panic_verdict_free(&v);
}
