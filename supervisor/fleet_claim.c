/*
 * fleet_claim: the node's beat and its claims (fleet.c says when each is
 * sent).
 *
 * A beat is the node's row (registration and heartbeat in one statement:
 * slots, what it runs, what it holds) with the ids and epochs of every
 * job it holds: the database renews those leases that are still its own,
 * and puts back in the queue the jobs it says the node owns that the node
 * does not hold. A lease sent and not renewed is lost.
 *
 * A claim asks for as many jobs as the node has room for, of the kinds
 * and sizes it can run; each becomes a local job through sched_submit,
 * exactly as a job submitted on the control socket (journaled), and its
 * claim is recorded in the claim journal. Both journals are synced by
 * the loop (EV_FLEET_IO); the database holds the lease meanwhile, so
 * nothing waits for them: a node that dies before they are on disk loses
 * only a lease, which expires and is taken by another node.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/pfile.h"
#include "journal/journal.h"
#include "supervisor/fleet_int.h"
#include "supervisor/sup.h"

#define FLEET_CLAIM_BACKOFF_MS 5000	/* a claim the node could not take: claims rest this long */

/* Slots and work, for the node's row. */
static void fleet_slots(const struct sup *s, int *gbusy, int *sbusy)
{
	*gbusy = *sbusy = 0;
	for (uint32_t i = 0; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		int busy = c->nhold > 0 || c->verifying;
		if (c->kind == CHILD_GPU)
			*gbusy += busy;
		else
			*sbusy += busy;
	}
}

/* What the node can run, as its row shows it (text) and as a claim asks
 * for it (array literals): each kind with its range of k (a kind with
 * params proves at its one k) and its output, and the GPU slots it may
 * use. */
struct fleet_caps {
	char text[400], names[80], kmin[40], kmax[40], outs[40];
};

/* Append to an array literal being built in a (n bytes used so far). */
static size_t fleet_elem(char *a, size_t len, size_t n, uint32_t k, const char *v)
{
	return n + (size_t)snprintf(a + n, n < len ? len - n : 0, "%s%s%s", k > 1 ? "," : "{", v,
				    k == VOCAB_NKINDS ? "}" : "");
}

static void fleet_kinds(const struct sup *s, struct fleet_caps *c)
{
	size_t t = 0, a = 0, b = 0, d = 0, e = 0;
	char num[12];

	c->text[0] = '\0';
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		const struct conf_kind *ck = &s->conf.kind[k];
		uint32_t lo = s->kind_params[k] ? ck->log_size : VOCAB_LOG_MIN;
		uint32_t hi = s->kind_params[k] ? ck->log_size : s->conf.max_log_size, slots = 0;
		int any = !ck->slot_mask[0] && !ck->slot_mask[1] && !ck->slot_mask[2] && !ck->slot_mask[3];
		for (uint32_t g = 0; g < s->ngpu; g++)
			slots += any ? 1 : (uint32_t)(ck->slot_mask[g / 64] >> (g % 64) & 1);
		t += (size_t)snprintf(c->text + t, t < sizeof c->text ? sizeof c->text - t : 0,
				      "%s%s k=%u..%u gpu=%u %s", k > 1 ? ", " : "", vocab_kind_name(k), lo, hi, slots,
				      s->kind_params[k] ? "proofs" : "h");
		a = fleet_elem(c->names, sizeof c->names, a, k, vocab_kind_name(k));
		snprintf(num, sizeof num, "%u", lo);
		b = fleet_elem(c->kmin, sizeof c->kmin, b, k, num);
		snprintf(num, sizeof num, "%u", hi);
		d = fleet_elem(c->kmax, sizeof c->kmax, d, k, num);
		e = fleet_elem(c->outs, sizeof c->outs, e, k, s->kind_params[k] ? "proofs" : "h");
	}
}

static void fleet_params_text(const struct sup *s, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++)
		if (s->kind_params[k])
			n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s=%s", n ? " " : "",
					      vocab_kind_name(k), s->params[s->kind_params[k] - 1].name);
}

/* The held jobs' ids and epochs as two array literals (malloc'd). */
static int fleet_held_arrays(struct fleet *f, char **ids, char **epochs)
{
	size_t cap = 2 + FLEET_MAX_HELD * 22, a = 0, b = 0;

	*ids = malloc(cap);
	*epochs = malloc(cap);
	if (!*ids || !*epochs)
		return -1;
	a = (size_t)sprintf(*ids, "{");
	b = (size_t)sprintf(*epochs, "{");
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++) {
		struct fleet_held *h = &f->held[i];
		if (h->state == FH_FREE)
			continue;
		h->in_beat = 1;
		a += (size_t)sprintf(*ids + a, "%s%" PRIu64, a > 1 ? "," : "", h->c.fleet);
		b += (size_t)sprintf(*epochs + b, "%s%" PRIu32, b > 1 ? "," : "", h->c.epoch);
	}
	strcpy(*ids + a, "}");
	strcpy(*epochs + b, "}");
	return 0;
}

void fleet_send_beat(struct sup *s)
{
	struct fleet *f = s->fleet;
	char v[19][48], params[300], *ids = NULL, *epochs = NULL;
	struct fleet_caps caps;
	int gbusy, sbusy, local = 0;

	for (uint32_t i = 0; i < s->njobs; i++)
		local += jobs_active(&s->jobs[i]);
	fleet_slots(s, &gbusy, &sbusy);
	fleet_kinds(s, &caps);
	fleet_params_text(s, params, sizeof params);
	if (fleet_held_arrays(f, &ids, &epochs) < 0) {
		free(ids);
		free(epochs);
		return;
	}
	snprintf(v[0], sizeof v[0], "%d", (int)getpid());
	snprintf(v[1], sizeof v[1], "%.3f", f->started_s);
	snprintf(v[2], sizeof v[2], "%" PRIu64, f->hb_ms);
	snprintf(v[3], sizeof v[3], "%" PRIu64, f->lease_ms);
	snprintf(v[4], sizeof v[4], "%u", s->ngpu);
	snprintf(v[5], sizeof v[5], "%d", gbusy);
	snprintf(v[6], sizeof v[6], "%u", s->nsynth);
	snprintf(v[7], sizeof v[7], "%d", sbusy);
	snprintf(v[8], sizeof v[8], "%u", f->max_jobs);
	snprintf(v[9], sizeof v[9], "%u", fleet_running(f));
	snprintf(v[10], sizeof v[10], "%d", local);
	snprintf(v[11], sizeof v[11], "%" PRIu64, s->loop.st.hist.max_ns / 1000);
	const char *p[FLEET_BEAT_NPARAMS] = {
		f->node, f->host, s->conf.state_dir, f->boot_id, v[0], v[1], v[2], v[3],
		s->backend == VOCAB_BACKEND_PLUGIN ? "plugin" : vocab_backend_name((uint32_t)s->backend),
		v[4], v[5], v[6], v[7], caps.text, params, v[8], v[9], v[10], v[11], ids, epochs,
		f->stopping ? "t" : "f",
	};
	if (fconn_send(s, FQ_BEAT, FLEET_SQL_BEAT, FLEET_BEAT_NPARAMS, p) == 0) {
		f->n_beat++;
		f->next_beat_ns = shm_now_mono() + f->hb_ms * 1000000u;
	}
	free(ids);
	free(epochs);
}

void fleet_send_claim(struct sup *s, uint32_t room)
{
	struct fleet *f = s->fleet;
	char lim[16], lease[24];
	struct fleet_caps caps;
	int expired = f->up_ns && shm_now_mono() - f->up_ns >= f->lease_ms * 1000000u;

	fleet_kinds(s, &caps);
	snprintf(lim, sizeof lim, "%u", room);
	snprintf(lease, sizeof lease, "%" PRIu64, f->lease_ms);
	const char *p[FLEET_CLAIM_NPARAMS] = { f->node, caps.names, caps.kmin, caps.kmax, lim, expired ? "t" : "f",
					       lease, caps.outs };
	if (fconn_send(s, FQ_CLAIM, FLEET_SQL_CLAIM, FLEET_CLAIM_NPARAMS, p) == 0) {
		f->n_claim++;
		f->claim_room = room;
	}
}

/* The beat's answer: registered or not, leases renewed, jobs put back. */
void fleet_on_beat(struct sup *s, PGresult *r)
{
	struct fleet *f = s->fleet;
	int registered = 0;

	for (int i = 0; i < PQntuples(r); i++) {
		int what = atoi(PQgetvalue(r, i, 0));
		uint64_t id = what ? strtoull(PQgetvalue(r, i, 1), NULL, 10) : 0;
		uint32_t epoch = what ? (uint32_t)atoi(PQgetvalue(r, i, 2)) : 0;
		struct fleet_held *h = what == 1 ? fleet_find(f, id, epoch) : NULL;
		if (what == 0)
			registered = 1;
		else if (h)
			h->in_beat = 0;	/* renewed */
		else if (what == 2) {
			f->n_put_back++;
			sup_log("fleet: job %" PRIu64 " (epoch %u) was this node's in the database but not held "
				"here (a claim whose answer was lost): put back in the queue", id, epoch);
		}
	}
	if (!registered) {
		if (!f->refused_logged)
			sup_log("fleet: node name %s is held by another live node (another host or state "
				"directory): not claiming; asking again every heartbeat", f->node);
		f->refused_logged = 1;
		f->registered = 0;
		for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
			f->held[i].in_beat = 0;
		return;
	}
	if (!f->registered && f->refused_logged)
		sup_log("fleet: node %s registered", f->node);
	f->registered = 1;
	f->beat_wall_ns = shm_now_wall();
	f->beat_mono_ns = shm_now_mono();
	f->refused_logged = 0;
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++) {	/* sent, and not renewed: lost */
		struct fleet_held *h = &f->held[i];
		if (!h->in_beat)
			continue;
		h->in_beat = 0;
		if (h->lost)
			continue;
		h->lost = 1;
		f->n_lost++;
		if (h->state != FH_RUNNING) {
			sup_log("fleet: job %" PRIu64 " (epoch %u): lease lost; its end is still reported (the "
				"database will refuse it)", h->c.fleet, h->c.epoch);
			continue;
		}
		uint64_t local = h->c.local;
		char err[200];
		sup_log("fleet: job %" PRIu64 " (epoch %u): lease lost (another node has it): its local job "
			"%" PRIu64 " is cancelled", h->c.fleet, h->c.epoch, local);
		fjournal_reported(f->fj, local, err, sizeof err);
		fleet_held_free(h);
		if (local)
			sched_cancel(s, local, err, sizeof err);
	}
}

/* A job claimed becomes a local job, as a socket submit does; one that
 * cannot is given back. */
static void fleet_take(struct sup *s, uint64_t id, uint32_t epoch, const char *kind_name, uint32_t k,
		       uint32_t parts, const char *seed_hex)
{
	struct fleet *f = s->fleet;
	struct fleet_held *h = fleet_held_new(f);
	uint8_t seed[32];
	size_t seed_len = 0;
	uint32_t kind = 0;
	uint64_t local = 0;
	char err[200];
	int e;

	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++) {
		struct fleet_held *o = &f->held[i];
		if (o->state == FH_FREE || o->c.fleet != id || o->c.epoch == epoch)
			continue;
		/* Held here under an older lease that expired (its renewal was
		 * lost): the same work under the new epoch, not a second run. */
		if (h)
			h->state = FH_FREE;
		o->c.epoch = epoch;
		o->lost = 0;
		if (o->c.local && fjournal_claim(f->fj, &o->c, err, sizeof err) < 0)
			sup_log("fleet: %s", err);
		f->n_claimed++;
		return;
	}
	if (!h) {	/* cannot happen: claims stop at max_jobs, below the table's size */
		sup_log("fleet: job %" PRIu64 ": no room to track it; its lease will expire", id);
		return;
	}
	h->c = (struct fjournal_claim){ .fleet = id, .epoch = epoch, .k = k, .parts = parts };
	f->n_claimed++;
	if (vocab_kind_parse(kind_name, &kind) < 0 || fleet_unhex(seed_hex, seed, sizeof seed, &seed_len) < 0 ||
	    !seed_len) {
		snprintf(err, sizeof err, "kind '%.20s' or seed not understood", kind_name);
		e = -EINVAL;
	} else {
		e = sched_submit(s, getuid(), kind, seed, (uint32_t)seed_len, k, parts, &local, err, sizeof err);
	}
	if (e < 0) {
		sup_log("fleet: job %" PRIu64 " claimed but not taken: %s; given back", id, err);
		h->state = FH_READY;
		h->outcome = e == -EINVAL ? FO_FAILED : FO_RELEASE;
		snprintf(h->why, sizeof h->why, "node %.63s could not take it: %.60s", f->node, err);
		f->next_claim_ns = shm_now_mono() + FLEET_CLAIM_BACKOFF_MS * 1000000ull;
		return;
	}
	int ji = fleet_job_index(s, local);
	h->c.local = local;
	h->c.file_kind = ji >= 0 ? s->jobs[ji].file_kind : PFILE_KIND_RESULT;
	h->state = FH_RUNNING;
	if (fjournal_claim(f->fj, &h->c, err, sizeof err) < 0)
		sup_log("fleet: %s", err);
	/* Both journals to disk through the loop; the database holds the
	 * lease meanwhile, so nothing waits for them. */
	io_uring_prep_fsync(loop_sqe(&s->loop, loop_ud(EV_FLEET_IO, (uint32_t)(h - f->held) << 8 | 1)),
			    journal_fd(s->journal), IORING_FSYNC_DATASYNC);
	io_uring_prep_fsync(loop_sqe(&s->loop, loop_ud(EV_FLEET_IO, 2)), fjournal_fd(f->fj), IORING_FSYNC_DATASYNC);
}

void fleet_on_claim(struct sup *s, PGresult *r)
{
	struct fleet *f = s->fleet;
	int n = PQntuples(r);

	lathist_add(&f->claim_lat, shm_now_mono() - f->sent_ns);
	for (int i = 0; i < n; i++)
		fleet_take(s, strtoull(PQgetvalue(r, i, 0), NULL, 10), (uint32_t)atoi(PQgetvalue(r, i, 1)),
			   PQgetvalue(r, i, 2), (uint32_t)atoi(PQgetvalue(r, i, 3)), (uint32_t)atoi(PQgetvalue(r, i, 4)),
			   PQgetvalue(r, i, 5));
	/* Fewer than asked for: the queue has no more for now (or another
	 * node holds the rest locked); asked again after claim_interval. As
	 * many: there may be more, asked at once while there is room. */
	if ((uint32_t)n < f->claim_room && f->next_claim_ns <= shm_now_mono())
		f->next_claim_ns = shm_now_mono() + f->claim_ms * 1000000u;
}
