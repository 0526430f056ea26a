/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.c: chunks, node-local replicas and their copy, the page
 * accounting (core.h, "Locking").
 */
#ifndef KTR_BUILD_H
#define KTR_BUILD_H

#include "core.h"

/* build.c: process context, at load */
struct ktr_chunk *ktr_search_chunks(struct ktr_chunk *chunks, int nr,
				    unsigned long va);
struct ktr_chunk *ktr_find_chunk(unsigned long va);
/* where ktr_find_chunk() looks past the core's chunks (NULL: nowhere) */
void ktr_chunks_beyond_core(struct ktr_chunk *(*lookup)(unsigned long va));
/* the module chunk whose master page is at pa; context as above */
struct ktr_chunk *ktr_module_chunk_at_pa(phys_addr_t pa);
struct page *ktr_alloc(int nid, unsigned int order);
struct page *ktr_alloc_zeroed(int nid, unsigned int order);
void ktr_free(struct page *page, unsigned int order);
phys_addr_t ktr_chunk_pa(const struct ktr_chunk *c, int nid);
int ktr_collect_chunks(void);
void ktr_setup_nodes(void);
int ktr_memory_nid(int nid);
struct ktr_node *ktr_set_node(int nid);
bool ktr_any_replica(void);
int ktr_alloc_replicas(void);
int ktr_alloc_chunks_replicas(struct ktr_chunk *chunks, int nr);
int ktr_chunk_extents(const struct ktr_chunk *chunks, int nr, int nid,
		      int region, ktrepl_extent_fn fn, void *arg);
/* any context: reads the page only */
void ktr_page_sum(const void *page, struct ktr_page_sum *sum);
bool ktr_page_sum_equal(const struct ktr_page_sum *a,
			const struct ktr_page_sum *b);
int ktr_copy_replicas(void);
int ktr_copy_chunks(struct ktr_chunk *chunks, int nr, bool *ready,
		    bool icache, const char *what);
int ktr_recopy_quiesced(void);
int ktr_recopy_chunks(struct ktr_chunk *chunks, int nr);
u64 ktr_time_plain_memcpy(void);
u64 ktr_time_plain_memset(void);
int ktr_protect_chunk_copies(struct ktr_chunk *chunks, int nr, int nid,
			     bool ro);
int ktr_protect_replicas(bool ro);
void ktr_free_chunks_replicas(struct ktr_chunk *chunks, int nr);
void ktr_free_replicas(void);
/* the page accounting: allocations made, and whether all were freed */
unsigned int ktr_alloc_calls(void);
/* at the end of ktr_engine_free(), with fresh.c's pages given away */
void ktr_accounting_report(unsigned long donated);
/*
 * While module loads are followed, the lock their writer holds (NULL
 * after); ktr_accounting_writer() for lockdep conditions only.
 */
void ktr_accounting_follow(struct mutex *lock);
bool ktr_accounting_followed(void);	/* module loads are followed */
bool ktr_accounting_writer(void);
bool ktr_replicas_ready(void);		/* any context */
bool ktr_replicas_settled(void);	/* the copy caught up: audit */
bool ktr_alias_protected(void);
/* a node's own tables and replicas, in bytes; any context (lockless) */
u64 ktr_node_bytes(int nid);

#endif
