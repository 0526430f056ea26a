/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_FIXTURE_H
#define KTREPL_TEST_FIXTURE_H

/*
 * A synthetic two-node x86_64 kernel (4-level paging) in 8 MiB of
 * physical memory: node 0 (the master) owns [0, 4M), node 1 (a replica)
 * [4M, 8M). Text is two 4K pages and rodata one, each with a copy on
 * node 1 mapped through node 1's own tables; the direct map (2M pages)
 * is shared. Tests break one thing at a time and run the real checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "insn.h"
#include "rawimg.h"

#define FX_IMG_SIZE (8u << 20)
#define FX_NODE_MEM (4u << 20)
#define FX_TEXT_VA 0xffffffff81000000ull
#define FX_TEXT_SIZE 0x2000ull
#define FX_RODATA_VA (FX_TEXT_VA + FX_TEXT_SIZE)
#define FX_RODATA_SIZE 0x1000ull
/* the base page: text and rodata are mapped one 4K leaf per page */
#define FX_PAGE_SIZE 0x1000ull
#define FX_DMAP 0xffff888000000000ull

#define FX_P 0x1ull
#define FX_RW 0x2ull
#define FX_PSE 0x80ull
#define FX_GLB 0x100ull
#define FX_NX (1ull << 63)

/* Where one node's tables and copies sit. */
struct fx_node {
	uint64_t root, pud, pmd, pte;
	uint64_t text_pa, rodata_pa;
};

static const struct fx_node fx_master = { 0x1000, 0x2000, 0x3000, 0x4000,
					  0x100000, 0x102000 };
static const struct fx_node fx_replica = { 0x401000, 0x402000, 0x403000,
					   0x404000, 0x500000, 0x502000 };
/* the direct map's PUD and PMD, owned by the master, shared by all */
#define FX_DMAP_PUD 0x6000ull
#define FX_DMAP_PMD 0x7000ull

struct fixture {
	uint8_t *img;
	struct kt_state st;
	struct kt_extent_state extents[4];
	struct kt_memsrc *src;
	struct kt_target t;
	struct kt_symtab syms;
	char path[32];
	char map_path[32];
};

static inline void fx_put(struct fixture *fx, uint64_t pa, uint64_t v)
{
	memcpy(fx->img + pa, &v, 8);
}

static inline uint64_t fx_get(struct fixture *fx, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, fx->img + pa, 8);
	return v;
}

static inline unsigned int fx_idx(uint64_t va, unsigned int shift)
{
	return (va >> shift) & 511;
}

/* PA of the entry that maps va at the last level in node n's tables */
static inline uint64_t fx_pte(const struct fx_node *n, uint64_t va)
{
	return n->pte + 8 * fx_idx(va, 12);
}

static inline void fx_build_node(struct fixture *fx, const struct fx_node *n)
{
	uint64_t k;

	fx_put(fx, n->root + 8 * fx_idx(FX_TEXT_VA, 39), n->pud | FX_P | FX_RW);
	fx_put(fx, n->pud + 8 * fx_idx(FX_TEXT_VA, 30), n->pmd | FX_P | FX_RW);
	fx_put(fx, n->pmd + 8 * fx_idx(FX_TEXT_VA, 21), n->pte | FX_P | FX_RW);
	for (k = 0; k < FX_TEXT_SIZE; k += FX_PAGE_SIZE)
		fx_put(fx, fx_pte(n, FX_TEXT_VA + k),
		       (n->text_pa + k) | FX_P | FX_GLB);
	fx_put(fx, fx_pte(n, FX_RODATA_VA), n->rodata_pa | FX_P | FX_NX);
	/* the shared direct map, read-only over node 1's memory */
	fx_put(fx, n->root + 8 * fx_idx(FX_DMAP, 39), FX_DMAP_PUD | FX_P | FX_RW);
}

static inline void fx_build_dmap(struct fixture *fx)
{
	uint64_t k;

	fx_put(fx, FX_DMAP_PUD, FX_DMAP_PMD | FX_P | FX_RW);
	for (k = 0; k < FX_IMG_SIZE >> 21; k++)
		fx_put(fx, FX_DMAP_PMD + 8 * k,
		       (k << 21) | FX_P | FX_PSE | FX_NX |
			       (k << 21 >= FX_NODE_MEM ? 0 : FX_RW));
}

/* master text: NOPs with the patch sites the diff tests change */
static inline void fx_fill_text(struct fixture *fx, uint64_t pa)
{
	static const uint8_t jl2[] = { 0x66, 0x90, 0x66, 0x90 };
	static const uint8_t call[] = { 0xe8, 0x11, 0x22, 0x33, 0x44 };

	memset(fx->img + pa, 0x90, FX_TEXT_SIZE);
	memcpy(fx->img + pa + 0x40, jl2, sizeof(jl2));
	memcpy(fx->img + pa + 0x60, call, sizeof(call));
	memcpy(fx->img + pa + 0x100, kt_x86_nop5, 5);
	fx->img[pa + 0x180] = 0x55;	/* push %rbp */
}

static inline void fx_set_state(struct fixture *fx)
{
	struct kt_state *st = &fx->st;
	struct kt_extent_state ext[4] = {
		{ 0, 0, FX_TEXT_VA, fx_master.text_pa, FX_TEXT_SIZE, 4096, 0 },
		{ 0, 1, FX_RODATA_VA, fx_master.rodata_pa, FX_RODATA_SIZE, 4096, 0 },
		{ 1, 0, FX_TEXT_VA, fx_replica.text_pa, FX_TEXT_SIZE, 4096, 1 },
		{ 1, 1, FX_RODATA_VA, fx_replica.rodata_pa, FX_RODATA_SIZE, 4096, 1 },
	};
	struct kt_err err;

	memset(st, 0, sizeof(*st));
	st->abi = 1;
	strcpy(st->provider, "fixture");
	strcpy(st->arch, "x86_64");
	st->paging_levels = 4;
	st->va_bits = 48;
	st->page_size = FX_PAGE_SIZE;
	st->master_node = 0;
	st->nodes_online = 2;
	st->activation = KT_ACT_WORKLOAD;
	st->propagate = 1;
	st->master_root_pa = fx_master.root;
	st->direct_map = FX_DMAP;
	/* the state's arrays are the library's: on the heap, fx_close frees */
	kt_state_add_node(st, &err);
	kt_state_add_node(st, &err);
	kt_state_add_region(st, &err);
	kt_state_add_region(st, &err);
	if (st->nr_nodes != 2 || st->nr_regions != 2)
		abort();
	st->nodes[0] = (struct kt_node_state){ 0, 0, true, KT_ROLE_MASTER, "0-1",
					       fx_master.root, 0, 0, FX_NODE_MEM };
	st->nodes[1] = (struct kt_node_state){ 1, 1, true, KT_ROLE_REPLICA, "2-3",
					       fx_replica.root, 12288, FX_NODE_MEM,
					       FX_IMG_SIZE };
	strcpy(st->regions[0].name, "text");
	st->regions[0].start = FX_TEXT_VA;
	st->regions[0].end = FX_TEXT_VA + FX_TEXT_SIZE;
	st->regions[0].text_end = st->regions[0].end;
	strcpy(st->regions[1].name, "rodata");
	st->regions[1].start = FX_RODATA_VA;
	st->regions[1].end = FX_RODATA_VA + FX_RODATA_SIZE;
	st->regions[1].text_end = st->regions[1].start;
	memcpy(fx->extents, ext, sizeof(ext));
	st->extents = fx->extents;
	st->nr_extents = 4;
}

/* A healthy image: the replica equals the master everywhere. */
static inline void fx_init(struct fixture *fx, uint8_t *img)
{
	memset(fx, 0, sizeof(*fx));
	fx->img = img;
	memset(img, 0, FX_IMG_SIZE);
	fx_build_dmap(fx);
	fx_build_node(fx, &fx_master);
	fx_build_node(fx, &fx_replica);
	fx_fill_text(fx, fx_master.text_pa);
	memset(img + fx_master.rodata_pa, 0xa5, FX_RODATA_SIZE);
	memcpy(img + fx_replica.text_pa, img + fx_master.text_pa, FX_TEXT_SIZE);
	memcpy(img + fx_replica.rodata_pa, img + fx_master.rodata_pa,
	       FX_RODATA_SIZE);
	fx_set_state(fx);
}

/*
 * Issue 26: modules the state does not list. Two "modules" in the module
 * area (0xffffffffc0000000, within 2 GiB of the image), each node mapping
 * its own copy through its own tables, as ktrepl does for every module:
 * a text page and a rodata page at PTEs 0 and 1, and one more text page
 * at PTE 5. The state lists neither.
 */
#define FX_MOD_VA 0xffffffffc0000000ull
#define FX_MOD_PMD_M 0x5000ull	/* the master's PMD and PTE pages for it */
#define FX_MOD_PTE_M 0x8000ull
#define FX_MOD_PMD_R 0x405000ull	/* and node 1's own */
#define FX_MOD_PTE_R 0x408000ull

static inline void fx_map_module(struct fixture *fx, const struct fx_node *n,
		       uint64_t va, uint64_t pmd, uint64_t pte,
		       uint64_t pages_pa)
{
	static const unsigned int slots[] = { 0, 1, 5 };
	unsigned int i;

	fx_put(fx, n->pud + 8 * fx_idx(va, 30), pmd | FX_P | FX_RW);
	fx_put(fx, pmd + 8 * fx_idx(va, 21), pte | FX_P | FX_RW);
	for (i = 0; i < 3; i++)
		fx_put(fx, pte + 8 * slots[i],
		       (pages_pa + 0x1000 * slots[i]) | FX_P | FX_GLB |
			       (slots[i] == 1 ? FX_NX : 0));
}

static inline void fx_unlisted_modules_at(struct fixture *fx, uint64_t va)
{
	fx_map_module(fx, &fx_master, va, FX_MOD_PMD_M, FX_MOD_PTE_M, 0x110000);
	fx_map_module(fx, &fx_replica, va, FX_MOD_PMD_R, FX_MOD_PTE_R, 0x510000);
}

static inline void fx_unlisted_modules(struct fixture *fx)
{
	fx_unlisted_modules_at(fx, FX_MOD_VA);
}

/* The image as a memory source and a target, with symbols. */
static inline int fx_open(struct fixture *fx)
{
	static const char map[] = "ffffffff81000000 T func_a\n"
				  "ffffffff81000100 T func_b\n"
				  "ffffffff81002000 R some_table\n";
	struct kt_err err;
	FILE *fp;
	int fd;

	strcpy(fx->path, "/tmp/ktrepl-fx-XXXXXX");
	strcpy(fx->map_path, "/tmp/ktrepl-map-XXXXXX");
	fx->src = open_raw_image(fx->img, FX_IMG_SIZE, fx->path);
	fd = mkstemp(fx->map_path);
	fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fx->src || !fp)
		return -1;
	fputs(map, fp);
	fclose(fp);
	if (kt_symtab_load_map(&fx->syms, fx->map_path, &err))
		return -1;
	return kt_target_init(&fx->t, &fx->st, fx->src, &fx->syms, &err);
}

static inline void fx_close(struct fixture *fx)
{
	/* what fx_set_state took from the library; tests own the rest */
	free(fx->st.nodes);
	free(fx->st.regions);
	free(fx->st.by_name);
	fx->st.nodes = NULL;
	fx->st.regions = NULL;
	fx->st.by_name = NULL;
	kt_memsrc_close(fx->src);
	kt_symtab_free(&fx->syms);
	unlink(fx->path);
	unlink(fx->map_path);
}

#endif
