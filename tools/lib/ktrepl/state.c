// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs ABI parser: key=value records, unknown keys ignored. The
 * records it fills are state_records.c's; summary's records are read by
 * state_summary.c, every other file's here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ktrepl_records.h"
#include "lockdown.h"
#include "state.h"
#include "state_parse.h"

/* each record's keys, as the module's tables name them (ktrepl_records.h) */
#define EXTENT_KEY(f) (ktrepl_extent_fields()[KTREPL_E_##f].name)
#define CPU_KEY(f) (ktrepl_cpu_fields()[KTREPL_CPU_##f].name)
#define TASK_KEY(f) (ktrepl_task_fields()[KTREPL_T_##f].name)
#define BIND_KEY(f) (ktrepl_bind_fields()[KTREPL_B_##f].name)
#define BOUND_KEY(f) (ktrepl_bound_fields()[KTREPL_BH_##f].name)
/* a key both binding records have, in parse_binding() */
#define BINDING_KEY(f) (ended ? BOUND_KEY(f) : BIND_KEY(f))

const char *kt_kv_find(const char *line, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (*p) {
		const char *tok = p;
		size_t tlen = strcspn(p, " \t\n");

		if (tlen > klen && !strncmp(tok, key, klen) && tok[klen] == '=') {
			*len = tlen - klen - 1;
			return tok + klen + 1;
		}
		p += tlen;
		p += strspn(p, " \t\n");
	}
	return NULL;
}

int kt_kv_u64(const char *line, const char *key, uint64_t *val)
{
	char buf[32], *end;
	size_t len;
	const char *v = kt_kv_find(line, key, &len);

	if (!v || !len || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	*val = strtoull(buf, &end, 0);
	return errno || *end ? -1 : 0;
}

int kt_kv_int(const char *line, const char *key, int *val)
{
	char buf[32], *end;
	size_t len;
	const char *v = kt_kv_find(line, key, &len);
	long n;

	if (!v || !len || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	n = strtol(buf, &end, 0);
	if (errno || *end || n < -1 || n > 1 << 24)
		return -1;
	*val = (int)n;
	return 0;
}

int kt_kv_str(const char *line, const char *key, char *buf, size_t size)
{
	size_t len;
	const char *v = kt_kv_find(line, key, &len);

	if (!v || len >= size)
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return 0;
}

typedef int (*line_fn)(struct kt_state *st, const char *line,
		       struct kt_file_ctx *fc);

int kt_bad_record(struct kt_file_ctx *fc, const char *what)
{
	return kt_err_set(fc->err, EPROTO, "%s:%d: %s", fc->path, fc->lineno,
			  what);
}

static int for_each_line(struct kt_state *st, const char *dir,
			 const char *name, bool required, line_fn fn,
			 struct kt_err *err)
{
	struct kt_file_ctx fc = { .err = err };
	char path[1024], *line = NULL;
	size_t cap = 0;
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fc.path = path;
	fp = fopen(path, "r");
	if (!fp) {
		enum kt_lockdown_cause cause;
		int e = errno;

		if (!required && e == ENOENT)
			return 0;
		/* lockdown refuses files beyond 0444: optional ones go without */
		ret = kt_lockdown_err(err, KT_LOCKDOWN_USE_DEBUGFS, path, e,
				      &cause);
		if (!required && (cause == KT_CAUSE_LOCKDOWN ||
				  cause == KT_CAUSE_PROBABLY_LOCKDOWN)) {
			kt_err_clear(err);
			return 0;
		}
		return ret;
	}
	while (getline(&line, &cap, fp) > 0) {
		fc.lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		ret = fn(st, line, &fc);
		if (ret)
			break;
	}
	if (!ret && ferror(fp))
		ret = kt_err_set(err, EIO, "%s: read error", path);
	free(line);
	fclose(fp);
	return ret;
}

const char *kt_role_name(enum kt_role role)
{
	return ktrepl_role_str(role) ?: "?";
}

const char *kt_activation_name(enum kt_activation act)
{
	/* "gone" is the tools' own word, never the kernel's */
	if (act == KT_ACT_GONE)
		return "gone";
	return ktrepl_activation_str(act) ?: "?";
}

int kt_role_parse(const char *name, enum kt_role *role)
{
	int i = ktrepl_abi_lookup(ktrepl_role_str, KT_ROLE_NR, name);

	if (i < 0)
		return -1;
	*role = (enum kt_role)i;
	return 0;
}

int kt_activation_parse(const char *name, enum kt_activation *act)
{
	int i = ktrepl_abi_lookup(ktrepl_activation_str, KTREPL_ACT_NR, name);

	if (i < 0)
		return -1;
	*act = (enum kt_activation)i;
	return 0;
}

/*
 * Room for record n, zeroed: a parser fills only the fields its record
 * has, and a flag it never sets (root_at_panic) must read false, not
 * whatever realloc() left there.
 */
static int grow(void **arr, size_t n, size_t size, struct kt_err *err)
{
	size_t cap = n ? n * 2 : 16;
	void *p;

	if (n & (n - 1) && n)
		return 0;
	p = realloc(*arr, cap * size);
	if (!p)
		return kt_err_set(err, ENOMEM, "out of memory");
	memset((char *)p + n * size, 0, (cap - n) * size);
	*arr = p;
	return 0;
}

static int replicas_line(struct kt_state *st, const char *line,
			 struct kt_file_ctx *fc)
{
	struct kt_extent_state *e;
	char region[72];

	if (grow((void **)&st->extents, st->nr_extents, sizeof(*e), fc->err))
		return -ENOMEM;
	e = &st->extents[st->nr_extents];
	if (kt_kv_int(line, EXTENT_KEY(NODE), &e->node) ||
	    kt_kv_str(line, EXTENT_KEY(REGION), region, sizeof(region)) ||
	    kt_kv_u64(line, EXTENT_KEY(VA), &e->va) ||
	    kt_kv_u64(line, EXTENT_KEY(PA), &e->pa) ||
	    kt_kv_u64(line, EXTENT_KEY(SIZE), &e->size) || !e->size)
		return kt_bad_record(fc, "replica record lacks node, region, va, pa or size");
	if (!strcmp(region, "module")) {
		char name[56];

		if (kt_kv_str(line, EXTENT_KEY(MODULE), name, sizeof(name)))
			return kt_bad_record(fc, "module replica record lacks module");
		snprintf(region, sizeof(region), KT_MODULE_PREFIX "%s", name);
		e->region = kt_state_module_region(st, region, e->va);
	} else {
		e->region = kt_state_region(st, region);
	}
	if (e->region < 0)
		return kt_bad_record(fc, "replica record names an unknown region");
	if (kt_kv_u64(line, EXTENT_KEY(PAGE_SIZE), &e->page_size))
		e->page_size = st->page_size;
	if (kt_kv_int(line, EXTENT_KEY(PA_NODE), &e->pa_node))
		e->pa_node = -1;
	st->nr_extents++;
	return 0;
}

static int pgds_line(struct kt_state *st, const char *line,
		     struct kt_file_ctx *fc)
{
	struct kt_cpu_state *c;

	if (!kt_kv_find(line, CPU_KEY(CPU), &(size_t){ 0 }))
		return 0;
	if (grow((void **)&st->cpus, st->nr_cpus, sizeof(*c), fc->err))
		return -ENOMEM;
	c = &st->cpus[st->nr_cpus];
	if (kt_kv_int(line, CPU_KEY(CPU), &c->cpu) ||
	    kt_kv_int(line, CPU_KEY(NODE), &c->node) ||
	    kt_kv_u64(line, CPU_KEY(LOADED_ROOT_PA), &c->loaded_root_pa) ||
	    kt_kv_u64(line, CPU_KEY(EXPECTED_ROOT_PA), &c->expected_root_pa))
		return kt_bad_record(fc, "cpu record lacks cpu, node, loaded_root_pa or expected_root_pa");
	st->nr_cpus++;
	return 0;
}

static int tasks_line(struct kt_state *st, const char *line,
		      struct kt_file_ctx *fc)
{
	struct kt_task_state *t;

	if (grow((void **)&st->tasks, st->nr_tasks, sizeof(*t), fc->err))
		return -ENOMEM;
	t = &st->tasks[st->nr_tasks];
	memset(t, 0, sizeof(*t));
	if (kt_kv_int(line, TASK_KEY(PID), &t->pid) ||
	    kt_kv_int(line, TASK_KEY(NODE), &t->node) ||
	    kt_kv_u64(line, TASK_KEY(ROOT_PA), &t->root_pa) ||
	    kt_kv_u64(line, TASK_KEY(EXPECTED_ROOT_PA), &t->expected_root_pa))
		return kt_bad_record(fc, "task record lacks pid, node, root_pa or expected_root_pa");
	kt_kv_str(line, TASK_KEY(COMM), t->comm, sizeof(t->comm));
	kt_kv_int(line, TASK_KEY(CPU), &t->cpu);
	kt_kv_u64(line, TASK_KEY(ITERATIONS), &t->iterations);
	kt_kv_u64(line, TASK_KEY(PROBE), &t->probe);
	kt_kv_u64(line, TASK_KEY(SINCE_NS), &t->since_ns);
	if (kt_kv_str(line, TASK_KEY(TABLES), t->tables, sizeof(t->tables)))
		strcpy(t->tables, "node");
	st->nr_tasks++;
	return 0;
}

/*
 * One process binding: a current one ("bind": mm_pgd_pa and how), or one
 * that ended ("bind_history": until_ns).
 */
static int parse_binding(struct kt_bound_state **arr, size_t *nr,
			 const char *line, bool ended, struct kt_file_ctx *fc)
{
	struct kt_bound_state *b;
	char how[8] = "";

	if (grow((void **)arr, *nr, sizeof(*b), fc->err))
		return -ENOMEM;
	b = &(*arr)[*nr];
	memset(b, 0, sizeof(*b));
	if (kt_kv_int(line, BINDING_KEY(PID), &b->pid) ||
	    kt_kv_int(line, BINDING_KEY(NODE), &b->node) ||
	    kt_kv_u64(line, BINDING_KEY(ROOT_PA), &b->root_pa) ||
	    kt_kv_u64(line, BINDING_KEY(SINCE_NS), &b->since_ns) ||
	    (ended ? kt_kv_u64(line, BOUND_KEY(UNTIL_NS), &b->until_ns) :
		     kt_kv_u64(line, BIND_KEY(MM_PGD_PA), &b->mm_pgd_pa)))
		return kt_bad_record(fc, ended ?
			"bind_history record lacks pid, node, root_pa, since_ns or until_ns" :
			"bind record lacks pid, node, mm_pgd_pa, root_pa or since_ns");
	kt_kv_str(line, BINDING_KEY(COMM), b->comm, sizeof(b->comm));
	kt_kv_str(line, BIND_KEY(HOW), how, sizeof(how));
	b->manual = !strcmp(how, "manual");
	(*nr)++;
	return 0;
}

static int bind_line(struct kt_state *st, const char *line,
		     struct kt_file_ctx *fc)
{
	return parse_binding(&st->bound, &st->nr_bound, line, false, fc);
}

static int bind_history_line(struct kt_state *st, const char *line,
			     struct kt_file_ctx *fc)
{
	return parse_binding(&st->bound_past, &st->nr_bound_past, line, true,
			     fc);
}

static int abi_line(struct kt_state *st, const char *line,
		    struct kt_file_ctx *fc)
{
	char *end;
	long v = strtol(line, &end, 10);

	if (end == line || (*end && *end != '\n'))
		return kt_bad_record(fc, "not an ABI version number");
	st->abi = (int)v;
	return 0;
}

/* who runs on which tables: workers, bound processes, ended bindings */
static int load_tasks(struct kt_state *st, const char *dir,
		      struct kt_err *err)
{
	int ret;

	free(st->tasks);
	st->tasks = NULL;
	st->nr_tasks = 0;
	free(st->bound);
	st->bound = NULL;
	st->nr_bound = 0;
	free(st->bound_past);
	st->bound_past = NULL;
	st->nr_bound_past = 0;
	ret = for_each_line(st, dir, "tasks", false, tasks_line, err);
	if (!ret)
		ret = for_each_line(st, dir, "bind", false, bind_line, err);
	if (!ret)
		ret = for_each_line(st, dir, "bind_history", false,
				    bind_history_line, err);
	return ret;
}

int kt_state_load_debugfs(struct kt_state *st, const char *dir,
			  struct kt_err *err)
{
	struct stat sb;
	int ret;

	memset(st, 0, sizeof(*st));
	st->master_node = -1;
	if (stat(dir, &sb)) {
		int e = errno;

		if (e == ENOENT) {
			if (stat("/sys/kernel/debug", &sb) == 0 &&
			    stat("/sys/kernel/debug/tracing", &sb) != 0 &&
			    !strncmp(dir, "/sys/kernel/debug/", 18))
				return kt_err_set(err, ENOENT,
						  "%s: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)",
						  dir);
			return kt_err_set(err, ENOENT,
					  "%s: not found; is ktrepl.ko loaded? (modprobe ktrepl, or insmod ktrepl.ko)",
					  dir);
		}
		return kt_err_set(err, e, "%s: %s%s", dir, strerror(e),
				  e == EACCES ? " (debugfs needs root)" : "");
	}
	ret = for_each_line(st, dir, "abi", true, abi_line, err);
	if (ret)
		return ret;
	if (st->abi < KT_ABI_MIN || st->abi > KT_ABI_MAX)
		return kt_err_set(err, EPROTO,
				  "%s/abi: ABI version %d; this tool reads versions %d..%d",
				  dir, st->abi, KT_ABI_MIN, KT_ABI_MAX);
	ret = for_each_line(st, dir, "summary", true, kt_summary_line, err);
	if (!ret && (st->abi != KT_ABI_MAX || !st->nr_regions))
		ret = kt_err_set(err, EPROTO,
				 "%s/summary: no header record or no regions",
				 dir);
	/* the kernel lists at most KTREPL_MAX_MODULES: as many may be cut */
	st->modules_incomplete = st->nr_modules >= KTREPL_DESC_MAX_MODULES;
	if (!ret)
		ret = kt_state_index_regions(st, err);
	if (!ret)
		ret = for_each_line(st, dir, "replicas", false, replicas_line,
				    err);
	if (!ret)
		ret = for_each_line(st, dir, "pgds", false, pgds_line, err);
	if (!ret)
		ret = load_tasks(st, dir, err);
	if (ret)
		kt_state_free(st);
	return ret;
}

int kt_state_refresh(struct kt_state *st, const char *dir, struct kt_err *err)
{
	struct kt_state *now = calloc(1, sizeof(*now));
	int ret;

	if (!now)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = for_each_line(now, dir, "summary", true, kt_summary_line, err);
	if (!ret) {
		st->activation = now->activation;
		st->propagate = now->propagate;
		st->patches = now->patches;
		st->patch_bytes = now->patch_bytes;
		st->patches_missed = now->patches_missed;
		st->overhead = now->overhead;
		ret = load_tasks(st, dir, err);
	}
	kt_state_free(now);
	free(now);
	return ret;
}

static int patch_window_line(struct kt_state *st, const char *line,
			     struct kt_file_ctx *fc)
{
	char *end;

	errno = 0;
	st->patch_window = strtoull(line, &end, 10);
	if (end == line || (*end && *end != '\n') || errno)
		return kt_bad_record(fc, "not a patch window count");
	return 0;
}

int kt_state_patch_window(struct kt_state *st, const char *dir,
			  struct kt_err *err)
{
	return for_each_line(st, dir, "patch_window", true, patch_window_line,
			     err);
}
