// SPDX-License-Identifier: GPL-2.0
/* The ncurses front end: drawing and keys only, over the frame model. */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

/* below this the tables cannot be drawn; a one-line notice is */
#define MIN_LINES 8
#define MIN_COLS 50
#define TABLE_TOP 4

struct tui {
	enum top_view view;
	int sort[3];		/* per view, 1..5 */
	int scroll;
	int rows;		/* rows the current view has */
	bool help;
	bool quit;
};

static const char *const view_names[] = {
	[VIEW_NODES] = "nodes",
	[VIEW_CPUS] = "cpus",
	[VIEW_FUNCS] = "functions",
};

/* "~" after a share that rests on too few samples to mean much */
static void pct_cell(char *buf, size_t len, const struct kt_fetches *f,
		     bool remote)
{
	double pct = kt_fetches_local_pct(f);

	if (pct < 0)
		snprintf(buf, len, "%7s", "-");
	else
		snprintf(buf, len, "%6.1f%c", remote ? 100.0 - pct : pct,
			 kt_fetches_enough(f) ? ' ' : '~');
}

static void draw_header(const struct top *top, const struct tui *ui)
{
	const struct kt_locality *loc = &top->loc;
	char overhead[32] = "-";

	if (top_replica_overhead(top))
		top_format_bytes(top_replica_overhead(top), overhead,
				 sizeof(overhead));
	mvprintw(0, 0, "ktrepl-top  replication=%s  nodes=%d  master=%d  replica/node=%s  patches=%" PRIu64 " (missed %" PRIu64 ")",
		 top->have_module ? kt_activation_name(top->st.activation) : "none (no ktrepl)",
		 top->numa.nr_nodes, top->st.master_node, overhead,
		 top->st.patches, top->st.patches_missed);
	mvprintw(1, 0, "%s @%uHz (got %.0f-%.0f)  delay %.1fs  frame %ld  samples %" PRIu64 "  idle %" PRIu64 "  lost %" PRIu64 " (%.1f%%)",
		 kt_sampler_event(top->sampler), top->opts.rate_hz,
		 top->fidelity.min_hz, top->fidelity.mean_hz, top->opts.delay,
		 top->frame, loc->samples, loc->idle, loc->lost,
		 top->fidelity.lost_pct);
	/* doubts are shown, never hidden: a figure is only as good as this */
	if (top->frame && (top->fidelity.lossy || top->fidelity.slow)) {
		attron(A_BOLD);
		printw("  ! %s%s%s", top->fidelity.lossy ? "LOSSY" : "",
		       top->fidelity.lossy && top->fidelity.slow ? "," : "",
		       top->fidelity.slow ? "SLOW" : "");
		attroff(A_BOLD);
	}
	mvprintw(2, 0, "view: %s  sort: %s   n/c/f views  1-5 sort  d delay  h help  q quit   ~ <100 samples  ! rate <80%%",
		 view_names[ui->view], top_sort_name(ui->view, ui->sort[ui->view]));
	if (top->refresh_error[0])
		mvprintw(3, 0, "warning: %s", top->refresh_error);
}

static void draw_row(int y, const char *text, bool header)
{
	if (header)
		attron(A_REVERSE);
	mvprintw(y, 0, "%-*.*s", COLS, COLS, text);
	if (header)
		attroff(A_REVERSE);
}

static int draw_nodes(const struct top *top, struct tui *ui, int first,
		      int height)
{
	int order[KT_NUMA_MAX_NODES], nr, i, y = 0;
	char line[512];

	snprintf(line, sizeof(line), "%4s %5s %8s %7s %7s %7s %7s  %s", "NODE",
		 "CPUS", "SAMPLES", "LOCAL%", "REMOTE%", "CORE_L%", "MOD_L%",
		 "TREND (local%)");
	draw_row(TABLE_TOP, line, true);
	top_sorted_nodes(top, ui->sort[VIEW_NODES], order, &nr);
	for (i = first; i < nr && y < height; i++) {
		const struct kt_loc_node *n = &top->loc.nodes[order[i]];
		struct kt_fetches t = kt_fetches_total(n->text);
		char l[16], r[16], c[16], m[16], spark[KT_LOC_HISTORY + 1];
		int width = COLS - 57;

		pct_cell(l, sizeof(l), &t, false);
		pct_cell(r, sizeof(r), &t, true);
		pct_cell(c, sizeof(c), &n->text[KT_TEXT_CORE], false);
		pct_cell(m, sizeof(m), &n->text[KT_TEXT_MODULE], false);
		if (width > KT_LOC_HISTORY)
			width = KT_LOC_HISTORY;
		if (width < 0)
			width = 0;
		top_sparkline(n, spark, width);
		snprintf(line, sizeof(line), "%4d %5d %8" PRIu64 " %s %s %s %s  %s",
			 order[i], n->nr_cpus, t.local + t.remote + t.unresolved,
			 l, r, c, m, spark);
		draw_row(TABLE_TOP + 1 + y++, line, false);
	}
	return nr;
}

static int draw_cpus(const struct top *top, struct tui *ui, int first,
		     int height)
{
	int order[KT_NUMA_MAX_CPUS], nr, i, y = 0;
	char line[512];

	snprintf(line, sizeof(line), "%4s %5s %8s %7s %7s %7s %7s %7s", "CPU",
		 "NODE", "SAMPLES", "LOCAL%", "REMOTE%", "CORE_L%", "MOD_L%",
		 "HZ");
	draw_row(TABLE_TOP, line, true);
	top_sorted_cpus(top, ui->sort[VIEW_CPUS], order, &nr);
	for (i = first; i < nr && y < height; i++) {
		const struct kt_loc_cpu *c = &top->loc.cpus[order[i]];
		struct kt_fetches t = kt_fetches_total(c->text);
		char l[16], r[16], cl[16], ml[16];

		pct_cell(l, sizeof(l), &t, false);
		pct_cell(r, sizeof(r), &t, true);
		pct_cell(cl, sizeof(cl), &c->text[KT_TEXT_CORE], false);
		pct_cell(ml, sizeof(ml), &c->text[KT_TEXT_MODULE], false);
		snprintf(line, sizeof(line), "%4d %5d %8" PRIu64 " %s %s %s %s %6.0f%c",
			 order[i], top->numa.cpu_node[order[i]],
			 t.local + t.remote + t.unresolved, l, r, cl, ml,
			 kt_loc_cpu_hz(&top->loc, order[i], top->frame_ns),
			 top_cpu_rate_ok(top, order[i]) ? ' ' : '!');
		draw_row(TABLE_TOP + 1 + y++, line, false);
	}
	return nr;
}

static int draw_funcs(const struct top *top, struct tui *ui, int first,
		      int height)
{
	size_t *order = NULL, nr = 0, i;
	char line[512];
	int y = 0;

	snprintf(line, sizeof(line), "%8s %8s %7s %5s  %s", "REMOTE", "LOCAL",
		 "REMOTE%", "NODE", "FUNCTION (hot remote fetches)");
	draw_row(TABLE_TOP, line, true);
	if (top->loc.nr_funcs)
		order = calloc(top->loc.nr_funcs, sizeof(*order));
	if (order)
		top_sorted_funcs(top, ui->sort[VIEW_FUNCS], order, &nr);
	for (i = first; i < nr && y < height; i++) {
		const struct kt_loc_func *f = &top->loc.funcs[order[i]];

		snprintf(line, sizeof(line), "%8" PRIu64 " %8" PRIu64 " %7.1f %5d  %s",
			 f->remote, f->local,
			 100.0 * f->remote / (f->remote + f->local), f->node,
			 f->name);
		draw_row(TABLE_TOP + 1 + y++, line, false);
	}
	if (!nr)
		draw_row(TABLE_TOP + 1, "  (no remote fetches in this frame)",
			 false);
	free(order);
	return nr;
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"ktrepl-top: kernel text fetch locality per NUMA node",
		"",
		"  n      node view: local and remote share per node",
		"  c      CPU view",
		"  f      hot remote functions",
		"  1-5    sort by column 1..5 of the view",
		"  Up/Dn  scroll (PgUp/PgDn, Home)",
		"  d      set the refresh delay",
		"  h ?    this help (any key closes it)",
		"  q      quit",
		"",
		"local: the sampled instruction's page, through the tables",
		"the CPU had loaded, is on the CPU's own (memory) node.",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]) && (int)i < LINES; i++)
		mvprintw(i, 0, "%.*s", COLS, lines[i]);
}

static void draw(const struct top *top, struct tui *ui)
{
	int height = LINES - TABLE_TOP - 1;

	if (LINES < MIN_LINES || COLS < MIN_COLS) {
		erase();
		mvprintw(0, 0, "%.*s", COLS,
			 "ktrepl-top: terminal too small; enlarge it or use -b");
		refresh();
		return;
	}
	if (ui->help) {
		draw_help();
		refresh();
		return;
	}
	erase();
	draw_header(top, ui);
	if (ui->scroll < 0)
		ui->scroll = 0;
	switch (ui->view) {
	case VIEW_NODES:
		ui->rows = draw_nodes(top, ui, ui->scroll, height);
		break;
	case VIEW_CPUS:
		ui->rows = draw_cpus(top, ui, ui->scroll, height);
		break;
	case VIEW_FUNCS:
		ui->rows = draw_funcs(top, ui, ui->scroll, height);
		break;
	}
	refresh();
}

static void ask_delay(struct top *top)
{
	char buf[32] = "";
	double d;
	char *end;

	mvprintw(3, 0, "%-*s", COLS, "");
	mvprintw(3, 0, "delay in seconds (now %.1f): ", top->opts.delay);
	echo();
	curs_set(1);
	timeout(-1);
	getnstr(buf, sizeof(buf) - 1);
	noecho();
	curs_set(0);
	d = strtod(buf, &end);
	if (end != buf && d >= 0.1 && d <= 3600)
		top->opts.delay = d;
}

static void handle_key(struct top *top, struct tui *ui, int ch)
{
	if (ui->help && ch != KEY_RESIZE) {
		ui->help = false;
		return;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		ui->quit = true;
		break;
	case 'h':
	case '?':
		ui->help = true;
		break;
	case 'n':
		ui->view = VIEW_NODES;
		ui->scroll = 0;
		break;
	case 'c':
		ui->view = VIEW_CPUS;
		ui->scroll = 0;
		break;
	case 'f':
		ui->view = VIEW_FUNCS;
		ui->scroll = 0;
		break;
	case '1' ... '5':
		ui->sort[ui->view] = ch - '0';
		break;
	case KEY_UP:
		ui->scroll--;
		break;
	case KEY_DOWN:
		if (ui->scroll + 1 < ui->rows)
			ui->scroll++;
		break;
	case KEY_PPAGE:
		ui->scroll -= LINES - TABLE_TOP - 1;
		break;
	case KEY_NPAGE:
		ui->scroll += LINES - TABLE_TOP - 1;
		if (ui->scroll >= ui->rows)
			ui->scroll = ui->rows ? ui->rows - 1 : 0;
		break;
	case KEY_HOME:
		ui->scroll = 0;
		break;
	case 'd':
		ask_delay(top);
		break;
	}
}

/* waits for keys instead of sleeping; redraws what each key changes */
static int tui_tick(struct top *top, void *arg)
{
	struct tui *ui = arg;
	int ch;

	timeout(100);
	ch = getch();
	if (ch == ERR)
		return top_stop_requested() ? 1 : 0;
	handle_key(top, ui, ch);
	if (ui->quit)
		return 1;
	draw(top, ui);
	return 0;
}

int top_run_tui(struct top *top)
{
	struct tui ui = { .view = VIEW_NODES, .sort = { 1, 1, 2 } };
	struct kt_err err;
	int ret = 0;

	SCREEN *scr;

	top_install_signals();
	/* initscr() would exit on its own; newterm() lets us say why */
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		kt_err_clear(&err);
		kt_err_set(&err, ENOTTY,
			   "cannot start the terminal UI for TERM=%s (no terminfo entry, or not a terminal); use -b for batch mode",
			   getenv("TERM") ? getenv("TERM") : "(unset)");
		top_report_error(top, &err);
		return EXIT_TROUBLE;
	}
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	kt_err_clear(&err);
	draw(top, &ui);
	while (!top->opts.iterations || top->frame < top->opts.iterations) {
		ret = top_wait_frame(top, tui_tick, &ui, &err);
		if (ret < 0 || top_end_frame(top, &err)) {
			ret = -1;
			break;
		}
		draw(top, &ui);
		if (ret > 0)
			break;
	}
	endwin();
	delscreen(scr);
	if (ret < 0) {
		top_report_error(top, &err);
		return EXIT_TROUBLE;
	}
	return EXIT_OK;
}
