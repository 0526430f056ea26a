// SPDX-License-Identifier: GPL-2.0
/* Per-node kernel text fetch locality from sampled IPs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality.h"

const char *const kt_text_class_names[KT_TEXT_CLASSES] = {
	[KT_TEXT_CORE] = "core",
	[KT_TEXT_MODULE] = "module",
	[KT_TEXT_OTHER] = "other",
};

void kt_loc_init(struct kt_locality *loc)
{
	int i;

	for (i = 0; i < KT_NUMA_MAX_NODES; i++)
		loc->nodes[i].nr_history = 0;
	loc->sym_cache_of = NULL;	/* sym_of() clears it first */
	kt_loc_begin_frame(loc);
}

void kt_loc_free(struct kt_locality *loc)
{
	free(loc->modules);
	free(loc->workers);
	free(loc->funcs);
	free(loc->func_hash);
	free(loc->procs);
	free(loc->proc_hash);
	loc->modules = NULL;
	loc->workers = NULL;
	loc->funcs = NULL;
	loc->func_hash = NULL;
	loc->procs = NULL;
	loc->proc_hash = NULL;
	loc->nr_modules = loc->nr_workers = loc->nr_funcs = 0;
	loc->funcs_cap = loc->func_hash_cap = 0;
	loc->nr_procs = loc->procs_cap = loc->proc_hash_cap = 0;
}

int kt_loc_set_rule(struct kt_locality *loc, const struct kt_state *st,
		    struct kt_err *err)
{
	struct kt_loc_worker *w = NULL;
	size_t i, nr;
	int n;

	loc->master_root_pa = st->master_root_pa;
	if (st->activation == KT_ACT_PERCPU) {
		loc->rule = KT_RULE_PERCPU;
		for (n = 0; n < KT_NUMA_MAX_NODES; n++)
			loc->node_root_pa[n] = st->master_root_pa;
		for (i = 0; i < (size_t)st->nr_nodes; i++)
			if (st->nodes[i].nid >= 0 &&
			    st->nodes[i].nid < KT_NUMA_MAX_NODES &&
			    st->nodes[i].root_pa)
				loc->node_root_pa[st->nodes[i].nid] =
					st->nodes[i].root_pa;
	} else if (st->activation == KT_ACT_WORKLOAD ||
		   st->activation == KT_ACT_MM) {
		loc->rule = KT_RULE_WORKLOAD;
	} else {
		loc->rule = KT_RULE_MASTER;
	}
	nr = st->nr_tasks + st->nr_bound + st->nr_bound_past;
	if (nr) {
		w = calloc(nr, sizeof(*w));
		if (!w)
			return kt_err_set(err, ENOMEM, "out of memory");
	}
	for (i = 0; i < st->nr_tasks; i++)
		w[i] = (struct kt_loc_worker){
			.tid = st->tasks[i].pid,
			.root_pa = st->tasks[i].expected_root_pa,
			.since_ns = st->tasks[i].since_ns,
		};
	/* a bound process: every thread of it, once the binding settled */
	for (i = 0; i < st->nr_bound; i++)
		w[st->nr_tasks + i] = (struct kt_loc_worker){
			.tid = st->bound[i].pid,
			.by_pid = true,
			.root_pa = st->bound[i].root_pa,
			.since_ns = st->bound[i].since_ns,
		};
	/* and for the time they were bound, those that are not any more */
	for (i = 0; i < st->nr_bound_past; i++)
		w[st->nr_tasks + st->nr_bound + i] = (struct kt_loc_worker){
			.tid = st->bound_past[i].pid,
			.by_pid = true,
			.root_pa = st->bound_past[i].root_pa,
			.since_ns = st->bound_past[i].since_ns,
			.until_ns = st->bound_past[i].until_ns,
		};
	free(loc->workers);
	loc->workers = w;
	loc->nr_workers = nr;
	return 0;
}

int kt_loc_load_modules(struct kt_locality *loc, const char *path,
			struct kt_err *err)
{
	struct kt_text_range *mods = NULL;
	size_t nr = 0;
	char line[1024];
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long size, addr;
		char name[256], *at;
		struct kt_text_range *grown;

		/* name size refcount deps state address */
		if (sscanf(line, "%255s %llu", name, &size) != 2)
			continue;
		at = strstr(line, " 0x");
		if (!at || sscanf(at, " 0x%llx", &addr) != 1 || !addr)
			continue;	/* hidden without root: 0x0 */
		grown = realloc(mods, (nr + 1) * sizeof(*mods));
		if (!grown) {
			free(mods);
			fclose(f);
			return kt_err_set(err, ENOMEM, "out of memory");
		}
		mods = grown;
		mods[nr++] = (struct kt_text_range){ addr, addr + size };
	}
	fclose(f);
	free(loc->modules);
	loc->modules = mods;
	loc->nr_modules = nr;
	return 0;
}

enum kt_text_class kt_loc_classify(const struct kt_locality *loc, uint64_t ip,
				   bool *is_text)
{
	size_t i;

	*is_text = true;
	if (ip >= loc->core.start && ip < loc->core.end)
		return KT_TEXT_CORE;
	for (i = 0; i < loc->nr_modules; i++)
		if (ip >= loc->modules[i].start && ip < loc->modules[i].end)
			return KT_TEXT_MODULE;
	/* init text, the entry trampoline, BPF and ftrace trampolines */
	*is_text = ip >= (1ULL << 63);
	return KT_TEXT_OTHER;
}

uint64_t kt_loc_root(const struct kt_locality *loc, const struct kt_sample *s)
{
	size_t i;
	int node;

	switch (loc->rule) {
	case KT_RULE_PERCPU:
		node = s->cpu >= 0 && s->cpu < KT_NUMA_MAX_CPUS ?
			       loc->numa->cpu_node[s->cpu] : -1;
		return node >= 0 ? loc->node_root_pa[node] : loc->master_root_pa;
	case KT_RULE_WORKLOAD:
		for (i = 0; i < loc->nr_workers; i++)
			if ((loc->workers[i].by_pid ? s->pid : s->tid) ==
				    loc->workers[i].tid &&
			    s->time >= loc->workers[i].since_ns &&
			    (!loc->workers[i].until_ns ||
			     s->time < loc->workers[i].until_ns))
				return loc->workers[i].root_pa;
		return loc->master_root_pa;
	default:
		return loc->master_root_pa;
	}
}

/* the node of the page ip executes from, through root; -1 if none */
static int fetch_node(struct kt_locality *loc, uint64_t root, uint64_t ip)
{
	uint64_t page = (ip >> 12) + 1;
	size_t slot = ((root >> 12) * 0x9e3779b97f4a7c15ULL ^ page) %
		      KT_LOC_CACHE_SIZE;
	struct kt_loc_cache_entry *e = &loc->cache[slot];
	struct kt_mapping m;
	struct kt_err err;

	if (e->page == page && e->root_pa == root)
		return e->node;
	kt_err_clear(&err);
	e->root_pa = root;
	e->page = page;
	if (kt_translate(loc->arch, &loc->geo, loc->src, root, ip, &m, &err) ||
	    !m.present)
		e->node = -1;
	else
		e->node = kt_numa_pa_node(loc->numa, m.pa);
	return e->node;
}

static size_t func_slot(uint64_t addr, size_t cap)
{
	return (addr * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
}

/*
 * An open-addressed index of nr entries (index + 1 per slot, 0 empty),
 * keyed by key_of(i), grown to cap slots: for functions and processes.
 */
static int index_rehash(uint32_t **index, size_t *index_cap, size_t cap,
			size_t nr, uint64_t (*key_of)(const void *, size_t),
			const void *entries)
{
	uint32_t *hash = calloc(cap, sizeof(*hash));
	size_t i;

	if (!hash)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		size_t s = func_slot(key_of(entries, i), cap);

		while (hash[s])
			s = (s + 1) & (cap - 1);
		hash[s] = i + 1;
	}
	free(*index);
	*index = hash;
	*index_cap = cap;
	return 0;
}

static uint64_t func_key(const void *funcs, size_t i)
{
	return ((const struct kt_loc_func *)funcs)[i].addr;
}

static uint64_t proc_key(const void *procs, size_t i)
{
	return ((const struct kt_loc_proc *)procs)[i].pid;
}

static int func_rehash(struct kt_locality *loc, size_t cap)
{
	return index_rehash(&loc->func_hash, &loc->func_hash_cap, cap,
			    loc->nr_funcs, func_key, loc->funcs);
}

static struct kt_loc_proc *proc_get(struct kt_locality *loc, uint32_t pid)
{
	struct kt_loc_proc *p;
	size_t s;

	if (loc->nr_procs * 2 >= loc->proc_hash_cap &&
	    index_rehash(&loc->proc_hash, &loc->proc_hash_cap,
			 loc->proc_hash_cap ? loc->proc_hash_cap * 2 : 256,
			 loc->nr_procs, proc_key, loc->procs))
		return NULL;
	s = func_slot(pid, loc->proc_hash_cap);
	while (loc->proc_hash[s]) {
		p = &loc->procs[loc->proc_hash[s] - 1];
		if (p->pid == pid)
			return p;
		s = (s + 1) & (loc->proc_hash_cap - 1);
	}
	if (loc->nr_procs == loc->procs_cap) {
		size_t cap = loc->procs_cap ? loc->procs_cap * 2 : 64;
		struct kt_loc_proc *grown;

		grown = realloc(loc->procs, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		loc->procs = grown;
		loc->procs_cap = cap;
	}
	p = &loc->procs[loc->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	loc->proc_hash[s] = ++loc->nr_procs;
	return p;
}

struct kt_fetches kt_loc_proc_total(const struct kt_loc_proc *p)
{
	return kt_fetches_total_n(p->by_node, KT_NUMA_MAX_NODES);
}

int kt_loc_proc_nodes(const struct kt_loc_proc *p, int *only)
{
	int i, n = 0;

	*only = -1;
	for (i = 0; i < KT_NUMA_MAX_NODES; i++) {
		const struct kt_fetches *f = &p->by_node[i];

		if (f->local + f->remote + f->unresolved) {
			n++;
			*only = i;
		}
	}
	if (n != 1)
		*only = -1;
	return n;
}

bool kt_loc_proc_to_bind(const struct kt_locality *loc,
			 const struct kt_loc_proc *p, int master_node)
{
	struct kt_fetches t = kt_loc_proc_total(p);
	int only;

	if (loc->rule == KT_RULE_PERCPU || p->on_set || !t.remote ||
	    kt_loc_proc_nodes(p, &only) != 1)
		return false;
	return loc->numa->memory_node[only] != master_node;
}

/*
 * A binary search of kallsyms per sample was a sixth of ktrepl-top's own
 * time under TCG; the ips a frame samples are few.
 */
static const struct kt_sym *sym_of(struct kt_locality *loc, uint64_t ip,
				   uint64_t *off)
{
	struct kt_loc_sym_entry *e;

	if (loc->sym_cache_of != loc->syms) {
		memset(loc->sym_cache, 0, sizeof(loc->sym_cache));
		loc->sym_cache_of = loc->syms;
	}
	e = &loc->sym_cache[func_slot(ip, KT_LOC_SYM_CACHE_SIZE)];
	if (!ip || e->ip != ip) {
		e->off = 0;
		e->sym = kt_symtab_lookup(loc->syms, ip, &e->off);
		e->ip = ip;
	}
	*off = e->off;
	return e->sym;
}

static struct kt_loc_func *func_get(struct kt_locality *loc, uint64_t ip)
{
	const struct kt_sym *sym = NULL;
	struct kt_loc_func *f;
	uint64_t addr, off = 0;
	size_t s;

	if (loc->syms)
		sym = sym_of(loc, ip, &off);
	/* past 1 MiB from a symbol is not that symbol's code */
	if (sym && off >= (1 << 20))
		sym = NULL;
	addr = sym ? sym->addr : ip & ~0xfffULL;
	if (loc->nr_funcs * 2 >= loc->func_hash_cap &&
	    func_rehash(loc, loc->func_hash_cap ? loc->func_hash_cap * 2 : 1024))
		return NULL;
	s = func_slot(addr, loc->func_hash_cap);
	while (loc->func_hash[s]) {
		f = &loc->funcs[loc->func_hash[s] - 1];
		if (f->addr == addr)
			return f;
		s = (s + 1) & (loc->func_hash_cap - 1);
	}
	if (loc->nr_funcs == loc->funcs_cap) {
		size_t cap = loc->funcs_cap ? loc->funcs_cap * 2 : 256;
		struct kt_loc_func *grown;

		grown = realloc(loc->funcs, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		loc->funcs = grown;
		loc->funcs_cap = cap;
	}
	f = &loc->funcs[loc->nr_funcs];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->node = -1;
	if (sym)
		snprintf(f->name, sizeof(f->name), "%s", sym->name);
	else
		snprintf(f->name, sizeof(f->name), "0x%" PRIx64, addr);
	loc->func_hash[s] = ++loc->nr_funcs;
	return f;
}

void kt_loc_add(struct kt_locality *loc, const struct kt_sample *s)
{
	enum kt_text_class cls;
	struct kt_fetches *nf, *cf, *sf, *pf_node, unused = { 0 };
	struct kt_loc_proc *pf;
	struct kt_loc_func *f;
	int cpu_node, home, page_node;
	uint64_t root;
	bool is_text;

	loc->samples++;
	if (s->cpu >= 0 && s->cpu < KT_NUMA_MAX_CPUS)
		loc->cpus[s->cpu].samples++;
	if (s->tid == 0) {
		loc->idle++;
		return;
	}
	cls = kt_loc_classify(loc, s->ip, &is_text);
	if (!is_text || s->cpu < 0 || s->cpu >= KT_NUMA_MAX_CPUS ||
	    loc->numa->cpu_node[s->cpu] < 0) {
		loc->not_text++;
		return;
	}
	cpu_node = loc->numa->cpu_node[s->cpu];
	home = loc->numa->memory_node[cpu_node];
	root = kt_loc_root(loc, s);
	if (root != loc->master_root_pa)
		loc->on_worker_tables++;
	page_node = fetch_node(loc, root, s->ip);
	pf = proc_get(loc, s->pid);
	if (pf && root != loc->master_root_pa) {
		pf->on_set++;
		pf->set_root = root;
	}
	pf_node = pf ? &pf->by_node[cpu_node] : &unused;
	nf = &loc->nodes[cpu_node].text[cls];
	cf = &loc->cpus[s->cpu].text[cls];
	sf = root != loc->master_root_pa ?
		     &loc->nodes[cpu_node].on_sets[cls] : &unused;
	if (page_node < 0) {
		nf->unresolved++;
		cf->unresolved++;
		sf->unresolved++;
		pf_node->unresolved++;
		return;
	}
	f = func_get(loc, s->ip);
	if (page_node == home) {
		nf->local++;
		cf->local++;
		sf->local++;
		pf_node->local++;
		if (f)
			f->local++;
		return;
	}
	nf->remote++;
	cf->remote++;
	sf->remote++;
	pf_node->remote++;
	if (f) {
		f->remote++;
		f->node_remote[cpu_node]++;
		if (f->node < 0 || f->node_remote[cpu_node] > f->node_remote[f->node])
			f->node = cpu_node;
	}
}

void kt_loc_add_fn(const struct kt_sample *s, void *loc)
{
	kt_loc_add(loc, s);
}

struct kt_fetches kt_fetches_total_n(const struct kt_fetches *f, int n)
{
	struct kt_fetches t = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		t.local += f[i].local;
		t.remote += f[i].remote;
		t.unresolved += f[i].unresolved;
	}
	return t;
}

struct kt_fetches kt_fetches_total(const struct kt_fetches *by_class)
{
	return kt_fetches_total_n(by_class, KT_TEXT_CLASSES);
}

double kt_fetches_local_pct(const struct kt_fetches *f)
{
	uint64_t n = f->local + f->remote;

	return n ? 100.0 * f->local / n : -1;
}

double kt_loc_cpu_hz(const struct kt_locality *loc, int cpu,
		     uint64_t frame_ns)
{
	if (!frame_ns || cpu < 0 || cpu >= KT_NUMA_MAX_CPUS)
		return 0;
	return loc->cpus[cpu].samples * 1e9 / frame_ns;
}

void kt_loc_fidelity(const struct kt_locality *loc, unsigned int rate_hz,
		     uint64_t frame_ns, struct kt_loc_fidelity *f)
{
	uint64_t all = loc->samples + loc->lost;
	double sum = 0;
	int cpu, n = 0;

	memset(f, 0, sizeof(*f));
	f->requested_hz = rate_hz;
	f->min_cpu = -1;
	for (cpu = 0; cpu < loc->numa->nr_cpus && cpu < KT_NUMA_MAX_CPUS;
	     cpu++) {
		double hz;

		if (loc->numa->cpu_node[cpu] < 0)
			continue;
		hz = kt_loc_cpu_hz(loc, cpu, frame_ns);
		if (f->min_cpu < 0 || hz < f->min_hz) {
			f->min_hz = hz;
			f->min_cpu = cpu;
		}
		sum += hz;
		n++;
	}
	if (n)
		f->mean_hz = sum / n;
	f->lost_pct = all ? 100.0 * loc->lost / all : 0;
	f->lossy = f->lost_pct > KT_LOC_MAX_LOST_PCT;
	f->slow = n && f->min_hz < KT_LOC_MIN_RATE_SHARE * rate_hz;
}

bool kt_fetches_enough(const struct kt_fetches *f)
{
	return f->local + f->remote >= KT_LOC_MIN_SAMPLES;
}

void kt_loc_end_frame(struct kt_locality *loc)
{
	int i;

	for (i = 0; i < loc->numa->nr_nodes && i < KT_NUMA_MAX_NODES; i++) {
		struct kt_loc_node *n = &loc->nodes[i];
		struct kt_fetches t = kt_fetches_total(n->text);

		if (n->nr_history == KT_LOC_HISTORY) {
			memmove(n->history, n->history + 1,
				(KT_LOC_HISTORY - 1) * sizeof(n->history[0]));
			n->nr_history--;
		}
		n->history[n->nr_history++] = kt_fetches_local_pct(&t);
	}
}

void kt_loc_begin_frame(struct kt_locality *loc)
{
	int i;

	for (i = 0; i < KT_NUMA_MAX_NODES; i++) {
		memset(loc->nodes[i].text, 0, sizeof(loc->nodes[i].text));
		memset(loc->nodes[i].on_sets, 0, sizeof(loc->nodes[i].on_sets));
		loc->nodes[i].nr_cpus = 0;
	}
	memset(loc->cpus, 0, sizeof(loc->cpus));
	if (loc->numa)
		for (i = 0; i < loc->numa->nr_cpus; i++)
			if (loc->numa->cpu_node[i] >= 0)
				loc->nodes[loc->numa->cpu_node[i]].nr_cpus++;
	loc->nr_funcs = 0;
	if (loc->func_hash)
		memset(loc->func_hash, 0,
		       loc->func_hash_cap * sizeof(*loc->func_hash));
	loc->nr_procs = 0;
	if (loc->proc_hash)
		memset(loc->proc_hash, 0,
		       loc->proc_hash_cap * sizeof(*loc->proc_hash));
	memset(loc->cache, 0, sizeof(loc->cache));
	loc->samples = loc->idle = loc->not_text = loc->lost = 0;
	loc->throttles = 0;
	loc->on_worker_tables = 0;
}
