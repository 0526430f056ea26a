/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slot.c: per-CPU write slots for replica bytes.
 */
#ifndef KTR_SLOT_H
#define KTR_SLOT_H

#include "core.h"

/* slot.c */
int ktr_slots_init(void);		/* slots for replica writes */
void ktr_slots_free(void);
void ktr_replica_write(int nid, unsigned long va, const void *src,
		       int fill, size_t len);	/* any context */
void ktr_write_phys(phys_addr_t pa, const void *src, size_t len); /* irqs off */

#endif
