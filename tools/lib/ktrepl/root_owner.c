// SPDX-License-Identifier: GPL-2.0
/*
 * Whose tables a page-table root is. One rule, used by verify (the roots
 * CPUs had at a panic) and by crash> ktrepl -c (which prints it), so the
 * two never disagree on what a CPU was running on.
 *
 * percpu: a CPU loads a set's root itself; any other root is tables no
 * set owns. mm: a CPU loads some process's mm, whose top-level entry over
 * the kernel image is the master's (init_mm, or a process not bound to a
 * node) or a node set's (a bound process); the entry, not the root,
 * says which set the CPU fetched kernel text through.
 */
#include <errno.h>
#include <inttypes.h>

#include "check.h"

static int image_entry(struct kt_target *t, uint64_t root, uint64_t *entry,
		       struct kt_err *err)
{
	const struct kt_pt_geometry *g = &t->geo;
	uint64_t slot = (KT_KERNEL_IMAGE_VA >> g->shift[0]) &
			((1U << g->bits[0]) - 1);

	return kt_memsrc_read_phys(t->src, root + slot * 8, entry,
				   sizeof(*entry), err);
}

bool kt_state_root_owner(const struct kt_state *st, uint64_t root,
			 struct kt_root_owner *o)
{
	const struct kt_node_state *set = kt_state_root_set(st, root);
	int i;

	*o = (struct kt_root_owner){ .kind = KT_ROOT_UNOWNED, .node = -1,
				     .pid = -1 };
	for (i = 0; i < (int)st->nr_bound; i++)
		if (st->bound[i].mm_pgd_pa == root)
			o->pid = st->bound[i].pid;
	if (set) {
		o->kind = KT_ROOT_SET;
		o->node = set->nid;
		o->set_root_pa = set->root_pa;
		o->master = root == st->master_root_pa;
		return true;
	}
	/* under mm, a process's root: only its tables say whose it is */
	return st->activation != KT_ACT_MM;
}

int kt_root_owner(struct kt_target *t, uint64_t root, struct kt_root_owner *o,
		  struct kt_err *err)
{
	const struct kt_state *st = t->st;
	uint64_t entry, set_entry;
	int i;
	int ret;

	if (kt_state_root_owner(st, root, o))
		return 0;
	ret = image_entry(t, root, &entry, err);
	if (ret)
		return kt_err_wrap(err, "the kernel image entry of root 0x%" PRIx64,
				   root);
	for (i = 0; i < st->nr_nodes; i++) {
		if (st->nodes[i].memory_node != st->nodes[i].nid)
			continue;
		ret = image_entry(t, st->nodes[i].root_pa, &set_entry, err);
		if (ret)
			return kt_err_wrap(err, "node %d's set", st->nodes[i].nid);
		if (set_entry != entry)
			continue;
		o->kind = KT_ROOT_MM;
		o->node = st->nodes[i].nid;
		o->set_root_pa = st->nodes[i].root_pa;
		o->master = o->set_root_pa == st->master_root_pa;
		return 0;
	}
	return 0;
}
