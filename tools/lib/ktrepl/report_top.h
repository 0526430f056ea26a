/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_REPORT_TOP_H
#define KTREPL_REPORT_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locality.h"
#include "output.h"
#include "state.h"

/*
 * One row of the process view. comm is the tool's to fill (it reads
 * /proc); kt_top_proc_describe() fills the rest from the frame and state.
 */
struct kt_top_proc {
	const struct kt_loc_proc *p;
	char comm[17];
	/*
	 * whose tables its samples went through: "master", "node" (one
	 * set's, set_node's), "mixed" (a set's and the master's: bound or
	 * unbound during the frame), "percpu" (each CPU its node's)
	 */
	const char *tables;
	int set_node;		/* -1 for percpu */
	bool to_bind;		/* kt_loc_proc_to_bind() */
};

void kt_top_proc_describe(const struct kt_locality *loc,
			  const struct kt_state *st, struct kt_top_proc *row);
/* "0,1": the nodes a process's samples came from */
void kt_top_proc_nodes(const struct kt_loc_proc *p, char *buf, size_t len);

/*
 * One frame of ktrepl-top as plain data, so that the library prints it
 * without knowing the tool: what was measured (loc, over frame_ns, at
 * rate_hz of event), how far that can be trusted, the replication state
 * it was measured under, and the order of the rows, which the tool's
 * views decide. loc->numa gives each CPU's node and each node's memory.
 */
struct kt_top_frame {
	long frame;		/* 1 for the first */
	uint64_t frame_ns;	/* the wall time it covered */
	const char *event;	/* kt_sampler_event() */
	unsigned int rate_hz;	/* asked for, per CPU */
	const struct kt_locality *loc;
	const struct kt_loc_fidelity *fidelity;
	const struct kt_state *st;
	bool have_module;	/* st came from debugfs, not VMCOREINFO */
	const char *warning;	/* a refresh that failed; NULL or "": none */
	/* node ids, then CPU ids, as shown; nodes without CPUs are skipped */
	const int *nodes;
	int nr_nodes;
	const int *cpus;
	int nr_cpus;
	/* indices into loc->funcs, those shown as hot remote functions */
	const size_t *funcs;
	size_t nr_funcs;
	/* --processes: the rows, in order; NULL: no process view */
	const struct kt_top_proc *procs;
	size_t nr_procs;
};

/*
 * A batch frame: under JSON one object (ktrepl-top gives each frame a
 * writer of its own, so each is a line of its own), else the header and
 * the node, CPU and function tables, ending with a blank line.
 */
void kt_report_top_frame(struct kt_out *out, const struct kt_top_frame *f);

/* bytes of replica and tables per replica node, 0 without replicas */
uint64_t kt_top_replica_overhead(const struct kt_state *st);
/* "5.5 MiB": KiB, MiB or GiB with one decimal */
void kt_top_format_bytes(uint64_t bytes, char *buf, size_t len);
/* "ok", or the frame's doubts joined by commas: "lossy,slow" */
const char *kt_top_trust(const struct kt_loc_fidelity *f, char *buf,
			 size_t len);
/* a CPU's achieved rate is at least KT_LOC_MIN_RATE_SHARE of the asked */
bool kt_top_cpu_rate_ok(const struct kt_locality *loc, int cpu,
			unsigned int rate_hz, uint64_t frame_ns);

#endif
