/*
 * top_fleet: `provisor top --fleet DSN`, the live view of every node of a
 * fleet from one terminal, read from the fleet's database with the
 * statements status --fleet sends (fleet/admin.c), without ever waiting
 * for it: the refresh is fleet/watch.c's state machine, and the loop
 * waits for the terminal and the database's socket in one poll
 * (term_key_also), so a key is answered at once whatever the database
 * does ('q' quits in the middle of a connection attempt to a host that
 * never answers).
 *
 * A refresh that fails (no connection, no answer within
 * TOPF_TIMEOUT_MS, an error) keeps the last good view on screen with its
 * age under one line that says the database is unreachable and why, and
 * the next attempt comes after a backoff of TOPF_BACKOFF_MIN_MS doubling
 * to TOPF_BACKOFF_MAX_MS; a good one brings the view and the interval
 * back. The frame is render_fleet's; the keys top's own (top_key_view).
 * --once (or stdout not a terminal) prints one frame and exits: 0, or 1
 * with one line when the database did not answer.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "shm/shm.h"
#include "tui/keys.h"
#include "tui/render.h"
#include "tui/term.h"
#include "tui/top.h"
#include "util/text.h"

#define TOPF_TIMEOUT_MS 3000		/* a refresh not done by then: the database is unreachable */
#define TOPF_BACKOFF_MIN_MS 500
#define TOPF_BACKOFF_MAX_MS 5000
#define TOPF_TICK_MS 500		/* ages and the retry countdown move on screen */

static uint64_t topf_now_ms(void)
{
	return shm_now_mono() / 1000000;
}

/* The view's state between frames. */
struct topf {
	struct fleet_watch w;
	struct fleet_status st;		/* the last good view */
	int have, busy;			/* st holds one; a refresh is in flight */
	uint64_t got_ms, due_ms, down_ms, backoff_ms;
	char err[300];
};

/* A refresh ended: its view kept, or its failure counted. */
static void topf_ended(struct topf *t, int rc, struct fleet_status *got, uint64_t now, unsigned tenths)
{
	t->busy = 0;
	if (rc == FLEET_WATCH_DONE) {
		fleet_status_free(&t->st);
		t->st = *got;
		t->have = 1;
		t->got_ms = now;
		t->down_ms = t->backoff_ms = 0;
		t->due_ms = now + tenths * 100u;
		return;
	}
	snprintf(t->err, sizeof t->err, "%s", t->w.err);
	if (!t->down_ms)
		t->down_ms = now;
	t->backoff_ms = t->backoff_ms ? 2 * t->backoff_ms : TOPF_BACKOFF_MIN_MS;
	if (t->backoff_ms > TOPF_BACKOFF_MAX_MS)
		t->backoff_ms = TOPF_BACKOFF_MAX_MS;
	t->due_ms = now + t->backoff_ms;
}

static void topf_model(const struct topf *t, struct top_fleet *f, uint64_t now)
{
	f->st = t->have ? &t->st : NULL;
	f->age_ns = t->have ? (now - t->got_ms) * 1000000u : 0;
	f->db = t->down_ms ? TOP_FLEET_UNREACHABLE : t->have ? TOP_FLEET_CONNECTED : TOP_FLEET_CONNECTING;
	snprintf(f->err, sizeof f->err, "%s", t->err);
	f->down_ns = t->down_ms ? (now - t->down_ms) * 1000000u : 0;
	f->retry_ns = t->down_ms && !t->busy && t->due_ms > now ? (t->due_ms - now) * 1000000u : 0;
	f->trying = t->busy;
	f->now_wall_ns = shm_now_wall();
}

/* One frame as text, after one refresh (bounded by TOPF_TIMEOUT_MS). */
static int topf_once(const struct top_opts *o, struct topf *t, struct top_fleet *f)
{
	struct top_view v = { .focus = -1, .ascii = o->ascii, .tenths = o->tenths, .read_only = 1 };
	struct fleet_status got;
	struct winsize ws;
	struct canvas cv;
	struct layout l;
	int cols = o->width, rows, rc = fleet_watch_begin(&t->w, topf_now_ms());
	char *line, err[4 * sizeof t->w.err];

	while (rc == FLEET_WATCH_BUSY) {
		short ev;
		struct pollfd p = { .fd = fleet_watch_pollfd(&t->w, &ev) };
		uint64_t now = topf_now_ms();
		p.events = ev;
		int n = p.fd < 0 ? 0 : poll(&p, 1, t->w.deadline_ms > now ? (int)(t->w.deadline_ms - now) : 0);
		rc = fleet_watch_step(&t->w, topf_now_ms(), n > 0, &got);
	}
	if (rc != FLEET_WATCH_DONE) {
		fprintf(stderr, "provisor top: --fleet: %s\n", util_clean(err, sizeof err, t->w.err));
		return 1;
	}
	topf_ended(t, rc, &got, topf_now_ms(), o->tenths);
	topf_model(t, f, topf_now_ms());
	if (!cols && getenv("COLUMNS"))
		cols = atoi(getenv("COLUMNS"));
	if (!cols && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
		cols = ws.ws_col;
	if (cols < LAYOUT_MIN_COLS)
		cols = 120;
	/* every row of both panes (the queue: the known kinds and any other) */
	rows = LAYOUT_FLEET_HEADER + 1 + (int)(t->st.nnodes ? t->st.nnodes : 1) + 1 + VOCAB_NKINDS +
	       (int)t->st.nkinds + 1;
	if (cv_init(&cv, rows, cols) < 0 || !(line = malloc((size_t)cols * 4 + 1))) {
		fprintf(stderr, "provisor top: out of memory\n");
		return 1;
	}
	render_fleet(&cv, f, &v, &l);
	int last = 0;	/* the queue may have rows to spare: no blank lines at the end */
	for (int y = 0; y < rows; y++) {
		cv_row_text(&cv, y, line);
		if (line[0] && !(l.r[L_FOOTER].h && y == l.r[L_FOOTER].y))
			last = y;
	}
	for (int y = 0; y <= last; y++) {
		if (l.r[L_FOOTER].h && y == l.r[L_FOOTER].y)
			continue;	/* the key hints mean nothing here */
		cv_row_text(&cv, y, line);
		puts(line);
	}
	free(line);
	cv_free(&cv);
	return fflush(stdout) ? 1 : 0;
}

/* How long the loop may wait: the next refresh or the refresh's
 * deadline, the footer message's end, and a tick for the ages. */
static int topf_wait_ms(const struct topf *t, uint64_t now, uint64_t msg_until)
{
	uint64_t wake = now + TOPF_TICK_MS;

	if (t->busy && t->w.deadline_ms < wake)
		wake = t->w.deadline_ms;
	if (!t->busy && t->due_ms < wake)
		wake = t->due_ms;
	if (msg_until && msg_until < wake)
		wake = msg_until;
	return wake > now ? (int)(wake - now) : 0;
}

static int topf_loop(const struct top_opts *o, struct topf *t, struct top_fleet *f)
{
	static const int panes[] = { L_NODES, L_QUEUE };
	struct top_view v = { .focus = L_NODES, .ascii = o->ascii, .tenths = o->tenths, .read_only = 1 };
	struct canvas cv = { 0 };
	struct fleet_status got;
	struct layout l;
	uint64_t msg_until = 0, now;
	int errors = 0, quit = 0, rc;

	if (term_open(o->color, o->ascii) < 0)
		return 1;
	while (!quit && !term_quit) {
		now = topf_now_ms();
		if (!t->busy && now >= t->due_ms) {
			t->busy = 1;
			if ((rc = fleet_watch_begin(&t->w, now)) != FLEET_WATCH_BUSY)
				topf_ended(t, rc, &got, now, v.tenths);
		}
		top_frame_begin(&v, &cv, &msg_until, now);
		topf_model(t, f, now);
		render_fleet(&cv, f, &v, &l);
		term_draw(&cv);
		short ev = 0;
		struct pollfd p = { .fd = t->busy ? fleet_watch_pollfd(&t->w, &ev) : -1 };
		p.events = ev;
		int key = term_key_also(topf_wait_ms(t, now, msg_until), &p);
		if (t->busy && (rc = fleet_watch_step(&t->w, topf_now_ms(), p.revents != 0, &got)) != FLEET_WATCH_BUSY)
			topf_ended(t, rc, &got, topf_now_ms(), v.tenths);
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
		rc = top_key_view(&v, &l, key, panes, 2);
		quit = rc == 1;
		if (rc < 0)
			snprintf(v.msg, sizeof v.msg, "'%c' is not a key of the fleet view (read-only): ? lists them",
				 key >= 0x20 && key < 0x7f ? key : '?');
		if (strcmp(before, v.msg))
			msg_until = 0;	/* a new message: its own time */
		if ((key == '+' || key == '-') && !t->busy && !t->down_ms)
			t->due_ms = topf_now_ms() + v.tenths * 100u;
	}
	term_close();
	cv_free(&cv);
	if (errors >= TOP_MAX_ERRORS) {
		fprintf(stderr, "provisor top: terminal input lost, exiting\n");
		return 1;
	}
	return 0;
}

int top_fleet_main(struct top_opts *o)
{
	struct topf t = { 0 };
	struct top_fleet f = { 0 };
	char err[400], shown[4 * sizeof err];
	int rc;

	setlocale(LC_ALL, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8"))
		o->ascii = 1;
	if (fleet_watch_init(&t.w, o->fleet, TOPF_TIMEOUT_MS, err, sizeof err) < 0) {
		fprintf(stderr, "provisor top: --fleet: %s\n", util_clean(shown, sizeof shown, err));
		return 2;
	}
	fleet_watch_where(o->fleet, f.where, sizeof f.where);
	if (o->once || !isatty(STDOUT_FILENO))
		rc = topf_once(o, &t, &f);
	else
		rc = topf_loop(o, &t, &f);
	fleet_watch_fini(&t.w);
	fleet_status_free(&t.st);
	return rc;
}
