// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs ABI parser: key=value records, unknown keys ignored. The
 * records it fills are state_records.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ktrepl_summary.h"
#include "lockdown.h"
#include "state.h"

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

struct file_ctx {
	const char *path;
	int lineno;
	struct kt_err *err;
};

typedef int (*line_fn)(struct kt_state *st, const char *line,
		       struct file_ctx *fc);

static int bad_record(struct file_ctx *fc, const char *what)
{
	return kt_err_set(fc->err, EPROTO, "%s:%d: %s", fc->path, fc->lineno,
			  what);
}

static int for_each_line(struct kt_state *st, const char *dir,
			 const char *name, bool required, line_fn fn,
			 struct kt_err *err)
{
	struct file_ctx fc = { .err = err };
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
 * One key of a record, and where in a struct its value goes. The key is
 * a field of one of ktrepl_summary.h's tables, by its index there.
 */
enum kv_type { KV_INT, KV_UINT, KV_U64, KV_BOOL, KV_STR };

typedef const struct ktrepl_field *(*kv_table)(void);

struct kv_field {
	kv_table table;		/* ktrepl_summary_fields, ktrepl_node_fields... */
	int id;			/* the field's index in it */
	enum kv_type type;
	size_t off;
	size_t size;
	bool required;
};

#define KV_SHARED(table, id, type, st, field, required)                 \
	{ table, id, type, offsetof(st, field), sizeof(((st *)0)->field), \
	  required }
/* summary's first line, a node, region or module record (ktrepl_summary.h) */
#define KV_SUMMARY(id, type, field, required)                           \
	KV_SHARED(ktrepl_summary_fields, id, type, struct kt_state, field, \
		  required)
#define KV_NODE(id, type, field, required)                              \
	KV_SHARED(ktrepl_node_fields, id, type, struct kt_node_state, field, \
		  required)
#define KV_REGION(id, type, field, required)                            \
	KV_SHARED(ktrepl_region_fields, id, type, struct kt_region_state, \
		  field, required)
#define KV_MODULE(id, type, field, required)                            \
	KV_SHARED(ktrepl_module_fields, id, type, struct kt_region_state, \
		  field, required)

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *kv_key(const struct kv_field *f)
{
	return f->table()[f->id].name;
}

static const struct kv_field summary_fields[] = {
	KV_SUMMARY(KTREPL_S_ABI, KV_INT, abi, true),
	KV_SUMMARY(KTREPL_S_ARCH, KV_STR, arch, true),
	KV_SUMMARY(KTREPL_S_MASTER_NODE, KV_INT, master_node, true),
	KV_SUMMARY(KTREPL_S_PAGE_SIZE, KV_U64, page_size, true),
	KV_SUMMARY(KTREPL_S_PAGING_LEVELS, KV_UINT, paging_levels, true),
	KV_SUMMARY(KTREPL_S_VA_BITS, KV_UINT, va_bits, false),
	KV_SUMMARY(KTREPL_S_PROVIDER, KV_STR, provider, false),
	KV_SUMMARY(KTREPL_S_NODES, KV_UINT, nodes_online, false),
	KV_SUMMARY(KTREPL_S_ACTIVATION_REASON, KV_STR, activation_reason, false),
	KV_SUMMARY(KTREPL_S_PROPAGATE, KV_INT, propagate, false),
	KV_SUMMARY(KTREPL_S_PATCHES, KV_U64, patches, false),
	KV_SUMMARY(KTREPL_S_PATCH_BYTES, KV_U64, patch_bytes, false),
	KV_SUMMARY(KTREPL_S_PATCHES_MISSED, KV_U64, patches_missed, false),
	KV_SUMMARY(KTREPL_S_OVERHEAD_BYTES, KV_U64, overhead, false),
	KV_SUMMARY(KTREPL_S_MASTER_ROOT_PA, KV_U64, master_root_pa, false),
	KV_SUMMARY(KTREPL_S_DIRECT_MAP, KV_U64, direct_map, false),
	KV_SUMMARY(KTREPL_S_LOAD_NS, KV_U64, load_ns, false),
	KV_SUMMARY(KTREPL_S_FAILSAFE, KV_U64, failsafe, false),
	KV_SUMMARY(KTREPL_S_FAILSAFE_ACTIVE, KV_BOOL, failsafe_active, false),
	KV_SUMMARY(KTREPL_S_FAILSAFE_REASON, KV_STR, failsafe_reason, false),
};

/* role is parsed apart, into an enum (summary_node) */
static const struct kv_field node_fields[] = {
	KV_NODE(KTREPL_N_NODE, KV_INT, nid, true),
	KV_NODE(KTREPL_N_MEMORY_NODE, KV_INT, memory_node, true),
	KV_NODE(KTREPL_N_HAS_MEMORY, KV_BOOL, has_memory, false),
	KV_NODE(KTREPL_N_CPUS, KV_STR, cpus, false),
	KV_NODE(KTREPL_N_ROOT_PA, KV_U64, root_pa, false),
	KV_NODE(KTREPL_N_OVERHEAD_BYTES, KV_U64, overhead, false),
	KV_NODE(KTREPL_N_MEM_START, KV_U64, mem_start, false),
	KV_NODE(KTREPL_N_MEM_END, KV_U64, mem_end, false),
};

static const struct kv_field region_fields[] = {
	KV_REGION(KTREPL_R_REGION, KV_STR, name, true),
	KV_REGION(KTREPL_R_START, KV_U64, start, true),
	KV_REGION(KTREPL_R_END, KV_U64, end, true),
};

/* the name and the rodata's range are read apart (summary_module) */
static const struct kv_field module_fields[] = {
	KV_MODULE(KTREPL_M_START, KV_U64, start, true),
	KV_MODULE(KTREPL_M_END, KV_U64, end, true),
	KV_MODULE(KTREPL_M_TEXT_END, KV_U64, text_end, true),
	KV_MODULE(KTREPL_M_ORIG_NODE, KV_INT, orig_node, false),
	KV_MODULE(KTREPL_M_MASTER_COPIES, KV_UINT, master_copies, false),
};

/* a field's name in a record's shared table */
#define SUMMARY_KEY(id) (ktrepl_summary_fields()[id].name)
#define NODE_KEY(id) (ktrepl_node_fields()[id].name)
#define REGION_KEY(id) (ktrepl_region_fields()[id].name)
#define MODULE_KEY(id) (ktrepl_module_fields()[id].name)

/*
 * A reader's table against its record's in ktrepl_summary.h: each entry
 * a field of that record, of a type that holds its values, and required
 * only if every record has it (from nr_always on, a record may stop).
 * 0, or -1 with the first mismatch named in why.
 */
static int check_table(const struct kv_field *fields, size_t n,
		       kv_table table, int nr, int nr_always, char *why,
		       size_t len)
{
	const struct ktrepl_field *shared = table();
	size_t i;

	for (i = 0; i < n; i++) {
		const struct kv_field *f = &fields[i];
		enum ktrepl_field_type t;
		bool fits;

		if (f->table != table || f->id < 0 || f->id >= nr) {
			snprintf(why, len, "entry %zu is not a field of this record",
				 i);
			return -1;
		}
		t = shared[f->id].type;
		fits = t == KTREPL_F_STR || t == KTREPL_F_CPULIST ?
			       f->type == KV_STR :
		       t == KTREPL_F_INT ? f->type == KV_INT ||
					   f->type == KV_BOOL :
					   f->type == KV_U64 ||
					   f->type == KV_UINT;
		if (!fits) {
			snprintf(why, len, "%s: stored as kv type %d, declared %d",
				 shared[f->id].name, f->type, t);
			return -1;
		}
		if (f->required && f->id >= nr_always) {
			snprintf(why, len, "%s: required, but optional per record",
				 shared[f->id].name);
			return -1;
		}
	}
	return 0;
}

int kt_state_check_summary_table(char *why, size_t len)
{
	return check_table(summary_fields, NELEMS(summary_fields),
			   ktrepl_summary_fields, KTREPL_S_NR, KTREPL_S_NR,
			   why, len);
}

int kt_state_check_node_table(char *why, size_t len)
{
	return check_table(node_fields, NELEMS(node_fields),
			   ktrepl_node_fields, KTREPL_N_NR, KTREPL_N_NR, why,
			   len);
}

int kt_state_check_region_table(char *why, size_t len)
{
	return check_table(region_fields, NELEMS(region_fields),
			   ktrepl_region_fields, KTREPL_R_NR, KTREPL_R_NR, why,
			   len);
}

int kt_state_check_module_table(char *why, size_t len)
{
	return check_table(module_fields, NELEMS(module_fields),
			   ktrepl_module_fields, KTREPL_M_NR,
			   KTREPL_M_NR_ALWAYS, why, len);
}

static int kv_read_one(const char *line, const struct kv_field *f, void *base)
{
	void *dst = (char *)base + f->off;
	uint64_t v;
	int i;

	switch (f->type) {
	case KV_INT:
		if (kt_kv_int(line, kv_key(f), &i))
			return -1;
		memcpy(dst, &i, sizeof(i));
		return 0;
	case KV_STR:
		return kt_kv_str(line, kv_key(f), dst, f->size);
	default:
		break;
	}
	if (kt_kv_u64(line, kv_key(f), &v))
		return -1;
	if (f->type == KV_U64)
		memcpy(dst, &v, sizeof(v));
	else if (f->type == KV_BOOL)
		*(bool *)dst = v != 0;
	else if (v > UINT32_MAX)
		return -1;
	else
		*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

/*
 * Every field of the table from line into base. A required key that is
 * absent, or any key whose value does not parse, is a bad record.
 */
static int kv_read(const char *line, const struct kv_field *fields, size_t n,
		   void *base, const char *record, struct file_ctx *fc)
{
	char what[96];
	size_t i, len;

	for (i = 0; i < n; i++) {
		const struct kv_field *f = &fields[i];

		if (!kt_kv_find(line, kv_key(f), &len) && !f->required)
			continue;
		if (!kv_read_one(line, f, base))
			continue;
		snprintf(what, sizeof(what), "%s %s %s", record,
			 kt_kv_find(line, kv_key(f), &len) ? "has a bad" : "lacks",
			 kv_key(f));
		return bad_record(fc, what);
	}
	return 0;
}

#define KV_READ(line, fields, base, record, fc) \
	kv_read(line, fields, NELEMS(fields), base, record, fc)

static int summary_header(struct kt_state *st, const char *line,
			  struct file_ctx *fc)
{
	char word[32];
	int ret = KV_READ(line, summary_fields, st, "summary header", fc);

	if (ret)
		return ret;
	if (kt_kv_str(line, SUMMARY_KEY(KTREPL_S_ACTIVATION), word,
		      sizeof(word)) ||
	    kt_activation_parse(word, &st->activation))
		return bad_record(fc, "summary header: unknown activation");
	return 0;
}

static int summary_node(struct kt_state *st, const char *line,
			struct file_ctx *fc)
{
	struct kt_node_state *n;
	char word[32];
	size_t len;
	int ret;

	if (st->nr_nodes >= KT_MAX_NODES)
		return kt_err_set(fc->err, E2BIG,
				  "%s:%d: more than %d nodes, this tool's limit (KT_MAX_NODES)",
				  fc->path, fc->lineno, KT_MAX_NODES);
	if (kt_kv_find(line, NODE_KEY(KTREPL_N_CPUS), &len) &&
	    len >= KT_CPULIST_MAX)
		return kt_err_set(fc->err, E2BIG,
				  "%s:%d: node record: a CPU list of %zu bytes, past this tool's limit of %d (KT_CPULIST_MAX)",
				  fc->path, fc->lineno, len, KT_CPULIST_MAX - 1);
	n = kt_state_add_node(st, fc->err);
	if (!n)
		return -fc->err->code;
	ret = KV_READ(line, node_fields, n, "node record", fc);
	if (!ret && (kt_kv_str(line, NODE_KEY(KTREPL_N_ROLE), word,
			       sizeof(word)) ||
		     kt_role_parse(word, &n->role)))
		ret = bad_record(fc, "node record: unknown role");
	if (ret)
		st->nr_nodes--;
	return ret;
}

static int summary_region(struct kt_state *st, const char *line,
			  struct file_ctx *fc)
{
	struct kt_region_state *r = kt_state_add_region(st, fc->err);
	int ret;

	if (!r)
		return -fc->err->code;
	ret = KV_READ(line, region_fields, r, "region record", fc);
	if (!ret && r->end < r->start)
		ret = bad_record(fc, "region record ends before it starts");
	if (ret) {
		st->nr_regions--;
		return ret;
	}
	r->text_end = strcmp(r->name, "text") ? r->start : r->end;
	return 0;
}

/* a replicated module: region "module:NAME" */
static int summary_module(struct kt_state *st, const char *line,
			  struct file_ctx *fc)
{
	struct kt_region_state *r;
	uint64_t start, end;
	char name[56];
	int ret;

	if (kt_kv_str(line, MODULE_KEY(KTREPL_M_MODULE), name, sizeof(name)) ||
	    !*name)
		return bad_record(fc, "module record lacks a name");
	r = kt_state_add_region(st, fc->err);
	if (!r)
		return -fc->err->code;
	ret = KV_READ(line, module_fields, r, "module record", fc);
	if (!ret && (r->end < r->start || r->text_end < r->start ||
		     r->text_end > r->end))
		ret = bad_record(fc, "module record: text_end outside start..end");
	if (ret) {
		st->nr_regions--;
		return ret;
	}
	snprintf(r->name, sizeof(r->name), KT_MODULE_PREFIX "%s", name);
	r->module = true;
	st->nr_modules++;
	/* 6.4+: the rodata apart */
	if (!kt_kv_u64(line, MODULE_KEY(KTREPL_M_RODATA_START), &start) &&
	    !kt_kv_u64(line, MODULE_KEY(KTREPL_M_RODATA_END), &end) && end) {
		ret = kt_state_add_module_rodata(st, st->nr_regions - 1, start,
						 end);
		if (ret == -ENOMEM)
			return kt_err_set(fc->err, ENOMEM, "out of memory");
		if (ret < 0)
			return bad_record(fc, "module record: rodata_end before rodata_start");
	}
	return 0;
}

/* does line's first key=value have this key? */
static bool first_key_is(const char *line, const char *key)
{
	size_t klen = strlen(key);

	return !strncmp(line, key, klen) && line[klen] == '=';
}

/* summary's records, told apart by their first key */
static int summary_line(struct kt_state *st, const char *line,
			struct file_ctx *fc)
{
	size_t len;

	if (kt_kv_find(line, SUMMARY_KEY(KTREPL_S_ABI), &len))
		return summary_header(st, line, fc);
	if (kt_kv_find(line, NODE_KEY(KTREPL_N_NODE), &len))
		return summary_node(st, line, fc);
	if (kt_kv_find(line, REGION_KEY(KTREPL_R_REGION), &len))
		return summary_region(st, line, fc);
	if (first_key_is(line, MODULE_KEY(KTREPL_M_MODULE)))
		return summary_module(st, line, fc);
	return 0;	/* a record type from a newer minor revision */
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
			 struct file_ctx *fc)
{
	struct kt_extent_state *e;
	char region[72];

	if (grow((void **)&st->extents, st->nr_extents, sizeof(*e), fc->err))
		return -ENOMEM;
	e = &st->extents[st->nr_extents];
	if (kt_kv_int(line, "node", &e->node) ||
	    kt_kv_str(line, "region", region, sizeof(region)) ||
	    kt_kv_u64(line, "va", &e->va) || kt_kv_u64(line, "pa", &e->pa) ||
	    kt_kv_u64(line, "size", &e->size) || !e->size)
		return bad_record(fc, "replica record lacks node, region, va, pa or size");
	if (!strcmp(region, "module")) {
		char name[56];

		if (kt_kv_str(line, "module", name, sizeof(name)))
			return bad_record(fc, "module replica record lacks module");
		snprintf(region, sizeof(region), KT_MODULE_PREFIX "%s", name);
		e->region = kt_state_module_region(st, region, e->va);
	} else {
		e->region = kt_state_region(st, region);
	}
	if (e->region < 0)
		return bad_record(fc, "replica record names an unknown region");
	if (kt_kv_u64(line, "page_size", &e->page_size))
		e->page_size = st->page_size;
	if (kt_kv_int(line, "pa_node", &e->pa_node))
		e->pa_node = -1;
	st->nr_extents++;
	return 0;
}

static int pgds_line(struct kt_state *st, const char *line,
		     struct file_ctx *fc)
{
	struct kt_cpu_state *c;

	if (!kt_kv_find(line, "cpu", &(size_t){ 0 }))
		return 0;
	if (grow((void **)&st->cpus, st->nr_cpus, sizeof(*c), fc->err))
		return -ENOMEM;
	c = &st->cpus[st->nr_cpus];
	if (kt_kv_int(line, "cpu", &c->cpu) || kt_kv_int(line, "node", &c->node) ||
	    kt_kv_u64(line, "loaded_root_pa", &c->loaded_root_pa) ||
	    kt_kv_u64(line, "expected_root_pa", &c->expected_root_pa))
		return bad_record(fc, "cpu record lacks cpu, node, loaded_root_pa or expected_root_pa");
	st->nr_cpus++;
	return 0;
}

static int tasks_line(struct kt_state *st, const char *line,
		      struct file_ctx *fc)
{
	struct kt_task_state *t;

	if (grow((void **)&st->tasks, st->nr_tasks, sizeof(*t), fc->err))
		return -ENOMEM;
	t = &st->tasks[st->nr_tasks];
	memset(t, 0, sizeof(*t));
	if (kt_kv_int(line, "pid", &t->pid) || kt_kv_int(line, "node", &t->node) ||
	    kt_kv_u64(line, "root_pa", &t->root_pa) ||
	    kt_kv_u64(line, "expected_root_pa", &t->expected_root_pa))
		return bad_record(fc, "task record lacks pid, node, root_pa or expected_root_pa");
	kt_kv_str(line, "comm", t->comm, sizeof(t->comm));
	kt_kv_int(line, "cpu", &t->cpu);
	kt_kv_u64(line, "iterations", &t->iterations);
	kt_kv_u64(line, "probe", &t->probe);
	kt_kv_u64(line, "since_ns", &t->since_ns);
	if (kt_kv_str(line, "tables", t->tables, sizeof(t->tables)))
		strcpy(t->tables, "node");
	st->nr_tasks++;
	return 0;
}

/*
 * One process binding: a current one ("bind": mm_pgd_pa and how), or one
 * that ended ("bind_history": until_ns).
 */
static int parse_binding(struct kt_bound_state **arr, size_t *nr,
			 const char *line, bool ended, struct file_ctx *fc)
{
	struct kt_bound_state *b;
	char how[8] = "";

	if (grow((void **)arr, *nr, sizeof(*b), fc->err))
		return -ENOMEM;
	b = &(*arr)[*nr];
	memset(b, 0, sizeof(*b));
	if (kt_kv_int(line, "pid", &b->pid) || kt_kv_int(line, "node", &b->node) ||
	    kt_kv_u64(line, "root_pa", &b->root_pa) ||
	    kt_kv_u64(line, "since_ns", &b->since_ns) ||
	    (ended ? kt_kv_u64(line, "until_ns", &b->until_ns) :
		     kt_kv_u64(line, "mm_pgd_pa", &b->mm_pgd_pa)))
		return bad_record(fc, ended ?
			"bind_history record lacks pid, node, root_pa, since_ns or until_ns" :
			"bind record lacks pid, node, mm_pgd_pa, root_pa or since_ns");
	kt_kv_str(line, "comm", b->comm, sizeof(b->comm));
	kt_kv_str(line, "how", how, sizeof(how));
	b->manual = !strcmp(how, "manual");
	(*nr)++;
	return 0;
}

static int bind_line(struct kt_state *st, const char *line,
		     struct file_ctx *fc)
{
	return parse_binding(&st->bound, &st->nr_bound, line, false, fc);
}

static int bind_history_line(struct kt_state *st, const char *line,
			     struct file_ctx *fc)
{
	return parse_binding(&st->bound_past, &st->nr_bound_past, line, true,
			     fc);
}

static int abi_line(struct kt_state *st, const char *line, struct file_ctx *fc)
{
	char *end;
	long v = strtol(line, &end, 10);

	if (end == line || (*end && *end != '\n'))
		return bad_record(fc, "not an ABI version number");
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
	ret = for_each_line(st, dir, "summary", true, summary_line, err);
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
	ret = for_each_line(now, dir, "summary", true, summary_line, err);
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
			     struct file_ctx *fc)
{
	char *end;

	errno = 0;
	st->patch_window = strtoull(line, &end, 10);
	if (end == line || (*end && *end != '\n') || errno)
		return bad_record(fc, "not a patch window count");
	return 0;
}

int kt_state_patch_window(struct kt_state *st, const char *dir,
			  struct kt_err *err)
{
	return for_each_line(st, dir, "patch_window", true, patch_window_line,
			     err);
}
