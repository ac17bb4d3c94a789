/*
 * The full-screen terminal stk top draws on, through ncurses (built static
 * with the common terminal descriptions compiled in, so a host without a
 * terminfo database works): the alternate screen, keys without echo, the
 * cursor hidden, colours unless NO_COLOR is set or the terminal has none.
 * The terminal is given back on every way out: close on a normal exit
 * (q, Ctrl-C and SIGTERM end the applet's loop), and a handler for the
 * signals of a crash that restores it before the process dies.
 */
#ifndef STK_TERMINAL_H
#define STK_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/view/view_table.h"

/* Keys besides printable characters, as stk_term_key returns them. */
enum {
	STK_KEY_NONE = -1,
	STK_KEY_UP = 0x1000,
	STK_KEY_DOWN,
	STK_KEY_LEFT,
	STK_KEY_RIGHT,
	STK_KEY_PGUP,
	STK_KEY_PGDN,
	STK_KEY_HOME,
	STK_KEY_END,
	STK_KEY_ENTER,
	STK_KEY_ESC,
	STK_KEY_BACKSPACE,
	STK_KEY_RESIZE,
	STK_KEY_F1,
};

/* What one screen shows, top to bottom. */
#define STK_SCREEN_HEAD_LINES 8
struct stk_screen {
	const char *head[STK_SCREEN_HEAD_LINES]; /* the first line is the title bar */
	size_t n_head;
	const struct stk_vtable *table;          /* may be NULL */
	const char *empty;                       /* said in place of a table without rows */
	const char *status;                      /* the line above the key bar: a message or a prompt */
	bool status_is_prompt;                   /* draw the cursor after it */
	const char *keys;                        /* the key bar: "Enter threads  / search  q quit" */
};

struct stk_term;

/* The terminal on stdin/stdout; NULL with err set (not a terminal, unknown TERM, ...). */
struct stk_term *stk_term_open(char *err, size_t len);
/* Gives the terminal back (main screen, cursor, modes). NULL is fine. */
void stk_term_close(struct stk_term *t);
/* The descriptor to wait on for keys. */
int stk_term_fd(const struct stk_term *t);
/* The next key waiting (never blocks), STK_KEY_NONE when none. */
int stk_term_key(struct stk_term *t);
/* After SIGWINCH: takes the new size. */
void stk_term_resized(struct stk_term *t);
/* Rows of the table a screen with n_head lines can show. */
size_t stk_term_table_rows(const struct stk_term *t, size_t n_head);
void stk_term_draw(struct stk_term *t, const struct stk_screen *s);
bool stk_term_color(const struct stk_term *t);
/* "ncurses 6.4.20221231", for stk --version. */
const char *stk_term_library_version(void);

#endif
