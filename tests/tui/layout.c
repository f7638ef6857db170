/*
 * The layout of provisor top over every terminal size from 1x1 to 300x100,
 * with a large rig (64 GPU slots, 32 synth slots, 64 jobs of 64 partitions,
 * 64 events), a tiny one, and no segment at all, in the normal view, help
 * and detail: every pane inside the screen, no two panes overlapping, every
 * drawn cell inside the rectangle of the pane that drew it, and a "too
 * small" message where nothing else fits. Pure functions: no terminal.
 *
 * A dead rig (supervisor pid gone, heartbeat stopped) and a hung or
 * replaced one: at every size with at least one row as wide as the health
 * word, the frame shows that word ("not running", "not responding",
 * "restarted"), even at 40 columns and in the one-row "too small" frame;
 * no slot row shows busy or idle, every readable one shows "unknown"; and
 * the uptime is frozen at the last heartbeat: frames 1.1 s apart have the
 * same header at 32, 40 and 80 columns. Segment text with escape
 * sequences (name, event message, job reason) reaches the canvas as \xNN.
 *
 * Every size gets its layout computed and checked. Frames are rendered and
 * checked at every size of a sweep's step (4 times as far apart under a
 * sanitizer) and, whatever the step, at every edge: the narrowest 20
 * columns, LAYOUT_MIN_COLS and LAYOUT_WIDE_COLS and the columns beside
 * them, the widest; the shortest LAYOUT_MIN_ROWS + 1 rows and the tallest;
 * and every size whose layout changes shape (too small or not, which panes
 * are shown, meters or none) from the size one column narrower.
 */
#include <string.h>

#include "tests/helpers.h"
#include "tui/render.h"

static struct snap_slot gpu[64], synth[32];
static struct snap_job jobs[64];

static void fill(struct snap *s, int big)
{
	memset(s, 0, sizeof *s);
	s->attached = 1;
	snprintf(s->name, sizeof s->name, "layout-test-with-a-long-name");
	s->sup_ok = 1;
	s->sup.jobs_running = 12345678;
	s->now_mono_ns = 4000000000000ull;
	s->start_mono_ns = 1;
	s->parts_per_min = 1234.5;
	s->sup.loop_iterations = 123456789;
	s->sup.loop_p50_ns = 40000;
	s->sup.loop_p99_ns = big ? 2345678901ull : 300000;
	s->sup.loop_max_ns = big ? 17000000000ull : 2100000;
	s->sup.loop_slow_count = (uint64_t)big;
	s->sup.loop_slow_mono_ns = s->now_mono_ns - 1000000000ull;
	s->sup.jobs_done_kind[3] = 987654321;
	s->ngpu = big ? 64 : 1;
	s->nsynth = big ? 32 : 1;
	s->gpu = gpu;
	s->synth = synth;
	s->jobs = jobs;
	s->njobs = big ? 64 : 0;
	s->nevents = big ? SNAP_EVENTS_KEEP : 0;
	for (int i = 0; i < 64; i++) {
		gpu[i] = (struct snap_slot){ .ok = i != 3, .util = 0.5, .v = { .state = SHM_SLOT_BUSY,
			.pid = 4000000, .job_id = 99999999, .kind = 3, .partition = 63, .done = ~0ull } };
		jobs[i].v = (struct shm_job){ .id = (uint64_t)i + 1, .kind = 4, .state = 1 + i % 5,
					      .nparts = 64 };
		memset(jobs[i].v.reason, 'x', 63);
		for (int p = 0; p < 64; p++)
			jobs[i].v.part[p].state = (uint8_t)(p % 6);
	}
	memcpy(synth, gpu, sizeof synth);
	for (int i = 0; i < SNAP_EVENTS_KEEP; i++) {
		s->events[i] = (struct shm_event){ .seq = (uint64_t)i + 1, .type = 2, .table = 1, .slot = 7 };
		memset(s->events[i].msg, 'm', 79);
	}
}

static int inside(struct cv_rect r, int y, int x)
{
	return y >= r.y && y < r.y + r.h && x >= r.x && x < r.x + r.w;
}

static void check_layout(const struct layout *l, int rows, int cols)
{
	for (int p = 1; p < L_NPANES; p++) {
		const struct cv_rect *a = &l->r[p];
		if (!layout_shown(l, p))
			continue;
		CHECK(a->y >= 0 && a->x >= 0 && a->y + a->h <= rows && a->x + a->w <= cols,
		      "%dx%d: pane %d (%d,%d %dx%d) off screen", cols, rows, p, a->y, a->x, a->w, a->h);
		for (int q = p + 1; q < L_NPANES; q++) {
			const struct cv_rect *b = &l->r[q];
			if (!layout_shown(l, q))
				continue;
			CHECK(a->y + a->h <= b->y || b->y + b->h <= a->y || a->x + a->w <= b->x ||
			      b->x + b->w <= a->x, "%dx%d: panes %d and %d overlap", cols, rows, p, q);
		}
	}
}

static int row_has(const struct canvas *cv, int y, const char *what)
{
	char line[300 * 4 + 1];

	cv_row_text(cv, y, line);
	return strstr(line, what) != NULL;
}

/* The health word, when the snapshot's supervisor is not running fine. */
static const char *bad_word(const struct snap *s)
{
	return s->attached && s->health != SHM_HEALTH_RUNNING ? shm_health_name(s->health) : NULL;
}

/* Dead or hung rig: the health word shows wherever it fits; a gone
 * supervisor's slots are unknown, never busy or idle. */
static void check_health(const struct canvas *cv, const struct layout *l, const struct snap *s)
{
	const char *word = bad_word(s);
	int seen = 0;

	if (!word)
		return;
	for (int y = 0; y < cv->rows && !seen; y++)
		seen = row_has(cv, y, word);
	CHECK(seen || cv->cols < (int)strlen(word), "%dx%d: health '%s' not shown", cv->cols, cv->rows, word);
	if (!snap_sup_gone(s))
		return;
	for (int p = L_GPU; p <= L_SYNTH; p++) {
		const struct cv_rect *r = &l->r[p];
		if (!layout_shown(l, p) || r->w < 17)	/* SLOT and STATE columns */
			continue;
		for (int y = r->y + 1; y < r->y + r->h; y++) {
			char line[300 * 4 + 1];
			cv_row_text(cv, y, line);
			if (strncmp(line, p == L_GPU ? "gpu." : "synth.", p == L_GPU ? 4 : 6))
				continue;
			CHECK(!strstr(line, "busy") && !strstr(line, "idle"), "%dx%d: gone supervisor, slot row '%s'",
			      cv->cols, cv->rows, line);
			CHECK(strstr(line, "unknown") || strstr(line, " ?"), "%dx%d: slot row '%s' not unknown",
			      cv->cols, cv->rows, line);
		}
	}
}

static void check_frame(const struct canvas *cv, const struct layout *l, const struct snap *s)
{
	char line[300 * 4 + 1];

	for (int y = 0; y < cv->rows; y++)
		for (int x = 0; x < cv->cols; x++) {
			const struct cv_cell *c = &cv->cell[y * cv->cols + x];
			CHECK(c->ch >= 0x20 && c->ch != 0x7f, "%dx%d: control character at %d,%d",
			      cv->cols, cv->rows, y, x);
			if (c->owner)
				CHECK(c->owner < L_NPANES && inside(l->r[c->owner], y, x),
				      "%dx%d: pane %d drew at %d,%d outside its rectangle",
				      cv->cols, cv->rows, c->owner, y, x);
		}
	if (l->tiny && cv->cols >= 19) {
		const char *want = cv->rows == 1 && bad_word(s) ? bad_word(s) : "terminal too small";
		cv_row_text(cv, cv->rows - 1, line);
		CHECK(strstr(line, want) == line || (want[0] != 't' && line[0] == '[' &&
						      !strncmp(line + 1, want, strlen(want))),
		      "%dx%d: no message: '%s'", cv->cols, cv->rows, line);
	}
	check_health(cv, l, s);
}

/* The layout's shape: what is shown, not where or how large. */
static uint64_t shape(const struct layout *l)
{
	uint64_t h = (uint64_t)l->tiny * 1000003u + (uint64_t)l->hidden;

	for (int p = 1; p < L_NPANES; p++)
		h = h * 2 + (uint64_t)layout_shown(l, p);
	return h * 2 + (l->m.rows > 0);
}

/* Sweep every size; render every step-th size and every edge (above), the
 * layout always. */
static unsigned long sweep(struct snap *s, struct top_view *v, int step)
{
	unsigned long frames = 0;
	struct layout l;

	step *= T_SIZE(1, 4);
	for (int rows = 1; rows <= 100; rows++) {
		uint64_t prev = 0;

		for (int cols = 1; cols <= 300; cols++) {
			struct layout_in in = { (int)s->ngpu, (int)s->nsynth, (int)s->njobs,
						(int)s->nevents, v->help, v->detail, v->no_meters };
			struct canvas cv;
			layout_compute(rows, cols, &in, &l);
			check_layout(&l, rows, cols);
			uint64_t sh = shape(&l);
			int edge = cols <= 20 || (cols >= LAYOUT_MIN_COLS - 1 && cols <= LAYOUT_MIN_COLS + 1) ||
				   (cols >= LAYOUT_WIDE_COLS - 1 && cols <= LAYOUT_WIDE_COLS + 1) ||
				   cols == 300 || rows <= LAYOUT_MIN_ROWS + 1 || rows == 100 || sh != prev;

			prev = sh;
			if (!edge && (rows * 301 + cols) % step)
				continue;
			CHECK(cv_init(&cv, rows, cols) == 0, "cv_init");
			CHECK(render_frame(&cv, s, v, &l) == 0, "render");
			check_layout(&l, rows, cols);
			check_frame(&cv, &l, s);
			cv_free(&cv);
			frames++;
		}
	}
	return frames;
}

/* The header rows of a frame at cols x 24, as text. */
static void header_at(struct snap *s, struct top_view *v, int cols, char *out, size_t len)
{
	struct canvas cv;
	struct layout l;
	char a[300 * 4 + 1], b[300 * 4 + 1];

	CHECK(cv_init(&cv, 24, cols) == 0, "cv_init");
	CHECK(render_frame(&cv, s, v, &l) == 0, "render");
	cv_row_text(&cv, 0, a);
	cv_row_text(&cv, 1, b);
	snprintf(out, len, "%s\n%s", a, b);
	cv_free(&cv);
}

/* The header's loop figure and done-by-kind counts, at every width: each
 * whole or absent, never cut; at 80 columns the loop is there. */
static void check_header_loop(struct snap *s, struct top_view *v)
{
	char hdr[2 * 300 * 4 + 2];

	for (int big = 0; big < 2; big++) {
		fill(s, big);
		for (int w = LAYOUT_MIN_COLS; w <= 300; w++) {
			char p99[16] = "", max[16] = "";
			header_at(s, v, w, hdr, sizeof hdr);
			const char *row2 = strchr(hdr, '\n') + 1, *lp = strstr(row2, "loop "), *k;
			if (w == 80)
				CHECK(lp, "80 columns: no loop in the header:\n%s", hdr);
			if (lp) {	/* "loop p99 P max M" or "loop p99 P" */
				int n = sscanf(lp, "loop p99 %15s max %15s", p99, max);
				CHECK(n >= 1 && !strcmp(p99, big ? "2.3s" : "300us"), "%d columns: '%s'", w, lp);
				CHECK(n < 2 || !strcmp(max, big ? "17.0s" : "2.1ms"), "%d columns: '%s'", w, lp);
			}
			k = strstr(row2, "porep:");
			CHECK(!k || !strncmp(k, "porep:987654321", 15), "%d columns: cut kind '%s'", w, k);
		}
	}
	render_view_free(v);
}

/* Segment text with escape sequences reaches the canvas as \xNN. */
static void check_escapes(struct snap *s, struct top_view *v)
{
	static const char evil[] = "\x1b]0;owned\x07\x1b[2J\xe9";
	char all[100 * (300 * 4 + 2)], line[300 * 4 + 1];
	struct canvas cv;
	struct layout l;
	size_t o = 0;

	v->ascii = 1;	/* the renderer's own glyphs in ASCII: any other byte is a leak */
	snprintf(s->name, sizeof s->name, "%s", evil);
	snprintf(s->events[s->nevents - 1].msg, sizeof s->events[0].msg, "ev %s", evil);
	snprintf(s->jobs[0].v.reason, sizeof s->jobs[0].v.reason, "why %s", evil);
	for (int pass = 0; pass < 3; pass++) {	/* panes, event detail, job detail */
		v->detail = pass > 0;
		v->focus = pass == 1 ? L_EVENTS : pass == 2 ? L_JOBS : L_GPU;
		v->sel[L_EVENTS] = 0;
		v->sel[L_JOBS] = 0;
		CHECK(cv_init(&cv, 100, 159) == 0, "cv_init");
		CHECK(render_frame(&cv, s, v, &l) == 0, "render");
		for (int y = 0; y < cv.rows; y++) {
			cv_row_text(&cv, y, line);
			o += (size_t)snprintf(all + o, sizeof all - o, "%s\n", line);
		}
		cv_free(&cv);
	}
	v->detail = 0;
	CHECK(strstr(all, "\\x1b]0;owned\\x07\\x1b[2J\\xe9"), "escapes not shown as \\xNN:\n%s", all);
	CHECK(strstr(all, "ev \\x1b") && strstr(all, "why \\x1b"), "event or reason not shown:\n%s", all);
	for (const unsigned char *p = (const unsigned char *)all; *p; p++)
		CHECK(*p >= 0x20 ? *p < 0x7f : *p == '\n', "byte 0x%02x in the frame", *p);
}

/* A dead rig: health word everywhere, slots unknown, uptime frozen. */
static unsigned long dead(struct snap *s, struct top_view *v)
{
	static const int widths[] = { LAYOUT_MIN_COLS, 40, 80 };
	static const enum shm_health bad[] = { SHM_HEALTH_NOT_RUNNING, SHM_HEALTH_NOT_RESPONDING,
					       SHM_HEALTH_RESTARTED };
	unsigned long frames = 0;
	char a[2 * 300 * 4 + 2], b[2 * 300 * 4 + 2];

	for (size_t h = 0; h < 3; h++) {
		fill(s, 1);
		snprintf(s->name, sizeof s->name, "t-dead");
		s->health = bad[h];
		s->hb_age_ns = 7000000000ull;
		s->hb_mono_ns = 3000000000001ull;	/* died 1000 s ago, after 3000 s */
		render_view_free(v);	/* the previous view's job order */
		*v = (struct top_view){ .focus = L_GPU, .tenths = 5 };
		frames += sweep(s, v, h == 0 ? 11 : 13);
		v->help = 1;
		frames += sweep(s, v, 17);
		v->help = 0;
		if (!snap_sup_gone(s))
			continue;
		for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
			s->now_mono_ns = 4000000000000ull;
			header_at(s, v, widths[w], a, sizeof a);
			s->now_mono_ns += 1100000000ull;
			header_at(s, v, widths[w], b, sizeof b);
			CHECK(!strcmp(a, b), "%d columns: uptime not frozen:\n%s\n%s", widths[w], a, b);
			CHECK(strstr(a, "up 50m00s") || widths[w] < 40,
			      "%d columns: no frozen uptime (50m00s): %s", widths[w], a);
			CHECK(strstr(a, shm_health_name(s->health)), "%d columns: no health: %s", widths[w], a);
		}
	}
	s->health = SHM_HEALTH_NOT_RUNNING;
	check_escapes(s, v);
	render_view_free(v);
	return frames;
}

int main(void)
{
	struct snap s;
	struct top_view v = { .focus = L_GPU, .tenths = 5 };
	unsigned long frames = 0;

	fill(&s, 1);
	frames += sweep(&s, &v, 1);
	v.ascii = 1, v.focus = L_JOBS, v.sel[L_JOBS] = 40;
	v.detail = 1;
	frames += sweep(&s, &v, 3);
	v.detail = 0, v.help = 1;
	frames += sweep(&s, &v, 3);
	v.help = 0, v.focus = L_GPU, v.filtering = 1;
	snprintf(v.filter, sizeof v.filter, "porep");
	frames += sweep(&s, &v, 5);
	v.filtering = 0, v.filter[0] = 0;
	fill(&s, 0);
	frames += sweep(&s, &v, 5);
	s.attached = 0;
	snprintf(s.err, sizeof s.err, "no provisor instance 'x' (no /run/provisor/x.status)");
	frames += sweep(&s, &v, 5);
	render_view_free(&v);
	check_header_loop(&s, &v);
	frames += dead(&s, &v);
	printf("info: %lu frames rendered and checked, 12 x 30000 layouts; a dead rig shows as dead\n", frames);
	return 0;
}
