/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_TEST_DESC_SEAL_H
#define KTREPL_TEST_DESC_SEAL_H

#include "ktrepl_desc.h"

/*
 * What the module does last before the magic: a synthetic descriptor is
 * trusted by the readers only once it says where it lives and carries
 * the sum over its fixed part (ktrepl_desc.h).
 */
static inline void fx_seal_descriptor(struct ktrepl_desc *d, uint64_t pa)
{
	d->self_pa = pa;
	d->fixed_sum = ktrepl_desc_fixed_sum(d, (const uint8_t *)d +
						d->nodes_off);
}

#endif
