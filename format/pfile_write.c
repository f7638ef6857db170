/*
 * pfile_write: the atomic, streaming writer behind every pfile_write_* and
 * the result file's begin/put/commit.
 *
 * Elements are encoded into one buffer and hashed as they are written, so
 * memory stays at 128 KiB whatever the file's size (plus, for a result
 * file, its digest table: 32 bytes a partition, 32 KiB at most).
 * Partition and H files hash header and payload into the one trailing
 * checksum; a result file hashes each put (one partition) into that
 * partition's digest,
 * and at commit writes the table and pfile_result2_sum over header and
 * table, the same helpers a writer that assembles the file piece by piece
 * uses, so both make the same bytes. The file is born as a
 * temp file next to its destination and becomes the destination only by
 * rename, after fsync; the directory is fsynced after the rename, so once
 * commit returns 0 the file survives a crash, and before that a reader sees
 * the old file or none.
 *
 * Everything after the start works relative to one directory fd: the temp
 * file is created O_EXCL | O_NOFOLLOW under a fresh random name, renamed
 * with renameat and the same fd is fsynced, so a directory swapped for a
 * symbolic link meanwhile is not followed. The *_at variants take that fd
 * from the caller (the supervisor's STATE/results, opened O_NOFOLLOW); the
 * path variants open the destination's directory themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "format/pfile_priv.h"

struct pfile_writer {
	int fd, dfd;		/* the temp file; its directory (ours, a dup) */
	char *path;		/* the destination as errors name it */
	char *name, *tmp;	/* destination and temp file, relative to dfd */
	crypto_generichash_state hs;	/* partition, H: everything so far */
	uint8_t hdr[PFILE_HEADER_BYTES];
	uint8_t *table;		/* result: a digest per partition; else NULL */
	uint32_t parts, part;	/* partitions; the next one to put */
	uint64_t left;		/* elements still expected */
	uint64_t per_put;	/* elements per pfile_result_put */
	size_t used;		/* bytes in buf */
	uint8_t buf[PFILE_BUF_ELEMS * FR_BYTES];
};

/* Create a temp file "NAME.tmp.XXXXXX" in dfd: O_EXCL | O_NOFOLLOW, so
 * an existing name (a planted symbolic link included) is never opened,
 * just passed over for another random one. */
static int pfile_tmp_create(struct pfile_writer *w)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(w->tmp);

	for (int tries = 0; tries < 100; tries++) {
		uint8_t r[6];
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			return -errno;
		for (int i = 0; i < 6; i++)
			w->tmp[n - 6 + (size_t)i] = abc[r[i] % (sizeof abc - 1)];
		w->fd = openat(w->dfd, w->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (w->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Open a temp file next to the destination and write the header. The
 * destination is name in dfd, or, with dfd < 0, path (its directory is
 * opened here). path names the destination in errors either way. */
static int pfile_writer_open(int dfd, const char *name, const char *path, const struct pfile_hdr *h,
			     struct pfile_writer **wp, char *err, size_t errlen)
{
	struct pfile_writer *w;
	const char *slash;
	int rc;

	pfile_sodium_init();
	w = calloc(1, sizeof *w);
	if (!w)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	w->fd = w->dfd = -1;
	w->path = strdup(path);
	if (h->kind == PFILE_KIND_RESULT) {
		w->parts = h->word56;
		w->table = calloc(w->parts, PFILE_SUM_BYTES);
		if (!w->table) {
			rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
			goto fail;
		}
	}
	if (dfd < 0) {
		char *dir = NULL;
		slash = strrchr(path, '/');
		name = slash ? slash + 1 : path;
		if (!slash)
			dir = strdup(".");
		else if (slash == path)
			dir = strdup("/");
		else
			dir = strndup(path, (size_t)(slash - path));
		if (!dir || !w->path) {
			free(dir);
			rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
			goto fail;
		}
		w->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rc = -errno;
		free(dir);
	} else {
		w->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
		rc = -errno;
	}
	if (w->dfd < 0) {
		util_fail(err, errlen, rc, "%s: cannot create temp file: directory: %s", path,
			  strerror(-rc));
		goto fail;
	}
	if (!w->path || !(w->name = strdup(name)) || asprintf(&w->tmp, "%s.tmp.XXXXXX", name) < 0) {
		w->tmp = NULL;
		rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if ((rc = pfile_tmp_create(w))) {
		util_fail(err, errlen, rc, "%s: cannot create temp file: %s", path, strerror(-rc));
		free(w->tmp);
		w->tmp = NULL;	/* nothing to unlink */
		goto fail;
	}
	/* Created 0600 (never wider, whatever the umask); these files are
	 * meant to be shared. */
	(void)fchmod(w->fd, 0644);
	crypto_generichash_init(&w->hs, NULL, 0, PFILE_SUM_BYTES);
	pfile_hdr_encode(w->hdr, h);
	crypto_generichash_update(&w->hs, w->hdr, sizeof w->hdr);
	rc = pfile_write_full(w->fd, w->hdr, sizeof w->hdr);
	if (rc) {
		util_fail(err, errlen, rc, "%s.tmp: write failed: %s", w->path, strerror(-rc));
		goto fail;
	}
	w->left = h->count;
	w->per_put = (uint64_t)1 << h->k;
	*wp = w;
	return 0;
fail:
	pfile_result_abort(w);
	return rc;
}

static int pfile_writer_flush(struct pfile_writer *w, char *err, size_t errlen)
{
	int rc;

	if (!w->used)
		return 0;
	if (!w->table)
		crypto_generichash_update(&w->hs, w->buf, w->used);
	rc = pfile_write_full(w->fd, w->buf, w->used);
	w->used = 0;
	if (rc)
		return util_fail(err, errlen, rc, "%s.tmp: write failed: %s", w->path, strerror(-rc));
	return 0;
}

/*
 * Append n elements, given either as fr_t (el) or as encodings (raw). In
 * a result file a put is one partition: its bytes go into its digest
 * each time the buffer fills and at the end, and the digest into the
 * table. Encodings are all checked before any is taken, so a refused put
 * leaves the writer as it was.
 */
static int pfile_writer_put(struct pfile_writer *w, const fr_t *el, const uint8_t *raw,
			    uint64_t n, char *err, size_t errlen)
{
	struct pfile_digest d;
	size_t from = w->used;	/* this put's first byte in buf */
	int tab = w->table != NULL, rc;

	if (n > w->left)
		return util_fail(err, errlen, -EINVAL, "%s: more elements than the header announces", w->path);
	for (uint64_t i = 0; raw && i < n; i++) {
		fr_t t;
		if (fr_from_bytes(&t, raw + i * FR_BYTES))
			return util_fail(err, errlen, -EINVAL,
					 "%s: element %llu given to the writer is not canonical",
					 w->path, (unsigned long long)i);
	}
	if (tab)
		pfile_digest_init(&d);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *dst = w->buf + w->used;
		if (el)
			fr_to_bytes(dst, &el[i]);
		else
			memcpy(dst, raw + i * FR_BYTES, FR_BYTES);
		w->used += FR_BYTES;
		if (w->used == sizeof w->buf) {
			if (tab)
				pfile_digest_update(&d, w->buf + from, w->used - from);
			from = 0;
			if ((rc = pfile_writer_flush(w, err, errlen)))
				return rc;
		}
	}
	if (tab) {
		pfile_digest_update(&d, w->buf + from, w->used - from);
		pfile_digest_final(&d, w->table + (size_t)w->part * PFILE_SUM_BYTES);
		w->part++;
	}
	w->left -= n;
	return 0;
}

/* Checksum, fsync, rename over the destination, fsync the directory. */
static int pfile_writer_commit(struct pfile_writer *w, char *err, size_t errlen)
{
	uint8_t sum[PFILE_SUM_BYTES];
	int rc;

	if (w->left)
		return util_fail(err, errlen, -EINVAL, "%s: %llu elements missing at commit",
				 w->path, (unsigned long long)w->left);
	if ((rc = pfile_writer_flush(w, err, errlen)))
		return rc;
	if (w->table) {
		if ((rc = pfile_write_full(w->fd, w->table, (size_t)w->parts * PFILE_SUM_BYTES)))
			return util_fail(err, errlen, rc, "%s.tmp: write failed: %s", w->path,
					 strerror(-rc));
		pfile_result2_sum(w->hdr, w->table, w->parts, sum);
	} else {
		crypto_generichash_final(&w->hs, sum, sizeof sum);
	}
	if ((rc = pfile_write_full(w->fd, sum, sizeof sum)))
		return util_fail(err, errlen, rc, "%s.tmp: write failed: %s", w->path, strerror(-rc));
	if (fsync(w->fd) < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s.tmp: fsync failed: %s", w->path, strerror(-rc));
	}
	if (close(w->fd) < 0) {
		rc = -errno;
		w->fd = -1;
		return util_fail(err, errlen, rc, "%s.tmp: close failed: %s", w->path, strerror(-rc));
	}
	w->fd = -1;
	if (renameat(w->dfd, w->tmp, w->dfd, w->name) < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s: rename failed: %s", w->path, strerror(-rc));
	}
	free(w->tmp);
	w->tmp = NULL;	/* renamed: nothing left to clean up */

	/* The rename is durable only once the directory is: the same
	 * directory, by its fd. */
	if (fsync(w->dfd) < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s: fsync of its directory failed: %s", w->path,
				 strerror(-rc));
	}
	return 0;
}

void pfile_result_abort(struct pfile_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp && w->dfd >= 0)
		unlinkat(w->dfd, w->tmp, 0);
	if (w->dfd >= 0)
		close(w->dfd);
	free(w->tmp);
	free(w->name);
	free(w->path);
	free(w->table);
	free(w);
}

/* Header of a partition or H file for id. */
static int pfile_ident_hdr(struct pfile_hdr *h, uint32_t kind, const struct synth_id *id,
			   const char *path, char *err, size_t errlen)
{
	if (synth_id_check(id))
		return util_fail(err, errlen, -EINVAL, "%s: bad identity (seed length %u, k %u)",
				 path, id->seed_len, id->k);
	memset(h, 0, sizeof *h);
	h->version = PFILE_VERSION;
	h->kind = kind;
	h->k = id->k;
	h->seed_len = id->seed_len;
	memcpy(h->seed, id->seed, id->seed_len);
	h->word56 = id->partition;
	h->count = pfile_sections(h) << id->k;
	return 0;
}

static int pfile_write_sections(const char *path, const struct pfile_hdr *h,
				const fr_t *const *sec, char *err, size_t errlen)
{
	struct pfile_writer *w;
	uint64_t n = (uint64_t)1 << h->k;
	int rc = pfile_writer_open(-1, NULL, path, h, &w, err, errlen);

	if (rc)
		return rc;
	for (uint64_t s = 0; s < pfile_sections(h); s++)
		if ((rc = pfile_writer_put(w, sec[s], NULL, n, err, errlen)))
			goto out;
	rc = pfile_writer_commit(w, err, errlen);
out:
	pfile_result_abort(w);
	return rc;
}

int pfile_write_partition(const char *path, const struct synth_id *id,
			  const fr_t *a, const fr_t *b, const fr_t *c,
			  char *err, size_t errlen)
{
	const fr_t *sec[3] = { a, b, c };
	struct pfile_hdr h;
	int rc = pfile_ident_hdr(&h, PFILE_KIND_PARTITION, id, path, err, errlen);

	return rc ? rc : pfile_write_sections(path, &h, sec, err, errlen);
}

int pfile_write_h(const char *path, const struct synth_id *id, const fr_t *hv,
		  char *err, size_t errlen)
{
	const fr_t *sec[1] = { hv };
	struct pfile_hdr h;
	int rc = pfile_ident_hdr(&h, PFILE_KIND_H, id, path, err, errlen);

	return rc ? rc : pfile_write_sections(path, &h, sec, err, errlen);
}

int pfile_result_begin(const char *path, const struct pfile_result *res,
		       struct pfile_writer **w, char *err, size_t errlen)
{
	return pfile_result_beginat(-1, NULL, path, res, w, err, errlen);
}

int pfile_result_beginat(int dfd, const char *name, const char *path,
			 const struct pfile_result *res, struct pfile_writer **w,
			 char *err, size_t errlen)
{
	struct pfile_hdr h;

	if (synth_id_check(&res->id) || !vocab_kind_name(res->job_kind) ||
	    res->partitions < 1 || res->partitions > PFILE_RESULT_MAX_PARTITIONS ||
	    (res->version && res->version != PFILE_VERSION))
		return util_fail(err, errlen, -EINVAL,
				 "%s: bad result (seed length %u, k %u, job kind %u, %u partitions, "
				 "version %u)", path, res->id.seed_len, res->id.k, res->job_kind,
				 res->partitions, res->version);
	pfile_result_hdr(&h, res, PFILE_VERSION);
	return pfile_writer_open(dfd, name, path, &h, w, err, errlen);
}

int pfile_result_put(struct pfile_writer *w, const fr_t *h, char *err, size_t errlen)
{
	return pfile_writer_put(w, h, NULL, w->per_put, err, errlen);
}

int pfile_result_put_bytes(struct pfile_writer *w, const uint8_t *h, char *err, size_t errlen)
{
	return pfile_writer_put(w, NULL, h, w->per_put, err, errlen);
}

int pfile_result_commit(struct pfile_writer *w, char *err, size_t errlen)
{
	int rc = pfile_writer_commit(w, err, errlen);

	pfile_result_abort(w);
	return rc;
}
