// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>

#include "check.h"
#include "ktrepl_abi.h"
#include "report.h"

static void hex(FILE *fp, const uint8_t *b, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		fprintf(fp, "%02x", b[i]);
}

static void json_hex_bytes(struct json_writer *jw, const char *name,
			   const uint8_t *b, uint64_t n)
{
	char buf[2 * KT_DIFF_SHOW + 1];
	uint64_t i;

	for (i = 0; i < n && i < KT_DIFF_SHOW; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	buf[2 * i] = '\0';
	jsonw_string_field(jw, name, buf);
}

/* "256 of 641", or "256 of more than 256" where the count is unknown */
static void module_coverage(char *buf, size_t size, const struct kt_state *st)
{
	if (st->modules_omitted)
		snprintf(buf, size, "%u of at least %u", st->nr_modules,
			 st->nr_modules + st->modules_omitted);
	else
		snprintf(buf, size, "%u of maybe more", st->nr_modules);
}

/*
 * a dump whose descriptor recorded CPUs' roots: at their last switch
 * (percpu), or as each CPU read it when it stopped for the dump
 */
static bool recorded_roots(const struct kt_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_cpus; i++)
		if (st->cpus[i].root_recorded)
			return true;
	return false;
}

void kt_report_summary(struct kt_out *out, const struct kt_state *st)
{
	struct json_writer *jw = out->jw;
	FILE *fp = out->fp;
	int i;

	if (jw) {
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "version", KT_JSON_VERSION);
		jsonw_int_field(jw, "abi", st->abi);
		jsonw_string_field(jw, "provider", st->provider);
		jsonw_string_field(jw, "arch", st->arch);
		jsonw_uint_field(jw, "paging_levels", st->paging_levels);
		jsonw_uint_field(jw, "page_size", st->page_size);
		jsonw_int_field(jw, "master_node", st->master_node);
		jsonw_string_field(jw, "activation",
				   kt_activation_name(st->activation));
		jsonw_bool_field(jw, "propagate", st->propagate);
		jsonw_uint_field(jw, "patches", st->patches);
		jsonw_uint_field(jw, "patch_bytes", st->patch_bytes);
		jsonw_uint_field(jw, "patches_missed", st->patches_missed);
		jsonw_uint_field(jw, "overhead_bytes", st->overhead);
		jsonw_hex_field(jw, "master_root_pa", st->master_root_pa);
		jsonw_name(jw, "nodes");
		jsonw_start_array(jw);
		for (i = 0; i < st->nr_nodes; i++) {
			const struct kt_node_state *n = &st->nodes[i];

			jsonw_start_object(jw);
			jsonw_int_field(jw, "node", n->nid);
			jsonw_int_field(jw, "memory_node", n->memory_node);
			jsonw_bool_field(jw, "has_memory", n->has_memory);
			jsonw_string_field(jw, "role", kt_role_name(n->role));
			jsonw_string_field(jw, "cpus", n->cpus);
			jsonw_hex_field(jw, "root_pa", n->root_pa);
			jsonw_uint_field(jw, "overhead_bytes", n->overhead);
			jsonw_end_object(jw);
		}
		jsonw_end_array(jw);
		jsonw_name(jw, "regions");
		jsonw_start_array(jw);
		for (i = 0; i < st->nr_regions; i++) {
			jsonw_start_object(jw);
			jsonw_string_field(jw, "region", st->regions[i].name);
			jsonw_hex_field(jw, "start", st->regions[i].start);
			jsonw_hex_field(jw, "end", st->regions[i].end);
			jsonw_end_object(jw);
		}
		jsonw_end_array(jw);
		if (st->modules_incomplete) {
			/* the kernel replicates modules not listed above */
			jsonw_bool_field(jw, "modules_incomplete", true);
			jsonw_uint_field(jw, "modules_listed", st->nr_modules);
			jsonw_uint_field(jw, "modules_omitted",
					 st->modules_omitted);
		}
		if (recorded_roots(st)) {
			jsonw_name(jw, "cpus");
			jsonw_start_array(jw);
			for (i = 0; i < (int)st->nr_cpus; i++) {
				const struct kt_cpu_state *c = &st->cpus[i];

				jsonw_start_object(jw);
				jsonw_int_field(jw, "cpu", c->cpu);
				jsonw_int_field(jw, "node", c->node);
				jsonw_hex_field(jw, "recorded_root_pa",
						c->loaded_root_pa);
				jsonw_hex_field(jw, "expected_root_pa",
						c->expected_root_pa);
				jsonw_bool_field(jw, "root_at_panic",
						 c->root_at_panic);
				jsonw_end_object(jw);
			}
			jsonw_end_array(jw);
		}
		if (st->nr_bound) {
			jsonw_name(jw, "bound");
			jsonw_start_array(jw);
			for (i = 0; i < (int)st->nr_bound; i++) {
				const struct kt_bound_state *b = &st->bound[i];

				jsonw_start_object(jw);
				jsonw_int_field(jw, "pid", b->pid);
				jsonw_string_field(jw, "comm", b->comm);
				jsonw_int_field(jw, "node", b->node);
				jsonw_hex_field(jw, "mm_pgd_pa", b->mm_pgd_pa);
				jsonw_hex_field(jw, "root_pa", b->root_pa);
				jsonw_end_object(jw);
			}
			jsonw_end_array(jw);
		}
		if (st->bound_incomplete) {
			jsonw_bool_field(jw, "bound_incomplete", true);
			jsonw_uint_field(jw, "bound_omitted", st->bound_omitted);
		}
		jsonw_end_object(jw);
		return;
	}
	fprintf(fp, "arch %s, %u-level paging, %" PRIu64 "-byte pages, ABI %d (%s)\n",
		st->arch, st->paging_levels, st->page_size, st->abi,
		st->provider);
	fprintf(fp, "master node %d, activation %s, propagation %s\n",
		st->master_node, kt_activation_name(st->activation), st->propagate ? "on" : "off");
	fprintf(fp, "patches propagated %" PRIu64 " (%" PRIu64 " bytes), missed %" PRIu64 "\n",
		st->patches, st->patch_bytes, st->patches_missed);
	fprintf(fp, "overhead %" PRIu64 " bytes in all\n", st->overhead);
	fprintf(fp, "\n%-5s %-7s %-8s %-8s %-18s %s\n", "NODE", "MEMORY",
		"ROLE", "CPUS", "ROOT PA", "OVERHEAD");
	for (i = 0; i < st->nr_nodes; i++) {
		const struct kt_node_state *n = &st->nodes[i];

		fprintf(fp, "%-5d %-7d %-8s %-8s 0x%-16" PRIx64 " %" PRIu64 "\n",
			n->nid, n->memory_node, kt_role_name(n->role), n->cpus, n->root_pa,
			n->overhead);
	}
	fprintf(fp, "\n%-8s %-18s %-18s %s\n", "REGION", "START", "END", "SIZE");
	for (i = 0; i < st->nr_regions; i++)
		fprintf(fp, "%-8s 0x%-16" PRIx64 " 0x%-16" PRIx64 " %" PRIu64 "\n",
			st->regions[i].name, st->regions[i].start,
			st->regions[i].end,
			st->regions[i].end - st->regions[i].start);
	if (st->modules_incomplete) {
		char cov[64];

		module_coverage(cov, sizeof(cov), st);
		fprintf(fp, "(modules listed: %s replicated; the state has no record of the rest)\n",
			cov);
	}
	if (st->nr_bound) {
		fprintf(fp, "\n%-8s %-16s %-5s %-18s %s\n", "PID", "COMM",
			"NODE", "MM PGD PA", "SET ROOT");
		for (i = 0; i < (int)st->nr_bound; i++)
			fprintf(fp, "%-8d %-16s %-5d 0x%-16" PRIx64 " 0x%" PRIx64 "\n",
				st->bound[i].pid, st->bound[i].comm,
				st->bound[i].node, st->bound[i].mm_pgd_pa,
				st->bound[i].root_pa);
	}
	if (st->bound_omitted)
		fprintf(fp, "(bound processes listed: %zu of %zu; the dump has no record of the rest)\n",
			st->nr_bound, st->nr_bound + st->bound_omitted);
	else if (st->bound_incomplete)
		fprintf(fp, "(bound processes listed: %zu of maybe more)\n",
			st->nr_bound);
	if (!recorded_roots(st))
		return;
	fprintf(fp, "\n%-4s %-5s %-18s %s\n", "CPU", "NODE",
		st->panic_roots ? "ROOT AT PANIC" : "RECORDED ROOT",
		"NODE'S ROOT");
	for (i = 0; i < (int)st->nr_cpus; i++) {
		const struct kt_cpu_state *c = &st->cpus[i];
		struct kt_root_owner o;
		const char *note = "";

		if (!c->root_recorded)
			note = "  (not recorded)";
		/*
		 * under mm a CPU runs some process's mm, never a set's root:
		 * the state alone cannot judge it
		 */
		else if (st->activation == KT_ACT_PERCPU &&
			 kt_state_root_owner(st, c->loaded_root_pa, &o) &&
			 (o.kind != KT_ROOT_SET ||
			  o.set_root_pa != c->expected_root_pa))
			note = "  <- not its node's";
		fprintf(fp, "%-4d %-5d 0x%-16" PRIx64 " 0x%" PRIx64 "%s\n",
			c->cpu, c->node, c->loaded_root_pa,
			c->expected_root_pa, note);
	}
}

void kt_report_diff_begin(struct kt_out *out)
{
	if (!out->jw)
		return;
	jsonw_start_object(out->jw);
	jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
	jsonw_name(out->jw, "diffs");
	jsonw_start_array(out->jw);
}

static void diff_fields(struct json_writer *jw, const struct kt_state *st,
			const struct kt_diff *d)
{
	uint64_t show = d->len < KT_DIFF_SHOW ? d->len : KT_DIFF_SHOW;

	jsonw_int_field(jw, "node", d->node);
	jsonw_string_field(jw, "region", st->regions[d->region].name);
	jsonw_hex_field(jw, "va", d->va);
	jsonw_uint_field(jw, "len", d->len);
	jsonw_string_field(jw, "sym", d->sym);
	jsonw_string_field(jw, "kind", d->kind);
	if (d->unsettled)
		jsonw_bool_field(jw, "unsettled", true);
	if (d->vs_file) {
		json_hex_bytes(jw, "memory", d->master, show);
		json_hex_bytes(jw, "vmlinux", d->replica, show);
		return;
	}
	jsonw_hex_field(jw, "master_pa", d->master_pa);
	jsonw_hex_field(jw, "replica_pa", d->replica_pa);
	json_hex_bytes(jw, "master", d->master, show);
	json_hex_bytes(jw, "replica", d->replica, show);
}

void kt_report_diff(struct kt_out *out, const struct kt_state *st,
		    const struct kt_diff *d)
{
	uint64_t show = d->len < KT_DIFF_SHOW ? d->len : KT_DIFF_SHOW;
	FILE *fp = out->fp;

	if (out->jw) {
		jsonw_start_object(out->jw);
		diff_fields(out->jw, st, d);
		jsonw_end_object(out->jw);
		return;
	}
	fprintf(fp, "node %d %s 0x%" PRIx64 " len %" PRIu64 " %s [%s]%s\n",
		d->node, st->regions[d->region].name, d->va, d->len, d->sym,
		d->kind, d->unsettled ? " unsettled" : "");
	fprintf(fp, d->vs_file ? "  memory:  " : "  master:  ");
	hex(fp, d->before, KT_DIFF_CONTEXT);
	fprintf(fp, " [");
	hex(fp, d->master, show);
	fprintf(fp, "%s] ", show < d->len ? "..." : "");
	hex(fp, d->after, KT_DIFF_CONTEXT);
	fprintf(fp, "\n  %s %*s [", d->vs_file ? "vmlinux:" : "replica:",
		KT_DIFF_CONTEXT * 2, "");
	hex(fp, d->replica, show);
	fprintf(fp, "%s]\n", show < d->len ? "..." : "");
}

void kt_report_diff_end(struct kt_out *out, unsigned int ranges,
			unsigned int unsettled, uint64_t compared)
{
	if (out->jw) {
		jsonw_end_array(out->jw);
		jsonw_uint_field(out->jw, "ranges", ranges);
		jsonw_uint_field(out->jw, "unsettled", unsettled);
		jsonw_uint_field(out->jw, "compared_bytes", compared);
		jsonw_end_object(out->jw);
		return;
	}
	fprintf(out->fp, "%u differing range%s in %" PRIu64 " bytes compared\n",
		ranges, ranges == 1 ? "" : "s", compared);
	if (unsettled)
		fprintf(out->fp, "%u of them unsettled: they changed at every read while the kernel kept patching them\n",
			unsettled);
}

void kt_report_vdiff_end(struct kt_out *out, const struct kt_vdiff_stats *s)
{
	size_t i;

	if (out->jw) {
		jsonw_end_array(out->jw);
		jsonw_uint_field(out->jw, "compared_bytes", s->compared);
		jsonw_int_field(out->jw, "kaslr_slide", s->slide);
		jsonw_string_field(out->jw, "relocations",
				   s->relocs_inferred ? "inferred" : "file");
		jsonw_uint_field(out->jw, "unexplained", s->unexplained);
		jsonw_name(out->jw, "kinds");
		jsonw_start_object(out->jw);
		for (i = 0; i < s->nr_kinds; i++)
			jsonw_uint_field(out->jw, s->kinds[i].name,
					 s->kinds[i].ranges);
		jsonw_end_object(out->jw);
		jsonw_end_object(out->jw);
		return;
	}
	fprintf(out->fp, "%" PRIu64 " bytes of text compared with the vmlinux (KASLR slide %+" PRId64 "); differing ranges by kind:",
		s->compared, s->slide);
	for (i = 0; i < s->nr_kinds; i++)
		fprintf(out->fp, " %s=%" PRIu64, s->kinds[i].name,
			s->kinds[i].ranges);
	fprintf(out->fp, "\n%" PRIu64 " range%s explained by no patch site or relocation%s\n",
		s->unexplained, s->unexplained == 1 ? "" : "s",
		s->unexplained ? ": not the kernel's doing" : "");
	if (s->relocs_inferred)
		fprintf(out->fp, "(the vmlinux has no .rela.text: a KASLR relocation is recognised by its value, the file's plus the slide)\n");
}

void kt_report_verify_begin(struct kt_out *out, bool tap)
{
	if (out->jw) {
		jsonw_start_object(out->jw);
		jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
		jsonw_name(out->jw, "violations");
		jsonw_start_array(out->jw);
	} else if (tap) {
		fprintf(out->fp, "TAP version 13\n");
	}
}

/* one line per violation, the same words in plain text and TAP */
static void violation_text(FILE *fp, const struct kt_state *st,
			   const struct kt_violation *v)
{
	const char *name = kt_violation_names[v->kind];

	switch (v->kind) {
	case KT_V_BYTES:
		fprintf(fp, "%s: node %d 0x%" PRIx64 " len %" PRIu64 " %s [%s] differs from the master",
			name, v->node, v->va, v->len, v->diff->sym,
			v->diff->kind);
		break;
	case KT_V_UNSETTLED:
		fprintf(fp, "%s: node %d 0x%" PRIx64 " len %" PRIu64 " %s [%s] changed at every read while the kernel kept patching it: not judged",
			name, v->node, v->va, v->len, v->diff->sym,
			v->diff->kind);
		break;
	case KT_V_LOCALITY:
		fprintf(fp, "%s: node %d maps 0x%" PRIx64 " to pa 0x%" PRIx64 " on node %d, not node %d",
			name, v->node, v->va, v->pa, v->pa_node,
			v->expected_node);
		break;
	case KT_V_UNMAPPED:
		fprintf(fp, "%s: node %d does not map 0x%" PRIx64, name,
			v->node, v->va);
		break;
	case KT_V_ROOT:
		fprintf(fp, "%s: node %d top-level entry %u is 0x%" PRIx64 ", the master's is 0x%" PRIx64,
			name, v->node, v->index, v->got, v->want);
		break;
	case KT_V_STALE_TABLE:
		fprintf(fp, "%s: node %d level %d entry %u (va 0x%" PRIx64 ") is 0x%" PRIx64 ", the master's is 0x%" PRIx64,
			name, v->node, v->level, v->index, v->va, v->got,
			v->want);
		break;
	case KT_V_NOT_COVERED: {
		char cov[64];

		module_coverage(cov, sizeof(cov), st);
		fprintf(fp, "%s: node %d level %d ", name, v->node, v->level);
		if (v->entries > 1)
			fprintf(fp, "entries %u..%u", v->index,
				v->index + v->entries - 1);
		else
			fprintf(fp, "entry %u", v->index);
		fprintf(fp, " (va 0x%" PRIx64 "+0x%" PRIx64 ") differ%s from the master's as an unlisted module's copy would (modules listed: %s): not judged",
			v->va, v->len, v->entries > 1 ? "" : "s", cov);
		break;
	}
	case KT_V_WRITABLE_TEXT:
	case KT_V_EXEC_RODATA:
		fprintf(fp, "%s: node %d maps 0x%" PRIx64 " (+0x%" PRIx64 ") %s",
			name, v->node, v->va, v->len,
			v->kind == KT_V_WRITABLE_TEXT ? "writable" : "executable");
		break;
	case KT_V_WRITABLE_ALIAS:
		fprintf(fp, "%s: node %d replica of 0x%" PRIx64 " is writable through the direct map (pa 0x%" PRIx64 ")",
			name, v->node, v->va, v->pa);
		break;
	case KT_V_CPU_ROOT:
		fprintf(fp, "%s: cpu %d on node %d runs on root 0x%" PRIx64 ", not its node's 0x%" PRIx64,
			name, v->cpu, v->node, v->got, v->want);
		break;
	case KT_V_TASK_ROOT:
		fprintf(fp, "%s: pid %d for node %d runs on root 0x%" PRIx64 ", not its node's 0x%" PRIx64,
			name, v->cpu, v->node, v->got, v->want);
		break;
	case KT_V_MM_ENTRY:
		fprintf(fp, "%s: pid %d bound to node %d has image entry %u = 0x%" PRIx64 " (pa 0x%" PRIx64 "), not its set's 0x%" PRIx64,
			name, v->cpu, v->node, v->index, v->got, v->pa,
			v->want);
		break;
	case KT_V_FAILSAFE:
		fprintf(fp, "%s: the engine %s (%" PRIu64 " event%s since load, %" PRIu64 " new since the last verify, the last for %s): a write may have missed the replicas, which may have run stale text until then",
			name, st->failsafe_active ?
				"is in fail-safe now, replication off" :
				"went through fail-safe",
			v->got, v->got == 1 ? "" : "s",
			v->got > v->want ? v->got - v->want : 0,
			st->failsafe_reason[0] ? st->failsafe_reason : "-");
		break;
	default:
		fprintf(fp, "%s", name);
	}
}

void kt_report_violation(struct kt_out *out, const struct kt_state *st,
			 const struct kt_violation *v, bool tap)
{
	struct json_writer *jw = out->jw;

	if (jw) {
		jsonw_start_object(jw);
		jsonw_string_field(jw, "check", kt_violation_names[v->kind]);
		bool bytes = v->kind == KT_V_BYTES ||
			     v->kind == KT_V_UNSETTLED;

		if (v->kind == KT_V_FAILSAFE) {
			jsonw_uint_field(jw, "events", v->got);
			jsonw_uint_field(jw, "reported_before", v->want);
			jsonw_bool_field(jw, "active", st->failsafe_active);
			jsonw_string_field(jw, "reason", st->failsafe_reason[0] ?
					   st->failsafe_reason : "-");
			jsonw_end_object(jw);
			return;
		}
		if (!bytes)	/* diff_fields has it */
			jsonw_int_field(jw, "node", v->node);
		if (v->kind == KT_V_CPU_ROOT)
			jsonw_int_field(jw, "cpu", v->cpu);
		if (v->kind == KT_V_TASK_ROOT || v->kind == KT_V_MM_ENTRY)
			jsonw_int_field(jw, "pid", v->cpu);
		if (bytes) {
			diff_fields(jw, st, v->diff);
		} else {
			jsonw_hex_field(jw, "va", v->va);
			jsonw_uint_field(jw, "len", v->len);
			jsonw_hex_field(jw, "pa", v->pa);
		}
		if (v->kind == KT_V_LOCALITY) {
			jsonw_int_field(jw, "pa_node", v->pa_node);
			jsonw_int_field(jw, "expected_node", v->expected_node);
		}
		bool table = v->kind == KT_V_STALE_TABLE ||
			     v->kind == KT_V_NOT_COVERED;

		if (table)
			jsonw_int_field(jw, "level", v->level);
		if (v->kind == KT_V_ROOT || table || v->kind == KT_V_MM_ENTRY)
			jsonw_uint_field(jw, "index", v->index);
		/* the run's first entry, as the node and the master have it */
		if (v->kind == KT_V_NOT_COVERED)
			jsonw_uint_field(jw, "entries", v->entries);
		if (v->kind == KT_V_ROOT || table ||
		    v->kind == KT_V_CPU_ROOT || v->kind == KT_V_MM_ENTRY ||
		    v->kind == KT_V_TASK_ROOT) {
			jsonw_hex_field(jw, "got", v->got);
			jsonw_hex_field(jw, "want", v->want);
		}
		jsonw_end_object(jw);
		return;
	}
	if (tap)
		fprintf(out->fp, "# ");
	violation_text(out->fp, st, v);
	fputc('\n', out->fp);
}

void kt_report_abort(struct kt_out *out, const char *msg)
{
	if (!out->jw) {
		kt_out_error(out, "%s", msg);
		return;
	}
	jsonw_end_array(out->jw);
	jsonw_string_field(out->jw, "error", msg);
	jsonw_end_object(out->jw);
}

void kt_report_verify_end(struct kt_out *out,
			  const struct kt_verify_stats *stats, bool tap)
{
	int k;

	unsigned int unsettled = stats->count[KT_V_UNSETTLED];
	unsigned int diverged = stats->total - unsettled;

	if (out->jw) {
		jsonw_end_array(out->jw);
		jsonw_bool_field(out->jw, "healthy", !stats->total);
		/* false with healthy false: the check could not conclude */
		jsonw_bool_field(out->jw, "diverged", diverged);
		jsonw_uint_field(out->jw, "violation_count", diverged);
		jsonw_name(out->jw, "counts");
		jsonw_start_object(out->jw);
		for (k = 0; k < KT_V_NR; k++)
			jsonw_uint_field(out->jw, kt_violation_names[k],
					 stats->count[k]);
		jsonw_end_object(out->jw);
		jsonw_uint_field(out->jw, "nodes_checked", stats->nodes);
		jsonw_uint_field(out->jw, "mappings_checked", stats->mappings);
		jsonw_uint_field(out->jw, "compared_bytes",
				 stats->compared_bytes);
		jsonw_uint_field(out->jw, "ranges_reread", stats->rechecked);
		jsonw_uint_field(out->jw, "patches_in_flight", stats->transient);
		jsonw_end_object(out->jw);
		return;
	}
	if (tap) {
		for (k = 0; k < KT_V_NR; k++) {
			if (k == KT_V_NOT_COVERED && stats->count[k]) {
				fprintf(out->fp, "ok %d - %s # SKIP %u run%s of node table entries no listed module explains\n",
					k + 1, kt_violation_names[k],
					stats->count[k],
					stats->count[k] == 1 ? "" : "s");
				continue;
			}
			fprintf(out->fp, "%s %d - %s (%u violation%s)\n",
				stats->count[k] ? "not ok" : "ok", k + 1,
				kt_violation_names[k], stats->count[k],
				stats->count[k] == 1 ? "" : "s");
		}
		fprintf(out->fp, "1..%d\n", KT_V_NR);
		return;
	}
	fprintf(out->fp,
		"verify: %s: %u violation%s; %u nodes, %" PRIu64 " mappings, %" PRIu64 " bytes compared",
		diverged ? "DIVERGED" : unsettled ? "UNSETTLED" : "healthy",
		diverged, diverged == 1 ? "" : "s", stats->nodes,
		stats->mappings, stats->compared_bytes);
	if (stats->transient)
		fprintf(out->fp, "; %" PRIu64 " range%s caught mid-patch, equal at rest",
			stats->transient, stats->transient == 1 ? "" : "s");
	if (unsettled)
		fprintf(out->fp, "; %u range%s never at rest under patching: not judged",
			unsettled, unsettled == 1 ? "" : "s");
	if (stats->count[KT_V_NOT_COVERED])
		fprintf(out->fp, "; %u run%s of table entries not covered by the module list: not judged",
			stats->count[KT_V_NOT_COVERED],
			stats->count[KT_V_NOT_COVERED] == 1 ? "" : "s");
	fputc('\n', out->fp);
}

void kt_report_walk_begin(struct kt_out *out)
{
	if (!out->jw)
		return;
	jsonw_start_object(out->jw);
	jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
	jsonw_name(out->jw, "mappings");
	jsonw_start_array(out->jw);
}

void kt_report_mapping(struct kt_out *out, const struct kt_target *t,
		       int node, const char *region, const struct kt_mapping *m,
		       bool levels)
{
	int skip = KT_MAX_LEVELS - (int)t->geo.levels, l;
	const char *level = t->arch->level_names[m->level + skip];
	int pa_node = m->present ? kt_state_pa_node(t->st, m->pa) : -1;
	char flags[32];

	kt_mapping_flags(m, flags, sizeof(flags));
	if (out->jw) {
		jsonw_start_object(out->jw);
		jsonw_int_field(out->jw, "node", node);
		if (region)
			jsonw_string_field(out->jw, "region", region);
		jsonw_hex_field(out->jw, "va", m->va);
		jsonw_uint_field(out->jw, "size", m->size);
		jsonw_string_field(out->jw, "level", level);
		jsonw_string_field(out->jw, "flags", flags);
		jsonw_bool_field(out->jw, "present", m->present);
		jsonw_hex_field(out->jw, "pa", m->pa);
		jsonw_int_field(out->jw, "pa_node", pa_node);
		if (levels) {
			jsonw_name(out->jw, "entries");
			jsonw_start_array(out->jw);
			for (l = 0; l <= m->level; l++) {
				jsonw_start_object(out->jw);
				jsonw_string_field(out->jw, "level",
						   t->arch->level_names[l + skip]);
				jsonw_hex_field(out->jw, "table_pa", m->table_pa[l]);
				jsonw_hex_field(out->jw, "entry", m->entry[l]);
				jsonw_end_object(out->jw);
			}
			jsonw_end_array(out->jw);
		}
		jsonw_end_object(out->jw);
		return;
	}
	if (levels) {
		for (l = 0; l <= m->level; l++)
			fprintf(out->fp, "%-4s table 0x%-14" PRIx64 " entry 0x%016" PRIx64 "\n",
				t->arch->level_names[l + skip], m->table_pa[l],
				m->entry[l]);
	}
	fprintf(out->fp,
		"node %d 0x%016" PRIx64 "-0x%016" PRIx64 " %8" PRIu64 "K %-4s %-14s pa 0x%-12" PRIx64 " node %d%s%s\n",
		node, m->va, m->va + m->size, m->size >> 10, level, flags, m->pa,
		pa_node, region ? " " : "", region ? region : "");
}

void kt_report_walk_end(struct kt_out *out)
{
	if (!out->jw)
		return;
	jsonw_end_array(out->jw);
	jsonw_end_object(out->jw);
}

void kt_report_version(struct kt_out *out, const char *version)
{
	if (!out->json) {
		fprintf(out->fp, "%s %s\nreads: debugfs ABI %d, vmcore descriptor %d\n",
			out->prog, version, KTREPL_ABI_VERSION,
			KTREPL_ABI_VERSION);
		return;
	}
	jsonw_start_object(out->jw);
	jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
	jsonw_string_field(out->jw, "program", out->prog);
	jsonw_string_field(out->jw, "program_version", version);
	jsonw_uint_field(out->jw, "abi", KTREPL_ABI_VERSION);
	jsonw_end_object(out->jw);
}
