/*
 * preempt: a partition of a higher-priority job never waits behind a
 * lower-priority one.
 *
 * preempt_run is sched_run's last step, so it sees what placement could
 * not do. It looks at the most urgent partition that waits, at one of two
 * places:
 *   - queued with no synth free: a synth working for a lower-priority
 *     partition is killed (preempt_kill; a synth holds one partition and
 *     starts again in milliseconds). If it was relaying, the relay pads the
 *     gpuworker's frame with zeros and the gpuworker, asked to abandon that
 *     generation, reads it to its end without decoding it and answers
 *     FAIL FRAME_FAIL_PREEMPTED.
 *   - ready at its synth with no gpuworker to take it: one gpuworker is
 *     chosen (the one with an abandon already asked, else the fewest
 *     lower-priority partitions), and what it holds of lower priority is
 *     taken back. Not started (prefetched, or being relayed): at once.
 *     Running: once the waiting partition has waited preempt_after (0:
 *     never). Taking back is asking (proto/frame.h: a queued real-time signal with
 *     the generation); a gpuworker that has not answered within
 *     preempt_grace (100 ms) is killed and replaced.
 * While pre-emption is on (preempt_after > 0), a partition is not relayed
 * to a gpuworker that holds one of lower priority (it would wait behind
 * it, where a kill would take it too): it waits at its synth for that
 * gpuworker to be cleared.
 *
 * A partition taken back is requeued with no attempt counted and is not
 * a failure: its part's preempting flag says so to requeue_one (jobs.c),
 * and a worker killed for it is no crash (child.c). Each one taken back
 * is counted (sup.preemptions, the slot's preempted) and is an event
 * (SHM_EV_PREEMPT).
 *
 * Slot reservation and affinity ([kind.X] reserve, slots) are checked in
 * preempt_gpu_ok, which placement (policy.c) asks before each relay.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sup.h"

static const char *kind_name(const struct child *c)
{
	return c->kind == CHILD_GPU ? "gpu" : "synth";
}

/* The priority of a reference's job (lower first); UINT32_MAX when the
 * job is gone (anything may take its place). */
static uint32_t ref_prio(const struct sup *s, const struct part_ref *r)
{
	const struct job *j = &s->jobs[r->job];

	return jobs_wanted(s, r) ? j->priority : UINT32_MAX;
}

static int slot_allowed(const struct conf_kind *ck, uint32_t gi)
{
	uint64_t any = 0;

	for (size_t i = 0; i < sizeof ck->slot_mask / sizeof ck->slot_mask[0]; i++)
		any |= ck->slot_mask[i];
	return !any || (gi < CONF_MAX_SLOTS && (ck->slot_mask[gi / 64] >> (gi % 64) & 1));
}

/* Does gpuworker g hold nothing but partitions of kind k (or nothing)?
 * Such a slot counts towards k's reservation. */
static int gpu_only(const struct sup *s, const struct child *g, uint32_t k)
{
	for (int h = 0; h < g->nhold; h++)
		if (jobs_wanted(s, &g->hold[h]) && s->jobs[g->hold[h].job].kind != k)
			return 0;
	return 1;
}

int preempt_gpu_ok(const struct sup *s, const struct job *j, uint32_t gi)
{
	const struct child *g = &s->child[gi];

	if (!slot_allowed(&s->conf.kind[j->kind], gi))
		return 0;
	if (g->claimed && j->priority > g->claim_prio)
		return 0;	/* being cleared for something more urgent */
	if (s->conf.preempt_after_ms)
		for (int h = 0; h < g->nhold; h++)
			if (ref_prio(s, &g->hold[h]) != UINT32_MAX && ref_prio(s, &g->hold[h]) > j->priority)
				return 0;
	/* A reservation keeps slots that hold nothing of the other kinds:
	 * j may not take one of those from kind k if fewer than k's
	 * reserve would be left. */
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		uint32_t want = s->conf.kind[k].reserve, have = 0;

		if (!want || k == j->kind || !gpu_only(s, g, k) || !slot_allowed(&s->conf.kind[k], gi))
			continue;
		for (uint32_t i = 0; i < s->ngpu; i++)
			if (i != gi && child_serving(&s->child[i]) && !s->child[i].disabled &&
			    gpu_only(s, &s->child[i], k) && slot_allowed(&s->conf.kind[k], i))
				have++;
		if (have < want)
			return 0;
	}
	return 1;
}

void preempt_note(struct sup *s, uint32_t ci, const struct part_ref *r, const char *how)
{
	const struct child *c = &s->child[ci];

	s->stats.preemptions++;
	sup_event(s, SHM_EV_PREEMPT, c->kind == CHILD_GPU ? SHM_T_GPU : SHM_T_SYNTH, c->slot, 0,
		  r->id, r->part, "%s.%u: job %llu partition %u pre-empted (%s)", kind_name(c), c->slot,
		  (unsigned long long)r->id, r->part, how);
}

static void mark(struct sup *s, const struct part_ref *r)
{
	if (jobs_wanted(s, r))
		part_event(s, r->job, r->part, PEV_TAKE_BACK, NULL);
}

void preempt_kill(struct sup *s, uint32_t ci, const char *why)
{
	struct child *c = &s->child[ci];

	if (!child_serving(c))
		return;		/* already going: its own reason stands */
	for (int h = 0; h < c->nhold; h++)
		mark(s, &c->hold[h]);
	if (c->kind == CHILD_SYNTH && relay_busy(c) && c->relay_dst >= 0)
		mark(s, &c->relay_ref);
	c->preempt_kill = 1;
	child_kill(s, ci, why);
}

/* Ask gpuworker gi to abandon its hold h. */
static void ask(struct sup *s, uint32_t gi, int h, uint64_t now)
{
	struct child *g = &s->child[gi];
	struct part_ref *r = &g->hold[h];
	union sigval v = { .sival_ptr = (void *)(uintptr_t)r->gen };

	if (r->abandon_ns)
		return;
	r->abandon_ns = now;
	mark(s, r);
	sup_log("gpu.%u: asked to abandon job %llu partition %u (%s)", g->slot,
		(unsigned long long)r->id, r->part, h == 0 ? "running" : "not begun");
	if (g->pid > 0 && sigqueue(g->pid, FRAME_ABANDON_SIGNAL, v) < 0)
		sup_log("gpu.%u: asking it to abandon job %llu partition %u: %m", g->slot,
			(unsigned long long)r->id, r->part);
}

void preempt_cancel(struct sup *s, int ji)
{
	const struct job *j = &s->jobs[ji];
	uint64_t now = shm_now_mono();

	for (uint32_t i = 0; i < s->nchild; i++) {
		struct child *c = &s->child[i];
		if (!child_serving(c))
			continue;
		for (int h = 0; c->kind == CHILD_GPU && h < c->nhold; h++)
			if (c->hold[h].job == ji && c->hold[h].id == j->id)
				ask(s, i, h, now);
		if (c->kind == CHILD_SYNTH && c->nhold == 1 && c->hold[0].job == ji &&
		    c->hold[0].id == j->id)
			preempt_kill(s, i, "its partition's job was cancelled");
	}
}

/* Take back the lower-priority partition being relayed into gpuworker
 * gi, for a partition of priority prio. Its synth is killed; the relay
 * would then pad the frame to its end, up to 3 * 2^k * 32 bytes, a
 * megabyte per loop iteration and per wake-up of the gpuworker's
 * receiver (seconds at k = 22 on a busy host). So when everything gi
 * holds is less urgent and may go (nothing else runs there, or the one
 * running may be pre-empted now: running_ok), gi is killed too and comes
 * back empty; else the gpuworker is asked to skip the rest. */
static void take_relay(struct sup *s, uint32_t gi, uint32_t prio, int running_ok, uint64_t now)
{
	struct child *g = &s->child[gi];
	int si = g->src_child, all_low = 1;

	if (si < 0 || !g->nhold)
		return;
	for (int h = 0; h < g->nhold; h++)
		all_low &= ref_prio(s, &g->hold[h]) > prio;
	if (all_low && (g->nhold == 1 || running_ok)) {
		preempt_kill(s, gi, "pre-empted: receiving a lower-priority partition");
	} else {
		ask(s, gi, g->nhold - 1, now);
	}
	preempt_kill(s, (uint32_t)si, "pre-empted: relaying a lower-priority partition");
}

/* The most urgent partition not yet at a gpuworker (queued,
 * synthesizing, ready): its job, or -1; *queued when it waits for a
 * synth. Waiting is counted from its job's submission. */
static int waiting_part(const struct sup *s, uint32_t *part, int *queued)
{
	int best = -1;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!jobs_active(j) || results_blocked(j) ||
		    (best >= 0 && j->priority >= s->jobs[best].priority))
			continue;
		for (uint32_t p = 0; p < j->nparts; p++) {
			uint8_t st = j->part[p].state;
			if (st == SHM_PART_QUEUED || st == SHM_PART_SYNTH || st == SHM_PART_READY) {
				best = (int)i;
				*part = p;
				*queued = st == SHM_PART_QUEUED;
				break;
			}
		}
	}
	return best;
}

int preempt_verify_job(const struct sup *s)
{
	int best = -1;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!jobs_active(j) || (best >= 0 && j->priority >= s->jobs[best].priority))
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].verify == PV_PENDING) {
				best = (int)i;
				break;
			}
	}
	return best;
}

/* Is worker g on its way back (killed, restarting, in a short backoff)? */
static int worker_coming(const struct child *g, uint64_t now)
{
	if (g->disabled || g->state == CH_DISABLED)
		return 0;
	return g->state == CH_STARTING || g->state == CH_KILLED ||
		(g->state == CH_DOWN && g->restart_at_ns <= now + 1000000000ull);
}

/* The gpu stage: the most urgent waiting partition (job wj, priority
 * prio) needs one gpuworker cleared of less urgent work: the one already
 * claimed for it, else the one with the fewest less urgent partitions. */
static void clear_gpu(struct sup *s, const struct job *wj, uint64_t now)
{
	uint32_t prio = wj->priority;
	int best = -1, best_low = 0;

	for (uint32_t i = 0; i < s->ngpu; i++) {
		const struct child *g = &s->child[i];
		int low = 0;

		if (!slot_allowed(&s->conf.kind[wj->kind], i))
			continue;
		if (g->claimed && g->claim_prio <= prio && (child_serving(g) || worker_coming(g, now))) {
			best = (int)i;
			break;
		}
		if (!child_serving(g) || g->disabled)
			continue;
		for (int h = 0; h < g->nhold; h++)
			low += ref_prio(s, &g->hold[h]) > prio;
		if (!low && g->nhold < SUP_GPU_DEPTH && g->src_child < 0)
			return;		/* it has room and nothing to wait behind */
		if (!low)
			continue;	/* full of work as urgent: nothing to take */
		if (best < 0 || low < best_low)
			best = (int)i, best_low = low;
	}
	if (best < 0)
		return;
	struct child *g = &s->child[best];
	g->claimed = 1;
	g->claim_prio = prio;
	if (!child_serving(g))
		return;		/* coming back empty */
	int running_ok = s->conf.preempt_after_ms &&
		now - wj->submit_mono_ns >= s->conf.preempt_after_ms * 1000000u;
	for (int h = g->nhold - 1; h >= 0; h--) {
		const struct part_ref *r = &g->hold[h];
		if (ref_prio(s, r) <= prio)
			continue;
		if (h == g->nhold - 1 && g->src_child >= 0) {
			take_relay(s, (uint32_t)best, prio, running_ok, now);
			if (!child_serving(g))
				return;	/* killed: it comes back empty */
		} else if (h > 0 || running_ok) {
			/* received and not begun: at once; the one it proves:
			 * once the other has waited preempt_after (pre-emption
			 * off: it waits behind that one, only what came after
			 * is taken back) */
			ask(s, (uint32_t)best, h, now);
		}
	}
}

/* The synth stage: the most urgent partition (priority prio) is queued
 * and no synth is free. */
static void clear_synth(struct sup *s, const struct job *wj, uint64_t now)
{
	uint32_t prio = wj->priority;
	int running_ok = s->conf.preempt_after_ms &&
		now - wj->submit_mono_ns >= s->conf.preempt_after_ms * 1000000u;
	int victim = -1, vcost = 0;

	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		if (child_takes_work(c) && child_idle(c))
			return;		/* a synth is free: placement gives it out */
		if (c->preempt_kill && child_alive(c))
			return;		/* one is being taken back already */
		if (worker_coming(c, now))
			return;		/* one is coming (back) */
	}
	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		const struct part_ref *r = c->nhold == 1 ? &c->hold[0]
			: relay_busy(c) && c->relay_dst >= 0 ? &c->relay_ref
			: c->verifying ? &c->vref : NULL;
		/* (a verified partition is done: its job's priority counts) */
		uint32_t rp = !r ? 0 : c->nhold != 1 && c->verifying && s->jobs[r->job].id == r->id
			? s->jobs[r->job].priority : ref_prio(s, r);
		int cost;

		if (!child_serving(c) || !r || rp <= prio)
			continue;
		/* cheapest first: synthesizing, then ready or verifying (the
		 * verification goes back to pending, check.c), then relaying
		 * into the gpuworker claimed for this partition, then into
		 * another (whose frame must be padded to its end) */
		cost = c->nhold == 1 ? (c->rd == RD_HELD ? 1 : 0)
			: c->verifying ? 1 : s->child[c->relay_dst].claimed ? 2 : 3;
		if (victim < 0 || cost < vcost)
			victim = (int)i, vcost = cost;
	}
	if (victim < 0)
		return;
	struct child *c = &s->child[victim];
	if (c->nhold == 0 && c->relay_dst >= 0 && s->child[c->relay_dst].src_child == victim)
		take_relay(s, (uint32_t)c->relay_dst, prio, running_ok, now);
	else
		preempt_kill(s, (uint32_t)victim, "pre-empted: a higher-priority partition needs a synth");
}

/* The next moment preempt_run has something to do: a grace period's end,
 * or the waiting partition's preempt_after. An io_uring timeout is armed
 * for it (its completion makes a loop iteration, so sched_run), since the
 * 100 ms tick would add up to 100 ms to each. */
static void wake_at(struct sup *s, int ji, uint64_t now)
{
	uint64_t due = UINT64_MAX;

	for (uint32_t i = 0; i < s->ngpu; i++)
		for (int h = 0; h < s->child[i].nhold; h++)
			if (s->child[i].hold[h].abandon_ns &&
			    s->child[i].hold[h].abandon_ns + s->conf.preempt_grace_ms * 1000000ull + 1 < due)
				due = s->child[i].hold[h].abandon_ns + s->conf.preempt_grace_ms * 1000000ull + 1;
	if (ji >= 0 && s->conf.preempt_after_ms) {
		uint64_t t = s->jobs[ji].submit_mono_ns + s->conf.preempt_after_ms * 1000000u;
		if (t > now && t < due)
			due = t;
	}
	if (due == UINT64_MAX || due <= now || (s->preempt_wake_ns > now && s->preempt_wake_ns <= due))
		return;
	s->preempt_wake_ns = due;
	s->preempt_ts.tv_sec = (long long)((due - now) / 1000000000u);
	s->preempt_ts.tv_nsec = (long long)((due - now) % 1000000000u);
	io_uring_prep_timeout(loop_sqe(&s->loop, loop_ud(EV_IGNORE, 0)), &s->preempt_ts, 0, 0);
}

void preempt_run(struct sup *s)
{
	uint64_t now = shm_now_mono();
	uint32_t p;
	int ji, queued = 0;

	if (s->stopping)
		return;
	/* Asked and not answered within the grace period: killed. A
	 * partition still being relayed in (padded) is waited for: the
	 * gpuworker answers once its frame has ended, so its grace starts
	 * with the relay's end. */
	for (uint32_t i = 0; i < s->ngpu; i++) {
		struct child *g = &s->child[i];
		for (int h = 0; h < g->nhold && child_serving(g); h++) {
			if (g->hold[h].abandon_ns && h == g->nhold - 1 && g->src_child >= 0)
				g->hold[h].abandon_ns = now;
			if (!g->hold[h].abandon_ns)
				continue;
			if (now - g->hold[h].abandon_ns > s->conf.preempt_grace_ms * 1000000ull)
				preempt_kill(s, i, "pre-empted: did not abandon its partition in time");
		}
	}
	ji = waiting_part(s, &p, &queued);
	/* A verification waits for a synth too: the job's commit waits for
	 * it (check.c). */
	int vj = preempt_verify_job(s);
	if (vj >= 0 && (ji < 0 || s->jobs[vj].priority < s->jobs[ji].priority))
		clear_synth(s, &s->jobs[vj], now);
	for (uint32_t i = 0; i < s->ngpu; i++)	/* claims last while they are needed */
		if (ji < 0 || s->child[i].claim_prio > s->jobs[ji].priority)
			s->child[i].claimed = 0;
	if (ji < 0) {
		wake_at(s, -1, now);
		return;
	}
	clear_gpu(s, &s->jobs[ji], now);	/* first: the synth stage prefers its relay */
	if (queued)
		clear_synth(s, &s->jobs[ji], now);
	wake_at(s, ji, now);
}
