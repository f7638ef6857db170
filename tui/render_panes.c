/*
 * render_panes: the GPU, synth, jobs and events panes. Columns carry a
 * priority: a narrow pane keeps the most important ones (slot, state, job,
 * partition, utilization) and drops the rest, so 80 columns show what an
 * operator looks for first. Each pane's first row is its column headings.
 *
 * When the supervisor is gone (snap_sup_gone), a slot's record is its last
 * word, not what a worker does now: STATE shows "unknown", the pid and
 * assignment columns go, and "(supervisor gone)" follows where the row has
 * room (from 35 columns).
 * Event messages go through util_clean (util/text.h) first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/fmt.h"
#include "tui/render.h"
#include "util/text.h"

void render_pick(const struct render_col *c, int n, int width, int *on)
{
	int used = 0;

	memset(on, 0, (size_t)n * sizeof *on);
	for (int p = 0; p < 10; p++)
		for (int i = 0; i < n; i++)
			if (c[i].prio == p && c[i].w >= 0 && used + c[i].w + 1 <= width + 1) {
				on[i] = 1;
				used += c[i].w + 1;
			}
}

int render_scroll(struct top_view *v, int pane, int n, int vis)
{
	int *sel = &v->sel[pane], *first = &v->first[pane];

	v->count[pane] = n;
	if (*sel >= n) *sel = n - 1;
	if (*sel < 0) *sel = 0;
	if (vis < 1) vis = 1;
	if (*first > *sel) *first = *sel;
	if (*sel >= *first + vis) *first = *sel - vis + 1;
	if (*first > n - vis) *first = n - vis;
	if (*first < 0) *first = 0;
	return *first;
}

void render_heading(struct canvas *cv, struct cv_rect r, const struct render_col *c, int n,
		    const int *on, const char *first, const char *extra, int focused)
{
	int x = r.x;

	for (int i = 0; i < r.w; i++)
		cv_put(cv, r.y, r.x + i, ' ', focused ? CV_SEL : CV_BAR);
	for (int i = 0; i < n; i++) {
		if (!on[i])
			continue;
		cv_text(cv, r.y, x, c[i].w, focused ? CV_SEL : CV_BAR, i == 0 ? first : c[i].name);
		x += c[i].w + 1;
	}
	if (extra && x + 1 + (int)strlen(extra) <= r.x + r.w)
		cv_text(cv, r.y, x + 1, -1, focused ? CV_SEL : CV_BAR, extra);
}

enum { SC_SLOT, SC_GPU, SC_PID, SC_STATE, SC_JOB, SC_KIND, SC_PART, SC_TIME, SC_UTIL,
       SC_DONE, SC_FAIL, SC_RST, SC_GEN, SC_EXIT, SC_DEV, SC_VRAM, SC_TEMP, SC_PWR, SC_N };

static const struct render_col slot_cols[SC_N] = {
	{ "SLOT", 8, 0 }, { "GPU#", 4, 5 }, { "PID", 7, 6 }, { "STATE", 8, 0 },
	{ "JOB", 6, 1 }, { "KIND", 12, 2 }, { "PART", 4, 1 }, { "TIME", 7, 3 },
	{ "UTIL", 4, 1 }, { "DONE", 6, 4 }, { "FAIL", 5, 4 }, { "RST", 4, 5 },
	{ "GEN", 8, 7 }, { "EXIT", 9, 6 }, { "DEV%", 4, 6 }, { "VRAM", 11, 7 },
	{ "TEMP", 4, 7 }, { "PWR", 5, 8 },
};

int render_slot_attr(uint32_t state)
{
	switch (state) {
	case SHM_SLOT_BUSY: return CV_OK;
	case SHM_SLOT_STARTING: case SHM_SLOT_LOADING: return CV_INFO;
	case SHM_SLOT_BACKOFF: return CV_WARN;
	case SHM_SLOT_CRASHED: case SHM_SLOT_DISABLED: return CV_BAD;
	case SHM_SLOT_IDLE: return CV_NORMAL;
	default: return CV_DIM;
	}
}

static const struct nvml_dev *dev_of(const struct top_view *v, const struct snap_slot *o)
{
	return nvml_fig(v->nv, o->v.gpu);	/* by CUDA ordinal: nvml.h */
}

/* The text of column c for slot o, and its attribute. */
static int slot_cell(char *b, size_t n, int c, const struct snap *s, const struct top_view *v,
		     int pane, uint32_t i, const struct snap_slot *o)
{
	const struct shm_slot *x = &o->v;
	const struct nvml_dev *d = dev_of(v, o);
	int busy = x->state == SHM_SLOT_BUSY;
	char kb[16];

	snprintf(b, n, "-");
	if (c == SC_SLOT) {
		fmt_slot(b, n, pane == L_GPU ? SHM_T_GPU : SHM_T_SYNTH, i);
		return CV_NORMAL;
	}
	if (!o->ok) {
		snprintf(b, n, "?");
		return CV_DIM;
	}
	if (snap_sup_gone(s)) {
		switch (c) {
		case SC_PID: case SC_JOB: case SC_KIND: case SC_PART: case SC_TIME: case SC_UTIL:
			return CV_DIM;	/* "-" */
		case SC_STATE: snprintf(b, n, "unknown"); return CV_BAD;
		}
	}
	switch (c) {
	case SC_GPU: if (pane == L_GPU) snprintf(b, n, "%u", x->gpu); break;
	case SC_PID: if (x->pid) snprintf(b, n, "%u", x->pid); break;
	case SC_STATE: snprintf(b, n, "%s", shm_slot_state_name(x->state)); return render_slot_attr(x->state);
	case SC_JOB: if (busy) snprintf(b, n, "%llu", (unsigned long long)x->job_id); break;
	case SC_KIND: if (busy) snprintf(b, n, "%s", fmt_kind(x->kind, kb, sizeof kb)); break;
	case SC_PART: if (busy) snprintf(b, n, "%u", x->partition); break;
	case SC_TIME: if (busy && s->now_mono_ns > x->part_since_ns) fmt_dur(b, n, s->now_mono_ns - x->part_since_ns); break;
	case SC_UTIL:
		if (o->util >= 0)
			snprintf(b, n, "%.0f%%", o->util * 100);
		return o->util >= 0.5 ? CV_OK : CV_NORMAL;
	case SC_DONE: snprintf(b, n, "%llu", (unsigned long long)x->done); break;
	case SC_FAIL: snprintf(b, n, "%llu", (unsigned long long)x->failed); return x->failed ? CV_WARN : CV_NORMAL;
	case SC_RST: snprintf(b, n, "%llu", (unsigned long long)x->restarts); return x->restarts ? CV_WARN : CV_NORMAL;
	case SC_GEN: snprintf(b, n, "%llu", (unsigned long long)x->gen); break;
	case SC_EXIT:
		if (x->state == SHM_SLOT_DISABLED && fmt_disable_why(x->disable_reason)) {
			snprintf(b, n, "%s", fmt_disable_why(x->disable_reason));	/* why it is off */
			return CV_BAD;
		}
		if (x->state == SHM_SLOT_LOADING) {
			snprintf(b, n, "loading params %u%%", x->load_permille / 10);
			return CV_WARN;
		}
		fmt_exit(b, n, x->last_exit_kind, x->last_exit_code);
		return x->last_exit_kind ? CV_BAD : CV_NORMAL;
	case SC_DEV: if (d) snprintf(b, n, "%u%%", d->util); break;
	case SC_VRAM: if (d) snprintf(b, n, "%.1f/%.0fG", d->mem_used / 1073741824.0, d->mem_total / 1073741824.0); break;
	case SC_TEMP: if (d) snprintf(b, n, "%uC", d->temp_c); return d && d->temp_c >= 85 ? CV_BAD : CV_NORMAL;
	case SC_PWR: if (d) snprintf(b, n, "%uW", d->power_mw / 1000); break;
	}
	return CV_NORMAL;
}

void render_slots(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v, int pane)
{
	struct render_col c[SC_N];
	int on[SC_N], busy = 0, first, vis = r.h - 1, gone = snap_sup_gone(s);
	uint32_t n;
	const struct snap_slot *sl = snap_slots(s, pane == L_GPU ? SHM_T_GPU : SHM_T_SYNTH, &n);
	char extra[48], b[48];

	memcpy(c, slot_cols, sizeof c);
	if (pane != L_GPU || !v->nv)
		c[SC_DEV].w = c[SC_VRAM].w = c[SC_TEMP].w = c[SC_PWR].w = -1;
	if (pane != L_GPU)
		c[SC_GPU].w = -1;
	if (gone)	/* no pid, no assignment: room for "(supervisor gone)" */
		c[SC_PID].w = c[SC_JOB].w = c[SC_KIND].w = c[SC_PART].w = c[SC_TIME].w = c[SC_UTIL].w = -1;
	render_pick(c, SC_N, gone && r.w >= 35 ? r.w - 18 : r.w, on);
	for (uint32_t i = 0; i < n; i++)
		busy += sl[i].ok && sl[i].v.state == SHM_SLOT_BUSY;
	if (gone)
		snprintf(extra, sizeof extra, "supervisor gone");
	else
		snprintf(extra, sizeof extra, "busy=%d/%u", busy, n);
	render_heading(cv, r, c, SC_N, on, pane == L_GPU ? "GPU" : "SYNTH", extra, v->focus == pane);
	first = render_scroll(v, pane, (int)n, vis);
	for (int row = 0; row < vis && first + row < (int)n; row++) {
		uint32_t i = (uint32_t)(first + row);
		int y = r.y + 1 + row, x = r.x;

		for (int k = 0; k < SC_N; k++) {
			if (!on[k])
				continue;
			int a = slot_cell(b, sizeof b, k, s, v, pane, i, &sl[i]);
			cv_text(cv, y, x, c[k].w, a, b);
			x += c[k].w + 1;
		}
		if (gone && sl[i].ok && x + 17 <= r.x + r.w)
			cv_text(cv, y, x, -1, CV_DIM, "(supervisor gone)");
		if (v->focus == pane && (int)i == v->sel[pane])
			cv_attr_span(cv, y, r.x, r.w, CV_SEL);
	}
}

uint32_t render_part_glyph(uint32_t state, int ascii, int *attr)
{
	static const uint32_t uni[SHM_PART_NSTATES] = { 0x00b7, 0x2591, 0x2592, 0x2593, 0x2588, 0x2717,
							0x2012 };
	static const char asc[SHM_PART_NSTATES] = { '.', 's', 'r', 'P', '#', 'X', '-' };
	static const int at[SHM_PART_NSTATES] = { CV_DIM, CV_INFO, CV_WARN, CV_OK, CV_OK, CV_BAD, CV_DIM };

	if (state >= SHM_PART_NSTATES) {
		*attr = CV_DIM;
		return '?';
	}
	*attr = at[state];
	return ascii ? (uint32_t)asc[state] : uni[state];
}

static int job_attr(uint32_t st)
{
	return st == SHM_JOB_RUNNING ? CV_OK : st == SHM_JOB_FAILED ? CV_BAD :
	       st == SHM_JOB_QUEUED ? CV_INFO : st == SHM_JOB_BLOCKED ? CV_WARN : CV_DIM;
}

static int job_matches(const struct snap_job *j, const char *filter)
{
	char line[96], kb[16];

	if (!filter[0])
		return 1;
	snprintf(line, sizeof line, "%llu %s %s", (unsigned long long)j->v.id,
		 fmt_kind(j->v.kind, kb, sizeof kb), fmt_job_state(j->v.state));
	return strcasestr(line, filter) != NULL;
}

static const struct snap *order_snap;
static int order_sort, order_rev;

const char *render_sort_name(int sort)
{
	static const char *const n[RS_N] = {
		"default", "JOB", "KIND", "STATE", "PROG", "ELAPSED", "ETA", "PRIO",
	};
	return sort >= 0 && sort < RS_N ? n[sort] : "default";
}

int render_job_finished(uint32_t state)
{
	return state == SHM_JOB_DONE || state == SHM_JOB_FAILED || state == SHM_JOB_CANCELLED;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* The default: active (queued, running) before finished; active by id up,
 * finished by id down: what runs now on top, the latest outcomes right
 * below. A column: ascending (an unknown ETA after every known one), ties
 * by id up; reversed, everything the other way. */
static int order_cmp(const void *a, const void *b)
{
	const struct snap_job *jx = &order_snap->jobs[*(const uint32_t *)a];
	const struct snap_job *jy = &order_snap->jobs[*(const uint32_t *)b];
	const struct shm_job *x = &jx->v, *y = &jy->v;
	int ax = x->state <= SHM_JOB_RUNNING, ay = y->state <= SHM_JOB_RUNNING, c = 0;
	char ka[16], kb[16];

	switch (order_sort) {
	case RS_DEFAULT:
		if (ax != ay)
			c = ay - ax;
		else if (x->id != y->id)
			c = (ax ? x->id > y->id : x->id < y->id) ? 1 : -1;
		return order_rev ? -c : c;
	case RS_KIND: c = strcmp(fmt_kind(x->kind, ka, sizeof ka), fmt_kind(y->kind, kb, sizeof kb)); break;
	case RS_STATE: c = strcmp(fmt_job_state(x->state), fmt_job_state(y->state)); break;
	case RS_PROG: c = jx->progress < jy->progress ? -1 : jx->progress > jy->progress; break;
	case RS_ELAPSED: c = cmp_u64(jx->elapsed_ns, jy->elapsed_ns); break;
	case RS_ETA:	/* unknown (< 0) after all known ones */
		c = cmp_u64(jx->eta_ns < 0 ? UINT64_MAX : (uint64_t)jx->eta_ns,
			    jy->eta_ns < 0 ? UINT64_MAX : (uint64_t)jy->eta_ns);
		break;
	case RS_PRIO: c = cmp_u64(x->priority, y->priority); break;
	}
	if (!c)
		c = cmp_u64(x->id, y->id);
	return order_rev ? -c : c;
}

int render_job_order(const struct snap *s, struct top_view *v)
{
	int n = 0;

	if (s->njobs > v->jobs_cap) {
		uint32_t *p = realloc(v->jobs, s->njobs * sizeof *p);
		if (!p)
			return -1;
		v->jobs = p;
		v->jobs_cap = s->njobs;
	}
	for (uint32_t i = 0; i < s->njobs; i++)
		if (job_matches(&s->jobs[i], v->filter))
			v->jobs[n++] = i;
	order_snap = s;
	order_sort = v->sort;
	order_rev = v->sort_rev;
	if (n)	/* with no job the array may be NULL, which qsort must not get */
		qsort(v->jobs, (size_t)n, sizeof *v->jobs, order_cmp);
	return n;
}

enum { JC_ID, JC_KIND, JC_STATE, JC_PARTS, JC_PROG, JC_ELAPSED, JC_ETA, JC_PRIO, JC_STRIP, JC_N };

static const struct render_col job_cols[JC_N] = {
	{ "JOB", 6, 0 }, { "KIND", 12, 1 }, { "STATE", 9, 0 }, { "PARTS", 5, 2 },
	{ "PROG", 4, 1 }, { "ELAPSED", 7, 2 }, { "ETA", 7, 3 }, { "PRIO", 4, 5 },
	{ "PARTITIONS", 10, 0 },
};

static void job_row(struct canvas *cv, int y, int x, int xend, const struct render_col *c, const int *on,
		    const struct snap_job *j, int ascii)
{
	const struct shm_job *v = &j->v;
	char b[48], kb[16];

	for (int k = 0; k < JC_N; k++) {
		int a = CV_NORMAL;
		if (!on[k])
			continue;
		snprintf(b, sizeof b, "-");
		switch (k) {
		case JC_ID: snprintf(b, sizeof b, "%llu", (unsigned long long)v->id); break;
		case JC_KIND: snprintf(b, sizeof b, "%s", fmt_kind(v->kind, kb, sizeof kb)); break;
		case JC_STATE: snprintf(b, sizeof b, "%s", fmt_job_state(v->state)); a = job_attr(v->state); break;
		case JC_PARTS: snprintf(b, sizeof b, "%u/%u", j->count[SHM_PART_DONE], v->nparts); break;
		case JC_PROG: snprintf(b, sizeof b, "%.0f%%", j->progress * 100); break;
		case JC_ELAPSED: fmt_dur(b, sizeof b, j->elapsed_ns); break;
		case JC_ETA:	/* a finished job has none: "-", never "0ms" */
			if (j->eta_ns >= 0 && !render_job_finished(v->state))
				fmt_dur(b, sizeof b, (uint64_t)j->eta_ns);
			break;
		case JC_PRIO: snprintf(b, sizeof b, "%u", v->priority); break;
		case JC_STRIP:
			for (uint32_t p = 0; p < v->nparts && x + (int)p < xend; p++) {
				uint32_t g = render_part_glyph(v->part[p].state, ascii, &a);
				cv_put(cv, y, x + (int)p, g, a);
			}
			continue;
		}
		cv_text(cv, y, x, c[k].w, a, b);
		x += c[k].w + 1;
	}
}

void render_jobs(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v)
{
	struct render_col c[JC_N];
	int on[JC_N], n = render_job_order(s, v), vis = r.h - 1, first;
	char extra[96];

	if (n < 0)
		n = 0;
	memcpy(c, job_cols, sizeof c);
	render_pick(c, JC_N, r.w, on);
	static const int sort_col[RS_N] = { -1, JC_ID, JC_KIND, JC_STATE, JC_PROG, JC_ELAPSED, JC_ETA, JC_PRIO };
	const char *arrow = v->sort_rev ? (v->ascii ? "v" : "\u25bc") : (v->ascii ? "^" : "\u25b2");
	int o = 0;

	if (v->sort || v->sort_rev)	/* the order in force first: it explains the rows */
		o = snprintf(extra, sizeof extra, "sort=%s%s ", render_sort_name(v->sort), arrow);
	snprintf(extra + o, sizeof extra - (size_t)o, "%s%s%s", v->filter[0] ? "filter=" : "", v->filter,
		 n == 0 ? (v->filter[0] ? " (no match)" : " (none)") : "");
	render_heading(cv, r, c, JC_N, on, "JOB", extra, v->focus == L_JOBS);
	if (v->sort > 0 && v->sort < RS_N && on[sort_col[v->sort]]) {
		/* the arrow right after the sorted column's name, in its own
		 * width or the blank after it: readable without colour */
		int x = r.x, k = sort_col[v->sort];
		for (int i = 0; i < k; i++)
			x += on[i] ? c[i].w + 1 : 0;
		cv_text(cv, r.y, x + (int)strlen(c[k].name), 1, v->focus == L_JOBS ? CV_SEL : CV_BAR, arrow);
	}
	first = render_scroll(v, L_JOBS, n, vis);
	for (int row = 0; row < vis && first + row < n; row++) {
		int y = r.y + 1 + row;
		job_row(cv, y, r.x, r.x + r.w, c, on, &s->jobs[v->jobs[first + row]], v->ascii);
		if (v->focus == L_JOBS && first + row == v->sel[L_JOBS])
			cv_attr_span(cv, y, r.x, r.w, CV_SEL);
	}
}

static int event_attr(uint32_t type)
{
	switch (type) {
	case SHM_EV_CRASH: case SHM_EV_JOB_FAILED: case SHM_EV_DISABLE: return CV_BAD;
	case SHM_EV_RESTART: return CV_WARN;
	case SHM_EV_JOB_DONE: return CV_OK;
	default: return CV_NORMAL;
	}
}

void render_events(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v)
{
	static const struct render_col c[5] = {
		{ "TIME", 8, 0 }, { "EVENT", 10, 0 }, { "SLOT", 8, 0 }, { "JOB", 6, 0 }, { "MESSAGE", 7, 0 },
	};
	static const int on[5] = { 1, 1, 1, 1, 1 };
	int n = (int)s->nevents, vis = r.h - 1, first;
	char extra[48], b[32], msg[4 * sizeof s->events[0].msg];

	snprintf(extra, sizeof extra, "%s", s->events_missed ? "" : (n ? "" : "(none)"));
	if (s->events_missed)
		snprintf(extra, sizeof extra, "missed=%llu", (unsigned long long)s->events_missed);
	render_heading(cv, r, c, 5, on, "TIME", extra, v->focus == L_EVENTS);
	first = render_scroll(v, L_EVENTS, n, vis);
	for (int row = 0; row < vis && first + row < n; row++) {
		const struct shm_event *e = &s->events[n - 1 - (first + row)];	/* newest first */
		int y = r.y + 1 + row, x = r.x;

		fmt_clock(b, sizeof b, e->wall_ns);
		x += cv_text(cv, y, x, 8, CV_NORMAL, b) + 1;
		x += cv_text(cv, y, x, 10, event_attr(e->type), fmt_event_type(e->type));
		x = r.x + 20;
		if (e->table == SHM_T_GPU || e->table == SHM_T_SYNTH)
			fmt_slot(b, sizeof b, e->table, e->slot);
		else
			snprintf(b, sizeof b, "-");
		cv_text(cv, y, x, 8, CV_NORMAL, b);
		if (e->job_id)
			snprintf(b, sizeof b, "%llu", (unsigned long long)e->job_id);
		else
			snprintf(b, sizeof b, "-");
		cv_text(cv, y, x + 9, 6, CV_NORMAL, b);
		cv_text(cv, y, x + 16, -1, CV_NORMAL, e->msg[0] ? util_clean(msg, sizeof msg, e->msg) : "-");
		if (v->focus == L_EVENTS && first + row == v->sel[L_EVENTS])
			cv_attr_span(cv, y, r.x, r.w, CV_SEL);
	}
}
