/*
 * keys: the key handler of `provisor top` (see keys.h). Navigation keys
 * change only the view; c, d and e build a control request from what is
 * selected now and keep it, with a question, until the next key. The
 * request line is fixed when asked, so a refresh that moves the rows
 * between the question and the answer cannot change what is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui/fmt.h"
#include "tui/keys.h"
#include "tui/term.h"

/* The next (dir 1) or previous (-1) pane on screen after the focused
 * one, among panes[0..n). */
static void next_pane(struct top_view *v, const struct layout *l, const int *panes, int n, int dir)
{
	int at = 0;

	for (int i = 0; i < n; i++)
		if (panes[i] == v->focus)
			at = i;
	for (int k = 1; k <= n; k++) {
		int p = panes[((at + dir * k) % n + n) % n];
		if (layout_shown(l, p)) {
			v->focus = p;
			return;
		}
	}
}

static void filter_key(struct top_view *v, int key)
{
	size_t n = strlen(v->filter);

	if (key == TERM_K_ENTER)
		v->filtering = 0;
	else if (key == TERM_K_ESC)
		v->filtering = 0, v->filter[0] = '\0';
	else if (key == TERM_K_BACKSPACE && n)
		v->filter[n - 1] = '\0';
	else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof v->filter)
		v->filter[n] = (char)key, v->filter[n + 1] = '\0';
	v->sel[L_JOBS] = 0;
}

/* c: ask to cancel the selected job. */
static void ask_cancel(struct top_view *v, const struct snap *s)
{
	int sel = v->sel[L_JOBS];
	char kb[16];

	if (v->focus != L_JOBS) {
		snprintf(v->msg, sizeof v->msg, "c cancels the selected job: Tab to the jobs pane first");
		return;
	}
	if (!v->jobs || sel < 0 || sel >= v->count[L_JOBS]) {
		snprintf(v->msg, sizeof v->msg, "no job selected");
		return;
	}
	const struct shm_job *j = &s->jobs[v->jobs[sel]].v;
	if (j->state != SHM_JOB_QUEUED && j->state != SHM_JOB_RUNNING && j->state != SHM_JOB_BLOCKED) {
		snprintf(v->msg, sizeof v->msg, "job %llu is %s: nothing to cancel",
			 (unsigned long long)j->id, fmt_job_state(j->state));
		return;
	}
	v->ask.op = TOP_ACT_CANCEL;
	snprintf(v->ask.line, sizeof v->ask.line, "cancel %llu", (unsigned long long)j->id);
	snprintf(v->ask.what, sizeof v->ask.what, "cancel job %llu (%s, %s, %u/%u done)",
		 (unsigned long long)j->id, fmt_kind(j->kind, kb, sizeof kb), fmt_job_state(j->state),
		 s->jobs[v->jobs[sel]].count[SHM_PART_DONE], j->nparts);
}

/* d / e: ask to disable or enable the selected slot. */
static void ask_slot(struct top_view *v, const struct snap *s, int enable)
{
	uint32_t n, t = v->focus == L_GPU ? SHM_T_GPU : SHM_T_SYNTH;
	char name[24];

	if (v->focus != L_GPU && v->focus != L_SYNTH) {
		snprintf(v->msg, sizeof v->msg, "%c %ss the selected slot: Tab to a worker pane first",
			 enable ? 'e' : 'd', enable ? "enable" : "disable");
		return;
	}
	const struct snap_slot *sl = snap_slots(s, t, &n);
	int sel = v->sel[v->focus];
	if (sel < 0 || (uint32_t)sel >= n) {
		snprintf(v->msg, sizeof v->msg, "no slot selected");
		return;
	}
	fmt_slot(name, sizeof name, t, (uint32_t)sel);
	if (sl[sel].ok && enable != (sl[sel].v.state == SHM_SLOT_DISABLED)) {
		snprintf(v->msg, sizeof v->msg, "%s is %s%s", name, shm_slot_state_name(sl[sel].v.state),
			 enable ? ", not disabled" : " already");
		return;
	}
	v->ask.op = enable ? TOP_ACT_ENABLE : TOP_ACT_DISABLE;
	snprintf(v->ask.line, sizeof v->ask.line, "worker %s %s", enable ? "enable" : "disable", name);
	snprintf(v->ask.what, sizeof v->ask.what, "%s %s (%s)", enable ? "enable" : "disable", name,
		 sl[sel].ok ? shm_slot_state_name(sl[sel].v.state) : "unreadable");
}

/* An action key: refused read-only or with no live supervisor, else asked. */
static void action(struct top_view *v, const struct snap *s, int key)
{
	if (v->read_only) {
		snprintf(v->msg, sizeof v->msg, "read-only (--read-only): c, d and e are off");
		return;
	}
	if (!s->attached || snap_sup_gone(s)) {
		snprintf(v->msg, sizeof v->msg, "the supervisor is not running: nothing to send");
		return;
	}
	if (key == 'c')
		ask_cancel(v, s);
	else
		ask_slot(v, s, key == 'e');
}

/* The answer to the question: 'y' sends, any other key drops it. */
static void answer(struct top_view *v, int key, top_send_fn send, void *arg)
{
	char out[128];
	int rc;

	if (key != 'y' && key != 'Y') {
		snprintf(v->msg, sizeof v->msg, "not sent: %s", v->ask.what);
	} else {
		rc = send ? send(arg, v->ask.line, out, sizeof out) : -ENOSYS;
		if (!send)
			snprintf(out, sizeof out, "no control connection");
		snprintf(v->msg, sizeof v->msg, "%s: %s%s%.*s", v->ask.line,
			 rc == 0 ? "ok" : rc == 1 ? "refused" : "failed",
			 out[0] ? ": " : "", 80, out);
	}
	memset(&v->ask, 0, sizeof v->ask);
}

int top_key_view(struct top_view *v, const struct layout *l, int key, const int *panes, int npanes)
{
	int *sel = &v->sel[v->focus], page = l->r[v->focus].h > 2 ? l->r[v->focus].h - 2 : 1;

	switch (key) {
	case 'q': return 1;
	case TERM_K_ESC: v->help = v->detail = 0; break;
	case '?': case 'h': case TERM_K_F1: v->help = !v->help; break;
	case '\t': next_pane(v, l, panes, npanes, 1); break;
	case TERM_K_BTAB: next_pane(v, l, panes, npanes, -1); break;
	case TERM_K_ENTER: v->detail = !v->detail; v->help = 0; break;
	case TERM_K_UP: case 'k': (*sel)--; break;
	case TERM_K_DOWN: case 'j': (*sel)++; break;
	case TERM_K_PGUP: *sel -= page; break;
	case TERM_K_PGDN: *sel += page; break;
	case TERM_K_HOME: case 'g': *sel = 0; break;
	case TERM_K_END: case 'G': *sel = v->count[v->focus] - 1; break;
	case '+': v->tenths = v->tenths >= 600 ? 600 : v->tenths + (v->tenths < 10 ? 1 : 5);
		snprintf(v->msg, sizeof v->msg, "refresh %.1fs", v->tenths / 10.0); break;
	case '-': v->tenths = v->tenths <= 1 ? 1 : v->tenths - (v->tenths <= 10 ? 1 : 5);
		snprintf(v->msg, sizeof v->msg, "refresh %.1fs", v->tenths / 10.0); break;
	default: return -1;
	}
	if (*sel < 0)
		*sel = 0;
	return 0;
}

int top_key(struct top_view *v, const struct layout *l, const struct snap *s, int key,
	    top_send_fn send, void *arg)
{
	static const int panes[] = { L_GPU, L_SYNTH, L_JOBS, L_EVENTS };
	int rc;

	if (v->ask.op) {
		answer(v, key, send, arg);
		return 0;
	}
	if (v->filtering) {
		filter_key(v, key);
		return 0;
	}
	if ((rc = top_key_view(v, l, key, panes, 4)) >= 0)
		return rc;
	switch (key) {
	case '/': v->filtering = 1; v->focus = L_JOBS; v->help = v->detail = 0; break;
	case 's': v->sort = (v->sort + 1) % RS_N; v->sel[L_JOBS] = 0;
		snprintf(v->msg, sizeof v->msg, "jobs sorted by %s", render_sort_name(v->sort)); break;
	case 'r': v->sort_rev = !v->sort_rev; v->sel[L_JOBS] = 0; break;
	case 'm': v->no_meters = !v->no_meters; break;
	case 'c': case 'd': case 'e': action(v, s, key); break;
	}
	return 0;
}
