/*
 * The layout of provisor top over every terminal size from 1x1 to 300x100,
 * with a large rig (64 GPU slots, 32 synth slots, 64 jobs of 64 partitions,
 * 64 events), a tiny one, and no segment at all, in the normal view, help
 * and detail: every pane inside the screen, no two panes overlapping, every
 * drawn cell inside the rectangle of the pane that drew it, and a "too
 * small" message where nothing else fits. Pure functions: no terminal.
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

static void check_frame(const struct canvas *cv, const struct layout *l)
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
		cv_row_text(cv, cv->rows - 1, line);
		CHECK(!strncmp(line, "terminal too small", 18), "%dx%d: no message: '%s'",
		      cv->cols, cv->rows, line);
	}
}

/* Sweep every size; render every step-th size (the layout always). */
static unsigned long sweep(struct snap *s, struct top_view *v, int step)
{
	unsigned long frames = 0;
	struct layout l;

	for (int rows = 1; rows <= 100; rows++)
		for (int cols = 1; cols <= 300; cols++) {
			struct layout_in in = { (int)s->ngpu, (int)s->nsynth, (int)s->njobs,
						(int)s->nevents, v->help, v->detail };
			struct canvas cv;
			layout_compute(rows, cols, &in, &l);
			check_layout(&l, rows, cols);
			if ((rows * 301 + cols) % step)
				continue;
			CHECK(cv_init(&cv, rows, cols) == 0, "cv_init");
			CHECK(render_frame(&cv, s, v, &l) == 0, "render");
			check_layout(&l, rows, cols);
			check_frame(&cv, &l);
			cv_free(&cv);
			frames++;
		}
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
	snprintf(s.err, sizeof s.err, "no provisor instance 'x' (no /dev/shm/provisor.x)");
	frames += sweep(&s, &v, 5);
	render_view_free(&v);
	printf("info: %lu frames rendered and checked, 6 x 30000 layouts\n", frames);
	return 0;
}
