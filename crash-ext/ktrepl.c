// SPDX-License-Identifier: GPL-2.0
/*
 * crash> ktrepl: replication state in a vmcore, through tools/lib/ktrepl.
 * This file is the command: its options, the commands that are one
 * library call, and the help; the others have a file each (crash_ext.h).
 */
#include <getopt.h>

#include "crash_ext.h"

static int print_diff(const struct kt_diff *d, void *arg)
{
	struct session *s = arg;

	kt_report_diff(&s->out, &s->st, d);
	return 0;
}

static int print_violation(const struct kt_violation *v, void *arg)
{
	struct session *s = arg;

	kt_report_violation(&s->out, &s->st, v, false);
	return 0;
}

static void cmd_ktrepl(void)
{
	int c, node = -1, mode = 's';
	ulonglong addr = 0;
	struct session s;
	struct kt_err err;

	optind = 0;
	while ((c = getopt(argcnt, args, "vdpcft:n:")) != EOF) {
		switch (c) {
		case 'v':
		case 'd':
		case 'p':
		case 'c':
		case 'f':
			mode = c;
			break;
		case 't':
			mode = 't';
			addr = symbol_exists(optarg) ?
				       symbol_value(optarg) :
				       htoll(optarg, FAULT_ON_ERROR, NULL);
			break;
		case 'n':
			node = (int)dtol(optarg, FAULT_ON_ERROR, NULL);
			break;
		default:
			argerrs++;
		}
	}
	if (argerrs || args[optind])
		cmd_usage(pc->curcmd, SYNOPSIS);
	if (!session_open(&s))
		return;
	kt_err_clear(&err);
	if (node >= 0 && !kt_state_node(&s.st, node)) {
		error(INFO, "no node %d in this dump\n", node);
		session_close(&s);
		return;
	}
	switch (mode) {
	case 's':
		kt_report_summary(&s.out, &s.st);
		break;
	case 'd': {
		struct kt_diff_opts opts = { .node = node, .region = -1 };
		uint64_t compared;

		if (kt_diff_run(&s.t, &opts, print_diff, &s, &compared, &err))
			error(INFO, "%s\n", err.msg);
		break;
	}
	case 'v': {
		struct kt_verify_stats stats;

		if (kt_verify_run(&s.t, print_violation, &s, &stats, &err))
			error(INFO, "%s\n", err.msg);
		else
			kt_report_verify_end(&s.out, &stats, false);
		break;
	}
	case 'p':
		panic_analysis(&s);
		break;
	case 'c':
		cpu_roots(&s);
		break;
	case 'f': {
		struct kt_vdiff_stats stats;
		struct kt_vmlinux v;

		if (kt_vmlinux_open(&v, pc->namelist, &err)) {
			error(INFO, "%s\n", err.msg);
			break;
		}
		if (kt_diff_vmlinux_run(&s.t, &v, false, print_diff, &s, &stats,
					&err))
			error(INFO, "%s\n", err.msg);
		else
			kt_report_vdiff_end(&s.out, &stats);
		kt_vmlinux_close(&v);
		break;
	}
	case 't': {
		const struct kt_node_state *n;
		struct kt_mapping m;
		int i;

		for (i = 0; i < s.st.nr_nodes; i++) {
			n = &s.st.nodes[i];
			if ((node >= 0 && n->nid != node) || !n->root_pa)
				continue;
			if (kt_translate(s.t.arch, &s.t.geo, s.src, n->root_pa,
					 addr, &m, &err))
				error(INFO, "%s\n", err.msg);
			else
				kt_report_mapping(&s.out, &s.t, n->nid, NULL, &m,
						  true);
		}
		break;
	}
	}
	session_close(&s);
}

static char *help_ktrepl[] = {
	"ktrepl",
	"NUMA kernel text replication: replicas, node tables, divergence",
	"[-v | -p | -c | -f | -d [-n node] | -t address [-n node]]",
	"  Reads the ktrepl descriptor that ktrepl.ko left in the dump and",
	"  shows the replication state. Without options: nodes, master node,",
	"  regions, per-node top-level tables, overhead and patch counters.",
	"",
	"    -v  verify: replica bytes, node locality, shared top-level entries,",
	"        writable text and executable rodata, as ktrepl-dump --verify.",
	"    -d  every range where a replica differs from the master, with the",
	"        symbol and the kind of patch site it matches.",
	"    -t  translate an address or symbol through each node's own tables,",
	"        printing every level's entry and the node of the final page",
	"        (vtop only walks swapper_pg_dir).",
	"    -p  panic analysis: the panic task's CPU and node, and for its PC",
	"        and each return address on its stack, whether it falls in a",
	"        range where that node's replica differs from the master, or",
	"        where the master's text differs from the vmlinux in a way no",
	"        patch site or KASLR relocation explains.",
	"    -f  the master's text against crash's vmlinux: the changes no boot",
	"        or runtime patch site and no KASLR relocation explains (x86_64,",
	"        Debian's -dbg vmlinux; without .rela.text, as from 6.9, a",
	"        relocation is recognised by its value).",
	"    -c  the top-level table each CPU had loaded at the time of the dump",
	"        (from QEMU's CPU notes), against the one its node should use.",
	"    -n  restrict -d or -t to one node.",
	"\nEXAMPLE",
	"  Check the replicas after a panic:\n",
	"    %s> ktrepl -v",
	"    bytes: node 0 0xffffffff815a06f1 len 1 int_sqrt+0x1 [unknown] differs from the master",
	"    verify: DIVERGED: 1 violation; 2 nodes, 96 mappings, 23219954 bytes compared",
	NULL
};

/*
 * MINIMAL: ktrepl needs only readmem() and symbols, and minimal mode is
 * how Debian's crash 8.0.2 opens 6.4+ dumps safely (README).
 */
static struct command_table_entry command_table[] = {
	{ "ktrepl", cmd_ktrepl, help_ktrepl, MINIMAL },
	{ NULL },
};

void __attribute__((constructor)) ktrepl_init(void)
{
	register_extension(command_table);
}

void __attribute__((destructor)) ktrepl_fini(void)
{
}
