// SPDX-License-Identifier: GPL-2.0
/*
 * The text benchmark, after the arm64 seed's: ktrepl_bench_text.ko holds
 * tens of MiB of straight-line code; it is loaded from node 0's CPUs, so
 * its pages lie in node 0's memory, and each node's CPUs run it in turn.
 *
 * Off and on: off is ktrepl.ko not loaded; on is ktrepl.ko loaded with
 * the arch's default activation (x86_64 mm, arm64 percpu). ktrepl.ko
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
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* 6 samples are the fewest with a 95% interval for the median */
#define MIN_ROUNDS 6
#define MAX_ROUNDS 1000
#define MAX_ITERATIONS 100000U
#define BIND_WAIT_MS 3000

static volatile sig_atomic_t interrupted;

struct text_run {
	const struct bench_opts *o;
	const struct bench_machine *m;
	int nr;				/* nodes with CPUs */
	int node[KT_MAX_NODES];		/* their ids */
	cpu_set_t cpus[KT_MAX_NODES];
	cpu_set_t saved;		/* the tool's own affinity */
	bool ktrepl_loaded;
	bool bench_loaded;
	bool wait_bind;			/* activation=mm: runners must be bound */
	unsigned int iterations;
	double *before[KT_MAX_NODES], *after[KT_MAX_NODES];
	size_t rounds, cap;
};

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cpulist_to_set(const char *list, cpu_set_t *set)
{
	unsigned char mask[KT_MAX_CPUS] = { 0 };
	int cpu, ret = kt_parse_cpulist(list, mask, KT_MAX_CPUS);

	CPU_ZERO(set);
	if (ret)
		return ret;
	for (cpu = 0; cpu < KT_MAX_CPUS && cpu < CPU_SETSIZE; cpu++)
		if (mask[cpu])
			CPU_SET(cpu, set);
	return CPU_COUNT(set) ? 0 : -ENOENT;
}

static bool read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return false;
	while ((size_t)got < len - 1 &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got > 0;
}

/* activation=mm: wait until ktrepl's bind file lists this process */
static int wait_bound(void)
{
	char buf[65536], key[32];
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int ms;

	snprintf(key, sizeof(key), "pid=%d ", (int)getpid());
	for (ms = 0; ms < BIND_WAIT_MS; ms += 20) {
		if (read_file(KTREPL_DIR "/bind", buf, sizeof(buf))) {
			char *p = buf;

			while (p && *p) {
				if (!strncmp(p, key, strlen(key)))
					return 0;
				p = strchr(p, '\n');
				p = p ? p + 1 : NULL;
			}
		}
		nanosleep(&pause, NULL);
	}
	return -ETIMEDOUT;
}

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

/* the child: confined to its node by the parent; reports on fd */
static void runner(int fd, bool wait_bind, unsigned int iterations,
		   const char *phase)
{
	char result[256], msg[320];
	int ret = 0;

	if (wait_bind && wait_bound())
		ret = -ETIMEDOUT;
	if (!ret)
		ret = run_request(1, "warmup", result, sizeof(result));
	if (!ret)
		ret = run_request(iterations, phase, result, sizeof(result));
	if (ret == -ETIMEDOUT)
		snprintf(msg, sizeof(msg),
			 "error: not bound to its node's tables within %d ms (ktrepl's bind file does not list it)\n",
			 BIND_WAIT_MS);
	else if (ret)
		snprintf(msg, sizeof(msg), "error: %s: %s\n",
			 BENCH_TEXT_DIR "/run", strerror(-ret));
	else
		snprintf(msg, sizeof(msg), "%s", result);
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(3);
	_exit(ret ? 1 : 0);
}

/* one timed run on node index i; its time in *ns */
static int run_on_node(struct text_run *t, int i, unsigned int iterations,
		       const char *phase, double *ns, struct kt_err *err)
{
	char buf[512];
	int pfd[2], status;
	ssize_t n, got = 0;
	const char *p;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return kt_err_set(err, errno, "pipe: %s", strerror(errno));
	/*
	 * Fork while confined: ktrepl's fork probe binds a confined child's
	 * new mm at once (activation=mm), no scan to wait for.
	 */
	if (sched_setaffinity(0, sizeof(t->cpus[i]), &t->cpus[i])) {
		close(pfd[0]);
		close(pfd[1]);
		return kt_err_set(err, errno, "confining to node %d's CPUs: %s",
				  t->node[i], strerror(errno));
	}
	pid = fork();
	if (!pid) {
		close(pfd[0]);
		runner(pfd[1], t->wait_bind && !strcmp(phase, "after"),
		       iterations, phase);
	}
	sched_setaffinity(0, sizeof(t->saved), &t->saved);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return kt_err_set(err, errno, "fork: %s", strerror(errno));
	}
	while ((n = read(pfd[0], buf + got, sizeof(buf) - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += n;
	}
	buf[got] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[strcspn(buf, "\n")] = '\0';
	if (!strncmp(buf, "error: ", 7))
		return kt_err_set(err, EIO, "node %d's runner: %s", t->node[i],
				  buf + 7);
	p = strstr(buf, " ns=");
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !p)
		return kt_err_set(err, interrupted ? EINTR : EIO,
				  "node %d's runner %s (it said '%s')",
				  t->node[i], interrupted ? "was interrupted" :
				  "failed", buf);
	*ns = strtod(p + 4, NULL);
	return 0;
}

/* the module's record and activation in ktrepl's summary, while on */
static int check_replicated(struct text_run *t, char *activation, size_t len,
			    struct kt_err *err)
{
	static char buf[1 << 20];
	const char *p, *reason;

	if (!read_file(KTREPL_DIR "/summary", buf, sizeof(buf)))
		return kt_err_set(err, ENOENT,
				  "%s: unreadable after loading ktrepl.ko",
				  KTREPL_DIR "/summary");
	p = strstr(buf, "activation=");
	reason = strstr(buf, "activation_reason=");
	snprintf(activation, len, "%.*s", p ? (int)strcspn(p + 11, " \n") : 1,
		 p ? p + 11 : "?");
	if (strcmp(activation, "mm") && strcmp(activation, "percpu"))
		return kt_err_set(err, ENOTSUP,
				  "ktrepl.ko loaded with activation=%s (%.*s): no runner would use a node's copy, so there is nothing to compare",
				  activation,
				  reason ? (int)strcspn(reason, " \n") : 1,
				  reason ? reason : "-");
	t->wait_bind = !strcmp(activation, "mm");
	if (!strstr(buf, "\nmodule=" BENCH_TEXT_MODULE " "))
		return kt_err_set(err, ENOENT,
				  "ktrepl.ko did not replicate %s (no module record in its summary: loaded with modules=0?)",
				  BENCH_TEXT_MODULE);
	return 0;
}

static int grow(struct text_run *t, struct kt_err *err)
{
	int i;

	if (t->rounds < t->cap)
		return 0;
	t->cap = t->cap ? 2 * t->cap : 16;
	for (i = 0; i < t->nr; i++) {
		double *b = realloc(t->before[i], t->cap * sizeof(double));
		double *a = b ? realloc(t->after[i], t->cap * sizeof(double)) :
				NULL;

		if (b)
			t->before[i] = b;
		if (a)
			t->after[i] = a;
		if (!a || !b)
			return kt_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

/* one arm of a round: every node once, on or off */
static int run_arm(struct text_run *t, bool on, char *activation, size_t len,
		   struct kt_err *err)
{
	int i, ret;

	if (on && !t->o->control) {
		/* loaded from node 0's CPUs too: its own copies, as a user's */
		sched_setaffinity(0, sizeof(t->cpus[0]), &t->cpus[0]);
		ret = bench_module_load(t->o->module_path, KTREPL_MODULE, "",
					err);
		sched_setaffinity(0, sizeof(t->saved), &t->saved);
		if (ret)
			return kt_err_wrap(err, "loading ktrepl.ko");
		t->ktrepl_loaded = true;
		ret = check_replicated(t, activation, len, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < t->nr && !interrupted; i++) {
		double *slot = on ? &t->after[i][t->rounds] :
				    &t->before[i][t->rounds];

		ret = run_on_node(t, i, t->iterations, on ? "after" : "before",
				  slot, err);
		if (ret)
			return ret;
	}
	if (t->ktrepl_loaded) {
		ret = bench_module_unload(KTREPL_MODULE, err);
		if (ret)
			return ret;
		t->ktrepl_loaded = false;
	}
	return interrupted ? kt_err_set(err, EINTR, "interrupted") : 0;
}

/*
 * Iterations per run so that node 0's run takes about target_ns: grown
 * from one pass until a run is long enough to measure, since the first
 * passes can mislead (emulators translate code on first use, caches and
 * TLBs are cold), then scaled to the target.
 */
static int calibrate(struct text_run *t, double target_ns, struct kt_err *err)
{
	unsigned int n = 1;
	double ns, scale;
	int ret;

	for (;;) {
		ret = run_on_node(t, 0, n, "warmup", &ns, err);
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

static bool converged(const struct text_run *t)
{
	struct bench_ci ci;
	int i;

	if (t->rounds < MIN_ROUNDS)
		return false;
	for (i = 0; i < t->nr; i++) {
		bench_median_ci(t->before[i], t->rounds, &ci);
		if (bench_ci_half_pct(&ci) > t->o->bound_pct)
			return false;
		bench_median_ci(t->after[i], t->rounds, &ci);
		if (bench_ci_half_pct(&ci) > t->o->bound_pct)
			return false;
	}
	return true;
}

static double widest_ci(const struct text_run *t)
{
	struct bench_ci ci;
	double w = 0, h;
	int i;

	for (i = 0; i < t->nr; i++) {
		bench_median_ci(t->before[i], t->rounds, &ci);
		h = bench_ci_half_pct(&ci);
		w = h > w ? h : w;
		bench_median_ci(t->after[i], t->rounds, &ci);
		h = bench_ci_half_pct(&ci);
		w = h > w ? h : w;
	}
	return w;
}

static int setup(struct text_run *t, struct kt_err *err)
{
	int i;

	if (sched_getaffinity(0, sizeof(t->saved), &t->saved))
		return kt_err_set(err, errno, "sched_getaffinity: %s",
				  strerror(errno));
	for (i = 0; i < t->m->nr_nodes; i++) {
		if (!t->m->node_cpus[i][0] ||
		    cpulist_to_set(t->m->node_cpus[i], &t->cpus[t->nr]))
			continue;
		t->node[t->nr++] = t->m->nodes[i];
	}
	if (t->nr < 2)
		return kt_err_set(err, ENODEV,
				  "one NUMA node with CPUs (%d of %d online nodes): nothing to replicate, nothing to compare",
				  t->nr, t->m->nr_nodes);
	return 0;
}

static void teardown(struct text_run *t)
{
	struct kt_err err;
	int i;

	if (t->ktrepl_loaded && bench_module_unload(KTREPL_MODULE, &err))
		fprintf(stderr, "ktrepl-bench: warning: %s\n", err.msg);
	if (t->bench_loaded &&
	    bench_module_unload(BENCH_TEXT_MODULE, &err))
		fprintf(stderr, "ktrepl-bench: warning: %s\n", err.msg);
	for (i = 0; i < t->nr; i++) {
		free(t->before[i]);
		free(t->after[i]);
	}
}

static void fill_result(const struct text_run *t, struct bench_result *r)
{
	char buf[256];
	int i;

	r->iterations = t->iterations;
	r->rounds = t->rounds;
	r->nr_nodes = t->nr;
	if (read_file(BENCH_TEXT_DIR "/info", buf, sizeof(buf))) {
		const char *p = strstr(buf, "bytes=");

		r->text_bytes = p ? strtoull(p + 6, NULL, 10) : 0;
	}
	for (i = 0; i < t->nr; i++) {
		struct bench_node_result *n = &r->nodes[i];

		n->node = t->node[i];
		n->samples = t->rounds;
		bench_median_ci(t->before[i], t->rounds, &n->before);
		bench_median_ci(t->after[i], t->rounds, &n->after);
		bench_compare(n);
	}
}

int bench_text_run(const struct bench_opts *o, const struct bench_machine *m,
		   struct bench_result *r, struct kt_err *err)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct text_run t = { .o = o, .m = m };
	double start = now_s(), round_s = 0, t0;
	bool on_first;
	int ret;

	r->name = "text";
	r->control = o->control;
	ret = setup(&t, err);
	if (ret)
		return ret;
	if (bench_module_loaded(KTREPL_MODULE))
		return kt_err_set(err, EBUSY,
				  "ktrepl.ko is loaded: the off-arm needs it gone (rmmod ktrepl), ktrepl-bench loads it itself");
	if (bench_module_loaded(BENCH_TEXT_MODULE))
		return kt_err_set(err, EBUSY,
				  "%s is loaded already: unload it (rmmod %s) so that ktrepl-bench loads it from node %d's CPUs",
				  BENCH_TEXT_MODULE, BENCH_TEXT_MODULE,
				  t.node[0]);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* node 0's CPUs load it, so its pages lie in node 0's memory */
	sched_setaffinity(0, sizeof(t.cpus[0]), &t.cpus[0]);
	ret = bench_module_load(o->bench_module_path, BENCH_TEXT_MODULE,
				o->bench_params, err);
	sched_setaffinity(0, sizeof(t.saved), &t.saved);
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
	ret = calibrate(&t, o->quick ? 40e6 : 250e6, err);
	if (ret)
		goto out;
	while (!interrupted) {
		/*
		 * stop before a round that would overrun the limit, but only
		 * past the fewest rounds with an interval: a run too slow for
		 * those within the limit overruns it rather than claim nothing
		 */
		if (t.rounds >= MIN_ROUNDS &&
		    now_s() - start + round_s > o->max_seconds) {
			r->time_limited = !converged(&t);
			break;
		}
		if (converged(&t) || t.rounds >= MAX_ROUNDS)
			break;
		ret = grow(&t, err);
		if (ret)
			goto out;
		t0 = now_s();
		on_first = t.rounds % 2;
		ret = run_arm(&t, on_first, r->activation,
			      sizeof(r->activation), err);
		if (!ret)
			ret = run_arm(&t, !on_first, r->activation,
				      sizeof(r->activation), err);
		if (ret)
			goto out;
		t.rounds++;
		round_s = now_s() - t0;
		bench_progress("text: round %zu, %.0f of %.0f s, widest 95%% CI +-%.1f%% (stops at +-%.1f%%)",
			       t.rounds, now_s() - start, o->max_seconds,
			       t.rounds >= MIN_ROUNDS ? widest_ci(&t) : 100.0,
			       o->bound_pct);
	}
	if (interrupted)
		ret = kt_err_set(err, EINTR, "interrupted");
	else
		fill_result(&t, r);
out:
	bench_progress_end();
	r->seconds = now_s() - start;
	teardown(&t);
	return ret;
}
