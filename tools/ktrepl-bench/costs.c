// SPDX-License-Identifier: GPL-2.0
/*
 * The costs benchmark: what replication takes, one figure each, no
 * before and after (docs/man/ktrepl-bench.8).
 *
 *   memory          per node: the replica's text, rodata and module copies
 *                   (ktrepl's replicas file, extents on non-master nodes)
 *                   and its private tables (the node record's
 *                   overhead_bytes less those copies), while loaded
 *   load_ns         ktrepl.ko's load, from the call to its return
 *   ftrace_ns       the function tracer switched on, then off, through
 *                   tracefs; without ktrepl.ko, and with it (every site
 *                   patched in each replica too)
 *   static_key_ns   a static key of the bench module enabled, then
 *                   disabled (its debugfs static_key file); without and
 *                   with ktrepl.ko
 *   pingpong        x86_64 mm: a pipe round trip between two processes
 *                   confined to node 0 (so bound to its set) against the
 *                   same two with every CPU allowed (not bound)
 *
 * A figure that cannot be measured carries its reason instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_REPS 15
#define BENCH_STATIC_KEY BENCH_TEXT_DIR "/static_key"

static struct bench_cost *add_cost(struct bench_costs *c, const char *name,
				   const char *what, const char *unit)
{
	struct bench_cost *k = &c->c[c->nr++];

	k->name = name;
	k->what = what;
	k->unit = unit;
	k->value = 0;
	snprintf(k->reason, sizeof(k->reason), "not measured");
	return k;
}

static void set_value(struct bench_cost *k, double v)
{
	k->value = v;
	k->reason[0] = '\0';
}

/* one reason for several figures */
static void copy_reason(struct bench_cost *to, const char *from)
{
	size_t n = strnlen(from, sizeof(to->reason) - 1);

	memmove(to->reason, from, n);
	to->reason[n] = '\0';
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;
	ssize_t n = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* tracefs's directory, mounted if it is not; "" with the reason if none */
static const char *tracefs(char *reason, size_t len)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", BENCH_DEBUGFS "/tracing",
	};
	static char buf[4096];
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/current_tracer", dirs[i]);
		if (access(path, F_OK) && i == 0)
			mount("nodev", dirs[0], "tracefs", 0, NULL);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/available_tracers", dirs[i]);
		if (!bench_read_file(path, buf, sizeof(buf))) {
			snprintf(reason, len, "%s: unreadable (%s)", path,
				 strerror(errno));
			return "";
		}
		if (!strstr(buf, "function")) {
			snprintf(reason, len, "no function tracer in %s (CONFIG_FUNCTION_TRACER off)",
				 path);
			return "";
		}
		return dirs[i];
	}
	snprintf(reason, len, "no tracefs (CONFIG_FTRACE off, or tracefs cannot be mounted at /sys/kernel/tracing)");
	return "";
}

/* the function tracer on, then off: median of reps */
static void ftrace_cost(struct bench_cost *k, int reps)
{
	double t[MAX_REPS], t0;
	char path[160], cur[64];
	const char *dir;
	int i, ret;

	dir = tracefs(k->reason, sizeof(k->reason));
	if (!dir[0])
		return;
	snprintf(path, sizeof(path), "%s/current_tracer", dir);
	if (bench_read_file(path, cur, sizeof(cur)) && strncmp(cur, "nop", 3)) {
		cur[strcspn(cur, "\n")] = '\0';
		snprintf(k->reason, sizeof(k->reason),
			 "tracer '%s' is in use: not switched off for a measurement",
			 cur);
		return;
	}
	for (i = 0; i < reps; i++) {
		t0 = bench_now_s();
		ret = write_str(path, "function");
		if (!ret)
			ret = write_str(path, "nop");
		t[i] = (bench_now_s() - t0) * 1e9;
		if (ret) {
			write_str(path, "nop");
			snprintf(k->reason, sizeof(k->reason),
				 "writing %s: %s%s", path, strerror(-ret),
				 ret == -EPERM ? " (lockdown forbids tracefs writes)" : "");
			return;
		}
	}
	set_value(k, median(t, reps));
}

/* a write flips the key, a read of the same open file says how long */
static bool flip_static_key(char *buf, size_t len)
{
	int fd = open(BENCH_STATIC_KEY, O_RDWR | O_CLOEXEC);
	ssize_t n = -1;
	int saved;

	if (fd < 0)
		return false;
	if (write(fd, "flip\n", 5) == 5)
		n = read(fd, buf, len - 1);
	saved = errno;
	close(fd);
	errno = saved;
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

static void static_key_cost(struct bench_cost *k, int reps)
{
	double t[MAX_REPS];
	char buf[128];
	const char *p;
	int i;

	for (i = 0; i < reps; i++) {
		if (!flip_static_key(buf, sizeof(buf))) {
			snprintf(k->reason, sizeof(k->reason),
				 "%s: no flip (%s): a bench module without the static_key knob?",
				 BENCH_STATIC_KEY, strerror(errno));
			return;
		}
		p = strstr(buf, "ns=");
		if (!p || !strstr(buf, "enabled_seen=1")) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(k->reason, sizeof(k->reason), "%s said '%s'",
				 BENCH_STATIC_KEY, buf);
			return;
		}
		t[i] = strtod(p + 3, NULL);
	}
	set_value(k, median(t, reps));
}

static int load_bench(struct bench_engine *e, struct kt_err *err)
{
	int ret;

	sched_setaffinity(0, sizeof(e->cpus[0]), &e->cpus[0]);
	ret = bench_module_load(e->o->bench_module_path, BENCH_TEXT_MODULE,
				"", err);
	sched_setaffinity(0, sizeof(e->saved), &e->saved);
	return ret;
}

/* a pipe round trip, n times, between this process and a child */
static int pingpong(int n, double *ns)
{
	int a[2], b[2], i;
	char byte = 0;
	double t0;
	pid_t pid;

	if (pipe(a))
		return -errno;
	if (pipe(b)) {
		close(a[0]);
		close(a[1]);
		return -errno;
	}
	pid = fork();
	if (!pid) {
		/* the parent's ends closed here, its close is our EOF */
		close(a[1]);
		close(b[0]);
		while (read(a[0], &byte, 1) == 1 && write(b[1], &byte, 1) == 1)
			;
		_exit(0);
	}
	t0 = bench_now_s();
	for (i = 0; pid > 0 && i < n; i++)
		if (write(a[1], &byte, 1) != 1 || read(b[0], &byte, 1) != 1)
			break;
	*ns = (bench_now_s() - t0) * 1e9 / n;
	close(a[1]);
	close(b[0]);
	close(a[0]);
	close(b[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid < 0 || i < n ? -EIO : 0;
}

struct pp_arg {
	int n, reps;
};

/* in a runner child: the ping-pong, its child forked confined too */
static int pp_child(void *arg, double *ns, char *why, size_t len)
{
	const struct pp_arg *a = arg;
	double t[MAX_REPS];
	int i, ret;

	for (i = 0; i < a->reps; i++) {
		ret = pingpong(a->n, &t[i]);
		if (ret) {
			snprintf(why, len, "pipe ping-pong failed");
			return ret;
		}
	}
	ns[0] = median(t, a->reps);
	return 0;
}

static void pingpong_cost(struct bench_engine *e, struct bench_costs *c,
			  int reps, struct bench_cost *bound,
			  struct bench_cost *unbound, struct bench_cost *ratio)
{
	struct pp_arg a = { e->o->quick ? 500 : 5000, reps };
	double tb, tu;
	struct kt_err err;

	if (strcmp(c->activation, "mm")) {
		snprintf(ratio->reason, sizeof(ratio->reason),
			 "activation=%s: only x86_64's mm binds processes to a node's set",
			 c->activation);
		copy_reason(bound, ratio->reason);
		copy_reason(unbound, ratio->reason);
		return;
	}
	/* confined to node 0, waits until bound (the engine's runner) */
	if (bench_engine_child(e, 0, true, pp_child, &a, &tb, 1, &err)) {
		copy_reason(bound, err.msg);
		copy_reason(ratio, err.msg);
	} else {
		set_value(bound, tb);
	}
	if (pp_child(&a, &tu, unbound->reason, sizeof(unbound->reason))) {
		copy_reason(ratio, unbound->reason);
		return;
	}
	set_value(unbound, tu);
	if (!bound->reason[0])
		set_value(ratio, tb / tu);
}

/*
 * Per node: its copies of the image's text and rodata and of the modules
 * (the replicas file's extents, by region), and its tables (the node's
 * overhead less those). The master's extents describe the original
 * image, and an alias node uses another's copies: neither costs a copy.
 */
static void memory_cost(struct bench_costs *c, const struct kt_state *st)
{
	size_t x;
	int i;

	c->nr_mem = 0;
	for (i = 0; i < st->nr_nodes && c->nr_mem < KT_MAX_NODES; i++) {
		struct bench_mem_node *n = &c->mem[c->nr_mem++];

		memset(n, 0, sizeof(*n));
		n->node = st->nodes[i].nid;
		snprintf(n->role, sizeof(n->role), "%s",
			 kt_role_name(st->nodes[i].role));
		n->total = st->nodes[i].overhead;
	}
	if (!c->nr_mem) {
		snprintf(c->mem_reason, sizeof(c->mem_reason),
			 "no node records in %s", KTREPL_DIR "/summary");
		return;
	}
	for (x = 0; x < st->nr_extents; x++) {
		const struct kt_extent_state *ext = &st->extents[x];
		const struct kt_region_state *r = &st->regions[ext->region];
		struct bench_mem_node *n = NULL;

		for (i = 0; i < c->nr_mem; i++)
			if (c->mem[i].node == ext->node)
				n = &c->mem[i];
		if (!n || strcmp(n->role, kt_role_name(KT_ROLE_REPLICA)))
			continue;
		if (r->module)
			n->modules += ext->size;
		else if (!strcmp(r->name, "text"))
			n->text += ext->size;
		else if (!strcmp(r->name, "rodata"))
			n->rodata += ext->size;
	}
	for (i = 0; i < c->nr_mem; i++) {
		struct bench_mem_node *n = &c->mem[i];
		uint64_t copies = n->text + n->rodata + n->modules;

		n->tables = n->total > copies ? n->total - copies : 0;
	}
	c->mem_reason[0] = '\0';
}

/*
 * --control: ktrepl.ko in neither arm, so each "loaded" figure is the
 * first one measured again, and their difference is what the noise alone
 * gives. What needs the module loaded is not measured.
 */
static void control_costs(struct bench_costs *c, struct bench_cost *ft_off,
			  struct bench_cost *ft_on, int ftrace_reps)
{
	static const char why[] = "--control: ktrepl.ko is loaded in neither arm";
	size_t i;

	snprintf(c->mem_reason, sizeof(c->mem_reason), "%s", why);
	snprintf(c->activation, sizeof(c->activation), "none (control)");
	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->c[i].name, "load_ns") ||
		    !strncmp(c->c[i].name, "pingpong_", 9))
			copy_reason(&c->c[i], why);
	if (ft_off->reason[0] && strcmp(ft_off->reason, "not measured"))
		copy_reason(ft_on, ft_off->reason);
	else
		ftrace_cost(ft_on, ftrace_reps);
}

int bench_costs_run(const struct bench_opts *o, const struct bench_machine *m,
		    struct bench_costs *c, struct kt_err *err)
{
	struct bench_engine e = { .o = o, .m = m, .name = "costs" };
	struct bench_cost *load, *ft_off, *ft_on, *sk_off, *sk_on;
	struct bench_cost *pp_bound, *pp_unbound, *pp_ratio;
	int reps = o->quick ? 3 : 11, i, ret;
	/* one switch of the tracer takes seconds under emulation */
	int ftrace_reps = o->quick ? 1 : 5;
	double start = bench_now_s(), t[MAX_REPS], cycle_s = 0, t0, t_extra;
	double extra_s;
	bool bench_ok;
	struct kt_err berr;

	memset(c, 0, sizeof(*c));
	snprintf(c->mem_reason, sizeof(c->mem_reason), "not measured");
	c->control = o->control;
	load = add_cost(c, "load_ns", "ktrepl.ko load, call to return (median)", "ns");
	ft_off = add_cost(c, "ftrace_ns", "function tracer on then off, ktrepl.ko not loaded", "ns");
	ft_on = add_cost(c, "ftrace_loaded_ns", o->control ?
			 "function tracer on then off, second arm (not loaded)" :
			 "function tracer on then off, ktrepl.ko loaded", "ns");
	sk_off = add_cost(c, "static_key_ns", "static key enable then disable, ktrepl.ko not loaded", "ns");
	sk_on = add_cost(c, "static_key_loaded_ns", o->control ?
			 "static key enable then disable, second arm (not loaded)" :
			 "static key enable then disable, ktrepl.ko loaded", "ns");
	pp_bound = add_cost(c, "pingpong_bound_ns", "pipe round trip, both confined to node 0 (bound)", "ns");
	pp_unbound = add_cost(c, "pingpong_unbound_ns", "pipe round trip, every CPU allowed (unbound)", "ns");
	pp_ratio = add_cost(c, "pingpong_ratio", "bound / unbound round trip", "ratio");

	ret = bench_engine_setup(&e, err);
	if (ret)
		return ret;
	if (bench_module_loaded(BENCH_TEXT_MODULE))
		return kt_err_set(err, EBUSY,
				  "%s is loaded already: unload it (rmmod %s), ktrepl-bench loads it itself",
				  BENCH_TEXT_MODULE, BENCH_TEXT_MODULE);

	ftrace_cost(ft_off, ftrace_reps);
	/* ktrepl.ko's loads, without the 32 MiB bench module in the way */
	c->reps = o->control ? 0 : reps;
	for (i = 0; !o->control && i < reps; i++) {
		/* the run's limit: the first load always, then none that ends past it */
		if (i && bench_past_deadline(o, cycle_s)) {
			c->time_limited = true;
			break;
		}
		t0 = bench_now_s();
		extra_s = 0;
		ret = bench_load_ktrepl(&e, &t[i], err);
		if (ret)
			goto out;
		if (!i) {
			t_extra = bench_now_s();
			ret = bench_ktrepl_state(&e, err);
			if (ret)
				goto out;
			snprintf(c->activation, sizeof(c->activation), "%s",
				 e.activation);
			memory_cost(c, &e.state);
			if (ft_off->reason[0] && strcmp(ft_off->reason, "not measured"))
				copy_reason(ft_on, ft_off->reason);
			else
				ftrace_cost(ft_on, ftrace_reps);
			pingpong_cost(&e, c, reps, pp_bound, pp_unbound,
				      pp_ratio);
			extra_s = bench_now_s() - t_extra;
		}
		ret = bench_unload_ktrepl(&e, err);
		if (ret)
			goto out;
		bench_progress("costs: load %d of %d", i + 1, reps);
		/* a load and an unload, not the first one's extras */
		cycle_s = bench_now_s() - t0 - extra_s;
	}
	c->reps_done = i;
	if (o->control)
		control_costs(c, ft_off, ft_on, ftrace_reps);
	else
		set_value(load, median(t, c->reps_done));

	/* the static key: its site lies in the bench module's text */
	bench_ok = !load_bench(&e, &berr);
	if (!bench_ok) {
		snprintf(sk_off->reason, sizeof(sk_off->reason),
			 "loading the benchmark module: %.200s", berr.msg);
		copy_reason(sk_on, sk_off->reason);
	} else {
		static_key_cost(sk_off, reps);
		if (o->control) {
			static_key_cost(sk_on, reps);
		} else {
			ret = bench_load_ktrepl(&e, NULL, err);
			if (!ret) {
				static_key_cost(sk_on, reps);
				ret = bench_unload_ktrepl(&e, err);
			}
		}
		if (bench_module_unload(BENCH_TEXT_MODULE, &berr))
			fprintf(stderr, "ktrepl-bench: warning: %s\n",
				berr.msg);
	}
out:
	c->ran = !ret;
	c->seconds = bench_now_s() - start;
	bench_engine_teardown(&e);
	return ret;
}
