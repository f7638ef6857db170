/*
 * The slot meters and sparklines of provisor top, rendered into a canvas
 * (no terminal): at 80x24 a rig of 16 and of 32 GPU slots (with and
 * without synth slots) shows every slot in the meters, each cell with its
 * slot, its state letter and its utilization, also with --ascii (then
 * every cell is ASCII); 96 slots show as many as fit and "+N more". A
 * sparkline drawn from a known history has the expected glyph in each
 * column, newest on the right, in UTF-8 and ASCII; the header's
 * throughput line shows partitions per interval from parts_done; a rig
 * that changes shape starts its history afresh.
 */
#include <string.h>

#include "tests/helpers.h"
#include "tui/render.h"

static struct snap_slot gpu[96], synth[32];

static void fill(struct snap *s, int ngpu, int nsynth)
{
	static const uint32_t states[] = { SHM_SLOT_BUSY, SHM_SLOT_IDLE, SHM_SLOT_STARTING, SHM_SLOT_BACKOFF,
					   SHM_SLOT_CRASHED, SHM_SLOT_DISABLED, SHM_SLOT_STOPPED };
	memset(s, 0, sizeof *s);
	s->attached = 1;
	snprintf(s->name, sizeof s->name, "meters");
	s->sup_ok = 1;
	s->now_mono_ns = 100000000000ull;
	s->start_mono_ns = 1;
	s->parts_per_min = -1;
	s->ngpu = (uint32_t)ngpu;
	s->nsynth = (uint32_t)nsynth;
	s->gpu = gpu;
	s->synth = synth;
	s->interval_ns = 500000000;
	for (int i = 0; i < 96; i++)
		gpu[i] = (struct snap_slot){ .ok = 1, .util = (i * 7 % 101) / 100.0,
					     .v = { .state = states[i % 7], .gpu = (uint32_t)i / 2 } };
	for (int i = 0; i < 32; i++)
		synth[i] = (struct snap_slot){ .ok = 1, .util = 1, .v = { .state = SHM_SLOT_BUSY } };
}

static char rows_text[24][80 * 4 + 1];

static void frame(struct snap *s, struct top_view *v, struct layout *l, int rows, int cols)
{
	struct canvas cv;

	CHECK(cv_init(&cv, rows, cols) == 0, "cv_init");
	CHECK(render_frame(&cv, s, v, l) == 0, "render");
	for (int y = 0; y < rows && y < 24; y++)
		cv_row_text(&cv, y, rows_text[y]);
	if (v->ascii)	/* --ascii: not one byte of the meters outside ASCII */
		for (int y = l->r[L_METERS].y; y < l->r[L_METERS].y + l->r[L_METERS].h; y++)
			for (int x = 0; x < cols; x++)
				CHECK(cv.cell[y * cols + x].ch < 0x80, "--ascii: U+%04X in the meters at %d,%d",
				      cv.cell[y * cols + x].ch, y, x);
	cv_free(&cv);
}

/* Every slot's cell in the meters rows of the last frame, right state. */
static void all_visible(const struct snap *s, const struct layout *l)
{
	int idw = l->m.idw;

	for (uint32_t i = 0; i < s->ngpu + s->nsynth; i++) {
		int gpu_ = i < s->ngpu;
		uint32_t k = gpu_ ? i : i - s->ngpu;
		const struct snap_slot *o = gpu_ ? &s->gpu[k] : &s->synth[k];
		char want[32];
		int found = 0;

		snprintf(want, sizeof want, "%c%0*u%c %3.0f%%", gpu_ ? 'g' : 's', idw - 1, k,
			 render_slot_letter(o->v.state), o->util * 100);
		for (int y = l->r[L_METERS].y; y < l->r[L_METERS].y + l->r[L_METERS].h; y++)
			found += strstr(rows_text[y], want) != NULL;
		CHECK(found == 1, "%u+%u slots at 80x24: cell '%s' seen %d times", s->ngpu, s->nsynth, want, found);
	}
	for (int y = l->r[L_METERS].y; y < l->r[L_METERS].y + l->r[L_METERS].h; y++)
		CHECK(!strstr(rows_text[y], "more"), "80x24: '%s'", rows_text[y]);
}

static void at_80x24(void)
{
	static const int rigs[][2] = { { 16, 0 }, { 16, 4 }, { 32, 0 }, { 32, 8 } };
	struct top_view v = { .focus = L_GPU, .tenths = 5 };
	struct snap s;
	struct layout l;

	for (size_t r = 0; r < sizeof rigs / sizeof rigs[0]; r++)
		for (int ascii = 0; ascii < 2; ascii++) {
			fill(&s, rigs[r][0], rigs[r][1]);
			v.ascii = ascii;
			frame(&s, &v, &l, 24, 80);
			CHECK(l.m.rows > 0 && l.m.rows <= 7, "%d slots: %d meter rows", rigs[r][0], l.m.rows);
			CHECK(l.m.rows * l.m.per_row >= rigs[r][0] + rigs[r][1], "%d+%d slots: %d x %d cells",
			      rigs[r][0], rigs[r][1], l.m.rows, l.m.per_row);
			CHECK(layout_shown(&l, L_GPU) && layout_shown(&l, L_JOBS), "tables gone at 80x24");
			all_visible(&s, &l);
			if (rigs[r][0] == 16 && rigs[r][1] <= 4)
				CHECK(l.m.spark >= 8, "16 slots at 80x24: a sparkline of only %d", l.m.spark);
			if (r == 0 && !ascii)
				printf("info: 16 slots at 80x24: %d meter rows of %d cells, sparklines of %d\n",
				       l.m.rows, l.m.per_row, l.m.spark);
			if (r == 3 && !ascii)
				printf("info: 32+8 slots at 80x24: %d meter rows of %d cells, sparklines of %d\n",
				       l.m.rows, l.m.per_row, l.m.spark);
		}
	/* 96: as many as fit, and the rest counted */
	fill(&s, 96, 32);
	frame(&s, &v, &l, 24, 80);
	int fit = l.m.rows * l.m.per_row - 1;
	char more[32];
	snprintf(more, sizeof more, "+%d more", 128 - fit);
	CHECK(strstr(rows_text[l.r[L_METERS].y + l.m.rows - 1], more), "96+32 slots: no '%s' in '%s'", more,
	      rows_text[l.r[L_METERS].y + l.m.rows - 1]);
	/* m turns them off: the rows go back to the tables */
	v.no_meters = 1;
	frame(&s, &v, &l, 24, 80);
	CHECK(!layout_shown(&l, L_METERS) && l.r[L_GPU].y == 2, "meters off: still there");
	render_view_free(&v);
}

/* The sparkline of slot 0 from a known history, and the header's parts. */
static void sparkline(void)
{
	/* util per refresh, oldest first; -1: unknown */
	static const double u[] = { 1, 0, 0.01, 0.12, 0.13, 0.5, 0.51, 0.99, -1, 1 };
	static const uint64_t done[] = { 100, 100, 104, 112, 112, 120, 120, 121, 121, 129, 137 };
	static const char *const uni[] = { "\u2588", " ", "\u2581", "\u2581", "\u2582", "\u2584",
					   "\u2585", "\u2588", " ", "\u2588" };
	static const char asc[] = "# ..:=+# #";
	struct top_view v = { .focus = L_JOBS, .tenths = 5 };
	struct hist h = { 0 };
	struct snap s;
	struct layout l;
	char want[128];

	fill(&s, 4, 0);
	s.interval_ns = 0;	/* the first snapshot: no interval, not a sample */
	s.sup.parts_done = done[0];
	CHECK(hist_push(&h, &s) == 0 && h.n == 0, "first snapshot made a sample");
	s.interval_ns = 500000000;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		gpu[0].util = u[i];
		s.sup.parts_done = done[i + 1];
		CHECK(hist_push(&h, &s) == 0, "hist_push");
	}
	CHECK_EQ_U64(hist_util(&h, 0, 0), 100);
	CHECK_EQ_U64(hist_util(&h, 0, 1), HIST_UNKNOWN);
	CHECK_EQ_U64(hist_parts(&h, 0), 8);
	v.hist = &h;
	for (int ascii = 0; ascii < 2; ascii++) {
		v.ascii = ascii;
		frame(&s, &v, &l, 24, 100);
		CHECK(l.m.spark >= 10, "4 slots at 100 columns: sparkline of %d", l.m.spark);
		/* g0's sparkline: the whole history in its last 10 columns */
		size_t o = 0;
		o += (size_t)snprintf(want, sizeof want, "g0%c 100%%%*s", render_slot_letter(gpu[0].v.state),
				      l.m.spark - 10, "");	/* older than the history: blank */
		for (size_t i = 0; i < 10; i++)
			o += (size_t)snprintf(want + o, sizeof want - o, "%s",
					      ascii ? (char[2]){ asc[i], 0 } : uni[i]);
		CHECK(strstr(rows_text[2], want), "sparkline: want '%s' in\n'%s'", want, rows_text[2]);
		/* parts per interval 0 4 8 0 8 0 1 0 8 8: eighths of 8 */
		const char *tp = ascii ? "parts  =# # . ## 8" : "parts  \u2584\u2588 \u2588 \u2581 \u2588\u2588 8";
		CHECK(strstr(rows_text[0], tp), "throughput: want '%s' in\n'%s'", tp, rows_text[0]);
	}
	/* a new shape: the history starts again */
	s.ngpu = 5;
	CHECK(hist_push(&h, &s) == 0 && h.n == 1 && hist_util(&h, 0, 1) == HIST_UNKNOWN, "reshape kept history");
	CHECK_EQ_U64(hist_parts(&h, 0), 0);
	hist_free(&h);
	render_view_free(&v);
	/* levels: eighths rounded up, 0 only for nothing */
	CHECK(render_spark_level(0, 100) == 0 && render_spark_level(1, 100) == 1 &&
	      render_spark_level(12, 100) == 1 && render_spark_level(13, 100) == 2 &&
	      render_spark_level(100, 100) == 8 && render_spark_level(5, 0) == 0 &&
	      render_spark_level(7, 3) == 8, "spark levels");
}

int main(void)
{
	at_80x24();
	sparkline();
	printf("info: 80x24 meters for 16 and 32 slots, sparklines and throughput from a known history\n");
	return 0;
}
