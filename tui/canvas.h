/*
 * canvas: a grid of character cells that a frame of `provisor top` is drawn
 * into, before any terminal is involved. The term module copies it to
 * ncurses; --once prints it as text; the tests inspect it. Every write goes
 * through a clip rectangle, so a pane cannot draw outside the rectangle the
 * layout gave it, and nothing can land off screen.
 */
#ifndef TUI_CANVAS_H
#define TUI_CANVAS_H

#include <stdint.h>

enum cv_attr {
	CV_NORMAL = 0,
	CV_BAR,		/* title bars: reverse video */
	CV_HEAD,	/* column headings: bold */
	CV_DIM,
	CV_OK,		/* green: busy, done, running */
	CV_INFO,	/* cyan: starting, synthesizing */
	CV_WARN,	/* yellow: backoff, not responding, ready */
	CV_BAD,		/* red: crashed, failed, not running */
	CV_SEL,		/* the selected row */
	CV_NATTRS
};

struct cv_rect {
	int y, x, h, w;
};

struct cv_cell {
	uint32_t ch;	/* Unicode code point; ASCII in --ascii mode */
	uint8_t attr;	/* enum cv_attr */
	uint8_t owner;	/* which pane drew it (tests check it against the layout) */
};

struct canvas {
	int rows, cols;
	struct cv_cell *cell;
	struct cv_rect clip;
	uint8_t owner;
	unsigned long refused;	/* writes outside the clip (clipped, by design) */
};

/* 0 or -ENOMEM. Sizes below 1 make an empty canvas. */
int cv_init(struct canvas *cv, int rows, int cols);
void cv_free(struct canvas *cv);
/* Blank every cell (owner 0) and clip to the whole canvas. */
void cv_clear(struct canvas *cv);
/* Clip later writes to r (intersected with the canvas); owner tags them. */
void cv_clip(struct canvas *cv, struct cv_rect r, uint8_t owner);
/* One cell; refused outside the clip. */
void cv_put(struct canvas *cv, int y, int x, uint32_t ch, int attr);
/* UTF-8 text from (y, x), at most max columns (max < 0: no limit besides
 * the clip); invalid bytes become '?'. Returns the columns it covered. */
int cv_text(struct canvas *cv, int y, int x, int max, int attr, const char *s);
int cv_printf(struct canvas *cv, int y, int x, int max, int attr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Set the attribute of n cells from (y, x), keeping their characters. */
void cv_attr_span(struct canvas *cv, int y, int x, int n, int attr);
/* Row y as UTF-8 without trailing blanks into buf (4 * cols + 1 bytes). */
void cv_row_text(const struct canvas *cv, int y, char *buf);

#endif
