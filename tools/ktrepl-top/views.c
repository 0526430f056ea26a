// SPDX-License-Identifier: GPL-2.0
/* The orders batch frames and the TUI show rows in, and the TUI's sparkline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

static const char *const sort_names[][5] = {
	[VIEW_NODES] = { "node", "cpus", "samples", "local%", "remote%" },
	[VIEW_CPUS] = { "cpu", "node", "samples", "local%", "remote%" },
	[VIEW_FUNCS] = { "name", "remote", "local", "remote%", "node" },
	[VIEW_PROCS] = { "pid", "remote", "samples", "local%", "remote%" },
};

const char *top_sort_name(enum top_view view, int col)
{
	return col >= 1 && col <= 5 ? sort_names[view][col - 1] : "?";
}

/* sort keys: larger first, except the identity columns */
static double total_key(const struct kt_fetches *t, int col)
{
	switch (col) {
	case 3:
		return t->local + t->remote + t->unresolved;
	case 4:
		return kt_fetches_local_pct(t);
	case 5:
		return t->local + t->remote ? 100.0 - kt_fetches_local_pct(t) :
					      -1;
	}
	return 0;
}

static double fetch_key(const struct kt_fetches *by_class, int col)
{
	struct kt_fetches t = kt_fetches_total(by_class);

	return total_key(&t, col);
}

struct sort_ctx {
	const struct top *top;
	int col;
};

static struct sort_ctx sort_ctx;

static int cmp_double_desc(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_node(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b, c = 0;
	const struct kt_locality *loc = &sort_ctx.top->loc;

	if (sort_ctx.col == 2)
		c = loc->nodes[y].nr_cpus - loc->nodes[x].nr_cpus;
	else if (sort_ctx.col >= 3)
		c = cmp_double_desc(fetch_key(loc->nodes[x].text, sort_ctx.col),
				    fetch_key(loc->nodes[y].text, sort_ctx.col));
	return c ? c : x - y;
}

static int cmp_cpu(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b, c = 0;
	const struct kt_locality *loc = &sort_ctx.top->loc;

	if (sort_ctx.col == 2)
		c = loc->numa->cpu_node[x] - loc->numa->cpu_node[y];
	else if (sort_ctx.col >= 3)
		c = cmp_double_desc(fetch_key(loc->cpus[x].text, sort_ctx.col),
				    fetch_key(loc->cpus[y].text, sort_ctx.col));
	return c ? c : x - y;
}

static int cmp_func(const void *a, const void *b)
{
	const struct kt_loc_func *f = &sort_ctx.top->loc.funcs[*(const size_t *)a];
	const struct kt_loc_func *g = &sort_ctx.top->loc.funcs[*(const size_t *)b];
	double fp = f->local + f->remote ? 100.0 * f->remote / (f->local + f->remote) : 0;
	double gp = g->local + g->remote ? 100.0 * g->remote / (g->local + g->remote) : 0;
	int c = 0;

	switch (sort_ctx.col) {
	case 1:
		c = strcmp(f->name, g->name);
		break;
	case 3:
		c = cmp_double_desc(f->local, g->local);
		break;
	case 4:
		c = cmp_double_desc(fp, gp);
		break;
	case 5:
		c = f->node - g->node;
		break;
	}
	if (!c)
		c = cmp_double_desc(f->remote, g->remote);
	return c ? c : strcmp(f->name, g->name);
}

static int cmp_proc(const void *a, const void *b)
{
	const struct kt_loc_proc *p = &sort_ctx.top->loc.procs[*(const size_t *)a];
	const struct kt_loc_proc *q = &sort_ctx.top->loc.procs[*(const size_t *)b];
	struct kt_fetches pt = kt_loc_proc_total(p), qt = kt_loc_proc_total(q);
	int c = 0;

	switch (sort_ctx.col) {
	case 1:
		c = p->pid < q->pid ? -1 : p->pid > q->pid;
		break;
	case 3:
	case 4:
	case 5:
		c = cmp_double_desc(total_key(&pt, sort_ctx.col),
				    total_key(&qt, sort_ctx.col));
		break;
	}
	if (!c)
		c = cmp_double_desc(pt.remote, qt.remote);
	if (!c)
		c = cmp_double_desc(pt.local + pt.remote + pt.unresolved,
				    qt.local + qt.remote + qt.unresolved);
	return c ? c : (p->pid < q->pid ? -1 : p->pid > q->pid);
}

static void proc_comm(uint32_t pid, char *buf, size_t len)
{
	char path[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "-");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

void top_proc_rows(const struct top *top, int col, struct kt_top_proc *rows,
		   size_t max, size_t *nr)
{
	size_t *order, i, n = top->loc.nr_procs;

	*nr = 0;
	order = calloc(n ? n : 1, sizeof(*order));
	if (!order)
		return;
	for (i = 0; i < n; i++)
		order[i] = i;
	sort_ctx = (struct sort_ctx){ top, col };
	qsort(order, n, sizeof(*order), cmp_proc);
	for (i = 0; i < n && *nr < max; i++) {
		struct kt_top_proc *row = &rows[(*nr)++];

		memset(row, 0, sizeof(*row));
		row->p = &top->loc.procs[order[i]];
		proc_comm(row->p->pid, row->comm, sizeof(row->comm));
		kt_top_proc_describe(&top->loc, &top->st, row);
	}
	free(order);
}

void top_sorted_nodes(const struct top *top, int col, int *order, int *nr)
{
	int i;

	*nr = 0;
	for (i = 0; i < top->numa.nr_nodes; i++)
		order[(*nr)++] = i;
	sort_ctx = (struct sort_ctx){ top, col };
	qsort(order, *nr, sizeof(*order), cmp_node);
}

void top_sorted_cpus(const struct top *top, int col, int *order, int *nr)
{
	int i;

	*nr = 0;
	for (i = 0; i < top->numa.nr_cpus; i++)
		if (top->numa.cpu_node[i] >= 0)
			order[(*nr)++] = i;
	sort_ctx = (struct sort_ctx){ top, col };
	qsort(order, *nr, sizeof(*order), cmp_cpu);
}

/* only functions with remote fetches: the view is about those */
void top_sorted_funcs(const struct top *top, int col, size_t *order,
		      size_t *nr)
{
	size_t i;

	*nr = 0;
	for (i = 0; i < top->loc.nr_funcs; i++)
		if (top->loc.funcs[i].remote)
			order[(*nr)++] = i;
	sort_ctx = (struct sort_ctx){ top, col };
	qsort(order, *nr, sizeof(*order), cmp_func);
}

/* ASCII, so it survives every terminal and a captured pane alike */
void top_sparkline(const struct kt_loc_node *n, char *buf, int width)
{
	static const char levels[] = "_.-=+*#";
	int i, first = n->nr_history > width ? n->nr_history - width : 0;

	for (i = 0; first + i < n->nr_history; i++) {
		double pct = n->history[first + i];

		buf[i] = pct < 0 ? ' ' :
			 levels[(int)(pct / 100.0 * (sizeof(levels) - 2) + 0.5)];
	}
	buf[i] = '\0';
}
