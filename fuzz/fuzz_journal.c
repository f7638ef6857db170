/*
 * fuzz_journal: the journal reader (journal/journal.h). The input becomes
 * DIR/journal in this process's scratch directory and is opened (replay,
 * compaction) and closed. Each input is tried twice: as given, and with
 * every record's XXH32 check recomputed (docs/journal.md: 16-byte header,
 * length at 8, check at 12 over bytes 0..11 and the payload), so the
 * fuzzer reaches the meaning of records, not only their framing.
 *
 * After an open that succeeds, the journal must be a fixed point:
 * opening the compacted file again gives the same jobs, the same next id
 * and no warning.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "fuzz/fuzz.h"
#include "journal/journal.h"

struct fuzz_jobs {
	struct journal_job *v;
	size_t n, cap;
};

static void fuzz_journal_collect(void *ctx, const struct journal_job *job)
{
	struct fuzz_jobs *j = ctx;

	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 16;
		j->v = realloc(j->v, j->cap * sizeof *j->v);
		FUZZ_ASSERT(j->v);
	}
	j->v[j->n++] = *job;
}

/* Seed bytes past seed_len mean nothing (compaction writes them as
 * zeros), so they are not compared. */
static int fuzz_journal_same(const struct journal_job *a, const struct journal_job *b)
{
	return a->id == b->id && a->kind == b->kind && a->priority == b->priority &&
	       a->log_size == b->log_size && a->nparts == b->nparts &&
	       a->seed_len == b->seed_len && a->seed_len <= sizeof a->seed &&
	       !memcmp(a->seed, b->seed, a->seed_len) && a->submit_wall_ns == b->submit_wall_ns &&
	       a->uid == b->uid;
}

static int fuzz_journal_open(const char *dir, struct fuzz_jobs *jobs, uint64_t *next_id,
			     char *warn, size_t warnlen)
{
	struct journal *j;
	char err[256];
	int rc;

	fuzz_err_fill(err, sizeof err);
	rc = journal_open(&j, dir, fuzz_journal_collect, jobs, next_id, warn, warnlen,
			  err, sizeof err);
	FUZZ_ASSERT(memchr(warn, '\0', warnlen));
	if (rc) {
		FUZZ_ASSERT(rc < 0 && !j);
		fuzz_check_err(err, sizeof err);
		FUZZ_ASSERT(jobs->n == 0);
		return rc;
	}
	FUZZ_ASSERT(j && *next_id >= 1);
	for (size_t i = 0; i < jobs->n; i++)
		FUZZ_ASSERT(jobs->v[i].id >= 1 && jobs->v[i].id < *next_id);
	journal_close(j);
	return 0;
}

static void fuzz_journal_try(const char *dir, const char *path, const uint8_t *data, size_t size)
{
	struct fuzz_jobs first = { 0 }, second = { 0 };
	uint64_t id1 = 0, id2 = 0;
	char warn[256];

	fuzz_write_file(path, data, size);
	if (fuzz_journal_open(dir, &first, &id1, warn, sizeof warn) == 0) {
		FUZZ_ASSERT(fuzz_journal_open(dir, &second, &id2, warn, sizeof warn) == 0);
		if (warn[0])
			fprintf(stderr, "fuzz_journal: compacted journal warns: %s\n", warn);
		FUZZ_ASSERT(warn[0] == '\0');
		FUZZ_ASSERT(id1 == id2 && first.n == second.n);
		for (size_t i = 0; i < first.n; i++)
			FUZZ_ASSERT(fuzz_journal_same(&first.v[i], &second.v[i]));
	}
	free(first.v);
	free(second.v);
}

/* Recompute the check of every record that frames (magic aside). */
static void fuzz_journal_reseal(uint8_t *p, size_t size)
{
	size_t off = 0;

	while (size - off >= 16) {
		uint32_t len, sum;
		XXH32_state_t *st;

		memcpy(&len, p + off + 8, 4);
		if (len > 256 || len > size - off - 16)
			break;
		st = XXH32_createState();
		FUZZ_ASSERT(st);
		XXH32_reset(st, 0);
		XXH32_update(st, p + off, 12);
		XXH32_update(st, p + off + 16, len);
		sum = XXH32_digest(st);
		XXH32_freeState(st);
		memcpy(p + off + 12, &sum, 4);
		off += 16 + len;
	}
}

FUZZ_ENTRY(journal)
{
	static char path[300];
	const char *dir = fuzz_tmpdir();
	uint8_t *copy;

	if (!path[0])
		snprintf(path, sizeof path, "%s/journal", dir);
	fuzz_journal_try(dir, path, data, size);
	copy = malloc(size ? size : 1);
	FUZZ_ASSERT(copy);
	memcpy(copy, data, size);
	fuzz_journal_reseal(copy, size);
	if (memcmp(copy, data, size))
		fuzz_journal_try(dir, path, copy, size);
	free(copy);
	return 0;
}
