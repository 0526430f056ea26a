// SPDX-License-Identifier: GPL-2.0
/* The ncurses front end: drawing and keys only, over the frame model. */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "top.h"

/* below this the tables cannot be drawn; a one-line notice is */
#define MIN_LINES 8
#define MIN_COLS 50
#define TABLE_TOP 4

struct tui {
	enum top_view view;
	int sort[4];		/* per view, 1..5 */
	int scroll;
	int rows;		/* rows the current view has */
	bool help;
	bool quit;
};

static const char *const view_names[] = {
	[VIEW_NODES] = "nodes",
	[VIEW_CPUS] = "cpus",
	[VIEW_FUNCS] = "functions",
	[VIEW_PROCS] = "processes",
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

	if (kt_top_replica_overhead(&top->st))
		kt_top_format_bytes(kt_top_replica_overhead(&top->st),
				    overhead, sizeof(overhead));
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
	mvprintw(2, 0, "view: %s  sort: %s   n/c/f/p views  1-5 sort  d delay  h help  q quit   ~ <100 samples  ! rate <80%%",
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
			 kt_top_cpu_rate_ok(&top->loc, order[i], top->opts.rate_hz,
					    top->frame_ns) ? ' ' : '!');
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

/*
 * Which processes fetch kernel text remotely, and would gain from being
 * bound to their node (numactl --cpunodebind): BIND marks those.
 */
static int draw_procs(const struct top *top, struct tui *ui, int first,
		      int height)
{
	size_t nr = 0, i, max = top->loc.nr_procs;
	struct kt_top_proc *rows = NULL;
	char line[512];
	int y = 0;

	snprintf(line, sizeof(line), "%7s %-16s %-8s %-6s %4s %8s %7s %7s %4s",
		 "PID", "COMM", "NODES", "TABLES", "SET", "SAMPLES", "LOCAL%",
		 "REMOTE%", "BIND");
	draw_row(TABLE_TOP, line, true);
	if (max)
		rows = calloc(max, sizeof(*rows));
	if (rows)
		top_proc_rows(top, ui->sort[VIEW_PROCS], rows, max, &nr);
	for (i = first; i < nr && y < height; i++) {
		const struct kt_top_proc *row = &rows[i];
		struct kt_fetches t = kt_loc_proc_total(row->p);
		char nodes[64], l[16], r[16], set[16] = "-";

		kt_top_proc_nodes(row->p, nodes, sizeof(nodes));
		pct_cell(l, sizeof(l), &t, false);
		pct_cell(r, sizeof(r), &t, true);
		if (row->set_node >= 0)
			snprintf(set, sizeof(set), "%d", row->set_node);
		snprintf(line, sizeof(line), "%7u %-16s %-8s %-6s %4s %8" PRIu64 " %s %s %4s",
			 row->p->pid, row->comm, nodes, row->tables, set,
			 t.local + t.remote + t.unresolved, l, r,
			 row->to_bind ? "yes" : "-");
		draw_row(TABLE_TOP + 1 + y++, line, false);
	}
	if (!nr)
		draw_row(TABLE_TOP + 1, "  (no process fetched kernel text in this frame)",
			 false);
	free(rows);
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
		"  p      processes: BIND yes ran on one node, on the master's",
		"         tables (numactl --cpunodebind would make it local)",
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
	case VIEW_PROCS:
		ui->rows = draw_procs(top, ui, ui->scroll, height);
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
	case 'p':
		ui->view = VIEW_PROCS;
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

/*
 * The terminal as it was before curses, put back on every way out: endwin()
 * on the ordinary ones (q, -n, SIGINT, SIGTERM and SIGHUP through
 * top_stop_requested(), a failed frame), and from a signal handler for
 * those that end the process where it stands (SIGQUIT, abort(), a crash).
 * The handler only uses what is async-signal-safe: write(2) of the
 * terminfo strings prepared beforehand, tcsetattr(2), sigaction(2),
 * raise(3).
 */
static struct termios saved_tio;
static int tty_fd = -1;
static char undo_seq[256];	/* leave the screen: attributes, cursor, keypad */
static size_t undo_len;
static volatile sig_atomic_t tty_dirty;

static const int fatal_signals[] = {
	SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
};
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction fatal_old[NR_FATAL];	/* SIG_DFL, or a sanitizer's */

static void restore_terminal(void)
{
	if (!tty_dirty)
		return;
	tty_dirty = 0;
	/* a terminal that is gone takes neither: nothing more to do */
	if (undo_len && write(tty_fd, undo_seq, undo_len) < 0)
		undo_len = 0;
	tcsetattr(tty_fd, TCSANOW, &saved_tio);
}

/*
 * The terminal first, then what the signal did before (the default
 * action, or a sanitizer's report): sent with kill() or raise() (as
 * abort() does), it is raised again; a fault (si_code > 0) comes back
 * by itself when the instruction runs again.
 */
static void on_fatal(int sig, siginfo_t *si, void *ctx)
{
	int e = errno;
	size_t i;

	restore_terminal();
	for (i = 0; i < NR_FATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	errno = e;
	if (si->si_code <= 0)
		raise(sig);
}

/* a terminfo string without its padding ("$<5>"), appended to undo_seq */
static void add_undo(const char *cap)
{
	const char *s = tigetstr(cap);

	if (!s || s == (const char *)-1)
		return;
	while (*s && undo_len < sizeof(undo_seq) - 1) {
		if (s[0] == '$' && s[1] == '<' && strchr(s, '>')) {
			s = strchr(s, '>') + 1;
			continue;
		}
		undo_seq[undo_len++] = *s++;
	}
}

static void save_terminal(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_fatal,
		.sa_flags = SA_SIGINFO | SA_NODEFER,
	};
	size_t i;

	tty_fd = isatty(STDOUT_FILENO) ? STDOUT_FILENO :
		 isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	if (tty_fd < 0 || tcgetattr(tty_fd, &saved_tio)) {
		tty_fd = -1;
		return;
	}
	sigemptyset(&sa.sa_mask);
	/* an ignored signal stays ignored: it ends nothing */
	for (i = 0; i < NR_FATAL; i++)
		if (!sigaction(fatal_signals[i], NULL, &fatal_old[i]) &&
		    fatal_old[i].sa_handler != SIG_IGN)
			sigaction(fatal_signals[i], &sa, NULL);
	atexit(restore_terminal);
}

/* curses has set up the screen: from here on it has to be undone */
static void terminal_taken(void)
{
	if (tty_fd < 0)
		return;
	undo_len = 0;
	add_undo("sgr0");
	add_undo("cnorm");
	add_undo("rmkx");
	add_undo("rmcup");
	tty_dirty = 1;
}

int top_run_tui(struct top *top)
{
	struct tui ui = { .view = top->opts.top_procs ? VIEW_PROCS : VIEW_NODES,
			  .sort = { 1, 1, 2, 2 } };
	struct kt_err err;
	int ret = 0;

	SCREEN *scr;

	top_install_signals();
	save_terminal();
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
	terminal_taken();
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
	tty_dirty = 0;
	delscreen(scr);
	if (ret < 0) {
		top_report_error(top, &err);
		return EXIT_TROUBLE;
	}
	return EXIT_OK;
}
