/*
 * journal/record.c: the record codec and replay, with no I/O, so every
 * judgement about a file's bytes lives in one place (docs/journal.md).
 *
 * Design: a record is believed only once it has framed itself (magic,
 * a sane length, the whole payload present, XXH32 check). A record that
 * does not frame is a torn tail only when no framed record starts
 * anywhere after it; otherwise the middle of the file was damaged and
 * replaying would mean guessing. A framed record that breaks a rule was
 * written that way, so it is refused, never skipped.
 */
#include "journal/record.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#define JR_MAGIC	"PVJR"
#define JR_VERSION	2	/* what is written; 1 is read too (its SUBMIT has no uid) */
#define JR_HDR		JOURNAL_REC_HDR
#define JR_MAX_PAYLOAD	256	/* far above any type; a longer length is garbage */
#define JR_SUBMIT_LEN	72
#define JR_SUBMIT1_LEN	68	/* version 1's SUBMIT */
#define JR_END_LEN	12
#define JR_HW_LEN	8
#define JR_RETRY_LEN	8
#define JR_SEED_MAX	32


enum { JR_SUBMIT = 1, JR_END = 2, JR_HIGHWATER = 3, JR_RETRY = 4 };

_Static_assert(JOURNAL_REC_SUBMIT == JR_HDR + JR_SUBMIT_LEN, "SUBMIT size");
_Static_assert(JOURNAL_REC_END == JR_HDR + JR_END_LEN, "END size");
_Static_assert(JOURNAL_REC_RETRY == JR_HDR + JR_RETRY_LEN, "RETRY size");

/* A record whose framing and check held; payload points into the file. */
struct jr_rec {
	uint16_t version, type;
	uint32_t len;
	const uint8_t *payload;
};

/* XXH32 (seed 0) over the header's first 12 bytes and the payload. The
 * copy keeps it one call; len is at most JR_MAX_PAYLOAD. */
static uint32_t jr_check(const uint8_t *hdr, const uint8_t *payload, uint32_t len)
{
	uint8_t buf[12 + JR_MAX_PAYLOAD];

	memcpy(buf, hdr, 12);
	memcpy(buf + 12, payload, len);
	return (uint32_t)XXH32(buf, 12 + (size_t)len, 0);
}

/* Frame a payload already at out + JR_HDR; returns the record's size. */
static size_t jr_frame(uint8_t *out, uint16_t type, uint32_t len)
{
	memcpy(out, JR_MAGIC, 4);
	util_le16_put(out + 4, JR_VERSION);
	util_le16_put(out + 6, type);
	util_le32_put(out + 8, len);
	util_le32_put(out + 12, jr_check(out, out + JR_HDR, len));
	return JR_HDR + len;
}

size_t journal_rec_submit(uint8_t *out, const struct journal_job *job)
{
	uint8_t *p = out + JR_HDR;
	uint32_t sl = job->seed_len <= JR_SEED_MAX ? job->seed_len : JR_SEED_MAX;

	util_le64_put(p, job->id);
	util_le32_put(p + 8, job->kind);
	util_le32_put(p + 12, job->priority);
	util_le32_put(p + 16, job->log_size);
	util_le32_put(p + 20, job->nparts);
	util_le32_put(p + 24, job->seed_len);
	memset(p + 28, 0, JR_SEED_MAX);
	memcpy(p + 28, job->seed, sl);
	util_le64_put(p + 60, job->submit_wall_ns);
	util_le32_put(p + 68, job->uid);
	return jr_frame(out, JR_SUBMIT, JR_SUBMIT_LEN);
}

size_t journal_rec_end(uint8_t *out, uint64_t id, uint32_t state)
{
	util_le64_put(out + JR_HDR, id);
	util_le32_put(out + JR_HDR + 8, state);
	return jr_frame(out, JR_END, JR_END_LEN);
}

size_t journal_rec_retry(uint8_t *out, uint64_t id)
{
	util_le64_put(out + JR_HDR, id);
	return jr_frame(out, JR_RETRY, JR_RETRY_LEN);
}

static void jr_dec_submit(const uint8_t *p, uint16_t version, struct journal_job *job)
{
	memset(job, 0, sizeof(*job));
	job->id = util_le64_get(p);
	job->kind = util_le32_get(p + 8);
	job->priority = util_le32_get(p + 12);
	job->log_size = util_le32_get(p + 16);
	job->nparts = util_le32_get(p + 20);
	job->seed_len = util_le32_get(p + 24);
	memcpy(job->seed, p + 28, JR_SEED_MAX);
	job->submit_wall_ns = util_le64_get(p + 60);
	job->uid = version >= 2 ? util_le32_get(p + 68) : JOURNAL_UID_UNKNOWN;
}

const char *journal_job_invalid(const struct journal_job *job)
{
	if (job->id == 0 || job->id == UINT64_MAX)
		return "id is 0 or the maximum";
	if (job->seed_len < 1 || job->seed_len > JR_SEED_MAX)
		return "seed_len is outside 1..32";
	if (job->nparts < 1 || job->nparts > VOCAB_MAX_PARTS)
		return "nparts is outside 1..64";
	return NULL;
}

/* Does a whole, self-consistent record start at p (avail bytes left in
 * the file)? Checks only framing and the check value, not meaning: true
 * fills r; false sets why. Version is not judged here, so that a record
 * from a newer provisor counts as valid data, not as a torn tail. */
static bool jr_frame_ok(const uint8_t *p, size_t avail, struct jr_rec *r, const char **why)
{
	uint32_t len;

	if (avail < JR_HDR)
		return *why = "header cut short", false;
	if (memcmp(p, JR_MAGIC, 4) != 0)
		return *why = "bad magic", false;
	len = util_le32_get(p + 8);
	if (len > JR_MAX_PAYLOAD)
		return *why = "absurd payload length", false;
	if (avail - JR_HDR < len)
		return *why = "payload cut short", false;
	if (util_le32_get(p + 12) != jr_check(p, p + JR_HDR, len))
		return *why = "check mismatch", false;
	r->version = util_le16_get(p + 4);
	r->type = util_le16_get(p + 6);
	r->len = len;
	r->payload = p + JR_HDR;
	return true;
}

/* The offset of the first valid record starting after `from`, or -1. */
static long jr_find_valid(const uint8_t *buf, size_t size, size_t from)
{
	struct jr_rec r;
	const char *why;

	while (from + JR_HDR <= size) {
		const uint8_t *m = memmem(buf + from, size - from, JR_MAGIC, 4);

		if (!m)
			return -1;
		if (jr_frame_ok(m, size - (size_t)(m - buf), &r, &why))
			return m - buf;
		from = (size_t)(m - buf) + 1;
	}
	return -1;
}

/* Index of id in rp->jobs, or -1. */
static long jr_lookup(const struct journal_replay *rp, uint64_t id)
{
	size_t mask = rp->nslot - 1;

	if (!rp->nslot)
		return -1;
	for (size_t h = (size_t)(id * 0x9e3779b97f4a7c15ULL) & mask;; h = (h + 1) & mask) {
		size_t s = rp->slot[h];

		if (!s)
			return -1;
		if (rp->jobs[s - 1].job.id == id)
			return (long)(s - 1);
	}
}

/* Rebuild the index with twice the slots (the table never holds more
 * than half full, so probes stay short). */
static int jr_rehash(struct journal_replay *rp)
{
	size_t nslot = rp->nslot ? rp->nslot * 2 : 64;
	size_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < rp->n; i++) {
		size_t h = (size_t)(rp->jobs[i].job.id * 0x9e3779b97f4a7c15ULL) & (nslot - 1);

		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = i + 1;
	}
	free(rp->slot);
	rp->slot = slot;
	rp->nslot = nslot;
	return 0;
}

static int jr_add(struct journal_replay *rp, const struct journal_job *job)
{
	if (rp->n == rp->cap) {
		size_t cap = rp->cap ? rp->cap * 2 : 64;
		struct journal_live *jobs = realloc(rp->jobs, cap * sizeof(*jobs));

		if (!jobs)
			return -ENOMEM;
		rp->jobs = jobs;
		rp->cap = cap;
	}
	rp->jobs[rp->n].job = *job;
	rp->jobs[rp->n].ended = false;
	rp->n++;
	if (2 * rp->n >= rp->nslot)
		return jr_rehash(rp);	/* also indexes the new job */
	size_t h = (size_t)(job->id * 0x9e3779b97f4a7c15ULL) & (rp->nslot - 1);
	while (rp->slot[h])
		h = (h + 1) & (rp->nslot - 1);
	rp->slot[h] = rp->n;
	return 0;
}

void journal_replay_free(struct journal_replay *rp)
{
	free(rp->jobs);
	free(rp->slot);
}

/* Apply one framed record found at offset off. Its framing is sound, so
 * anything wrong here was written that way: refuse, never skip. */
static int jr_apply(struct journal_replay *rp, const struct jr_rec *r, size_t off,
		    char *err, size_t errlen)
{
	static const uint32_t want[] = { [JR_SUBMIT] = JR_SUBMIT_LEN, [JR_END] = JR_END_LEN,
					 [JR_HIGHWATER] = JR_HW_LEN, [JR_RETRY] = JR_RETRY_LEN };
	struct journal_job job;
	const char *bad;
	long i;

	if (r->version < 1 || r->version > JR_VERSION)
		return util_fail(err, errlen, -ENOTSUP, "record at offset %zu has version %u; this "
			      "provisor reads versions 1 and %d (written by a newer provisor?)",
			      off, r->version, JR_VERSION);
	if (r->type < JR_SUBMIT || r->type > JR_RETRY ||
	    r->len != (r->type == JR_SUBMIT && r->version == 1 ? JR_SUBMIT1_LEN : want[r->type]))
		return util_fail(err, errlen, -EBADMSG, "corrupt record at offset %zu: type %u "
			      "with payload length %u", off, r->type, r->len);
	switch (r->type) {
	case JR_SUBMIT:
		jr_dec_submit(r->payload, r->version, &job);
		if (!(bad = journal_job_invalid(&job)))
			for (uint32_t b = job.seed_len; b < JR_SEED_MAX && !bad; b++)
				if (job.seed[b])
					bad = "seed bytes past seed_len are not zero";
		if (bad)
			return util_fail(err, errlen, -EBADMSG, "corrupt SUBMIT at offset %zu: %s",
				      off, bad);
		if (jr_lookup(rp, job.id) >= 0)
			return util_fail(err, errlen, -EBADMSG, "corrupt journal: second SUBMIT of "
				      "job %llu at offset %zu", (unsigned long long)job.id, off);
		if (job.id > rp->highest)
			rp->highest = job.id;
		return jr_add(rp, &job) ? util_fail(err, errlen, -ENOMEM, "out of memory") : 0;
	case JR_END:
		/* An END for an id we do not hold was compacted away: ignore. */
		if ((i = jr_lookup(rp, util_le64_get(r->payload))) >= 0)
			rp->jobs[i].ended = true;
		return 0;
	case JR_RETRY:
		/* An ended job started again (provisor retry): unfinished. */
		if ((i = jr_lookup(rp, util_le64_get(r->payload))) >= 0)
			rp->jobs[i].ended = false;
		return 0;
	default:
		if (util_le64_get(r->payload) == UINT64_MAX)
			return util_fail(err, errlen, -EBADMSG, "corrupt HIGHWATER at offset %zu", off);
		if (util_le64_get(r->payload) > rp->highest)
			rp->highest = util_le64_get(r->payload);
		return 0;
	}
}

int journal_replay(struct journal_replay *rp, const uint8_t *buf, size_t size, size_t *good,
		     char *warn, size_t warnlen, char *err, size_t errlen)
{
	size_t off = 0;
	struct jr_rec r;
	const char *why;
	long next;
	int rc;

	while (off < size) {
		if (!jr_frame_ok(buf + off, size - off, &r, &why)) {
			next = jr_find_valid(buf, size, off + 1);
			if (next >= 0)
				return util_fail(err, errlen, -EBADMSG, "corrupt journal: bad record at "
					      "offset %zu (%s) but a valid record follows at offset "
					      "%ld; refusing to replay, file left unchanged for "
					      "inspection", off, why, next);
			util_fail(warn, warnlen, 0, "journal: dropped a torn tail of %zu bytes at "
			       "offset %zu (%s)", size - off, off, why);
			break;
		}
		if ((rc = jr_apply(rp, &r, off, err, errlen)))
			return rc;
		off += JR_HDR + r.len;
	}
	*good = off;
	return 0;
}

uint8_t *journal_rec_compact(const struct journal_replay *rp, size_t *len)
{
	size_t live = 0;
	uint8_t *buf, *p;

	for (size_t i = 0; i < rp->n; i++)
		live += !rp->jobs[i].ended;
	*len = JR_HDR + JR_HW_LEN + live * (JR_HDR + JR_SUBMIT_LEN);
	if (!(p = buf = malloc(*len)))
		return NULL;
	util_le64_put(p + JR_HDR, rp->highest);
	p += jr_frame(p, JR_HIGHWATER, JR_HW_LEN);
	for (size_t i = 0; i < rp->n; i++)
		if (!rp->jobs[i].ended)
			p += journal_rec_submit(p, &rp->jobs[i].job);
	return buf;
}
