// SPDX-License-Identifier: GPL-2.0
/* Replication state from the vmcore descriptor (kernel/include/ktrepl_desc.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ktrepl_desc.h"
#include "state.h"

/*
 * The header as this reader takes it: every field added later that d's
 * header does not carry (it ends before it, or its flag is not set) reads
 * 0, which each of them means "none" or "not recorded" in. What lies
 * there in an older descriptor is its node array, or padding.
 */
static void clear_absent_fields(struct ktrepl_desc *d)
{
	const struct ktrepl_desc_late *f = ktrepl_desc_late_fields();
	int id;

	for (id = 0; id < KTREPL_DESC_L_NR; id++)
		if (!ktrepl_desc_has(d, id))
			memset((uint8_t *)d + f[id].off, 0, f[id].size);
}

/*
 * Whether the descriptor at pa is a live one, not a stale pointer into
 * freed memory or a page that happens to start with the magic: magic,
 * ABI, a sane size, and where the module writes them (newer headers)
 * its own address and the sum over its fixed part. 0, or -EPROTO /
 * the read's error with err saying which test failed.
 */
int kt_state_check_descriptor(struct kt_memsrc *src, uint64_t pa,
			      struct kt_err *err)
{
	struct ktrepl_desc d;
	uint32_t fixed_len;
	void *fixed;
	int ret = 0;

	kt_err_clear(err);
	if (kt_memsrc_read_phys(src, pa, &d, sizeof(d), err))
		return kt_err_wrap(err, "ktrepl descriptor");
	if (memcmp(d.magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN))
		return kt_err_set(err, EPROTO,
				  "no ktrepl descriptor at 0x%" PRIx64, pa);
	if ((int)d.abi < KT_ABI_MIN || (int)d.abi > KT_ABI_MAX)
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 ": ABI version %u; this tool reads versions %d..%d",
				  pa, d.abi, KT_ABI_MIN, KT_ABI_MAX);
	/* a header shorter than the first version-1 one is damage */
	if (d.size > KTREPL_DESC_MAX_BYTES || d.nodes_off > d.size ||
	    d.nodes_off < KTREPL_DESC_BASE_END)
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 " is corrupt (size %u, header %u)",
				  pa, d.size, d.nodes_off);
	/* a module from before the sum: the magic is all it offers */
	if (!ktrepl_desc_sealed(&d))
		return 0;
	if (d.self_pa != pa)
		return kt_err_set(err, EPROTO,
				  "a copy, not the descriptor: the page at 0x%" PRIx64 " says it was written at 0x%" PRIx64,
				  pa, (uint64_t)d.self_pa);
	if (d.tasks_off < d.nodes_off || d.tasks_off > d.size)
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 " is corrupt (arrays at %u..%u of %u bytes)",
				  pa, d.nodes_off, d.tasks_off, d.size);
	fixed_len = d.tasks_off - d.nodes_off;
	fixed = malloc(fixed_len ? fixed_len : 1);
	if (!fixed)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (kt_memsrc_read_phys(src, pa + d.nodes_off, fixed, fixed_len, err))
		ret = kt_err_wrap(err, "descriptor at 0x%" PRIx64 ": its node and extent arrays",
				  pa);
	else if (ktrepl_desc_fixed_sum(&d, fixed) != d.fixed_sum)
		ret = kt_err_set(err, EPROTO,
				 "stale or damaged descriptor at 0x%" PRIx64 ": its checksum does not match (freed memory, or overwritten)",
				 pa);
	free(fixed);
	return ret;
}

/*
 * A scan's page: 0 a live descriptor, -ENOENT no magic (or unreadable),
 * else the magic without the rest, err saying what failed.
 */
static int scan_page(struct kt_memsrc *src, uint64_t pa, struct kt_err *err)
{
	char magic[KTREPL_DESC_MAGIC_LEN];

	if (kt_memsrc_read_phys(src, pa, magic, sizeof(magic), err) ||
	    memcmp(magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN))
		return -ENOENT;
	return kt_state_check_descriptor(src, pa, err);
}

/*
 * Candidates in the order of what they cost: the source's own hint, the
 * VMCOREINFO line, then a scan of page starts of the memory the source
 * holds (not what a maybe damaged header claims). A candidate that fails
 * its check is passed over, and the first such failure is kept to say
 * why nothing was found.
 */
int kt_state_find_descriptor(struct kt_memsrc *src, uint64_t *pa,
			     struct kt_err *err)
{
	uint64_t start, end, page, scanned = 0, cand;
	char val[64], *tail, passed_over[sizeof(err->msg) + 128] = "";
	bool said_unloaded = false;
	int ret;

	kt_err_clear(err);
	if (!kt_memsrc_descriptor_hint(src, &cand) && cand) {
		if (!kt_state_check_descriptor(src, cand, err)) {
			*pa = cand;
			return 0;
		}
		snprintf(passed_over, sizeof(passed_over), "; passed over %s",
			 err->msg);
	}
	kt_err_clear(err);
	if (!kt_memsrc_vmcoreinfo(src, "KTREPL_DESCRIPTOR", val, sizeof(val),
				  err)) {
		cand = strtoull(val, &tail, 16);
		if (*tail || !cand) {
			said_unloaded = true;
		} else if (!kt_state_check_descriptor(src, cand, err)) {
			*pa = cand;
			return 0;
		} else if (!passed_over[0]) {
			snprintf(passed_over, sizeof(passed_over),
				 "; passed over VMCOREINFO's KTREPL_DESCRIPTOR=%s: %s",
				 val, err->msg);
		}
	}
	kt_err_clear(err);
	for (page = 0;; page = end) {
		ret = kt_memsrc_next_range(src, page, &start, &end, err);
		if (ret == -ENOENT)
			break;
		if (ret)
			return kt_err_wrap(err, "no usable KTREPL_DESCRIPTOR in VMCOREINFO and cannot scan%s",
					   passed_over);
		if (end <= page)
			break;
		scanned += end - start;
		for (page = (start + 4095) & ~4095ULL; page < end; page += 4096) {
			struct kt_err why;

			ret = scan_page(src, page, &why);
			if (!ret) {
				*pa = page;
				return 0;
			}
			if (ret != -ENOENT && !passed_over[0])
				snprintf(passed_over, sizeof(passed_over),
					 "; passed over %s", why.msg);
		}
	}
	kt_err_clear(err);
	if (said_unloaded)
		return kt_err_set(err, ENOENT,
				  "VMCOREINFO says ktrepl was unloaded before the dump (KTREPL_DESCRIPTOR=%s), and no descriptor is in %" PRIu64 " MiB of memory",
				  val, scanned >> 20);
	return kt_err_set(err, ENOENT,
			  "no ktrepl state in this dump: no descriptor in %" PRIu64 " MiB of memory (was ktrepl.ko loaded?)%s",
			  scanned >> 20, passed_over);
}

/*
 * The CPUs of node nid as the kernel prints a cpumask (%*pbl): "0-1,4",
 * so that a node reads the same from debugfs and from a dump. -1 when
 * the list does not fit in buf: refused, never cut.
 */
static int cpu_list(char *buf, size_t size, const int32_t *cpu_node,
		    uint32_t nr_cpus, int nid)
{
	size_t used = 0;
	uint32_t c = 0, first;
	int n;

	buf[0] = '\0';
	while (c < nr_cpus) {
		if (cpu_node[c] != nid) {
			c++;
			continue;
		}
		for (first = c; c + 1 < nr_cpus && cpu_node[c + 1] == nid; c++)
			;
		n = snprintf(buf + used, size - used, first == c ?
			     "%s%u" : "%s%u-%u", used ? "," : "", first, c);
		if (n < 0 || (size_t)n >= size - used)
			return -1;
		used += (size_t)n;
		c++;
	}
	return 0;
}

static int read_array(struct kt_memsrc *src, uint64_t pa, uint32_t off,
		      size_t n, size_t size, uint32_t total, void **out,
		      struct kt_err *err)
{
	if ((uint64_t)off + n * size > total)
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 " is corrupt: array at %u overruns its size %u",
				  pa, off, total);
	*out = calloc(n ? n : 1, size);
	if (!*out)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (n && kt_memsrc_read_phys(src, pa + off, *out, n * size, err)) {
		free(*out);
		*out = NULL;
		return kt_err_wrap(err, "descriptor array at 0x%" PRIx64, pa + off);
	}
	return 0;
}

int kt_state_load_descriptor(struct kt_state *st, struct kt_memsrc *src,
			     uint64_t pa, struct kt_err *err)
{
	struct ktrepl_desc d;
	struct ktrepl_desc_node *nodes = NULL;
	struct ktrepl_desc_region *regions = NULL;
	struct ktrepl_desc_extent *ext = NULL;
	struct ktrepl_desc_task *tasks = NULL;
	struct ktrepl_desc_bound *bound = NULL;
	struct ktrepl_desc_module *mods = NULL;
	struct ktrepl_desc_module_rodata *mod_rodata = NULL;
	uint64_t *cpu_root = NULL, *panic_root = NULL;
	int32_t *cpu_node = NULL;
	bool omitted_known;
	uint32_t i, used = 0;
	char word[16];
	int ret;

	memset(st, 0, sizeof(*st));
	if (kt_memsrc_read_phys(src, pa, &d, sizeof(d), err))
		return kt_err_wrap(err, "ktrepl descriptor");
	if (memcmp(d.magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN))
		return kt_err_set(err, EPROTO, "no ktrepl descriptor at 0x%" PRIx64, pa);
	if ((int)d.abi < KT_ABI_MIN || (int)d.abi > KT_ABI_MAX)
		return kt_err_set(err, EPROTO,
				  "descriptor ABI version %u; this tool reads versions %d..%d",
				  d.abi, KT_ABI_MIN, KT_ABI_MAX);
	/* bounds no real descriptor comes near: damage, not a big machine */
	if (d.size < sizeof(d) || d.size > KTREPL_DESC_MAX_BYTES ||
	    d.nr_nodes > 65536 || d.nr_regions > 1024 ||
	    d.nr_cpus > 65536 || d.nr_tasks > 4096 || d.nr_extents > (1U << 20))
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 " is corrupt (size %u, %u nodes, %u regions)",
				  pa, d.size, d.nr_nodes, d.nr_regions);
	if (d.nodes_off < KTREPL_DESC_BASE_END)
		return kt_err_set(err, EPROTO,
				  "descriptor at 0x%" PRIx64 " is corrupt (a header of %u bytes; every version-1 header has %zu)",
				  pa, d.nodes_off, (size_t)KTREPL_DESC_BASE_END);
	clear_absent_fields(&d);
	if (d.nr_nodes > KT_MAX_NODES)
		return kt_err_set(err, E2BIG,
				  "descriptor at 0x%" PRIx64 ": %u nodes, more than %d, this tool's limit (KT_MAX_NODES)",
				  pa, d.nr_nodes, KT_MAX_NODES);
	ret = read_array(src, pa, d.nodes_off, d.nr_nodes, sizeof(*nodes), d.size,
			 (void **)&nodes, err);
	if (!ret)
		ret = read_array(src, pa, d.regions_off, d.nr_regions,
				 sizeof(*regions), d.size, (void **)&regions, err);
	if (!ret)
		ret = read_array(src, pa, d.extents_off, d.nr_extents, sizeof(*ext),
				 d.size, (void **)&ext, err);
	if (!ret)
		ret = read_array(src, pa, d.cpu_node_off, d.nr_cpus,
				 sizeof(*cpu_node), d.size, (void **)&cpu_node, err);
	if (!ret)
		ret = read_array(src, pa, d.tasks_off, d.nr_tasks, sizeof(*tasks),
				 d.size, (void **)&tasks, err);
	/* 0: a module that records no per-CPU roots (or an older one) */
	if (!ret && d.cpu_root_off)
		ret = read_array(src, pa, d.cpu_root_off, d.nr_cpus,
				 sizeof(*cpu_root), d.size, (void **)&cpu_root,
				 err);
	if (!ret && d.nr_bound > 4096)
		ret = kt_err_set(err, EPROTO,
				 "descriptor at 0x%" PRIx64 " is corrupt (%u bound processes)",
				 pa, d.nr_bound);
	if (!ret && d.bound_off)
		ret = read_array(src, pa, d.bound_off, d.nr_bound,
				 sizeof(*bound), d.size, (void **)&bound, err);
	if (!ret && d.panic_root_off)
		ret = read_array(src, pa, d.panic_root_off, d.nr_cpus,
				 sizeof(*panic_root), d.size,
				 (void **)&panic_root, err);
	omitted_known = ktrepl_desc_has(&d, KTREPL_DESC_L_MODULES_OMITTED);
	/* read_array bounds the slots by the descriptor's size */
	if (!ret && d.modules_off)
		ret = read_array(src, pa, d.modules_off, d.nr_modules,
				 sizeof(*mods), d.size, (void **)&mods, err);
	if (!ret && d.modules_off && d.module_rodata_off)
		ret = read_array(src, pa, d.module_rodata_off, d.nr_modules,
				 sizeof(*mod_rodata), d.size,
				 (void **)&mod_rodata, err);
	if (ret)
		goto out;

	st->abi = (int)d.abi;
	st->failsafe = d.failsafe;
	st->failsafe_active = d.failsafe_active != 0;
	snprintf(st->failsafe_reason, sizeof(st->failsafe_reason), "%.*s",
		 (int)sizeof(d.failsafe_reason), d.failsafe_reason);
	snprintf(st->provider, sizeof(st->provider), "vmcore-descriptor");
	snprintf(st->arch, sizeof(st->arch), "%.15s", d.arch);
	snprintf(word, sizeof(word), "%.15s", d.activation);
	if (kt_activation_parse(word, &st->activation)) {
		ret = kt_err_set(err, EPROTO,
				 "descriptor at 0x%" PRIx64 ": unknown activation '%s'",
				 pa, word);
		goto out;
	}
	st->paging_levels = d.paging_levels;
	st->va_bits = d.va_bits;
	st->page_size = 1ULL << (d.page_shift < 20 ? d.page_shift : 12);
	st->master_node = d.master_node;
	st->nodes_online = d.nr_nodes;
	st->propagate = (int)d.propagate;
	st->patches = d.patches;
	st->patch_bytes = d.patch_bytes;
	st->patches_missed = d.patches_missed;
	st->master_root_pa = d.master_root_pa;
	st->direct_map = d.direct_map;
	for (i = 0; i < d.nr_nodes; i++) {
		struct kt_node_state *n = kt_state_add_node(st, err);

		if (!n) {
			ret = -err->code;
			goto out;
		}
		n->nid = nodes[i].nid;
		n->memory_node = nodes[i].memory_nid;
		n->has_memory = nodes[i].has_memory;
		if (nodes[i].role >= KT_ROLE_NR) {
			ret = kt_err_set(err, EPROTO,
					 "descriptor at 0x%" PRIx64 ": node %d has unknown role %u",
					 pa, n->nid, nodes[i].role);
			goto out;
		}
		n->role = (enum kt_role)nodes[i].role;
		n->root_pa = nodes[i].root_pa;
		n->overhead = nodes[i].overhead;
		n->mem_start = nodes[i].mem_start;
		n->mem_end = nodes[i].mem_end;
		st->overhead += n->overhead;
		if (cpu_list(n->cpus, sizeof(n->cpus), cpu_node, d.nr_cpus,
			     n->nid)) {
			ret = kt_err_set(err, E2BIG,
					 "descriptor at 0x%" PRIx64 ": node %d's CPU list is longer than %d bytes, this tool's limit (KT_CPULIST_MAX)",
					 pa, n->nid, KT_CPULIST_MAX - 1);
			goto out;
		}
	}
	for (i = 0; i < d.nr_regions; i++) {
		struct kt_region_state *r = kt_state_add_region(st, err);

		if (!r) {
			ret = -err->code;
			goto out;
		}
		snprintf(r->name, sizeof(r->name), "%.15s", regions[i].name);
		r->start = regions[i].start;
		r->end = regions[i].end;
		r->text_end = strcmp(r->name, "text") ? r->start : r->end;
	}
	for (i = 0; mods && i < d.nr_modules; i++) {
		struct kt_region_state *r;

		if (!mods[i].name[0])
			continue;
		if (mods[i].end < mods[i].start ||
		    mods[i].text_end < mods[i].start ||
		    mods[i].text_end > mods[i].end) {
			ret = kt_err_set(err, EPROTO,
					 "descriptor module %u is corrupt", i);
			goto out;
		}
		used++;
		r = kt_state_add_region(st, err);
		if (!r) {
			ret = -err->code;
			goto out;
		}
		snprintf(r->name, sizeof(r->name), KT_MODULE_PREFIX "%.55s",
			 mods[i].name);
		r->start = mods[i].start;
		r->end = mods[i].end;
		r->text_end = mods[i].text_end;
		r->orig_node = mods[i].orig_node;
		r->master_copies = mods[i].master_copies;
		r->module = true;
		st->nr_modules++;
		if (mod_rodata && mod_rodata[i].end) {
			ret = kt_state_add_module_rodata(st, st->nr_regions - 1,
							 mod_rodata[i].start,
							 mod_rodata[i].end);
			if (ret == -ENOMEM) {
				ret = kt_err_set(err, ENOMEM, "out of memory");
				goto out;
			}
			if (ret < 0) {
				ret = kt_err_set(err, EPROTO,
						 "descriptor module %u's rodata is corrupt",
						 i);
				goto out;
			}
		}
	}
	/*
	 * Modules the kernel replicated but the descriptor does not list:
	 * it says how many, or (older) every slot is taken and it cannot.
	 */
	st->modules_omitted = d.modules_omitted;
	st->modules_incomplete = d.modules_omitted ||
				 (!omitted_known && mods && d.nr_modules &&
				  used == d.nr_modules);
	ret = kt_state_index_regions(st, err);
	if (ret)
		goto out;
	st->extents = calloc(d.nr_extents ? d.nr_extents : 1, sizeof(*st->extents));
	st->cpus = calloc(d.nr_cpus ? d.nr_cpus : 1, sizeof(*st->cpus));
	st->tasks = calloc(d.nr_tasks ? d.nr_tasks : 1, sizeof(*st->tasks));
	st->bound = calloc(d.nr_bound ? d.nr_bound : 1, sizeof(*st->bound));
	if (!st->extents || !st->cpus || !st->tasks || !st->bound) {
		ret = kt_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < d.nr_extents; i++) {
		struct kt_extent_state *e = &st->extents[st->nr_extents];

		if (ext[i].region >= d.nr_regions || !ext[i].size) {
			ret = kt_err_set(err, EPROTO,
					 "descriptor extent %u is corrupt", i);
			goto out;
		}
		e->node = ext[i].node;
		e->region = (int)ext[i].region;
		e->va = ext[i].va;
		e->pa = ext[i].pa;
		e->size = ext[i].size;
		e->page_size = 1ULL << (ext[i].page_shift < 40 ? ext[i].page_shift : 12);
		e->pa_node = ext[i].pa_node;
		st->nr_extents++;
	}
	for (i = 0; i < d.nr_cpus; i++) {
		const struct kt_node_state *n;

		if (cpu_node[i] < 0)
			continue;
		n = kt_state_node(st, cpu_node[i]);
		st->cpus[st->nr_cpus].cpu = (int)i;
		st->cpus[st->nr_cpus].node = cpu_node[i];
		st->cpus[st->nr_cpus].expected_root_pa = n ? n->root_pa : 0;
		if (cpu_root)
			st->cpus[st->nr_cpus].loaded_root_pa = cpu_root[i];
		st->cpus[st->nr_cpus].root_recorded = cpu_root != NULL;
		/* what the CPU really had loaded beats its last switch */
		if (panic_root && panic_root[i]) {
			st->cpus[st->nr_cpus].loaded_root_pa = panic_root[i];
			st->cpus[st->nr_cpus].root_recorded = true;
			st->cpus[st->nr_cpus].root_at_panic = true;
			st->panic_roots++;
		}
		st->nr_cpus++;
	}
	for (i = 0; i < d.nr_tasks; i++) {
		struct kt_task_state *t;

		if (!tasks[i].pid)
			continue;
		t = &st->tasks[st->nr_tasks++];
		t->pid = tasks[i].pid;
		t->node = tasks[i].node;
		t->root_pa = tasks[i].root_pa;
		t->expected_root_pa = tasks[i].expected_root_pa;
		t->iterations = tasks[i].iterations;
		snprintf(t->comm, sizeof(t->comm), "ktrepl_work/%d", t->node);
	}
	for (i = 0; bound && i < d.nr_bound; i++) {
		struct kt_bound_state *b;

		if (!bound[i].pid)
			continue;
		b = &st->bound[st->nr_bound++];
		b->pid = bound[i].pid;
		b->node = bound[i].node;
		b->mm_pgd_pa = bound[i].mm_pgd_pa;
		b->root_pa = bound[i].root_pa;
		b->since_ns = bound[i].since_ns;
		snprintf(b->comm, sizeof(b->comm), "%.15s", bound[i].comm);
	}
	/* as modules: counted past the slots, or (older) every slot used */
	st->bound_omitted = ktrepl_desc_has(&d, KTREPL_DESC_L_BOUND_OMITTED) ?
				    d.bound_omitted : 0;
	st->bound_incomplete =
		st->bound_omitted ||
		(!ktrepl_desc_has(&d, KTREPL_DESC_L_BOUND_OMITTED) &&
		 d.nr_bound && st->nr_bound == d.nr_bound);
	st->have_panic_site = ktrepl_desc_has(&d, KTREPL_DESC_L_PANIC_LR);
	st->panic_cpu = st->have_panic_site ? d.panic_cpu : -1;
	st->panic_pid = d.panic_pid;
	st->panic_pc = d.panic_pc;
	st->panic_lr = d.panic_lr;
	ret = 0;
out:
	free(nodes);
	free(mods);
	free(mod_rodata);
	free(regions);
	free(ext);
	free(cpu_node);
	free(cpu_root);
	free(panic_root);
	free(tasks);
	free(bound);
	if (ret)
		kt_state_free(st);
	return ret;
}
