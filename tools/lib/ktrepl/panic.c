// SPDX-License-Identifier: GPL-2.0
/*
 * The panic verdict (panic.h): which set the panicking thread ran on,
 * the kernel's own record of where it panicked, and the judgement.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "panic.h"

/* x86's longest instruction; a fixed-length arch's is its alignment */
#define KT_INSN_MAX_VARIABLE 15

const char *const kt_panic_set_names[KT_PANIC_SET_NR] = {
	[KT_PANIC_SET_LATE] = "late",
	[KT_PANIC_SET_PERCPU] = "percpu",
	[KT_PANIC_SET_BOUND] = "bound",
	[KT_PANIC_SET_WORKER] = "worker",
	[KT_PANIC_SET_ROOT] = "root",
	[KT_PANIC_SET_MASTER] = "master",
};

const char *const kt_panic_outcome_names[KT_PANIC_NR_OUTCOMES] = {
	[KT_PANIC_UNKNOWN] = "unknown",
	[KT_PANIC_NOT_DIVERGED] = "not_diverged",
	[KT_PANIC_DIVERGED] = "diverged",
};

const char *const kt_triage_verdict_names[KT_TRIAGE_NR] = {
	[KT_TRIAGE_DIVERGED] = "diverged",
	[KT_TRIAGE_NOT_DIVERGED] = "not_diverged",
	[KT_TRIAGE_UNKNOWN] = "unknown",
	[KT_TRIAGE_NO_KTREPL] = "no_ktrepl",
	[KT_TRIAGE_DAMAGED] = "damaged",
	[KT_TRIAGE_FAILED] = "failed",
};

enum kt_triage_verdict kt_triage_verdict_parse(const char *name)
{
	int i;

	for (i = 0; i < KT_TRIAGE_NR; i++)
		if (!strcmp(kt_triage_verdict_names[i], name))
			return i;
	return KT_TRIAGE_NR;
}

static const struct kt_cpu_state *cpu_state(const struct kt_state *st,
					    int cpu)
{
	size_t i;

	for (i = 0; i < st->nr_cpus; i++)
		if (st->cpus[i].cpu == cpu)
			return &st->cpus[i];
	return NULL;
}

/*
 * A root at the panic settles the set only where it names a replica:
 * under mm every unbound process's root is an mm over the master's
 * entry, which the pid rules already call the master's.
 */
static bool set_from_root(struct kt_target *t, const struct kt_cpu_state *c,
			  struct kt_panic_set *set)
{
	struct kt_root_owner o;
	struct kt_err err;

	if (!c->root_at_panic)
		return false;
	kt_err_clear(&err);
	if (kt_root_owner(t, c->loaded_root_pa, &o, &err) ||
	    o.kind == KT_ROOT_UNOWNED || o.master)
		return false;
	set->why = KT_PANIC_SET_ROOT;
	set->root = c->loaded_root_pa;
	set->ns = kt_state_node(t->st, o.node);
	return set->ns != NULL;
}

int kt_panic_set_of(struct kt_target *t, int cpu, long pid, long tgid,
		    struct kt_panic_set *set, struct kt_err *err)
{
	const struct kt_state *st = t->st;
	const struct kt_cpu_state *c = cpu_state(st, cpu);
	const struct kt_node_state *cpu_ns;
	size_t i;

	memset(set, 0, sizeof(*set));
	set->cpu_node = -1;
	if (!c)
		return kt_err_set(err, ENOENT, "the descriptor has no CPU %d",
				  cpu);
	set->cpu_node = c->node;
	cpu_ns = kt_state_node(st, c->node);
	/* no set of its own, so no worker or binding either: see abi.md */
	if (cpu_ns && cpu_ns->role == KT_ROLE_LATE) {
		set->why = KT_PANIC_SET_LATE;
		set->ns = kt_state_node(st, st->master_node);
		return 0;
	}
	if (st->activation == KT_ACT_PERCPU) {
		set->why = KT_PANIC_SET_PERCPU;
		set->ns = cpu_ns ? kt_state_node(st, cpu_ns->memory_node) : NULL;
		return 0;
	}
	for (i = 0; tgid && i < st->nr_bound; i++) {
		if (st->bound[i].pid != tgid)
			continue;
		set->why = KT_PANIC_SET_BOUND;
		set->bound = &st->bound[i];
		set->ns = kt_state_node(st, st->bound[i].node);
		return 0;
	}
	for (i = 0; pid && i < st->nr_tasks; i++) {
		if (st->tasks[i].pid != pid)
			continue;
		set->why = KT_PANIC_SET_WORKER;
		set->task = &st->tasks[i];
		set->ns = kt_state_node(st, st->tasks[i].node);
		return 0;
	}
	if (set_from_root(t, c, set))
		return 0;
	set->why = KT_PANIC_SET_MASTER;
	set->ns = kt_state_node(st, st->master_node);
	return 0;
}

/* len bytes at kernel VA va, through the master's tables */
static int read_kva(struct kt_target *t, uint64_t va, void *buf, size_t len,
		    struct kt_err *err)
{
	struct kt_kva_pgtable pt = {
		.arch = t->arch,
		.geo = &t->geo,
		.src = t->src,
		.root_pa = t->st->master_root_pa,
	};
	struct kt_kva_map map = { kt_kva_pgtable_to_pa, &pt };

	return kt_kva_read(t->src, &map, va, buf, len, err);
}

static int read_symbol(struct kt_target *t, const struct kt_symtab *syms,
		       const char *name, uint64_t offset, void *buf,
		       size_t len, struct kt_err *err)
{
	uint64_t va = kt_symtab_addr(syms, name);

	if (!va)
		return kt_err_set(err, ENOENT, "no symbol %s", name);
	if (read_kva(t, va + offset, buf, len, err))
		return kt_err_wrap(err, "%s", name);
	return 0;
}

/* NULL with the note read, or why there is none */
static const char *read_note(struct kt_target *t, const struct kt_symtab *syms,
			     struct kt_panic_record *rec)
{
	size_t len = kt_crash_note_size(t->arch);
	uint64_t notes, offset;
	uint8_t *buf;
	struct kt_err err;
	int ret;

	kt_err_clear(&err);
	if (!len)
		return "this architecture's crash notes are not read";
	if (read_symbol(t, syms, "crash_notes", 0, &notes, sizeof(notes),
			&err) ||
	    read_symbol(t, syms, "__per_cpu_offset",
			(uint64_t)rec->cpu * sizeof(offset), &offset,
			sizeof(offset), &err))
		return "crash_notes or __per_cpu_offset cannot be read from this dump";
	if (!notes)
		return "crash_notes was never allocated (no kexec crash support)";
	buf = malloc(len);
	if (!buf)
		return "out of memory";
	ret = read_kva(t, notes + offset, buf, len, &err);
	if (!ret)
		ret = kt_crash_note_parse(t->arch, buf, len, &rec->note, &err);
	free(buf);
	if (ret == -ENOENT)
		return "the panic CPU saved no registers (no kdump kernel took this dump)";
	if (ret)
		return "the panic CPU's crash note cannot be read or is damaged";
	rec->have_note = true;
	return NULL;
}

int kt_panic_record_read(struct kt_target *t, const struct kt_symtab *syms,
			 struct kt_panic_record *rec, struct kt_err *err)
{
	const struct kt_state *st = t->st;
	int32_t cpu;
	int ret;

	memset(rec, 0, sizeof(*rec));
	rec->cpu = -1;
	rec->why_no_note = "no CPU claimed the panic";
	if (st->have_panic_site && st->panic_cpu >= 0) {
		rec->from = "descriptor";
		rec->cpu = st->panic_cpu;
		rec->have_note = true;
		rec->note.pid = (int)st->panic_pid;
		rec->note.pc = st->panic_pc;
		rec->note.lr = st->panic_lr;
		rec->why_no_note = NULL;
		return 0;
	}
	rec->from = "crash_note";
	if (!syms)
		return kt_err_set(err, ENOENT,
				  "the descriptor records no panic site and there are no symbols for panic_cpu");
	ret = read_symbol(t, syms, "panic_cpu", 0, &cpu, sizeof(cpu), err);
	if (ret)
		return ret;
	/* PANIC_CPU_INVALID: nothing panicked, or it never got that far */
	if (cpu < 0)
		return 0;
	rec->cpu = cpu;
	rec->why_no_note = read_note(t, syms, rec);
	return 0;
}

int kt_panic_add_range(const struct kt_diff *d, void *arg)
{
	struct kt_panic_verdict *v = arg;
	struct kt_diff *grown;

	if (v->nr_ranges >= KT_PANIC_MAX_RANGES) {
		v->ranges_truncated = true;
		return 0;
	}
	grown = realloc(v->ranges, (v->nr_ranges + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	v->ranges = grown;
	v->ranges[v->nr_ranges++] = *d;
	return 0;
}

int kt_panic_ranges(struct kt_target *t, const struct kt_panic_set *set,
		    struct kt_panic_verdict *v, struct kt_err *err)
{
	struct kt_diff_opts opts = { .region = -1 };
	uint64_t compared;

	if (!set->ns || set->ns->memory_node == t->st->master_node)
		return 0;
	opts.node = set->ns->memory_node;
	return kt_diff_run(t, &opts, kt_panic_add_range, v, &compared, err);
}

static int range_at(const struct kt_panic_verdict *v, uint64_t addr,
		    unsigned int insn_max)
{
	size_t j;

	for (j = 0; j < v->nr_ranges; j++)
		if (addr + insn_max > v->ranges[j].va &&
		    addr < v->ranges[j].va + v->ranges[j].len)
			return (int)j;
	return -1;
}

void kt_panic_match(struct kt_target *t, struct kt_panic_verdict *v,
		    const uint64_t *addrs, int nr)
{
	unsigned int insn_max = t->arch->insn_align > 1 ?
					t->arch->insn_align :
					KT_INSN_MAX_VARIABLE;
	int i, k;

	v->nr_addrs = nr < KT_PANIC_MAX_ADDRS ? nr : KT_PANIC_MAX_ADDRS;
	v->ranges_hit = 0;
	for (i = 0; i < v->nr_addrs; i++) {
		v->addrs[i] = addrs[i];
		v->addr_range[i] = range_at(v, addrs[i], insn_max);
		/* a range the PC and a return address share counts once */
		for (k = 0; k < i && v->addr_range[i] >= 0; k++)
			if (v->addr_range[k] == v->addr_range[i])
				break;
		if (v->addr_range[i] >= 0 && k == i)
			v->ranges_hit++;
	}
	v->outcome = !v->nr_addrs     ? KT_PANIC_UNKNOWN :
		     v->ranges_hit ? KT_PANIC_DIVERGED :
				     KT_PANIC_NOT_DIVERGED;
}

void kt_panic_verdict_free(struct kt_panic_verdict *v)
{
	free(v->ranges);
	memset(v, 0, sizeof(*v));
}
