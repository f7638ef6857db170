/*
 * term: the one module that owns the terminal (ncurses). Everything else in
 * `provisor top` draws into a canvas; term copies it out, reads keys with a
 * timeout (blocking, never spinning), and puts the terminal back on exit,
 * on fatal signals and on allocation failure.
 */
#ifndef TUI_TERM_H
#define TUI_TERM_H

#include "tui/canvas.h"

enum term_key {
	TERM_KEY_NONE = -1,	/* timeout or interrupted: nothing to do */
	TERM_KEY_ERROR = -2,	/* input is gone (hangup, EOF, error) */
	TERM_KEY_RESIZE = -3,
	TERM_K_UP = 0x110000, TERM_K_DOWN, TERM_K_PGUP, TERM_K_PGDN, TERM_K_HOME,
	TERM_K_END, TERM_K_BTAB, TERM_K_F1, TERM_K_BACKSPACE, TERM_K_ENTER, TERM_K_ESC,
};

/* Take the terminal: 0, or -1 with a message on stderr (no terminal, or
 * TERM unknown). color: use colours if the terminal has them. */
int term_open(int color, int ascii);
/* Give it back (idempotent; also registered with atexit). */
void term_close(void);
void term_size(int *rows, int *cols);
void term_draw(const struct canvas *cv);
/* Wait up to timeout_ms for a key: a character, a TERM_K_*, or one of the
 * negative codes above. */
int term_key(int timeout_ms);
/* The same, also waking when also->fd (if >= 0) has also->events: then
 * also->revents says so (and the answer is TERM_KEY_NONE unless a key
 * came too). */
struct pollfd;
int term_key_also(int timeout_ms, struct pollfd *also);
/* Set by SIGTERM, SIGINT, SIGHUP, SIGQUIT: the caller should exit cleanly. */
extern volatile int term_quit;
/* Restore the terminal, print msg, exit(1): for allocation failure. */
void term_fatal(const char *msg) __attribute__((noreturn));

#endif
