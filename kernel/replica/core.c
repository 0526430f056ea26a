// SPDX-License-Identifier: GPL-2.0
/*
 * The state every file of the engine shares, at the bottom of its layers
 * so that any of them may read it without calling up: struct ktr_engine
 * (fixed after load; core.h says who writes what) and the provider the
 * publisher reads, with the cue that tells it something changed.
 */
#include <linux/kprobes.h>

#include "core.h"

struct ktr_engine ktr = {
	.master_nid = NUMA_NO_NODE,
};

/* its ops are provider.c's (ktr_engine_provider()) */
struct ktrepl_provider ktr_provider = {
	.name = "ktrepl-engine",
	.nr_regions = KTR_NR_REGIONS,
	.regions = ktr.regions,
};

void ktr_notify_changed(bool lists)
{
	void (*changed)(bool lists) = READ_ONCE(ktr_provider.changed);

	if (changed)
		changed(lists);
}
NOKPROBE_SYMBOL(ktr_notify_changed);
