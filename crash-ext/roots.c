// SPDX-License-Identifier: GPL-2.0
/* crash> ktrepl -c: each CPU's loaded root, and whose tables those are */
#include <inttypes.h>

#include "crash_ext.h"
#include "qemu_cpu.h"

/*
 * A CPU's root in words, by the library's rule (kt_root_owner): under
 * percpu a CPU on anything but its node's set is wrong; under mm only
 * node-bound processes run on a node's set, so init_mm (idle, kernel
 * threads) and unbound processes on the master's are normal.
 */
static void print_root_owner(struct session *s, const struct kt_cpu_state *c,
			     uint64_t root)
{
	struct kt_root_owner o;
	struct kt_err err;
	char pid[32] = "";

	kt_err_clear(&err);
	if (kt_root_owner(&s->t, root, &o, &err)) {
		fprintf(fp, "cannot tell: %s\n", err.msg);
		return;
	}
	if (o.pid >= 0)
		snprintf(pid, sizeof(pid), "pid %d's mm, ", o.pid);
	if (o.kind == KT_ROOT_SET && o.set_root_pa == c->expected_root_pa)
		fprintf(fp, "its node's (%s)\n", o.master ? "master" : "node");
	else if (o.kind == KT_ROOT_SET)
		fprintf(fp, "NOT ITS NODE'S: the %s set of node %d\n",
			o.master ? "master" : "node", o.node);
	else if (o.kind == KT_ROOT_MM && o.set_root_pa == c->expected_root_pa &&
		 !o.master)
		fprintf(fp, "%sits node's set (bound to node %d)\n", pid, o.node);
	else if (o.kind == KT_ROOT_MM && o.master)
		fprintf(fp, "%s%s\n", pid,
			root == s->st.master_root_pa ?
				"init_mm, the master's (idle or a kernel thread: under mm only node-bound processes run on their node's set)" :
				"an mm on the master's kernel half (a process not bound to a node)");
	else if (o.kind == KT_ROOT_MM)
		fprintf(fp, "%sNOT ITS NODE'S: an mm on node %d's set\n", pid,
			o.node);
	else
		fprintf(fp, "TABLES NO SET OWNS (the kernel half is neither the master's nor a node set's)\n");
}

/*
 * The roots the module recorded at each switch (arm64: no dump format
 * carries TTBR1); 0 when it recorded none.
 */
static int recorded_roots(struct session *s, uint64_t *roots, int max)
{
	int i, n = 0;

	for (i = 0; i < (int)s->st.nr_cpus; i++) {
		const struct kt_cpu_state *c = &s->st.cpus[i];

		if (!c->root_recorded || c->cpu >= max)
			continue;
		roots[c->cpu] = c->loaded_root_pa;
		if (c->cpu >= n)
			n = c->cpu + 1;
	}
	return n;
}

/* -c: the root each CPU had loaded when the dump was taken */
void cpu_roots(struct session *s)
{
	uint64_t roots[NR_CPUS];
	struct kt_err err;
	int i, n;

	kt_err_clear(&err);
	n = recorded_roots(s, roots, NR_CPUS);
	if (!n)
		n = kt_qemu_cpu_roots(pc->dumpfile, roots, NR_CPUS, &err);
	if (n < 0) {
		error(INFO, "%s\n", err.msg);
		return;
	}
	fprintf(fp, "%-4s %-5s %-18s %-18s %s\n", "CPU", "NODE",
		s->st.nr_cpus && s->st.cpus[0].root_recorded ? "RECORDED ROOT" :
							      "LOADED ROOT",
		"NODE'S ROOT", "SET");
	for (i = 0; i < (int)s->st.nr_cpus; i++) {
		const struct kt_cpu_state *c = &s->st.cpus[i];

		if (c->cpu >= n)
			continue;
		fprintf(fp, "%-4d %-5d 0x%-16" PRIx64 " 0x%-16" PRIx64 " ", c->cpu,
			c->node, roots[c->cpu], c->expected_root_pa);
		print_root_owner(s, c, roots[c->cpu]);
	}
}
