// SPDX-License-Identifier: GPL-2.0
/*
 * The text benchmark, after the arm64 seed's: ktrepl_bench_text.ko holds
 * tens of MiB of straight-line code; it is loaded from node 0's CPUs, so
 * its pages lie in node 0's memory, and each node's CPUs run it in turn.
 *
 * Off and on (engine.c): off is ktrepl.ko not loaded; on is ktrepl.ko
 * loaded with the arch's default activation (x86_64 mm, arm64 percpu). ktrepl.ko
 * replicates every module LIVE when it loads as well as those loaded
 * later (kernel/replica/modules.c), so the bench module stays loaded,
 * in the same pages, for the whole run, and ktrepl.ko is loaded and
 * unloaded around each on-arm: both arms then run the very same module
 * text, once from node 0's pages alone and once from each node's copy.
 *
 * The runner of a node is a child process confined to that node's CPUs
 * (the module times the code in the child's write to its run file): on
 * x86_64 ktrepl.ko moves exactly such processes onto their node's
 * tables, and the child waits until ktrepl's bind file lists it. Each
 * timed run follows an untimed pass of the same code (warm caches and,
 * under emulation, translated code for the pages just copied).
 *
 * Rounds alternate the arms, off-on then on-off (ABBA, so a linear
 * drift adds the same to both), until the 95% interval of every node's
 * median is within the bound in both arms, or the time limit comes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_ITERATIONS 100000U

struct text_run {
	bool bench_loaded;
	unsigned int iterations;
};

/* what one runner child does */
struct text_request {
	unsigned int iterations;
	const char *phase;
};

/* one request to the module's run file; the result line in out */
static int run_request(unsigned int iterations, const char *phase, char *out,
		       size_t len)
{
	char req[64];
	int fd = open(BENCH_TEXT_DIR "/run", O_RDWR | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = snprintf(req, sizeof(req), "iterations=%u phase=%s", iterations,
		     phase);
	if (write(fd, req, n) != n) {
		n = -errno;
		close(fd);
		return n;
	}
	n = read(fd, out, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	out[n] = '\0';
	close(fd);
	return 0;
}

/* in the runner child: one untimed pass, then the timed run */
static int text_child(void *arg, double *ns, char *why, size_t len)
{
	const struct text_request *q = arg;
	char result[256];
	const char *p;
	int ret;

	ret = run_request(1, "warmup", result, sizeof(result));
	if (!ret)
		ret = run_request(q->iterations, q->phase, result,
				  sizeof(result));
	if (ret) {
		snprintf(why, len, "%s: %s", BENCH_TEXT_DIR "/run",
			 strerror(-ret));
		return ret;
	}
	p = strstr(result, " ns=");
	if (!p) {
		result[strcspn(result, "\n")] = '\0';
		snprintf(why, len, "%s said '%s'", BENCH_TEXT_DIR "/run",
			 result);
		return -EIO;
	}
	ns[0] = strtod(p + 4, NULL);
	return 0;
}

static int run_on_node(struct bench_engine *e, int i, unsigned int iterations,
		       const char *phase, double *ns, struct kt_err *err)
{
	struct text_request q = { iterations, phase };

	return bench_engine_child(e, i, !strcmp(phase, "after"), text_child,
				  &q, ns, 1, err);
}

static int text_measure(struct bench_engine *e, int i, bool on, double *ns,
			struct kt_err *err)
{
	struct text_run *t = e->priv;

	return run_on_node(e, i, t->iterations, on ? "after" : "before", ns,
			   err);
}

/* the module's record in ktrepl's state, while on */
static int text_check(struct bench_engine *e, const struct kt_state *st,
		      struct kt_err *err)
{
	(void)e;
	if (kt_state_region(st, KT_MODULE_PREFIX BENCH_TEXT_MODULE) < 0)
		return kt_err_set(err, ENOENT,
				  "ktrepl.ko did not replicate %s (no module record in its summary: loaded with modules=0?)",
				  BENCH_TEXT_MODULE);
	return 0;
}

/*
 * Iterations per run so that node 0's run takes about target_ns: grown
 * from one pass until a run is long enough to measure, since the first
 * passes can mislead (emulators translate code on first use, caches and
 * TLBs are cold), then scaled to the target.
 */
static int calibrate(struct bench_engine *e, double target_ns,
		     struct kt_err *err)
{
	struct text_run *t = e->priv;
	unsigned int n = 1;
	double ns, scale;
	int ret;

	for (;;) {
		ret = run_on_node(e, 0, n, "warmup", &ns, err);
		if (ret)
			return kt_err_wrap(err, "calibrating");
		if (ns < 1)
			ns = 1;
		scale = target_ns / ns;
		if (scale < 2 || n >= MAX_ITERATIONS)
			break;
		/* a too-short run is noise: grow by at most 10x a step */
		n = n * (scale > 10 ? 10 : scale) > MAX_ITERATIONS ?
			MAX_ITERATIONS : (unsigned int)(n * (scale > 10 ? 10 : scale));
	}
	scale = n * scale;
	t->iterations = scale < 1 ? 1 : scale > MAX_ITERATIONS ?
			MAX_ITERATIONS : (unsigned int)scale;
	return 0;
}

int bench_text_run(const struct bench_opts *o, const struct bench_machine *m,
		   struct bench_result *r, struct kt_err *err)
{
	struct text_run t = { 0 };
	struct bench_engine e = {
		.o = o, .m = m, .name = "text", .nr_series = 1,
		.measure = text_measure, .check = text_check, .priv = &t,
	};
	double start = bench_now_s();
	char buf[256];
	int ret;

	r->name = "text";
	r->control = o->control;
	ret = bench_engine_setup(&e, err);
	if (ret)
		return ret;
	if (bench_module_loaded(BENCH_TEXT_MODULE))
		return kt_err_set(err, EBUSY,
				  "%s is loaded already: unload it (rmmod %s) so that ktrepl-bench loads it from node %d's CPUs",
				  BENCH_TEXT_MODULE, BENCH_TEXT_MODULE,
				  e.node[0]);

	/* node 0's CPUs load it, so its pages lie in node 0's memory */
	sched_setaffinity(0, sizeof(e.cpus[0]), &e.cpus[0]);
	ret = bench_module_load(o->bench_module_path, BENCH_TEXT_MODULE,
				o->bench_params, err);
	sched_setaffinity(0, sizeof(e.saved), &e.saved);
	if (ret) {
		kt_err_wrap(err, "loading the benchmark module");
		goto out;
	}
	t.bench_loaded = true;
	if (access(BENCH_TEXT_DIR "/run", W_OK)) {
		ret = kt_err_set(err, errno,
				 "%s: %s (debugfs mounted at %s, and writable? lockdown refuses writable debugfs files)",
				 BENCH_TEXT_DIR "/run", strerror(errno),
				 BENCH_DEBUGFS);
		goto out;
	}
	ret = calibrate(&e, o->quick ? 40e6 : 250e6, err);
	if (ret)
		goto out;
	ret = bench_engine_rounds(&e, &r->time_limited, err);
	if (ret)
		goto out;
	bench_engine_fill(&e, 0, r);
	r->iterations = t.iterations;
	if (bench_read_file(BENCH_TEXT_DIR "/info", buf, sizeof(buf))) {
		const char *p = strstr(buf, "bytes=");

		r->text_bytes = p ? strtoull(p + 6, NULL, 10) : 0;
	}
out:
	r->seconds = bench_now_s() - start;
	bench_engine_teardown(&e);
	if (t.bench_loaded) {
		struct kt_err uerr;

		if (bench_module_unload(BENCH_TEXT_MODULE, &uerr))
			fprintf(stderr, "ktrepl-bench: warning: %s\n",
				uerr.msg);
	}
	return ret;
}
