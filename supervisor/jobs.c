/*
 * jobs: the job table, from submit to the end of a job.
 *
 * A job is accepted (journaled before it is acknowledged), its partitions
 * move queued -> synthesizing (a synth child) -> ready (the payload waits
 * in that synth's stdout pipe) -> proving (relayed to a gpuworker) ->
 * done | failed, and the job ends done (its result file assembled by
 * results.c), failed or cancelled. Children only ever hold references
 * (struct part_ref: job id, table index, partition, generation) to what
 * they work on, so a child's death is settled by walking its references
 * (sched_requeue), and a reference to a job that ended meanwhile is simply
 * not wanted any more. Which partition goes where is policy.c's; moving
 * the bytes is relay.c's. Everything here is published to the segment's
 * job table as it changes (publish.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "format/pfile.h"
#include "journal/journal.h"
#include "supervisor/fleet.h"
#include "supervisor/sup.h"
#include "util/text.h"

int jobs_active(const struct job *j)
{
	return j->id && (j->state == SHM_JOB_QUEUED || j->state == SHM_JOB_RUNNING ||
			 j->state == SHM_JOB_BLOCKED);
}

int jobs_keep_h(const struct job *j)
{
	return j->file_kind == PFILE_KIND_PROOFS_H;
}

void jobs_set_reason(struct sup *s, int ji, uint32_t code, const char *why)
{
	struct job *j = &s->jobs[ji];

	j->reason_code = code;
	snprintf(j->why, sizeof j->why, "%s", why ? why : "");
}

/* A table entry made ready for a job: nothing of an earlier one left. */
static void job_init(struct job *j)
{
	uint8_t epoch = j->store_epoch;	/* what the earlier job left in flight stays stale */

	memset(j, 0, sizeof *j);
	j->store_fd = j->dir_fd = -1;
	j->store_epoch = epoch;
}

int sched_idle(const struct sup *s)
{
	for (uint32_t i = 0; i < s->njobs; i++)
		if (jobs_active(&s->jobs[i]))
			return 0;
	return 1;
}

/* A free table entry, else the one that finished longest ago. */
static int job_slot(struct sup *s)
{
	int best = -1;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!results_entry_free(j))
			continue;	/* its files are still being removed */
		if (!j->id)
			return (int)i;
		if (!jobs_active(j) && (best < 0 || j->end_mono_ns < s->jobs[best].end_mono_ns))
			best = (int)i;
	}
	return best;
}

int sched_submit(struct sup *s, uid_t uid, uint32_t kind, const uint8_t *seed, uint32_t seed_len,
		 uint32_t k, uint32_t parts, uint64_t *id, char *err, size_t errlen)
{
	const struct conf_kind *kc;
	int ji, e;

	if (s->draining || s->stopping) {
		snprintf(err, errlen, s->stopping ? "stopping: not accepting jobs" :
			 "draining: not accepting jobs (provisor resume takes them again)");
		return -EBUSY;
	}
	if (kind < 1 || kind > VOCAB_NKINDS) {
		snprintf(err, errlen, "unknown job kind %u", kind);
		return -EINVAL;
	}
	kc = &s->conf.kind[kind];
	k = k ? k : kc->log_size;
	parts = parts ? parts : kc->partitions;
	if (k < VOCAB_LOG_MIN || k > s->conf.max_log_size) {
		/* the client's own wording for --log-size (cli/cmd_ctl.c reads it) */
		snprintf(err, errlen, "log size %u is not a number in %d..%u (max_log_size)", k,
			 VOCAB_LOG_MIN, s->conf.max_log_size);
		return -EINVAL;
	}
	if (parts < 1 || parts > VOCAB_MAX_PARTS) {
		snprintf(err, errlen, "partitions %u is outside 1..%d", parts, VOCAB_MAX_PARTS);
		return -EINVAL;
	}
	if ((e = jobs_admit(s, uid, err, errlen)) < 0)
		return e;
	if ((ji = job_slot(s)) < 0) {
		snprintf(err, errlen, "job limit reached: the job table's %u entries are all queued or running",
			 s->njobs);
		return -ENOSPC;
	}
	struct job *j = &s->jobs[ji];
	uint8_t pidx, fkind;

	if ((e = params_job_output(s, kind, k, &pidx, &fkind, err, errlen)) < 0 ||
	    (e = results_fits(s, fkind, k, parts, err, errlen)) < 0)
		return e;
	results_drop(s, ji);	/* a failed job's kept files, if it had any */
	job_init(j);
	j->params = pidx;
	j->file_kind = fkind;
	j->id = s->next_job_id++;	/* its directory and file: at its turn (results.c) */
	j->uid = uid;
	j->kind = kind;
	j->priority = kc->priority;
	j->log_size = k;
	j->nparts = parts;
	if (seed_len) {
		memcpy(j->seed, seed, seed_len);
		j->seed_len = seed_len;
	} else {
		if (getrandom(j->seed, 16, 0) != 16)
			memcpy(j->seed, &j->id, 8);
		j->seed_len = 16;
	}
	j->state = SHM_JOB_QUEUED;
	j->submit_wall_ns = shm_now_wall();
	j->submit_mono_ns = shm_now_mono();
	for (uint32_t p = 0; p < parts; p++)
		j->part[p] = (struct part){ .state = SHM_PART_QUEUED, .synth_child = -1, .gpu_child = -1,
					     .xout_from = -1 };
	/* Durable before acknowledged. */
	struct journal_job jj = { .id = j->id, .kind = kind, .priority = j->priority, .log_size = k,
				  .nparts = parts, .seed_len = j->seed_len,
				  .submit_wall_ns = j->submit_wall_ns, .uid = (uint32_t)uid };
	memcpy(jj.seed, j->seed, j->seed_len);
	char jerr[200];
	/* Written here, made durable by the caller (ctlsrv.c: an io_uring
	 * fdatasync) before the job is acknowledged. */
	if (s->journal && journal_submit_nosync(s->journal, &jj, jerr, sizeof jerr) < 0) {
		snprintf(err, errlen, "not accepted: %s", jerr);
		sup_log("job %llu %s", (unsigned long long)j->id, err);
		j->id = 0;
		return -EIO;
	}
	jobs_publish(s, ji);
	sup_event(s, SHM_EV_JOB_SUBMIT, 0, 0, 0, j->id, 0, "job %llu submitted: %s, %u x 2^%u",
		  (unsigned long long)j->id, vocab_kind_name(kind), parts, k);
	*id = j->id;
	return 0;
}

static int find_job(const struct sup *s, uint64_t id)
{
	for (uint32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == id)
			return (int)i;
	return -1;
}

/* A job whose journal record could not be made durable: never
 * acknowledged, it ends failed (an I/O error on the state directory). */
void sched_withdraw(struct sup *s, uint64_t id, const char *why)
{
	int ji = find_job(s, id);

	if (ji >= 0 && jobs_active(&s->jobs[ji]))
		jobs_finish(s, ji, SHM_JOB_FAILED, SHM_REASON_IO, why);
}

/* The job ends: done, failed or cancelled. Nothing of it stays queued;
 * partitions still out with workers are ignored when they come back (a
 * cancel also asks for them back, preempt_cancel). A cancelled job's
 * partitions not done show as cancelled, a failed one's queued ones as
 * failed. */
void jobs_finish(struct sup *s, int ji, uint32_t state, uint32_t code, const char *why)
{
	struct job *j = &s->jobs[ji];

	j->state = state;
	j->end_mono_ns = shm_now_mono();
	jobs_set_reason(s, ji, code, why);
	for (uint32_t p = 0; p < j->nparts && state != SHM_JOB_DONE; p++)
		part_event(s, ji, p, state == SHM_JOB_CANCELLED ? PEV_CANCELLED : PEV_JOB_ENDED, NULL);
	results_end(s, ji);
	if (s->journal) {
		char jerr[200];
		if (journal_end(s->journal, j->id, state, jerr, sizeof jerr) < 0)
			sup_log("job %llu: %s", (unsigned long long)j->id, jerr);
		jobs_journal_trim(s);
	}
	fleet_job_ended(s, ji, state);	/* a fleet job's end goes to the database */
	if (state == SHM_JOB_DONE) {
		s->stats.jobs_done++;
		if (j->kind >= 1 && j->kind <= VOCAB_NKINDS)
			s->stats.jobs_done_kind[j->kind - 1]++;
	} else if (state == SHM_JOB_CANCELLED)
		s->stats.jobs_cancelled++;	/* its own count: not a failure */
	else
		s->stats.jobs_failed++;
	jobs_publish(s, ji);
	/* The totals at once, not at the next tick: a reader that sees the
	 * job end must not see counters that do not yet include it. */
	sched_publish(s);
	sup_event(s, state == SHM_JOB_DONE ? SHM_EV_JOB_DONE : state == SHM_JOB_CANCELLED ?
		  SHM_EV_JOB_CANCELLED : SHM_EV_JOB_FAILED, 0, 0, 0, j->id, 0,
		  "job %llu %s%s%s", (unsigned long long)j->id,
		  state == SHM_JOB_DONE ? "done" : state == SHM_JOB_CANCELLED ? "cancelled" : "failed",
		  why && state == SHM_JOB_FAILED ? ": " : "", why && state == SHM_JOB_FAILED ? why : "");
	if (why && state == SHM_JOB_FAILED)
		sup_log("job %llu failed: %s", (unsigned long long)j->id, why);
}


/* A job from the journal that had not finished: done already if its
 * result file is there and sound; else back in the table, with the
 * partitions whose H survived counted as done. */
void sched_resume(struct sup *s, const struct journal_job *jj)
{
	char err[256];
	int ji;

	if (jj->log_size < VOCAB_LOG_MIN) {	/* journaled before the v2 circuit */
		sup_log("job %llu: log size %u is below %d, the smallest circuit; it fails",
			(unsigned long long)jj->id, jj->log_size, VOCAB_LOG_MIN);
		if (journal_end(s->journal, jj->id, SHM_JOB_FAILED, err, sizeof err) < 0)
			sup_log("job %llu: %s", (unsigned long long)jj->id, err);
		return;
	}
	if (results_have(s, jj->id)) {
		sup_log("job %llu: its result is already there; not recomputed",
			(unsigned long long)jj->id);
		if (journal_end(s->journal, jj->id, SHM_JOB_DONE, err, sizeof err) < 0)
			sup_log("job %llu: %s", (unsigned long long)jj->id, err);
		return;
	}
	if ((ji = job_slot(s)) < 0) {
		sup_log("job %llu: the job table is full; it stays in the journal for later",
			(unsigned long long)jj->id);
		s->resume_deferred = 1;
		return;
	}
	struct job *j = &s->jobs[ji];
	uint32_t reused;

	results_drop(s, ji);
	job_init(j);
	j->id = jj->id;
	/* it counts against who submitted it, as before the restart (a
	 * version 1 record does not say: the supervisor's uid, exempt) */
	j->uid = jj->uid != JOURNAL_UID_UNKNOWN ? (uid_t)jj->uid : getuid();
	j->kind = jj->kind;
	j->priority = jj->priority;
	j->log_size = jj->log_size;
	j->nparts = jj->nparts;
	j->seed_len = jj->seed_len;
	memcpy(j->seed, jj->seed, jj->seed_len);
	j->state = SHM_JOB_QUEUED;
	j->submit_wall_ns = jj->submit_wall_ns;
	j->submit_mono_ns = shm_now_mono();
	params_job_output(s, j->kind, j->log_size, &j->params, &j->file_kind, NULL, 0);
	reused = results_reuse(s, j);
	sup_log("job %llu resumed from the journal (%u of %u partitions already proved)",
		(unsigned long long)j->id, reused, j->nparts);
	jobs_publish(s, ji);
	jobs_check_done(s, ji);
}

int sched_cancel(struct sup *s, uint64_t id, char *err, size_t errlen)
{
	int ji = find_job(s, id);

	if (ji < 0) {
		snprintf(err, errlen, "no job %llu", (unsigned long long)id);
		return -ENOENT;
	}
	if (!jobs_active(&s->jobs[ji])) {
		snprintf(err, errlen, "job %llu already finished", (unsigned long long)id);
		return -EALREADY;
	}
	jobs_finish(s, ji, SHM_JOB_CANCELLED, SHM_REASON_CANCELLED, "cancelled");
	preempt_cancel(s, ji);
	return 0;
}

int sched_retry(struct sup *s, uid_t uid, uint64_t id, char *err, size_t errlen)
{
	int ji = find_job(s, id), e;
	uint32_t kept = 0;
	char jerr[200];

	if (s->draining || s->stopping) {
		snprintf(err, errlen, "draining: not accepting jobs");
		return -EBUSY;
	}
	if (ji < 0) {
		snprintf(err, errlen, "no job %llu (an ended job can be retried while it is in the job "
			 "table: until its entry is reused, or the supervisor restarts)",
			 (unsigned long long)id);
		return -ENOENT;
	}
	struct job *j = &s->jobs[ji];
	if (jobs_active(j)) {
		snprintf(err, errlen, "job %llu is not over: it is %s", (unsigned long long)id,
			 j->state == SHM_JOB_RUNNING ? "running" : j->state == SHM_JOB_BLOCKED ? "blocked" : "queued");
		return -EBUSY;
	}
	if (j->state == SHM_JOB_DONE) {
		snprintf(err, errlen, "job %llu is done: nothing to retry", (unsigned long long)id);
		return -EALREADY;
	}
	if ((e = jobs_admit(s, uid, err, errlen)) < 0)
		return e;
	if (s->journal && jobs_journal_retry(s, ji, jerr, sizeof jerr) < 0) {
		snprintf(err, errlen, "not retried: %s", jerr);
		return -EIO;
	}
	results_retry(s, ji);	/* its kept file is reopened at its turn */
	/* What workers still hold of its earlier run is not taken (a
	 * partition of theirs is queued again, no attempt counted). */
	j->store_gen_floor = s->next_gen + 1;
	for (uint32_t p = 0; p < j->nparts; p++) {
		struct part *pt = &j->part[p];
		if (pt->state == SHM_PART_DONE) {
			kept++;
			if (pt->verify == PV_INFLIGHT)
				pt->verify = PV_PENDING;	/* its verdict came, or will, too late */
			continue;
		}
		part_event(s, ji, p, PEV_RETRY, NULL);
	}
	j->state = SHM_JOB_QUEUED;
	j->uid = uid;	/* it counts against who asked for it again */
	j->end_mono_ns = 0;
	jobs_set_reason(s, ji, SHM_REASON_NONE, NULL);
	jobs_publish(s, ji);
	sched_publish(s);
	sup_log("job %llu retried: %u of %u partitions kept", (unsigned long long)id, kept, j->nparts);
	sup_event(s, SHM_EV_JOB_SUBMIT, 0, 0, 0, id, 0, "job %llu retried: %u of %u partitions kept",
		  (unsigned long long)id, kept, j->nparts);
	return 0;
}

/* Is the partition still wanted (same job, active, not done)? */
int jobs_wanted(const struct sup *s, const struct part_ref *r)
{
	const struct job *j = &s->jobs[r->job];

	return j->id == r->id && jobs_active(j) && j->part[r->part].state != SHM_PART_DONE;
}

/* Put a partition back in the queue after its worker died, or fail its
 * job when it has now failed conf.poison_attempts times. */
static void requeue_one(struct sup *s, const struct part_ref *r, enum part_event ev, const char *why)
{
	if (!jobs_wanted(s, r))
		return;
	/* taken back (preempt.c): no attempt, no failure (part_event) */
	if (part_event(s, r->job, r->part, ev, why) != SHM_PART_FAILED)
		jobs_publish(s, r->job);	/* (a failed job was published by its end) */
}

/* Child ci is gone: settle every partition it held and any relay it was
 * part of. */
void sched_requeue(struct sup *s, uint32_t ci, int unrun, const char *why)
{
	struct child *c = &s->child[ci];

	for (int i = 0; i < c->nhold; i++)
		requeue_one(s, &c->hold[i], unrun ? PEV_UNRUN : PEV_HOLDER_DIED, why);
	part_unhold_all(s, ci);
	if (c->kind == CHILD_SYNTH) {
		check_on_exit(s, ci);	/* its verification goes back to pending */
		relay_on_src_exit(s, ci);	/* the rest of its payload is gone */
	} else
		relay_on_dst_exit(s, ci);	/* the rest has nowhere to go */
}

/* A synth has a PART_DATA header: its partition is ready for a GPU. The
 * synth sends the header before any row (it streams them, proto/frame.h),
 * so the payload is not whole yet: the relay may start now and splices
 * the rows as they come; until it does, the synth blocks on a full pipe. */
void sched_synth_ready(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct part_ref *r = &c->hold[0];

	if (c->nhold != 1 || c->hdr.gen != r->gen || c->hdr.job != r->id ||
	    c->hdr.partition != r->part) {
		child_kill(s, ci, "sent a partition it was not asked for");
		return;
	}
	if (!jobs_wanted(s, r)) {	/* cancelled meanwhile: throw it away */
		part_unhold_all(s, ci);
		c->relay_left = c->hdr.payload_len;
		relay_discard(s, ci);
		return;
	}
	struct part *pt = &s->jobs[r->job].part[r->part];
	part_event(s, r->job, r->part, PEV_READY, NULL);
	pt->has_xout = 0;	/* PART_INFO follows the payload */
	pt->xout_from = (int16_t)ci;
	pt->ready_ns = shm_now_mono();	/* its rows stream from now (synth_ns: relay.c) */
	if (s->trace)
		fprintf(s->trace, "R %llu %u %llu\n", (unsigned long long)r->id, r->part,
			(unsigned long long)pt->ready_ns);
	c->relay_left = c->hdr.payload_len;
	jobs_publish(s, r->job);
}

/* Find the hold entry of gpu child ci that the current header is for. */
static int take_hold(struct sup *s, uint32_t ci, struct part_ref *out)
{
	struct child *c = &s->child[ci];

	for (int i = 0; i < c->nhold; i++) {
		struct part_ref *r = &c->hold[i];
		if (r->gen == c->hdr.gen && r->id == c->hdr.job && r->part == c->hdr.partition) {
			*out = *r;
			part_unhold(s, ci, i);
			return 0;
		}
	}
	return -1;
}

/* Every partition is in: the result file's commit (results.c) ends the
 * job when its last step is done. */
void jobs_check_done(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];

	if (!jobs_active(j) || !results_commit_due(j) || !check_settled(j))
		return;	/* (verifications pending: the last verdict calls again) */
	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].state != SHM_PART_DONE)
			return;
	results_commit(s, ji);
}

static const char *store_op_name(uint32_t op)
{
	switch (op) {
	case FRAME_STORE_OPEN: return "opening the result file";
	case FRAME_STORE_WRITE: return "writing a partition's H";
	case FRAME_STORE_SYNC: return "syncing a partition's H";
	default: return "storing a partition's H";
	}
}

/* An H_DONE payload arrived from gpu child ci (checksum checked): the
 * worker stored its partition's H in the job's result file, or says why
 * it could not. */
void sched_result(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct part_ref r;

	if (take_hold(s, ci, &r) < 0) {
		child_kill(s, ci, "sent a result it was not asked for");
		return;
	}
	if (!jobs_wanted(s, &r))
		return;		/* cancelled meanwhile */
	struct job *j = &s->jobs[r.job];
	struct part *pt = &j->part[r.part];
	struct frame_h_done d;
	memcpy(&d, c->buf, sizeof d);
	if (r.gen < j->store_gen_floor) {
		/* stored in a result file that was removed (and made again)
		 * since: lost with it, proved again, no attempt counted */
		part_event(s, r.job, r.part, PEV_STORE_ERROR, NULL);
		jobs_publish(s, r.job);
		return;
	}
	if (d.err) {
		/* The state directory's fault, not the partition's: queued
		 * again without an attempt counted, the job blocked until the
		 * file can be written. */
		int e = d.err > 0 && d.err < 4096 ? d.err : EIO;
		sup_log("gpu.%u: job %llu partition %u: %s: %s", c->slot, (unsigned long long)j->id,
			r.part, store_op_name(d.op), strerror(e));
		part_event(s, r.job, r.part, PEV_STORE_ERROR, NULL);
		results_part_failed(s, r.job, e, store_op_name(d.op));
		jobs_publish(s, r.job);
		return;
	}
	results_part_stored(s, r.job, r.part, d.digest);
	if (check_stored(s, r.job, r.part, ci))
		return;	/* made again instead */
	part_event(s, r.job, r.part, PEV_STORED, NULL);
	pt->gpu_ns = c->hdr.work_ns;
	if (pt->gpu_ns > s->longest_ns[j->kind])
		s->longest_ns[j->kind] = pt->gpu_ns;
	s->stats.parts_done++;
	jobs_publish(s, r.job);
	jobs_check_done(s, r.job);
}

/* A worker answered FAIL for the partition of the current header. */
void sched_part_failed(struct sup *s, uint32_t ci, uint32_t cls, const char *why)
{
	struct child *c = &s->child[ci];
	struct part_ref r;
	char reason[80];

	if (c->kind == CHILD_SYNTH) {
		if (c->nhold != 1 || c->hold[0].gen != c->hdr.gen) {
			child_kill(s, ci, "reported a failure for a partition it does not hold");
			return;
		}
		r = c->hold[0];
		part_unhold_all(s, ci);
	} else if (take_hold(s, ci, &r) < 0) {
		child_kill(s, ci, "reported a failure for a partition it does not hold");
		return;
	}
	/* A worker's failure (its backend failed, or it found the system
	 * unsatisfied) counts as an attempt, like a crash: retried until the
	 * partition has failed poison_attempts times, then its job fails. A
	 * payload that failed its checksum was the producing synth's fault. */
	int counted = 0;	/* its loss was counted already */
	if (c->kind == CHILD_GPU && (cls == FRAME_FAIL_NOMEM || cls == FRAME_FAIL_DEVICE_LOST)) {
		/* its backend could not run it: requeued, no attempt counted
		 * (a lost device: the worker exits, child.c counts the loss) */
		s->stats.parts_nomem += cls == FRAME_FAIL_NOMEM;
		c->rest_until_ns = shm_now_mono() + SUP_FAIL_REST_MS * 1000000ull;
		sup_event(s, SHM_EV_INFO, SHM_T_GPU, c->slot, 0, r.id, r.part,
			  "gpu.%u: job %llu partition %u not run: %s; queued again", c->slot,
			  (unsigned long long)r.id, r.part, frame_fail_class_name(cls));
		requeue_one(s, &r, PEV_UNRUN, frame_fail_class_name(cls));
		return;
	}
	if (c->kind == CHILD_GPU && (cls == FRAME_FAIL_BAD_INPUT || cls == FRAME_FAIL_INTERNAL)) {
		s->stats.backend_errors++;
		c->rest_until_ns = shm_now_mono() + SUP_FAIL_REST_MS * 1000000ull;
	}
	if (c->kind == CHILD_GPU && cls == FRAME_FAIL_STOPPED) {
		/* it abandoned the partition on request (preempt.c): requeued
		 * with no attempt counted, not a failure */
		if (jobs_wanted(s, &r)) {
			part_event(s, r.job, r.part, PEV_TAKE_BACK, NULL);
			preempt_note(s, ci, &r, "abandoned on request");
		}
		requeue_one(s, &r, PEV_PREEMPTED, "pre-empted");
		return;
	}
	if (c->kind == CHILD_GPU && cls == FRAME_FAIL_BAD_PAYLOAD) {
		if (jobs_wanted(s, &r) && s->jobs[r.job].part[r.part].preempting) {
			/* its synth was killed to pre-empt this relay (preempt.c)
			 * and the relay padded the stream: taken back, not lost,
			 * whether or not the synth's death was reaped yet */
			requeue_one(s, &r, PEV_PREEMPTED, "pre-empted");
			return;
		}
		if (r.from_child >= 0 && s->child[r.from_child].pid == r.from)
			child_kill(s, (uint32_t)r.from_child, "sent a partition that failed its checksum");
		else	/* the synth died mid-stream (the relay padded it with
			 * zeros): its slot's repair counted the loss */
			counted = 1;
	}
	s->stats.parts_failed += !counted;
	/* why is the worker's text, made safe by child.c; cut at a whole
	 * character (never half of a \xNN) to fit an event and a reason */
	char shown[40];
	util_clean(shown, sizeof shown, why);
	sup_event(s, SHM_EV_INFO, c->kind == CHILD_GPU ? SHM_T_GPU : SHM_T_SYNTH, c->slot, 0, r.id,
		  r.part, "%s.%u: job %llu partition %u failed: %s", c->kind == CHILD_GPU ? "gpu" : "synth",
		  c->slot, (unsigned long long)r.id, r.part, shown);
	if (cls != FRAME_FAIL_PARTITION)	/* the class, for the reader */
		snprintf(reason, sizeof reason, "failed (%s: %s)", frame_fail_class_name(cls), shown);
	else
		snprintf(reason, sizeof reason, "failed (%s)", shown);
	requeue_one(s, &r, PEV_FAILED, reason);
}
