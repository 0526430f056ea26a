// SPDX-License-Identifier: GPL-2.0
/*
 * The report in three forms, one content: the machine, then per
 * benchmark one table in the seeds' layout (rows before, after and
 * difference; one column per node) and a verdict line. Plain for a
 * terminal, -j JSON, --markdown for a mailing-list reply.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "json_writer.h"

static bool progress_shown, progress_lines;

void bench_progress_always(void)
{
	progress_lines = true;
}

/*
 * On a terminal one line, rewritten in place; elsewhere (--progress) a
 * line each, with the time since the run began, for a log to follow.
 */
void bench_progress(const char *fmt, ...)
{
	static double start = -1;
	bool tty = isatty(STDERR_FILENO);
	va_list ap;

	if (start < 0)
		start = bench_now_s();
	if (!tty && !progress_lines)
		return;
	if (tty)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "ktrepl-bench: %.0f s: ", bench_now_s() - start);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (!tty)
		fputc('\n', stderr);
	fflush(stderr);
	progress_shown = tty;
}

void bench_progress_end(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = false;
}

static const char *NO_DIFF = "no significant difference";

/* "-8.5% +-1.2%", or the words where the paired interval holds 0 */
static void diff_cell(const struct bench_node_result *n, char *buf, size_t len,
		      const char *pm)
{
	if (!n->before.valid || !n->after.valid)
		snprintf(buf, len, "too few runs");
	else if (!n->significant)
		snprintf(buf, len, "%s", NO_DIFF);
	else
		snprintf(buf, len, "%+.1f%% %s%.1f%%", n->diff_pct, pm,
			 n->ci_pct);
}

static void distances(FILE *fp, const struct bench_machine *m, bool md)
{
	int i, j;

	for (i = 0; i < m->nr_nodes; i++) {
		fprintf(fp, md ? "- node %d (CPUs %s, %llu MiB): distances" :
				 "  node %d: CPUs %s, %llu MiB, distances",
			m->nodes[i], m->node_cpus[i][0] ? m->node_cpus[i] : "none",
			(unsigned long long)(m->node_mem_kb[i] / 1024));
		for (j = 0; j < m->nr_nodes; j++)
			fprintf(fp, " %d", m->distance[i][j]);
		fputc('\n', fp);
	}
}

static void machine_text(FILE *fp, const struct bench_machine *m, bool md)
{
	if (md)
		fprintf(fp, "**Machine:** %s, %d nodes, kernel %s (%s)%s%s%s\n\n",
			m->cpu_model, m->nr_nodes, m->kernel, m->arch,
			m->hypervisor[0] ? ", under " : "", m->hypervisor,
			m->emulated ? ", **emulated**" : "");
	else
		fprintf(fp, "machine: %s, %d nodes, kernel %s (%s)%s%s%s\n",
			m->cpu_model, m->nr_nodes, m->kernel, m->arch,
			m->hypervisor[0] ? ", under " : "", m->hypervisor,
			m->emulated ? ", EMULATED" : "");
	distances(fp, m, md);
	fputc('\n', fp);
}

/* syscalls tables in microseconds, text's in milliseconds */
static double unit_div(const struct bench_result *r)
{
	return r->syscall ? 1e3 : 1e6;
}

static const char *unit_name(const struct bench_result *r)
{
	return r->syscall ? "us" : "ms";
}

static void method_line(FILE *fp, const struct bench_result *r)
{
	if (r->syscall) {
		fprintf(fp, "%s: %s, %u iteration%s%s; %s; %zu runs per arm per node, alternating %s; median and its 95%% CI (order statistics); %.0f s%s\n",
			r->name, r->unit_desc, r->iterations,
			r->iterations == 1 ? "" : "s",
			r->iterations > 1 && r->iterations < 1024 ?
			" (--quick: 1024 otherwise)" : "",
			r->cold ? "cold" : "hot",
			r->rounds, r->control ?
			"off/off (control: replication off in both)" : "off/on",
			r->seconds, r->time_limited ?
			"; cut by the run's time limit before the CI bound" : "");
		if (r->cold)
			fprintf(fp, "  cold: %.1f MiB written at a 64-byte stride just before%s\n",
				r->evict_bytes / 1048576.0, r->evict_assumed ?
				" (no cache size in sysfs: 32 MiB assumed)" :
				" (twice the last-level cache)");
		else
			fprintf(fp, "  hot: one untimed iteration just before\n");
		if (r->activation[0])
			fprintf(fp, "  on: ktrepl.ko activation=%s\n",
				r->activation);
		return;
	}
	fprintf(fp, "%s: %.1f MiB of straight-line code, %u passes per run; %zu runs per arm per node, alternating %s; median and its 95%% CI (order statistics); %.0f s%s\n",
		r->name, r->text_bytes / 1048576.0, r->iterations, r->rounds,
		r->control ? "off/off (control: replication off in both)" :
			     "off/on",
		r->seconds, r->time_limited ?
		"; cut by the run's time limit before the CI bound" : "");
	if (r->activation[0])
		fprintf(fp, "  on: ktrepl.ko activation=%s\n", r->activation);
}

static void table_plain(FILE *fp, const struct bench_result *r)
{
	char cell[64];
	int i;

	fprintf(fp, "%-14s", "");
	for (i = 0; i < r->nr_nodes; i++) {
		snprintf(cell, sizeof(cell), "node %d", r->nodes[i].node);
		fprintf(fp, " %26s", cell);
	}
	fputc('\n', fp);
	snprintf(cell, sizeof(cell), "before (%s)", unit_name(r));
	fprintf(fp, "%-14s", cell);
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(fp, " %26.3f", r->nodes[i].before.median / unit_div(r));
	fputc('\n', fp);
	snprintf(cell, sizeof(cell), "after (%s)", unit_name(r));
	fprintf(fp, "%-14s", cell);
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(fp, " %26.3f", r->nodes[i].after.median / unit_div(r));
	fputc('\n', fp);
	fprintf(fp, "%-14s", "difference");
	for (i = 0; i < r->nr_nodes; i++) {
		diff_cell(&r->nodes[i], cell, sizeof(cell), "+-");
		fprintf(fp, " %26s", cell);
	}
	fputc('\n', fp);
}

static void table_markdown(FILE *fp, const struct bench_result *r)
{
	char cell[64];
	int i;

	fputs("| |", fp);
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(fp, " node %d |", r->nodes[i].node);
	fputs("\n|---|", fp);
	for (i = 0; i < r->nr_nodes; i++)
		fputs("---|", fp);
	fprintf(fp, "\n| before (%s) |", unit_name(r));
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(fp, " %.3f |", r->nodes[i].before.median / unit_div(r));
	fprintf(fp, "\n| after (%s) |", unit_name(r));
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(fp, " %.3f |", r->nodes[i].after.median / unit_div(r));
	fputs("\n| difference |", fp);
	for (i = 0; i < r->nr_nodes; i++) {
		diff_cell(&r->nodes[i], cell, sizeof(cell), "± ");
		fprintf(fp, " %s |", cell);
	}
	fputs("\n", fp);
}

/* the spread behind each median: its 95% interval */
static void intervals(FILE *fp, const struct bench_result *r)
{
	double d = unit_div(r);
	int i;

	fprintf(fp, "\n95%% CI of the medians (%s):", unit_name(r));
	for (i = 0; i < r->nr_nodes; i++) {
		const struct bench_node_result *n = &r->nodes[i];

		if (!n->before.valid || !n->after.valid) {
			fprintf(fp, "%s node %d none (fewer than 6 runs)",
				i ? ";" : "", n->node);
			continue;
		}
		fprintf(fp, "%s node %d before %.3f..%.3f, after %.3f..%.3f",
			i ? ";" : "", n->node, n->before.lo / d,
			n->before.hi / d, n->after.lo / d, n->after.hi / d);
	}
	fputc('\n', fp);
}

static void ci_pair(struct json_writer *jw, const char *name,
		    const struct bench_ci *ci)
{
	jsonw_name(jw, name);
	if (!ci->valid) {
		jsonw_null(jw);
		return;
	}
	jsonw_start_array(jw);
	jsonw_float(jw, ci->lo);
	jsonw_float(jw, ci->hi);
	jsonw_end_array(jw);
}

static void json_machine(struct json_writer *jw, const struct bench_machine *m)
{
	int i, j;

	jsonw_name(jw, "machine");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "cpu_model", m->cpu_model);
	jsonw_string_field(jw, "arch", m->arch);
	jsonw_string_field(jw, "kernel", m->kernel);
	jsonw_name(jw, "hypervisor");
	if (m->hypervisor[0])
		jsonw_string(jw, m->hypervisor);
	else
		jsonw_null(jw);
	jsonw_bool_field(jw, "emulated", m->emulated);
	jsonw_name(jw, "nodes");
	jsonw_start_array(jw);
	for (i = 0; i < m->nr_nodes; i++) {
		jsonw_start_object(jw);
		jsonw_int_field(jw, "node", m->nodes[i]);
		jsonw_string_field(jw, "cpus", m->node_cpus[i]);
		jsonw_uint_field(jw, "memory_kb", m->node_mem_kb[i]);
		jsonw_name(jw, "distance");
		jsonw_start_array(jw);
		for (j = 0; j < m->nr_nodes; j++)
			jsonw_int(jw, m->distance[i][j]);
		jsonw_end_array(jw);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
}

static void json_float_or_null(struct json_writer *jw, const char *name,
			       double v, bool valid)
{
	jsonw_name(jw, name);
	if (valid && isfinite(v))
		jsonw_float(jw, v);
	else
		jsonw_null(jw);
}

static void json_result(struct json_writer *jw, const struct bench_result *r,
			bool emulated)
{
	int i;

	jsonw_start_object(jw);
	jsonw_string_field(jw, "name", r->name);
	if (r->syscall) {
		jsonw_string_field(jw, "operation", r->unit_desc);
		jsonw_bool_field(jw, "cold", r->cold);
		jsonw_uint_field(jw, "evict_bytes", r->evict_bytes);
		jsonw_bool_field(jw, "evict_assumed", r->evict_assumed);
	} else {
		jsonw_uint_field(jw, "text_bytes", r->text_bytes);
	}
	jsonw_uint_field(jw, "iterations", r->iterations);
	jsonw_uint_field(jw, "runs", r->rounds);
	jsonw_bool_field(jw, "control", r->control);
	jsonw_name(jw, "activation");
	if (r->activation[0])
		jsonw_string(jw, r->activation);
	else
		jsonw_null(jw);
	jsonw_bool_field(jw, "time_limited", r->time_limited);
	jsonw_float_field(jw, "seconds", r->seconds);
	jsonw_bool_field(jw, "emulated", emulated);
	jsonw_name(jw, "nodes");
	jsonw_start_array(jw);
	for (i = 0; i < r->nr_nodes; i++) {
		const struct bench_node_result *n = &r->nodes[i];
		bool valid = n->before.valid && n->after.valid;

		jsonw_start_object(jw);
		jsonw_int_field(jw, "node", n->node);
		jsonw_float_field(jw, "before_ns", n->before.median);
		jsonw_float_field(jw, "after_ns", n->after.median);
		jsonw_float_field(jw, "diff_pct", n->diff_pct);
		json_float_or_null(jw, "ci_pct", n->ci_pct, valid);
		jsonw_bool_field(jw, "significant", n->significant);
		jsonw_uint_field(jw, "samples", n->samples);
		ci_pair(jw, "before_ci_ns", &n->before);
		ci_pair(jw, "after_ci_ns", &n->after);
		json_float_or_null(jw, "diff_lo_pct", n->diff_lo_pct, valid);
		json_float_or_null(jw, "diff_hi_pct", n->diff_hi_pct, valid);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_string_field(jw, "verdict", r->verdict);
	jsonw_end_object(jw);
}

void bench_costs_verdict(const struct bench_machine *m,
			 const struct bench_costs *c, char *buf, size_t len)
{
	if (c->control)
		snprintf(buf, len, "control (ktrepl.ko in neither arm): each second figure against the first is the noise alone%s",
			 m->emulated ? "; EMULATED: the times mean nothing on hardware" : "");
	else if (m->emulated)
		snprintf(buf, len, "EMULATED (%s): the times mean nothing about replication on hardware; the memory figures hold",
			 m->hypervisor);
	else
		snprintf(buf, len, "one measurement each (medians where repeated), no comparison");
}

static void json_costs(struct json_writer *jw, const struct bench_machine *m,
		       const struct bench_costs *c)
{
	char verdict[256];
	size_t i;
	int n;

	jsonw_name(jw, "costs");
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "emulated", m->emulated);
	jsonw_bool_field(jw, "control", c->control);
	jsonw_name(jw, "activation");
	if (c->activation[0])
		jsonw_string(jw, c->activation);
	else
		jsonw_null(jw);
	jsonw_float_field(jw, "seconds", c->seconds);
	jsonw_int_field(jw, "loads", c->reps_done);
	jsonw_bool_field(jw, "time_limited", c->time_limited);
	jsonw_name(jw, "memory");
	jsonw_start_object(jw);
	jsonw_name(jw, "reason");
	if (c->mem_reason[0])
		jsonw_string(jw, c->mem_reason);
	else
		jsonw_null(jw);
	jsonw_name(jw, "nodes");
	jsonw_start_array(jw);
	for (n = 0; !c->mem_reason[0] && n < c->nr_mem; n++) {
		const struct bench_mem_node *k = &c->mem[n];

		jsonw_start_object(jw);
		jsonw_int_field(jw, "node", k->node);
		jsonw_string_field(jw, "role", k->role);
		jsonw_uint_field(jw, "text_bytes", k->text);
		jsonw_uint_field(jw, "rodata_bytes", k->rodata);
		jsonw_uint_field(jw, "module_bytes", k->modules);
		jsonw_uint_field(jw, "table_bytes", k->tables);
		jsonw_uint_field(jw, "total_bytes", k->total);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	for (i = 0; i < c->nr; i++) {
		const struct bench_cost *k = &c->c[i];

		jsonw_name(jw, k->name);
		jsonw_start_object(jw);
		jsonw_name(jw, "value");
		if (k->reason[0])
			jsonw_null(jw);
		else
			jsonw_float(jw, k->value);
		jsonw_string_field(jw, "unit", k->unit);
		jsonw_name(jw, "reason");
		if (k->reason[0])
			jsonw_string(jw, k->reason);
		else
			jsonw_null(jw);
		jsonw_end_object(jw);
	}
	bench_costs_verdict(m, c, verdict, sizeof(verdict));
	jsonw_string_field(jw, "verdict", verdict);
	jsonw_end_object(jw);
}

static void cost_value(char *buf, size_t len, const struct bench_cost *k)
{
	if (k->reason[0])
		snprintf(buf, len, "not measured: %s", k->reason);
	else if (!strcmp(k->unit, "ratio"))
		snprintf(buf, len, "%.3f", k->value);
	else if (k->value >= 1e6)
		snprintf(buf, len, "%.3f ms", k->value / 1e6);
	else
		snprintf(buf, len, "%.1f us", k->value / 1e3);
}

static void costs_text(FILE *fp, const struct bench_machine *m,
		       const struct bench_costs *c, bool md)
{
	char val[320], verdict[256], cut[96] = "";
	size_t i;
	int n;

	if (c->time_limited)
		snprintf(cut, sizeof(cut),
			 "; the run's time limit came after %d of %d loads",
			 c->reps_done, c->reps);
	fprintf(fp, md ? "\n**costs** (ktrepl.ko activation=%s; %.0f s%s)\n\n" :
			 "\ncosts: ktrepl.ko activation=%s; %.0f s%s\n",
		c->activation[0] ? c->activation : "?", c->seconds, cut);
	if (c->mem_reason[0]) {
		fprintf(fp, md ? "- memory per node: not measured: %s\n" :
				 "  memory per node: not measured: %s\n",
			c->mem_reason);
	} else {
		if (md)
			fputs("| node | role | text KiB | rodata KiB | modules KiB | tables KiB | total KiB |\n|---|---|---|---|---|---|---|\n",
			      fp);
		else
			fprintf(fp, "  %-6s %-8s %10s %10s %11s %10s %10s\n",
				"node", "role", "text KiB", "rodata KiB",
				"modules KiB", "tables KiB", "total KiB");
		for (n = 0; n < c->nr_mem; n++) {
			const struct bench_mem_node *k = &c->mem[n];

			fprintf(fp, md ? "| %d | %s | %llu | %llu | %llu | %llu | %llu |\n" :
					 "  %-6d %-8s %10llu %10llu %11llu %10llu %10llu\n",
				k->node, k->role,
				(unsigned long long)(k->text >> 10),
				(unsigned long long)(k->rodata >> 10),
				(unsigned long long)(k->modules >> 10),
				(unsigned long long)(k->tables >> 10),
				(unsigned long long)(k->total >> 10));
		}
		if (md)
			fputc('\n', fp);
	}
	for (i = 0; i < c->nr; i++) {
		cost_value(val, sizeof(val), &c->c[i]);
		fprintf(fp, md ? "- %s: %s\n" : "  %-56s %s\n", c->c[i].what,
			val);
	}
	bench_costs_verdict(m, c, verdict, sizeof(verdict));
	fprintf(fp, md ? "\n**Verdict:** %s\n" : "\nverdict: %s\n", verdict);
}

void bench_report(struct kt_out *out, const struct bench_opts *o,
		  const struct bench_machine *m, const struct bench_result *r,
		  size_t nr, const struct bench_costs *costs)
{
	size_t i;

	if (out->jw) {
		jsonw_start_object(out->jw);
		jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
		json_machine(out->jw, m);
		jsonw_name(out->jw, "benchmarks");
		jsonw_start_array(out->jw);
		for (i = 0; i < nr; i++)
			json_result(out->jw, &r[i], m->emulated);
		jsonw_end_array(out->jw);
		if (costs)
			json_costs(out->jw, m, costs);
		jsonw_end_object(out->jw);
		return;
	}
	machine_text(out->fp, m, o->markdown);
	for (i = 0; i < nr; i++) {
		method_line(out->fp, &r[i]);
		fputc('\n', out->fp);
		if (o->markdown)
			table_markdown(out->fp, &r[i]);
		else
			table_plain(out->fp, &r[i]);
		intervals(out->fp, &r[i]);
		fprintf(out->fp, o->markdown ? "\n**Verdict:** %s\n" :
					       "\nverdict: %s\n", r[i].verdict);
	}
	if (costs)
		costs_text(out->fp, m, costs, o->markdown);
}

/* one line a reader can quote, and no claim the noise could explain */
void bench_verdict(const struct bench_machine *m, const struct bench_opts *o,
		   struct bench_result *r)
{
	char faster[256] = "", slower[256] = "", *v = r->verdict;
	size_t len = sizeof(r->verdict), used;
	int i, nf = 0, ns = 0, invalid = 0;

	for (i = 0; i < r->nr_nodes; i++) {
		const struct bench_node_result *n = &r->nodes[i];
		char *list = n->diff_pct < 0 ? faster : slower;
		size_t l = strlen(list);

		if (!n->before.valid || !n->after.valid) {
			invalid++;
			continue;
		}
		if (!n->significant)
			continue;
		snprintf(list + l, sizeof(faster) - l, "%snode %d %+.1f%%",
			 l ? ", " : "", n->node, n->diff_pct);
		if (n->diff_pct < 0)
			nf++;
		else
			ns++;
	}
	if (m->emulated)
		used = snprintf(v, len, "EMULATED (%s): the numbers mean nothing about replication on hardware; ",
				m->hypervisor);
	else
		used = 0;
	if (invalid)
		used += snprintf(v + used, len - used,
				 "inconclusive: too few runs for a 95%% interval on %d node(s)",
				 invalid);
	else if (!nf && !ns)
		used += snprintf(v + used, len - used,
				 "no significant difference on any node");
	else
		used += snprintf(v + used, len - used, "%s%s%s%s%s",
				 nf ? (o->control ? "faster in the second arm: " : "replication speeds up ") : "",
				 faster, nf && ns ? "; " : "",
				 ns ? (o->control ? "slower in the second arm: " : "slower with replication: ") : "",
				 slower);
	if (r->control && used < len)
		used += snprintf(v + used, len - used,
				 " (control: both arms without replication)");
	if (r->time_limited && invalid && used < len)
		snprintf(v + used, len - used,
			 " (cut by the run's time limit after %zu runs: raise --max-time)",
			 r->rounds);
	else if (r->time_limited && used < len)
		snprintf(v + used, len - used,
			 " (time limit: some intervals wider than +-%.1f%%)",
			 o->bound_pct);
}
