// SPDX-License-Identifier: GPL-2.0
/*
 * The vmcore descriptor's header, declared once (ktrepl_desc.h): its table
 * of the fields added later against the struct and against docs/abi.md's
 * layout table, ktrepl_desc_has() at each field's edge, and the reader on
 * a header of every length version 1 has had. A field the header ends
 * before must read 0 (none) although the node array lies there; one the
 * header carries must read what it holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc_build.h"
#include "fixture_path.h"
#include "ktrepl_desc.h"
#include "rawimg.h"
#include "state.h"
#include "tap.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every header field, by name, where the compiler puts it: what the late
 * table and the doc are checked against. Complete because contiguous
 * from 0 to sizeof(struct ktrepl_desc) (the first test).
 */
#define FIELD(f) { #f, offsetof(struct ktrepl_desc, f), KTREPL_DESC_SIZE(f) }

static const struct header_field {
	const char *name;
	size_t off, size;
} header[] = {
	FIELD(magic), FIELD(abi), FIELD(size), FIELD(arch), FIELD(activation),
	FIELD(paging_levels), FIELD(va_bits), FIELD(page_shift),
	FIELD(master_node), FIELD(propagate), FIELD(nr_nodes),
	FIELD(nr_regions), FIELD(nr_extents), FIELD(nr_cpus), FIELD(nr_tasks),
	FIELD(master_root_pa), FIELD(direct_map), FIELD(patches),
	FIELD(patch_bytes), FIELD(patches_missed), FIELD(nodes_off),
	FIELD(regions_off), FIELD(extents_off), FIELD(cpu_node_off),
	FIELD(tasks_off), FIELD(cpu_root_off), FIELD(nr_bound),
	FIELD(bound_off), FIELD(nr_modules), FIELD(modules_off),
	FIELD(module_rodata_off), FIELD(reserved), FIELD(modules_omitted),
	FIELD(flags), FIELD(failsafe), FIELD(failsafe_active),
	FIELD(failsafe_reason), FIELD(self_pa), FIELD(fixed_sum),
	FIELD(panic_root_off), FIELD(bound_omitted), FIELD(panic_cpu),
	FIELD(panic_pid), FIELD(panic_pc), FIELD(panic_lr),
};

static const struct header_field *header_field(const char *name)
{
	size_t i;

	for (i = 0; i < NELEMS(header); i++)
		if (!strcmp(header[i].name, name))
			return &header[i];
	return NULL;
}

static bool is_padding(const struct header_field *h)
{
	return !strncmp(h->name, "reserved", 8);
}

/* its entry in the late table, or NULL for a field of every header */
static const struct ktrepl_desc_late *late_field(const char *name)
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	int id;

	for (id = 0; id < KTREPL_DESC_L_NR; id++)
		if (!strcmp(f[id].name, name))
			return &f[id];
	return NULL;
}

static void test_header_list(void)
{
	size_t i, at = 0;

	for (i = 0; i < NELEMS(header) && header[i].off == at; i++)
		at += header[i].size;
	tap_eq_u64(i, NELEMS(header),
		   "the test's list of header fields follows the struct without a gap (stops at %s)",
		   i < NELEMS(header) ? header[i].name : "the end");
	tap_eq_u64(at, sizeof(struct ktrepl_desc),
		   "and ends where the header does");
}

/*
 * Each late entry names a field at its own offset and size, in header
 * order, past the first header; and every field past that header is one
 * (or padding), so none is read without its rule.
 */
static void test_late_table(void)
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	const struct header_field *h;
	char bad[256] = "";
	size_t i;
	int id;

	for (id = 0; id < KTREPL_DESC_L_NR && !bad[0]; id++) {
		h = header_field(f[id].name);
		if (!h || h->off != f[id].off || h->size != f[id].size)
			snprintf(bad, sizeof(bad),
				 "entry %d '%s' at %u, %u bytes; the struct's: %zd, %zd",
				 id, f[id].name, f[id].off, f[id].size,
				 h ? (ssize_t)h->off : -1,
				 h ? (ssize_t)h->size : -1);
		else if (id && f[id].off < f[id - 1].off + f[id - 1].size)
			snprintf(bad, sizeof(bad), "entry %d '%s' out of order",
				 id, f[id].name);
		else if (f[id].off < KTREPL_DESC_BASE_END)
			snprintf(bad, sizeof(bad),
				 "entry %d '%s' lies in every header (before %zu)",
				 id, f[id].name, (size_t)KTREPL_DESC_BASE_END);
	}
	tap_streq(bad, "", "each late field's entry matches the struct, in order");
	bad[0] = '\0';
	for (i = 0; i < NELEMS(header) && !bad[0]; i++) {
		bool past_base = header[i].off >= KTREPL_DESC_BASE_END;

		if (past_base != (late_field(header[i].name) ||
				  is_padding(&header[i])))
			snprintf(bad, sizeof(bad), "%s at %zu", header[i].name,
				 header[i].off);
	}
	tap_streq(bad, "",
		  "the late table holds every field past the first header (%zu bytes), and only those",
		  (size_t)KTREPL_DESC_BASE_END);
}

/* ktrepl_desc_has() at each late field's edge */
static void test_has(void)
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	struct ktrepl_desc d;
	char bad[256] = "";
	int id;

	for (id = 0; id < KTREPL_DESC_L_NR && !bad[0]; id++) {
		uint32_t end = f[id].off + f[id].size;

		memset(&d, 0, sizeof(d));
		d.flags = ~0U;
		d.nodes_off = end - 1;
		if (ktrepl_desc_has(&d, id))
			snprintf(bad, sizeof(bad),
				 "%s taken from a header that ends 1 byte short of it",
				 f[id].name);
		d.nodes_off = end > KTREPL_DESC_END(flags) || !f[id].flag ?
			      end : KTREPL_DESC_END(flags);
		if (!bad[0] && !ktrepl_desc_has(&d, id))
			snprintf(bad, sizeof(bad),
				 "%s refused from a header of %u bytes, every flag set",
				 f[id].name, d.nodes_off);
		d.flags = 0;
		if (!bad[0] && f[id].flag && ktrepl_desc_has(&d, id))
			snprintf(bad, sizeof(bad),
				 "%s taken without its flag 0x%x", f[id].name,
				 f[id].flag);
		d.flags = ~f[id].flag;
		if (!bad[0] && f[id].flag && ktrepl_desc_has(&d, id))
			snprintf(bad, sizeof(bad),
				 "%s taken with every flag but its own",
				 f[id].name);
	}
	tap_streq(bad, "",
		  "ktrepl_desc_has: each late field only from a header that holds it, and a flagged one only with its flag");
	memset(&d, 0, sizeof(d));
	d.nodes_off = KTREPL_DESC_END(modules_omitted);
	d.flags = KTREPL_DESC_F_MODULES_COUNTED;
	tap_eq_u64(ktrepl_desc_has(&d, KTREPL_DESC_L_MODULES_OMITTED), 0,
		   "modules_omitted refused from a header that ends before flags, whatever lies there");
}

/*
 * docs/abi.md's "vmcore descriptor layout": one row per header field
 * ("| 160 | 4 | `nr_bound` | nodes_off |") at the struct's offset and size,
 * and its rule as the late table has it; one row per record with its size.
 */
static const char *rule_of(const struct header_field *h)
{
	const struct ktrepl_desc_late *l = late_field(h->name);

	if (is_padding(h))
		return "-";
	if (!l)
		return "always";
	if (l->flag == KTREPL_DESC_F_MODULES_COUNTED)
		return "flag MODULES_COUNTED";
	if (l->flag == KTREPL_DESC_F_BOUND_COUNTED)
		return "flag BOUND_COUNTED";
	if (l->flag == KTREPL_DESC_F_PANIC_SITE)
		return "flag PANIC_SITE";
	return l->flag ? "a flag this test does not know" : "nodes_off";
}

static const struct {
	const char *name;
	size_t size;
} records[] = {
	{ "struct ktrepl_desc_node", sizeof(struct ktrepl_desc_node) },
	{ "struct ktrepl_desc_region", sizeof(struct ktrepl_desc_region) },
	{ "struct ktrepl_desc_extent", sizeof(struct ktrepl_desc_extent) },
	{ "struct ktrepl_desc_task", sizeof(struct ktrepl_desc_task) },
	{ "struct ktrepl_desc_bound", sizeof(struct ktrepl_desc_bound) },
	{ "struct ktrepl_desc_module", sizeof(struct ktrepl_desc_module) },
	{ "struct ktrepl_desc_module_rodata",
	  sizeof(struct ktrepl_desc_module_rodata) },
};

static void test_doc(void)
{
	const char *path = fixture_path("../../../docs/abi.md");
	char line[512], name[64], rule[64], bad[512] = "";
	unsigned int rows = 0, recs = 0;
	bool in_section = false;
	FILE *doc = fopen(path, "r");
	size_t i;

	tap_ok(doc, "docs/abi.md at %s", path);
	if (!doc)
		return;
	while (fgets(line, sizeof(line), doc) && !bad[0]) {
		const struct header_field *h;
		unsigned long off, size;

		if (!strncmp(line, "## ", 3)) {
			in_section = !strcmp(line, "## vmcore descriptor layout\n");
			continue;
		}
		if (!in_section)
			continue;
		if (sscanf(line, "| `%63[^`]` | %lu |", name, &size) == 2) {
			for (i = 0; i < NELEMS(records); i++)
				if (!strcmp(records[i].name, name))
					break;
			if (i == NELEMS(records))
				continue;	/* cpu_node[] and the like */
			if (records[i].size != size)
				snprintf(bad, sizeof(bad),
					 "%s: %lu bytes in the doc, %zu in the struct",
					 name, size, records[i].size);
			recs++;
			continue;
		}
		if (sscanf(line, "| %lu | %lu | `%63[^`]` | %63[^|]|", &off,
			   &size, name, rule) != 4)
			continue;
		for (i = strlen(rule); i && rule[i - 1] == ' '; i--)
			rule[i - 1] = '\0';
		h = header_field(name);
		if (!h)
			snprintf(bad, sizeof(bad), "the doc's %s is no field",
				 name);
		else if (h->off != off || h->size != size)
			snprintf(bad, sizeof(bad),
				 "%s at %lu, %lu bytes in the doc; %zu, %zu in the struct",
				 name, off, size, h->off, h->size);
		else if (strcmp(rule, rule_of(h)))
			snprintf(bad, sizeof(bad),
				 "%s valid '%s' in the doc; the header's rule is '%s'",
				 name, rule, rule_of(h));
		rows++;
	}
	fclose(doc);
	tap_streq(bad, "",
		  "docs/abi.md's layout table: each row's offset, size and rule are the header's");
	tap_eq_u64(rows, NELEMS(header), "and it has a row for every header field");
	tap_eq_u64(recs, NELEMS(records), "and the size of every record");
}

/*
 * A descriptor whose header is hdr_end bytes long, as a module of that
 * era wrote it: the node array at hdr_end, over where later fields would
 * be, with no zero word in it (node ids 2 and 3, addresses past 4 GiB), so
 * that reading one of them would show. Every late field is given a value
 * that a header carrying it passes on: one bound process, one of two
 * module slots used with its rodata, 7 modules omitted (with flags, when
 * counted), three fail-safe events, one CPU's root at panic, and the
 * seal. The arrays follow the header in the order the module lays them.
 */
#define DESC_PA 0x100000ULL
#define NODE_ID0 2
#define ROOT(i) (0x100001000ULL + (uint64_t)(i) * 0x100000000ULL)

static const struct ktrepl_desc_bound bound42 = {
	.pid = 42, .node = NODE_ID0 + 1, .root_pa = ROOT(1), .comm = "bound42"
};

static uint8_t *build_descriptor(uint32_t hdr_end, bool counted, size_t *len)
{
	const struct fx_desc_spec spec = {
		.hdr_end = hdr_end, .buf_size = 4 * 4096, .activation = "mm",
		.node0 = NODE_ID0, .root0 = ROOT(0), .mem0 = ROOT(0),
		.node_stride = ROOT(1) - ROOT(0), .overhead = 0x100005000ULL,
		.bound = &bound42, .nr_bound = 1,
		.mod_slots = 2, .mods_used = 1, .mod_name = "mod", .mod_digits = 1,
		.mod_text = 0xffffffffc0000000ULL,
		.mod_rodata = 0xffffffffc0100000ULL,
		.modules_omitted = 7,
		.flags = counted ? KTREPL_DESC_F_MODULES_COUNTED : 0,
		.failsafe = true, .panic_roots = true, .seal_pa = DESC_PA,
	};

	return fx_build_descriptor(&spec, len);
}

/* whether any 4-byte word of the image where field f would be is 0 */
static bool zero_word_at(const uint8_t *buf, const struct ktrepl_desc_late *f)
{
	uint32_t w, i;

	for (i = 0; i < f->size; i += 4) {
		memcpy(&w, buf + f->off + i, 4);
		if (!w)
			return true;
	}
	return false;
}

struct loaded {
	int ret;
	char msg[sizeof(((struct kt_err *)0)->msg)];
	int check;		/* kt_state_check_descriptor() */
	struct kt_state st;
};

static void load(uint8_t *buf, size_t len, struct loaded *out)
{
	char path[] = "/tmp/ktrepl-desc-XXXXXX";
	struct kt_memsrc *src = open_raw_image_at(buf, len, DESC_PA, path);
	struct kt_err err;

	kt_err_clear(&err);
	out->ret = out->check = -1;
	if (!src) {
		snprintf(out->msg, sizeof(out->msg), "cannot write %s", path);
		return;
	}
	out->check = kt_state_check_descriptor(src, DESC_PA, &err);
	out->ret = kt_state_load_descriptor(&out->st, src, DESC_PA, &err);
	snprintf(out->msg, sizeof(out->msg), "%s", err.msg);
	kt_memsrc_close(src);
	unlink(path);
}

/*
 * Every length a header has had: each late field's end, rounded to the
 * 8 bytes the node array starts on (the ABI's table, not a test's run)
 */
static int header_ends(uint32_t ends[KTREPL_DESC_L_NR + 1])
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	uint32_t hdr_end;
	int id, n = 0;

	ends[n++] = KTREPL_DESC_BASE_END;
	for (id = 0; id < KTREPL_DESC_L_NR; id++) {
		hdr_end = (f[id].off + f[id].size + 7) & ~7U;
		if (hdr_end != ends[n - 1])
			ends[n++] = hdr_end;
	}
	return n;
}

/* the points test_header_lengths makes for each header length */
#define HEADER_LENGTH_POINTS 12

/*
 * Each header length, and each state fact a late field feeds: there
 * exactly when the header reaches that field's end.
 */
static void test_header_lengths(bool counted)
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	uint32_t ends[KTREPL_DESC_L_NR + 1], hdr_end;
	int id, n = header_ends(ends), k;

	for (k = 0; k < n; k++) {
		struct loaded l;
		char junk[256] = "";
		bool bound, mods, rodata, omitted, events, active, reason, panic;
		bool site;
		size_t len;
		uint8_t *buf;

		hdr_end = ends[k];
		bound = hdr_end >= KTREPL_DESC_END(bound_off);
		mods = hdr_end >= KTREPL_DESC_END(modules_off);
		rodata = mods && hdr_end >= KTREPL_DESC_END(module_rodata_off);
		omitted = counted && hdr_end >= KTREPL_DESC_END(flags);
		events = hdr_end >= KTREPL_DESC_END(failsafe);
		active = hdr_end >= KTREPL_DESC_END(failsafe_active);
		reason = hdr_end >= KTREPL_DESC_END(failsafe_reason);
		panic = hdr_end >= KTREPL_DESC_END(panic_root_off);
		site = hdr_end >= KTREPL_DESC_END(panic_lr);
		buf = build_descriptor(hdr_end, counted, &len);
		if (!buf) {
			tap_ok(0, "a %u-byte header: out of memory", hdr_end);
			continue;
		}
		for (id = 0; id < KTREPL_DESC_L_NR && !junk[0]; id++)
			if (f[id].off + f[id].size > hdr_end &&
			    zero_word_at(buf, &f[id]))
				snprintf(junk, sizeof(junk), "%s", f[id].name);
		tap_streq(junk, "",
			  "%u-byte header: no zero word where a field it lacks would be",
			  hdr_end);
		load(buf, len, &l);
		free(buf);
		tap_ok(!l.ret && !l.check,
		       "%u-byte header%s: loaded and trusted (load %d, check %d: %s)",
		       hdr_end, counted ? "" : ", modules not counted", l.ret,
		       l.check, l.msg);
		if (l.ret)
			continue;
		tap_eq_u64(l.st.nr_bound, bound, "%u: bound processes", hdr_end);
		tap_eq_u64(bound && l.st.nr_bound ? l.st.bound[0].pid : 0,
			   bound ? 42 : 0, "%u: the bound process's pid", hdr_end);
		tap_eq_u64(l.st.nr_modules, mods, "%u: modules", hdr_end);
		tap_eq_u64(kt_state_region(&l.st, "module:mod0/rodata") >= 0,
			   rodata, "%u: the module's rodata region", hdr_end);
		tap_eq_u64(l.st.modules_omitted, omitted ? 7 : 0,
			   "%u: modules omitted", hdr_end);
		tap_eq_u64(l.st.failsafe, events ? 3 : 0,
			   "%u: fail-safe events", hdr_end);
		tap_eq_u64(l.st.failsafe_active, active,
			   "%u: fail-safe active", hdr_end);
		tap_streq(l.st.failsafe_reason, reason ? "mirror_missed" : "",
			  "%u: fail-safe reason", hdr_end);
		tap_eq_u64(l.st.panic_roots, panic, "%u: CPUs with a root at panic",
			   hdr_end);
		tap_eq_u64(l.st.have_panic_site ?
				   l.st.panic_pc + (uint64_t)l.st.panic_cpu : 0,
			   site ? 0xffffffff81000124ULL : 0,
			   "%u: the panic site (cpu 1, pc ...123)", hdr_end);
		kt_state_free(&l.st);
	}
}

/*
 * The seal is checked where the header carries it, and a header shorter
 * than the first version-1 one is refused, not read.
 */
static void test_seal_and_short(void)
{
	struct loaded l;
	size_t len;
	uint8_t *buf = build_descriptor(sizeof(struct ktrepl_desc), true, &len);

	if (!buf)
		return;
	((struct ktrepl_desc *)buf)->self_pa = 2 * DESC_PA;
	load(buf, len, &l);
	tap_eq_s64(l.check, -EPROTO,
	       "a full header sealed for another address fails the check (got %d)",
	       l.check);
	if (!l.ret)
		kt_state_free(&l.st);
	free(buf);
	buf = build_descriptor(KTREPL_DESC_BASE_END - 8, true, &len);
	if (!buf)
		return;
	load(buf, len, &l);
	tap_ok(l.ret == -EPROTO && strstr(l.msg, "header of"),
	       "a %zu-byte header is refused as damage (got %d: %s)",
	       (size_t)KTREPL_DESC_BASE_END - 8, l.ret, l.msg);
	tap_eq_s64(l.check, -EPROTO, "and fails the check (got %d)", l.check);
	if (!l.ret)
		kt_state_free(&l.st);
	free(buf);
}

int main(void)
{
	uint32_t ends[KTREPL_DESC_L_NR + 1];

	tap_header();
	/* 13 points, and each header length's, counted and not */
	tap_plan(13 + 2 * HEADER_LENGTH_POINTS * header_ends(ends));
	test_header_list();
	test_late_table();
	test_has();
	test_doc();
	test_header_lengths(true);
	test_header_lengths(false);
	test_seal_and_short();
	return tap_finish();
}
