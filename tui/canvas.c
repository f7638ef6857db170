/*
 * canvas: the cell grid frames are drawn into (see canvas.h). Text is
 * decoded from UTF-8 here, once, so that both the terminal and --once see
 * one code point per cell; wide characters are never produced by the
 * renderer, so one code point is one column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/canvas.h"

int cv_init(struct canvas *cv, int rows, int cols)
{
	memset(cv, 0, sizeof *cv);
	if (rows < 1 || cols < 1)
		return 0;
	cv->cell = calloc((size_t)rows * (size_t)cols, sizeof *cv->cell);
	if (!cv->cell)
		return -ENOMEM;
	cv->rows = rows;
	cv->cols = cols;
	cv_clear(cv);
	return 0;
}

void cv_free(struct canvas *cv)
{
	free(cv->cell);
	memset(cv, 0, sizeof *cv);
}

void cv_clear(struct canvas *cv)
{
	for (int i = 0; i < cv->rows * cv->cols; i++)
		cv->cell[i] = (struct cv_cell){ .ch = ' ' };
	cv->clip = (struct cv_rect){ 0, 0, cv->rows, cv->cols };
	cv->owner = 0;
	cv->refused = 0;
}

void cv_clip(struct canvas *cv, struct cv_rect r, uint8_t owner)
{
	int y1 = r.y + r.h, x1 = r.x + r.w;

	if (r.y < 0) r.y = 0;
	if (r.x < 0) r.x = 0;
	if (y1 > cv->rows) y1 = cv->rows;
	if (x1 > cv->cols) x1 = cv->cols;
	r.h = y1 > r.y ? y1 - r.y : 0;
	r.w = x1 > r.x ? x1 - r.x : 0;
	cv->clip = r;
	cv->owner = owner;
}

void cv_put(struct canvas *cv, int y, int x, uint32_t ch, int attr)
{
	const struct cv_rect *c = &cv->clip;

	if (y < c->y || y >= c->y + c->h || x < c->x || x >= c->x + c->w) {
		cv->refused++;
		return;
	}
	if (ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0) || ch > 0xffff)
		ch = '?';	/* control characters never reach the terminal */
	cv->cell[y * cv->cols + x] = (struct cv_cell){ ch, (uint8_t)attr, cv->owner };
}

/* One code point from s; advances *s. Invalid or overlong input: '?'. */
static uint32_t utf8_next(const unsigned char **s)
{
	const unsigned char *p = *s;
	uint32_t c = *p++;
	int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;

	if (c < 0x80) {
		*s = p;
		return c;
	}
	if (n == 0) {
		*s = p;
		return '?';
	}
	c &= 0x3f >> n;
	for (int i = 0; i < n; i++, p++) {
		if ((*p & 0xc0) != 0x80) {
			*s = p;
			return '?';
		}
		c = c << 6 | (*p & 0x3f);
	}
	*s = p;
	return c;
}

int cv_text(struct canvas *cv, int y, int x, int max, int attr, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n = 0;

	while (*p && (max < 0 || n < max)) {
		uint32_t ch = utf8_next(&p);
		if (x + n >= cv->clip.x + cv->clip.w)
			break;	/* past the clip: nothing more can show */
		cv_put(cv, y, x + n, ch, attr);
		n++;
	}
	return n;
}

int cv_printf(struct canvas *cv, int y, int x, int max, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return cv_text(cv, y, x, max, attr, buf);
}

void cv_attr_span(struct canvas *cv, int y, int x, int n, int attr)
{
	for (int i = 0; i < n; i++) {
		const struct cv_rect *c = &cv->clip;
		if (y >= c->y && y < c->y + c->h && x + i >= c->x && x + i < c->x + c->w)
			cv->cell[y * cv->cols + x + i].attr = (uint8_t)attr;
	}
}

void cv_row_text(const struct canvas *cv, int y, char *buf)
{
	char *p = buf, *end = buf;

	for (int x = 0; x < cv->cols; x++) {
		uint32_t c = cv->cell[y * cv->cols + x].ch;
		if (c < 0x80)
			*p++ = (char)c;
		else if (c < 0x800) {
			*p++ = (char)(0xc0 | c >> 6);
			*p++ = (char)(0x80 | (c & 0x3f));
		} else {
			*p++ = (char)(0xe0 | c >> 12);
			*p++ = (char)(0x80 | (c >> 6 & 0x3f));
			*p++ = (char)(0x80 | (c & 0x3f));
		}
		if (c != ' ')
			end = p;
	}
	*end = '\0';
}
