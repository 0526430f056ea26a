// SPDX-License-Identifier: GPL-2.0
/*
 * Opening what ktrepl-top measures, collecting samples through a frame's
 * wait, and turning them into frames; the front ends only draw.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lockdown.h"
#include "top.h"

/*
 * The module's state when it is loaded; otherwise what VMCOREINFO in
 * kcore tells of a kernel without replication, which is then measured
 * on its one set of tables.
 */
static int open_state(struct top *top, struct kt_err *err)
{
	int ret;

	ret = kt_state_load_debugfs(&top->st, top->opts.debugfs_dir, err);
	if (!ret) {
		top->have_module = true;
		return 0;
	}
	if (err->code != ENOENT)
		return ret;	/* present but unreadable or garbage: say so */
	kt_err_clear(err);
	return kt_state_load_plain(&top->st, top->src, err);
}

static int open_symbols(struct top *top, struct kt_err *err)
{
	uint64_t start = 0, end = 0;
	int text;

	if (kt_symtab_load_map(&top->syms, top->opts.kallsyms_path, err))
		return -err->code;
	top->have_syms = true;
	top->loc.syms = &top->syms;
	kt_symtab_drop_foreign(&top->syms, &top->st);
	text = kt_state_region(&top->st, "text");
	if (text >= 0) {
		start = top->st.regions[text].start;
		end = top->st.regions[text].end;
	} else {
		start = kt_symtab_addr(&top->syms, "_stext");
		end = kt_symtab_addr(&top->syms, "_etext");
	}
	if (!start || end <= start)
		return kt_err_set(err, ENOENT,
				  "%s: no _stext/_etext (are addresses hidden? kptr_restrict needs root)",
				  top->opts.kallsyms_path);
	top->loc.core.start = start;
	top->loc.core.end = end;
	return 0;
}

/* without the module: the node that holds the kernel's one copy of text */
static void find_master_node(struct top *top)
{
	struct kt_mapping m;
	struct kt_err err;

	kt_err_clear(&err);
	if (!kt_translate(top->loc.arch, &top->loc.geo, top->src,
			  top->st.master_root_pa, top->loc.core.start, &m, &err) &&
	    m.present)
		top->st.master_node = kt_numa_pa_node(&top->numa, m.pa);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	poll(NULL, 0, ms);
}

/*
 * Sampling starts when everything else is open. In frequency mode
 * (cycles) the kernel starts from a period of one event and floods the
 * buffers until it has found the period: that burst, and the loss record
 * the kernel writes once there is room again, belong to no frame.
 */
static int start_sampling(struct top *top, struct kt_err *err)
{
	int ret;

	ret = kt_sampler_enable(top->sampler, err);
	top->frame_start_ns = now_ns();
	if (ret || top->opts.event != KT_EVENT_CYCLES)
		return ret;
	sleep_ms(200);
	ret = top_collect(top, err);
	sleep_ms(20);
	if (!ret)
		ret = top_collect(top, err);
	top->nr_pending = 0;
	memset(&top->pending_counts, 0, sizeof(top->pending_counts));
	top->frame_start_ns = now_ns();
	return ret;
}

/* one more of what a caller lacks, "; " between them */
static void lacks(char *buf, size_t len, const char *what)
{
	size_t n = strlen(buf), w;

	if (n && n + 2 < len) {
		memcpy(buf + n, "; ", 2);
		n += 2;
	}
	w = strnlen(what, len - n - 1);
	memcpy(buf + n, what, w);
	buf[n + w] = '\0';
}

/*
 * Not root: each thing ktrepl-top needs, checked as the kernel will,
 * and every missing one named, so that CAP_PERFMON alone is not let
 * through to fail later on /proc/kcore or ktrepl's 0400 files.
 */
static int check_access(const struct top *top, struct kt_err *err)
{
	char missing[512] = "", path[4096];
	bool real_kcore = !strcmp(top->opts.kcore_path, "/proc/kcore");

	if (geteuid() == 0)
		return 0;
	if (!kt_sampler_privileged())
		lacks(missing, sizeof(missing),
		      "CAP_PERFMON (perf_event_open on every CPU; see kernel.perf_event_paranoid)");
	if (real_kcore && !kt_have_cap(CAP_SYS_RAWIO))
		lacks(missing, sizeof(missing), "CAP_SYS_RAWIO (opening /proc/kcore)");
	if (faccessat(AT_FDCWD, top->opts.kcore_path, R_OK, AT_EACCESS)) {
		snprintf(path, sizeof(path),
			 "CAP_DAC_READ_SEARCH (reading %s: %s)",
			 top->opts.kcore_path, strerror(errno));
		lacks(missing, sizeof(missing), path);
	}
	snprintf(path, sizeof(path), "%s/summary", top->opts.debugfs_dir);
	if (!faccessat(AT_FDCWD, top->opts.debugfs_dir, F_OK, AT_EACCESS) &&
	    faccessat(AT_FDCWD, path, R_OK, AT_EACCESS)) {
		snprintf(path, sizeof(path),
			 "CAP_DAC_READ_SEARCH (ktrepl's root-only files in %s)",
			 top->opts.debugfs_dir);
		lacks(missing, sizeof(missing), path);
	}
	if (missing[0])
		return kt_err_set(err, EPERM,
				  "needs root or the capabilities it lacks: %s",
				  missing);
	return 0;
}

int top_open(struct top *top, struct kt_err *err)
{
	struct kt_target target;
	int cpus[KT_NUMA_MAX_CPUS], nr = 0, i, ret;

	if (!getenv("KTREPL_NO_ROOT_CHECK")) {
		ret = check_access(top, err);
		if (ret)
			return ret;
	}
	ret = kt_numa_load(&top->numa, top->opts.sysfs_dir, err);
	if (ret)
		return ret;
	/* perf access is what most often fails: say so before anything else */
	for (i = 0; i < top->numa.nr_cpus; i++)
		if (top->numa.cpu_node[i] >= 0)
			cpus[nr++] = i;
	ret = kt_sampler_open(&top->sampler, cpus, nr,
			      &(struct kt_sampler_opts){
				      .rate_hz = top->opts.rate_hz,
				      .event = top->opts.event,
				      .ring_pages = top->opts.ring_pages,
			      }, err);
	if (ret)
		return ret;
	ret = kt_memsrc_open_kcore(&top->src, top->opts.kcore_path, err);
	if (ret)
		return ret;
	ret = open_state(top, err);
	if (ret)
		return ret;
	/* the one place a state becomes an arch and a geometry */
	ret = kt_target_init(&target, &top->st, top->src, NULL, err);
	if (ret)
		return ret;
	top->loc.arch = target.arch;
	top->loc.geo = target.geo;
	top->loc.src = top->src;
	top->loc.numa = &top->numa;
	ret = open_symbols(top, err);
	if (!ret)
		ret = kt_loc_load_modules(&top->loc, top->opts.modules_path, err);
	if (!ret)
		ret = kt_loc_set_rule(&top->loc, &top->st, err);
	if (ret)
		return ret;
	kt_loc_init(&top->loc);
	if (!top->have_module)
		find_master_node(top);
	return start_sampling(top, err);
}

void top_close(struct top *top)
{
	kt_sampler_close(top->sampler);
	kt_loc_free(&top->loc);
	if (top->have_syms)
		kt_symtab_free(&top->syms);
	kt_state_free(&top->st);
	kt_memsrc_close(top->src);
	kt_numa_free(&top->numa);
	free(top->pending);
	free(top->prev_tasks);
}

static void keep_sample(const struct kt_sample *s, void *arg)
{
	struct top *top = arg;

	if (top->nr_pending == top->pending_cap) {
		size_t cap = top->pending_cap ? top->pending_cap * 2 : 4096;
		struct kt_sample *grown;

		grown = realloc(top->pending, cap * sizeof(*grown));
		if (!grown) {
			top->pending_counts.lost++;	/* counted, never gone */
			return;
		}
		top->pending = grown;
		top->pending_cap = cap;
	}
	top->pending[top->nr_pending++] = *s;
}

int top_collect(struct top *top, struct kt_err *err)
{
	return kt_sampler_drain(top->sampler, keep_sample, top,
				&top->pending_counts, err);
}

/*
 * ktrepl.ko loaded (or loaded again) while we run: from now on its
 * workers resolve through their tables. Same kernel, same paging.
 */
static void attach_module(struct top *top)
{
	struct kt_state st;
	struct kt_err err;
	char path[1100];

	snprintf(path, sizeof(path), "%s/abi", top->opts.debugfs_dir);
	if (access(path, R_OK))
		return;
	kt_err_clear(&err);
	if (kt_state_load_debugfs(&st, top->opts.debugfs_dir, &err)) {
		snprintf(top->refresh_error, sizeof(top->refresh_error), "%s",
			 err.msg);
		return;
	}
	kt_state_free(&top->st);
	top->st = st;
	top->have_module = true;
}

/*
 * Workers listed now, plus those of the previous refresh: a worker that
 * stopped during the frame ran on its tables until then.
 */
static int refresh_workers(struct top *top, struct kt_err *err)
{
	struct kt_task_state *both;
	size_t n = top->st.nr_tasks, i;
	struct kt_state view;
	int ret;

	both = calloc(n + top->nr_prev_tasks + 1, sizeof(*both));
	if (!both)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (n)	/* no tasks: st.tasks may be NULL, which memcpy may not get */
		memcpy(both, top->st.tasks, n * sizeof(*both));
	for (i = 0; i < top->nr_prev_tasks; i++) {
		size_t j;

		for (j = 0; j < top->st.nr_tasks; j++)
			if (top->st.tasks[j].pid == top->prev_tasks[i].pid)
				break;
		if (j == top->st.nr_tasks)
			both[n++] = top->prev_tasks[i];
	}
	view = top->st;
	view.tasks = both;
	view.nr_tasks = n;
	ret = kt_loc_set_rule(&top->loc, &view, err);
	free(both);
	free(top->prev_tasks);
	top->prev_tasks = NULL;
	top->nr_prev_tasks = 0;
	if (top->st.nr_tasks) {
		top->prev_tasks = calloc(top->st.nr_tasks, sizeof(*top->prev_tasks));
		if (!top->prev_tasks)
			return kt_err_set(err, ENOMEM, "out of memory");
		memcpy(top->prev_tasks, top->st.tasks,
		       top->st.nr_tasks * sizeof(*top->prev_tasks));
		top->nr_prev_tasks = top->st.nr_tasks;
	}
	return ret;
}

int top_end_frame(struct top *top, struct kt_err *err)
{
	uint64_t now;
	size_t i;
	int ret;

	ret = top_collect(top, err);
	if (ret)
		return ret;
	/* from the collection that closed the last frame to this one */
	now = now_ns();
	top->frame_ns = now - top->frame_start_ns;
	top->frame_start_ns = now;
	/*
	 * The workers are read after the samples were taken, so every
	 * worker that ran in this frame is known when its samples resolve.
	 */
	top->refresh_error[0] = '\0';
	if (top->have_module) {
		struct kt_err rerr;

		kt_err_clear(&rerr);
		if (kt_state_refresh(&top->st, top->opts.debugfs_dir, &rerr)) {
			/* unloaded under us: carry on as a kernel without it */
			snprintf(top->refresh_error, sizeof(top->refresh_error),
				 "%s", rerr.msg);
			top->st.nr_tasks = 0;
			top->st.activation = KT_ACT_GONE;
			top->have_module = false;
		}
	} else {
		attach_module(top);
		if (!top->have_module && top->st.activation == KT_ACT_GONE &&
		    !top->refresh_error[0])
			snprintf(top->refresh_error, sizeof(top->refresh_error),
				 "ktrepl.ko was unloaded: every CPU is on the master's tables");
	}
	ret = refresh_workers(top, err);
	if (ret)
		return ret;
	/* the previous frame stays on show until this one is complete */
	kt_loc_begin_frame(&top->loc);
	for (i = 0; i < top->nr_pending; i++)
		kt_loc_add(&top->loc, &top->pending[i]);
	top->loc.lost = top->pending_counts.lost;
	top->loc.throttles = top->pending_counts.throttles;
	memset(&top->pending_counts, 0, sizeof(top->pending_counts));
	top->nr_pending = 0;
	kt_loc_end_frame(&top->loc);
	kt_loc_fidelity(&top->loc, top->opts.rate_hz, top->frame_ns,
			&top->fidelity);
	top->frame++;
	return 0;
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

void top_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool top_stop_requested(void)
{
	return stop_requested;
}


/* Sleep through one frame, draining the buffers as it goes. */
int top_wait_frame(struct top *top, int (*on_tick)(struct top *, void *),
		   void *arg, struct kt_err *err)
{
	uint64_t start = now_ns(), end = start + (uint64_t)(top->opts.delay * 1e9);
	long drain_ms = 4000L * 1000 / top->opts.rate_hz;
	int ret;

	if (drain_ms > 1000)
		drain_ms = 1000;
	if (drain_ms < 5)
		drain_ms = 5;

	for (;;) {
		uint64_t now = now_ns();
		int ms;

		if (now >= end || stop_requested)
			break;
		ms = (end - now) / 1000000;
		/*
		 * Drain when a CPU's buffer is at most half full (its 64 pages
		 * hold about 8000 samples), and no more often than that: each
		 * wakeup is the tool's own cost.
		 */
		if (ms > drain_ms)
			ms = drain_ms;
		if (on_tick) {
			ret = on_tick(top, arg);
			if (ret)
				return ret;	/* >0: the user asked to quit */
		} else {
			poll(NULL, 0, ms ? ms : 1);
		}
		ret = top_collect(top, err);
		if (ret)
			return ret;
	}
	return stop_requested ? 1 : 0;
}
