/*
 * top --fleet's frame without a terminal or a database (render_fleet and
 * layout_fleet are pure): a fleet of 40 nodes, some with hostile names,
 * and a kind this build does not know, rendered connected, connecting
 * (no view yet) and unreachable, in the normal view, help and a node's
 * detail, at every size from 1x1 to 200x60 (every 7th cell of the sweep
 * and every edge):
 *   - every pane inside the screen, none overlapping another; every drawn
 *     cell inside the pane that drew it, and no control character;
 *   - the database's state word ("unreachable", ...) wherever a row is
 *     as wide as it (a one-row frame: only when it is not "connected");
 *     the unreachable line, starting "database
 *     unreachable", on the header's third row wherever the frame is not
 *     too small;
 *   - the queue lists every known kind (0 where the database has none)
 *     and then the unknown one; a hostile name reaches the canvas as \xNN;
 *   - fleet_watch_where shows a DSN's database, host, port and user and
 *     never its password, in either form (key=value, URI), and no frame
 *     made with it shows the password.
 */
#include <string.h>

#include "fleet/fleet.h"
#include "tests/helpers.h"
#include "tui/render.h"

#define SECRET "pa55-SECRET"

static struct fleet_node_row nodes[40];

static void fill(struct fleet_status *st)
{
	static const char *const states[] = { "alive", "stale", "dead", "stopping" };

	memset(st, 0, sizeof *st);
	for (int i = 0; i < 40; i++) {
		struct fleet_node_row *n = &nodes[i];
		memset(n, 0, sizeof *n);
		if (i == 3)
			snprintf(n->name, sizeof n->name, "evil\x1b[2J\x1b]0;owned\x07-%d", i);
		else
			snprintf(n->name, sizeof n->name, "rig-%02d.a-rather-long-instance-name-%d", i, i);
		snprintf(n->host, sizeof n->host, "host-%d", i);
		snprintf(n->backend, sizeof n->backend, "cpu");
		snprintf(n->state, sizeof n->state, "%s", states[i % 4]);
		snprintf(n->kinds, sizeof n->kinds, "porep k=3..27 gpu=8 h, winning-post k=3..27 gpu=8 h");
		n->age_s = i * 0.7;
		n->gpu_slots = 8, n->gpu_busy = i % 9, n->synth_slots = 4, n->synth_busy = i % 5;
		n->max_jobs = 16, n->held = i % 17, n->local_jobs = 3;
		n->running = i % 17, n->done = 1000000 + i, n->loop_max_us = 1234;
	}
	st->nodes = nodes;
	st->nnodes = 40;
	st->nkinds = 3;
	snprintf(st->kinds[0].kind, sizeof st->kinds[0].kind, "kind-9");
	st->kinds[0].queued = 7;
	snprintf(st->kinds[1].kind, sizeof st->kinds[1].kind, "porep");
	st->kinds[1].queued = 12345, st->kinds[1].running = 3, st->kinds[1].done = 99;
	snprintf(st->kinds[2].kind, sizeof st->kinds[2].kind, "winning-post");
	st->kinds[2].failed = 2;
	st->expired = 1;
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
		      "%dx%d: pane %d off screen", cols, rows, p);
		for (int q = p + 1; q < L_NPANES; q++)
			CHECK(!layout_shown(l, q) || a->y + a->h <= l->r[q].y || l->r[q].y + l->r[q].h <= a->y ||
			      a->x + a->w <= l->r[q].x || l->r[q].x + l->r[q].w <= a->x,
			      "%dx%d: panes %d and %d overlap", cols, rows, p, q);
	}
}

static void row(const struct canvas *cv, int y, char *line)
{
	cv_row_text(cv, y, line);
}

static void check_frame(const struct canvas *cv, const struct layout *l, const struct top_fleet *f)
{
	static const char *const words[] = { "connecting", "connected", "unreachable" };
	char line[200 * 4 + 1];
	int word = 0;

	for (int y = 0; y < cv->rows; y++) {
		for (int x = 0; x < cv->cols; x++) {
			const struct cv_cell *c = &cv->cell[y * cv->cols + x];
			CHECK(c->ch >= 0x20 && c->ch != 0x7f, "%dx%d: control character at %d,%d", cv->cols, cv->rows,
			      y, x);
			CHECK(!c->owner || (c->owner < L_NPANES && inside(l->r[c->owner], y, x)),
			      "%dx%d: pane %d drew at %d,%d outside its rectangle", cv->cols, cv->rows, c->owner, y, x);
		}
		row(cv, y, line);
		word |= strstr(line, words[f->db]) != NULL;
		CHECK(!strstr(line, SECRET), "%dx%d: the password on row %d: %s", cv->cols, cv->rows, y, line);
		CHECK(!strchr(line, '\x1b'), "%dx%d: an escape on row %d", cv->cols, cv->rows, y);
	}
	/* (a one-row frame says only what is wrong) */
	CHECK(word || cv->cols < (int)strlen(words[f->db]) + 2 || (cv->rows == 1 && f->db == TOP_FLEET_CONNECTED),
	      "%dx%d: no '%s'", cv->cols, cv->rows, words[f->db]);
	if (f->db == TOP_FLEET_UNREACHABLE && !l->tiny) {
		row(cv, 2, line);
		CHECK(!strncmp(line, "database unreachable", (size_t)(cv->cols < 20 ? cv->cols : 20)),
		      "%dx%d: row 2 is '%s'", cv->cols, cv->rows, line);
	}
}

static unsigned long sweep(struct top_fleet *f, struct top_view *v)
{
	unsigned long frames = 0;
	int step = T_SIZE(7, 29);

	for (int rows = 1; rows <= 60; rows++)
		for (int cols = 1; cols <= 200; cols++) {
			struct canvas cv;
			struct layout l;
			int edge = cols <= 12 || rows <= LAYOUT_MIN_ROWS + 1 || cols == LAYOUT_MIN_COLS ||
				   cols == LAYOUT_MIN_COLS - 1 || cols == 200 || rows == 60;
			layout_fleet(rows, cols, 40, VOCAB_NKINDS + 1, v->help, v->detail, &l);
			check_layout(&l, rows, cols);
			if (!edge && (rows * 201 + cols) % step)
				continue;
			CHECK(cv_init(&cv, rows, cols) == 0, "cv_init");
			CHECK(render_fleet(&cv, f, v, &l) == 0, "render");
			check_layout(&l, rows, cols);
			check_frame(&cv, &l, f);
			cv_free(&cv);
			frames++;
		}
	return frames;
}

/* The queue pane at 80x60: the known kinds in order, 0 included, then kind-9. */
static void check_queue(struct top_fleet *f)
{
	static const char *const want[] = { "winning-post  0        0        0        2",
					    "window-post   0        0        0        0",
					    "snap-deals    0        0        0        0",
					    "porep         12345    3        99       0",
					    "kind-9        7        0        0        0" };
	struct top_view v = { .focus = L_NODES, .tenths = 10 };
	char line[80 * 4 + 1];
	struct canvas cv;
	struct layout l;

	CHECK(cv_init(&cv, 60, 80) == 0, "cv_init");
	render_fleet(&cv, f, &v, &l);
	CHECK(layout_shown(&l, L_QUEUE), "80x60: no queue pane");
	for (int i = 0; i < 5; i++) {
		row(&cv, l.r[L_QUEUE].y + 1 + i, line);
		CHECK(!strcmp(line, want[i]), "queue row %d: '%s', expected '%s'", i, line, want[i]);
	}
	int seen = 0;
	for (int y = 0; y < 60; y++) {
		row(&cv, y, line);
		seen |= strstr(line, "evil\\x1b[2J\\x1b]0;owned\\x07") != NULL;
	}
	CHECK(seen, "the hostile name not shown as \\xNN");
	cv_free(&cv);
}

static void check_where(void)
{
	char w[200];

	fleet_watch_where("host=/run/postgresql port=5433 dbname=prov user=me password=" SECRET, w, sizeof w);
	CHECK(!strcmp(w, "dbname=prov host=/run/postgresql port=5433 user=me"), "where: '%s'", w);
	fleet_watch_where("postgresql://me:" SECRET "@db.example:5433/prov?sslmode=require", w, sizeof w);
	CHECK(!strstr(w, SECRET) && strstr(w, "host=db.example") && strstr(w, "dbname=prov"), "where (URI): '%s'", w);
	fleet_watch_where("", w, sizeof w);
	CHECK(!strcmp(w, "(libpq's defaults)"), "where (empty): '%s'", w);
}

int main(void)
{
	struct fleet_status st;
	struct top_fleet f = { .age_ns = 12300000000ull, .down_ns = 4000000000ull, .retry_ns = 1500000000ull,
			       .now_wall_ns = 1700000000000000000ull };
	unsigned long frames = 0;

	check_where();
	fill(&st);
	fleet_watch_where("host=/run/postgresql dbname=prov password=" SECRET, f.where, sizeof f.where);
	snprintf(f.err, sizeof f.err, "connecting: connection to server failed: \x1b[31mNo such file");
	check_queue(&(struct top_fleet){ .st = &st, .db = TOP_FLEET_CONNECTED });
	for (int db = TOP_FLEET_CONNECTING; db <= TOP_FLEET_UNREACHABLE; db++)
		for (int mode = 0; mode < 3; mode++) {
			struct top_view v = { .focus = L_NODES, .tenths = 10, .help = mode == 1, .detail = mode == 2,
					      .sel = { [L_NODES] = 3 } };
			f.db = db;
			f.st = db == TOP_FLEET_CONNECTING ? NULL : &st;
			f.trying = mode == 2;
			frames += sweep(&f, &v);
		}
	printf("info: %lu frames of top --fleet, 1x1 to 200x60, connected, connecting and unreachable\n", frames);
	return 0;
}
