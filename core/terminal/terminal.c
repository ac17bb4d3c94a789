/* The terminal of stk top (terminal.h): ncurses set up, drawn on, and always given back. */
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "core/terminal/terminal.h"

enum { PAIR_BAR = 1, PAIR_SELECTED, PAIR_RUN, PAIR_RUNQ, PAIR_DISK, PAIR_STOPPED };

struct stk_term {
	SCREEN *screen;
	bool color;
	bool cursor_shown;
};

/*
 * What a crash handler writes to give the terminal back: set once in
 * stk_term_open before the handlers are installed, only read after. A
 * signal handler can reach nothing else, so this one piece of state lives
 * outside the applet.
 */
static struct {
	struct termios saved;
	char restore[256];
	size_t n;
} crash_restore;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* Async-signal-safe: write(2) and tcsetattr(3) only, then the signal again with its default action. */
static void on_crash(int sig)
{
	ssize_t w = write(STDOUT_FILENO, crash_restore.restore, crash_restore.n);
	(void)w;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &crash_restore.saved);
	raise(sig);
}

static void append_cap(const char *name)
{
	char *s = tigetstr(name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (crash_restore.n + n < sizeof(crash_restore.restore)) {
		memcpy(crash_restore.restore + crash_restore.n, s, n);
		crash_restore.n += n;
	}
}

static void arm_crash_restore(void)
{
	struct sigaction sa;

	crash_restore.n = 0;
	append_cap("sgr0");
	append_cap("cnorm");
	append_cap("rmcup");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sa.sa_flags = (int)SA_RESETHAND; /* the second time is the default action: the process dies as it would have */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
}

static void disarm_crash_restore(void)
{
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		signal(crash_signals[i], SIG_DFL);
}

static bool no_color_asked(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v; /* no-color.org: present and not empty */
}

struct stk_term *stk_term_open(char *err, size_t len)
{
	int status = 0;
	const char *term = getenv("TERM");

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		snprintf(err, len, "%s is not a terminal", isatty(STDOUT_FILENO) ? "stdin" : "stdout");
		return NULL;
	}
	if (!term || !*term) {
		snprintf(err, len, "TERM is not set: say which terminal this is (e.g. TERM=xterm)");
		return NULL;
	}
	if (setupterm(NULL, STDOUT_FILENO, &status) != OK) {
		snprintf(err, len, "TERM=%.64s: %s", term,
			 status == 0 ? "unknown terminal type (and not one of those built into stk)" : "no terminfo database");
		return NULL;
	}
	char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		snprintf(err, len, "TERM=%.64s cannot move the cursor", term);
		return NULL;
	}
	struct stk_term *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (tcgetattr(STDIN_FILENO, &crash_restore.saved)) {
		snprintf(err, len, "reading the terminal's modes: %s", strerror(errno));
		free(t);
		return NULL;
	}
	setlocale(LC_CTYPE, ""); /* UTF-8 names drawn as such where the terminal says it takes them */
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		snprintf(err, len, "TERM=%.64s: the terminal could not be set up", term);
		free(t);
		return NULL;
	}
	set_term(t->screen);
	arm_crash_restore();
	cbreak(); /* Ctrl-C stays a signal: the applet's loop ends on it */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25); /* Esc alone is a key here, not the start of a sequence for a second */
	curs_set(0);
	if (has_colors() && !no_color_asked() && start_color() == OK) {
		use_default_colors();
		init_pair(PAIR_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_WHITE);
		init_pair(PAIR_RUN, COLOR_GREEN, -1);
		init_pair(PAIR_RUNQ, COLOR_YELLOW, -1);
		init_pair(PAIR_DISK, COLOR_RED, -1);
		init_pair(PAIR_STOPPED, COLOR_MAGENTA, -1);
		t->color = true;
	}
	return t;
}

void stk_term_close(struct stk_term *t)
{
	if (!t)
		return;
	curs_set(1);
	endwin();
	delscreen(t->screen);
	disarm_crash_restore();
	free(t);
}

int stk_term_fd(const struct stk_term *t)
{
	(void)t;
	return STDIN_FILENO;
}

const char *stk_term_library_version(void)
{
	return curses_version();
}

bool stk_term_color(const struct stk_term *t)
{
	return t->color;
}

int stk_term_key(struct stk_term *t)
{
	(void)t;
	int c = getch();

	switch (c) {
	case ERR: return STK_KEY_NONE;
	case KEY_UP: return STK_KEY_UP;
	case KEY_DOWN: return STK_KEY_DOWN;
	case KEY_LEFT: return STK_KEY_LEFT;
	case KEY_RIGHT: return STK_KEY_RIGHT;
	case KEY_PPAGE: return STK_KEY_PGUP;
	case KEY_NPAGE: return STK_KEY_PGDN;
	case KEY_HOME: return STK_KEY_HOME;
	case KEY_END: return STK_KEY_END;
	case KEY_ENTER: case '\n': case '\r': return STK_KEY_ENTER;
	case 27: return STK_KEY_ESC;
	case KEY_BACKSPACE: case 127: case 8: return STK_KEY_BACKSPACE;
	case KEY_RESIZE: return STK_KEY_RESIZE;
	case KEY_F(1): return STK_KEY_F1;
	default: return c >= 0 && c < 0x1000 ? c : STK_KEY_NONE;
	}
}

void stk_term_resized(struct stk_term *t)
{
	struct winsize ws;

	(void)t;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
}

size_t stk_term_table_rows(const struct stk_term *t, size_t n_head)
{
	(void)t;
	long rows = (long)LINES - (long)n_head - 3; /* the table's titles, the status line, the key bar */

	return rows > 0 ? (size_t)rows : 0;
}

/* A full-width line in attr: text, then blanks to the edge. */
static void bar_line(int y, const char *text, attr_t attr)
{
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(attr);
}

static attr_t bar_attr(const struct stk_term *t)
{
	return t->color ? COLOR_PAIR(PAIR_BAR) : A_REVERSE;
}

static attr_t state_attr(const struct stk_term *t, const char *state)
{
	if (!t->color)
		return strcmp(state, "RUN") == 0 || strcmp(state, "DISK") == 0 ? A_BOLD : A_NORMAL;
	if (strcmp(state, "RUN") == 0)
		return COLOR_PAIR(PAIR_RUN);
	if (strcmp(state, "RUNQ") == 0)
		return COLOR_PAIR(PAIR_RUNQ);
	if (strcmp(state, "DISK") == 0)
		return COLOR_PAIR(PAIR_DISK) | A_BOLD;
	if (strcmp(state, "STOPPED") == 0 || strcmp(state, "ZOMBIE") == 0)
		return COLOR_PAIR(PAIR_STOPPED);
	return A_NORMAL;
}

/*
 * Each column as wide as its widest title or cell among the rows drawn, and
 * a blank, but at most half the screen; the last takes what is left.
 */
static void column_widths(const struct stk_vtable *tb, size_t first, size_t rows, int *w)
{
	size_t most = COLS > 8 ? (size_t)COLS / 2 : 4;

	for (size_t c = 0; c < tb->n_cols; c++) {
		size_t m = strlen(tb->cols[c].title) + 1; /* room for the sort mark */

		for (size_t i = first; i < first + rows && i < tb->n_shown; i++) {
			size_t n = strlen(stk_vtable_shown(tb, i)->cells[c]);
			if (n > m)
				m = n;
		}
		m++;
		w[c] = (int)(m > most ? most : m);
	}
}

static void draw_cells(int y, const struct stk_vtable *tb, const char *const *cells, const int *w, attr_t base,
		       const struct stk_term *t, int state_col)
{
	int x = 0;

	for (size_t c = 0; c < tb->n_cols && x < COLS; c++) {
		int width = c + 1 == tb->n_cols ? COLS - x : w[c];
		char buf[512];

		if (width > COLS - x)
			width = COLS - x;
		if (tb->cols[c].numeric)
			snprintf(buf, sizeof(buf), "%*.*s", width - 1, width - 1, cells[c]);
		else
			snprintf(buf, sizeof(buf), "%-*.*s", width - 1, width - 1, cells[c]);
		attr_t a = base;
		if ((int)c == state_col && base == A_NORMAL)
			a = state_attr(t, cells[c]);
		attron(a);
		mvaddnstr(y, x, buf, width);
		attroff(a);
		x += width;
	}
}

static void draw_table(struct stk_term *t, const struct stk_vtable *tb, int y, size_t rows)
{
	const char *titles[STK_VT_MAX_COLS];
	char sorted[64];
	int w[STK_VT_MAX_COLS], state_col = -1;

	column_widths(tb, tb->top, rows, w);
	for (size_t c = 0; c < tb->n_cols; c++) {
		titles[c] = tb->cols[c].title;
		if (strcmp(titles[c], "STATE") == 0)
			state_col = (int)c;
	}
	/* the sorted column's title says which way: v largest or last first, ^ the other */
	bool down = tb->cols[tb->sort_col].numeric != tb->sort_reverse;
	snprintf(sorted, sizeof(sorted), "%s%s", titles[tb->sort_col], down ? "v" : "^");
	titles[tb->sort_col] = sorted;
	attron(bar_attr(t));
	mvhline(y, 0, ' ', COLS);
	attroff(bar_attr(t));
	draw_cells(y, tb, titles, w, bar_attr(t), t, -1);
	for (size_t i = 0; i < rows && tb->top + i < tb->n_shown; i++) {
		const struct stk_vt_row *r = stk_vtable_shown(tb, tb->top + i);
		bool selected = tb->top + i == tb->sel;
		attr_t a = selected ? (t->color ? COLOR_PAIR(PAIR_SELECTED) | A_BOLD : A_REVERSE) : A_NORMAL;

		if (selected) {
			attron(a);
			mvhline(y + 1 + (int)i, 0, ' ', COLS);
			attroff(a);
		}
		draw_cells(y + 1 + (int)i, tb, (const char *const *)r->cells, w, a, t, state_col);
	}
}

void stk_term_draw(struct stk_term *t, const struct stk_screen *s)
{
	size_t rows = stk_term_table_rows(t, s->n_head);

	erase();
	for (size_t i = 0; i < s->n_head && (int)i < LINES; i++) {
		if (i == 0)
			bar_line(0, s->head[0], bar_attr(t) | A_BOLD);
		else
			mvaddnstr((int)i, 0, s->head[i], COLS);
	}
	if (s->table && (int)s->n_head < LINES) {
		draw_table(t, s->table, (int)s->n_head, rows);
		if (!s->table->n_shown && s->empty)
			mvaddnstr((int)s->n_head + 2, 2, s->empty, COLS - 2);
	}
	if (LINES >= 2 && s->status)
		mvaddnstr(LINES - 2, 0, s->status, COLS);
	if (s->keys)
		bar_line(LINES - 1, s->keys, bar_attr(t));
	if (s->status_is_prompt != t->cursor_shown) {
		curs_set(s->status_is_prompt ? 1 : 0);
		t->cursor_shown = s->status_is_prompt;
	}
	if (s->status_is_prompt && s->status) {
		int x = (int)strlen(s->status);
		move(LINES - 2, x < COLS ? x : COLS - 1);
	}
	refresh();
}
