/*
 * fjournal: a node's record of the fleet jobs it claimed, STATE/fleet,
 * beside the job journal (which knows them only as local jobs). It lets
 * a node that restarts, or that finished work while the database was
 * gone, still report each such job: which fleet job (id, epoch) a local
 * job is, and whether the database has heard how it ended.
 *
 * Two records, one text line each with its own checksum:
 *   C LOCAL FLEET EPOCH FILEKIND K PARTS   claimed, became local job LOCAL
 *   R LOCAL                                 reported (done, released or
 *                                           refused): nothing left to say
 * A claim with no report is still the node's to report. A line that does
 * not check (a torn tail after a crash, or damage) is dropped with a
 * warning: the worst it costs is a job done again by another node after
 * its lease expires, never a job counted twice (the database refuses a
 * second completion).
 *
 * Opening compacts (temp, fsync, rename, fsync dir) to the unreported
 * claims; a running node compacts again once the file has grown well past
 * that (fjournal_compact_due). Appends are not synced here: the caller
 * fdatasyncs fjournal_fd through its loop.
 */
#ifndef FLEET_FJOURNAL_H
#define FLEET_FJOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define FJOURNAL_NAME "fleet"

struct fjournal_claim {
	uint64_t local;		/* the local job's id */
	uint64_t fleet;		/* provisor_jobs.id */
	uint32_t epoch;		/* the lease's epoch */
	uint32_t file_kind;	/* its result: PFILE_KIND_RESULT (H) or PFILE_KIND_PROOFS */
	uint32_t k, parts;
};

struct fjournal;

typedef void (*fjournal_fn)(void *ctx, const struct fjournal_claim *c);

/* Open or create dirfd/fleet (dir: its name for messages), call fn for
 * every claim not reported, in the order claimed, then compact. 0, or
 * -errno with err; warn says what was dropped ("" when nothing was). */
int fjournal_open(struct fjournal **fp, int dirfd, const char *dir, fjournal_fn fn, void *ctx, char *warn,
		  size_t warnlen, char *err, size_t errlen);
int fjournal_claim(struct fjournal *f, const struct fjournal_claim *c, char *err, size_t errlen);
int fjournal_reported(struct fjournal *f, uint64_t local, char *err, size_t errlen);
int fjournal_fd(const struct fjournal *f);
/* The file has grown to at least 1 MiB and four times what the claims
 * still open (live of them) need: compact it now. */
int fjournal_compact_due(const struct fjournal *f, uint32_t live);
/* Rewrite the file with these claims only (those still open), as
 * fjournal_open does. 0, or -errno with err (the old file stays). */
int fjournal_compact(struct fjournal *f, const struct fjournal_claim *live, uint32_t n, char *err, size_t errlen);
void fjournal_close(struct fjournal *f);

/* One record's line (with its checksum and newline) into buf: its length. */
size_t fjournal_line_claim(char *buf, size_t len, const struct fjournal_claim *c);
size_t fjournal_line_reported(char *buf, size_t len, uint64_t local);
/* Parse one line (without its newline): 'C' and *c, 'R' and c->local,
 * or 0 when it does not check. */
int fjournal_parse(const char *line, struct fjournal_claim *c);

#endif
