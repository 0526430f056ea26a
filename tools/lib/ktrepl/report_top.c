// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl-top's batch frames, plain and JSON (docs/man/ktrepl-top.8 shows
 * both; scripts and tests/vm/t05-top.py read the JSON), printed here like
 * every other report so that the tool itself only measures and sorts.
 */
#include <inttypes.h>

#include "report_top.h"

uint64_t kt_top_replica_overhead(const struct kt_state *st)
{
	uint64_t sum = 0;
	int i, replicas = 0;

	for (i = 0; i < st->nr_nodes; i++) {
		if (st->nodes[i].role != KT_ROLE_REPLICA)
			continue;
		sum += st->nodes[i].overhead;
		replicas++;
	}
	return replicas ? sum / replicas : 0;
}

void kt_top_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1ULL << 30)
		snprintf(buf, len, "%.1f GiB", bytes / (double)(1ULL << 30));
	else if (bytes >= 1ULL << 20)
		snprintf(buf, len, "%.1f MiB", bytes / (double)(1ULL << 20));
	else
		snprintf(buf, len, "%.1f KiB", bytes / 1024.0);
}

const char *kt_top_trust(const struct kt_loc_fidelity *f, char *buf, size_t len)
{
	if (!f->lossy && !f->slow)
		return "ok";
	snprintf(buf, len, "%s%s%s", f->lossy ? "lossy" : "",
		 f->lossy && f->slow ? "," : "", f->slow ? "slow" : "");
	return buf;
}

bool kt_top_cpu_rate_ok(const struct kt_locality *loc, int cpu,
			unsigned int rate_hz, uint64_t frame_ns)
{
	return kt_loc_cpu_hz(loc, cpu, frame_ns) >=
	       KT_LOC_MIN_RATE_SHARE * rate_hz;
}

static uint64_t fetches_samples(const struct kt_fetches *t)
{
	return t->local + t->remote + t->unresolved;
}

void kt_top_proc_describe(const struct kt_locality *loc,
			  const struct kt_state *st, struct kt_top_proc *row)
{
	const struct kt_loc_proc *p = row->p;
	struct kt_fetches t = kt_loc_proc_total(p);
	const struct kt_node_state *set;

	row->to_bind = kt_loc_proc_to_bind(loc, p, st->master_node);
	if (loc->rule == KT_RULE_PERCPU) {
		row->tables = "percpu";
		row->set_node = -1;
		return;
	}
	row->set_node = st->master_node;
	if (!p->on_set) {
		row->tables = "master";
		return;
	}
	set = kt_state_root_set(st, p->set_root);
	if (set)
		row->set_node = set->nid;
	row->tables = p->on_set >= t.local + t.remote + t.unresolved ? "node" :
								    "mixed";
}

/* "0,1": the nodes a process's samples came from */
void kt_top_proc_nodes(const struct kt_loc_proc *p, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < KT_NUMA_MAX_NODES && used + 1 < len; i++)
		if (fetches_samples(&p->by_node[i]))
			used += snprintf(buf + used, len - used, "%s%d",
					 used ? "," : "", i);
}

static bool frame_cpu_rate_ok(const struct kt_top_frame *f, int cpu)
{
	return kt_top_cpu_rate_ok(f->loc, cpu, f->rate_hz, f->frame_ns);
}


static void plain_header(FILE *fp, const struct kt_top_frame *f)
{
	const struct kt_locality *loc = f->loc;
	const struct kt_loc_fidelity *fid = f->fidelity;
	uint64_t replica_overhead = kt_top_replica_overhead(f->st);
	char overhead[32] = "-", trust[32];
	int nodes = f->have_module ? f->st->nr_nodes : loc->numa->nr_nodes;

	if (replica_overhead)
		kt_top_format_bytes(replica_overhead, overhead,
				    sizeof(overhead));
	fprintf(fp, "ktrepl-top frame %ld: activation=%s nodes=%d master_node=%d replica_overhead/node=%s patches=%" PRIu64 " missed=%" PRIu64 "\n",
		f->frame, kt_activation_name(f->st->activation), nodes,
		f->st->master_node, overhead, f->st->patches,
		f->st->patches_missed);
	fprintf(fp, "event=%s rate=%uHz achieved_min=%.0fHz achieved_mean=%.0fHz interval=%.2fs samples=%" PRIu64 " idle=%" PRIu64 " not_text=%" PRIu64 " on_node_tables=%" PRIu64 " lost=%" PRIu64 " lost_pct=%.2f throttles=%" PRIu64 " trust=%s\n",
		f->event, f->rate_hz, fid->min_hz, fid->mean_hz,
		f->frame_ns / 1e9, loc->samples, loc->idle, loc->not_text,
		loc->on_worker_tables, loc->lost, fid->lost_pct,
		loc->throttles, kt_top_trust(fid, trust, sizeof(trust)));
	if (f->warning && f->warning[0])
		fprintf(fp, "warning: %s\n", f->warning);
}

/* a local (or remote) share for a table cell, "-" without fetches */
static void pct_str(const struct kt_fetches *t, bool remote, char *buf,
		    size_t len)
{
	double pct = kt_fetches_local_pct(t);

	if (pct < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", remote ? 100.0 - pct : pct);
}

static void plain_procs(FILE *fp, const struct kt_top_frame *f)
{
	size_t k;

	fprintf(fp, "PROCESSES%s\n%7s %-16s %-8s %-6s %4s %8s %7s %7s %4s\n",
		f->loc->rule == KT_RULE_PERCPU ?
			" (percpu: every process runs on its CPU's node's set)" :
			" (BIND yes: it ran on one node, on the master's tables)",
		"PID", "COMM", "NODES", "TABLES", "SET", "SAMPLES", "LOCAL%",
		"REMOTE%", "BIND");
	for (k = 0; k < f->nr_procs; k++) {
		const struct kt_top_proc *row = &f->procs[k];
		struct kt_fetches t = kt_loc_proc_total(row->p);
		char nodes[64], l[16], r[16], set[16] = "-";

		kt_top_proc_nodes(row->p, nodes, sizeof(nodes));
		pct_str(&t, false, l, sizeof(l));
		pct_str(&t, true, r, sizeof(r));
		if (row->set_node >= 0)
			snprintf(set, sizeof(set), "%d", row->set_node);
		fprintf(fp, "%7u %-16s %-8s %-6s %4s %8" PRIu64 " %7s %7s %4s\n",
			row->p->pid, row->comm, nodes, row->tables, set,
			fetches_samples(&t), l, r, row->to_bind ? "yes" : "-");
	}
}

static void plain_frame(FILE *fp, const struct kt_top_frame *f)
{
	const struct kt_locality *loc = f->loc;
	size_t k;
	int i;

	plain_header(fp, f);
	fprintf(fp, "%4s %5s %8s %7s %7s %7s %7s %6s %5s\n", "NODE", "CPUS",
		"SAMPLES", "LOCAL%", "REMOTE%", "CORE_L%", "MOD_L%", "UNRES",
		"TRUST");
	for (i = 0; i < f->nr_nodes; i++) {
		const struct kt_loc_node *n = &loc->nodes[f->nodes[i]];
		struct kt_fetches t = kt_fetches_total(n->text);
		char l[16], r[16], c[16], m[16];

		if (!n->nr_cpus)
			continue;
		pct_str(&t, false, l, sizeof(l));
		pct_str(&t, true, r, sizeof(r));
		pct_str(&n->text[KT_TEXT_CORE], false, c, sizeof(c));
		pct_str(&n->text[KT_TEXT_MODULE], false, m, sizeof(m));
		fprintf(fp, "%4d %5d %8" PRIu64 " %7s %7s %7s %7s %6" PRIu64 " %5s\n",
			f->nodes[i], n->nr_cpus, fetches_samples(&t), l, r, c,
			m, t.unresolved, kt_fetches_enough(&t) ? "ok" : "few");
	}
	fprintf(fp, "%4s %5s %8s %7s %7s %7s %5s\n", "CPU", "NODE", "SAMPLES",
		"LOCAL%", "REMOTE%", "HZ", "TRUST");
	for (i = 0; i < f->nr_cpus; i++) {
		int cpu = f->cpus[i];
		struct kt_fetches t = kt_fetches_total(loc->cpus[cpu].text);
		char l[16], r[16];

		pct_str(&t, false, l, sizeof(l));
		pct_str(&t, true, r, sizeof(r));
		fprintf(fp, "%4d %5d %8" PRIu64 " %7s %7s %7.0f %5s\n", cpu,
			loc->numa->cpu_node[cpu], fetches_samples(&t), l, r,
			kt_loc_cpu_hz(loc, cpu, f->frame_ns),
			!frame_cpu_rate_ok(f, cpu) ? "slow" :
			kt_fetches_enough(&t) ? "ok" : "few");
	}
	fprintf(fp, "HOT REMOTE FUNCTIONS\n%8s %8s %5s  %s\n", "REMOTE",
		"LOCAL", "NODE", "FUNCTION");
	for (k = 0; k < f->nr_funcs; k++) {
		const struct kt_loc_func *fn = &loc->funcs[f->funcs[k]];

		fprintf(fp, "%8" PRIu64 " %8" PRIu64 " %5d  %s\n", fn->remote,
			fn->local, fn->node, fn->name);
	}
	if (f->procs)
		plain_procs(fp, f);
	fprintf(fp, "\n");
}

static void json_fetches(struct json_writer *jw, const struct kt_fetches *t)
{
	double pct = kt_fetches_local_pct(t);

	jsonw_uint_field(jw, "local", t->local);
	jsonw_uint_field(jw, "remote", t->remote);
	jsonw_uint_field(jw, "unresolved", t->unresolved);
	jsonw_name(jw, "local_pct");
	if (pct < 0)
		jsonw_null(jw);
	else
		jsonw_float(jw, pct);
}

/* the total over the text classes, then each class */
static void json_by_class(struct json_writer *jw,
			  const struct kt_fetches *by_class)
{
	struct kt_fetches t = kt_fetches_total(by_class);
	int c;

	jsonw_uint_field(jw, "samples", fetches_samples(&t));
	json_fetches(jw, &t);
	jsonw_bool_field(jw, "enough_samples", kt_fetches_enough(&t));
	for (c = 0; c < KT_TEXT_CLASSES; c++) {
		jsonw_name(jw, kt_text_class_names[c]);
		jsonw_start_object(jw);
		json_fetches(jw, &by_class[c]);
		jsonw_end_object(jw);
	}
}

static void json_header(struct json_writer *jw, const struct kt_top_frame *f)
{
	const struct kt_locality *loc = f->loc;
	const struct kt_loc_fidelity *fid = f->fidelity;

	jsonw_uint_field(jw, "version", KT_JSON_VERSION);
	jsonw_int_field(jw, "frame", f->frame);
	jsonw_float_field(jw, "interval_s", f->frame_ns / 1e9);
	jsonw_string_field(jw, "activation",
			   kt_activation_name(f->st->activation));
	jsonw_bool_field(jw, "module", f->have_module);
	jsonw_int_field(jw, "master_node", f->st->master_node);
	jsonw_uint_field(jw, "overhead_bytes", f->st->overhead);
	jsonw_uint_field(jw, "patches", f->st->patches);
	jsonw_uint_field(jw, "patches_missed", f->st->patches_missed);
	jsonw_string_field(jw, "event", f->event);
	jsonw_uint_field(jw, "rate_hz", f->rate_hz);
	jsonw_uint_field(jw, "samples", loc->samples);
	jsonw_uint_field(jw, "idle", loc->idle);
	jsonw_uint_field(jw, "not_text", loc->not_text);
	jsonw_uint_field(jw, "on_node_tables", loc->on_worker_tables);
	jsonw_uint_field(jw, "lost", loc->lost);
	jsonw_float_field(jw, "lost_pct", fid->lost_pct);
	jsonw_uint_field(jw, "throttles", loc->throttles);
	jsonw_name(jw, "achieved_hz");
	jsonw_start_object(jw);
	jsonw_float_field(jw, "min", fid->min_hz);
	jsonw_float_field(jw, "mean", fid->mean_hz);
	jsonw_int_field(jw, "min_cpu", fid->min_cpu);
	jsonw_end_object(jw);
	jsonw_bool_field(jw, "lossy", fid->lossy);
	jsonw_bool_field(jw, "slow", fid->slow);
	jsonw_bool_field(jw, "trusted", !fid->lossy && !fid->slow);
	if (f->warning && f->warning[0])
		jsonw_string_field(jw, "warning", f->warning);
}

static void json_procs(struct json_writer *jw, const struct kt_top_frame *f)
{
	size_t k;
	int i;

	jsonw_name(jw, "processes");
	jsonw_start_array(jw);
	for (k = 0; k < f->nr_procs; k++) {
		const struct kt_top_proc *row = &f->procs[k];
		struct kt_fetches t = kt_loc_proc_total(row->p);

		jsonw_start_object(jw);
		jsonw_uint_field(jw, "pid", row->p->pid);
		jsonw_string_field(jw, "comm", row->comm);
		jsonw_name(jw, "nodes");
		jsonw_start_array(jw);
		for (i = 0; i < KT_NUMA_MAX_NODES; i++)
			if (fetches_samples(&row->p->by_node[i]))
				jsonw_int(jw, i);
		jsonw_end_array(jw);
		jsonw_string_field(jw, "tables", row->tables);
		jsonw_int_field(jw, "set_node", row->set_node);
		jsonw_uint_field(jw, "samples", fetches_samples(&t));
		json_fetches(jw, &t);
		jsonw_name(jw, "by_node");
		jsonw_start_array(jw);
		for (i = 0; i < KT_NUMA_MAX_NODES; i++) {
			if (!fetches_samples(&row->p->by_node[i]))
				continue;
			jsonw_start_object(jw);
			jsonw_int_field(jw, "node", i);
			json_fetches(jw, &row->p->by_node[i]);
			jsonw_end_object(jw);
		}
		jsonw_end_array(jw);
		jsonw_bool_field(jw, "to_bind", row->to_bind);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

static void json_frame(struct json_writer *jw, const struct kt_top_frame *f)
{
	const struct kt_locality *loc = f->loc;
	size_t k;
	int i;

	jsonw_start_object(jw);
	json_header(jw, f);
	jsonw_name(jw, "nodes");
	jsonw_start_array(jw);
	for (i = 0; i < f->nr_nodes; i++) {
		const struct kt_loc_node *n = &loc->nodes[f->nodes[i]];

		if (!n->nr_cpus)
			continue;
		jsonw_start_object(jw);
		jsonw_int_field(jw, "node", f->nodes[i]);
		jsonw_int_field(jw, "memory_node",
				loc->numa->memory_node[f->nodes[i]]);
		jsonw_int_field(jw, "cpus", n->nr_cpus);
		json_by_class(jw, n->text);
		jsonw_name(jw, "on_sets");
		jsonw_start_object(jw);
		json_by_class(jw, n->on_sets);
		jsonw_end_object(jw);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_name(jw, "cpus");
	jsonw_start_array(jw);
	for (i = 0; i < f->nr_cpus; i++) {
		int cpu = f->cpus[i];

		jsonw_start_object(jw);
		jsonw_int_field(jw, "cpu", cpu);
		jsonw_int_field(jw, "node", loc->numa->cpu_node[cpu]);
		jsonw_float_field(jw, "achieved_hz",
				  kt_loc_cpu_hz(loc, cpu, f->frame_ns));
		jsonw_bool_field(jw, "rate_ok", frame_cpu_rate_ok(f, cpu));
		json_by_class(jw, loc->cpus[cpu].text);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_name(jw, "hot_remote_functions");
	jsonw_start_array(jw);
	for (k = 0; k < f->nr_funcs; k++) {
		const struct kt_loc_func *fn = &loc->funcs[f->funcs[k]];

		jsonw_start_object(jw);
		jsonw_string_field(jw, "function", fn->name);
		jsonw_hex_field(jw, "addr", fn->addr);
		jsonw_uint_field(jw, "remote", fn->remote);
		jsonw_uint_field(jw, "local", fn->local);
		jsonw_int_field(jw, "node", fn->node);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	if (f->procs)
		json_procs(jw, f);
	jsonw_end_object(jw);
}

void kt_report_top_frame(struct kt_out *out, const struct kt_top_frame *f)
{
	if (out->jw)
		json_frame(out->jw, f);
	else
		plain_frame(out->fp, f);
}
