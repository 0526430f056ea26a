/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modules.c: module text and rodata (modules=1), and the tables they
 * add.
 */
#ifndef KTR_MODULES_H
#define KTR_MODULES_H

#include "core.h"

/* modules.c: module text and rodata (modules=1) */
struct ktr_chunk *ktr_module_chunk(unsigned long va, bool mapped_only);
int ktr_modules_hook(void);		/* before the copy: table mirror */
int ktr_modules_start(void);		/* replicate the live ones, follow */
void ktr_modules_stop(void);		/* stop following loads and vmaps */
void ktr_modules_free(void);
struct ktrepl_module_info;
int ktr_modules_list(struct ktrepl_module_info *mods, int max);
int ktr_module_extents(int nid, const char *name, ktrepl_extent_fn fn,
		       void *arg);
typedef void (*ktr_chunk_fn)(struct ktr_chunk *c);
void ktr_modules_visit_chunks(ktr_chunk_fn fn);
void ktr_modules_want_nonglobal(bool want);	/* activation.c, at changes */
/* this thread holds mods_lock (empty where lockdep is off) */
void ktr_modules_lock_assert_held(void);
void ktr_modules_lock(void);	/* the fail-safe's table resync */
void ktr_modules_unlock(void);

#endif
