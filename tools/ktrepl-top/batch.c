// SPDX-License-Identifier: GPL-2.0
/*
 * Batch mode: plain-text frames, or one JSON object per line (-j), which
 * the library's report_top.c prints; here they are sorted and handed on.
 * With --prometheus the frames are summed into one window instead, which
 * the library's prometheus.c writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prometheus.h"

#include "top.h"

static void print_frame(struct top *top)
{
	int nodes[KT_NUMA_MAX_NODES], cpus[KT_NUMA_MAX_CPUS];
	size_t *funcs = NULL, nr_funcs = 0;
	struct kt_top_proc *procs = NULL;
	struct kt_top_frame f = {
		.frame = top->frame,
		.frame_ns = top->frame_ns,
		.event = kt_sampler_event(top->sampler),
		.rate_hz = top->opts.rate_hz,
		.loc = &top->loc,
		.fidelity = &top->fidelity,
		.st = &top->st,
		.have_module = top->have_module,
		.warning = top->refresh_error,
		.nodes = nodes,
		.cpus = cpus,
	};

	/* by id; functions by remote fetches, the most first */
	top_sorted_nodes(top, 1, nodes, &f.nr_nodes);
	top_sorted_cpus(top, 1, cpus, &f.nr_cpus);
	if (top->loc.nr_funcs)
		funcs = calloc(top->loc.nr_funcs, sizeof(*funcs));
	if (funcs)
		top_sorted_funcs(top, 2, funcs, &nr_funcs);
	f.funcs = funcs;
	f.nr_funcs = nr_funcs;
	if (f.nr_funcs > (size_t)top->opts.top_funcs)
		f.nr_funcs = top->opts.top_funcs;	/* --functions */
	/* --processes: the most remote fetches first */
	if (top->opts.top_procs)
		procs = calloc(top->opts.top_procs, sizeof(*procs));
	if (procs) {
		top_proc_rows(top, 2, procs, top->opts.top_procs, &f.nr_procs);
		f.procs = procs;
	}
	/* a writer per frame: each is a JSON value on a line of its own */
	if (top->opts.json)
		top->out.jw = jsonw_new(top->out.fp, false);
	if (!top->opts.json || top->out.jw)
		kt_report_top_frame(&top->out, &f);
	jsonw_destroy(&top->out.jw);
	fflush(top->out.fp);
	free(funcs);
	free(procs);
}

static void emit_window(FILE *fp, const void *window)
{
	kt_prometheus_write_top(fp, window);
}

/*
 * Add the closed frame to the window; with a file, put the window so far
 * in place, so that a run stopped early still leaves a whole one.
 */
static int add_to_window(struct top *top, struct kt_prometheus_top *w,
			 struct kt_err *err)
{
	int nodes[KT_NUMA_MAX_NODES], nr;
	struct timespec now;

	top_sorted_nodes(top, 1, nodes, &nr);
	clock_gettime(CLOCK_REALTIME, &now);
	kt_prometheus_top_add(w, &top->loc, &top->fidelity, nodes, nr,
			      top->frame_ns, now.tv_sec + now.tv_nsec / 1e9);
	if (!top->opts.prometheus_file)
		return 0;
	if (kt_prometheus_write_file(top->opts.prometheus_file, emit_window, w,
				     err))
		return kt_err_wrap(err, "--prometheus");
	return 0;
}

int top_run_batch(struct top *top)
{
	static struct kt_prometheus_top window;
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
		if (!top->opts.prometheus)
			print_frame(top);
		else if (add_to_window(top, &window, &err))
			break;
		if (ret > 0)
			break;	/* interrupted: the frame so far is out */
	}
	if (!err.code && top->opts.prometheus && !top->opts.prometheus_file) {
		kt_prometheus_write_top(stdout, &window);
		fflush(stdout);
	}
	if (err.code) {
		top_report_error(top, &err);
		return EXIT_TROUBLE;
	}
	return EXIT_OK;
}
