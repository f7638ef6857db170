/*
 * pfile_read: the validating readers. Every check of docs/formats.md
 * happens before the caller sees an element: header fields and the exact
 * file length first (so no header can make us allocate more than the file
 * justifies), then one streaming pass that hashes the payload and refuses
 * a non-canonical element, then the checksum. A result file swaps the
 * last two steps: its checksum covers only header and digest
 * table, so it is checked first (at most 32 KiB read), and the stream
 * then holds each partition's bytes to that table's entry as the
 * partition ends.
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

struct pfile_reader {
	int fd;
	char *path;
	struct pfile_hdr h;
	uint64_t n;		/* elements per section */
	uint8_t *table;		/* the digests, as validated by open */
};

/* path, or (dfd >= 0) name in dfd without following a symbolic link. */
static int pfile_openat_fd(int dfd, const char *name, const char *path, int *fd, char *err,
			   size_t errlen)
{
	int rc = dfd >= 0 ? util_openat_regular(dfd, name, path, O_NOFOLLOW, err, errlen) :
			    util_open_regular(path, 0, err, errlen);

	if (rc < 0)
		return rc;
	*fd = rc;
	return 0;
}

static int pfile_open_fd(const char *path, int *fd, char *err, size_t errlen)
{
	return pfile_openat_fd(-1, NULL, path, fd, err, errlen);
}

/*
 * Read and validate the header of fd: magic, version, kind (== want, or
 * any known kind when want is 0), and, unless header_only, every field and
 * the exact file length the header implies.
 */
int pfile_read_hdr(int fd, const char *path, uint32_t want, int header_only,
		   struct pfile_hdr *h, char *err, size_t errlen)
{
	uint8_t raw[PFILE_HEADER_BYTES];
	struct stat st;
	uint64_t size, expect, n;
	ssize_t got;

	if (fstat(fd, &st) < 0) {
		int rc = -errno;
		return util_fail(err, errlen, rc, "%s: cannot stat: %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode))
		return util_fail(err, errlen, -EINVAL, "%s: not a regular file", path);
	size = (uint64_t)st.st_size;
	got = pread(fd, raw, sizeof raw, 0);
	if (got < 0) {
		int rc = -errno;
		return util_fail(err, errlen, rc, "%s: read failed: %s", path, strerror(-rc));
	}
	if (size == 0)
		return util_fail(err, errlen, -EINVAL, "%s: empty file", path);
	if (memcmp(raw, PFILE_MAGIC, got < 8 ? (size_t)got : 8))
		return util_fail(err, errlen, -EINVAL, "%s: bad magic: not a provisor file", path);
	if (got < PFILE_HEADER_BYTES)
		return util_fail(err, errlen, -EINVAL,
				 "%s: truncated: %zd bytes, shorter than the %d-byte header",
				 path, got, PFILE_HEADER_BYTES);
	pfile_hdr_decode(h, raw);
	if (h->version >= 1 && h->version <= PFILE_VERSION_CIRCUIT1)
		return util_fail(err, errlen, -EINVAL,
				 "%s: format version %u (circuit v1) is no longer accepted: %s with "
				 "this provisor", path, h->version,
				 pfile_kind_is_job(h->kind) ? "run the job again" : "re-synthesize");
	if (h->version != PFILE_VERSION)
		return util_fail(err, errlen, -EINVAL,
				 "%s: unsupported format version %u (this provisor reads version %d)",
				 path, h->version, PFILE_VERSION);
	if (h->kind < PFILE_KIND_PARTITION || h->kind > PFILE_KIND_PROOFS_H)
		return util_fail(err, errlen, -EINVAL, "%s: unknown file kind %u", path, h->kind);
	if (want && h->kind != want)
		return util_fail(err, errlen, -EINVAL, "%s: is %s, expected %s", path,
				 pfile_kind_names[h->kind], pfile_kind_names[want]);
	if (header_only)
		return 0;

	if (h->k < SYNTH_LOG_MIN || h->k > VOCAB_LOG_MAX)
		return util_fail(err, errlen, -EINVAL, "%s: log size k = %u out of range %d..%d",
				 path, h->k, SYNTH_LOG_MIN, VOCAB_LOG_MAX);
	if (h->seed_len < 1 || h->seed_len > SYNTH_SEED_MAX)
		return util_fail(err, errlen, -EINVAL, "%s: seed length %u out of range 1..%d",
				 path, h->seed_len, SYNTH_SEED_MAX);
	for (uint32_t i = h->seed_len; i < SYNTH_SEED_MAX; i++)
		if (h->seed[i])
			return util_fail(err, errlen, -EINVAL,
					 "%s: seed padding after byte %u is not zero", path, h->seed_len);
	if (pfile_kind_is_job(h->kind)) {
		if (h->word56 < 1 || h->word56 > PFILE_RESULT_MAX_PARTITIONS)
			return util_fail(err, errlen, -EINVAL,
					 "%s: partition count %u out of range 1..%d",
					 path, h->word56, PFILE_RESULT_MAX_PARTITIONS);
		if (!vocab_kind_name(h->job_kind))
			return util_fail(err, errlen, -EINVAL, "%s: unknown job kind %u", path, h->job_kind);
	} else if (h->job_kind || h->job_id) {
		return util_fail(err, errlen, -EINVAL, "%s: reserved header bytes 60..71 are not zero", path);
	}
	n = pfile_kind_has_proofs(h->kind) ? 1 : (uint64_t)1 << h->k;	/* proofs count themselves */
	if (pfile_kind_has_proofs(h->kind) && h->count != h->word56)
		return util_fail(err, errlen, -EINVAL,
				 "%s: size mismatch: header counts %llu proofs for %u partitions",
				 path, (unsigned long long)h->count, h->word56);
	if (h->count != pfile_sections(h) * n)
		return util_fail(err, errlen, -EINVAL,
				 "%s: size mismatch: header counts %llu elements, k = %u implies %llu",
				 path, (unsigned long long)h->count, h->k,
				 (unsigned long long)(pfile_sections(h) * n));
	/* k <= VOCAB_LOG_MAX (27) and at most 1024 sections: no overflow. */
	if (pfile_kind_is_job(h->kind))
		expect = pfile_res_size(h->kind, h->k, h->word56);
	else
		expect = PFILE_HEADER_BYTES + h->count * FR_BYTES + PFILE_SUM_BYTES;
	if (size < expect)
		return util_fail(err, errlen, -EINVAL, "%s: truncated: %llu bytes, header implies %llu",
				 path, (unsigned long long)size, (unsigned long long)expect);
	if (size > expect)
		return util_fail(err, errlen, -EINVAL,
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
 * A result file's table and checksum: read both (pread, the
 * file offset stays), and check the checksum over the validated header
 * bytes and the table. On success table holds the P digests.
 */
int pfile_table2(int fd, const char *path, const struct pfile_hdr *h, uint8_t *table,
		 char *err, size_t errlen)
{
	uint8_t sum[PFILE_SUM_BYTES], want[PFILE_SUM_BYTES];
	size_t len = (size_t)h->word56 * PFILE_SUM_BYTES;
	off_t off = (off_t)pfile_res_table_off(h->kind, h->k, h->word56);
	ssize_t got = pread(fd, table, len, off);

	if (got == (ssize_t)len)
		got = pread(fd, sum, sizeof sum, off + (off_t)len);
	else if (got >= 0)
		got = 0;
	if (got != (ssize_t)sizeof sum) {
		int rc = got < 0 ? -errno : -EINVAL;
		return util_fail(err, errlen, rc, "%s: %s", path,
				 got < 0 ? strerror(-rc)
					 : "truncated while reading the digest table (file shrank)");
	}
	pfile_result2_sum(h->raw, table, h->word56, want);
	if (memcmp(sum, want, sizeof sum))
		return util_fail(err, errlen, -EINVAL,
				 "%s: checksum mismatch: the header or the digest table is corrupt",
				 path);
	return 0;
}

/*
 * Check that payload elements i .. i+m, whose encodings are at buf, are
 * canonical, decoding element i into dst[i / n][i % n] when dst is given;
 * why ends the error line.
 */
static int pfile_check_elems(const char *path, const struct pfile_hdr *h, const uint8_t *buf,
			     uint64_t i, uint64_t m, fr_t *const *dst, const char *why,
			     char *err, size_t errlen)
{
	uint64_t n = (uint64_t)1 << h->k;
	char name[64];

	for (uint64_t j = 0; j < m; j++, i++) {
		fr_t t, *to = dst ? &dst[i / n][i % n] : &t;
		if (fr_from_bytes(to, buf + j * FR_BYTES)) {
			pfile_elem_name(h, i, name, sizeof name);
			return util_fail(err, errlen, -EINVAL,
					 "%s: element %s at offset %llu is not canonical (%s)",
					 path, name,
					 (unsigned long long)(PFILE_HEADER_BYTES + i * FR_BYTES), why);
		}
	}
	return 0;
}

static int pfile_digest_mismatch(const char *path, const struct pfile_hdr *h, uint64_t p,
				 const char *why, char *err, size_t errlen)
{
	return util_fail(err, errlen, -EINVAL,
			 "%s: partition %llu's H does not match its digest (table entry at offset "
			 "%llu%s)", path, (unsigned long long)p,
			 (unsigned long long)(pfile_result2_table_off(h->k, h->word56) +
					      p * PFILE_SUM_BYTES), why);
}

/*
 * Stream the payload after the header: check every element is canonical
 * and decode element i into dst[i / n][i % n] when dst is given.
 * Partition and H files: hash header and payload, then compare the
 * checksum. Result files (table given): the checksum over header and table first,
 * then each partition's bytes against its digest as the partition ends;
 * a buffer may hold several partitions (small k) or part of one.
 */
static int pfile_stream(int fd, const char *path, const struct pfile_hdr *h,
			fr_t *const *dst, uint8_t *table, char *err, size_t errlen)
{
	uint8_t sum[PFILE_SUM_BYTES], want[PFILE_SUM_BYTES];
	crypto_generichash_state hs;
	struct pfile_digest d;
	uint64_t n = (uint64_t)1 << h->k;
	int tab = h->kind == PFILE_KIND_RESULT;	/* the result2 layout: a digest table */
	uint8_t *buf;
	int rc = 0;

	pfile_sodium_init();
	if (tab && (rc = pfile_table2(fd, path, h, table, err, errlen)))
		return rc;
	buf = malloc(PFILE_BUF_ELEMS * FR_BYTES);
	if (!buf)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	if (lseek(fd, PFILE_HEADER_BYTES, SEEK_SET) < 0) {
		rc = -errno;
		util_fail(err, errlen, rc, "%s: seek failed: %s", path, strerror(-rc));
		goto out;
	}
	/* The header bytes that were validated, not a second read of them. */
	crypto_generichash_init(&hs, NULL, 0, PFILE_SUM_BYTES);
	crypto_generichash_update(&hs, h->raw, sizeof h->raw);
	pfile_digest_init(&d);
	for (uint64_t i = 0; i < h->count;) {
		uint64_t m = h->count - i < PFILE_BUF_ELEMS ? h->count - i : PFILE_BUF_ELEMS;
		rc = pfile_read_full(fd, buf, m * FR_BYTES);
		if (rc) {
			rc = util_fail(err, errlen, rc == -ENODATA ? -EINVAL : rc, "%s: %s", path,
				       rc == -ENODATA ? "truncated while reading (file shrank)"
						      : strerror(-rc));
			goto out;
		}
		if (!tab) {
			crypto_generichash_update(&hs, buf, m * FR_BYTES);
			if ((rc = pfile_check_elems(path, h, buf, i, m, dst, ">= r", err, errlen)))
				goto out;
			i += m;
			continue;
		}
		/* A result file: up to each partition's end at a time. */
		for (uint64_t j = 0; j < m;) {
			uint64_t run = n - i % n < m - j ? n - i % n : m - j;
			if ((rc = pfile_check_elems(path, h, buf + j * FR_BYTES, i, run, dst, ">= r",
						    err, errlen)))
				goto out;
			pfile_digest_update(&d, buf + j * FR_BYTES, run * FR_BYTES);
			i += run;
			j += run;
			if (i % n == 0) {
				pfile_digest_final(&d, want);
				if (memcmp(want, table + (i / n - 1) * PFILE_SUM_BYTES, sizeof want)) {
					rc = pfile_digest_mismatch(path, h, i / n - 1, "", err, errlen);
					goto out;
				}
				pfile_digest_init(&d);
			}
		}
	}
	if (tab)
		goto out;
	rc = pfile_read_full(fd, sum, sizeof sum);
	if (rc) {
		rc = util_fail(err, errlen, -EINVAL, "%s: truncated while reading the checksum", path);
		goto out;
	}
	crypto_generichash_final(&hs, want, sizeof want);
	if (memcmp(sum, want, sizeof sum))
		rc = util_fail(err, errlen, -EINVAL,
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
			rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory for 2^%u elements",
				       path, h.k);
			goto fail;
		}
	}
	if ((rc = pfile_stream(fd, path, &h, out, NULL, err, errlen)))
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
	return pfile_result_openat(-1, NULL, path, res, rp, err, errlen);
}

int pfile_result_openat(int dfd, const char *name, const char *path, struct pfile_result *res,
			struct pfile_reader **rp, char *err, size_t errlen)
{
	struct pfile_reader *r;
	int rc;

	r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	if ((rc = pfile_openat_fd(dfd, name, path, &r->fd, err, errlen))) {
		r->fd = -1;
		goto fail;
	}
	if ((rc = pfile_read_hdr(r->fd, path, PFILE_KIND_RESULT, 0, &r->h, err, errlen)))
		goto fail;
	if (!(r->table = malloc((size_t)r->h.word56 * PFILE_SUM_BYTES))) {
		rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if ((rc = pfile_stream(r->fd, path, &r->h, NULL, r->table, err, errlen)))
		goto fail;
	r->n = (uint64_t)1 << r->h.k;
	memset(res, 0, sizeof *res);
	res->version = r->h.version;
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
	static const char why[] = "file changed after validation";
	uint8_t *buf, want[PFILE_SUM_BYTES];
	struct pfile_digest d;
	uint64_t base;
	int rc = 0;

	if (p >= r->h.word56)
		return util_fail(err, errlen, -EINVAL, "%s: no partition %u (the job has %u)",
				 r->path, p, r->h.word56);
	buf = malloc(PFILE_BUF_ELEMS * FR_BYTES);
	if (!buf)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", r->path);
	base = (uint64_t)p * r->n;
	pfile_digest_init(&d);
	for (uint64_t i = 0; i < r->n;) {
		uint64_t m = r->n - i < PFILE_BUF_ELEMS ? r->n - i : PFILE_BUF_ELEMS;
		off_t off = (off_t)(PFILE_HEADER_BYTES + (base + i) * FR_BYTES);
		ssize_t got = pread(r->fd, buf, m * FR_BYTES, off);
		if (got != (ssize_t)(m * FR_BYTES)) {
			rc = util_fail(err, errlen, got < 0 ? -errno : -EINVAL,
				       "%s: partition %u: %s", r->path, p,
				       got < 0 ? strerror(errno) : "truncated (file changed after validation)");
			goto out;
		}
		for (uint64_t j = 0; j < m; j++, i++)
			if (fr_from_bytes(&h[i], buf + j * FR_BYTES)) {
				rc = pfile_check_elems(r->path, &r->h, buf + j * FR_BYTES, base + i, 1,
						       NULL, why, err, errlen);
				goto out;
			}
		pfile_digest_update(&d, buf, m * FR_BYTES);
	}
	pfile_digest_final(&d, want);
	if (memcmp(want, r->table + (size_t)p * PFILE_SUM_BYTES, sizeof want))
		rc = pfile_digest_mismatch(r->path, &r->h, p, "; file changed after validation",
					   err, errlen);
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
	free(r->table);
	free(r);
}
