/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_NODE_H
#define KTREPL_NODE_H

#include <linux/mm.h>
#include <linux/numa.h>

/* The node whose memory holds pa, or NUMA_NO_NODE (-1) outside RAM. */
static inline int ktrepl_pa_node(phys_addr_t pa)
{
	unsigned long pfn = PHYS_PFN(pa);

	return pfn_valid(pfn) ? page_to_nid(pfn_to_page(pfn)) : NUMA_NO_NODE;
}

#endif
