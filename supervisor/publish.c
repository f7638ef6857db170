/*
 * publish: what the scheduler writes to the status segment. A job's
 * record (jobs_publish) as it changes, and the supervisor record's
 * totals (sched_publish): the state (degraded, with its reason, when a
 * slot is disabled by anything but an operator), jobs queued and running,
 * memory budget and use, and a fleet node's view of the fleet
 * (fleet_publish). Readers derive everything else from these.
 */
#include <stdio.h>
#include <string.h>

#include "supervisor/fleet.h"
#include "supervisor/sup.h"
#include "tui/fmt.h"
#include "util/text.h"

void jobs_publish(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct shm_job v = { 0 };

	v.id = j->id;
	v.kind = j->kind;
	v.priority = j->priority;
	v.state = j->state;
	v.log_size = j->log_size;
	v.nparts = j->nparts;
	memcpy(v.seed, j->seed, j->seed_len);
	v.submit_wall_ns = j->submit_wall_ns;
	v.submit_mono_ns = j->submit_mono_ns;
	v.start_mono_ns = j->start_mono_ns;
	v.end_mono_ns = j->end_mono_ns;
	v.reason_code = j->reason_code;
	v.output = jobs_keep_h(j) ? SHM_OUTPUT_PROOFS_H : j->params ? SHM_OUTPUT_PROOFS : SHM_OUTPUT_H;
	util_clip_words(v.reason, sizeof v.reason, j->why);
	for (uint32_t p = 0; p < j->nparts; p++) {
		const struct part *pt = &j->part[p];
		v.part[p].state = pt->state;
		v.part[p].attempts = pt->attempts;
		v.part[p].synth_slot = pt->synth_child < 0 ? 0xffff
			: (uint16_t)s->child[pt->synth_child].slot;
		v.part[p].gpu_slot = pt->gpu_child < 0 ? 0xffff
			: (uint16_t)s->child[pt->gpu_child].slot;
		v.part[p].synth_ns = pt->synth_ns;
		v.part[p].gpu_ns = pt->gpu_ns;
	}
	shm_write_job(&s->seg, (uint32_t)ji, &v);
}

/* Degraded: some slots are disabled by the supervisor itself (it kept
 * crashing, its backend has no device, a wrong result), not by an
 * operator. 1 with the reason in st->degraded_reason, else 0 and "". */
static int jobs_degraded(const struct sup *s, struct shm_sup *st)
{
	uint32_t n[2] = { 0, 0 }, nodev = 0;
	int first = -1;

	for (uint32_t i = 0; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		if (c->state != CH_DISABLED || c->disable_reason == SHM_DISABLE_OPERATOR)
			continue;
		n[c->kind == CHILD_SYNTH]++;
		nodev += c->disable_reason == SHM_DISABLE_NO_DEVICE;
		if (first < 0)
			first = (int)i;
	}
	if (first < 0) {
		st->degraded_reason[0] = '\0';
		return 0;
	}
	const struct child *c = &s->child[first];
	if (nodev == s->ngpu && !n[1])
		snprintf(st->degraded_reason, sizeof st->degraded_reason,
			 "no CUDA device: every GPU slot disabled");
	else
		snprintf(st->degraded_reason, sizeof st->degraded_reason,
			 "%u of %u GPU and %u of %u synth slots disabled (%s.%u: %s)", n[0], s->ngpu, n[1],
			 s->nsynth, c->kind == CHILD_GPU ? "gpu" : "synth", c->slot,
			 fmt_disable_why(c->disable_reason) ? fmt_disable_why(c->disable_reason) : "crash loop");
	return 1;
}

/* Totals for the supervisor record. */
void sched_publish(struct sup *s)
{
	struct shm_sup *st = &s->stats;
	int was = st->degraded_reason[0] != '\0', degraded = jobs_degraded(s, st);

	if (degraded && !was)
		sup_log("degraded: %s", st->degraded_reason);
	else if (was && !degraded)
		sup_log("no longer degraded: no slot is disabled but by an operator");
	st->state = s->stopping ? SHM_SUP_STOPPING : s->draining ? SHM_SUP_DRAINING :
		    degraded ? SHM_SUP_DEGRADED : SHM_SUP_RUNNING;
	st->jobs_queued = st->jobs_running = 0;
	for (uint32_t i = 0; i < s->njobs; i++) {
		st->jobs_queued += s->jobs[i].id && s->jobs[i].state == SHM_JOB_QUEUED;
		st->jobs_running += s->jobs[i].id && s->jobs[i].state == SHM_JOB_RUNNING;
	}
	st->mem_budget = s->conf.mem_budget;
	st->mem_used = sched_mem_used(s) + params_mem(s);	/* the params resident too */
	fleet_publish(s, &st->fleet);
	shm_write_sup(&s->seg, st);
}
