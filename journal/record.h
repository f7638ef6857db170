/*
 * journal/record.h: inside the journal module only. The record codec and
 * replay (record.c, pure: no I/O) shared with the file handling in
 * journal.c. The byte layout is docs/journal.md.
 */
#ifndef JOURNAL_RECORD_H
#define JOURNAL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal/journal.h"

#define JOURNAL_REC_HDR		16
#define JOURNAL_REC_SUBMIT	(JOURNAL_REC_HDR + 72)	/* whole record sizes (as written) */
#define JOURNAL_REC_END		(JOURNAL_REC_HDR + 12)
#define JOURNAL_REC_RETRY	(JOURNAL_REC_HDR + 8)

/* One SUBMIT seen during replay, with whether an END followed it. */
struct journal_live {
	struct journal_job job;
	bool ended;
};

/* Replay state: jobs in file order, and an open-addressed id index. */
struct journal_replay {
	struct journal_live *jobs;
	size_t n, cap;
	size_t *slot;		/* index + 1 into jobs; 0 is empty */
	size_t nslot;		/* power of two, kept above 2 * n */
	uint64_t highest;	/* highest id of any SUBMIT or HIGHWATER */
};

/* NULL when a job meets the limits a SUBMIT must meet (on the way in and
 * on the way back), else what is wrong. */
const char *journal_job_invalid(const struct journal_job *job);

/* Encode one record into out (JOURNAL_REC_SUBMIT or _END bytes); returns
 * its size. Seed bytes past seed_len are written as zeros. */
size_t journal_rec_submit(uint8_t *out, const struct journal_job *job);
size_t journal_rec_end(uint8_t *out, uint64_t id, uint32_t state);
size_t journal_rec_retry(uint8_t *out, uint64_t id);

/* The compacted file for rp (HIGHWATER, then the unfinished SUBMITs in
 * order) in a malloc'd buffer of *len bytes; NULL when out of memory. */
uint8_t *journal_rec_compact(const struct journal_replay *rp, size_t *len);

/* Replay the file's bytes into rp (zeroed by the caller; free it with
 * journal_replay_free whatever this returns). On 0, *good is where the
 * last whole record ends: size, or the start of a torn tail that warn
 * describes. Otherwise -EBADMSG or -ENOTSUP with the reason in err. */
int journal_replay(struct journal_replay *rp, const uint8_t *buf, size_t size, size_t *good,
		   char *warn, size_t warnlen, char *err, size_t errlen);
void journal_replay_free(struct journal_replay *rp);

#endif
