/*
 * term: ncurses, and only here (see term.h). Keys are waited for with
 * poll() on stdin, so the process sleeps between refreshes and a hangup
 * (POLLHUP, EOF) is seen as an error instead of an endless stream of ERR;
 * signals interrupt the wait, which is how SIGWINCH (ncurses' handler
 * turns it into KEY_RESIZE) and SIGTERM reach the loop at once. A view
 * that also waits for a socket (top --fleet: its database) waits for
 * both in the same poll (term_key_also).
 */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/term.h"

volatile int term_quit;
static int open_, ascii_;
static SCREEN *scr;
static chtype attr_map[CV_NATTRS];

static void on_quit(int sig)
{
	(void)sig;
	term_quit = 1;
}

/* A fatal signal: put the terminal back first, then die of the signal. */
static void on_fatal(int sig)
{
	if (open_)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void signals(void)
{
	struct sigaction q = { .sa_handler = on_quit }, f = { .sa_handler = on_fatal };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	sigaction(SIGTERM, &q, NULL);
	sigaction(SIGINT, &q, NULL);
	sigaction(SIGHUP, &q, NULL);
	sigaction(SIGQUIT, &q, NULL);
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &f, NULL);
}

static void attrs(int color)
{
	static const short fg[CV_NATTRS] = { [CV_OK] = COLOR_GREEN, [CV_INFO] = COLOR_CYAN,
					     [CV_WARN] = COLOR_YELLOW, [CV_BAD] = COLOR_RED };

	attr_map[CV_NORMAL] = A_NORMAL;
	attr_map[CV_BAR] = A_REVERSE;
	attr_map[CV_HEAD] = A_BOLD;
	attr_map[CV_DIM] = A_DIM;
	attr_map[CV_SEL] = A_REVERSE | A_BOLD;
	attr_map[CV_OK] = A_BOLD;
	attr_map[CV_INFO] = A_NORMAL;
	attr_map[CV_WARN] = A_UNDERLINE;
	attr_map[CV_BAD] = A_BOLD | A_UNDERLINE;
	if (!color || !has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	for (int a = 0; a < CV_NATTRS; a++)
		if (fg[a] && init_pair((short)a, fg[a], -1) != ERR)
			attr_map[a] = COLOR_PAIR(a) | (a == CV_BAD || a == CV_OK ? A_BOLD : 0);
}

int term_open(int color, int ascii)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "provisor top: not a terminal (use --once)\n");
		return -1;
	}
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "provisor top: cannot use terminal type '%s'\n",
			getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	open_ = 1;
	ascii_ = ascii;
	atexit(term_close);
	signals();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	attrs(color);
	return 0;
}

void term_close(void)
{
	if (!open_)
		return;
	open_ = 0;
	endwin();
	delscreen(scr);
	scr = NULL;
}

void term_fatal(const char *msg)
{
	term_close();
	fprintf(stderr, "provisor top: %s\n", msg);
	exit(1);
}

void term_size(int *rows, int *cols)
{
	*rows = LINES;
	*cols = COLS;
}

static void put(int y, int x, const struct cv_cell *c)
{
	chtype a = attr_map[c->attr < CV_NATTRS ? c->attr : 0];

	if (c->ch < 0x80 || ascii_) {
		mvaddch(y, x, (c->ch < 0x80 ? c->ch : '?') | a);
	} else {
		wchar_t w[2] = { (wchar_t)c->ch, 0 };
		cchar_t cc;
		setcchar(&cc, w, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
		mvadd_wch(y, x, &cc);
	}
}

void term_draw(const struct canvas *cv)
{
	for (int y = 0; y < cv->rows && y < LINES; y++)
		for (int x = 0; x < cv->cols && x < COLS; x++)
			put(y, x, &cv->cell[y * cv->cols + x]);
	refresh();
}

static int translate(int ch)
{
	switch (ch) {
	case KEY_UP: return TERM_K_UP;
	case KEY_DOWN: return TERM_K_DOWN;
	case KEY_PPAGE: return TERM_K_PGUP;
	case KEY_NPAGE: return TERM_K_PGDN;
	case KEY_HOME: return TERM_K_HOME;
	case KEY_END: return TERM_K_END;
	case KEY_BTAB: return TERM_K_BTAB;
	case KEY_F(1): return TERM_K_F1;
	case KEY_BACKSPACE: case 127: case 8: return TERM_K_BACKSPACE;
	case KEY_ENTER: case '\r': case '\n': return TERM_K_ENTER;
	case 27: return TERM_K_ESC;
	case '\t': return '\t';
	case KEY_RESIZE: return TERM_KEY_RESIZE;
	default: return ch >= 0x20 && ch < 0x7f ? ch : TERM_KEY_NONE;
	}
}

int term_key_also(int timeout_ms, struct pollfd *also)
{
	struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN } };
	int n, ch;

	if (also)
		also->revents = 0;
	ch = getch();	/* keys ncurses already holds (and KEY_RESIZE) first */
	if (ch != ERR)
		return translate(ch);
	if (also && also->fd >= 0)
		p[1] = *also;
	n = poll(p, also && also->fd >= 0 ? 2 : 1, timeout_ms < 0 ? 0 : timeout_ms);
	if (n < 0)
		return errno == EINTR ? ((ch = getch()) != ERR ? translate(ch) : TERM_KEY_NONE)
				      : TERM_KEY_ERROR;
	if (also && also->fd >= 0)
		also->revents = p[1].revents;
	if (n == 0 || !p[0].revents)
		return TERM_KEY_NONE;
	if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL) && !(p[0].revents & POLLIN))
		return TERM_KEY_ERROR;
	ch = getch();
	return ch == ERR ? TERM_KEY_ERROR : translate(ch);
}

int term_key(int timeout_ms)
{
	return term_key_also(timeout_ms, NULL);
}
