/*
 * Helpers for the journal test: a scratch directory, whole-file reads and
 * writes, a callback that collects replayed jobs, and an encoder written
 * from docs/journal.md alone, so the test checks the documented bytes and
 * not just that journal.c agrees with itself.
 */
#ifndef TESTS_JOURNAL_JT_H
#define TESTS_JOURNAL_JT_H

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "journal/journal.h"
#include "tests/helpers.h"

#define JT_MAX_JOBS	256
#define JT_SUBMIT_SIZE	88	/* 16-byte header + 72-byte payload (version 2) */
#define JT_END_SIZE	28
#define JT_HW_SIZE	24

struct jt_seen {
	struct journal_job job[JT_MAX_JOBS];
	int n;
};

static char jt_dir[64];
static char jt_path[96];

static void jt_collect(void *ctx, const struct journal_job *job)
{
	struct jt_seen *s = ctx;

	CHECK(s->n < JT_MAX_JOBS, "too many jobs replayed");
	s->job[s->n++] = *job;
}

/* A fresh scratch directory; any previous one is removed first. */
static void jt_cleanup(void)
{
	char p[128];

	if (!jt_dir[0])
		return;
	unlink(jt_path);
	snprintf(p, sizeof(p), "%s/journal.tmp", jt_dir);
	unlink(p);
	rmdir(jt_dir);
	jt_dir[0] = '\0';
}

static void jt_fresh(void)
{
	const char *tmp = getenv("TMPDIR");

	jt_cleanup();
	snprintf(jt_dir, sizeof(jt_dir), "%s/provisor-journal.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CHECK(mkdtemp(jt_dir), "mkdtemp: %s", strerror(errno));
	snprintf(jt_path, sizeof(jt_path), "%s/journal", jt_dir);
}

/* The whole journal file (malloc'd) and its length; NULL when absent. */
static uint8_t *jt_slurp(size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(jt_path, O_RDONLY);

	*len = 0;
	if (fd < 0)
		return NULL;
	CHECK(fstat(fd, &st) == 0, "fstat");
	buf = malloc((size_t)st.st_size + 1);
	CHECK(buf, "malloc");
	CHECK(read(fd, buf, (size_t)st.st_size) == st.st_size, "read journal");
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Replace the journal file with exactly these bytes. */
static void jt_spit(const uint8_t *buf, size_t len)
{
	int fd;

	unlink(jt_path);
	fd = open(jt_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0, "create journal: %s", strerror(errno));
	CHECK(write(fd, buf, len) == (ssize_t)len, "write journal");
	close(fd);
}

static void jt_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A record per docs/journal.md with any header values; returns its size. */
static size_t jt_rec(uint8_t *out, const char *magic, uint16_t version, uint16_t type,
		     uint32_t len, const uint8_t *payload)
{
	uint8_t tmp[12 + 512];

	memcpy(out, magic, 4);
	jt_le(out + 4, version, 2);
	jt_le(out + 6, type, 2);
	jt_le(out + 8, len, 4);
	memcpy(out + 16, payload, len);
	memcpy(tmp, out, 12);
	memcpy(tmp + 12, payload, len);
	jt_le(out + 12, XXH32(tmp, 12 + (size_t)len, 0), 4);
	return 16 + (size_t)len;
}

/* A SUBMIT as this provisor writes it (version 2, with the uid), or as
 * version 1 wrote it (v1: no uid). */
static size_t jt_submit_rec_v(uint8_t *out, const struct journal_job *j, int v1)
{
	uint8_t p[72] = { 0 };

	jt_le(p, j->id, 8);
	jt_le(p + 8, j->kind, 4);
	jt_le(p + 12, j->priority, 4);
	jt_le(p + 16, j->log_size, 4);
	jt_le(p + 20, j->nparts, 4);
	jt_le(p + 24, j->seed_len, 4);
	memcpy(p + 28, j->seed, j->seed_len <= 32 ? j->seed_len : 32);
	jt_le(p + 60, j->submit_wall_ns, 8);
	if (v1)
		return jt_rec(out, "PVJR", 1, 1, 68, p);
	jt_le(p + 68, j->uid, 4);
	return jt_rec(out, "PVJR", 2, 1, 72, p);
}

static size_t jt_submit_rec(uint8_t *out, const struct journal_job *j)
{
	return jt_submit_rec_v(out, j, 0);
}

static size_t jt_end_rec(uint8_t *out, uint64_t id, uint32_t state)
{
	uint8_t p[12];

	jt_le(p, id, 8);
	jt_le(p + 8, state, 4);
	return jt_rec(out, "PVJR", 2, 2, 12, p);
}

static size_t jt_hw_rec(uint8_t *out, uint64_t highest)
{
	uint8_t p[8];

	jt_le(p, highest, 8);
	return jt_rec(out, "PVJR", 2, 3, 8, p);
}

/* A valid job with fields drawn from the generator; seed zero-padded. */
static struct journal_job jt_job(uint64_t id, uint64_t *rng)
{
	struct journal_job j;

	memset(&j, 0, sizeof(j));
	j.id = id;
	j.kind = 1 + (uint32_t)(t_rand(rng) % 4);
	j.priority = (uint32_t)(t_rand(rng) % 5);
	j.log_size = 1 + (uint32_t)(t_rand(rng) % 26);
	j.nparts = 1 + (uint32_t)(t_rand(rng) % 64);
	j.seed_len = 1 + (uint32_t)(t_rand(rng) % 32);
	for (uint32_t i = 0; i < j.seed_len; i++)
		j.seed[i] = (uint8_t)t_rand(rng);
	j.submit_wall_ns = t_rand(rng);
	j.uid = (uint32_t)t_rand(rng);
	return j;
}

static void jt_check_job(const struct journal_job *got, const struct journal_job *want)
{
	CHECK_EQ_U64(got->id, want->id);
	CHECK_EQ_U64(got->kind, want->kind);
	CHECK_EQ_U64(got->priority, want->priority);
	CHECK_EQ_U64(got->log_size, want->log_size);
	CHECK_EQ_U64(got->nparts, want->nparts);
	CHECK_EQ_U64(got->seed_len, want->seed_len);
	CHECK(memcmp(got->seed, want->seed, 32) == 0, "job %llu: seed differs",
	      (unsigned long long)want->id);
	CHECK_EQ_U64(got->submit_wall_ns, want->submit_wall_ns);
	CHECK_EQ_U64(got->uid, want->uid);
}

#endif
