// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of debugfs's summary file: its header, node, region and
 * module records, each read through a table of the keys it takes from
 * ktrepl_summary.h (the unit tests check each table against that file).
 * Apart from state.c, which opens every debugfs file, reads the others'
 * lines and hands summary's here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ktrepl_summary.h"
#include "state.h"
#include "state_parse.h"

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
		   void *base, const char *record, struct kt_file_ctx *fc)
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
		return kt_bad_record(fc, what);
	}
	return 0;
}

#define KV_READ(line, fields, base, record, fc) \
	kv_read(line, fields, NELEMS(fields), base, record, fc)

static int summary_header(struct kt_state *st, const char *line,
			  struct kt_file_ctx *fc)
{
	char word[32];
	int ret = KV_READ(line, summary_fields, st, "summary header", fc);

	if (ret)
		return ret;
	if (kt_kv_str(line, SUMMARY_KEY(KTREPL_S_ACTIVATION), word,
		      sizeof(word)) ||
	    kt_activation_parse(word, &st->activation))
		return kt_bad_record(fc, "summary header: unknown activation");
	return 0;
}

static int summary_node(struct kt_state *st, const char *line,
			struct kt_file_ctx *fc)
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
		ret = kt_bad_record(fc, "node record: unknown role");
	if (ret)
		st->nr_nodes--;
	return ret;
}

static int summary_region(struct kt_state *st, const char *line,
			  struct kt_file_ctx *fc)
{
	struct kt_region_state *r = kt_state_add_region(st, fc->err);
	int ret;

	if (!r)
		return -fc->err->code;
	ret = KV_READ(line, region_fields, r, "region record", fc);
	if (!ret && r->end < r->start)
		ret = kt_bad_record(fc, "region record ends before it starts");
	if (ret) {
		st->nr_regions--;
		return ret;
	}
	r->text_end = strcmp(r->name, "text") ? r->start : r->end;
	return 0;
}

/* a replicated module: region "module:NAME" */
static int summary_module(struct kt_state *st, const char *line,
			  struct kt_file_ctx *fc)
{
	struct kt_region_state *r;
	uint64_t start, end;
	char name[56];
	int ret;

	if (kt_kv_str(line, MODULE_KEY(KTREPL_M_MODULE), name, sizeof(name)) ||
	    !*name)
		return kt_bad_record(fc, "module record lacks a name");
	r = kt_state_add_region(st, fc->err);
	if (!r)
		return -fc->err->code;
	ret = KV_READ(line, module_fields, r, "module record", fc);
	if (!ret && (r->end < r->start || r->text_end < r->start ||
		     r->text_end > r->end))
		ret = kt_bad_record(fc, "module record: text_end outside start..end");
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
			return kt_bad_record(fc, "module record: rodata_end before rodata_start");
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
int kt_summary_line(struct kt_state *st, const char *line,
		    struct kt_file_ctx *fc)
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
