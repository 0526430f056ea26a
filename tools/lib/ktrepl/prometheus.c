// SPDX-License-Identifier: GPL-2.0
/*
 * verify's result and ktrepl-top's locality window in Prometheus' text
 * exposition format, as node_exporter's textfile collector reads it: one
 * sample per line under HELP and TYPE, counters ending in _total; and the
 * one way to put such a file in place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void kt_prometheus_top_add(struct kt_prometheus_top *w,
			   const struct kt_locality *loc,
			   const struct kt_loc_fidelity *fid, const int *nodes,
			   int nr_nodes, uint64_t frame_ns, double timestamp)
{
	int i, k;

	for (i = 0; i < nr_nodes; i++) {
		int nid = nodes[i];

		if (nid < 0 || nid >= KT_NUMA_MAX_NODES)
			continue;
		w->seen[nid] = true;
		for (k = 0; k < KT_TEXT_CLASSES; k++) {
			const struct kt_fetches *f = &loc->nodes[nid].text[k];

			w->text[nid][k].local += f->local;
			w->text[nid][k].remote += f->remote;
			w->text[nid][k].unresolved += f->unresolved;
		}
	}
	w->samples += loc->samples;
	w->lost += loc->lost;
	if (fid->min_cpu >= 0 && (!w->frames || fid->min_hz < w->min_hz))
		w->min_hz = fid->min_hz;
	w->lossy |= fid->lossy;
	w->slow |= fid->slow;
	w->rate_hz = fid->requested_hz;
	w->seconds += frame_ns / 1e9;
	w->timestamp = timestamp;
	w->frames++;
}

/* a window's figures mean something: no frame lossy or slow, enough samples */
static bool top_trusted(const struct kt_prometheus_top *w)
{
	struct kt_fetches all = { 0 };
	int nid, k;

	for (nid = 0; nid < KT_NUMA_MAX_NODES; nid++)
		for (k = 0; k < KT_TEXT_CLASSES; k++) {
			all.local += w->text[nid][k].local;
			all.remote += w->text[nid][k].remote;
		}
	return w->frames && !w->lossy && !w->slow && kt_fetches_enough(&all);
}

void kt_prometheus_write_top(FILE *fp, const struct kt_prometheus_top *w)
{
	static const char *const where[] = { "local", "remote", "unresolved" };
	int nid, k, i;

	metric_head(fp, "ktrepl_top_last_run_timestamp_seconds", "gauge",
		    "When ktrepl-top's last window ended, in seconds since the epoch.");
	fprintf(fp, "ktrepl_top_last_run_timestamp_seconds %.3f\n",
		w->timestamp);
	metric_head(fp, "ktrepl_top_window_seconds", "gauge",
		    "Wall time the window's frames covered.");
	fprintf(fp, "ktrepl_top_window_seconds %.3f\n", w->seconds);
	metric_head(fp, "ktrepl_top_text_fetches", "gauge",
		    "Sampled kernel text fetches in the window, by the fetching CPU's node, the text and where its page was.");
	for (nid = 0; nid < KT_NUMA_MAX_NODES; nid++) {
		if (!w->seen[nid])
			continue;
		for (k = 0; k < KT_TEXT_CLASSES; k++) {
			const struct kt_fetches *f = &w->text[nid][k];
			const uint64_t n[] = { f->local, f->remote,
					       f->unresolved };

			for (i = 0; i < 3; i++)
				fprintf(fp, "ktrepl_top_text_fetches{node=\"%d\",text=\"%s\",where=\"%s\"} %" PRIu64 "\n",
					nid, kt_text_class_names[k], where[i],
					n[i]);
		}
	}
	metric_head(fp, "ktrepl_top_text_local_ratio", "gauge",
		    "Share of a node's resolved text fetches in the window whose page was on the node (0 to 1); absent without any.");
	for (nid = 0; nid < KT_NUMA_MAX_NODES; nid++) {
		if (!w->seen[nid])
			continue;
		for (k = 0; k < KT_TEXT_CLASSES; k++) {
			double pct = kt_fetches_local_pct(&w->text[nid][k]);

			if (pct >= 0)
				fprintf(fp, "ktrepl_top_text_local_ratio{node=\"%d\",text=\"%s\"} %.4f\n",
					nid, kt_text_class_names[k],
					pct / 100);
		}
	}
	metric_head(fp, "ktrepl_top_samples", "gauge",
		    "Samples the window took, idle and user included.");
	fprintf(fp, "ktrepl_top_samples %" PRIu64 "\n", w->samples);
	metric_head(fp, "ktrepl_top_lost_samples", "gauge",
		    "Samples the kernel dropped in the window (buffers full).");
	fprintf(fp, "ktrepl_top_lost_samples %" PRIu64 "\n", w->lost);
	metric_head(fp, "ktrepl_top_requested_rate_hz", "gauge",
		    "Samples per second per CPU asked for.");
	fprintf(fp, "ktrepl_top_requested_rate_hz %u\n", w->rate_hz);
	metric_head(fp, "ktrepl_top_achieved_rate_hz", "gauge",
		    "The slowest CPU's achieved sample rate, in the slowest frame.");
	fprintf(fp, "ktrepl_top_achieved_rate_hz %.1f\n", w->min_hz);
	metric_head(fp, "ktrepl_top_trusted", "gauge",
		    "1 if no frame was lossy or slow and the window resolved enough samples, else 0.");
	fprintf(fp, "ktrepl_top_trusted %d\n", top_trusted(w));
}

int kt_prometheus_write_file(const char *path,
			     void (*emit)(FILE *fp, const void *arg),
			     const void *arg, struct kt_err *err)
{
	FILE *fp = NULL;
	char *tmp;
	int fd, code;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return kt_err_set(err, ENOMEM, "%s: out of memory", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		code = errno;
		kt_err_set(err, code, "%s: %s", tmp, strerror(code));
		free(tmp);
		return -code;
	}
	if (fchmod(fd, 0644) || !(fp = fdopen(fd, "w"))) {
		code = errno;
		kt_err_set(err, code, "%s: %s", tmp, strerror(code));
		close(fd);
		goto unlink;
	}
	emit(fp, arg);
	if (fclose(fp)) {
		code = errno;
		kt_err_set(err, code, "%s: %s", tmp, strerror(code));
		goto unlink;
	}
	if (rename(tmp, path)) {
		code = errno;
		kt_err_set(err, code, "%s: %s", path, strerror(code));
		goto unlink;
	}
	free(tmp);
	return 0;
unlink:
	unlink(tmp);
	free(tmp);
	return -code;
}

/* a label value: reason words are ours, but a damaged file is not */
static void label_value(FILE *fp, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || *s == '\n')
			fputc('_', fp);
		else
			fputc(*s, fp);
}

void kt_prometheus_write_triage(FILE *fp, const void *arg)
{
	const struct kt_prometheus_triage *tr = arg;
	int i;

	metric_head(fp, "ktrepl_triage_last_run_timestamp_seconds", "gauge",
		    "When ktrepl-dump triage last looked at the crash directory.");
	fprintf(fp, "ktrepl_triage_last_run_timestamp_seconds %.3f\n",
		tr->timestamp);
	metric_head(fp, "ktrepl_triage_failed", "gauge",
		    "Dumps the last triage could not judge (the analysis died or timed out).");
	fprintf(fp, "ktrepl_triage_failed %u\n", tr->failed_now);
	metric_head(fp, "ktrepl_panic_dumps_total", "counter",
		    "Crash dumps in the crash directory that have a ktrepl verdict.");
	fprintf(fp, "ktrepl_panic_dumps_total %u\n", tr->dumps);
	metric_head(fp, "ktrepl_panic_dumps", "gauge",
		    "Crash dumps in the crash directory, per ktrepl verdict.");
	for (i = 0; i < KT_TRIAGE_NR; i++)
		fprintf(fp, "ktrepl_panic_dumps{verdict=\"%s\"} %u\n",
			kt_triage_verdict_names[i], tr->by_verdict[i]);
	if (!tr->have_last)
		return;
	metric_head(fp, "ktrepl_panic_last_timestamp_seconds", "gauge",
		    "When the newest crash dump was written, in seconds since the epoch.");
	fprintf(fp, "ktrepl_panic_last_timestamp_seconds %.3f\n",
		tr->last_time);
	metric_head(fp, "ktrepl_panic_last_diverged", "gauge",
		    "1 if the newest crash dump says a replica divergence was the likely cause of its panic.");
	fprintf(fp, "ktrepl_panic_last_diverged{node=\"");
	if (tr->last_node >= 0)
		fprintf(fp, "%d", tr->last_node);
	fprintf(fp, "\",reason=\"");
	label_value(fp, tr->last_reason);
	fprintf(fp, "\",verdict=\"%s\"} %d\n",
		kt_triage_verdict_names[tr->last_verdict],
		tr->last_verdict == KT_TRIAGE_DIVERGED);
}
