/*
 * fleet_report: how a held fleet job ended, told to the database, which
 * alone decides whether it counts.
 *
 * Done: FLEET_SQL_COMPLETE with the result: always the result file's
 * checksum (BLAKE2b-256 over its header and digest table, which commits
 * to every partition's H or proof) and where the file is, which the
 * supervisor has in hand at the commit (or reads back, 32 bytes, after a
 * restart); and for a kind with params each partition's proof file,
 * read back from the committed file: 376 bytes a partition, at most 24
 * KiB at any k (a proofs+H file's H stays on the node), the one payload
 * a node's supervisor ever holds (architecture.md, invariant 1), because
 * a fleet's result must live where every node and client can fetch it.
 * Reads are io_uring operations (EV_FLEET_IO: open, a read a segment,
 * close), one file at a time, beside the statements.
 *
 * Failed, cancelled, or never taken: FLEET_SQL_RELEASE, the job queued
 * again for any node (a failure counts towards the job's max_failures).
 *
 * Whatever the database answers (completed, completed before by this
 * very lease, refused, released, or not ours any more), the claim is
 * then reported in the claim journal and forgotten. A statement lost
 * with its connection is sent again on the next: completion is
 * idempotent per lease, so a repeat is answered "already", never
 * counted twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/pfile.h"
#include "supervisor/fleet_int.h"
#include "supervisor/sup.h"

enum { FIO_OPEN = 3, FIO_READ = 4, FIO_CLOSE = 5 };

/* The entry being read is done with, one way or the other. */
static void freport_read_end(struct sup *s, int ok, const char *why)
{
	struct fleet *f = s->fleet;
	struct fleet_held *h = &f->held[f->reading];
	uint64_t plen = h->c.file_kind == PFILE_KIND_RESULT ? 0 : (uint64_t)h->c.parts * PFILE_PROOF_REGION;

	if (f->io_fd >= 0) {
		io_uring_prep_close(loop_sqe(&s->loop, loop_ud(EV_FLEET_IO, FIO_CLOSE)), f->io_fd);
		f->io_fd = -1;
	}
	h->state = FH_READY;
	if (ok) {
		if (!h->has_digest)
			memcpy(h->digest, f->io_buf + plen, 32);
		h->has_digest = 1;
		if (plen) {	/* the proofs, kept: the buffer is the entry's now */
			h->proofs = f->io_buf;
			h->proofs_len = plen;
			f->io_buf = NULL;
		}
	} else {
		sup_log("fleet: job %" PRIu64 " (local %" PRIu64 "): its result cannot be read back (%s); given back",
			h->c.fleet, h->c.local, why);
		h->outcome = FO_RELEASE;
		snprintf(h->why, sizeof h->why, "its result on node %s could not be read: %s", f->node, why);
	}
	free(f->io_buf);
	f->io_buf = NULL;
	f->reading = -1;
	fleet_kick(s);
}

/* What of entry h's result file goes to the database: each partition's
 * proof region (one span in a proofs file, one region a partition in a
 * proofs+H file) into io_buf, then the file's checksum after them unless
 * it is known. */
static int freport_plan(struct fleet *f, const struct fleet_held *h)
{
	uint32_t kind = h->c.file_kind, k = h->c.k, P = h->c.parts, n = 0;
	uint64_t plen = kind == PFILE_KIND_RESULT ? 0 : (uint64_t)P * PFILE_PROOF_REGION;

	if (P < 1 || P > VOCAB_MAX_PARTS || k < VOCAB_LOG_MIN || k > VOCAB_LOG_MAX ||
	    (kind != PFILE_KIND_RESULT && kind != PFILE_KIND_PROOFS && kind != PFILE_KIND_PROOFS_H))
		return -1;
	if (kind == PFILE_KIND_PROOFS)	/* its regions follow one another */
		f->io_seg[n++] = (typeof(f->io_seg[0])){ pfile_res_part_off(kind, k, 0), (uint32_t)plen, 0 };
	for (uint32_t p = 0; kind == PFILE_KIND_PROOFS_H && p < P; p++)
		f->io_seg[n++] = (typeof(f->io_seg[0])){ pfile_res_part_off(kind, k, p), PFILE_PROOF_REGION,
							 p * PFILE_PROOF_REGION };
	if (!h->has_digest)
		f->io_seg[n++] = (typeof(f->io_seg[0])){ pfile_res_size(kind, k, P) - 32, 32, (uint32_t)plen };
	f->io_nseg = n;
	f->io_cur = f->io_have = 0;
	f->io_len = plen + 32;
	return 0;
}

void freport_read_next(struct sup *s)
{
	struct fleet *f = s->fleet;
	uint32_t i;

	if (f->reading >= 0)
		return;
	for (i = 0; i < FLEET_MAX_HELD && f->held[i].state != FH_ENDED; i++)
		;
	if (i == FLEET_MAX_HELD)
		return;
	struct fleet_held *h = &f->held[i];
	f->reading = (int)i;
	h->state = FH_READING;
	if (freport_plan(f, h) < 0) {
		freport_read_end(s, 0, "its claim journal's record makes no sense");
		return;
	}
	if (!(f->io_buf = malloc(f->io_len))) {
		freport_read_end(s, 0, "out of memory");
		return;
	}
	snprintf(f->io_name, sizeof f->io_name, "job-%" PRIu64 ".result", h->c.local);
	io_uring_prep_openat(loop_sqe(&s->loop, loop_ud(EV_FLEET_IO, FIO_OPEN)), s->results_fd, f->io_name,
			     O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
}

/* The next read of the current segment (what is left of it). */
static void freport_read_more(struct sup *s)
{
	struct fleet *f = s->fleet;
	const typeof(f->io_seg[0]) *g = &f->io_seg[f->io_cur];

	io_uring_prep_read(loop_sqe(&s->loop, loop_ud(EV_FLEET_IO, FIO_READ)), f->io_fd, f->io_buf + g->at + f->io_have,
			   g->len - f->io_have, g->off + f->io_have);
}

void freport_on_io(struct sup *s, uint32_t who, int res)
{
	struct fleet *f = s->fleet;
	char why[120];

	if (who == FIO_CLOSE || f->reading < 0)
		return;
	if (res < 0) {
		snprintf(why, sizeof why, "%s %s: %s", who == FIO_OPEN ? "open" : "read", f->io_name, strerror(-res));
		freport_read_end(s, 0, why);
		return;
	}
	if (who == FIO_OPEN) {
		f->io_fd = res;
		if (f->io_nseg)
			freport_read_more(s);
		else
			freport_read_end(s, 1, NULL);
		return;
	}
	loop_got(f->io_buf + f->io_seg[f->io_cur].at + f->io_have, res);
	if (res == 0) {
		freport_read_end(s, 0, "shorter than its header says");
		return;
	}
	f->io_have += (uint32_t)res;
	if (f->io_have == f->io_seg[f->io_cur].len) {
		f->io_cur++;
		f->io_have = 0;
	}
	if (f->io_cur < f->io_nseg)
		freport_read_more(s);
	else
		freport_read_end(s, 1, NULL);
}

/* COMPLETE's parameters for h, into p (the malloc'd ones in *a, *b):
 * the proofs, if any, and always the result file's checksum and where
 * the file is (for H output, where the H is). */
static void freport_complete_params(struct sup *s, struct fleet_held *h, const char **p, char **a, char **b,
				    char *ids, char *epoch, char *loc, size_t loclen)
{
	struct fleet *f = s->fleet;
	char path[300];

	sched_result_path(s, h->c.local, path, sizeof path);
	snprintf(loc, loclen, "%s:%s", f->node, path);
	p[0] = ids;
	p[1] = epoch;
	p[2] = f->node;
	p[3] = h->proofs ? "proofs" : "h";
	p[4] = h->proofs ? (*a = fleet_bytea_param(h->proofs, h->proofs_len)) : NULL;
	p[5] = *b = fleet_bytea_param(h->digest, 32);
	p[6] = loc;
}

int freport_send(struct sup *s)
{
	struct fleet *f = s->fleet;
	char ids[24], epoch[16], loc[400], *a = NULL, *b = NULL;
	const char *p[FLEET_COMPLETE_NPARAMS];
	uint32_t i;
	int rc;

	for (i = 0; i < FLEET_MAX_HELD && f->held[i].state != FH_READY; i++)
		;
	if (i == FLEET_MAX_HELD)
		return 0;
	struct fleet_held *h = &f->held[i];
	snprintf(ids, sizeof ids, "%" PRIu64, h->c.fleet);
	snprintf(epoch, sizeof epoch, "%" PRIu32, h->c.epoch);
	if (h->outcome == FO_DONE) {
		freport_complete_params(s, h, p, &a, &b, ids, epoch, loc, sizeof loc);
		if (!p[5] || (h->proofs && !p[4])) {	/* out of memory: tried again at the next tick */
			free(a);
			free(b);
			return 0;
		}
		rc = fconn_send(s, FQ_COMPLETE, FLEET_SQL_COMPLETE, FLEET_COMPLETE_NPARAMS, p);
		f->n_complete += rc == 0;
	} else {
		const char *r[FLEET_RELEASE_NPARAMS] = { ids, epoch, f->node, h->outcome == FO_FAILED ? "t" : "f",
							 h->why };
		rc = fconn_send(s, FQ_RELEASE, FLEET_SQL_RELEASE, FLEET_RELEASE_NPARAMS, r);
		f->n_release += rc == 0;
	}
	free(a);
	free(b);
	if (rc == 0) {
		h->state = FH_SENT;
		f->sending = (int)i;
	}
	return 1;
}

/* The database answered: the claim is settled, whatever it said. */
static void freport_settled(struct sup *s, struct fleet_held *h)
{
	struct fleet *f = s->fleet;
	char err[200];

	if (h->c.local && fjournal_reported(f->fj, h->c.local, err, sizeof err) < 0)
		sup_log("fleet: %s", err);
	fleet_held_free(h);
	f->sending = -1;
}

void freport_on_result(struct sup *s, enum fleet_q q, PGresult *r)
{
	struct fleet *f = s->fleet;
	struct fleet_held *h;

	if (f->sending < 0)
		return;
	h = &f->held[f->sending];
	if (q == FQ_RELEASE) {
		if (PQntuples(r) == 1)
			sup_log("fleet: job %" PRIu64 " (epoch %u) given back: %s (%s)", h->c.fleet, h->c.epoch,
				PQgetvalue(r, 0, 0), h->why);
		freport_settled(s, h);
		return;
	}
	int done = PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 0)) == 1;
	int already = PQntuples(r) == 1 && atoi(PQgetvalue(r, 0, 1)) > 0;
	if (done) {
		f->n_completed++;
	} else if (already) {
		f->n_repeat++;	/* our first completion's answer was lost with a connection */
	} else {
		f->n_refused++;
		sup_log("fleet: job %" PRIu64 " (epoch %u) done here (local job %" PRIu64 ") but refused by the "
			"database: the lease was lost, another node has or had it", h->c.fleet, h->c.epoch, h->c.local);
	}
	freport_settled(s, h);
}

void freport_on_lost(struct sup *s)
{
	struct fleet *f = s->fleet;

	if (f->sending >= 0 && f->held[f->sending].state == FH_SENT)
		f->held[f->sending].state = FH_READY;
	f->sending = -1;
}
