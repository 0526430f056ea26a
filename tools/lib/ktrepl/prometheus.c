// SPDX-License-Identifier: GPL-2.0
/*
 * verify's result in Prometheus' text exposition format, as node_exporter's
 * textfile collector reads it: one sample per line under HELP and TYPE,
 * counters ending in _total.
 */
#include <inttypes.h>

#include "prometheus.h"

static void metric_head(FILE *fp, const char *name, const char *type,
			const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void kt_prometheus_write(FILE *fp, const struct kt_prometheus_run *run)
{
	const struct kt_state *st = run->st;
	int i, k;

	metric_head(fp, "ktrepl_verify_up", "gauge",
		    "1 if the last verify could check the replicas, else 0.");
	fprintf(fp, "ktrepl_verify_up %d\n", run->checked);
	metric_head(fp, "ktrepl_verify_last_run_timestamp_seconds", "gauge",
		    "When the last verify ran, in seconds since the epoch.");
	fprintf(fp, "ktrepl_verify_last_run_timestamp_seconds %.3f\n",
		run->timestamp);
	metric_head(fp, "ktrepl_verify_duration_seconds", "gauge",
		    "How long the last verify took.");
	fprintf(fp, "ktrepl_verify_duration_seconds %.3f\n", run->duration);
	if (!run->checked)
		return;

	metric_head(fp, "ktrepl_healthy", "gauge",
		    "1 if the last verify found every replica healthy, else 0.");
	fprintf(fp, "ktrepl_healthy %d\n", run->stats->total == 0);
	metric_head(fp, "ktrepl_violations", "gauge",
		    "Violations the last verify found, per check.");
	for (k = 0; k < KT_V_NR; k++)
		fprintf(fp, "ktrepl_violations{check=\"%s\"} %u\n",
			kt_violation_names[k], run->stats->count[k]);
	metric_head(fp, "ktrepl_verify_compared_bytes", "gauge",
		    "Replica bytes the last verify compared with the master.");
	fprintf(fp, "ktrepl_verify_compared_bytes %" PRIu64 "\n",
		run->stats->compared_bytes);

	metric_head(fp, "ktrepl_replica_bytes", "gauge",
		    "Bytes of replicated text and rodata each node maps from its own copy.");
	for (i = 0; i < st->nr_nodes; i++) {
		const struct kt_node_state *n = &st->nodes[i];
		uint64_t bytes = 0;
		size_t e;

		for (e = 0; e < st->nr_extents; e++)
			if (st->extents[e].node == n->nid)
				bytes += st->extents[e].size;
		fprintf(fp, "ktrepl_replica_bytes{node=\"%d\",role=\"%s\"} %" PRIu64 "\n",
			n->nid, kt_role_name(n->role), bytes);
	}
	metric_head(fp, "ktrepl_patches_total", "counter",
		    "Runtime text patches the module propagated to every replica.");
	fprintf(fp, "ktrepl_patches_total %" PRIu64 "\n", st->patches);
	metric_head(fp, "ktrepl_patched_bytes_total", "counter",
		    "Bytes of those patches.");
	fprintf(fp, "ktrepl_patched_bytes_total %" PRIu64 "\n", st->patch_bytes);
	metric_head(fp, "ktrepl_patches_missed_total", "counter",
		    "Text patches that did not reach the replicas.");
	fprintf(fp, "ktrepl_patches_missed_total %" PRIu64 "\n",
		st->patches_missed);
}
