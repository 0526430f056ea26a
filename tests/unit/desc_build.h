/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_DESC_BUILD_H
#define KTREPL_TEST_DESC_BUILD_H

/*
 * A synthetic x86_64 vmcore descriptor laid out as the module lays it:
 * the header, then two nodes, the text and rodata regions, one CPU on
 * each node (no extents, no task slots), the bound processes, the module
 * slots and their rodata, and each CPU's root at panic, every array
 * where the one before ends. What the tests vary is in struct
 * fx_desc_spec; a field left 0 is 0 (or none) in the descriptor.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_seal.h"
#include "ktrepl_desc.h"

#define FX_DESC_NODES 2
#define FX_DESC_MOD_TEXT_SIZE 0x4000ULL
#define FX_DESC_MOD_RODATA_SIZE 0x2000ULL

struct fx_desc_spec {
	/*
	 * the header's length: where the node array starts, over any
	 * later field; 0: the whole struct ktrepl_desc
	 */
	uint32_t hdr_end;
	size_t buf_size;	/* 0: what it takes, in whole 4K pages */
	const char *activation;
	/*
	 * node i is node0 + i (on memory node node0 + i, CPU i's node);
	 * node0 is the master. Its root is root0 + i * node_stride, its
	 * memory [mem0, mem0 + node_stride) as far again.
	 */
	int32_t node0;
	uint64_t root0, mem0, node_stride;
	uint64_t overhead;	/* each node's */
	const struct ktrepl_desc_bound *bound;
	uint32_t nr_bound;
	/*
	 * mod_slots slots, the first mods_used of them filled: module i is
	 * named mod_name then i in mod_digits digits or more, loaded on
	 * node0, its text at mod_text + i * mod_stride and its rodata at
	 * mod_rodata + i * mod_stride
	 */
	uint32_t mod_slots, mods_used;
	const char *mod_name;
	int mod_digits;
	uint64_t mod_text, mod_rodata, mod_stride;
	uint32_t modules_omitted, flags;
	bool failsafe;		/* 3 events, active, "mirror_missed" */
	bool panic_roots;	/* CPU 1 stopped on node 1's root, CPU 0 on none */
	uint64_t seal_pa;	/* sealed for it where the header holds the seal */
};

/* a calloc()ed descriptor, *len bytes (buf_size), or NULL */
static inline uint8_t *fx_build_descriptor(const struct fx_desc_spec *s,
					   size_t *len)
{
	uint32_t hdr_end = s->hdr_end ? s->hdr_end : sizeof(struct ktrepl_desc);
	struct ktrepl_desc h = { .abi = 1 };
	struct ktrepl_desc_node *nodes;
	struct ktrepl_desc_region *regions;
	struct ktrepl_desc_module *mods;
	struct ktrepl_desc_module_rodata *ro;
	size_t off = hdr_end, size = s->buf_size;
	uint64_t *panic_root;
	int32_t *cpu_node;
	uint8_t *buf;
	uint32_t i;

	if (!size) {
		size = hdr_end + FX_DESC_NODES * (sizeof(*nodes) +
			sizeof(*regions) + sizeof(*cpu_node)) +
		       s->nr_bound * sizeof(*s->bound) +
		       s->mod_slots * (sizeof(*mods) + sizeof(*ro)) +
		       (s->panic_roots ? FX_DESC_NODES * sizeof(*panic_root) : 0);
		size = (size + 4095) & ~(size_t)4095;
	}
	buf = calloc(1, size);
	if (!buf)
		return NULL;
	memcpy(h.magic, KTREPL_DESC_MAGIC, KTREPL_DESC_MAGIC_LEN);
	strcpy(h.arch, "x86_64");
	snprintf(h.activation, sizeof(h.activation), "%s", s->activation);
	h.paging_levels = 4;
	h.va_bits = 48;
	h.page_shift = 12;
	h.master_node = s->node0;
	h.propagate = 1;
	h.nr_nodes = FX_DESC_NODES;
	h.nr_regions = 2;
	h.nr_cpus = FX_DESC_NODES;
	h.master_root_pa = s->root0;
	h.nodes_off = off;
	nodes = (void *)(buf + off);
	for (i = 0; i < FX_DESC_NODES; i++)
		nodes[i] = (struct ktrepl_desc_node){
			.nid = s->node0 + i, .memory_nid = s->node0 + i,
			.has_memory = 1,
			.role = i ? KTREPL_DESC_ROLE_REPLICA :
				    KTREPL_DESC_ROLE_MASTER,
			.root_pa = s->root0 + i * s->node_stride,
			.overhead = s->overhead,
			.mem_start = s->mem0 + i * s->node_stride,
			.mem_end = s->mem0 + (i + 1) * s->node_stride,
		};
	off += FX_DESC_NODES * sizeof(*nodes);
	h.regions_off = off;
	regions = (void *)(buf + off);
	regions[0] = (struct ktrepl_desc_region){ "text", 0xffffffff81000000ULL,
						  0xffffffff82000000ULL };
	regions[1] = (struct ktrepl_desc_region){ "rodata", 0xffffffff82000000ULL,
						  0xffffffff82800000ULL };
	/*
	 * bytes past the names' NULs are junk a reader never looks at: no
	 * zero word where a short header's absent field would lie
	 */
	for (i = 0; i < 2; i++) {
		size_t n = strlen(regions[i].name) + 1;

		memset(regions[i].name + n, 'x', sizeof(regions[i].name) - n);
	}
	off += 2 * sizeof(*regions);
	h.extents_off = off;
	h.cpu_node_off = off;
	cpu_node = (void *)(buf + off);
	for (i = 0; i < FX_DESC_NODES; i++)
		cpu_node[i] = s->node0 + i;
	off += FX_DESC_NODES * sizeof(*cpu_node);
	h.tasks_off = off;
	if (s->nr_bound) {
		h.nr_bound = s->nr_bound;
		h.bound_off = off;
		memcpy(buf + off, s->bound, s->nr_bound * sizeof(*s->bound));
		off += s->nr_bound * sizeof(*s->bound);
	}
	h.nr_modules = s->mod_slots;
	h.modules_off = off;
	mods = (void *)(buf + off);
	off += s->mod_slots * sizeof(*mods);
	h.module_rodata_off = off;
	ro = (void *)(buf + off);
	off += s->mod_slots * sizeof(*ro);
	for (i = 0; i < s->mods_used; i++) {
		snprintf(mods[i].name, sizeof(mods[i].name), "%s%0*u",
			 s->mod_name, s->mod_digits, i);
		mods[i].start = s->mod_text + i * s->mod_stride;
		mods[i].text_end = mods[i].end =
			mods[i].start + FX_DESC_MOD_TEXT_SIZE;
		mods[i].orig_node = s->node0;
		ro[i].start = s->mod_rodata + i * s->mod_stride;
		ro[i].end = ro[i].start + FX_DESC_MOD_RODATA_SIZE;
	}
	h.modules_omitted = s->modules_omitted;
	h.flags = s->flags;
	if (s->failsafe) {
		h.failsafe = 3;
		h.failsafe_active = 1;
		strcpy(h.failsafe_reason, "mirror_missed");
	}
	if (s->panic_roots) {
		/* the probe armed: the site of a panic on CPU 1 */
		h.flags |= KTREPL_DESC_F_PANIC_SITE;
		h.panic_cpu = 1;
		h.panic_pid = 4242;
		h.panic_pc = 0xffffffff81000123ULL;
		h.panic_lr = 0xffffffff81000456ULL;
		h.panic_root_off = off;
		panic_root = (void *)(buf + off);
		panic_root[1] = s->root0 + s->node_stride;
		off += FX_DESC_NODES * sizeof(*panic_root);
	}
	h.size = off;
	/* a shorter header is overlaid by the arrays past its end */
	memcpy(buf, &h, hdr_end);
	if (s->seal_pa && hdr_end >= KTREPL_DESC_END(panic_root_off))
		fx_seal_descriptor((void *)buf, s->seal_pa);
	*len = size;
	return buf;
}

#endif
