/*
 * top: `provisor top [--name NAME] [-d TENTHS] [--once] [--width N]
 * [--no-color] [--ascii] [--read-only]`, the live view of an instance. It reads the
 * status segment through snap, draws with render into a canvas, and hands
 * the canvas to term (the only ncurses user). The loop blocks in term_key
 * until the next refresh is due or a key arrives; a key redraws at once
 * from the last snapshot, a due refresh takes a new one and adds it to
 * the sparklines' history (hist). Keys are tui/keys.c; the requests they
 * confirm go out through tui/topctl.c, synchronously (at most
 * TOPCTL_TIMEOUT_MS), and their outcome stays in the footer for a while.
 *
 * --once (automatic when stdout is not a terminal) prints one frame as
 * plain text, made from two snapshots one refresh apart so that UTIL is
 * real, and exits: 0 running, 3 not running/responding, 1 no segment.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tui/keys.h"
#include "tui/render.h"
#include "tui/term.h"
#include "tui/top.h"
#include "tui/topctl.h"


static int exit_code(const struct snap *s)
{
	return !s->attached ? 1 : s->health == SHM_HEALTH_RUNNING ? 0 : 3;
}

static void sleep_tenths(unsigned t)
{
	struct timespec ts = { t / 10, (long)(t % 10) * 100000000L };
	nanosleep(&ts, NULL);
}

/* One frame of text to stdout, tall enough for every row of every pane. */
static int top_once(const struct top_opts *o, struct snap_reader *r, struct snap *s)
{
	struct top_view v = { .focus = -1, .ascii = o->ascii, .tenths = o->tenths, .read_only = 1 };
	struct layout_meters m;
	struct hist h = { 0 };
	struct winsize ws;
	struct canvas cv;
	struct layout l;
	int cols = o->width, rows, rc;
	char *line;

	if (!cols && getenv("COLUMNS"))
		cols = atoi(getenv("COLUMNS"));
	if (!cols && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
		cols = ws.ws_col;
	if (cols < LAYOUT_MIN_COLS)
		cols = 120;
	if (cols >= LAYOUT_WIDE_COLS)
		cols = LAYOUT_WIDE_COLS - 1;	/* one column of panes: no gaps */
	if (snap_take(r, s) == 0) {
		hist_push(&h, s);
		sleep_tenths(o->tenths);
		snap_take(r, s);
		if (hist_push(&h, s) == 0)
			v.hist = &h;
	}
	rows = 3 + 2 + 2 + 2 + 2;
	if (s->attached)
		rows = 3 + 1 + (int)(s->ngpu ? s->ngpu : 1) + 1 + (int)(s->nsynth ? s->nsynth : 1) +
		       1 + (int)(s->njobs ? s->njobs : 1) + 1 + (int)(s->nevents ? s->nevents : 1);
	if (s->attached) {	/* and the meters, every slot */
		layout_meters(cols, (int)s->ngpu, (int)s->nsynth, rows, &m);
		rows += m.rows;
	}
	if (cv_init(&cv, rows, cols) < 0 || !(line = malloc((size_t)cols * 4 + 1))) {
		fprintf(stderr, "provisor top: out of memory\n");
		return 1;
	}
	rc = render_frame(&cv, s, &v, &l);
	for (int y = 0; rc == 0 && y < rows; y++) {
		if (l.r[L_FOOTER].h && y == l.r[L_FOOTER].y)
			continue;	/* the key hints mean nothing here */
		cv_row_text(&cv, y, line);
		puts(line);
	}
	free(line);
	cv_free(&cv);
	render_view_free(&v);
	hist_free(&h);
	if (fflush(stdout) || rc < 0)
		return 1;
	return exit_code(s);
}

static uint64_t now_ms(void)
{
	return shm_now_mono() / 1000000;
}

static int top_loop(const struct top_opts *o, struct snap_reader *r, struct snap *s)
{
	struct top_view v = { .focus = L_GPU, .ascii = o->ascii, .tenths = o->tenths,
			      .read_only = o->read_only };
	struct topctl ctl = { .s = s, .uid = r->seg.uid };
	struct canvas cv = { 0 };
	struct hist h = { 0 };
	struct layout l;
	struct nvml nv;
	uint64_t due = 0, msg_until = 0;
	int errors = 0, quit = 0;

	if (nvml_open(&nv) == 0)
		v.nv = &nv;
	if (term_open(o->color, o->ascii) < 0)
		return 1;
	while (!quit && !term_quit) {
		if (now_ms() >= due) {
			if (snap_take(r, s) == -ENOMEM || hist_push(&h, s) < 0)
				term_fatal("out of memory");
			ctl.uid = r->seg.uid;	/* a re-attached segment may be another's */
			v.hist = &h;
			if (v.nv && s->sup_pid != nv.env_pid)	/* a new supervisor */
				nvml_map_pid(&nv, s->sup_pid);
			if (v.nv)
				nvml_sample(&nv);
			due = now_ms() + v.tenths * 100;
		}
		top_frame_begin(&v, &cv, &msg_until, now_ms());
		if (render_frame(&cv, s, &v, &l) < 0)
			term_fatal("out of memory");
		term_draw(&cv);
		uint64_t t = now_ms();
		uint64_t wake = msg_until && msg_until < due ? msg_until : due;
		int key = term_key(wake > t ? (int)(wake - t) : 0);
		if (key == TERM_KEY_ERROR) {
			if (++errors >= TOP_MAX_ERRORS)
				break;
			continue;
		}
		errors = 0;
		if (key == TERM_KEY_RESIZE || key == TERM_KEY_NONE)
			continue;
		char before[sizeof v.msg];
		memcpy(before, v.msg, sizeof before);
		quit = top_key(&v, &l, s, key, topctl_send, &ctl);
		if (strcmp(before, v.msg))
			msg_until = 0;	/* a new message: its own time */
		if (key == '+' || key == '-')
			due = now_ms() + v.tenths * 100;
	}
	term_close();
	cv_free(&cv);
	render_view_free(&v);
	hist_free(&h);
	if (v.nv)
		nvml_close(&nv);
	if (errors >= TOP_MAX_ERRORS) {
		fprintf(stderr, "provisor top: terminal input lost, exiting\n");
		return 1;
	}
	return 0;
}

void top_frame_begin(struct top_view *v, struct canvas *cv, uint64_t *msg_until, uint64_t now)
{
	int rows, cols;

	if (v->msg[0] && !*msg_until)
		*msg_until = now + TOP_MSG_MS;
	else if (v->msg[0] && now >= *msg_until)
		v->msg[0] = '\0', *msg_until = 0;
	term_size(&rows, &cols);
	if (rows != cv->rows || cols != cv->cols) {
		cv_free(cv);	/* the old size's cells */
		if (cv_init(cv, rows, cols) < 0)
			term_fatal("out of memory");
	}
}

int top_main(struct top_opts *o)
{
	struct snap_reader r;
	struct snap s = { 0 };
	char err[256];
	int rc;

	setlocale(LC_ALL, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8"))
		o->ascii = 1;	/* no UTF-8: line art and glyphs in ASCII */
	if (snap_reader_init(&r, o->name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor top: %s\n", err);
		return 2;
	}
	snprintf(s.name, sizeof s.name, "%s", o->name);
	if (o->once || !isatty(STDOUT_FILENO))
		rc = top_once(o, &r, &s);
	else
		rc = top_loop(o, &r, &s);
	snap_free(&s);
	snap_reader_close(&r);
	return rc;
}
