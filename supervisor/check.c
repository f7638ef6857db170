/*
 * check: every stored partition a gpu slot reports is verified (or 1 in
 * verify_sample of them), and a slot whose result fails is quarantined.
 *
 * The supervisor is the control plane: it never reads H or does field
 * arithmetic. Verification is a synth's work (it has the circuit): the
 * supervisor sends it a VERIFY_REQ (proto/frame.h) naming the job, the
 * partition and the digest the gpuworker reported; the synth reads that
 * region of STATE/jobs/ID/result.partial under its own STATE/jobs fd,
 * checks the digest, and runs verify_partition (re-synthesis, and
 * A*B - C = H*Z at a Fiat-Shamir point, O(n)); it answers VERIFIED.
 * Verifications go to free synths before new syntheses (a job's commit
 * waits for them), most urgent job first. A proof is checked by the
 * pairing (every one, whatever verify_sample says); a proof kept with its
 * H (keep_h) has both checked in the same request, its region read once.
 *
 * A partition's check_state: NONE (not stored), SKIPPED (stored, not in
 * the sample), PENDING (to verify), INFLIGHT (a synth has it), OK. A job
 * commits only when none of its partitions is PENDING or INFLIGHT
 * (check_settled, jobs_check_done): with verify_sample = 1, the default,
 * no partition reaches a committed result file unverified.
 *
 * A WRONG verdict quarantines the slot that stored it: disabled with
 * SHM_DISABLE_WRONG_RESULT ("wrong result"), event SHM_EV_QUARANTINE,
 * sup.quarantines + 1. The partition is queued again (no attempt counted:
 * the slot was at fault, not the partition) and is recomputed on another
 * slot, its region overwritten before the commit. The slot's unsampled
 * results in jobs not yet committed are verified now; those that already
 * went into a committed result (sampling, verify_sample > 1) are named in
 * the log, so the operator can `provisor verify` them. Results it still
 * sends while it drains (it is disabled once it holds nothing) are all
 * verified. An UNREAD verdict (the region could not be read) proves
 * nothing about the slot: the partition is computed again.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/sup.h"
#include "util/text.h"
#include "verify/verify.h"

/* At the synth: one chunk of H streamed (verify_partition_stream) and
 * the re-synthesis's rows, whatever k is; a proof alone: nothing worth
 * counting (a proof with its H: the H's check). */
static uint64_t verify_bytes(const struct job *j)
{
	return j->params && !jobs_keep_h(j) ? 0 : VERIFY_STREAM_CHUNK + (1u << 20);
}

uint64_t check_mem(const struct sup *s)
{
	uint64_t sum = 0;

	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		if (c->verifying && s->jobs[c->vref.job].id == c->vref.id)
			sum += verify_bytes(&s->jobs[c->vref.job]);
	}
	return sum;
}

int check_settled(const struct job *j)
{
	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].verify == PV_PENDING || j->part[p].verify == PV_INFLIGHT)
			return 0;
	return 1;
}

static void recompute(struct sup *s, int ji, uint32_t p);

int check_stored(struct sup *s, int ji, uint32_t p, uint32_t gi)
{
	struct child *g = &s->child[gi];
	struct part *pt = &s->jobs[ji].part[p];
	uint32_t n = s->conf.verify_sample;
	int sample = g->disable_reason == SHM_DISABLE_WRONG_RESULT || s->jobs[ji].params ||
		     (n && g->results_n % n == 0);	/* every proof: its pairing is cheap */

	g->results_n++;
	pt->stored_by = (int16_t)(gi + 1);
	pt->verify = sample ? PV_PENDING : PV_SKIPPED;
	if (s->jobs[ji].params && !pt->has_xout && pt->xout_from < 0) {
		sup_log("job %llu partition %u: no x_out from its synth (it died); computed again",
			(unsigned long long)s->jobs[ji].id, p);
		recompute(s, ji, p);
		return 1;
	}
	if (!sample) {	/* remembered, for a quarantine that may come */
		g->unverified[g->unverified_n % CHECK_RECENT].id = s->jobs[ji].id;
		g->unverified[g->unverified_n % CHECK_RECENT].part = p;
		g->unverified_n++;
	}
	return 0;
}

/* The pending verification of the most urgent active job; -1 if none. */
static int next_pending(const struct sup *s, uint32_t *part)
{
	int best = -1;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!jobs_active(j) || !results_ready(j))
			continue;
		if (best >= 0 && (j->priority > s->jobs[best].priority ||
				  (j->priority == s->jobs[best].priority && j->id > s->jobs[best].id)))
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].state == SHM_PART_DONE && j->part[p].verify == PV_PENDING &&
			    (!j->params || j->part[p].has_xout || j->part[p].derive_xout)) {
				best = (int)i;
				*part = p;
				break;
			}
	}
	return best;
}

int check_dispatch(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];
	struct frame_verify_req req = { 0 };
	uint8_t buf[FRAME_HDR_SIZE + sizeof req];
	struct frame_hdr h;
	uint32_t p = 0;
	int ji = next_pending(s, &p);

	if (ji < 0)
		return 0;
	struct job *j = &s->jobs[ji];
	req.seed_len = j->seed_len;
	memcpy(req.seed, j->seed, j->seed_len);
	memcpy(req.digest, j->tail + (size_t)p * 32, 32);
	req.params = j->params;
	if (j->part[p].derive_xout)
		req.flags = FRAME_VERIFY_DERIVE_XOUT;
	else
		memcpy(req.xout, j->part[p].xout, sizeof req.xout);
	if (jobs_keep_h(j))	/* the proof and its H, in one request: one digest covers both */
		req.flags |= FRAME_VERIFY_KEEP_H;
	c->vref = (struct part_ref){ .id = j->id, .job = ji, .part = p, .gen = ++s->next_gen,
				     .from_child = -1 };
	c->verifying = 1;
	frame_init(&h, FRAME_VERIFY_REQ, j->id, p, (uint16_t)j->kind, (uint16_t)j->log_size,
		   c->vref.gen);
	frame_seal(&h, &req, sizeof req);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, &req, sizeof req);
	contain_send_file(s, si, (uint32_t)ji);	/* what it checks, read-only */
	child_write(s, si, buf, sizeof buf);
	j->part[p].verify = PV_INFLIGHT;
	return 1;
}

/* Proofs: synth ci reported (frame PART_INFO) the public inputs of the
 * partition it last streamed. */
void check_part_info(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct frame_part_info pi;

	memcpy(&pi, c->buf, sizeof pi);
	for (uint32_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		struct part *pt = &j->part[c->hdr.partition];

		if (j->id != c->hdr.job || !jobs_active(j) || c->hdr.partition >= j->nparts)
			continue;
		if (pt->xout_from == (int16_t)ci && !pt->has_xout) {
			memcpy(pt->xout, pi.xout, sizeof pt->xout);
			pt->has_xout = 1;
		}
		return;
	}
}

/* A stored proof whose public inputs can no longer come: made again. */
static void lost_xout(struct sup *s, uint32_t ci)
{
	for (uint32_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];

		for (uint32_t p = 0; jobs_active(j) && j->params && p < j->nparts; p++) {
			struct part *pt = &j->part[p];

			if (pt->xout_from != (int16_t)ci || pt->has_xout)
				continue;
			pt->xout_from = -1;
			if (pt->verify == PV_PENDING) {
				sup_log("job %llu partition %u: its synth died before it reported x_out; "
					"computed again", (unsigned long long)j->id, p);
				recompute(s, (int)i, p);
			}
		}
	}
}

void check_on_exit(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct job *j = &s->jobs[c->vref.job];

	lost_xout(s, ci);
	if (!c->verifying)
		return;
	c->verifying = 0;
	if (j->id == c->vref.id && j->part[c->vref.part].verify == PV_INFLIGHT)
		j->part[c->vref.part].verify = PV_PENDING;
}

/* Partition p of job ji is to be computed again (its region is rewritten
 * before the commit); no attempt counted. */
static void recompute(struct sup *s, int ji, uint32_t p)
{
	part_event(s, ji, p, PEV_WRONG, NULL);
	jobs_publish(s, ji);
}

/* gpu child gi stored a wrong H for partition p of job id: quarantine it. */
static void quarantine(struct sup *s, uint32_t gi, uint64_t id, uint32_t p, const char *why)
{
	struct child *g = &s->child[gi];
	uint32_t again = 0;

	sup_log("gpu.%u: job %llu partition %u failed verification: %s", g->slot,
		(unsigned long long)id, p, why);
	if (g->disable_reason == SHM_DISABLE_WRONG_RESULT && g->disabled)
		return;		/* quarantined already: its other results are being checked */
	g->disable_reason = SHM_DISABLE_WRONG_RESULT;
	s->stats.quarantines++;
	sup_event(s, SHM_EV_QUARANTINE, SHM_T_GPU, g->slot, 0, id, p,
		  "gpu.%u quarantined: wrong result (job %llu partition %u)", g->slot,
		  (unsigned long long)id, p);
	child_event(s, gi, CEV_DISABLE, "wrong result");
	/* Its results not verified: those of jobs not yet committed now,
	 * the others named for the operator. */
	for (uint32_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (!jobs_active(j))
			continue;
		for (uint32_t q = 0; q < j->nparts; q++)
			if (j->part[q].stored_by == (int16_t)(gi + 1) && j->part[q].verify == PV_SKIPPED) {
				j->part[q].verify = PV_PENDING;
				again++;
			}
	}
	uint32_t first = g->unverified_n > CHECK_RECENT ? g->unverified_n - CHECK_RECENT : 0;
	for (uint32_t k = first; k < g->unverified_n; k++) {
		uint64_t jid = g->unverified[k % CHECK_RECENT].id;
		int active = 0;
		for (uint32_t i = 0; i < s->njobs; i++)
			active |= s->jobs[i].id == jid && jobs_active(&s->jobs[i]);
		if (!active)
			sup_log("gpu.%u: job %llu partition %u was committed unverified (verify_sample %u); "
				"check it with provisor verify", g->slot, (unsigned long long)jid,
				g->unverified[k % CHECK_RECENT].part, s->conf.verify_sample);
	}
	g->unverified_n = 0;
	if (again)
		sup_log("gpu.%u: %u of its unverified results are verified now", g->slot, again);
}

void check_verified(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct frame_verified v;
	struct part_ref r = c->vref;

	if (!c->verifying || c->hdr.gen != r.gen || c->hdr.job != r.id || c->hdr.partition != r.part) {
		child_kill(s, ci, "sent a verdict it was not asked for");
		return;
	}
	c->verifying = 0;
	memcpy(&v, c->buf, sizeof v);
	v.why[sizeof v.why - 1] = '\0';
	struct job *j = &s->jobs[r.job];
	if (j->id != r.id || !jobs_active(j) || j->part[r.part].verify != PV_INFLIGHT)
		return;		/* ended, or computed again meanwhile */
	struct part *pt = &j->part[r.part];
	char why[sizeof v.why];
	util_clean(why, sizeof why, v.why);
	switch (v.verdict) {
	case FRAME_VERDICT_OK:
		pt->verify = PV_OK;
		break;
	case FRAME_VERDICT_WRONG:
		if (pt->stored_by > 0)
			quarantine(s, (uint32_t)pt->stored_by - 1, r.id, r.part, why);
		else	/* kept across a restart: no slot of ours to blame */
			sup_log("job %llu partition %u: a kept proof failed its check (%s); computed again",
				(unsigned long long)r.id, r.part, why);
		recompute(s, r.job, r.part);
		break;
	default:
		sup_log("job %llu partition %u: not verified (%s); computed again",
			(unsigned long long)r.id, r.part, why);
		recompute(s, r.job, r.part);
		break;
	}
	jobs_check_done(s, r.job);
}
