/*
 * pfile_proofs: the readers of a job's proofs file (PFILE_KIND_PROOFS)
 * and proofs+H file (PFILE_KIND_PROOFS_H).
 *
 * A proofs file is small (376 bytes a partition), so pfile_proofs_read
 * reads it whole: header and exact size, the checksum over header and
 * digest table, then each region against its table entry. A proofs+H
 * file holds each partition's H after its proof, 4 GiB a partition at
 * k = 27, so it is never read whole: pfile_proofs_open checks what is
 * small (header, size, table, checksum) and hands out each region's proof,
 * its H in pieces, or the region's digest check, one partition at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/pfile_priv.h"

#define PFILE_PROOFS_CHUNK (1u << 20)	/* bytes hashed per read in pfile_proofs_check */

struct pfile_proofs {
	int fd;
	char *path;
	struct pfile_hdr h;
	uint8_t *table;		/* the digests, as validated by open */
};

int pfile_proofs_read(const char *path, struct pfile_result *res, uint8_t **regions, char *err, size_t errlen)
{
	uint8_t table[PFILE_RESULT_MAX_PARTITIONS * PFILE_SUM_BYTES], d[PFILE_SUM_BYTES];
	struct pfile_hdr h;
	uint8_t *buf = NULL;
	size_t len;
	int fd, rc;

	*regions = NULL;
	fd = util_open_regular(path, 0, err, errlen);
	if (fd < 0)
		return fd;
	if ((rc = pfile_read_hdr(fd, path, PFILE_KIND_PROOFS, 0, &h, err, errlen)) ||
	    (rc = pfile_table2(fd, path, &h, table, err, errlen)))
		goto out;
	len = (size_t)h.word56 * PFILE_PROOF_REGION;
	buf = malloc(len);
	if (!buf) {
		rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (pread(fd, buf, len, PFILE_HEADER_BYTES) != (ssize_t)len) {
		rc = util_fail(err, errlen, -EIO, "%s: truncated while reading the proofs", path);
		goto out;
	}
	for (uint32_t p = 0; p < h.word56; p++) {
		struct pfile_digest dg;

		pfile_digest_init(&dg);
		pfile_digest_update(&dg, buf + (size_t)p * PFILE_PROOF_REGION, PFILE_PROOF_REGION);
		pfile_digest_final(&dg, d);
		if (memcmp(d, table + (size_t)p * PFILE_SUM_BYTES, PFILE_SUM_BYTES)) {
			rc = util_fail(err, errlen, -EINVAL, "%s: partition %u's proof does not match its digest",
				       path, p);
			goto out;
		}
	}
	memset(res, 0, sizeof *res);
	res->job_id = h.job_id;
	res->job_kind = h.job_kind;
	res->partitions = h.word56;
	res->id.k = h.k;
	res->id.seed_len = h.seed_len;
	memcpy(res->id.seed, h.seed, SYNTH_SEED_MAX);
	res->version = h.version;
	*regions = buf;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}

void pfile_proofs_close(struct pfile_proofs *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->table);
	free(r);
}

int pfile_proofs_open(const char *path, struct pfile_result *res, uint32_t *kind, struct pfile_proofs **rp,
		      char *err, size_t errlen)
{
	return pfile_proofs_openat(-1, NULL, path, res, kind, rp, err, errlen);
}

int pfile_proofs_openat(int dfd, const char *name, const char *path, struct pfile_result *res, uint32_t *kind,
			struct pfile_proofs **rp, char *err, size_t errlen)
{
	struct pfile_proofs *r = calloc(1, sizeof *r);
	int rc;

	*rp = NULL;
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	r->fd = dfd >= 0 ? util_openat_regular(dfd, name, path, O_NOFOLLOW, err, errlen)
			 : util_open_regular(path, 0, err, errlen);
	if (r->fd < 0) {
		rc = r->fd;
		goto fail;
	}
	/* Any kind first, so that the refusal of a wrong one names both. */
	if ((rc = pfile_read_hdr(r->fd, path, 0, 1, &r->h, err, errlen)))
		goto fail;
	if (!pfile_kind_has_proofs(r->h.kind)) {
		rc = util_fail(err, errlen, -EINVAL, "%s: is %s, expected a job proofs file", path,
			       pfile_kind_names[r->h.kind]);
		goto fail;
	}
	if ((rc = pfile_read_hdr(r->fd, path, r->h.kind, 0, &r->h, err, errlen)))
		goto fail;
	if (!(r->table = malloc((size_t)r->h.word56 * PFILE_SUM_BYTES))) {
		rc = util_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if ((rc = pfile_table2(r->fd, path, &r->h, r->table, err, errlen)))
		goto fail;
	memset(res, 0, sizeof *res);
	res->job_id = r->h.job_id;
	res->job_kind = r->h.job_kind;
	res->partitions = r->h.word56;
	res->id.k = r->h.k;
	res->id.seed_len = r->h.seed_len;
	memcpy(res->id.seed, r->h.seed, SYNTH_SEED_MAX);
	res->version = r->h.version;
	*kind = r->h.kind;
	*rp = r;
	return 0;
fail:
	pfile_proofs_close(r);
	return rc;
}

/* Exactly len bytes at off of r's file: 0, or -errno (-ENODATA: the file
 * shrank after open measured it). */
static int pfile_proofs_pread(struct pfile_proofs *r, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t got = pread(r->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -ENODATA;
		done += (size_t)got;
	}
	return 0;
}

static int pfile_proofs_no_part(struct pfile_proofs *r, uint32_t p, char *err, size_t errlen)
{
	return util_fail(err, errlen, -EINVAL, "%s: no partition %u (the job has %u)", r->path, p, r->h.word56);
}

static int pfile_proofs_read_fail(struct pfile_proofs *r, uint32_t p, int rc, char *err, size_t errlen)
{
	return util_fail(err, errlen, rc == -ENODATA ? -EINVAL : rc, "%s: partition %u: %s", r->path, p,
			 rc == -ENODATA ? "truncated (file changed after it was opened)" : strerror(-rc));
}

int pfile_proofs_proof(struct pfile_proofs *r, uint32_t p, uint8_t proof[PFILE_PROOF_REGION], char *err,
		       size_t errlen)
{
	uint8_t d[PFILE_SUM_BYTES];
	struct pfile_digest dg;
	int rc;

	if (p >= r->h.word56)
		return pfile_proofs_no_part(r, p, err, errlen);
	rc = pfile_proofs_pread(r, proof, PFILE_PROOF_REGION, pfile_res_part_off(r->h.kind, r->h.k, p));
	if (rc)
		return pfile_proofs_read_fail(r, p, rc, err, errlen);
	if (r->h.kind != PFILE_KIND_PROOFS)
		return 0;	/* the digest covers the H too: pfile_proofs_check */
	pfile_digest_init(&dg);
	pfile_digest_update(&dg, proof, PFILE_PROOF_REGION);
	pfile_digest_final(&dg, d);
	if (memcmp(d, pfile_proofs_digest(r, p), sizeof d))
		return util_fail(err, errlen, -EINVAL, "%s: partition %u's proof does not match its digest",
				 r->path, p);
	return 0;
}

int pfile_proofs_h_read(struct pfile_proofs *r, uint32_t p, uint64_t off, void *buf, size_t len)
{
	uint64_t hlen = (uint64_t)FR_BYTES << r->h.k;

	if (r->h.kind != PFILE_KIND_PROOFS_H || p >= r->h.word56 || off > hlen || len > hlen - off)
		return -EINVAL;
	return pfile_proofs_pread(r, buf, len, pfile_res_part_off(r->h.kind, r->h.k, p) + PFILE_PROOF_REGION + off);
}

int pfile_proofs_check(struct pfile_proofs *r, uint32_t p, char *err, size_t errlen)
{
	uint64_t base, left = pfile_res_region(r->h.kind, r->h.k);
	uint8_t d[PFILE_SUM_BYTES], *buf;
	struct pfile_digest dg;
	int rc = 0;

	if (p >= r->h.word56)
		return pfile_proofs_no_part(r, p, err, errlen);
	buf = malloc(PFILE_PROOFS_CHUNK);
	if (!buf)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory", r->path);
	base = pfile_res_part_off(r->h.kind, r->h.k, p);
	pfile_digest_init(&dg);
	while (left) {
		size_t m = left < PFILE_PROOFS_CHUNK ? (size_t)left : PFILE_PROOFS_CHUNK;

		if ((rc = pfile_proofs_pread(r, buf, m, base))) {
			rc = pfile_proofs_read_fail(r, p, rc, err, errlen);
			goto out;
		}
		pfile_digest_update(&dg, buf, m);
		base += m;
		left -= m;
	}
	pfile_digest_final(&dg, d);
	if (memcmp(d, pfile_proofs_digest(r, p), sizeof d))
		rc = util_fail(err, errlen, -EINVAL,
			       "%s: partition %u's region does not match its digest (table entry at offset %llu)",
			       r->path, p,
			       (unsigned long long)(pfile_res_table_off(r->h.kind, r->h.k, r->h.word56) +
						    (uint64_t)p * PFILE_SUM_BYTES));
out:
	free(buf);
	return rc;
}

const uint8_t *pfile_proofs_digest(const struct pfile_proofs *r, uint32_t p)
{
	return r->table + (size_t)p * PFILE_SUM_BYTES;
}
