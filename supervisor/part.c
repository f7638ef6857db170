/*
 * part: part_event(), the one writer of a partition's state, attempts and
 * pre-emption flag once it exists (part_fsm.h has the table), and
 * part_hold / part_unhold / part_unhold_all, the only writers of a
 * child's holds and their count. Callers publish the job record when they
 * are done with it.
 */
#include <stdio.h>
#include <string.h>

#include "supervisor/part_fsm.h"
#include "supervisor/sup.h"

/* The holders' lists: child ci takes r (at the end: a gpuworker proves
 * in arrival order), drops entry i, or drops all. */
void part_hold(struct sup *s, uint32_t ci, const struct part_ref *r)
{
	struct child *c = &s->child[ci];

	if (c->nhold >= SUP_GPU_DEPTH) {	/* the callers check room; never reached */
		sup_log("%s.%u: no room for job %llu partition %u", child_kind_name(c), c->slot,
			(unsigned long long)r->id, r->part);
		return;
	}
	c->hold[c->nhold++] = *r;
}

void part_unhold(struct sup *s, uint32_t ci, int i)
{
	struct child *c = &s->child[ci];

	if (i < 0 || i >= c->nhold)
		return;
	memmove(&c->hold[i], &c->hold[i + 1], (size_t)(c->nhold - i - 1) * sizeof c->hold[0]);
	c->nhold--;
}

void part_unhold_all(struct sup *s, uint32_t ci)
{
	s->child[ci].nhold = 0;
}

unsigned part_event(struct sup *s, int ji, uint32_t p, enum part_event ev, const char *why)
{
	struct job *j = &s->jobs[ji];
	struct part *pt = &j->part[p];
	struct part_step st;

	if ((ev == PEV_HOLDER_DIED || ev == PEV_FAILED || ev == PEV_UNRUN) && pt->preempting)
		ev = PEV_PREEMPTED;	/* taken back: no attempt, no failure */
	st = part_fsm(pt->state, ev);
	if (st.actions & PA_IMPOSSIBLE) {
		sup_log("job %llu partition %u: %s while %s is %s; ignored", (unsigned long long)j->id, p,
			part_event_name(ev), part_state_name(pt->state), st.what);
		return pt->state;
	}
	if (st.actions & PA_FORGET_HOLDERS)
		pt->synth_child = pt->gpu_child = -1;
	if (st.actions & PA_FORGET_RESULT) {
		pt->verify = PV_NONE;
		pt->stored_by = 0;
		pt->derive_xout = 0;
	}
	if (st.actions & PA_SET_PREEMPT)
		pt->preempting = 1;
	if (st.actions & PA_CLEAR_PREEMPT)
		pt->preempting = 0;
	if (st.actions & PA_RESET)
		*pt = (struct part){ .synth_child = -1, .gpu_child = -1, .xout_from = -1 };
	pt->state = st.next;
	if ((st.actions & PA_ATTEMPT) && ++pt->attempts >= s->conf.poison_attempts) {
		char reason[SUP_REASON_MAX];

		pt->state = SHM_PART_FAILED;
		snprintf(reason, sizeof reason, "partition %u: %s %u times", p, why ? why : "failed", pt->attempts);
		jobs_finish(s, ji, SHM_JOB_FAILED, SHM_REASON_POISON, reason);
	}
	return pt->state;
}
