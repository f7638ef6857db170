/*
 * policy: which partition goes where, and when.
 *
 * sched_run is called once at the end of every loop iteration, after all
 * of the iteration's completions are dispatched (run.c hands it to the
 * loop as its after-batch hook), so every change of the iteration is seen
 * at once and no handler has to remember to call it:
 *   - a ready partition (first by kind priority, job id, partition) is
 *     relayed to the gpuworker with the fewest partitions, if one has room;
 *   - an idle synth gets the queued partition that comes first by that
 *     order, if the memory budget allows. A job's result file is
 *     allocated when its first partition's turn comes (results.c), so the
 *     space is held before any work is done; a job blocked for want of
 *     space is passed over until its retry works.
 * The memory budget counts what each partition in flight costs where it
 * is: at a gpuworker (received, or being received, or proved) its a, b, c,
 * 3 * 2^k * 32 bytes; at a synth, which streams its rows, one chunk and
 * the pipe's worth at most. A synth is given work, and a relay to a
 * gpuworker is started, only within the budget, so memory is throttled
 * instead of filled. Last, preempt_run (preempt.c) takes work back from
 * lower-priority partitions for the most urgent one that waits, and
 * placement honours the kinds' slots and reservations (preempt_gpu_ok).
 * One partition is always allowed so an oversized one
 * cannot stall everything. Nothing new is synthesized
 * while stopping; nothing at all moves once the children are being ended.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sup.h"
#include "util/util.h"

/* Admission, as the control socket admits connections (ctlsrv.c): at
 * most max_jobs queued or running; the last quarter of them only for
 * root and the supervisor's own uid, and at most max_jobs_per_uid for
 * any other one uid, so one socket_group member can neither take the
 * table nor keep the operator's jobs out. */
int jobs_admit(const struct sup *s, uid_t uid, char *err, size_t errlen)
{
	uint32_t active = 0, mine = 0, max = s->conf.max_jobs, kept = max / 4;

	for (uint32_t i = 0; i < s->njobs; i++)
		if (jobs_active(&s->jobs[i])) {
			active++;
			mine += s->jobs[i].uid == uid;
		}
	if (active >= max)
		return util_fail(err, errlen, -ENOSPC, "job limit reached: max_jobs (%u) jobs queued or running",
				 max);
	if (uid == 0 || uid == getuid())
		return 0;
	if (mine >= s->conf.max_jobs_per_uid)
		return util_fail(err, errlen, -ENOSPC, "job limit reached: uid %u has max_jobs_per_uid (%u) "
				 "jobs queued or running", (unsigned)uid, s->conf.max_jobs_per_uid);
	if (active >= max - kept)
		return util_fail(err, errlen, -ENOSPC, "job limit reached: the last %u of max_jobs (%u) are "
				 "kept for root and the supervisor's uid", kept, max);
	return 0;
}

/* What a partition of j costs at a gpuworker: a, b, c. */
static uint64_t part_bytes(const struct job *j)
{
	return (j->params ? 4ull : 3ull) << j->log_size << 5;	/* a proof: the witness too */
}

/* What it costs at a synth: a chunk of rows being made and the pipe. */
static uint64_t synth_bytes(const struct job *j)
{
	uint64_t stream = (uint64_t)FRAME_PART_ROWS * 3 * 32 + SUP_PIPE_SIZE;

	return part_bytes(j) < stream ? part_bytes(j) : stream;
}

/* Bytes of partitions in flight at the gpuworkers only (gpu) or at
 * every child. */
static uint64_t mem_used(const struct sup *s, int gpu)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < (gpu ? s->ngpu : s->nchild); i++)
		for (int h = 0; h < s->child[i].nhold; h++) {
			const struct part_ref *r = &s->child[i].hold[h];
			const struct job *j = &s->jobs[r->job];
			if (j->id == r->id)
				sum += s->child[i].kind == CHILD_GPU ? part_bytes(j) : synth_bytes(j);
		}
	return sum;
}

/* Bytes of partitions in flight: what the children hold. */
uint64_t sched_mem_used(const struct sup *s)
{
	return mem_used(s, 0) + check_mem(s);
}

/* What the work in flight may use: mem_budget less the resident params
 * (mapped by every gpuworker, one copy in memory: counted once; start
 * refuses params that leave nothing). */
static uint64_t work_budget(const struct sup *s)
{
	return s->conf.mem_budget - params_mem(s);
}

static int part_cmp(const struct sup *s, int ja, uint32_t pa, int jb, uint32_t pb)
{
	const struct job *a = &s->jobs[ja], *b = &s->jobs[jb];

	if (a->priority != b->priority)
		return a->priority < b->priority ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return pa < pb ? -1 : pa > pb;
}

/* The first queued partition by priority; -1 when none. */
static int next_queued(const struct sup *s, uint32_t *part)
{
	int best = -1;
	uint32_t bp = 0;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!jobs_active(j) || results_blocked(j))
			continue;
		if (best >= 0 && part_cmp(s, (int)i, 0, best, bp) > 0)
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].state == SHM_PART_QUEUED) {
				if (best < 0 || part_cmp(s, (int)i, p, best, bp) < 0) {
					best = (int)i;
					bp = p;
				}
				break;
			}
	}
	*part = bp;
	return best;
}

static void dispatch_synth(struct sup *s, uint32_t ci, int ji, uint32_t p)
{
	struct job *j = &s->jobs[ji];
	struct child *c = &s->child[ci];
	struct frame_synth_req req = { .seed_len = j->seed_len };
	uint8_t buf[FRAME_HDR_SIZE + sizeof req];
	struct frame_hdr h;

	memcpy(req.seed, j->seed, j->seed_len);
	part_unhold_all(s, ci);
	part_hold(s, ci, &(struct part_ref){ .id = j->id, .job = ji, .part = p, .gen = ++s->next_gen });
	frame_init(&h, FRAME_SYNTH_REQ, j->id, p, (uint16_t)j->kind, (uint16_t)j->log_size,
		   c->hold[0].gen);
	frame_seal(&h, &req, sizeof req);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, &req, sizeof req);
	child_write(s, ci, buf, sizeof buf);
	part_event(s, ji, p, PEV_SENT, NULL);
	j->part[p].synth_child = (int16_t)ci;
	j->part[p].synth_start_ns = shm_now_mono();
	if (j->state == SHM_JOB_QUEUED) {
		j->state = SHM_JOB_RUNNING;
		j->start_mono_ns = shm_now_mono();
	}
	jobs_publish(s, ji);
}

static int gpu_pick(struct sup *s, const struct job *j)
{
	int best = -1;

	for (uint32_t i = 0; i < s->ngpu; i++) {
		struct child *g = &s->child[i];
		struct shm_slot v;

		if (!child_takes_work(g) || g->nhold >= SUP_GPU_DEPTH || g->src_child >= 0 ||
		    !preempt_gpu_ok(s, j, i))
			continue;
		if (s->nparams && shm_read_slot(&s->seg, SHM_T_GPU, g->slot, &v) == 0 &&
		    v.state == SHM_SLOT_LOADING)
			continue;	/* its params are not in yet */
		if (best < 0 || g->nhold < s->child[best].nhold)
			best = (int)i;
	}
	return best;
}

/* The synth holding the first ready partition by priority that has a
 * gpuworker to go to (*gi; its kind's slots, reservations and pre-emption
 * permitting: preempt_gpu_ok); -1 if none. The gpuworker is the one found
 * for that synth, never picked a second time: gpu_pick reads the slots'
 * records, which the workers write meanwhile (a restarted gpuworker shows
 * LOADING only after its HELLO), so a second pick may find none, and a
 * relay to gpuworker -1 would write far outside the child table. */
static int ready_pick(struct sup *s, int *gi)
{
	int best = -1, best_gi = -1;

	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		struct child *c = &s->child[i];
		int g;
		if (!child_serving(c) || c->rd != RD_HELD || c->nhold != 1 || relay_busy(c))
			continue;
		if ((g = gpu_pick(s, &s->jobs[c->hold[0].job])) < 0)
			continue;
		if (best < 0 || part_cmp(s, c->hold[0].job, c->hold[0].part,
					 s->child[best].hold[0].job, s->child[best].hold[0].part) < 0) {
			best = (int)i;
			best_gi = g;
		}
	}
	*gi = best_gi;
	return best;
}

/* Partitions out with children: synthesizing, ready, relayed, proving. */
int sched_inflight(const struct sup *s)
{
	for (uint32_t i = 0; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		if (child_alive(c) && (c->nhold || relay_busy(c)))
			return 1;
	}
	return 0;
}

void sched_run(struct sup *s)
{
	int si, gi, ji;
	uint32_t p;

	if (s->stopping > 1)
		return;
	/* Ready partitions to GPUs with room, most urgent first, within the
	 * memory budget (a relay makes a synth's partition a gpuworker's). */
	uint64_t used = sched_mem_used(s), at_gpus = mem_used(s, 1);
	while ((si = ready_pick(s, &gi)) >= 0) {
		const struct job *j = &s->jobs[s->child[si].hold[0].job];
		uint64_t more = part_bytes(j) - synth_bytes(j);
		if (at_gpus && used + more > work_budget(s))
			break;	/* (with nothing at the gpuworkers one goes anyway) */
		relay_start(s, (uint32_t)si, (uint32_t)gi);
		used += more;
		at_gpus += part_bytes(j);
	}
	/* Verifications first: a job's commit waits for them (check.c);
	 * but not before a queued partition of a more urgent job (it would
	 * wait behind a lower-priority job's work, preempt.c). */
	int vj = preempt_verify_job(s);
	int urgent = vj >= 0 && (ji = next_queued(s, &p)) >= 0 &&
		s->jobs[ji].priority < s->jobs[vj].priority;
	for (uint32_t i = s->ngpu; i < s->nchild && !urgent; i++) {
		if (!child_takes_work(&s->child[i]) || !child_idle(&s->child[i]))
			continue;
		if (used && used + check_mem(s) > work_budget(s))
			break;
		if (!check_dispatch(s, i))
			break;
		used = sched_mem_used(s);
	}
	if (s->stopping)
		return;		/* finishing: nothing new is synthesized */
	/* Queued partitions to free synths, within the memory budget. */
	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		if (!child_takes_work(&s->child[i]) || !child_idle(&s->child[i]))
			continue;
		if ((ji = next_queued(s, &p)) < 0)
			break;
		if (!results_ready(&s->jobs[ji])) {
			/* Its turn: the space for its result is taken first. */
			results_alloc(s, ji);
			break;
		}
		if (used && used + synth_bytes(&s->jobs[ji]) > work_budget(s))
			break;
		dispatch_synth(s, i, ji, p);
		used += synth_bytes(&s->jobs[ji]);
	}
	preempt_run(s);
}
