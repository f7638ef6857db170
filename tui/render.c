/*
 * render: a whole frame of `provisor top` (see render.h): header with the
 * supervisor's health and totals, the panes where the layout puts them,
 * help or a detail view instead of the panes, and a footer with the keys.
 * Everything is clipped to the layout's rectangles; a pane tags the cells
 * it draws so the layout test can check who drew where.
 *
 * Text from the segment (instance name, event messages, job reasons) goes
 * through util_clean (util/text.h), the one sanitiser, before it reaches
 * the canvas: a byte outside printable ASCII shows as \xNN, four columns,
 * cut by the canvas like any other text. (The canvas still turns any
 * control code point into '?': a last guard for the renderer's own text.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/fmt.h"
#include "tui/render.h"
#include "util/text.h"

/* The health as the header shows it, as long as fits in w columns:
 * "[not responding for 3.2s]", "[not responding]", "not responding". */
static const char *health_text(char *buf, size_t len, const struct snap *s, int w, int *attr)
{
	char age[16];
	const char *word = snap_health_word(s);

	*attr = s->health == SHM_HEALTH_RUNNING ? CV_OK :
		s->health == SHM_HEALTH_NOT_RESPONDING ? CV_WARN : CV_BAD;
	fmt_dur(age, sizeof age, s->hb_age_ns);
	if (s->health == SHM_HEALTH_NOT_RESPONDING &&
	    snprintf(buf, len, "[%s for %s]", word, age) <= w)
		return buf;
	if (snprintf(buf, len, "[%s]", word) <= w)
		return buf;
	snprintf(buf, len, "%s", word);
	return buf;
}

/* First header row: name, pid, uptime and health; what does not fit goes,
 * in this order: the "provisor top" title, the pid, the end of the name,
 * the uptime, the name. The health is always drawn (whole down to its
 * word's width), so a dead or hung rig never looks fine on a narrow
 * terminal. */
static int header_line(struct canvas *cv, struct cv_rect r, const struct snap *s, int reserve)
{
	char up[16], health[48], name[4 * sizeof s->name], left[160];
	int attr, hw, room;

	util_clean(name, sizeof name, s->name);
	fmt_dur(up, sizeof up, snap_uptime_ns(s));
	hw = (int)strlen(health_text(health, sizeof health, s, r.w, &attr));
	room = r.w - hw - reserve;
	if (snprintf(left, sizeof left, "provisor top  %s  pid %u  up %s  ", name, s->sup_pid, up) > room &&
	    snprintf(left, sizeof left, "%s  pid %u  up %s  ", name, s->sup_pid, up) > room) {
		int tail = (int)strlen(up) + 7;	/* "  up " + up + "  " */
		if (room - tail >= 4)
			snprintf(left, sizeof left, "%.*s  up %s  ", room - tail, name, up);
		else if (snprintf(left, sizeof left, "up %s  ", up) > room &&
			 snprintf(left, sizeof left, "%.*s ", room - 1 > 0 ? room - 1 : 0, name) > room)
			left[0] = '\0';
	}
	int x = r.x + cv_text(cv, r.y, r.x, -1, CV_HEAD, left);
	return x + cv_text(cv, r.y, x, -1, attr, health);
}

/* The supervisor loop's latency, "loop p99 2.1ms max 12ms", or
 * "loop p99 2.1ms" where that does not fit in room columns, or nothing;
 * in the warning colour while its last slow iteration (over 50 ms) is
 * less than a minute old. Returns x after it. */
static int loop_text(struct canvas *cv, int y, int x, int room, const struct snap *s)
{
	char p99[16], max[16], t[64];
	int attr = CV_DIM;

	if (!s->sup.loop_iterations)
		return x;
	if (s->sup.loop_slow_count && s->now_mono_ns - s->sup.loop_slow_mono_ns < 60000000000ull)
		attr = CV_WARN;
	fmt_lat(p99, sizeof p99, s->sup.loop_p99_ns);
	fmt_lat(max, sizeof max, s->sup.loop_max_ns);
	snprintf(t, sizeof t, "loop p99 %s max %s  ", p99, max);
	if ((int)strlen(t) - 2 > room)
		snprintf(t, sizeof t, "loop p99 %s  ", p99);
	if ((int)strlen(t) - 2 > room)
		return x;
	return x + cv_text(cv, y, x, -1, attr, t);
}

static void header(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v)
{
	char clk[16], kb[16], name[4 * sizeof s->name], err[4 * sizeof s->err];
	int x;

	if (!s->attached) {
		cv_printf(cv, r.y, r.x, -1, CV_BAD, "provisor top  %s  not running: %s",
			  util_clean(name, sizeof name, s->name), util_clean(err, sizeof err, s->err));
		return;
	}
	/* the throughput sparkline (8 or more refreshes) goes before the
	 * title does: it says more than the program's name */
	int tput = r.w >= 70 && v->hist && v->hist->n && !snap_sup_gone(s) ? 2 + 6 + 8 + 7 : 0;
	x = header_line(cv, r, s, tput ? tput + 9 : 0);
	fmt_clock(clk, sizeof clk, s->now_wall_ns);
	if (r.w >= 70 && x + 1 <= r.x + r.w - 8)
		cv_text(cv, r.y, r.x + r.w - 8, 8, CV_NORMAL, clk);
	if (tput)
		render_throughput(cv, r.y, x + 2, r.x + r.w - 8 - 2 - (x + 2), v);
	if (r.h < 2)
		return;
	if (!s->sup_ok) {
		cv_text(cv, r.y + 1, r.x, -1, CV_DIM, "supervisor record unreadable");
		return;
	}
	x = r.x + cv_printf(cv, r.y + 1, r.x, -1, CV_NORMAL,
			    "jobs %llu queued %llu running %llu done %llu failed  ",
			    (unsigned long long)s->sup.jobs_queued, (unsigned long long)s->sup.jobs_running,
			    (unsigned long long)s->sup.jobs_done, (unsigned long long)s->sup.jobs_failed);
	if (s->sup.jobs_cancelled)
		x += cv_printf(cv, r.y + 1, x, -1, CV_NORMAL, "%llu cancelled  ",
			       (unsigned long long)s->sup.jobs_cancelled);
	if (s->jobs_by_state[SHM_JOB_BLOCKED])	/* waiting for space: say so first */
		x += cv_printf(cv, r.y + 1, x, -1, CV_WARN, "%u blocked  ",
			       s->jobs_by_state[SHM_JOB_BLOCKED]);
	if (s->sup.state == SHM_SUP_DEGRADED) {	/* short of what it was asked to run */
		char why[4 * sizeof s->sup.degraded_reason];
		x += cv_printf(cv, r.y + 1, x, -1, CV_BAD, "degraded: %s  ",
			       util_cleann(why, sizeof why, s->sup.degraded_reason,
					   sizeof s->sup.degraded_reason));
	} else if (s->sup.state == SHM_SUP_DRAINING || s->sup.state == SHM_SUP_STOPPING) {
		x += cv_printf(cv, r.y + 1, x, -1, CV_WARN, "%s  ", fmt_sup_state(s->sup.state));
	}
	if (s->parts_per_min >= 0)
		x += cv_printf(cv, r.y + 1, x, -1, CV_NORMAL, "%.1f parts/min  ", s->parts_per_min);
	if (s->sup.preemptions)	/* work taken back for more urgent work */
		x += cv_printf(cv, r.y + 1, x, -1, CV_NORMAL, "%llu preempted  ",
			       (unsigned long long)s->sup.preemptions);
	x = loop_text(cv, r.y + 1, x, r.x + r.w - x, s);
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		char done[48];
		if (!s->sup.jobs_done_kind[k - 1])
			continue;
		snprintf(done, sizeof done, "%s:%llu ", fmt_kind(k, kb, sizeof kb),
			 (unsigned long long)s->sup.jobs_done_kind[k - 1]);
		if ((int)strlen(done) - 1 > r.x + r.w - x)
			break;	/* whole or not at all: a cut number would mislead */
		x += cv_text(cv, r.y + 1, x, -1, CV_DIM, done);
	}
}

static void help(struct canvas *cv, struct cv_rect r, const struct top_view *v)
{
	static const char *const lines[] = {
		"provisor top: what every worker of a provisor instance is doing",
		"",
		"  Up/Down, k/j   move in the focused pane      PgUp/PgDn, Home/End  page, ends",
		"  Tab, S-Tab     next/previous pane            Enter   detail of the selected row",
		"  /              filter jobs (Enter keeps, Esc clears)",
		"  s / r          sort jobs by the next column / reverse   m  meters on/off",
		"  c              cancel the selected job (asks y/n)",
		"  d / e          disable / enable the selected slot (asks y/n)",
		"  + / -          refresh slower / faster       ? or F1 this help",
		"  q              quit (Esc closes help and detail first)",
		"",
		"Meters: slot, state (B busy I idle S starting W backoff C crashed D disabled",
		"T stopped E empty ? unknown), UTIL, then UTIL of the refreshes before, newest",
		"right. UTIL is busy time over the last refresh interval: a partition shorter",
		"than the interval still shows. Header: parts done per refresh interval.",
		"Header health: running, not responding for Ns (stale heartbeat), not running.",
		"",
	};
	int y = r.y, attr;

	for (size_t i = 0; i < sizeof lines / sizeof lines[0] && y < r.y + r.h; i++, y++)
		cv_text(cv, y, r.x, -1, i ? CV_NORMAL : CV_HEAD, lines[i]);
	if (y >= r.y + r.h)
		return;
	int x = r.x + cv_text(cv, y, r.x, -1, CV_NORMAL, "Partitions: ");
	for (uint32_t st = 0; st < SHM_PART_NSTATES; st++) {
		cv_put(cv, y, x, render_part_glyph(st, v->ascii, &attr), attr);
		x += 2 + cv_text(cv, y, x + 2, -1, CV_NORMAL, fmt_part_state(st)) + 1;
	}
	if (++y < r.y + r.h)
		cv_text(cv, y, r.x, -1, CV_DIM, "Press ? or Esc to close.");
}

static void detail_slot(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v)
{
	uint32_t n, t = v->focus == L_GPU ? SHM_T_GPU : SHM_T_SYNTH;
	const struct snap_slot *sl = snap_slots(s, t, &n);
	char name[24], a[24], b[24], c[24], kb[16], ex[40];
	int y = r.y;

	if (v->sel[v->focus] >= (int)n)
		return;
	const struct snap_slot *o = &sl[v->sel[v->focus]];
	const struct shm_slot *x = &o->v;
	fmt_slot(name, sizeof name, t, (uint32_t)v->sel[v->focus]);
	cv_printf(cv, y++, r.x, -1, CV_HEAD, "%s  (Esc to close)", name);
	if (!o->ok) {
		cv_text(cv, y, r.x, -1, CV_BAD, "record unreadable");
		return;
	}
	fmt_dur(a, sizeof a, s->now_mono_ns > x->state_since_ns ? s->now_mono_ns - x->state_since_ns : 0);
	fmt_dur(b, sizeof b, o->busy_total_ns);
	fmt_dur(c, sizeof c, x->heartbeat_mono_ns && s->now_mono_ns > x->heartbeat_mono_ns ?
		s->now_mono_ns - x->heartbeat_mono_ns : 0);
	fmt_exit(ex, sizeof ex, x->last_exit_kind, x->last_exit_code);
	cv_printf(cv, y++, r.x, -1, render_slot_attr(x->state), "state %s for %s, pid %u, backend %s, gpu %u",
		  shm_slot_state_name(x->state), a, x->pid, fmt_backend(x->backend), x->gpu);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "generation %llu (newest end %llu), assignment job %llu %s partition %u",
		  (unsigned long long)x->gen, (unsigned long long)x->end_gen,
		  (unsigned long long)x->job_id, fmt_kind(x->kind, kb, sizeof kb), x->partition);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "busy %s in all; utilization %.1f%% last interval, %.1f%% lifetime",
		  b, o->util >= 0 ? o->util * 100 : 0, o->util_life >= 0 ? o->util_life * 100 : 0);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "partitions done %llu, failed %llu; restarts %llu; last exit %s",
		  (unsigned long long)x->done, (unsigned long long)x->failed,
		  (unsigned long long)x->restarts, ex);
	char ld[48] = "";
	if (x->state == SHM_SLOT_LOADING)
		snprintf(ld, sizeof ld, "; loading params %u%%", x->load_permille / 10);
	else if (x->load_ns)
		snprintf(ld, sizeof ld, "; params loaded in %.2f s", x->load_ns / 1e9);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "partitions pre-empted %llu (taken back for more urgent work)%s",
		  (unsigned long long)x->preempted, ld);
	cv_printf(cv, y++, r.x, -1, CV_NORMAL, "last heartbeat %s ago", c);
}

/* line cut to at most w columns at a blank: a field shows whole or not
 * at all (a duration cut short misleads: "11ms" would read "11m"). */
static const char *whole_fields(char *line, int w)
{
	char *p;

	if (w < 0 || (int)strlen(line) <= w)
		return line;
	if (line[w] == ' ') {	/* the cut falls between two fields */
		line[w] = '\0';
		return line;
	}
	line[w] = '\0';
	if ((p = strrchr(line, ' ')))
		*p = '\0';
	return line;
}

static void detail_job(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v)
{
	char kb[16], a[16], b[16], sa[16], sb[16], why[4 * sizeof s->jobs[0].v.reason], line[96];
	int sel = v->sel[L_JOBS], per, cols;

	if (sel >= v->count[L_JOBS] || !v->jobs)
		return;
	const struct snap_job *j = &s->jobs[v->jobs[sel]];
	fmt_dur(a, sizeof a, j->elapsed_ns);
	cv_printf(cv, r.y, r.x, -1, CV_HEAD, "job %llu %s %s, %u/%u done, elapsed %s, k=%u  (Esc to close)",
		  (unsigned long long)j->v.id, fmt_kind(j->v.kind, kb, sizeof kb), fmt_job_state(j->v.state),
		  j->count[SHM_PART_DONE], j->v.nparts, a, j->v.log_size);
	if (j->v.reason[0] && r.h > 1)
		/* as much as the pane holds, cut at a word */
		cv_printf(cv, r.y + 1, r.x, -1, CV_BAD, "reason: %s",
			  util_clip_words(why, r.w > 16 && (size_t)r.w - 7 < sizeof why ? (size_t)r.w - 7
					  : sizeof why, j->v.reason));
	per = r.h - 3;
	if (per < 1)
		return;
	/* whole columns only: a cut one turned "11ms" into "11m" */
	cols = (r.w + 1) / 52 > 0 ? (r.w + 1) / 52 : 1;
	for (int c = 0; c < cols; c++) {
		snprintf(line, sizeof line, "PART STATE        TRY SYNTH    TIME   GPU    TIME  ");
		cv_text(cv, r.y + 2, r.x + c * 52, -1, CV_BAR, whole_fields(line, r.w));
	}
	uint32_t fit = (uint32_t)(per * cols);
	if (j->v.nparts > fit && fit > 1) {	/* the last row says how many more */
		fit--;
		cv_printf(cv, r.y + 3 + (int)fit % per, r.x + (int)fit / per * 52, 51, CV_WARN,
			  "+%u more partitions: widen the terminal", j->v.nparts - fit);
	}
	for (uint32_t p = 0; p < j->v.nparts && p < fit; p++) {
		const struct shm_part *q = &j->v.part[p];
		int y = r.y + 3 + (int)p % per, x = r.x + (int)p / per * 52, attr;
		render_part_glyph(q->state, v->ascii, &attr);
		snprintf(sa, sizeof sa, "-");
		snprintf(sb, sizeof sb, "-");
		if (q->synth_slot != 0xffff) fmt_slot(sa, sizeof sa, SHM_T_SYNTH, q->synth_slot);
		if (q->gpu_slot != 0xffff) fmt_slot(sb, sizeof sb, SHM_T_GPU, q->gpu_slot);
		fmt_dur(a, sizeof a, q->synth_ns);
		fmt_dur(b, sizeof b, q->gpu_ns);
		snprintf(line, sizeof line, "%-4u %-12s %-3u %-8s %-6s %-6s %-6s", p,
			 fmt_part_state(q->state), q->attempts, sa, a, sb, b);
		cv_text(cv, y, x, -1, attr, whole_fields(line, r.x + r.w - x));
	}
}

static void detail(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v)
{
	if (v->focus == L_JOBS)
		detail_job(cv, r, s, v);
	else if (v->focus == L_GPU || v->focus == L_SYNTH)
		detail_slot(cv, r, s, v);
	else if (v->sel[L_EVENTS] < (int)s->nevents) {
		const struct shm_event *e = &s->events[s->nevents - 1 - v->sel[L_EVENTS]];
		char clk[16], msg[4 * sizeof e->msg];
		fmt_clock(clk, sizeof clk, e->wall_ns);
		cv_printf(cv, r.y, r.x, -1, CV_HEAD, "event #%llu at %s  (Esc to close)", (unsigned long long)e->seq, clk);
		cv_printf(cv, r.y + 1, r.x, -1, CV_NORMAL, "%s, code %d, job %llu partition %u",
			  fmt_event_type(e->type), e->code, (unsigned long long)e->job_id, e->partition);
		cv_text(cv, r.y + 2, r.x, -1, CV_NORMAL, util_clean(msg, sizeof msg, e->msg));
	}
}

static void footer(struct canvas *cv, struct cv_rect r, const struct layout *l, const struct snap *s,
		   const struct top_view *v)
{
	if (l->tiny) {
		int x = r.x;
		if (!layout_shown(l, L_HEADER) && s->attached && s->health != SHM_HEALTH_RUNNING) {
			char health[48];	/* one row only: the health first */
			int attr;
			health_text(health, sizeof health, s, r.w, &attr);
			x += cv_text(cv, r.y, x, -1, attr, health) + 1;
		}
		cv_printf(cv, r.y, x, -1, CV_WARN, "terminal too small (%dx%d): need %dx%d",
			  cv->cols, cv->rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		return;
	}
	if (v->filtering) {
		cv_printf(cv, r.y, r.x, -1, CV_HEAD, "filter jobs: %s_", v->filter);
		return;
	}
	if (v->ask.op) {
		cv_printf(cv, r.y, r.x, -1, CV_WARN, "%s? y/n", v->ask.what);
		return;
	}
	int x = r.x;
	if (v->msg[0])
		x += cv_printf(cv, r.y, x, -1, CV_WARN, "%s  ", v->msg);
	if (l->hidden)
		x += cv_printf(cv, r.y, x, -1, CV_WARN, "%d pane%s hidden: enlarge the terminal  ",
			       l->hidden, l->hidden > 1 ? "s" : "");
	/* c, d, e, r, m are in the help: 80 columns hold no more */
	cv_printf(cv, r.y, x, -1, CV_DIM, "q quit  ? help  Tab pane  %s move  Enter detail  / filter  s sort  +/- %.1fs%s",
		  v->ascii ? "Up/Dn" : "\u2191\u2193", v->tenths / 10.0, v->read_only ? "  read-only" : "");
}

int render_frame(struct canvas *cv, const struct snap *s, struct top_view *v, struct layout *l)
{
	struct layout_in in = { 0 };
	int nj = s->attached ? render_job_order(s, v) : 0;

	if (nj < 0)
		return -ENOMEM;
	if (s->attached) {
		in = (struct layout_in){ (int)s->ngpu, (int)s->nsynth, nj, (int)s->nevents, 0, 0, 0 };
	}
	in.help = v->help;
	in.detail = v->detail && s->attached;
	in.no_meters = v->no_meters;
	layout_compute(cv->rows, cv->cols, &in, l);
	cv_clear(cv);
	if (!s->attached)
		v->count[L_JOBS] = 0;
	cv_clip(cv, l->r[L_HEADER], L_HEADER);
	header(cv, l->r[L_HEADER], s, v);
	if (layout_shown(l, L_METERS)) {
		cv_clip(cv, l->r[L_METERS], L_METERS);
		render_meters(cv, l->r[L_METERS], s, v, &l->m);
	}
	if (layout_shown(l, L_HELP)) {
		cv_clip(cv, l->r[L_HELP], L_HELP);
		help(cv, l->r[L_HELP], v);
	}
	if (layout_shown(l, L_DETAIL)) {
		cv_clip(cv, l->r[L_DETAIL], L_DETAIL);
		detail(cv, l->r[L_DETAIL], s, v);
	}
	if (s->attached && !in.help && !in.detail) {
		for (int p = L_GPU; p <= L_EVENTS; p++) {
			if (!layout_shown(l, p))
				continue;
			cv_clip(cv, l->r[p], (uint8_t)p);
			if (p == L_GPU || p == L_SYNTH)
				render_slots(cv, l->r[p], s, v, p);
			else if (p == L_JOBS)
				render_jobs(cv, l->r[p], s, v);
			else
				render_events(cv, l->r[p], s, v);
		}
	}
	cv_clip(cv, l->r[L_FOOTER], L_FOOTER);
	footer(cv, l->r[L_FOOTER], l, s, v);
	return 0;
}

void render_view_free(struct top_view *v)
{
	free(v->jobs);
	v->jobs = NULL;
	v->jobs_cap = 0;
}
