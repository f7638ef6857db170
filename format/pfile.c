/*
 * pfile: reading and writing provisor's files (layout in pfile.h and
 * docs/formats.md).
 *
 * One header codec, one streaming writer and one streaming reader serve
 * all three kinds of file; the kinds differ only in which header fields
 * they use and how the payload splits into sections. Streaming keeps
 * memory at one buffer plus the caller's arrays, and lets the result
 * reader validate a file of many partitions without loading it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "format/pfile.h"

#define PFILE_BUF_ELEMS 4096	/* 128 KiB of encodings per read or write */

/* The header, decoded. Which fields count depends on the kind. */
struct pfile_hdr {
	uint32_t version, kind, k, seed_len, word56, job_kind;
	uint64_t job_id, count;
	uint8_t seed[SYNTH_SEED_MAX];
	uint8_t raw[PFILE_HEADER_BYTES];	/* as read: what the checksum covers */
};

struct pfile_writer {
	int fd;
	char *path, *tmp;
	crypto_generichash_state hs;
	uint64_t left;		/* elements still expected */
	uint64_t per_put;	/* elements per pfile_result_put */
	size_t used;		/* bytes in buf */
	uint8_t buf[PFILE_BUF_ELEMS * FR_BYTES];
};

struct pfile_reader {
	int fd;
	char *path;
	struct pfile_hdr h;
	uint64_t n;		/* elements per section */
};

/* sodium_init picks the fastest BLAKE2b; it is idempotent and thread-safe.
 * Its failure (it does not fail on Linux) would leave the portable code,
 * which computes the same digests, so the result is not needed. */
static void pfile_sodium_init(void)
{
	int rc = sodium_init();

	(void)rc;
}

static const char *const pfile_kind_names[] = {
	[PFILE_KIND_PARTITION] = "a partition file",
	[PFILE_KIND_H] = "an H file",
	[PFILE_KIND_RESULT] = "a job result file",
};

static const char *const pfile_job_names[] = {
	[PFILE_JOB_WINNING_POST] = "winning-post",
	[PFILE_JOB_WINDOW_POST] = "window-post",
	[PFILE_JOB_SNAP_DEALS] = "snap-deals",
	[PFILE_JOB_POREP] = "porep",
};

#define PFILE_NJOBS (sizeof pfile_job_names / sizeof pfile_job_names[0])

static int pfile_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Format the one error line; returns rc so callers can `return pfile_err`. */
static int pfile_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

const char *pfile_job_kind_name(uint32_t kind)
{
	return kind < PFILE_NJOBS ? pfile_job_names[kind] : NULL;
}

int pfile_job_kind_parse(const char *name, uint32_t *kind)
{
	for (uint32_t i = 1; i < PFILE_NJOBS; i++)
		if (!strcmp(name, pfile_job_names[i])) {
			*kind = i;
			return 0;
		}
	return -EINVAL;
}

static void pfile_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void pfile_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t pfile_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t pfile_get64(const uint8_t *p)
{
	return (uint64_t)pfile_get32(p) | (uint64_t)pfile_get32(p + 4) << 32;
}

static void pfile_hdr_encode(uint8_t out[PFILE_HEADER_BYTES], const struct pfile_hdr *h)
{
	memset(out, 0, PFILE_HEADER_BYTES);
	memcpy(out, PFILE_MAGIC, 8);
	pfile_put32(out + 8, h->version);
	pfile_put32(out + 12, h->kind);
	pfile_put32(out + 16, h->k);
	pfile_put32(out + 20, h->seed_len);
	memcpy(out + 24, h->seed, SYNTH_SEED_MAX);
	pfile_put32(out + 56, h->word56);
	pfile_put32(out + 60, h->job_kind);
	pfile_put64(out + 64, h->job_id);
	pfile_put64(out + 72, h->count);
}

static void pfile_hdr_decode(struct pfile_hdr *h, const uint8_t in[PFILE_HEADER_BYTES])
{
	h->version = pfile_get32(in + 8);
	h->kind = pfile_get32(in + 12);
	h->k = pfile_get32(in + 16);
	h->seed_len = pfile_get32(in + 20);
	memcpy(h->seed, in + 24, SYNTH_SEED_MAX);
	memcpy(h->raw, in, PFILE_HEADER_BYTES);
	h->word56 = pfile_get32(in + 56);
	h->job_kind = pfile_get32(in + 60);
	h->job_id = pfile_get64(in + 64);
	h->count = pfile_get64(in + 72);
}

/* Elements per section (2^k) and sections in the payload of h. */
static uint64_t pfile_sections(const struct pfile_hdr *h)
{
	switch (h->kind) {
	case PFILE_KIND_PARTITION: return 3;
	case PFILE_KIND_H: return 1;
	default: return h->word56;	/* result: partitions */
	}
}

/* Read exactly len bytes at the current offset: 0, -errno, or -ENODATA
 * at end of file (the file shrank after it was measured). */
static int pfile_read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ENODATA;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int pfile_write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = write(fd, p, len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

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
		return pfile_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	w->fd = -1;
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.tmp.XXXXXX", path) < 0) {
		w->tmp = NULL;
		rc = pfile_err(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		rc = -errno;
		pfile_err(err, errlen, rc, "%s: cannot create temp file: %s", path, strerror(-rc));
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
		pfile_err(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
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
		return pfile_err(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
	return 0;
}

/* Append n elements, given either as fr_t (el) or as encodings (raw). */
static int pfile_writer_put(struct pfile_writer *w, const fr_t *el, const uint8_t *raw,
			    uint64_t n, char *err, size_t errlen)
{
	int rc;

	if (n > w->left)
		return pfile_err(err, errlen, -EINVAL, "%s: more elements than the header announces", w->path);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *dst = w->buf + w->used;
		if (el) {
			fr_to_bytes(dst, &el[i]);
		} else {
			fr_t t;
			if (fr_from_bytes(&t, raw + i * FR_BYTES))
				return pfile_err(err, errlen, -EINVAL,
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
		return pfile_err(err, errlen, -EINVAL, "%s: %llu elements missing at commit",
				 w->path, (unsigned long long)w->left);
	if ((rc = pfile_writer_flush(w, err, errlen)))
		return rc;
	crypto_generichash_final(&w->hs, sum, sizeof sum);
	if ((rc = pfile_write_full(w->fd, sum, sizeof sum)))
		return pfile_err(err, errlen, rc, "%s: write failed: %s", w->tmp, strerror(-rc));
	if (fsync(w->fd) < 0) {
		rc = -errno;
		return pfile_err(err, errlen, rc, "%s: fsync failed: %s", w->tmp, strerror(-rc));
	}
	if (close(w->fd) < 0) {
		rc = -errno;
		w->fd = -1;
		return pfile_err(err, errlen, rc, "%s: close failed: %s", w->tmp, strerror(-rc));
	}
	w->fd = -1;
	if (rename(w->tmp, w->path) < 0) {
		rc = -errno;
		return pfile_err(err, errlen, rc, "%s: rename failed: %s", w->path, strerror(-rc));
	}
	free(w->tmp);
	w->tmp = NULL;	/* renamed: nothing left to clean up */

	/* The rename is durable only once the directory is. */
	dir = strdup(w->path);
	if (!dir)
		return pfile_err(err, errlen, -ENOMEM, "%s: out of memory", w->path);
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
		pfile_err(err, errlen, rc, "%s: fsync of directory %s failed: %s", w->path, dir, strerror(-rc));
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
		return pfile_err(err, errlen, -EINVAL, "%s: bad identity (seed length %u, k %u)",
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

	if (synth_id_check(&res->id) || !pfile_job_kind_name(res->job_kind) ||
	    res->partitions < 1 || res->partitions > PFILE_RESULT_MAX_PARTITIONS)
		return pfile_err(err, errlen, -EINVAL,
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

/* ---- reading ---------------------------------------------------------- */

static int pfile_open_fd(const char *path, int *fd, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; the regular
	 * file check comes next, and the flag means nothing for those. */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		int rc = -errno;
		return pfile_err(err, errlen, rc, "%s: cannot open: %s", path, strerror(-rc));
	}
	return 0;
}

/*
 * Read and validate the header of fd: magic, version, kind (== want, or
 * any known kind when want is 0), and, unless header_only, every field and
 * the exact file length the header implies.
 */
static int pfile_read_hdr(int fd, const char *path, uint32_t want, int header_only,
			  struct pfile_hdr *h, char *err, size_t errlen)
{
	uint8_t raw[PFILE_HEADER_BYTES];
	struct stat st;
	uint64_t size, expect, n;
	ssize_t got;

	if (fstat(fd, &st) < 0) {
		int rc = -errno;
		return pfile_err(err, errlen, rc, "%s: cannot stat: %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode))
		return pfile_err(err, errlen, -EINVAL, "%s: not a regular file", path);
	size = (uint64_t)st.st_size;
	got = pread(fd, raw, sizeof raw, 0);
	if (got < 0) {
		int rc = -errno;
		return pfile_err(err, errlen, rc, "%s: read failed: %s", path, strerror(-rc));
	}
	if (size == 0)
		return pfile_err(err, errlen, -EINVAL, "%s: empty file", path);
	if (memcmp(raw, PFILE_MAGIC, got < 8 ? (size_t)got : 8))
		return pfile_err(err, errlen, -EINVAL, "%s: bad magic: not a provisor file", path);
	if (got < PFILE_HEADER_BYTES)
		return pfile_err(err, errlen, -EINVAL,
				 "%s: truncated: %zd bytes, shorter than the %d-byte header",
				 path, got, PFILE_HEADER_BYTES);
	pfile_hdr_decode(h, raw);
	if (h->version != PFILE_VERSION)
		return pfile_err(err, errlen, -EINVAL,
				 "%s: unsupported format version %u (this provisor reads version %d)",
				 path, h->version, PFILE_VERSION);
	if (h->kind < PFILE_KIND_PARTITION || h->kind > PFILE_KIND_RESULT)
		return pfile_err(err, errlen, -EINVAL, "%s: unknown file kind %u", path, h->kind);
	if (want && h->kind != want)
		return pfile_err(err, errlen, -EINVAL, "%s: is %s, expected %s", path,
				 pfile_kind_names[h->kind], pfile_kind_names[want]);
	if (header_only)
		return 0;

	if (h->k < SYNTH_LOG_MIN || h->k > SYNTH_LOG_MAX)
		return pfile_err(err, errlen, -EINVAL, "%s: log size k = %u out of range %d..%d",
				 path, h->k, SYNTH_LOG_MIN, SYNTH_LOG_MAX);
	if (h->seed_len < 1 || h->seed_len > SYNTH_SEED_MAX)
		return pfile_err(err, errlen, -EINVAL, "%s: seed length %u out of range 1..%d",
				 path, h->seed_len, SYNTH_SEED_MAX);
	for (uint32_t i = h->seed_len; i < SYNTH_SEED_MAX; i++)
		if (h->seed[i])
			return pfile_err(err, errlen, -EINVAL,
					 "%s: seed padding after byte %u is not zero", path, h->seed_len);
	if (h->kind == PFILE_KIND_RESULT) {
		if (h->word56 < 1 || h->word56 > PFILE_RESULT_MAX_PARTITIONS)
			return pfile_err(err, errlen, -EINVAL,
					 "%s: partition count %u out of range 1..%d",
					 path, h->word56, PFILE_RESULT_MAX_PARTITIONS);
		if (!pfile_job_kind_name(h->job_kind))
			return pfile_err(err, errlen, -EINVAL, "%s: unknown job kind %u", path, h->job_kind);
	} else if (h->job_kind || h->job_id) {
		return pfile_err(err, errlen, -EINVAL, "%s: reserved header bytes 60..71 are not zero", path);
	}
	n = (uint64_t)1 << h->k;
	if (h->count != pfile_sections(h) * n)
		return pfile_err(err, errlen, -EINVAL,
				 "%s: size mismatch: header counts %llu elements, k = %u implies %llu",
				 path, (unsigned long long)h->count, h->k,
				 (unsigned long long)(pfile_sections(h) * n));
	/* k <= 26 and at most 1024 sections: no overflow. */
	expect = PFILE_HEADER_BYTES + h->count * FR_BYTES + PFILE_SUM_BYTES;
	if (size < expect)
		return pfile_err(err, errlen, -EINVAL, "%s: truncated: %llu bytes, header implies %llu",
				 path, (unsigned long long)size, (unsigned long long)expect);
	if (size > expect)
		return pfile_err(err, errlen, -EINVAL,
				 "%s: size mismatch: %llu bytes, header implies %llu (trailing bytes)",
				 path, (unsigned long long)size, (unsigned long long)expect);
	return 0;
}

/* Name element i of the payload of h for an error message. */
static void pfile_elem_name(const struct pfile_hdr *h, uint64_t i, char *out, size_t len)
{
	uint64_t n = (uint64_t)1 << h->k, s = i / n;

	if (h->kind == PFILE_KIND_PARTITION)
		snprintf(out, len, "%c[%llu]", "abc"[s], (unsigned long long)(i % n));
	else if (h->kind == PFILE_KIND_H)
		snprintf(out, len, "H[%llu]", (unsigned long long)i);
	else
		snprintf(out, len, "partition %llu H[%llu]", (unsigned long long)s,
			 (unsigned long long)(i % n));
}

/*
 * Stream the payload after the header: hash it, check every element is
 * canonical, and decode element i into dst[i / n][i % n] when dst is given;
 * then compare the checksum.
 */
static int pfile_stream(int fd, const char *path, const struct pfile_hdr *h,
			fr_t *const *dst, char *err, size_t errlen)
{
	uint8_t sum[PFILE_SUM_BYTES], want[PFILE_SUM_BYTES];
	crypto_generichash_state hs;
	uint64_t n = (uint64_t)1 << h->k;
	uint8_t *buf;
	char name[64];
	int rc = 0;

	pfile_sodium_init();
	buf = malloc(PFILE_BUF_ELEMS * FR_BYTES);
	if (!buf)
		return pfile_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	if (lseek(fd, PFILE_HEADER_BYTES, SEEK_SET) < 0) {
		rc = -errno;
		pfile_err(err, errlen, rc, "%s: seek failed: %s", path, strerror(-rc));
		goto out;
	}
	/* The header bytes that were validated, not a second read of them. */
	crypto_generichash_init(&hs, NULL, 0, PFILE_SUM_BYTES);
	crypto_generichash_update(&hs, h->raw, sizeof h->raw);
	for (uint64_t i = 0; i < h->count;) {
		uint64_t m = h->count - i < PFILE_BUF_ELEMS ? h->count - i : PFILE_BUF_ELEMS;
		rc = pfile_read_full(fd, buf, m * FR_BYTES);
		if (rc) {
			rc = pfile_err(err, errlen, rc == -ENODATA ? -EINVAL : rc, "%s: %s", path,
				       rc == -ENODATA ? "truncated while reading (file shrank)"
						      : strerror(-rc));
			goto out;
		}
		crypto_generichash_update(&hs, buf, m * FR_BYTES);
		for (uint64_t j = 0; j < m; j++, i++) {
			fr_t t, *to = dst ? &dst[i / n][i % n] : &t;
			if (fr_from_bytes(to, buf + j * FR_BYTES)) {
				pfile_elem_name(h, i, name, sizeof name);
				rc = pfile_err(err, errlen, -EINVAL,
					       "%s: element %s at offset %llu is not canonical (>= r)",
					       path, name,
					       (unsigned long long)(PFILE_HEADER_BYTES + i * FR_BYTES));
				goto out;
			}
		}
	}
	rc = pfile_read_full(fd, sum, sizeof sum);
	if (rc) {
		rc = pfile_err(err, errlen, -EINVAL, "%s: truncated while reading the checksum", path);
		goto out;
	}
	crypto_generichash_final(&hs, want, sizeof want);
	if (memcmp(sum, want, sizeof sum))
		rc = pfile_err(err, errlen, -EINVAL,
			       "%s: checksum mismatch: the file is corrupt", path);
out:
	free(buf);
	return rc;
}

static void pfile_hdr_id(struct synth_id *id, const struct pfile_hdr *h)
{
	memset(id, 0, sizeof *id);
	memcpy(id->seed, h->seed, SYNTH_SEED_MAX);
	id->seed_len = h->seed_len;
	id->k = h->k;
	id->partition = h->kind == PFILE_KIND_RESULT ? 0 : h->word56;
}

/* Read a partition or H file whole into fresh arrays out[0..sections). */
static int pfile_read_ident(const char *path, uint32_t kind, struct synth_id *id,
			    fr_t **out, char *err, size_t errlen)
{
	struct pfile_hdr h;
	uint64_t ns;
	int fd, rc;

	if ((rc = pfile_open_fd(path, &fd, err, errlen)))
		return rc;
	if ((rc = pfile_read_hdr(fd, path, kind, 0, &h, err, errlen)))
		goto out;
	ns = pfile_sections(&h);
	for (uint64_t s = 0; s < ns; s++)
		out[s] = NULL;
	for (uint64_t s = 0; s < ns; s++) {
		out[s] = malloc(sizeof(fr_t) << h.k);
		if (!out[s]) {
			rc = pfile_err(err, errlen, -ENOMEM, "%s: out of memory for 2^%u elements",
				       path, h.k);
			goto fail;
		}
	}
	if ((rc = pfile_stream(fd, path, &h, out, err, errlen)))
		goto fail;
	pfile_hdr_id(id, &h);
	goto out;
fail:
	for (uint64_t s = 0; s < ns; s++) {
		free(out[s]);
		out[s] = NULL;
	}
out:
	close(fd);
	return rc;
}

int pfile_read_partition(const char *path, struct synth_id *id,
			 fr_t **a, fr_t **b, fr_t **c, char *err, size_t errlen)
{
	fr_t *out[3];
	int rc = pfile_read_ident(path, PFILE_KIND_PARTITION, id, out, err, errlen);

	if (!rc) {
		*a = out[0];
		*b = out[1];
		*c = out[2];
	}
	return rc;
}

int pfile_read_h(const char *path, struct synth_id *id, fr_t **hv, char *err, size_t errlen)
{
	return pfile_read_ident(path, PFILE_KIND_H, id, hv, err, errlen);
}

int pfile_probe(const char *path, enum pfile_kind *kind, char *err, size_t errlen)
{
	struct pfile_hdr h;
	int fd, rc;

	if ((rc = pfile_open_fd(path, &fd, err, errlen)))
		return rc;
	rc = pfile_read_hdr(fd, path, 0, 1, &h, err, errlen);
	close(fd);
	if (!rc)
		*kind = (enum pfile_kind)h.kind;
	return rc;
}

int pfile_result_open(const char *path, struct pfile_result *res,
		      struct pfile_reader **rp, char *err, size_t errlen)
{
	struct pfile_reader *r;
	int rc;

	r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return pfile_err(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	if ((rc = pfile_open_fd(path, &r->fd, err, errlen))) {
		r->fd = -1;
		goto fail;
	}
	if ((rc = pfile_read_hdr(r->fd, path, PFILE_KIND_RESULT, 0, &r->h, err, errlen)))
		goto fail;
	if ((rc = pfile_stream(r->fd, path, &r->h, NULL, err, errlen)))
		goto fail;
	r->n = (uint64_t)1 << r->h.k;
	memset(res, 0, sizeof *res);
	res->job_id = r->h.job_id;
	res->job_kind = r->h.job_kind;
	res->partitions = r->h.word56;
	pfile_hdr_id(&res->id, &r->h);
	*rp = r;
	return 0;
fail:
	pfile_result_close(r);
	return rc;
}

int pfile_result_read(struct pfile_reader *r, uint32_t p, fr_t *h, char *err, size_t errlen)
{
	uint8_t *buf;
	uint64_t base;
	char name[64];
	int rc = 0;

	if (p >= r->h.word56)
		return pfile_err(err, errlen, -EINVAL, "%s: no partition %u (the job has %u)",
				 r->path, p, r->h.word56);
	buf = malloc(PFILE_BUF_ELEMS * FR_BYTES);
	if (!buf)
		return pfile_err(err, errlen, -ENOMEM, "%s: out of memory", r->path);
	base = (uint64_t)p * r->n;
	for (uint64_t i = 0; i < r->n;) {
		uint64_t m = r->n - i < PFILE_BUF_ELEMS ? r->n - i : PFILE_BUF_ELEMS;
		off_t off = (off_t)(PFILE_HEADER_BYTES + (base + i) * FR_BYTES);
		ssize_t got = pread(r->fd, buf, m * FR_BYTES, off);
		if (got != (ssize_t)(m * FR_BYTES)) {
			rc = pfile_err(err, errlen, got < 0 ? -errno : -EINVAL,
				       "%s: partition %u: %s", r->path, p,
				       got < 0 ? strerror(errno) : "truncated (file changed after validation)");
			goto out;
		}
		for (uint64_t j = 0; j < m; j++, i++)
			if (fr_from_bytes(&h[i], buf + j * FR_BYTES)) {
				pfile_elem_name(&r->h, base + i, name, sizeof name);
				rc = pfile_err(err, errlen, -EINVAL,
					       "%s: element %s is not canonical (file changed after validation)",
					       r->path, name);
				goto out;
			}
	}
out:
	free(buf);
	return rc;
}

void pfile_result_close(struct pfile_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
}
