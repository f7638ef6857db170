/*
 * journal: the supervisor's promise that an acknowledged job is never
 * lost. Every accepted job is appended and fsynced before `submit` gets
 * its id; its end is appended when it finishes. A restarted supervisor on
 * the same state directory replays the journal and resumes every job that
 * has no end record.
 *
 * The file is a sequence of self-checking records (docs/journal.md). A
 * torn or corrupt last record (a crash mid-append) is detected, reported,
 * cut off and ignored, never trusted. Opening also compacts: the file is
 * rewritten (temp, fsync, rename, fsync dir) with only the unfinished
 * jobs and the highest id ever used, so it does not grow without bound
 * and ids are never reused.
 */
#ifndef JOURNAL_JOURNAL_H
#define JOURNAL_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "util/vocab.h"

struct journal_job {
	uint64_t id;
	uint32_t kind;		/* enum vocab_kind */
	uint32_t priority;
	uint32_t log_size;
	uint32_t nparts;
	uint32_t seed_len;	/* 1..32 */
	uint8_t seed[32];
	uint64_t submit_wall_ns;
	uint32_t uid;		/* who submitted it (JOURNAL_UID_UNKNOWN: a version 1 record) */
};

/* A job from a version 1 record, which did not say who submitted it. */
#define JOURNAL_UID_UNKNOWN UINT32_MAX

struct journal;

/* Called once per unfinished job, in the order they were submitted,
 * from inside journal_open after the journal has been compacted, and only
 * when journal_open then returns 0. The jobs are already in the journal:
 * do not journal_submit them again (their ids are below *next_id, so
 * journal_submit would refuse them with -EINVAL). */
typedef void (*journal_job_fn)(void *ctx, const struct journal_job *job);

/* Open or create DIR/journal, replay it, compact it. *next_id is one more
 * than the highest id ever recorded (1 for a new journal). A torn tail
 * is not an error: warn says what was dropped ("" when nothing was).
 * Returns 0, or -errno with the reason in err (unreadable file, a record
 * that is corrupt before the tail, a version it does not know). */
int journal_open(struct journal **jp, const char *dir, journal_job_fn fn, void *ctx,
		 uint64_t *next_id, char *warn, size_t warnlen, char *err, size_t errlen);
/* Append a submitted job and fsync: when this returns 0 the job survives
 * a crash of the machine. */
int journal_submit(struct journal *j, const struct journal_job *job, char *err, size_t errlen);
/* The same, without the fsync: the caller makes the record durable
 * (fdatasync of journal_fd, e.g. an io_uring operation, so that a loop
 * does not wait for the disk) and reports the outcome to journal_synced
 * before it acknowledges the job. */
int journal_submit_nosync(struct journal *j, const struct journal_job *job, char *err,
			  size_t errlen);
int journal_fd(const struct journal *j);
/* The caller's fdatasync finished with res (0 or -errno). A failure makes
 * the journal refuse every later append, as journal_submit's own would
 * (after a failed fsync Linux may have dropped the dirty pages). */
void journal_synced(struct journal *j, int res);
/* Append a job's end (state: enum shm_job_state done/failed/cancelled).
 * Not fsynced: a lost end record only means the job is looked at again
 * at the next start, where its result file says it is done. */
int journal_end(struct journal *j, uint64_t id, uint32_t state, char *err, size_t errlen);
/* Append that an ended job (failed or cancelled) runs again (provisor
 * retry): unfinished at the next replay. Not fsynced, like
 * journal_submit_nosync: the caller makes it durable before it answers. */
int journal_retry_nosync(struct journal *j, uint64_t id, char *err, size_t errlen);
/* A SUBMIT again for a job whose id was used (below the next free one)
 * and whose records a compaction dropped since (journal_compact): its
 * retry, when a RETRY would name an id the journal no longer has. The
 * caller knows that none is left (a second SUBMIT of an id in the file
 * is corruption at replay). Not synced, as journal_retry_nosync. */
int journal_resubmit_nosync(struct journal *j, const struct journal_job *job, char *err, size_t errlen);
/* Compaction while running: due once the file is at least min bytes and
 * four times what the last compaction left (only unfinished jobs and the
 * highest id survive one). journal_compact rewrites it as journal_open
 * does (temp, fsync, rename, fsync dir) from what it has appended, and
 * goes on appending to the new file: it reads at most the file, writes
 * the unfinished jobs (at most the job table's), and fsyncs twice. Before
 * it, anything queued that holds journal_fd must be submitted (the fd
 * changes). 0 with the sizes, or -errno and err; on failure the old file
 * is still the journal, unless the rename happened without its directory
 * sync, when later appends are refused. */
#define JOURNAL_COMPACT_MIN (1u << 20)
int journal_compact_due(const struct journal *j, uint64_t min);
int journal_compact(struct journal *j, uint64_t *before, uint64_t *after, char *err, size_t errlen);
void journal_close(struct journal *j);

#endif
