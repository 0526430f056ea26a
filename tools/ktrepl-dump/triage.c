// SPDX-License-Identifier: GPL-2.0
/*
 * triage: the boot after a panic judges the dumps kdump-tools saved.
 *
 * kdump-tools leaves each capture in DIR/<stamp>/ as dump.<stamp> beside
 * dmesg.<stamp>; a capture that did not finish leaves dump-incomplete.
 * Each dump without a VERDICT_FILE beside it is judged by a child process
 * under a time and a memory limit, at idle CPU and I/O priority. The
 * child writes the verdict to a temporary file; the parent renames it
 * into place only when the child finished, and otherwise writes a verdict
 * that says the analysis failed and why. So each dump is judged once,
 * a damaged one gets a verdict that says so, and nothing here writes to
 * a dump or removes one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json_writer.h"
#include "main.h"
#include "panic.h"
#include "prometheus.h"

#define DEFAULT_CRASH_DIR "/var/crash"
#define VERDICT_FILE "ktrepl-verdict.json"
#define VERDICT_FORMAT 1
/* seconds per dump: a verify of a 30 MB-per-node dump takes seconds */
#define DEFAULT_TIMEOUT 600
/* heap per dump: the state, the ranges, the symbols, libkdumpfile's cache */
#define DATA_LIMIT (2ULL << 30)
/*
 * AddressSanitizer maps its shadow (terabytes of address space) as the
 * process runs: under a data limit those maps fail and the child dies.
 * A sanitized build (tests only) judges without the limit.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* violations a verdict lists (all are counted) */
#define VERDICT_VIOLATIONS 16
#define MAX_DUMPS 4096

/* why a verdict is what it is: the metric's reason label */
enum reason {
	R_PANIC_IN_DIVERGED,
	R_DIVERGED_OFF_PATH,
	R_REPLICAS_HEALTHY,
	R_NO_PANIC_CPU,
	R_NO_REGISTERS,
	R_NO_DESCRIPTOR,
	R_UNREADABLE,
	R_READ_ERROR,
	R_TIMED_OUT,
	R_ANALYSIS_DIED,
	R_NR
};

static const char *const reason_names[R_NR] = {
	[R_PANIC_IN_DIVERGED] = "panic_in_diverged_range",
	[R_DIVERGED_OFF_PATH] = "diverged_off_panic_path",
	[R_REPLICAS_HEALTHY] = "replicas_healthy",
	[R_NO_PANIC_CPU] = "no_panic_cpu",
	[R_NO_REGISTERS] = "no_registers",
	[R_NO_DESCRIPTOR] = "no_descriptor",
	[R_UNREADABLE] = "unreadable",
	[R_READ_ERROR] = "read_error",
	[R_TIMED_OUT] = "timed_out",
	[R_ANALYSIS_DIED] = "analysis_died",
};

/* one dump's judgement, gathered before any of it is written */
struct judgement {
	enum kt_triage_verdict verdict;
	enum reason reason;
	int node;		/* the panic's set node, -1 */
	char summary[1200];
	char error[sizeof(((struct kt_err *)0)->msg)];
	char release[80];
	bool opened, described;
	bool verified;
	char verify_error[sizeof(((struct kt_err *)0)->msg)];
	struct kt_verify_stats vstats;
	struct kt_violation viol[VERDICT_VIOLATIONS];
	struct kt_diff viol_diff[VERDICT_VIOLATIONS];
	int nr_viol;
	bool recorded;
	char panic_error[sizeof(((struct kt_err *)0)->msg)];
	struct kt_panic_record rec;
	bool have_set;
	struct kt_panic_set set;
	struct kt_panic_verdict pv;
};

struct dump_entry {
	char dir[512];		/* DIR/<stamp> */
	char name[256];		/* dump.<stamp>, or dump-incomplete */
	struct stat sb;
};

static double now_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int keep_violation(const struct kt_violation *v, void *arg)
{
	struct judgement *j = arg;

	if (j->nr_viol >= VERDICT_VIOLATIONS)
		return 0;
	j->viol[j->nr_viol] = *v;
	if (v->diff) {
		j->viol_diff[j->nr_viol] = *v->diff;
		j->viol[j->nr_viol].diff = &j->viol_diff[j->nr_viol];
	}
	j->nr_viol++;
	return 0;
}

/*
 * Where the panic was and what ran there, from the kernel's own record:
 * panic_cpu and its crash note (a -dbg vmlinux and crash are not needed).
 */
static void judge_panic(struct dump_target *dt, struct judgement *j)
{
	const struct kt_symtab *syms = kt_target_symbols(&dt->t);
	uint64_t addrs[2];
	struct kt_err err;
	int n = 0;

	kt_err_clear(&err);
	if (kt_panic_record_read(&dt->t, syms, &j->rec, &err)) {
		snprintf(j->panic_error, sizeof(j->panic_error), "%s", err.msg);
		return;
	}
	j->recorded = true;
	if (j->rec.cpu < 0)
		return;
	if (kt_panic_set_of(&dt->t, j->rec.cpu,
			    j->rec.have_note ? j->rec.note.pid : 0,
			    j->rec.have_note ? j->rec.note.pid : 0, &j->set,
			    &err)) {
		snprintf(j->panic_error, sizeof(j->panic_error), "%s", err.msg);
		return;
	}
	j->have_set = true;
	j->node = j->set.ns ? j->set.ns->nid : -1;
	if (kt_panic_ranges(&dt->t, &j->set, &j->pv, &err)) {
		snprintf(j->panic_error, sizeof(j->panic_error), "%s", err.msg);
		return;
	}
	if (!j->rec.have_note)
		return;
	addrs[n++] = j->rec.note.pc;
	if (j->rec.note.lr && j->rec.note.lr != j->rec.note.pc)
		addrs[n++] = j->rec.note.lr;
	kt_panic_match(&dt->t, &j->pv, addrs, n);
}

/* the verdict, by precedence: what most explains the dump */
static void conclude(struct judgement *j)
{
	if (!j->opened) {
		j->verdict = KT_TRIAGE_DAMAGED;
		j->reason = R_UNREADABLE;
		snprintf(j->summary, sizeof(j->summary),
			 "the dump cannot be read: %.1100s", j->error);
	} else if (!j->described) {
		j->verdict = KT_TRIAGE_NO_KTREPL;
		j->reason = R_NO_DESCRIPTOR;
		snprintf(j->summary, sizeof(j->summary),
			 "no trusted ktrepl descriptor: %.1100s", j->error);
	} else if (j->pv.outcome == KT_PANIC_DIVERGED) {
		j->verdict = KT_TRIAGE_DIVERGED;
		j->reason = R_PANIC_IN_DIVERGED;
		snprintf(j->summary, sizeof(j->summary),
			 "the panic on cpu %d ran through %u diverged range%s of node %d's replica: a replica divergence is the likely cause",
			 j->rec.cpu, j->pv.ranges_hit,
			 j->pv.ranges_hit == 1 ? "" : "s", j->node);
	} else if (!j->verified || *j->panic_error) {
		j->verdict = KT_TRIAGE_DAMAGED;
		j->reason = R_READ_ERROR;
		snprintf(j->summary, sizeof(j->summary),
			 "part of the dump cannot be read: %.1100s",
			 *j->verify_error ? j->verify_error : j->panic_error);
	} else if (j->pv.outcome == KT_PANIC_NOT_DIVERGED) {
		j->verdict = KT_TRIAGE_NOT_DIVERGED;
		j->reason = j->vstats.total ? R_DIVERGED_OFF_PATH :
					      R_REPLICAS_HEALTHY;
		snprintf(j->summary, sizeof(j->summary),
			 "the panic on cpu %d is not in a diverged range (%zu range%s on node %d; verify found %u violation%s)",
			 j->rec.cpu, j->pv.nr_ranges,
			 j->pv.nr_ranges == 1 ? " differs" : "s differ",
			 j->node,
			 j->vstats.total, j->vstats.total == 1 ? "" : "s");
	} else {
		j->verdict = KT_TRIAGE_UNKNOWN;
		j->reason = j->rec.cpu < 0 ? R_NO_PANIC_CPU : R_NO_REGISTERS;
		snprintf(j->summary, sizeof(j->summary),
			 "where the panic was is unknown: %s; verify found %u violation%s",
			 j->rec.cpu < 0 ? "no CPU claimed panic_cpu" :
					  j->rec.why_no_note,
			 j->vstats.total, j->vstats.total == 1 ? "" : "s");
	}
}

static void write_addr(struct json_writer *jw, struct dump_target *dt,
		       const struct judgement *j, int i)
{
	char sym[160];
	int r = j->pv.addr_range[i];

	jsonw_start_object(jw);
	jsonw_hex_field(jw, "addr", j->pv.addrs[i]);
	kt_target_name_addr(&dt->t, j->pv.addrs[i], sym, sizeof(sym));
	jsonw_string_field(jw, "sym", sym);
	jsonw_bool_field(jw, "in_diverged_range", r >= 0);
	if (r >= 0) {
		jsonw_hex_field(jw, "range_va", j->pv.ranges[r].va);
		jsonw_uint_field(jw, "range_len", j->pv.ranges[r].len);
		jsonw_string_field(jw, "range_sym", j->pv.ranges[r].sym);
		jsonw_string_field(jw, "range_kind", j->pv.ranges[r].kind);
	}
	jsonw_end_object(jw);
}

static void write_panic(struct json_writer *jw, struct dump_target *dt,
			const struct judgement *j)
{
	int i;

	jsonw_name(jw, "panic");
	jsonw_start_object(jw);
	jsonw_int_field(jw, "cpu", j->recorded ? j->rec.cpu : -1);
	if (j->have_set) {
		jsonw_int_field(jw, "cpu_node", j->set.cpu_node);
		jsonw_string_field(jw, "set", kt_panic_set_names[j->set.why]);
		jsonw_int_field(jw, "set_node", j->node);
	}
	jsonw_bool_field(jw, "registers", j->rec.have_note);
	if (j->rec.have_note) {
		jsonw_string_field(jw, "registers_from", j->rec.from);
		jsonw_int_field(jw, "pid", j->rec.note.pid);
	} else if (j->recorded && j->rec.cpu >= 0) {
		jsonw_string_field(jw, "why_no_registers", j->rec.why_no_note);
	}
	jsonw_string_field(jw, "outcome", kt_panic_outcome_names[j->pv.outcome]);
	jsonw_uint_field(jw, "ranges_on_set_node", j->pv.nr_ranges);
	jsonw_bool_field(jw, "ranges_truncated", j->pv.ranges_truncated);
	jsonw_name(jw, "addresses");
	jsonw_start_array(jw);
	for (i = 0; i < j->pv.nr_addrs; i++)
		write_addr(jw, dt, j, i);
	jsonw_end_array(jw);
	if (*j->panic_error)
		jsonw_string_field(jw, "error", j->panic_error);
	jsonw_end_object(jw);
}

static void write_verify(struct json_writer *jw, struct dump_target *dt,
			 const struct judgement *j)
{
	int i, k;

	jsonw_name(jw, "verify");
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "checked", j->verified);
	if (!j->verified) {
		jsonw_string_field(jw, "error", j->verify_error);
		jsonw_end_object(jw);
		return;
	}
	jsonw_uint_field(jw, "violations", j->vstats.total);
	jsonw_uint_field(jw, "compared_bytes", j->vstats.compared_bytes);
	jsonw_name(jw, "by_check");
	jsonw_start_object(jw);
	for (k = 0; k < KT_V_NR; k++)
		jsonw_uint_field(jw, kt_violation_names[k], j->vstats.count[k]);
	jsonw_end_object(jw);
	jsonw_name(jw, "first");
	jsonw_start_array(jw);
	for (i = 0; i < j->nr_viol; i++) {
		const struct kt_violation *v = &j->viol[i];
		char sym[160];

		jsonw_start_object(jw);
		jsonw_string_field(jw, "check", kt_violation_names[v->kind]);
		jsonw_int_field(jw, "node", v->node);
		jsonw_hex_field(jw, "va", v->va);
		jsonw_uint_field(jw, "len", v->len);
		if (v->diff) {
			jsonw_string_field(jw, "sym", v->diff->sym);
			jsonw_string_field(jw, "kind", v->diff->kind);
		} else if (v->va) {
			kt_target_name_addr(&dt->t, v->va, sym, sizeof(sym));
			jsonw_string_field(jw, "sym", sym);
		}
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
}

/* the keys triage reads back for its metrics come first, at the top */
static void write_head(struct json_writer *jw, const struct dump_entry *d,
		       enum kt_triage_verdict verdict, enum reason reason,
		       int node, const char *summary)
{
	jsonw_uint_field(jw, "ktrepl_verdict_format", VERDICT_FORMAT);
	jsonw_string_field(jw, "verdict", kt_triage_verdict_names[verdict]);
	jsonw_string_field(jw, "reason", reason_names[reason]);
	jsonw_int_field(jw, "node", node);
	jsonw_int_field(jw, "dump_mtime", (int64_t)d->sb.st_mtime);
	jsonw_string_field(jw, "summary", summary);
	jsonw_string_field(jw, "dump", d->name);
	jsonw_uint_field(jw, "dump_bytes", (uint64_t)d->sb.st_size);
	jsonw_bool_field(jw, "dump_complete",
			 strcmp(d->name, "dump-incomplete") != 0);
	jsonw_float_field(jw, "triaged_at", now_realtime());
	jsonw_string_field(jw, "ktrepl_version", KTREPL_VERSION);
}

static void write_judgement(FILE *fp, struct dump_target *dt,
			    const struct dump_entry *d,
			    const struct judgement *j)
{
	struct json_writer *jw = jsonw_new(fp, true);

	if (!jw)
		return;
	jsonw_start_object(jw);
	write_head(jw, d, j->verdict, j->reason, j->node, j->summary);
	if (*j->release)
		jsonw_string_field(jw, "kernel_release", j->release);
	else
		jsonw_name(jw, "kernel_release"), jsonw_null(jw);
	jsonw_name(jw, "descriptor");
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "found", j->described);
	if (!j->described)
		jsonw_string_field(jw, "why_not", j->error);
	jsonw_end_object(jw);
	if (j->described) {
		const struct kt_state *st = &dt->st;

		jsonw_string_field(jw, "activation",
				   kt_activation_name(st->activation));
		jsonw_int_field(jw, "master_node", st->master_node);
		jsonw_int_field(jw, "nodes", st->nr_nodes);
		jsonw_uint_field(jw, "failsafe", st->failsafe);
		jsonw_bool_field(jw, "failsafe_active", st->failsafe_active);
		write_verify(jw, dt, j);
		write_panic(jw, dt, j);
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fputc('\n', fp);
}

/* the child's work: judge one dump, the verdict into fp */
static int judge_dump(const struct dump_entry *d, FILE *fp)
{
	struct judgement *j = calloc(1, sizeof(*j));
	struct dump_target dt;
	char path[800];
	struct kt_err err;

	if (!j)
		return EXIT_TROUBLE;
	j->node = -1;
	snprintf(path, sizeof(path), "%s/%s", d->dir, d->name);
	kt_err_clear(&err);
	if (!dump_target_open_vmcore(&dt, path, &err)) {
		j->opened = j->described = true;
	} else {
		snprintf(j->error, sizeof(j->error), "%s", err.msg);
		/* a dump that opens but names no descriptor is no damage */
		j->opened = strstr(err.msg, "no ktrepl state") != NULL;
	}
	if (j->described) {
		kt_memsrc_vmcoreinfo(dt.src, "OSRELEASE", j->release,
				     sizeof(j->release), &err);
		kt_err_clear(&err);
		if (kt_verify_run(&dt.t, keep_violation, j, &j->vstats, &err))
			snprintf(j->verify_error, sizeof(j->verify_error),
				 "%s", err.msg);
		else
			j->verified = true;
		judge_panic(&dt, j);
	}
	conclude(j);
	write_judgement(fp, &dt, d, j);
	if (j->described) {
		kt_panic_verdict_free(&j->pv);
		dump_target_close(&dt);
	}
	free(j);
	return fflush(fp) || ferror(fp) ? EXIT_TROUBLE : EXIT_CLEAN;
}

/* idle CPU and I/O class: the boot after a panic has better things to do */
static void go_idle(void)
{
	struct sched_param sp = { 0 };
	/* ioprio_set(IOPRIO_WHO_PROCESS, self, IOPRIO_CLASS_IDLE << 13) */
	const int who_process = 1, class_idle = 3;

	sched_setscheduler(0, SCHED_IDLE, &sp);
	syscall(SYS_ioprio_set, who_process, 0, class_idle << 13);
}

static void child_run(const struct dump_entry *d, const char *tmp)
{
	struct rlimit data = { DATA_LIMIT, DATA_LIMIT };
	FILE *fp;
	int fd;

	/* a group of its own: the timeout ends libkdumpfile's probes too */
	setpgid(0, 0);
	go_idle();
	if (!SANITIZED)
		setrlimit(RLIMIT_DATA, &data);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 || !(fp = fdopen(fd, "w")))
		_exit(EXIT_TROUBLE);
	_exit(judge_dump(d, fp) ?: (fclose(fp) ? EXIT_TROUBLE : EXIT_CLEAN));
}

/* a verdict for a dump whose analysis did not finish */
static int write_failed(const struct dump_entry *d, const char *path,
			int status, bool timed_out, unsigned int timeout)
{
	enum reason reason = R_ANALYSIS_DIED;
	struct json_writer *jw;
	char summary[200];
	FILE *fp;

	if (timed_out) {
		reason = R_TIMED_OUT;
		snprintf(summary, sizeof(summary),
			 "the analysis did not finish in %u s", timeout);
	} else if (WIFSIGNALED(status)) {
		snprintf(summary, sizeof(summary),
			 "the analysis died of signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else {
		snprintf(summary, sizeof(summary),
			 "the analysis exited with status %d without a verdict",
			 WEXITSTATUS(status));
	}
	fp = fopen(path, "we");
	if (!fp)
		return -errno;
	jw = jsonw_new(fp, true);
	if (jw) {
		jsonw_start_object(jw);
		write_head(jw, d, KT_TRIAGE_FAILED, reason, -1, summary);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	}
	fputc('\n', fp);
	return fclose(fp) ? -errno : 0;
}

/*
 * Wait for the child until the deadline, then end its whole group. True
 * when it was ended; *status is its wait status either way.
 */
static bool wait_until(pid_t pid, unsigned int timeout, int *status)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	double deadline = now_realtime() + timeout;
	pid_t got;

	for (;;) {
		got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return false;
		if (now_realtime() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return true;
		}
		nanosleep(&tick, NULL);
	}
	/* what it left behind (a probe that hangs) goes with it */
	kill(-pid, SIGKILL);
	return false;
}

/* judge d: its verdict file in place, or -errno */
static int triage_one(const struct dump_entry *d, unsigned int timeout,
		      struct kt_err *err)
{
	char tmp[800], final[800];
	bool timed_out;
	int status = 0, code;
	pid_t pid;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", d->dir, VERDICT_FILE);
	snprintf(final, sizeof(final), "%s/%s", d->dir, VERDICT_FILE);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return kt_err_set(err, errno, "fork: %s", strerror(errno));
	if (!pid)
		child_run(d, tmp);
	/* the parent's too, so no kill can come before the child's */
	setpgid(pid, pid);
	timed_out = wait_until(pid, timeout, &status);
	if (timed_out || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != EXIT_CLEAN) {
		code = write_failed(d, tmp, status, timed_out, timeout);
		if (code)
			return kt_err_set(err, -code, "%s: %s", tmp,
					  strerror(-code));
	}
	if (rename(tmp, final)) {
		code = errno;
		unlink(tmp);
		return kt_err_set(err, code, "%s: %s", final, strerror(code));
	}
	return 0;
}

/* kdump-tools' names: dump.<stamp>, and dump-incomplete when cut short */
static bool is_dump_name(const char *name)
{
	size_t len = strlen(name);

	if (!strcmp(name, "dump-incomplete"))
		return true;
	return !strncmp(name, "dump.", 5) && len > 5 &&
	       !(len > 4 && !strcmp(name + len - 4, ".tmp"));
}

/* the dump in DIR/sub, if there is one */
static bool find_dump(const char *dir, const char *sub, struct dump_entry *d)
{
	struct dirent *e;
	bool found = false;
	DIR *dp;

	snprintf(d->dir, sizeof(d->dir), "%s/%s", dir, sub);
	dp = opendir(d->dir);
	if (!dp)
		return false;
	while ((e = readdir(dp))) {
		char path[800];

		if (!is_dump_name(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->dir, e->d_name);
		if (stat(path, &d->sb) || !S_ISREG(d->sb.st_mode))
			continue;
		snprintf(d->name, sizeof(d->name), "%s", e->d_name);
		found = true;
		/* a finished dump wins over an incomplete one */
		if (strcmp(e->d_name, "dump-incomplete"))
			break;
	}
	closedir(dp);
	return found;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct dump_entry *)a)->dir,
		      ((const struct dump_entry *)b)->dir);
}

/* every dump under dir, sorted by directory; -errno when dir cannot be read */
static int list_dumps(const char *dir, struct dump_entry **out, size_t *nr,
		      struct kt_err *err)
{
	struct dump_entry *list = NULL, *grown;
	struct dirent *e;
	size_t n = 0;
	DIR *dp;

	*out = NULL;
	*nr = 0;
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;	/* no dump was ever saved */
		return kt_err_set(err, errno, "%s: %s", dir, strerror(errno));
	}
	while ((e = readdir(dp)) && n < MAX_DUMPS) {
		struct dump_entry d;

		if (e->d_name[0] == '.' || !find_dump(dir, e->d_name, &d))
			continue;
		grown = realloc(list, (n + 1) * sizeof(*list));
		if (!grown) {
			free(list);
			closedir(dp);
			return kt_err_set(err, ENOMEM, "out of memory");
		}
		list = grown;
		list[n++] = d;
	}
	closedir(dp);
	if (n)
		qsort(list, n, sizeof(*list), cmp_entry);
	*out = list;
	*nr = n;
	return 0;
}

/*
 * The value of the first "key" in a verdict file we wrote: write_head()
 * puts these keys before any nested object, so the first is the top's.
 */
static bool verdict_field(const char *text, const char *key, char *val,
			  size_t len)
{
	bool quoted;
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(text, pat);
	if (!p)
		return false;
	p += strlen(pat);
	p += strspn(p, " \t\n:");
	quoted = *p == '"';
	p += quoted;
	for (; *p && n + 1 < len; p++) {
		if (quoted && *p == '\\' && p[1]) {
			val[n++] = *++p;
			continue;
		}
		if (quoted ? *p == '"' : strchr(",}\n", *p) != NULL)
			break;
		val[n++] = *p;
	}
	val[n] = '\0';
	return n > 0;
}

struct read_verdict {
	enum kt_triage_verdict verdict;
	char reason[40];
	int node;
	char summary[1200];
};

static bool read_verdict(const struct dump_entry *d, struct read_verdict *rv)
{
	char path[800], text[8192], val[64];
	size_t got;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", d->dir, VERDICT_FILE);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	got = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[got] = '\0';
	if (!verdict_field(text, "verdict", val, sizeof(val)))
		return false;
	rv->verdict = kt_triage_verdict_parse(val);
	if (rv->verdict == KT_TRIAGE_NR)
		return false;
	if (!verdict_field(text, "reason", rv->reason, sizeof(rv->reason)))
		strcpy(rv->reason, "-");
	rv->node = verdict_field(text, "node", val, sizeof(val)) ? atoi(val) :
								     -1;
	if (!verdict_field(text, "summary", rv->summary, sizeof(rv->summary)))
		rv->summary[0] = '\0';
	return true;
}

static void report_dump(const struct dump_entry *d,
			const struct read_verdict *rv, bool judged_now)
{
	struct json_writer *jw = dump.out.jw;

	if (jw) {
		jsonw_start_object(jw);
		jsonw_string_field(jw, "dir", d->dir);
		jsonw_string_field(jw, "dump", d->name);
		jsonw_bool_field(jw, "judged_now", judged_now);
		jsonw_string_field(jw, "verdict",
				   kt_triage_verdict_names[rv->verdict]);
		jsonw_string_field(jw, "reason", rv->reason);
		jsonw_int_field(jw, "node", rv->node);
		jsonw_string_field(jw, "summary", rv->summary);
		jsonw_end_object(jw);
		return;
	}
	/* --prometheus without FILE: stdout is the metrics' */
	if (!(dump.args.given & CMD_OPT_PROMETHEUS) || dump.args.prometheus_file)
		printf("%s/%s: %s%s (%s): %s\n", d->dir, d->name,
		       judged_now ? "" : "already judged: ",
		       kt_triage_verdict_names[rv->verdict], rv->reason,
		       rv->summary);
}

int do_triage(int argc, char **argv)
{
	const char *dir = dump.args.crash_dir ?: DEFAULT_CRASH_DIR;
	bool prometheus = dump.args.given & CMD_OPT_PROMETHEUS;
	struct kt_prometheus_triage tr = { .timestamp = now_realtime() };
	unsigned int timeout = DEFAULT_TIMEOUT;
	int ret = EXIT_CLEAN;
	struct dump_entry *list;
	struct kt_err err;
	uint64_t val;
	size_t i, nr;

	if (argc)
		return dump_usage_error("triage: unexpected argument '%s'",
					argv[0]);
	if (dump.vmcore_path || dump.raw_path)
		return dump_usage_error("triage reads the dumps in --crash-dir, not --vmcore or --raw");
	if (dump.args.timeout) {
		if (parse_u64(dump.args.timeout, &val) || !val || val > 86400)
			return dump_usage_error("--timeout wants seconds, 1 to 86400, not '%s'",
						dump.args.timeout);
		timeout = (unsigned int)val;
	}
	kt_err_clear(&err);
	if (list_dumps(dir, &list, &nr, &err))
		return dump_fail(&err);
	if (dump.out.jw) {
		jsonw_start_object(dump.out.jw);
		jsonw_string_field(dump.out.jw, "crash_dir", dir);
		jsonw_name(dump.out.jw, "dumps");
		jsonw_start_array(dump.out.jw);
	}
	for (i = 0; i < nr; i++) {
		const struct dump_entry *d = &list[i];
		struct read_verdict rv;
		bool judged_now = false;

		if (!read_verdict(d, &rv)) {
			kt_err_clear(&err);
			if (triage_one(d, timeout, &err)) {
				kt_out_error(&dump.out, "%s/%s: %s", d->dir,
					     d->name, err.msg);
				ret = ret == EXIT_DIVERGED ? ret : EXIT_TROUBLE;
				continue;
			}
			judged_now = true;
			if (!read_verdict(d, &rv)) {
				kt_out_error(&dump.out,
					     "%s/%s: the verdict written cannot be read back",
					     d->dir, VERDICT_FILE);
				ret = ret == EXIT_DIVERGED ? ret : EXIT_TROUBLE;
				continue;
			}
			if (rv.verdict == KT_TRIAGE_FAILED)
				tr.failed_now++;
		}
		report_dump(d, &rv, judged_now);
		tr.dumps++;
		tr.by_verdict[rv.verdict]++;
		if (!tr.have_last || d->sb.st_mtime >= tr.last_time) {
			tr.have_last = true;
			tr.last_time = (double)d->sb.st_mtime;
			tr.last_verdict = rv.verdict;
			tr.last_node = rv.node;
			snprintf(tr.last_reason, sizeof(tr.last_reason), "%s",
				 rv.reason);
		}
		if (rv.verdict == KT_TRIAGE_DIVERGED)
			ret = EXIT_DIVERGED;
	}
	if (dump.out.jw) {
		jsonw_end_array(dump.out.jw);
		jsonw_end_object(dump.out.jw);
	}
	free(list);
	if (prometheus && dump_write_metrics(kt_prometheus_write_triage, &tr))
		ret = EXIT_TROUBLE;
	return ret;
}
