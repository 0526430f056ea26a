/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tables.c: each node's own tables, and tables_lock.
 */
#ifndef KTR_TABLES_H
#define KTR_TABLES_H

#include "core.h"

/* tables.c: process context, at load and at module load (mods_lock) */
int ktr_nodes_alloc(void);		/* ktr.nodes and their table lists */
void ktr_nodes_free(void);
u64 *ktr_own_leaf(struct ktr_node *n, const struct ktr_chunk *c);
int ktr_map_chunk(struct ktr_node *n, const struct ktr_chunk *c);
u64 *ktr_master_table_of(const struct ktr_table *t);
struct ktr_table *ktr_owned_table(struct ktr_node *n, int level,
				  unsigned long va);
int ktr_build_node_tables(struct ktr_node *n);
struct mm_struct *ktr_node_mm(u64 *root, pgd_t **orig);
void ktr_free_node(struct ktr_node *n);
u64 ktr_node_table_bytes(int nid);	/* any context (lockless) */
/*
 * Node n's own tables. Walk the list as ktr_owned_table() says: holding
 * tables_lock or mods_lock, as the init or exit thread, or under RCU.
 */
struct list_head *ktr_node_tables(const struct ktr_node *n);
/* tables_lock (raw spinlock): see "Locking" above; any context */
unsigned long ktr_tables_lock(void);	/* ktr_tables_unlock(flags) after */
void ktr_tables_unlock(unsigned long flags);
void ktr_tables_lock_assert_held(void);
#ifdef CONFIG_LOCKDEP
bool ktr_tables_lock_held(void);	/* for lockdep conditions only */
#endif

#endif
