/*
 * journal: round trip with compaction, a torn tail cut at every byte of
 * the last record, flipped bits at the tail and in the middle, crafted
 * bad records (magic, version, length, limits, duplicates), ids never
 * reused, and the bytes being in the file when submit returns.
 */
#include "tests/journal/jt.h"

static char warn[256], err[512];

/* Open the scratch journal collecting replayed jobs into s. */
static int jt_open(struct journal **j, struct jt_seen *s, uint64_t *next)
{
	s->n = 0;
	*next = 0;
	warn[0] = err[0] = '\0';
	return journal_open(j, jt_dir, jt_collect, s, next, warn, sizeof(warn), err, sizeof(err));
}

static void jt_submit(struct journal *j, const struct journal_job *job)
{
	int rc = journal_submit(j, job, err, sizeof(err));

	CHECK(rc == 0, "submit %llu: %d %s", (unsigned long long)job->id, rc, err);
}

static void jt_end(struct journal *j, uint64_t id)
{
	int rc = journal_end(j, id, 3, err, sizeof(err));

	CHECK(rc == 0, "end %llu: %d %s", (unsigned long long)id, rc, err);
}

static void jt_reopen_same(const struct jt_seen *want, uint64_t want_next, size_t want_size)
{
	struct journal *j;
	struct jt_seen s;
	uint64_t next;
	size_t len;
	uint8_t *b;

	CHECK(jt_open(&j, &s, &next) == 0, "reopen: %s", err);
	CHECK(warn[0] == '\0', "unexpected warning: %s", warn);
	CHECK_EQ_U64(next, want_next);
	CHECK_EQ_U64(s.n, want->n);
	for (int i = 0; i < s.n; i++)
		jt_check_job(&s.job[i], &want->job[i]);
	journal_close(j);
	b = jt_slurp(&len);
	CHECK_EQ_U64(len, want_size);
	free(b);
}

/* Submit 60, end two of every three, reopen: the rest come back in order
 * with every field, and the compacted file is exactly HIGHWATER + those
 * SUBMITs, byte for byte as docs/journal.md says. */
static void t_roundtrip(void)
{
	struct journal_job all[60];
	struct jt_seen s, want = { .n = 0 };
	struct journal *j;
	uint64_t next, rng = 42;
	uint8_t expect[JT_HW_SIZE + 60 * JT_SUBMIT_SIZE], *b;
	size_t elen, len;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open new: %s", err);
	CHECK(s.n == 0 && next == 1 && !warn[0], "new journal: %d jobs, next %llu",
	      s.n, (unsigned long long)next);
	for (int i = 0; i < 60; i++) {
		all[i] = jt_job(next + (uint64_t)i, &rng);
		jt_submit(j, &all[i]);
	}
	for (int i = 0; i < 60; i++)
		if (i % 3 != 1)
			jt_end(j, all[i].id);
	journal_close(j);

	elen = jt_hw_rec(expect, 60);
	for (int i = 1; i < 60; i += 3) {
		want.job[want.n++] = all[i];
		elen += jt_submit_rec(expect + elen, &all[i]);
	}
	jt_reopen_same(&want, 61, elen);
	b = jt_slurp(&len);
	CHECK(len == elen && memcmp(b, expect, len) == 0, "compacted bytes differ from the doc");
	free(b);
	jt_reopen_same(&want, 61, elen);
	printf("info: roundtrip: 60 submitted, 20 unfinished replayed, compacted to %zu bytes\n", elen);
}

/* HIGHWATER 0; SUBMIT 1, 2, 3; END 2; SUBMIT 4; and END 3 if end_last.
 * Returns the file's bytes; jobs gets the four jobs. */
static uint8_t *jt_build(bool end_last, struct journal_job jobs[4], size_t *len)
{
	struct journal *j;
	struct jt_seen s;
	uint64_t next, rng = 7;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	for (int i = 0; i < 4; i++)
		jobs[i] = jt_job((uint64_t)i + 1, &rng);
	for (int i = 0; i < 3; i++)
		jt_submit(j, &jobs[i]);
	jt_end(j, 2);
	jt_submit(j, &jobs[3]);
	if (end_last)
		jt_end(j, 3);
	journal_close(j);
	return jt_slurp(len);
}

/* Cut the file at every offset inside its last record (both ends too):
 * open succeeds, warns exactly when a partial record was there, cuts the
 * old file back to the last whole record, keeps every earlier job, and a
 * submit after that is replayed cleanly. */
static void t_torn(bool end_last)
{
	struct journal_job jobs[4];
	size_t len, rec = end_last ? JT_END_SIZE : JT_SUBMIT_SIZE;
	uint8_t *full = jt_build(end_last, jobs, &len);
	size_t start = len - rec;

	for (size_t c = start; c <= len; c++) {
		struct jt_seen s, want = { .n = 0 };
		struct journal *j;
		struct stat st;
		uint64_t next, rng = c;
		int oldfd;

		jt_spit(full, c);
		oldfd = open(jt_path, O_RDONLY);
		CHECK(oldfd >= 0, "open old");
		CHECK(jt_open(&j, &s, &next) == 0, "cut at %zu: open failed: %s", c, err);
		CHECK((c > start && c < len) == (warn[0] != '\0'), "cut at %zu: warning '%s'", c, warn);
		CHECK(fstat(oldfd, &st) == 0, "fstat");
		CHECK_EQ_U64(st.st_size, c == len ? len : start);
		close(oldfd);
		want.job[want.n++] = jobs[0];
		if (end_last ? c < len : true)
			want.job[want.n++] = jobs[2];
		if (end_last || c == len)
			want.job[want.n++] = jobs[3];
		CHECK(s.n == want.n, "cut at %zu: %d jobs replayed, expected %d", c, s.n, want.n);
		for (int i = 0; i < s.n; i++)
			jt_check_job(&s.job[i], &want.job[i]);
		CHECK_EQ_U64(next, end_last || c == len ? 5 : 4);
		want.job[want.n] = jt_job(next, &rng);
		jt_submit(j, &want.job[want.n++]);
		journal_close(j);
		jt_reopen_same(&want, next + 1, JT_HW_SIZE + (size_t)want.n * JT_SUBMIT_SIZE);
	}
	free(full);
}

/* One flipped bit anywhere in the last record: a torn tail. */
static void t_flip_last(void)
{
	struct journal_job jobs[4];
	size_t len;
	uint8_t *full = jt_build(false, jobs, &len), *b = malloc(len);
	size_t start = len - JT_SUBMIT_SIZE;

	for (size_t o = start; o < len; o++) {
		struct journal *j;
		struct jt_seen s;
		uint64_t next;

		memcpy(b, full, len);
		b[o] ^= (uint8_t)(1u << (o % 8));
		jt_spit(b, len);
		CHECK(jt_open(&j, &s, &next) == 0, "flip at %zu: %s", o, err);
		CHECK(warn[0], "flip at %zu: no warning", o);
		CHECK(s.n == 2 && s.job[0].id == 1 && s.job[1].id == 3, "flip at %zu: %d jobs", o, s.n);
		CHECK_EQ_U64(next, 4);
		journal_close(j);
	}
	free(b);
	free(full);
}

/* Open must refuse the current file (rc < 0, a message, no job handed
 * out) and leave it byte for byte as it was, with no temp file. */
static void jt_expect_refused(int want_rc, const char *what)
{
	struct journal *j = (struct journal *)1;
	struct jt_seen s;
	uint64_t next;
	size_t l0, l1;
	uint8_t *b0 = jt_slurp(&l0), *b1;
	char tmp[128];
	int rc = jt_open(&j, &s, &next);

	CHECK(rc == want_rc, "%s: open returned %d (%s), expected %d", what, rc, err, want_rc);
	CHECK(j == NULL && s.n == 0 && err[0], "%s: refused without a message or handed out jobs", what);
	b1 = jt_slurp(&l1);
	CHECK(l0 == l1 && memcmp(b0, b1, l0) == 0, "%s: file modified", what);
	snprintf(tmp, sizeof(tmp), "%s/journal.tmp", jt_dir);
	CHECK(access(tmp, F_OK) != 0, "%s: temp file left behind", what);
	free(b0);
	free(b1);
}

/* Every bit of every record before the last: corruption, refused. */
static void t_flip_middle(void)
{
	struct journal_job jobs[4];
	size_t len;
	uint8_t *full = jt_build(false, jobs, &len), *b = malloc(len);
	char what[64];

	for (size_t o = 0; o < len - JT_SUBMIT_SIZE; o++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(b, full, len);
			b[o] ^= (uint8_t)(1u << bit);
			jt_spit(b, len);
			snprintf(what, sizeof(what), "flip bit %d of byte %zu", bit, o);
			jt_expect_refused(-EBADMSG, what);
		}
	printf("info: corruption before the last record refused at all %zu bits; "
	       "example: %s\n", (len - JT_SUBMIT_SIZE) * 8, err);
	free(b);
	free(full);
}

/* Open a crafted file that must replay with a torn tail: job 1 only. */
static void jt_expect_torn(const char *what)
{
	struct journal *j;
	struct jt_seen s;
	uint64_t next;

	CHECK(jt_open(&j, &s, &next) == 0, "%s: open failed: %s", what, err);
	CHECK(warn[0], "%s: no warning", what);
	CHECK(s.n == 1 && s.job[0].id == 1, "%s: %d jobs", what, s.n);
	journal_close(j);
}

/* Files built by the test's own encoder: HIGHWATER 0, SUBMIT 1, then
 * the record under test, as the last record or before SUBMIT 3. */
static void t_crafted(void)
{
	uint8_t f[1024], p[72];
	struct journal_job j1, j2, j3;
	uint64_t rng = 99;
	size_t base, n, m;

	j1 = jt_job(1, &rng);
	j2 = jt_job(2, &rng);
	j3 = jt_job(3, &rng);
	jt_fresh();
	base = jt_hw_rec(f, 0);
	base += jt_submit_rec(f + base, &j1);

	/* Wrong magic: torn at the end, corruption in the middle. */
	n = base + jt_submit_rec(f + base, &j2);
	memcpy(f + base, "PVJX", 4);
	jt_spit(f, n);
	jt_expect_torn("wrong magic, last");
	n += jt_submit_rec(f + n, &j3);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "wrong magic, middle");

	/* Absurd length: the same two ways. */
	n = base + jt_submit_rec(f + base, &j2);
	jt_le(f + base + 8, 100000, 4);
	jt_spit(f, n);
	jt_expect_torn("absurd length, last");
	n += jt_submit_rec(f + n, &j3);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "absurd length, middle");

	/* Zeros after the last record (size extended, data never written). */
	n = base + 100;
	memset(f + base, 0, 100);
	jt_spit(f, n);
	jt_expect_torn("zeros at the end");

	/* Unknown version with a valid check: refused wherever it is. */
	jt_submit_rec(f + base, &j2);
	memcpy(p, f + base + 16, 72);
	n = base + jt_rec(f + base, "PVJR", 3, 1, 72, p);
	jt_spit(f, n);
	jt_expect_refused(-ENOTSUP, "version 3, last");
	printf("info: version 3: %s\n", err);
	/* A version 2 SUBMIT of version 1's length, and the other way. */
	n = base + jt_rec(f + base, "PVJR", 2, 1, 68, p);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "version 2 SUBMIT of 68 bytes");
	n = base + jt_rec(f + base, "PVJR", 1, 1, 72, p);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "version 1 SUBMIT of 72 bytes");

	/* Records whose check holds but whose content breaks a rule. */
	struct { const char *what; uint32_t seed_len, nparts; } lim[] = {
		{ "seed_len 0", 0, 1 }, { "seed_len 33", 33, 1 },
		{ "nparts 0", 4, 0 }, { "nparts 65", 4, 65 },
	};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		struct journal_job bad = j2;

		bad.seed_len = lim[i].seed_len;
		bad.nparts = lim[i].nparts;
		n = base + jt_submit_rec(f + base, &bad);
		jt_spit(f, n);
		jt_expect_refused(-EBADMSG, lim[i].what);
	}
	/* A valid check over a seed whose bytes past seed_len are not zero
	 * (the writer always zeroes them). */
	jt_submit_rec(f + base, &j2);
	memcpy(p, f + base + 16, 72);
	p[24] = 2, p[25] = p[26] = p[27] = 0;
	p[28 + 20] = 0x5a;
	n = base + jt_rec(f + base, "PVJR", 2, 1, 72, p);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "nonzero seed padding");
	CHECK(strstr(err, "past seed_len"), "padding: %s", err);
	n = base + jt_submit_rec(f + base, &j1);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "duplicate SUBMIT");
	n = base + jt_rec(f + base, "PVJR", 2, 7, 8, p);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "unknown type");
	n = base + jt_rec(f + base, "PVJR", 2, 1, 60, p);
	jt_spit(f, n);
	jt_expect_refused(-EBADMSG, "SUBMIT of 60 bytes");

	/* An END for an id never submitted (compacted away): ignored. */
	n = base + jt_end_rec(f + base, 99, 3);
	m = n + jt_submit_rec(f + n, &j2);
	jt_spit(f, m);
	{
		struct journal *j;
		struct jt_seen s;
		uint64_t next;

		CHECK(jt_open(&j, &s, &next) == 0, "END of unknown id: %s", err);
		CHECK(!warn[0] && s.n == 2 && next == 3, "END of unknown id: %d jobs", s.n);
		journal_close(j);
	}
}

/* Ids 1..5 all ended: nothing to resume, yet the next id is 6, and it
 * stays 6 across opens. Submit refuses a used id and a bad job. */
static void t_highwater(void)
{
	struct jt_seen s, none = { .n = 0 };
	struct journal *j;
	struct journal_job job;
	uint64_t next, rng = 5;
	size_t l0, l1;
	uint8_t *b0, *b1;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	for (uint64_t id = 1; id <= 5; id++) {
		job = jt_job(id, &rng);
		jt_submit(j, &job);
		jt_end(j, id);
	}
	journal_close(j);
	jt_reopen_same(&none, 6, JT_HW_SIZE);
	jt_reopen_same(&none, 6, JT_HW_SIZE);

	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	b0 = jt_slurp(&l0);
	job = jt_job(3, &rng);
	CHECK(journal_submit(j, &job, err, sizeof(err)) == -EINVAL, "reused id accepted");
	job.id = 6;
	job.seed_len = 0;
	CHECK(journal_submit(j, &job, err, sizeof(err)) == -EINVAL, "seed_len 0 accepted");
	job.seed_len = 1;
	job.nparts = 65;
	CHECK(journal_submit(j, &job, err, sizeof(err)) == -EINVAL, "nparts 65 accepted");
	b1 = jt_slurp(&l1);
	CHECK(l0 == l1 && memcmp(b0, b1, l0) == 0, "a refused submit changed the file");
	journal_close(j);
	free(b0);
	free(b1);
}

/* When submit returns, its record is in the file, as documented. */
static void t_durable(void)
{
	struct jt_seen s;
	struct journal *j;
	struct journal_job job;
	uint64_t next, rng = 11;
	uint8_t rec[JT_SUBMIT_SIZE], *b;
	size_t len;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	job = jt_job(next, &rng);
	jt_submit(j, &job);
	b = jt_slurp(&len);
	jt_submit_rec(rec, &job);
	CHECK(len == JT_HW_SIZE + JT_SUBMIT_SIZE && memcmp(b + JT_HW_SIZE, rec, sizeof(rec)) == 0,
	      "submitted record not in the file as documented (%zu bytes)", len);
	free(b);
	jt_end(j, job.id);
	b = jt_slurp(&len);
	jt_end_rec(rec, job.id, 3);
	CHECK(len == JT_HW_SIZE + JT_SUBMIT_SIZE + JT_END_SIZE &&
	      memcmp(b + len - JT_END_SIZE, rec, JT_END_SIZE) == 0, "END record not as documented");
	free(b);
	journal_close(j);
}

/* The supervisor's way: the record written, the fdatasync done by the
 * caller (an io_uring operation) on journal_fd. A failed sync makes every
 * later append refused (the file's tail is in doubt); a good one changes
 * nothing. */
static void t_nosync(void)
{
	struct jt_seen s;
	struct journal *j;
	struct journal_job job;
	uint64_t next, rng = 23;
	uint8_t rec[JT_SUBMIT_SIZE], *b;
	size_t len;
	int rc;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	job = jt_job(next, &rng);
	CHECK(journal_submit_nosync(j, &job, err, sizeof err) == 0, "nosync: %s", err);
	CHECK(fdatasync(journal_fd(j)) == 0, "fdatasync of journal_fd");
	journal_synced(j, 0);
	b = jt_slurp(&len);
	jt_submit_rec(rec, &job);
	CHECK(len == JT_HW_SIZE + JT_SUBMIT_SIZE && memcmp(b + JT_HW_SIZE, rec, sizeof(rec)) == 0,
	      "nosync: the record is not in the file as documented (%zu bytes)", len);
	free(b);
	job = jt_job(job.id + 1, &rng);
	CHECK(journal_submit_nosync(j, &job, err, sizeof err) == 0, "second nosync: %s", err);
	journal_synced(j, -EIO);	/* as if the disk failed the fdatasync */
	job = jt_job(job.id + 1, &rng);
	rc = journal_submit_nosync(j, &job, err, sizeof err);
	CHECK(rc == -EIO && strstr(err, "journal unusable since an earlier failure"),
	      "after a failed sync: rc %d, %s", rc, err);
	printf("info: after a failed fdatasync: %s\n", err);
	journal_close(j);
}

/* RETRY: a job ended and then retried is unfinished again (its SUBMIT
 * kept at compaction, in submission order); an ended one not retried
 * is compacted away; a RETRY of an unknown id is ignored. The record is
 * 24 bytes: type 4, the id. */
static void t_retry(void)
{
	struct jt_seen s, want = { .n = 0 };
	struct journal_job a, b, c;
	struct journal *j;
	uint64_t next, rng = 77;
	size_t len0, len;
	uint8_t *f;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	a = jt_job(next, &rng);
	b = jt_job(next + 1, &rng);
	c = jt_job(next + 2, &rng);
	jt_submit(j, &a);
	jt_submit(j, &b);
	jt_submit(j, &c);
	jt_end(j, a.id);
	jt_end(j, b.id);
	f = jt_slurp(&len0);
	free(f);
	CHECK(journal_retry_nosync(j, b.id, err, sizeof err) == 0, "retry: %s", err);
	CHECK(journal_retry_nosync(j, 999, err, sizeof err) == 0, "retry of an unknown id: %s", err);
	f = jt_slurp(&len);
	CHECK_EQ_U64(len - len0, 2 * 24);
	CHECK(f[len0 + 6] == 4 && f[len0 + 7] == 0 && f[len0 + 16] == (uint8_t)b.id,
	      "RETRY record: type %u, id byte %u", f[len0 + 6], f[len0 + 16]);
	free(f);
	journal_close(j);
	want.job[want.n++] = b;
	want.job[want.n++] = c;
	CHECK(jt_open(&j, &s, &next) == 0, "reopen: %s", err);
	CHECK_EQ_U64(s.n, 2);
	for (int i = 0; i < s.n; i++)
		jt_check_job(&s.job[i], &want.job[i]);
	/* Ended again after the retry: finished. */
	jt_end(j, b.id);
	journal_close(j);
	CHECK(jt_open(&j, &s, &next) == 0, "reopen: %s", err);
	CHECK(s.n == 1 && s.job[0].id == c.id, "after END again: %d unfinished", s.n);
	journal_close(j);
	printf("info: retry: an ended job retried is resumed; ended again, it is not\n");
}

/* Compaction while open (journal_compact): after submit/end churn the
 * file shrinks to the HIGHWATER and the unfinished SUBMITs, appends go on
 * into the new file, an ended job compacted away can be journaled again
 * (journal_resubmit_nosync, its retry), the highest id survives, and a
 * reopen replays exactly the unfinished jobs. Due only past the minimum
 * and four times what the last compaction left. */
static void t_compact_open(void)
{
	struct jt_seen s;
	struct journal_job keep, late, x;
	struct journal *j;
	uint64_t next, rng = 99, before, after;
	size_t len;
	uint8_t *f;

	jt_fresh();
	CHECK(jt_open(&j, &s, &next) == 0, "open: %s", err);
	keep = jt_job(next, &rng);
	jt_submit(j, &keep);
	CHECK(!journal_compact_due(j, 4096), "due right after open");
	for (int i = 0; i < 100; i++) {	/* churn: submit, end */
		x = jt_job(keep.id + 1 + (uint64_t)i, &rng);
		jt_submit(j, &x);
		jt_end(j, x.id);
	}
	f = jt_slurp(&len);
	free(f);
	CHECK_EQ_U64(len, JT_HW_SIZE + JT_SUBMIT_SIZE + 100 * (JT_SUBMIT_SIZE + JT_END_SIZE));
	CHECK(journal_compact_due(j, 4096), "not due at %zu bytes", len);
	CHECK(!journal_compact_due(j, 1u << 20), "due below the minimum");
	CHECK(journal_compact(j, &before, &after, err, sizeof err) == 0, "compact: %s", err);
	f = jt_slurp(&len);
	free(f);
	CHECK(before == JT_HW_SIZE + JT_SUBMIT_SIZE + 100 * (JT_SUBMIT_SIZE + JT_END_SIZE) &&
	      after == len && len == JT_HW_SIZE + JT_SUBMIT_SIZE,
	      "compacted %llu -> %llu bytes, file %zu", (unsigned long long)before,
	      (unsigned long long)after, len);
	CHECK(!journal_compact_due(j, 1), "due again right after compacting");
	late = jt_job(x.id + 1, &rng);	/* appended to the new file */
	jt_submit(j, &late);
	/* x ended and was compacted away: its retry is its SUBMIT again */
	CHECK(journal_resubmit_nosync(j, &x, err, sizeof err) == 0, "resubmit: %s", err);
	x.id = late.id + 1;
	CHECK(journal_resubmit_nosync(j, &x, err, sizeof err) == -EINVAL, "resubmit of an unused id");
	x.id = late.id - 1;
	journal_close(j);
	CHECK(jt_open(&j, &s, &next) == 0, "reopen: %s", err);
	CHECK(s.n == 3 && s.job[0].id == keep.id && s.job[1].id == late.id && s.job[2].id == x.id &&
	      next == late.id + 1, "after the compaction: %d jobs, next %llu", s.n, (unsigned long long)next);
	jt_check_job(&s.job[0], &keep);
	jt_check_job(&s.job[1], &late);
	jt_check_job(&s.job[2], &x);
	journal_close(j);
	printf("info: compaction while open: %llu -> %llu bytes\n", (unsigned long long)before,
	       (unsigned long long)after);
}

/* A journal version 1 wrote (its SUBMITs say no uid) is read: its
 * unfinished jobs come back with uid JOURNAL_UID_UNKNOWN, the compaction
 * rewrites them as version 2 keeping that, and a job submitted after it
 * keeps its own uid; an old file opened later is the same fixed point. */
static void t_version1(void)
{
	uint8_t f[512], p[8], expect[JT_HW_SIZE + 2 * JT_SUBMIT_SIZE];
	struct journal_job a, b, c;
	struct jt_seen s;
	struct journal *j;
	uint64_t rng = 5, next;
	size_t n, elen;

	a = jt_job(1, &rng);
	b = jt_job(2, &rng);
	c = jt_job(3, &rng);
	jt_fresh();
	jt_le(p, 0, 8);
	n = jt_rec(f, "PVJR", 1, 3, 8, p);
	n += jt_submit_rec_v(f + n, &a, 1);
	n += jt_submit_rec_v(f + n, &b, 1);
	n += jt_rec(f + n, "PVJR", 1, 2, 12, (uint8_t[12]){ 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0 });	/* END 1 */
	jt_spit(f, n);
	CHECK(jt_open(&j, &s, &next) == 0, "version 1 file: %s", err);
	CHECK(s.n == 1 && next == 3 && !warn[0], "version 1 file: %d jobs, next %llu, warning '%s'", s.n,
	      (unsigned long long)next, warn);
	b.uid = JOURNAL_UID_UNKNOWN;
	jt_check_job(&s.job[0], &b);
	jt_submit(j, &c);
	journal_close(j);
	struct jt_seen want = { .n = 2 };
	want.job[0] = b;
	want.job[1] = c;
	elen = jt_hw_rec(expect, 3);
	elen += jt_submit_rec(expect + elen, &b);
	elen += jt_submit_rec(expect + elen, &c);
	jt_reopen_same(&want, 4, elen);
	size_t len;
	uint8_t *got = jt_slurp(&len);
	CHECK(len == elen && memcmp(got, expect, len) == 0, "version 1 file compacted: bytes differ from the doc");
	free(got);
	printf("info: a version 1 journal: its job back with no uid, compacted to version 2, a new job's uid kept\n");
}

int main(void)
{
	uint64_t t0 = t_now_ns();

	atexit(jt_cleanup);	/* a failed CHECK exits: leave no scratch dir */

	t_roundtrip();
	t_torn(false);
	t_torn(true);
	printf("info: torn tail: every cut inside a last SUBMIT (88 B) and END (28 B) recovered\n");
	t_flip_last();
	t_flip_middle();
	t_crafted();
	t_highwater();
	t_durable();
	t_nosync();
	t_retry();
	t_compact_open();
	t_version1();
	jt_cleanup();
	printf("info: journal tests took %.1f s\n", (double)(t_now_ns() - t0) / 1e9);
	return 0;
}
