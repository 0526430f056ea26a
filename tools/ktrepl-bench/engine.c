// SPDX-License-Identifier: GPL-2.0
/*
 * The arm and round engine every off/on benchmark shares (text and
 * syscalls): off is ktrepl.ko not loaded; on is ktrepl.ko loaded with the
 * arch's default activation (x86_64 mm, arm64 percpu), loaded from node
 * 0's CPUs before each on-arm and unloaded after it.
 *
 * A benchmark gives the engine one measure callback, which takes one
 * sample of each of its series (text: one; syscalls: one per operation
 * and temperature) on one node. Samples are taken in a runner child
 * confined to that node's CPUs (bench_engine_child): on x86_64 ktrepl.ko
 * moves exactly such processes onto their node's tables, and in the
 * on-arm the child waits until ktrepl's bind file lists it.
 *
 * Rounds alternate the arms, off-on then on-off (ABBA, so a linear
 * drift adds the same to both), until the 95% interval of every node's
 * median is within the bound in both arms for every series, or the time
 * limit comes.
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
#define BIND_WAIT_MS 3000

volatile sig_atomic_t bench_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	bench_interrupted = 1;
}

double bench_now_s(void)
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

bool bench_read_file(const char *path, char *buf, size_t len)
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

/* activation=mm: wait until ktrepl's bind file lists pid */
int bench_wait_bound(pid_t pid)
{
	static char buf[65536];
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char key[32];
	int ms;

	snprintf(key, sizeof(key), "pid=%d ", (int)pid);
	for (ms = 0; ms < BIND_WAIT_MS; ms += 20) {
		if (bench_read_file(KTREPL_DIR "/bind", buf, sizeof(buf))) {
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

/*
 * The child: confined to its node by the parent; its samples, or its
 * error, as one line on fd: "ok V1 V2 ...\n" or "error: ...\n".
 */
static void child_main(int fd, bool wait_bind, bench_child_fn fn, void *arg,
		       size_t nr)
{
	double ns[BENCH_MAX_SERIES];
	char msg[4096], why[512] = "";
	size_t i, used;
	int ret = 0;

	if (wait_bind && bench_wait_bound(getpid()))
		ret = -ETIMEDOUT;
	if (!ret)
		ret = fn(arg, ns, why, sizeof(why));
	if (ret == -ETIMEDOUT && !why[0])
		snprintf(msg, sizeof(msg),
			 "error: not bound to its node's tables within %d ms (ktrepl's bind file does not list it)\n",
			 BIND_WAIT_MS);
	else if (ret)
		snprintf(msg, sizeof(msg), "error: %s\n",
			 why[0] ? why : strerror(-ret));
	else {
		used = snprintf(msg, sizeof(msg), "ok");
		for (i = 0; i < nr && used < sizeof(msg); i++)
			used += snprintf(msg + used, sizeof(msg) - used,
					 " %.1f", ns[i]);
		if (used < sizeof(msg))
			snprintf(msg + used, sizeof(msg) - used, "\n");
	}
	if (write(fd, msg, strlen(msg)) < 0)
		_exit(3);
	_exit(ret ? 1 : 0);
}

int bench_engine_child(struct bench_engine *e, int i, bool wait_bind,
		       bench_child_fn fn, void *arg, double *ns, size_t nr,
		       struct kt_err *err)
{
	char buf[4096], *p, *end;
	int pfd[2], status;
	ssize_t n, got = 0;
	size_t k;
	pid_t pid;

	if (nr > BENCH_MAX_SERIES)
		return kt_err_set(err, EINVAL, "%zu series: at most %d", nr,
				  BENCH_MAX_SERIES);
	if (pipe2(pfd, O_CLOEXEC))
		return kt_err_set(err, errno, "pipe: %s", strerror(errno));
	/*
	 * Fork while confined: ktrepl's fork probe binds a confined child's
	 * new mm at once (activation=mm), no scan to wait for.
	 */
	if (sched_setaffinity(0, sizeof(e->cpus[i]), &e->cpus[i])) {
		close(pfd[0]);
		close(pfd[1]);
		return kt_err_set(err, errno, "confining to node %d's CPUs: %s",
				  e->node[i], strerror(errno));
	}
	pid = fork();
	if (!pid) {
		close(pfd[0]);
		child_main(pfd[1], wait_bind && e->wait_bind, fn, arg, nr);
	}
	sched_setaffinity(0, sizeof(e->saved), &e->saved);
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
		return kt_err_set(err, EIO, "node %d's runner: %s", e->node[i],
				  buf + 7);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || strncmp(buf, "ok", 2))
		return kt_err_set(err, bench_interrupted ? EINTR : EIO,
				  "node %d's runner %s (it said '%s')",
				  e->node[i], bench_interrupted ?
				  "was interrupted" : "failed", buf);
	p = buf + 2;
	for (k = 0; k < nr; k++) {
		ns[k] = strtod(p, &end);
		if (end == p)
			return kt_err_set(err, EIO,
					  "node %d's runner gave %zu of %zu figures ('%s')",
					  e->node[i], k, nr, buf);
		p = end;
	}
	return 0;
}

/*
 * ktrepl.ko's state from its debugfs files, read by the library the other
 * tools use, while on: its activation must put runners on a node's copy,
 * and the benchmark may check more (its module replicated).
 */
int bench_ktrepl_state(struct bench_engine *e, struct kt_err *err)
{
	struct kt_state *st = &e->state;
	int ret;

	kt_state_free(st);
	ret = kt_state_load_debugfs(st, KTREPL_DIR, err);
	if (ret)
		return kt_err_wrap(err, "reading ktrepl.ko's state after loading it");
	snprintf(e->activation, sizeof(e->activation), "%s",
		 kt_activation_name(st->activation));
	e->wait_bind = st->activation == KT_ACT_MM;
	return 0;
}

static int check_on(struct bench_engine *e, struct kt_err *err)
{
	const struct kt_state *st = &e->state;
	int ret = bench_ktrepl_state(e, err);

	if (ret)
		return ret;
	if (st->activation != KT_ACT_MM && st->activation != KT_ACT_PERCPU)
		return kt_err_set(err, ENOTSUP,
				  "ktrepl.ko loaded with activation=%s (%s): no runner would use a node's copy, so there is nothing to compare",
				  e->activation, st->activation_reason[0] ?
				  st->activation_reason : "-");
	return e->check ? e->check(e, st, err) : 0;
}

int bench_load_ktrepl(struct bench_engine *e, double *load_ns,
		      struct kt_err *err)
{
	double t0;
	int ret;

	/* loaded from node 0's CPUs: its own copies, as a user's */
	sched_setaffinity(0, sizeof(e->cpus[0]), &e->cpus[0]);
	t0 = bench_now_s();
	ret = bench_module_load(e->o->module_path, KTREPL_MODULE, "", err);
	if (load_ns)
		*load_ns = (bench_now_s() - t0) * 1e9;
	sched_setaffinity(0, sizeof(e->saved), &e->saved);
	if (ret)
		return kt_err_wrap(err, "loading ktrepl.ko");
	e->ktrepl_loaded = true;
	return 0;
}

int bench_unload_ktrepl(struct bench_engine *e, struct kt_err *err)
{
	int ret;

	if (!e->ktrepl_loaded)
		return 0;
	ret = bench_module_unload(KTREPL_MODULE, err);
	if (!ret)
		e->ktrepl_loaded = false;
	return ret;
}

static int grow(struct bench_engine *e, struct kt_err *err)
{
	size_t s, cap;
	int i;

	if (e->rounds < e->cap)
		return 0;
	cap = e->cap ? 2 * e->cap : 16;
	for (s = 0; s < e->nr_series; s++) {
		for (i = 0; i < e->nr; i++) {
			double **bp = &e->before[s][i], **ap = &e->after[s][i];
			double *b = realloc(*bp, cap * sizeof(double));
			double *a = b ? realloc(*ap, cap * sizeof(double)) :
					NULL;

			if (b)
				*bp = b;
			if (a)
				*ap = a;
			if (!a || !b)
				return kt_err_set(err, ENOMEM, "out of memory");
		}
	}
	e->cap = cap;
	return 0;
}

/* one arm of a round: every node once, on or off */
static int run_arm(struct bench_engine *e, bool on, struct kt_err *err)
{
	double ns[BENCH_MAX_SERIES];
	size_t s;
	int i, ret;

	if (on && !e->o->control) {
		ret = bench_load_ktrepl(e, NULL, err);
		if (ret)
			return ret;
		ret = check_on(e, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < e->nr && !bench_interrupted; i++) {
		ret = e->measure(e, i, on, ns, err);
		if (ret)
			return ret;
		for (s = 0; s < e->nr_series; s++) {
			if (on)
				e->after[s][i][e->rounds] = ns[s];
			else
				e->before[s][i][e->rounds] = ns[s];
		}
	}
	ret = bench_unload_ktrepl(e, err);
	if (ret)
		return ret;
	return bench_interrupted ? kt_err_set(err, EINTR, "interrupted") : 0;
}

static bool converged(const struct bench_engine *e)
{
	struct bench_ci ci;
	size_t s;
	int i;

	if (e->rounds < MIN_ROUNDS)
		return false;
	for (s = 0; s < e->nr_series; s++) {
		for (i = 0; i < e->nr; i++) {
			bench_median_ci(e->before[s][i], e->rounds, &ci);
			if (bench_ci_half_pct(&ci) > e->o->bound_pct)
				return false;
			bench_median_ci(e->after[s][i], e->rounds, &ci);
			if (bench_ci_half_pct(&ci) > e->o->bound_pct)
				return false;
		}
	}
	return true;
}

static double widest_ci(const struct bench_engine *e)
{
	struct bench_ci ci;
	double w = 0, h;
	size_t s;
	int i;

	for (s = 0; s < e->nr_series; s++) {
		for (i = 0; i < e->nr; i++) {
			bench_median_ci(e->before[s][i], e->rounds, &ci);
			h = bench_ci_half_pct(&ci);
			w = h > w ? h : w;
			bench_median_ci(e->after[s][i], e->rounds, &ci);
			h = bench_ci_half_pct(&ci);
			w = h > w ? h : w;
		}
	}
	return w;
}

int bench_engine_setup(struct bench_engine *e, struct kt_err *err)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int i;

	if (e->nr_series > BENCH_MAX_SERIES)
		return kt_err_set(err, EINVAL, "%zu series: at most %d",
				  e->nr_series, BENCH_MAX_SERIES);
	if (sched_getaffinity(0, sizeof(e->saved), &e->saved))
		return kt_err_set(err, errno, "sched_getaffinity: %s",
				  strerror(errno));
	for (i = 0; i < e->m->nr_nodes; i++) {
		if (!e->m->node_cpus[i][0] ||
		    cpulist_to_set(e->m->node_cpus[i], &e->cpus[e->nr]))
			continue;
		e->node[e->nr++] = e->m->nodes[i];
	}
	if (e->nr < 2)
		return kt_err_set(err, ENODEV,
				  "one NUMA node with CPUs (%d of %d online nodes): nothing to replicate, nothing to compare",
				  e->nr, e->m->nr_nodes);
	if (bench_module_loaded(KTREPL_MODULE))
		return kt_err_set(err, EBUSY,
				  "ktrepl.ko is loaded: the off-arm needs it gone (rmmod ktrepl), ktrepl-bench loads it itself");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return 0;
}

/* would a step of next_s seconds, started now, end past the stage's end? */
bool bench_past_deadline(const struct bench_opts *o, double next_s)
{
	return bench_now_s() + next_s > o->stage_deadline;
}

int bench_engine_rounds(struct bench_engine *e, bool *time_limited,
			struct kt_err *err)
{
	double start = bench_now_s(), round_s = 0, t0;
	double budget = e->o->stage_deadline - start;
	bool on_first;
	int ret;

	*time_limited = false;
	while (!bench_interrupted) {
		if (converged(e) || e->rounds >= MAX_ROUNDS)
			break;
		/*
		 * The run's limit is a bound, not a wish: stop before a round
		 * that would pass the stage's end, even short of the 6 rounds
		 * an interval needs (the report then says inconclusive and
		 * why). Only the first round always runs: its length is the
		 * estimate for the next.
		 */
		if (e->rounds && bench_past_deadline(e->o, round_s)) {
			*time_limited = true;
			break;
		}
		ret = grow(e, err);
		if (ret)
			return ret;
		t0 = bench_now_s();
		on_first = e->rounds % 2;
		ret = run_arm(e, on_first, err);
		if (!ret)
			ret = run_arm(e, !on_first, err);
		if (ret)
			return ret;
		e->rounds++;
		round_s = bench_now_s() - t0;
		bench_progress("%s: round %zu, %.0f of %.0f s, widest 95%% CI +-%.1f%% (stops at +-%.1f%%)",
			       e->name, e->rounds, bench_now_s() - start,
			       budget > 0 ? budget : 0,
			       e->rounds >= MIN_ROUNDS ? widest_ci(e) : 100.0,
			       e->o->bound_pct);
	}
	if (bench_interrupted)
		return kt_err_set(err, EINTR, "interrupted");
	return 0;
}

void bench_engine_fill(const struct bench_engine *e, size_t s,
		       struct bench_result *r)
{
	int i;

	r->rounds = e->rounds;
	r->nr_nodes = e->nr;
	r->control = e->o->control;
	snprintf(r->activation, sizeof(r->activation), "%s", e->activation);
	for (i = 0; i < e->nr; i++) {
		struct bench_node_result *n = &r->nodes[i];

		n->node = e->node[i];
		n->samples = e->rounds;
		bench_median_ci(e->before[s][i], e->rounds, &n->before);
		bench_median_ci(e->after[s][i], e->rounds, &n->after);
		bench_compare(n, e->before[s][i], e->after[s][i], e->rounds);
	}
}

void bench_engine_teardown(struct bench_engine *e)
{
	struct kt_err err;
	size_t s;
	int i;

	bench_progress_end();
	if (e->ktrepl_loaded && bench_unload_ktrepl(e, &err))
		fprintf(stderr, "ktrepl-bench: warning: %s\n", err.msg);
	for (s = 0; s < e->nr_series; s++) {
		for (i = 0; i < e->nr; i++) {
			free(e->before[s][i]);
			free(e->after[s][i]);
			e->before[s][i] = e->after[s][i] = NULL;
		}
	}
	kt_state_free(&e->state);
}
