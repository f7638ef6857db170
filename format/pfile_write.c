/*
 * pfile_write: the atomic, streaming writer behind every pfile_write_* and
 * the result file's begin/put/commit.
 *
 * Elements are encoded into one buffer and hashed as they are written, so
 * memory stays at 128 KiB whatever the file's size. The file is born as a
 * temp file next to its destination and becomes the destination only by
 * rename, after fsync; the directory is fsynced after the rename, so once
 * commit returns 0 the file survives a crash, and before that a reader sees
 * the old file or none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "format/pfile_priv.h"

struct pfile_writer {
	int fd;
	char *path, *tmp;
	crypto_generichash_state hs;
	uint64_t left;		/* elements still expected */
	uint64_t per_put;	/* elements per pfile_result_put */
	size_t used;		/* bytes in buf */
	uint8_t buf[PFILE_BUF_ELEMS * FR_BYTES];
};

/* Open a temp file next to path and write the header. */
static int pfile_writer_open(const char *path, const struct pfile_hdr *h,
			     struct pfile_writer **wp, char *err, size_t errlen)
{
	uint8_t hdr[PFILE_HEADER_BYTES];
	struct pfile_writer *w;
	int rc;

	pfile_sodium_init();
	w = calloc(1, sizeof *w);
	if (!w)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.tmp.XXXXXX", path) < 0) {
		w->tmp = NULL;
		rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		rc = -errno;
		util_fail(err, errlen, rc, "%s: cannot create temp file: %s", path, strerror(-rc));
		free(w->tmp);
		w->tmp = NULL;	/* nothing to unlink */
		goto fail;
	}
	/* mkstemp makes 0600; these files are meant to be shared. */
	(void)fchmod(w->fd, 0644);
	crypto_generichash_init(&w->hs, NULL, 0, PFILE_SUM_BYTES);
	pfile_hdr_encode(hdr, h);
	crypto_generichash_update(&w->hs, hdr, sizeof hdr);
	rc = pfile_write_full(w->fd, hdr, sizeof hdr);
	if (rc) {
		util_fail(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
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
	crypto_generichash_update(&w->hs, w->buf, w->used);
	rc = pfile_write_full(w->fd, w->buf, w->used);
	w->used = 0;
	if (rc)
		return util_fail(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
	return 0;
}

/* Append n elements, given either as fr_t (el) or as encodings (raw). */
static int pfile_writer_put(struct pfile_writer *w, const fr_t *el, const uint8_t *raw,
			    uint64_t n, char *err, size_t errlen)
{
	int rc;

	if (n > w->left)
		return util_fail(err, errlen, -EINVAL, "%s: more elements than the header announces", w->path);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *dst = w->buf + w->used;
		if (el) {
			fr_to_bytes(dst, &el[i]);
		} else {
			fr_t t;
			if (fr_from_bytes(&t, raw + i * FR_BYTES))
				return util_fail(err, errlen, -EINVAL,
						 "%s: element %llu given to the writer is not canonical",
						 w->path, (unsigned long long)i);
			memcpy(dst, raw + i * FR_BYTES, FR_BYTES);
		}
		w->used += FR_BYTES;
		if (w->used == sizeof w->buf && (rc = pfile_writer_flush(w, err, errlen)))
			return rc;
	}
	w->left -= n;
	return 0;
}

/* Checksum, fsync, rename over the destination, fsync the directory. */
static int pfile_writer_commit(struct pfile_writer *w, char *err, size_t errlen)
{
	uint8_t sum[PFILE_SUM_BYTES];
	char *dir = NULL, *slash;
	int rc, dfd;

	if (w->left)
		return util_fail(err, errlen, -EINVAL, "%s: %llu elements missing at commit",
				 w->path, (unsigned long long)w->left);
	if ((rc = pfile_writer_flush(w, err, errlen)))
		return rc;
	crypto_generichash_final(&w->hs, sum, sizeof sum);
	if ((rc = pfile_write_full(w->fd, sum, sizeof sum)))
		return util_fail(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
	if (fsync(w->fd) < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s: fsync failed: %s", w->tmp, strerror(-rc));
	}
	if (close(w->fd) < 0) {
		rc = -errno;
		w->fd = -1;
		return util_fail(err, errlen, rc, "%s: close failed: %s", w->tmp, strerror(-rc));
	}
	w->fd = -1;
	if (rename(w->tmp, w->path) < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s: rename failed: %s", w->path, strerror(-rc));
	}
	free(w->tmp);
	w->tmp = NULL;	/* renamed: nothing left to clean up */

	/* The rename is durable only once the directory is. */
	dir = strdup(w->path);
	if (!dir)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", w->path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0) {
		rc = -errno;
		util_fail(err, errlen, rc, "%s: fsync of directory %s failed: %s", w->path, dir, strerror(-rc));
		if (dfd >= 0)
			close(dfd);
		free(dir);
		return rc;
	}
	close(dfd);
	free(dir);
	return 0;
}

void pfile_result_abort(struct pfile_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
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
	int rc = pfile_writer_open(path, h, &w, err, errlen);

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
	struct pfile_hdr h;

	if (synth_id_check(&res->id) || !vocab_kind_name(res->job_kind) ||
	    res->partitions < 1 || res->partitions > PFILE_RESULT_MAX_PARTITIONS)
		return util_fail(err, errlen, -EINVAL,
				 "%s: bad result (seed length %u, k %u, job kind %u, %u partitions)",
				 path, res->id.seed_len, res->id.k, res->job_kind, res->partitions);
	memset(&h, 0, sizeof h);
	h.version = PFILE_VERSION;
	h.kind = PFILE_KIND_RESULT;
	h.k = res->id.k;
	h.seed_len = res->id.seed_len;
	memcpy(h.seed, res->id.seed, res->id.seed_len);
	h.word56 = res->partitions;
	h.job_kind = res->job_kind;
	h.job_id = res->job_id;
	h.count = (uint64_t)res->partitions << res->id.k;
	return pfile_writer_open(path, &h, w, err, errlen);
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
