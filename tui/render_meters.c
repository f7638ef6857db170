/*
 * render_meters: the slot meters under the header, one cell per slot, and
 * the sparklines they and the header's throughput use.
 *
 * A cell reads the same with and without colour, in UTF-8 and ASCII:
 *   g07B 100%▁▃▅▇██▇▆
 * the slot (g GPU, s synth), one letter for its state (the colour says it
 * again), its utilization over the last refresh, and the utilization of
 * the refreshes before it, newest on the right. A sparkline is nine
 * levels: blank for 0 (or unknown), then U+2581..U+2588, or in ASCII the
 * density ramp ".:-=+*%#". A level is the value's eighths rounded up, so
 * that any work at all shows: a partition much shorter than the refresh
 * is still one dot, never a blank.
 */
#include <stdio.h>
#include <string.h>

#include "tui/render.h"

int render_spark_level(uint64_t v, uint64_t max)
{
	if (!max || !v)
		return 0;
	if (v >= max)
		return 8;
	return (int)((v * 8 + max - 1) / max);
}

uint32_t render_spark_glyph(int level, int ascii)
{
	static const char asc[] = " .:-=+*%#";

	if (level <= 0)
		return ' ';
	if (level > 8)
		level = 8;
	return ascii ? (uint32_t)asc[level] : 0x2580u + (uint32_t)level;
}

char render_slot_letter(uint32_t state)
{
	static const char l[SHM_SLOT_NSTATES] = {
		[SHM_SLOT_EMPTY] = 'E', [SHM_SLOT_STARTING] = 'S', [SHM_SLOT_IDLE] = 'I',
		[SHM_SLOT_BUSY] = 'B', [SHM_SLOT_CRASHED] = 'C', [SHM_SLOT_BACKOFF] = 'W',
		[SHM_SLOT_DISABLED] = 'D', [SHM_SLOT_STOPPED] = 'T', [SHM_SLOT_LOADING] = 'L',
	};
	return state < SHM_SLOT_NSTATES ? l[state] : '?';
}

/* One cell at (y, x): slot i of the meters' order (GPU, then synth). */
static void cell(struct canvas *cv, int y, int x, const struct layout_meters *m, const struct snap *s,
		 const struct top_view *v, uint32_t i)
{
	int gpu = i < s->ngpu, gone = snap_sup_gone(s), attr, sel;
	uint32_t k = gpu ? i : i - s->ngpu;
	const struct snap_slot *o = gpu ? &s->gpu[k] : &s->synth[k];
	char b[32];

	sel = v->focus == (gpu ? L_GPU : L_SYNTH) && v->sel[v->focus] == (int)k;
	snprintf(b, sizeof b, "%c%0*u", gpu ? 'g' : 's', m->idw - 1, k);
	x += cv_text(cv, y, x, m->idw, sel ? CV_SEL : CV_NORMAL, b);
	if (!o->ok || gone) {	/* unreadable, or a gone supervisor's last word */
		cv_put(cv, y, x, '?', gone ? CV_BAD : CV_DIM);
		cv_text(cv, y, x + 1, 5, CV_DIM, "    -");
	} else {
		cv_put(cv, y, x, (uint32_t)render_slot_letter(o->v.state), render_slot_attr(o->v.state));
		if (o->util >= 0)
			snprintf(b, sizeof b, " %3.0f%%", o->util * 100 > 100 ? 100 : o->util * 100);
		else
			snprintf(b, sizeof b, "    -");
		cv_text(cv, y, x + 1, 5, o->util >= 0.5 ? CV_OK : CV_NORMAL, b);
	}
	x += 6;
	for (int c = 0; c < m->spark; c++) {
		uint8_t u = hist_util(v->hist, i, (uint32_t)(m->spark - 1 - c));
		attr = u == HIST_UNKNOWN ? CV_DIM : u >= 50 ? CV_OK : CV_INFO;
		cv_put(cv, y, x + c, render_spark_glyph(u == HIST_UNKNOWN ? 0 : render_spark_level(u, 100),
							v->ascii), attr);
	}
}

void render_meters(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v,
		   const struct layout_meters *m)
{
	int fit = m->rows * m->per_row, n = (int)(s->ngpu + s->nsynth);

	if (!s->attached || fit <= 0)
		return;
	if (n > fit)
		fit--;	/* the last cell says how many more there are */
	for (int i = 0; i < n && i < fit; i++)
		cell(cv, r.y + i / m->per_row, r.x + i % m->per_row * (m->cell_w + 1), m, s, v, (uint32_t)i);
	if (n > fit)
		cv_printf(cv, r.y + fit / m->per_row, r.x + fit % m->per_row * (m->cell_w + 1), m->cell_w,
			  CV_WARN, "+%d more", n - fit);
}

int render_throughput(struct canvas *cv, int y, int x, int w, const struct top_view *v)
{
	uint32_t n = v->hist ? v->hist->n : 0, max = 0;
	int len = w - 6 - 7;	/* "parts " + sparkline + " NNNNNN" */
	char b[16];

	if (len > 32)
		len = 32;
	if (len < 4 || !n)
		return 0;
	if ((uint32_t)len > n)
		len = (int)n;
	for (int k = 0; k < len; k++)
		if (hist_parts(v->hist, (uint32_t)k) > max)
			max = hist_parts(v->hist, (uint32_t)k);
	int x0 = x;
	x += cv_text(cv, y, x, -1, CV_DIM, "parts ");
	for (int c = 0; c < len; c++)
		cv_put(cv, y, x + c, render_spark_glyph(render_spark_level(hist_parts(v->hist,
			(uint32_t)(len - 1 - c)), max), v->ascii), CV_INFO);
	x += len;
	snprintf(b, sizeof b, " %u", hist_parts(v->hist, 0));
	x += cv_text(cv, y, x, 7, CV_NORMAL, b);
	return x - x0;
}
