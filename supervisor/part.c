/*
 * part: part_event(), the one writer of a partition's state, attempts and
 * pre-emption flag once it exists (part_fsm.h has the table). Callers
 * publish the job record when they are done with it.
 */
#include <stdio.h>

#include "supervisor/part_fsm.h"
#include "supervisor/sup.h"

unsigned part_event(struct sup *s, int ji, uint32_t p, enum part_event ev, const char *why)
{
	struct job *j = &s->jobs[ji];
	struct part *pt = &j->part[p];
	struct part_step st;

	if ((ev == PEV_HOLDER_DIED || ev == PEV_FAILED) && pt->preempting)
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
