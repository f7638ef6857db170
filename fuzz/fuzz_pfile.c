/*
 * fuzz_pfile: the partition, H, result and proofs file readers (format/pfile.h).
 * The input becomes a file in this process's scratch directory and goes
 * through every reader: probe, partition, H, and result open / read of
 * every partition / close. Each input is tried as given, and with its
 * last 32 bytes replaced by the BLAKE2b-256 of the rest (a partition or H
 * file's checksum), so the fuzzer reaches the element checks behind the
 * checksum; an input whose header names a job file (result, proofs or
 * proofs+H) of its exact length is also tried with its digest table and
 * checksum recomputed (the layout helpers of format/pfile.h), which
 * reaches the element checks behind both. Every input also goes through
 * the proofs files' region reader. Cap inputs with -max_len: a valid
 * file of k has 2^k elements per section.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "format/pfile.h"
#include "fuzz/fuzz.h"

static void fuzz_pfile_id_ok(const struct synth_id *id)
{
	FUZZ_ASSERT(id->k >= SYNTH_LOG_MIN && id->k <= VOCAB_LOG_MAX);
	FUZZ_ASSERT(id->seed_len >= 1 && id->seed_len <= SYNTH_SEED_MAX);
}

static void fuzz_pfile_result(const char *path)
{
	struct pfile_result res;
	struct pfile_reader *r = NULL;
	char err[512];
	fr_t *h;
	int rc;

	fuzz_err_fill(err, sizeof err);
	rc = pfile_result_open(path, &res, &r, err, sizeof err);
	if (rc) {
		FUZZ_ASSERT(rc < 0);
		fuzz_check_err(err, sizeof err);
		return;
	}
	fuzz_pfile_id_ok(&res.id);
	FUZZ_ASSERT(res.version == PFILE_VERSION);
	FUZZ_ASSERT(res.partitions >= 1 && res.partitions <= PFILE_RESULT_MAX_PARTITIONS);
	FUZZ_ASSERT(vocab_kind_name(res.job_kind));
	h = malloc(((size_t)1 << res.id.k) * sizeof *h);
	FUZZ_ASSERT(h);
	for (uint32_t p = 0; p < res.partitions; p++)
		FUZZ_ASSERT(pfile_result_read(r, p, h, err, sizeof err) == 0);
	FUZZ_ASSERT(pfile_result_read(r, res.partitions, h, err, sizeof err) < 0);
	free(h);
	pfile_result_close(r);
}

/* The proofs and proofs+H reader: every proof, a piece of every H, and
 * every region's digest check must end in 0 or one line. */
static void fuzz_pfile_proofs(const char *path)
{
	uint8_t proof[PFILE_PROOF_REGION], piece[64];
	struct pfile_result res;
	struct pfile_proofs *r;
	uint32_t kind;
	char err[512];

	fuzz_err_fill(err, sizeof err);
	if (pfile_proofs_open(path, &res, &kind, &r, err, sizeof err)) {
		fuzz_check_err(err, sizeof err);
		FUZZ_ASSERT(!r);
		return;
	}
	fuzz_pfile_id_ok(&res.id);
	FUZZ_ASSERT(pfile_kind_has_proofs(kind));
	FUZZ_ASSERT(res.partitions >= 1 && res.partitions <= PFILE_RESULT_MAX_PARTITIONS);
	for (uint32_t p = 0; p < res.partitions; p++) {
		fuzz_err_fill(err, sizeof err);
		if (pfile_proofs_proof(r, p, proof, err, sizeof err))
			fuzz_check_err(err, sizeof err);
		fuzz_err_fill(err, sizeof err);
		if (pfile_proofs_check(r, p, err, sizeof err))
			fuzz_check_err(err, sizeof err);
		FUZZ_ASSERT((pfile_proofs_h_read(r, p, 0, piece, sizeof piece) == 0) == (kind == PFILE_KIND_PROOFS_H));
	}
	pfile_proofs_close(r);
}

static void fuzz_pfile_try(const char *path, const uint8_t *data, size_t size)
{
	struct synth_id id;
	enum pfile_kind kind;
	fr_t *a = NULL, *b = NULL, *c = NULL, *h = NULL;
	char err[512];
	int rc;

	fuzz_write_file(path, data, size);
	fuzz_err_fill(err, sizeof err);
	if ((rc = pfile_probe(path, &kind, err, sizeof err)))
		fuzz_check_err(err, sizeof err);
	else
		FUZZ_ASSERT(kind >= PFILE_KIND_PARTITION && kind <= PFILE_KIND_PROOFS_H);

	fuzz_err_fill(err, sizeof err);
	rc = pfile_read_partition(path, &id, &a, &b, &c, err, sizeof err);
	if (rc) {
		fuzz_check_err(err, sizeof err);
	} else {
		fuzz_pfile_id_ok(&id);
		FUZZ_ASSERT(a && b && c);
	}
	free(a);
	free(b);
	free(c);

	fuzz_err_fill(err, sizeof err);
	rc = pfile_read_h(path, &id, &h, err, sizeof err);
	if (rc) {
		fuzz_check_err(err, sizeof err);
	} else {
		fuzz_pfile_id_ok(&id);
		FUZZ_ASSERT(h);
	}
	free(h);

	fuzz_pfile_result(path);
	fuzz_pfile_proofs(path);
}

static uint32_t fuzz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Seal buf as a result file if its header names one whose size
 * is size: each partition's digest into the table, then the checksum.
 * 0 when the header does not fit. */
static int fuzz_pfile_reseal2(uint8_t *buf, size_t size)
{
	uint32_t k, parts, kind;
	uint64_t table;

	if (size < PFILE_HEADER_BYTES || fuzz_le32(buf + 8) != PFILE_RESULT_VERSION ||
	    !pfile_kind_is_job(kind = fuzz_le32(buf + 12)))
		return 0;
	k = fuzz_le32(buf + 16);
	parts = fuzz_le32(buf + 56);
	if (k < 1 || k > VOCAB_LOG_MAX || parts < 1 || parts > PFILE_RESULT_MAX_PARTITIONS ||
	    pfile_res_size(kind, k, parts) != size)
		return 0;
	table = pfile_res_table_off(kind, k, parts);
	for (uint32_t p = 0; p < parts; p++) {
		struct pfile_digest d;
		pfile_digest_init(&d);
		pfile_digest_update(&d, buf + pfile_res_part_off(kind, k, p), pfile_res_region(kind, k));
		pfile_digest_final(&d, buf + table + (uint64_t)p * PFILE_SUM_BYTES);
	}
	pfile_result2_sum(buf, buf + table, parts, buf + table + (uint64_t)parts * PFILE_SUM_BYTES);
	return 1;
}

FUZZ_ENTRY(pfile)
{
	static char path[300];
	uint8_t *copy;

	if (!path[0])
		snprintf(path, sizeof path, "%s/file", fuzz_tmpdir());
	fuzz_pfile_try(path, data, size);
	if (size < PFILE_HEADER_BYTES + PFILE_SUM_BYTES)
		return 0;
	copy = malloc(size);
	FUZZ_ASSERT(copy);
	memcpy(copy, data, size);
	crypto_generichash(copy + size - PFILE_SUM_BYTES, PFILE_SUM_BYTES,
			   copy, size - PFILE_SUM_BYTES, NULL, 0);
	if (memcmp(copy, data, size))
		fuzz_pfile_try(path, copy, size);
	memcpy(copy, data, size);
	if (fuzz_pfile_reseal2(copy, size) && memcmp(copy, data, size))
		fuzz_pfile_try(path, copy, size);
	free(copy);
	return 0;
}
