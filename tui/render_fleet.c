/*
 * render_fleet: one frame of `provisor top --fleet` drawn into a canvas,
 * a pure function of the canvas size, what the database last said and
 * the view state, as render_frame is for one instance (and with its
 * pieces: the layout's rectangles, render_pick's columns by priority,
 * render_scroll, render_heading, the footer's key hints).
 *
 * Three header rows: the fleet and the database's state word (always
 * drawn, as an instance's health is), the totals, and the database line,
 * which says plainly when the database is unreachable, why, how old the
 * view below it is and when the next attempt comes. Then every node
 * (its state in its colour, slots busy of total, the jobs it holds) and
 * the queue per kind (every known kind, 0 included, then any other the
 * database holds). Text from the database or libpq goes through
 * util_clean; the DSN is shown only as fleet_watch_where made it (no
 * password).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"
#include "tui/fmt.h"
#include "tui/render.h"
#include "util/text.h"
#include "util/vocab.h"

static const char *db_word(int db)
{
	return db == TOP_FLEET_CONNECTED ? "connected" : db == TOP_FLEET_UNREACHABLE ? "unreachable" : "connecting";
}

static int state_attr(const char *state)
{
	if (!strcmp(state, "alive"))
		return CV_OK;
	if (!strcmp(state, "stale"))
		return CV_WARN;
	if (!strcmp(state, "stopping"))
		return CV_INFO;
	return CV_BAD;
}

static uint64_t secs_ns(double s)
{
	return s > 0 ? (uint64_t)(s * 1e9) : 0;
}

/* Row 0: title and where, the state word always (whole, or its word). */
static void header_title(struct canvas *cv, struct cv_rect r, const struct top_fleet *f)
{
	char word[24], where[4 * sizeof f->where], clk[16];
	int attr = f->db == TOP_FLEET_CONNECTED ? CV_OK : f->db == TOP_FLEET_UNREACHABLE ? CV_BAD : CV_WARN;
	int ww, clkw = r.w >= 70 ? 9 : 0;

	snprintf(word, sizeof word, "[%s]", db_word(f->db));
	if ((int)strlen(word) > r.w)
		snprintf(word, sizeof word, "%s", db_word(f->db));
	ww = (int)strlen(word);
	util_clean(where, sizeof where, f->where);
	int room = r.w - ww - clkw - 1, x = r.x;
	if (room > 0)
		x += cv_printf(cv, r.y, r.x, room, CV_HEAD, "provisor top --fleet  %s", where);
	x = x > r.x ? x + 1 : x;
	cv_text(cv, r.y, x, -1, attr, word);
	if (clkw && f->now_wall_ns) {
		fmt_clock(clk, sizeof clk, f->now_wall_ns);
		cv_text(cv, r.y, r.x + r.w - 8, 8, CV_NORMAL, clk);
	}
}

/* Row 1: the totals of the last view. */
static void header_totals(struct canvas *cv, struct cv_rect r, const struct fleet_status *st)
{
	long long q = 0, run = 0, d = 0, fl = 0;
	int n[4] = { 0 };	/* alive, stale, dead, stopping */

	if (!st) {
		cv_text(cv, r.y, r.x, -1, CV_DIM, "no view of the fleet yet");
		return;
	}
	for (size_t i = 0; i < st->nkinds; i++) {
		q += st->kinds[i].queued;
		run += st->kinds[i].running;
		d += st->kinds[i].done;
		fl += st->kinds[i].failed;
	}
	for (size_t i = 0; i < st->nnodes; i++) {
		const char *s = st->nodes[i].state;
		n[!strcmp(s, "alive") ? 0 : !strcmp(s, "stale") ? 1 : !strcmp(s, "stopping") ? 3 : 2]++;
	}
	int x = r.x + cv_printf(cv, r.y, r.x, -1, CV_NORMAL, "nodes %zu: ", st->nnodes);
	x += cv_printf(cv, r.y, x, -1, n[0] ? CV_OK : CV_NORMAL, "%d alive ", n[0]);
	x += cv_printf(cv, r.y, x, -1, n[1] ? CV_WARN : CV_NORMAL, "%d stale ", n[1]);
	x += cv_printf(cv, r.y, x, -1, n[2] ? CV_BAD : CV_NORMAL, "%d dead ", n[2]);
	if (n[3])
		x += cv_printf(cv, r.y, x, -1, CV_INFO, "%d stopping ", n[3]);
	x += cv_printf(cv, r.y, x, -1, CV_NORMAL, " jobs %lld queued %lld running ", q, run);
	if (st->expired)
		x += cv_printf(cv, r.y, x, -1, CV_WARN, "(%lld on an expired lease) ", st->expired);
	cv_printf(cv, r.y, x, -1, CV_NORMAL, "%lld done %lld failed", d, fl);
}

/* Row 2: the database, in one line. */
static void header_db(struct canvas *cv, struct cv_rect r, const struct top_fleet *f, const struct top_view *v)
{
	char age[16], down[16], retry[16], err[4 * sizeof f->err];

	fmt_dur(age, sizeof age, f->age_ns);
	if (f->db == TOP_FLEET_UNREACHABLE) {
		fmt_dur(down, sizeof down, f->down_ns);
		fmt_dur(retry, sizeof retry, f->retry_ns);
		util_clean(err, sizeof err, f->err);
		char next[32];
		snprintf(next, sizeof next, f->trying ? "trying again now" : "retrying in %s", retry);
		/* the error last: it is the part a narrow terminal may cut */
		if (f->st)
			cv_printf(cv, r.y, r.x, -1, CV_BAD, "database unreachable for %s, the view below is %s old, %s: %s",
				  down, age, next, err);
		else
			cv_printf(cv, r.y, r.x, -1, CV_BAD, "database unreachable for %s, no view yet, %s: %s", down, next,
				  err);
	} else if (f->db == TOP_FLEET_CONNECTED && f->st) {
		cv_printf(cv, r.y, r.x, -1, CV_DIM, "database: read %s ago, every %.1fs", age, v->tenths / 10.0);
	} else {
		cv_text(cv, r.y, r.x, -1, CV_DIM, "database: connecting...");
	}
}

static void header(struct canvas *cv, const struct layout *l, const struct top_fleet *f, const struct top_view *v)
{
	struct cv_rect r = l->r[L_HEADER];

	header_title(cv, r, f);
	if (r.h >= 2)
		header_totals(cv, (struct cv_rect){ r.y + 1, r.x, 1, r.w }, f->st);
	if (r.h >= 3)
		header_db(cv, (struct cv_rect){ r.y + 2, r.x, 1, r.w }, f, v);
}

enum { NC_NODE, NC_STATE, NC_SEEN, NC_GPU, NC_SYNTH, NC_JOBS, NC_LOCAL, NC_DONE, NC_LOOP, NC_HOST, NC_N };

/* The text of column c for node n, and its attribute. */
static int node_cell(char *b, size_t len, int c, const struct fleet_node_row *n)
{
	char t[64];

	switch (c) {
	case NC_NODE: util_clean(b, len, n->name); break;
	case NC_STATE: snprintf(b, len, "%s", n->state); return state_attr(n->state);
	case NC_SEEN: fmt_dur(t, sizeof t, secs_ns(n->age_s)); snprintf(b, len, "%s", t); break;
	case NC_GPU: snprintf(b, len, "%d/%d", n->gpu_busy, n->gpu_slots); return n->gpu_busy ? CV_OK : CV_NORMAL;
	case NC_SYNTH: snprintf(b, len, "%d/%d", n->synth_busy, n->synth_slots); break;
	case NC_JOBS: snprintf(b, len, "%lld/%d", n->running, n->max_jobs); break;
	case NC_LOCAL: snprintf(b, len, "%d", n->local_jobs); break;
	case NC_DONE: snprintf(b, len, "%lld", n->done); break;
	case NC_LOOP: fmt_lat(b, len, (uint64_t)(n->loop_max_us > 0 ? n->loop_max_us : 0) * 1000); break;
	case NC_HOST: util_clean(b, len, n->host); break;
	}
	return CV_NORMAL;
}

static void nodes(struct canvas *cv, struct cv_rect r, const struct top_fleet *f, struct top_view *v)
{
	struct render_col c[NC_N] = {
		{ "NODE", 8, 0 }, { "STATE", 8, 0 }, { "SEEN", 6, 2 }, { "GPU", 7, 1 }, { "SYNTH", 7, 3 },
		{ "JOBS", 7, 1 }, { "LOCAL", 5, 4 }, { "DONE", 7, 3 }, { "LOOP", 6, 5 }, { "HOST", 16, 6 },
	};
	int on[NC_N], n = f->st ? (int)f->st->nnodes : 0, vis = r.h - 1, first;
	char extra[48] = "", age[16], b[4 * 128];

	for (int i = 0; i < n; i++) {	/* the names as wide as the longest, within reason */
		int w = (int)strlen(util_clean(b, sizeof b, f->st->nodes[i].name));
		if (w > c[NC_NODE].w)
			c[NC_NODE].w = w < 40 ? w : 40;
	}
	if (c[NC_NODE].w > r.w - 9)	/* the state always fits beside it */
		c[NC_NODE].w = r.w - 9 > 4 ? r.w - 9 : 4;
	render_pick(c, NC_N, r.w, on);
	if (!f->st)
		snprintf(extra, sizeof extra, "(no view yet)");
	else if (!n)
		snprintf(extra, sizeof extra, "(no node has registered)");
	else if (f->db == TOP_FLEET_UNREACHABLE)
		snprintf(extra, sizeof extra, "as of %s ago", (fmt_dur(age, sizeof age, f->age_ns), age));
	render_heading(cv, r, c, NC_N, on, "NODE", extra, v->focus == L_NODES);
	first = render_scroll(v, L_NODES, n, vis);
	for (int row = 0; row < vis && first + row < n; row++) {
		const struct fleet_node_row *nd = &f->st->nodes[first + row];
		int y = r.y + 1 + row, x = r.x;
		for (int i = 0; i < NC_N; i++) {
			if (!on[i])
				continue;
			int attr = node_cell(b, sizeof b, i, nd);
			cv_text(cv, y, x, c[i].w, attr, b);
			x += c[i].w + 1;
		}
		if (v->focus == L_NODES && first + row == v->sel[L_NODES])
			cv_attr_span(cv, y, r.x, r.w, CV_SEL);
	}
}

static void queue(struct canvas *cv, struct cv_rect r, const struct top_fleet *f, struct top_view *v,
		  const struct fleet_kind_row *rows, int n)
{
	static const struct render_col c[5] = {
		{ "KIND", 13, 0 }, { "QUEUED", 8, 0 }, { "RUNNING", 8, 1 }, { "DONE", 8, 2 }, { "FAILED", 8, 2 },
	};
	int on[5], vis = r.h - 1;
	char b[4 * 16];

	render_pick(c, 5, r.w, on);
	render_heading(cv, r, c, 5, on, "KIND", f->st ? "" : "(no view yet)", v->focus == L_QUEUE);
	int first = render_scroll(v, L_QUEUE, n, vis);
	for (int row = 0; row < vis && first + row < n; row++) {
		const struct fleet_kind_row *k = &rows[first + row];
		const long long val[5] = { 0, k->queued, k->running, k->done, k->failed };
		int y = r.y + 1 + row, x = r.x;
		for (int i = 0; i < 5; i++) {
			if (!on[i])
				continue;
			if (i)
				snprintf(b, sizeof b, "%lld", val[i]);
			else
				util_clean(b, sizeof b, k->kind);
			cv_text(cv, y, x, c[i].w, i == 4 && val[i] ? CV_BAD : i == 1 && val[i] ? CV_WARN : CV_NORMAL, b);
			x += c[i].w + 1;
		}
		if (v->focus == L_QUEUE && first + row == v->sel[L_QUEUE])
			cv_attr_span(cv, y, r.x, r.w, CV_SEL);
	}
}

static void help(struct canvas *cv, struct cv_rect r)
{
	static const char *const lines[] = {
		"provisor top --fleet: every node of a fleet and its queue, from the database",
		"",
		"  Up/Down, k/j   move in the focused pane      PgUp/PgDn, Home/End  page, ends",
		"  Tab, S-Tab     nodes / queue                 Enter   a node's whole row",
		"  + / -          refresh slower / faster       ? or F1 this help",
		"  q              quit (Esc closes help and detail first)",
		"",
		"STATE: alive (a heartbeat within two intervals), stale (none since, but within",
		"its lease), dead (none for longer than its lease: its jobs go to the others),",
		"stopping. GPU and SYNTH: slots busy/total. JOBS: fleet jobs it holds/its max.",
		"LOCAL: jobs in its own queue. DONE: results it stored. LOOP: its loop's longest.",
		"Queue: jobs per kind and state. A database that does not answer never holds",
		"the view: the last one stays, with its age, and the database is asked again.",
		"",
		"Press ? or Esc to close.",
	};

	for (size_t i = 0; i < sizeof lines / sizeof lines[0] && (int)i < r.h; i++)
		cv_text(cv, r.y + (int)i, r.x, -1, i ? CV_NORMAL : CV_HEAD, lines[i]);
}

static void detail(struct canvas *cv, struct cv_rect r, const struct top_fleet *f, const struct top_view *v)
{
	char name[4 * 64], host[4 * 128], be[4 * 16], kinds[4 * 256], seen[16], loop[16];
	int y = r.y;

	if (!f->st || v->sel[L_NODES] >= (int)f->st->nnodes) {
		cv_text(cv, y, r.x, -1, CV_DIM, "no node selected  (Esc to close)");
		return;
	}
	const struct fleet_node_row *n = &f->st->nodes[v->sel[L_NODES]];
	fmt_dur(seen, sizeof seen, secs_ns(n->age_s));
	fmt_lat(loop, sizeof loop, (uint64_t)(n->loop_max_us > 0 ? n->loop_max_us : 0) * 1000);
	cv_printf(cv, y++, r.x, -1, CV_HEAD, "node %s  (Esc to close)", util_clean(name, sizeof name, n->name));
	cv_printf(cv, y++, r.x, -1, state_attr(n->state), "%s, last heartbeat %s ago", n->state, seen);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "host %s, backend %s", util_clean(host, sizeof host, n->host),
		  util_clean(be, sizeof be, n->backend));
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "GPU slots %d busy of %d, synth slots %d busy of %d", n->gpu_busy,
		  n->gpu_slots, n->synth_busy, n->synth_slots);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "fleet jobs held %lld (by its beat: %d) of at most %d; local jobs %d",
		  n->running, n->held, n->max_jobs, n->local_jobs);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "results stored %lld; its loop's longest iteration %s", n->done, loop);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "kinds: %s", util_clean(kinds, sizeof kinds, n->kinds));
}

static void footer(struct canvas *cv, struct cv_rect r, const struct layout *l, const struct top_fleet *f,
		   const struct top_view *v)
{
	int x = r.x;

	if (l->tiny) {
		if (!layout_shown(l, L_HEADER) && f->db != TOP_FLEET_CONNECTED)	/* one row: the database first */
			x += cv_printf(cv, r.y, x, -1, CV_BAD, "[%s] ", db_word(f->db));
		cv_printf(cv, r.y, x, -1, CV_WARN, "terminal too small (%dx%d): need %dx%d", cv->cols, cv->rows,
			  LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		return;
	}
	if (v->msg[0])
		x += cv_printf(cv, r.y, x, -1, CV_WARN, "%s  ", v->msg);
	if (l->hidden)
		x += cv_printf(cv, r.y, x, -1, CV_WARN, "queue hidden: enlarge the terminal  ");
	cv_printf(cv, r.y, x, -1, CV_DIM, "q quit  ? help  Tab pane  %s move  Enter detail  +/- %.1fs  read-only",
		  v->ascii ? "Up/Dn" : "\u2191\u2193", v->tenths / 10.0);
}

int render_fleet(struct canvas *cv, const struct top_fleet *f, struct top_view *v, struct layout *l)
{
	struct fleet_kind_row rows[VOCAB_NKINDS + 8];
	int nn = f->st ? (int)f->st->nnodes : 0;
	int nk = f->st ? (int)fleet_status_by_kind(f->st, rows, sizeof rows / sizeof rows[0]) : 0;

	layout_fleet(cv->rows, cv->cols, nn, nk ? nk : VOCAB_NKINDS, v->help, v->detail, l);
	cv_clear(cv);
	if (v->focus != L_NODES && v->focus != L_QUEUE)
		v->focus = L_NODES;
	if (layout_shown(l, L_HEADER)) {
		cv_clip(cv, l->r[L_HEADER], L_HEADER);
		header(cv, l, f, v);
	}
	if (layout_shown(l, L_HELP)) {
		cv_clip(cv, l->r[L_HELP], L_HELP);
		help(cv, l->r[L_HELP]);
	}
	if (layout_shown(l, L_DETAIL)) {
		cv_clip(cv, l->r[L_DETAIL], L_DETAIL);
		detail(cv, l->r[L_DETAIL], f, v);
	}
	if (layout_shown(l, L_NODES)) {
		cv_clip(cv, l->r[L_NODES], L_NODES);
		nodes(cv, l->r[L_NODES], f, v);
	}
	if (layout_shown(l, L_QUEUE)) {
		cv_clip(cv, l->r[L_QUEUE], L_QUEUE);
		queue(cv, l->r[L_QUEUE], f, v, rows, nk);
	} else if (v->focus == L_QUEUE) {
		v->focus = L_NODES;
	}
	if (layout_shown(l, L_FOOTER)) {
		cv_clip(cv, l->r[L_FOOTER], L_FOOTER);
		footer(cv, l->r[L_FOOTER], l, f, v);
	}
	return 0;
}
