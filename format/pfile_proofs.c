/*
 * pfile_proofs: the reader of a job's proofs file (PFILE_KIND_PROOFS). The
 * file is small (376 bytes a partition), so it is read whole: header and
 * exact size, the checksum over header and digest table, then each
 * region against its table entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/pfile_priv.h"

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
