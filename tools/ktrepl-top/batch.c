// SPDX-License-Identifier: GPL-2.0
/* Batch mode: plain-text frames, or one JSON object per line (-j). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

static void print_header_plain(const struct top *top)
{
	const struct kt_locality *loc = &top->loc;
	char overhead[32] = "-", trust[32];
	int nodes = top->have_module ? top->st.nr_nodes : top->numa.nr_nodes;

	if (top_replica_overhead(top))
		top_format_bytes(top_replica_overhead(top), overhead,
				 sizeof(overhead));
	printf("ktrepl-top frame %ld: activation=%s nodes=%d master_node=%d replica_overhead/node=%s patches=%" PRIu64 " missed=%" PRIu64 "\n",
	       top->frame, kt_activation_name(top->st.activation), nodes, top->st.master_node,
	       overhead, top->st.patches, top->st.patches_missed);
	printf("event=%s rate=%uHz achieved_min=%.0fHz achieved_mean=%.0fHz interval=%.2fs samples=%" PRIu64 " idle=%" PRIu64 " not_text=%" PRIu64 " on_node_tables=%" PRIu64 " lost=%" PRIu64 " lost_pct=%.2f throttles=%" PRIu64 " trust=%s\n",
	       kt_sampler_event(top->sampler), top->opts.rate_hz,
	       top->fidelity.min_hz, top->fidelity.mean_hz,
	       top->frame_ns / 1e9, loc->samples, loc->idle, loc->not_text,
	       loc->on_worker_tables, loc->lost, top->fidelity.lost_pct,
	       loc->throttles, top_frame_trust(top, trust, sizeof(trust)));
	if (top->refresh_error[0])
		printf("warning: %s\n", top->refresh_error);
}

static void pct_str(const struct kt_fetches *f, bool remote, char *buf,
		    size_t len)
{
	double pct = kt_fetches_local_pct(f);

	if (pct < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", remote ? 100.0 - pct : pct);
}

static void print_frame_plain(const struct top *top)
{
	const struct kt_locality *loc = &top->loc;
	int order[KT_NUMA_MAX_CPUS], nr, i;
	size_t *forder = NULL, nf = 0, k;

	print_header_plain(top);
	printf("%4s %5s %8s %7s %7s %7s %7s %6s %5s\n", "NODE", "CPUS",
	       "SAMPLES", "LOCAL%", "REMOTE%", "CORE_L%", "MOD_L%", "UNRES",
	       "TRUST");
	top_sorted_nodes(top, 1, order, &nr);
	for (i = 0; i < nr; i++) {
		const struct kt_loc_node *n = &loc->nodes[order[i]];
		struct kt_fetches t = kt_fetches_total(n->text);
		char l[16], r[16], c[16], m[16];

		if (!n->nr_cpus)
			continue;
		pct_str(&t, false, l, sizeof(l));
		pct_str(&t, true, r, sizeof(r));
		pct_str(&n->text[KT_TEXT_CORE], false, c, sizeof(c));
		pct_str(&n->text[KT_TEXT_MODULE], false, m, sizeof(m));
		printf("%4d %5d %8" PRIu64 " %7s %7s %7s %7s %6" PRIu64 " %5s\n",
		       order[i], n->nr_cpus, t.local + t.remote + t.unresolved,
		       l, r, c, m, t.unresolved,
		       kt_fetches_enough(&t) ? "ok" : "few");
	}
	printf("%4s %5s %8s %7s %7s %7s %5s\n", "CPU", "NODE", "SAMPLES",
	       "LOCAL%", "REMOTE%", "HZ", "TRUST");
	top_sorted_cpus(top, 1, order, &nr);
	for (i = 0; i < nr; i++) {
		struct kt_fetches t = kt_fetches_total(loc->cpus[order[i]].text);
		char l[16], r[16];

		pct_str(&t, false, l, sizeof(l));
		pct_str(&t, true, r, sizeof(r));
		printf("%4d %5d %8" PRIu64 " %7s %7s %7.0f %5s\n", order[i],
		       top->numa.cpu_node[order[i]],
		       t.local + t.remote + t.unresolved, l, r,
		       kt_loc_cpu_hz(loc, order[i], top->frame_ns),
		       !top_cpu_rate_ok(top, order[i]) ? "slow" :
		       kt_fetches_enough(&t) ? "ok" : "few");
	}
	if (loc->nr_funcs)
		forder = calloc(loc->nr_funcs, sizeof(*forder));
	if (forder)
		top_sorted_funcs(top, 2, forder, &nf);
	printf("HOT REMOTE FUNCTIONS\n%8s %8s %5s  %s\n", "REMOTE", "LOCAL",
	       "NODE", "FUNCTION");
	for (k = 0; k < nf && (int)k < top->opts.top_funcs; k++) {
		const struct kt_loc_func *f = &loc->funcs[forder[k]];

		printf("%8" PRIu64 " %8" PRIu64 " %5d  %s\n", f->remote,
		       f->local, f->node, f->name);
	}
	free(forder);
	printf("\n");
	fflush(stdout);
}

static void json_fetches(struct json_writer *jw, const struct kt_fetches *f)
{
	double pct = kt_fetches_local_pct(f);

	jsonw_uint_field(jw, "local", f->local);
	jsonw_uint_field(jw, "remote", f->remote);
	jsonw_uint_field(jw, "unresolved", f->unresolved);
	jsonw_name(jw, "local_pct");
	if (pct < 0)
		jsonw_null(jw);
	else
		jsonw_float(jw, pct);
}

static void json_by_class(struct json_writer *jw,
			  const struct kt_fetches *by_class)
{
	struct kt_fetches t = kt_fetches_total(by_class);
	int c;

	jsonw_uint_field(jw, "samples", t.local + t.remote + t.unresolved);
	json_fetches(jw, &t);
	jsonw_bool_field(jw, "enough_samples", kt_fetches_enough(&t));
	for (c = 0; c < KT_TEXT_CLASSES; c++) {
		jsonw_name(jw, kt_text_class_names[c]);
		jsonw_start_object(jw);
		json_fetches(jw, &by_class[c]);
		jsonw_end_object(jw);
	}
}

static void print_frame_json(const struct top *top)
{
	const struct kt_locality *loc = &top->loc;
	struct json_writer *jw = jsonw_new(stdout, false);
	int order[KT_NUMA_MAX_CPUS], nr, i;
	size_t *forder = NULL, nf = 0, k;

	if (!jw)
		return;
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "version", KT_JSON_VERSION);
	jsonw_int_field(jw, "frame", top->frame);
	jsonw_float_field(jw, "interval_s", top->frame_ns / 1e9);
	jsonw_string_field(jw, "activation",
			   kt_activation_name(top->st.activation));
	jsonw_bool_field(jw, "module", top->have_module);
	jsonw_int_field(jw, "master_node", top->st.master_node);
	jsonw_uint_field(jw, "overhead_bytes", top->st.overhead);
	jsonw_uint_field(jw, "patches", top->st.patches);
	jsonw_uint_field(jw, "patches_missed", top->st.patches_missed);
	jsonw_string_field(jw, "event", kt_sampler_event(top->sampler));
	jsonw_uint_field(jw, "rate_hz", top->opts.rate_hz);
	jsonw_uint_field(jw, "samples", loc->samples);
	jsonw_uint_field(jw, "idle", loc->idle);
	jsonw_uint_field(jw, "not_text", loc->not_text);
	jsonw_uint_field(jw, "on_node_tables", loc->on_worker_tables);
	jsonw_uint_field(jw, "lost", loc->lost);
	jsonw_float_field(jw, "lost_pct", top->fidelity.lost_pct);
	jsonw_uint_field(jw, "throttles", loc->throttles);
	jsonw_name(jw, "achieved_hz");
	jsonw_start_object(jw);
	jsonw_float_field(jw, "min", top->fidelity.min_hz);
	jsonw_float_field(jw, "mean", top->fidelity.mean_hz);
	jsonw_int_field(jw, "min_cpu", top->fidelity.min_cpu);
	jsonw_end_object(jw);
	jsonw_bool_field(jw, "lossy", top->fidelity.lossy);
	jsonw_bool_field(jw, "slow", top->fidelity.slow);
	jsonw_bool_field(jw, "trusted", !top->fidelity.lossy &&
					!top->fidelity.slow);
	if (top->refresh_error[0])
		jsonw_string_field(jw, "warning", top->refresh_error);
	jsonw_name(jw, "nodes");
	jsonw_start_array(jw);
	top_sorted_nodes(top, 1, order, &nr);
	for (i = 0; i < nr; i++) {
		const struct kt_loc_node *n = &loc->nodes[order[i]];

		if (!n->nr_cpus)
			continue;
		jsonw_start_object(jw);
		jsonw_int_field(jw, "node", order[i]);
		jsonw_int_field(jw, "memory_node", top->numa.memory_node[order[i]]);
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
	top_sorted_cpus(top, 1, order, &nr);
	for (i = 0; i < nr; i++) {
		jsonw_start_object(jw);
		jsonw_int_field(jw, "cpu", order[i]);
		jsonw_int_field(jw, "node", top->numa.cpu_node[order[i]]);
		jsonw_float_field(jw, "achieved_hz",
				  kt_loc_cpu_hz(loc, order[i], top->frame_ns));
		jsonw_bool_field(jw, "rate_ok", top_cpu_rate_ok(top, order[i]));
		json_by_class(jw, loc->cpus[order[i]].text);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	if (loc->nr_funcs)
		forder = calloc(loc->nr_funcs, sizeof(*forder));
	if (forder)
		top_sorted_funcs(top, 2, forder, &nf);
	jsonw_name(jw, "hot_remote_functions");
	jsonw_start_array(jw);
	for (k = 0; k < nf && (int)k < top->opts.top_funcs; k++) {
		const struct kt_loc_func *f = &loc->funcs[forder[k]];

		jsonw_start_object(jw);
		jsonw_string_field(jw, "function", f->name);
		jsonw_hex_field(jw, "addr", f->addr);
		jsonw_uint_field(jw, "remote", f->remote);
		jsonw_uint_field(jw, "local", f->local);
		jsonw_int_field(jw, "node", f->node);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	free(forder);
}

int top_run_batch(struct top *top)
{
	struct kt_err err;
	int ret;

	top_install_signals();
	kt_err_clear(&err);
	while (!top->opts.iterations || top->frame < top->opts.iterations) {
		ret = top_wait_frame(top, NULL, NULL, &err);
		if (ret < 0)
			break;
		if (top_end_frame(top, &err)) {
			ret = -1;
			break;
		}
		if (top->opts.json)
			print_frame_json(top);
		else
			print_frame_plain(top);
		if (ret > 0)
			return 0;	/* interrupted: the frame so far is out */
	}
	if (err.code) {
		top_report_error(top, &err);
		return EXIT_TROUBLE;
	}
	return EXIT_OK;
}
