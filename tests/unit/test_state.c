// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI readers on what a real guest wrote (fixtures/, made by
 * tests/vm/capture-fixtures.py): the debugfs files and the vmcore
 * descriptor of one load must give the same state, and every kind of
 * damage must be an error that says what is wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "desc_build.h"
#include "ktrepl_desc.h"
#include "rawimg.h"
#include "state.h"
#include "fixture_path.h"
#include "ktrepl_summary.h"
#include "tap.h"

/* under tests/unit/fixtures: a real 2x2 guest's files (fixture_path()) */
#define FIXTURE "x86_64-2x2"
#define MAX_FILE (64 << 10)

static const char *const debugfs_files[] = {
	"abi", "summary", "replicas", "pgds", "patches", "tasks", "workload",
};

static char *slurp(const char *path, size_t *len)
{
	char *buf = malloc(MAX_FILE);
	ssize_t n = -1;
	int fd = open(path, O_RDONLY);

	if (fd >= 0 && buf)
		n = read(fd, buf, MAX_FILE - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int spit(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * A copy of the fixture's debugfs in a temp dir, with the first "from"
 * in file replaced by "to" (file NULL: an exact copy; to NULL: the file
 * is left out).
 */
static int damaged_copy(char *dir, const char *file, const char *from,
			const char *to)
{
	char src[256], dst[256];
	size_t i, len;

	strcpy(dir, "/tmp/ktrepl-dbgfs-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < sizeof(debugfs_files) / sizeof(debugfs_files[0]); i++) {
		const char *name = debugfs_files[i];
		char *buf, *at;

		snprintf(src, sizeof(src), "%s/%s",
			 fixture_path(FIXTURE "/debugfs"), name);
		snprintf(dst, sizeof(dst), "%s/%s", dir, name);
		buf = slurp(src, &len);
		if (!buf)
			return -1;
		if (file && !strcmp(file, name) && !to) {
			free(buf);
			continue;
		}
		at = file && !strcmp(file, name) ? strstr(buf, from) : NULL;
		if (file && !strcmp(file, name) && !at) {
			free(buf);
			return -1;	/* the fixture changed under the test */
		}
		if (at) {
			FILE *fp = fopen(dst, "w");

			if (!fp) {
				free(buf);
				return -1;
			}
			fprintf(fp, "%.*s%s%s", (int)(at - buf), buf, to,
				at + strlen(from));
			fclose(fp);
		} else if (spit(dst, buf, len)) {
			free(buf);
			return -1;
		}
		free(buf);
	}
	return 0;
}

static void remove_copy(const char *dir)
{
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(debugfs_files) / sizeof(debugfs_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, debugfs_files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_debugfs(struct kt_state *st)
{
	struct kt_err err;
	int ret, replicas = 0, masters = 0;
	int i;

	kt_err_clear(&err);
	ret = kt_state_load_debugfs(st, fixture_path(FIXTURE "/debugfs"), &err);
	tap_ok(!ret, "the captured debugfs loads (%s)", err.msg);
	if (ret)
		return;
	tap_ok(st->abi == 1 && !strcmp(st->arch, "x86_64") &&
	       st->paging_levels == 4 && st->page_size == 4096,
	       "abi 1, x86_64, 4-level, 4K pages");
	tap_ok(st->activation == KT_ACT_WORKLOAD,
	       "activation parsed once, into an enum: %s",
	       kt_activation_name(st->activation));
	for (i = 0; i < st->nr_nodes; i++) {
		replicas += st->nodes[i].role == KT_ROLE_REPLICA;
		masters += st->nodes[i].role == KT_ROLE_MASTER;
	}
	tap_ok(st->nr_nodes == 2 && replicas == 1 && masters == 1 &&
	       st->nodes[st->master_node].role == KT_ROLE_MASTER,
	       "two nodes: the master (node %d) and one replica", st->master_node);
	tap_ok(st->nr_regions == 2 && !strcmp(st->regions[0].name, "text") &&
	       !strcmp(st->regions[1].name, "rodata"), "text and rodata");
	tap_ok(st->nr_extents > 4, "%zu extents over both nodes", st->nr_extents);
	tap_ok(st->nr_cpus == 4 && st->nr_tasks == 2,
	       "4 CPUs from pgds, 2 workers from tasks");
}

/*
 * A 6.4+ module record, as docs/abi.md spells it: no captured guest had
 * a module replicated, so this one is written by hand.
 */
#define VFAT_RECORD                                                        \
	"module=vfat start=0xffffffffc0100000 text_end=0xffffffffc0104000 " \
	"end=0xffffffffc0104000 size=16384 orig_node=1 master_copies=6 "    \
	"since_ns=1 rodata_start=0xffffffffc0200000 "                       \
	"rodata_end=0xffffffffc0202000"

/*
 * From 6.4 a module's rodata is an area of its own: its record names it,
 * it becomes "module:NAME/rodata", and each replica record goes to the
 * region whose range holds its VA.
 */
static void test_module_rodata(void)
{
	static const char module[] = VFAT_RECORD "\nregion=rodata";
	struct kt_state st;
	struct kt_err err;
	char dir[64], path[96];
	int text, ro, ret;
	FILE *fp;

	if (damaged_copy(dir, "summary", "region=rodata", module)) {
		tap_ok(0, "module rodata: fixture copy");
		return;
	}
	snprintf(path, sizeof(path), "%s/replicas", dir);
	fp = fopen(path, "a");
	if (fp) {
		fprintf(fp, "node=0 region=module va=0xffffffffc0100000 pa=0x1000000 size=16384 page_size=4096 pa_node=0 module=vfat\n"
			    "node=0 region=module va=0xffffffffc0200000 pa=0x2000000 size=8192 page_size=4096 pa_node=0 module=vfat\n");
		fclose(fp);
	}
	kt_err_clear(&err);
	ret = kt_state_load_debugfs(&st, dir, &err);
	text = ret ? -1 : kt_state_region(&st, "module:vfat");
	ro = ret ? -1 : kt_state_region(&st, "module:vfat/rodata");
	tap_ok(text >= 0 && ro >= 0 && st.regions[text].text_end ==
		       st.regions[text].end &&
		       st.regions[ro].start == 0xffffffffc0200000ULL &&
		       st.regions[ro].text_end == st.regions[ro].start &&
		       st.regions[ro].master_copies == 6 && st.regions[ro].module,
	       "a module record with rodata_start/end: module:vfat (all text) and module:vfat/rodata (none) (%s)",
	       err.msg);
	tap_ok(!ret && st.nr_extents >= 2 &&
		       st.extents[st.nr_extents - 2].region == text &&
		       st.extents[st.nr_extents - 1].region == ro,
	       "its replica records go to the region holding their VA");
	if (!ret)
		kt_state_free(&st);
	remove_copy(dir);
	if (damaged_copy(dir, "summary", "region=rodata",
			 "module=vfat start=0x1000 text_end=0x2000 end=0x2000 rodata_start=0x5000 rodata_end=0x4000\nregion=rodata")) {
		tap_ok(0, "module rodata: fixture copy");
		return;
	}
	ret = kt_state_load_debugfs(&st, dir, &err);
	tap_ok(ret < 0 && strstr(err.msg, "rodata_end before rodata_start"),
	       "rodata_end before rodata_start is an error: %s", err.msg);
	if (!ret)
		kt_state_free(&st);
	remove_copy(dir);
}

static void test_debugfs_damage(void)
{
	static const struct {
		const char *file, *from, *to, *says;
	} cases[] = {
		{ "abi", "1", "2", "version" },
		{ "abi", "1", "one", "ABI version" },
		{ "summary", NULL, NULL, "summary" },
		{ "summary", "activation=workload", "activation=everywhere",
		  "unknown activation" },
		{ "summary", "role=replica", "role=primary", "unknown role" },
		{ "summary", "arch=x86_64 ", "", "lacks" },
		{ "summary", "patches=0", "patches=zero", "bad patches" },
		{ "summary", "has_memory=1 role=master", "has_memory=maybe role=master",
		  "bad has_memory" },
		/* a file cut short inside its first record */
		{ "summary", "paging_levels=4", "pag\n", "lacks" },
		{ "replicas", "size=", "sighs=", "lacks" },
		{ "replicas", "region=text", "region=data", "unknown region" },
	};
	struct kt_state st;
	struct kt_err err;
	char dir[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		if (damaged_copy(dir, cases[i].file, cases[i].from ? cases[i].from : "",
				 cases[i].to)) {
			tap_ok(0, "damaged copy of %s", cases[i].file);
			continue;
		}
		kt_err_clear(&err);
		memset(&st, 0, sizeof(st));
		ret = kt_state_load_debugfs(&st, dir, &err);
		tap_ok(ret < 0 && strstr(err.msg, cases[i].says) &&
		       (!cases[i].to || strstr(err.msg, cases[i].file)),
		       "%s %s: an error naming the file and '%s': %s",
		       cases[i].file,
		       cases[i].to ? "damaged" : "missing", cases[i].says,
		       err.msg);
		if (!ret)
			kt_state_free(&st);
		remove_copy(dir);
	}
}

/* the descriptor at its PA in a raw image of exactly its bytes */
static struct kt_memsrc *descriptor_image(const void *desc, size_t len,
					  uint64_t pa, char *path)
{
	strcpy(path, "/tmp/ktrepl-desc-XXXXXX");
	return open_raw_image_at(desc, len, pa, path);
}

static bool same_extents(const struct kt_state *a, const struct kt_state *b)
{
	size_t i;

	if (a->nr_extents != b->nr_extents)
		return false;
	for (i = 0; i < a->nr_extents; i++) {
		const struct kt_extent_state *x = &a->extents[i],
					     *y = &b->extents[i];

		if (x->node != y->node || x->region != y->region ||
		    x->va != y->va || x->pa != y->pa || x->size != y->size ||
		    x->page_size != y->page_size || x->pa_node != y->pa_node)
			return false;
	}
	return true;
}

static bool same_nodes(const struct kt_state *a, const struct kt_state *b)
{
	int i;

	if (a->nr_nodes != b->nr_nodes)
		return false;
	for (i = 0; i < a->nr_nodes; i++) {
		const struct kt_node_state *x = &a->nodes[i], *y = &b->nodes[i];

		if (x->nid != y->nid || x->memory_node != y->memory_node ||
		    x->role != y->role || x->root_pa != y->root_pa ||
		    x->has_memory != y->has_memory ||
		    x->overhead != y->overhead || strcmp(x->cpus, y->cpus))
			return false;
	}
	return true;
}

static void test_descriptor(const struct kt_state *live, uint8_t *desc,
			    size_t len, uint64_t pa)
{
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_err err;
	uint64_t found = 0;
	char path[32];
	size_t i;
	int ret;

	src = descriptor_image(desc, len, pa, path);
	tap_ok(src, "the captured descriptor as a raw image at 0x%" PRIx64, pa);
	if (!src)
		return;
	kt_err_clear(&err);
	ret = kt_state_find_descriptor(src, &found, &err);
	tap_ok(!ret && found == pa,
	       "without VMCOREINFO the page scan finds it (0x%" PRIx64 "; %s)",
	       found, err.msg);
	ret = kt_state_load_descriptor(&st, src, pa, &err);
	tap_ok(!ret, "it loads (%s)", err.msg);
	if (!ret) {
		tap_ok(!strcmp(st.arch, live->arch) &&
		       st.paging_levels == live->paging_levels &&
		       st.va_bits == live->va_bits &&
		       st.page_size == live->page_size &&
		       st.master_node == live->master_node &&
		       st.activation == live->activation &&
		       st.master_root_pa == live->master_root_pa &&
		       st.direct_map == live->direct_map,
		       "its header equals the debugfs summary of the same load");
		tap_ok(same_nodes(&st, live),
		       "its nodes equal the debugfs nodes (roles, roots, CPUs)");
		tap_ok(st.nr_regions == live->nr_regions &&
		       !memcmp(st.regions, live->regions,
			       sizeof(st.regions[0]) * st.nr_regions),
		       "its regions equal the debugfs regions");
		tap_ok(same_extents(&st, live),
		       "its %zu extents equal the debugfs replicas file",
		       st.nr_extents);
		for (i = 0; i < st.nr_tasks && i < live->nr_tasks; i++)
			if (st.tasks[i].pid != live->tasks[i].pid ||
			    st.tasks[i].expected_root_pa !=
				    live->tasks[i].expected_root_pa)
				break;
		tap_ok(st.nr_tasks == live->nr_tasks && i == st.nr_tasks,
		       "its %zu tasks are the workers debugfs lists",
		       st.nr_tasks);
		kt_state_free(&st);
	}
	kt_memsrc_close(src);
	unlink(path);
}

static void put32(uint8_t *desc, size_t off, uint32_t v)
{
	memcpy(desc + off, &v, 4);
}

static void test_descriptor_damage(const uint8_t *good, size_t len,
				   uint64_t pa)
{
	const struct ktrepl_desc *d = (const void *)good;
	struct {
		const char *what;
		size_t off;
		uint32_t value;
		size_t keep;	/* bytes of the image; 0: all */
		const char *says;
	} cases[] = {
		{ "ABI version 2", offsetof(struct ktrepl_desc, abi), 2, 0,
		  "ABI version 2" },
		{ "a size past the 1 MiB bound", offsetof(struct ktrepl_desc, size),
		  2u << 20, 0, "corrupt" },
		{ "an extent count running past its size",
		  offsetof(struct ktrepl_desc, nr_extents), d->nr_extents + 100,
		  0, "overruns" },
		{ "a node array offset past the end",
		  offsetof(struct ktrepl_desc, nodes_off), d->size, 0, "overruns" },
		{ "a role no reader knows",
		  d->nodes_off + offsetof(struct ktrepl_desc_node, role), 7, 0,
		  "unknown role" },
		{ "an image cut in the middle", 0, 0, len / 2, "outside" },
		{ "no magic", 0, 0x2a, 0, "no ktrepl descriptor" },
	};
	uint8_t *desc = malloc(len);
	struct kt_memsrc *src;
	struct kt_state st;
	struct kt_err err;
	char path[32];
	size_t i;

	for (i = 0; desc && i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		memcpy(desc, good, len);
		if (cases[i].value)
			put32(desc, cases[i].off, cases[i].value);
		src = descriptor_image(desc, cases[i].keep ? cases[i].keep : len,
				       pa, path);
		if (!src) {
			tap_ok(0, "%s: image", cases[i].what);
			continue;
		}
		kt_err_clear(&err);
		ret = kt_state_load_descriptor(&st, src, pa, &err);
		tap_ok(ret < 0 && strstr(err.msg, cases[i].says),
		       "descriptor with %s: an error saying '%s': %s",
		       cases[i].what, cases[i].says, err.msg);
		if (!ret)
			kt_state_free(&st);
		kt_memsrc_close(src);
		unlink(path);
	}
	free(desc);
}


/* module i of the large-server tests: text, then its rodata apart (6.4+) */
#define MOD_STRIDE 0x10000ULL
#define MOD_TEXT(i) (0xffffffffc0000000ULL + (uint64_t)(i) * MOD_STRIDE)
#define MOD_RODATA(i) (0xffffffffe0000000ULL + (uint64_t)(i) * MOD_STRIDE)

/*
 * A server with n modules: n module records in summary (two regions
 * each) and a replica record for each region. Returns the dir, or NULL.
 */
static int many_modules_copy(char *dir, unsigned int n)
{
	size_t cap = (size_t)n * 256 + 64, used = 0;
	char *lines = malloc(cap), path[96];
	unsigned int i;
	FILE *fp;
	int ret;

	if (!lines)
		return -1;
	for (i = 0; i < n; i++)
		used += snprintf(lines + used, cap - used,
				 "module=mod%04u start=0x%llx text_end=0x%llx end=0x%llx size=16384 orig_node=0 master_copies=0 since_ns=1 rodata_start=0x%llx rodata_end=0x%llx\n",
				 i, (unsigned long long)MOD_TEXT(i),
				 (unsigned long long)MOD_TEXT(i) + 0x4000,
				 (unsigned long long)MOD_TEXT(i) + 0x4000,
				 (unsigned long long)MOD_RODATA(i),
				 (unsigned long long)MOD_RODATA(i) + 0x2000);
	snprintf(lines + used, cap - used, "region=rodata");
	ret = damaged_copy(dir, "summary", "region=rodata", lines);
	free(lines);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/replicas", dir);
	fp = fopen(path, "a");
	if (!fp)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(fp, "node=1 region=module va=0x%llx pa=0x%llx size=16384 page_size=4096 pa_node=1 module=mod%04u\n"
			    "node=1 region=module va=0x%llx pa=0x%llx size=8192 page_size=4096 pa_node=1 module=mod%04u\n",
			(unsigned long long)MOD_TEXT(i),
			0x30000000ULL + i * 0x10000ULL, i,
			(unsigned long long)MOD_RODATA(i),
			0x30008000ULL + i * 0x10000ULL, i);
	fclose(fp);
	return 0;
}

/* module NAME's text and rodata regions, found by name and by VA */
static bool finds_module(const struct kt_state *st, unsigned int i)
{
	char name[32], rodata[40];
	int text, ro;

	snprintf(name, sizeof(name), "module:mod%04u", i);
	snprintf(rodata, sizeof(rodata), "%s/rodata", name);
	text = kt_state_region(st, name);
	ro = kt_state_region(st, rodata);
	return text >= 0 && ro >= 0 && st->regions[text].module &&
	       st->regions[text].start == MOD_TEXT(i) &&
	       st->regions[ro].start == MOD_RODATA(i) &&
	       kt_state_region_at(st, MOD_TEXT(i) + 0x123) == text &&
	       kt_state_region_at(st, MOD_RODATA(i) + 0x1fff) == ro &&
	       kt_state_module_region(st, name, MOD_RODATA(i)) == ro &&
	       kt_state_module_region(st, name, MOD_TEXT(i)) == text;
}

/* every module's replica records went to the region holding their VA */
static bool extents_in_regions(const struct kt_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_extents; i++) {
		const struct kt_extent_state *e = &st->extents[i];
		const struct kt_region_state *r = &st->regions[e->region];

		if (e->va < r->start || e->va >= r->end)
			return false;
	}
	return true;
}

/*
 * Issue 26: a server with hundreds of modules (641 on the test target,
 * two regions each from 6.4) must load whole; the kernel's own limit is
 * KTREPL_DESC_MAX_MODULES, and a list that long may have been cut.
 */
static void test_many_modules(void)
{
	struct kt_state st;
	struct kt_err err;
	char dir[64];
	int ret;

	if (many_modules_copy(dir, 1000)) {
		tap_ok(0, "1000 modules: fixture copy");
		return;
	}
	kt_err_clear(&err);
	ret = kt_state_load_debugfs(&st, dir, &err);
	tap_ok(!ret && st.nr_regions == 2 + 2 * 1000 && st.nr_modules == 1000,
	       "1000 module records load: 2002 regions (%d; %s)",
	       ret ? -1 : st.nr_regions, err.msg);
	if (!ret) {
		tap_ok(finds_module(&st, 0) && finds_module(&st, 641) &&
			       finds_module(&st, 999),
		       "module:NAME and module:NAME/rodata found by name and by VA, first, 641st and last");
		tap_ok(kt_state_region(&st, "module:mod1000") < 0 &&
			       kt_state_region_at(&st, MOD_TEXT(1000)) < 0,
		       "a module not listed is not found");
		tap_ok(st.nr_extents >= 2000 && extents_in_regions(&st),
		       "its 2000 replica records go to the region holding their VA");
		tap_ok(!st.modules_incomplete,
		       "1000 modules, below the kernel's limit: the list is whole");
		tap_ok(sizeof(st) < 1024,
		       "struct kt_state keeps its arrays on the heap (%zu bytes)",
		       sizeof(st));
		kt_state_free(&st);
	}
	remove_copy(dir);

	if (many_modules_copy(dir, KTREPL_DESC_MAX_MODULES)) {
		tap_ok(0, "%d modules: fixture copy", KTREPL_DESC_MAX_MODULES);
		return;
	}
	ret = kt_state_load_debugfs(&st, dir, &err);
	tap_ok(!ret && st.nr_modules == KTREPL_DESC_MAX_MODULES &&
		       st.modules_incomplete && finds_module(&st, 4095),
	       "%d module records, the kernel's limit: loaded, and the list may be cut (%s)",
	       KTREPL_DESC_MAX_MODULES, err.msg);
	if (!ret)
		kt_state_free(&st);
	remove_copy(dir);
}

/*
 * A synthetic descriptor: two nodes, text and rodata, slots module slots
 * of which used are filled, and modules_omitted. old: as a module from
 * before modules_omitted wrote it (the same header size, the field and
 * its flag 0: it was tail padding).
 */
static uint8_t *synth_descriptor(unsigned int slots, unsigned int used,
				 unsigned int omitted, bool old, size_t *len)
{
	const struct fx_desc_spec spec = {
		.activation = "percpu", .root0 = 0x1000, .node_stride = 0x400000,
		.mod_slots = slots, .mods_used = used, .mod_name = "mod",
		.mod_digits = 4, .mod_text = MOD_TEXT(0),
		.mod_rodata = MOD_RODATA(0), .mod_stride = MOD_STRIDE,
		.modules_omitted = old ? 0 : omitted,
		.flags = old ? 0 : KTREPL_DESC_F_MODULES_COUNTED,
		.failsafe = !old,
	};

	return fx_build_descriptor(&spec, len);
}

static int load_synth(struct kt_state *st, unsigned int slots,
		      unsigned int used, unsigned int omitted, bool old,
		      struct kt_err *err)
{
	struct kt_memsrc *src;
	char path[32];
	uint8_t *desc;
	size_t len;
	int ret = -1;

	desc = synth_descriptor(slots, used, omitted, old, &len);
	src = desc ? descriptor_image(desc, len, 0x100000, path) : NULL;
	kt_err_clear(err);
	if (src) {
		ret = kt_state_load_descriptor(st, src, 0x100000, err);
		kt_memsrc_close(src);
		unlink(path);
	}
	free(desc);
	return ret;
}

/*
 * A candidate is trusted only where it is the live descriptor: one sealed
 * for its address is found by the scan; a copy of it elsewhere (a page
 * that merely starts with the magic) and one whose fixed part changed
 * (freed and reused memory) are passed over.
 */
static void test_descriptor_candidates(void)
{
	const uint64_t pa = 0x100000;
	struct kt_memsrc *src;
	struct kt_err err;
	char path[32];
	uint64_t found = 0;
	uint8_t *desc;
	size_t len;
	int ret;

	desc = synth_descriptor(4, 1, 0, false, &len);
	if (!desc)
		return;
	fx_seal_descriptor((void *)desc, pa);
	src = descriptor_image(desc, len, pa, path);
	ret = src ? kt_state_find_descriptor(src, &found, &err) : -1;
	tap_ok(!ret && found == pa,
	       "a sealed descriptor is found by the scan at its own address (got 0x%" PRIx64 ", want 0x%" PRIx64 "; %s)",
	       ret ? 0 : found, pa, ret ? err.msg : "found");
	if (src) {
		kt_memsrc_close(src);
		unlink(path);
	}
	fx_seal_descriptor((void *)desc, 2 * pa);
	src = descriptor_image(desc, len, pa, path);
	ret = src ? kt_state_find_descriptor(src, &found, &err) : -1;
	tap_ok(ret == -ENOENT && strstr(err.msg, "no ktrepl state"),
	       "a copy of a descriptor sealed for another address is not trusted (got %d: %s)",
	       ret, err.msg);
	if (src) {
		ret = kt_state_check_descriptor(src, pa, &err);
		tap_ok(ret == -EPROTO && strstr(err.msg, "a copy"),
		       "and the check says it is a copy (got %d: %s)", ret,
		       err.msg);
		kt_memsrc_close(src);
		unlink(path);
	}
	fx_seal_descriptor((void *)desc, pa);
	((struct ktrepl_desc *)desc)->master_root_pa ^= 0x1000;
	src = descriptor_image(desc, len, pa, path);
	ret = src ? kt_state_check_descriptor(src, pa, &err) : -1;
	tap_ok(ret == -EPROTO && strstr(err.msg, "checksum"),
	       "a descriptor whose fixed part changed fails its checksum (got %d: %s)",
	       ret, err.msg);
	if (src) {
		kt_memsrc_close(src);
		unlink(path);
	}
	free(desc);
}

/*
 * The descriptor holds KTREPL_DESC_MAX_MODULES and says how many it left
 * out; an older one, which could not say, is suspect when full.
 */
static void test_descriptor_modules(void)
{
	struct kt_state st;
	struct kt_err err;
	int ret;

	ret = load_synth(&st, KTREPL_DESC_MAX_MODULES, 1000, 0, false, &err);
	tap_ok(!ret && st.nr_regions == 2 + 2 * 1000 && st.nr_modules == 1000 &&
		       !st.modules_incomplete && finds_module(&st, 0) &&
		       finds_module(&st, 999),
	       "a descriptor with 1000 of %d slots used: 2002 regions, each module found by name and VA, nothing left out (%s)",
	       KTREPL_DESC_MAX_MODULES, err.msg);
	if (!ret)
		kt_state_free(&st);
	ret = load_synth(&st, 256, 256, 385, false, &err);
	tap_ok(!ret && st.failsafe == 3 && st.failsafe_active &&
		       !strcmp(st.failsafe_reason, "mirror_missed"),
	       "the descriptor's fail-safe fields reach the state (got %" PRIu64 " %d '%s')",
	       st.failsafe, st.failsafe_active, st.failsafe_reason);
	tap_ok(!ret && st.nr_modules == 256 && st.modules_incomplete &&
		       st.modules_omitted == 385,
	       "a descriptor that says it left 385 modules out: the state says so (%s)",
	       err.msg);
	if (!ret)
		kt_state_free(&st);
	ret = load_synth(&st, 256, 256, 0, true, &err);
	tap_ok(!ret && st.nr_modules == 256 && st.modules_incomplete &&
		       !st.modules_omitted,
	       "an older descriptor with every one of its 256 slots used: maybe cut (%s)",
	       err.msg);
	if (!ret)
		kt_state_free(&st);
	ret = load_synth(&st, 256, 100, 0, true, &err);
	tap_ok(!ret && st.nr_modules == 100 && !st.modules_incomplete,
	       "an older descriptor with free slots: whole (%s)", err.msg);
	if (!ret)
		kt_state_free(&st);
}

/*
 * How many of line's keys are the first of the table's nr, in order.
 * *stop is the first key that is not, NULL when every key was; line is
 * cut up.
 */
static unsigned int keys_in_order(char *line, const struct ktrepl_field *f,
				  unsigned int nr, const char **stop)
{
	char *tok, *save = NULL;
	unsigned int i = 0;

	line[strcspn(line, "\n")] = '\0';
	*stop = NULL;
	for (tok = strtok_r(line, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save), i++) {
		size_t klen = strcspn(tok, "=");

		if (i >= nr || strlen(f[i].name) != klen ||
		    strncmp(tok, f[i].name, klen)) {
			*stop = tok;
			break;
		}
	}
	return i;
}

/*
 * summary's fields are declared once (ktrepl_summary.h): the reader's
 * table agrees with it, and a real module's first line, captured when
 * it had fewer fields, is a prefix of it in order (the ABI only adds).
 */
static void test_summary_table(void)
{
	const struct ktrepl_field *f = ktrepl_summary_fields();
	char why[128] = "", line[4096];
	const char *stop;
	unsigned int i;
	FILE *fp;

	tap_ok(!kt_state_check_summary_table(why, sizeof(why)),
	       "the reader's summary table agrees with ktrepl_summary.h (%s)",
	       why);
	fp = fopen(fixture_path(FIXTURE "/debugfs/summary"), "r");
	if (!fp || !fgets(line, sizeof(line), fp)) {
		tap_ok(0, "the fixture's summary has a first line");
		if (fp)
			fclose(fp);
		return;
	}
	fclose(fp);
	i = keys_in_order(line, f, KTREPL_S_NR, &stop);
	tap_ok(!stop && i > 10,
	       "a real summary line's %u keys are ktrepl_summary.h's, in order (stopped at '%s', want '%s')",
	       i, stop ? stop : "-", i < KTREPL_S_NR ? f[i].name : "-");
}

/*
 * A record's keys, on one line: exactly its table's (or, for the module
 * record, the table's first KTREPL_M_NR_ALWAYS), in order.
 */
static void check_record_keys(const char *what, const char *record,
			      const struct ktrepl_field *f, unsigned int nr,
			      unsigned int nr_always)
{
	char line[4096];
	const char *stop;
	unsigned int i;

	snprintf(line, sizeof(line), "%s", record);
	i = keys_in_order(line, f, nr, &stop);
	tap_ok(!stop && (i == nr || i == nr_always),
	       "%s: %u keys, ktrepl_summary.h's in order (stopped at '%s', want '%s'; want %u or %u keys)",
	       what, i, stop ? stop : "-", i < nr ? f[i].name : "-", nr_always,
	       nr);
}

/*
 * The node, region and module records are declared once too: the
 * reader's tables agree with ktrepl_summary.h, and the real guest's
 * node and region lines have exactly its keys, in order.
 */
static void test_record_tables(void)
{
	char why[128] = "", line[4096];
	unsigned int nodes = 0, regions = 0;
	FILE *fp;

	tap_ok(!kt_state_check_node_table(why, sizeof(why)),
	       "the reader's node table agrees with ktrepl_summary.h (%s)", why);
	why[0] = '\0';
	tap_ok(!kt_state_check_region_table(why, sizeof(why)),
	       "the reader's region table agrees with ktrepl_summary.h (%s)",
	       why);
	why[0] = '\0';
	tap_ok(!kt_state_check_module_table(why, sizeof(why)),
	       "the reader's module table agrees with ktrepl_summary.h (%s)",
	       why);
	fp = fopen(fixture_path(FIXTURE "/debugfs/summary"), "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "node=", 5)) {
			check_record_keys("a real node record", line,
					  ktrepl_node_fields(), KTREPL_N_NR,
					  KTREPL_N_NR);
			nodes++;
		} else if (!strncmp(line, "region=", 7)) {
			check_record_keys("a real region record", line,
					  ktrepl_region_fields(), KTREPL_R_NR,
					  KTREPL_R_NR);
			regions++;
		}
	}
	if (fp)
		fclose(fp);
	tap_ok(nodes == 2 && regions == 2,
	       "the fixture's summary has 2 node and 2 region records (got %u and %u)",
	       nodes, regions);
	check_record_keys("a 6.4+ module record", VFAT_RECORD,
			  ktrepl_module_fields(), KTREPL_M_NR,
			  KTREPL_M_NR_ALWAYS);
	/* before 6.4, or a module without rodata: the record stops early */
	snprintf(line, sizeof(line), "%s", VFAT_RECORD);
	line[strstr(line, " rodata_start=") - line] = '\0';
	check_record_keys("a module record without rodata", line,
			  ktrepl_module_fields(), KTREPL_M_NR,
			  KTREPL_M_NR_ALWAYS);
}

int main(void)
{
	struct kt_state live;
	char *desc, *pa_text;
	size_t len, pa_len;
	uint64_t pa;

	tap_header();
	tap_plan(65);
	test_summary_table();
	test_record_tables();
	memset(&live, 0, sizeof(live));
	test_debugfs(&live);
	test_debugfs_damage();
	test_module_rodata();
	test_many_modules();
	test_descriptor_modules();
	test_descriptor_candidates();
	desc = slurp(fixture_path(FIXTURE "/descriptor.bin"), &len);
	pa_text = slurp(fixture_path(FIXTURE "/descriptor.pa"), &pa_len);
	tap_ok(desc && pa_text && len > sizeof(struct ktrepl_desc),
	       "the captured descriptor is there (%zu bytes)", len);
	if (desc && pa_text) {
		pa = strtoull(pa_text, NULL, 16);
		test_descriptor(&live, (uint8_t *)desc, len, pa);
		test_descriptor_damage((uint8_t *)desc, len, pa);
	}
	free(desc);
	free(pa_text);
	kt_state_free(&live);
	return tap_finish();
}
