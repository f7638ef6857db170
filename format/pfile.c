/*
 * pfile: what the writer (pfile_write.c) and the reader (pfile_read.c)
 * share: the header codec, the names of kinds, full reads and writes, and
 * the one-line error formatter. Layout in pfile.h and docs/formats.md.
 *
 * One header codec, one streaming writer and one streaming reader serve
 * all three kinds of file; the kinds differ only in which header fields
 * they use and how the payload splits into sections.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "format/pfile_priv.h"

/* sodium_init picks the fastest BLAKE2b; it is idempotent and thread-safe.
 * Its failure (it does not fail on Linux) would leave the portable code,
 * which computes the same digests, so the result is not needed. */
void pfile_sodium_init(void)
{
	int rc = sodium_init();

	(void)rc;
}

const char *const pfile_kind_names[] = {
	[PFILE_KIND_PARTITION] = "a partition file",
	[PFILE_KIND_H] = "an H file",
	[PFILE_KIND_RESULT] = "a job result file",
	[PFILE_KIND_PROOFS] = "a job proofs file",
	[PFILE_KIND_PROOFS_H] = "a job proofs+H file",
};

int pfile_kind_is_job(uint32_t kind)
{
	return kind == PFILE_KIND_RESULT || pfile_kind_has_proofs(kind);
}

int pfile_kind_has_proofs(uint32_t kind)
{
	return kind == PFILE_KIND_PROOFS || kind == PFILE_KIND_PROOFS_H;
}

void pfile_hdr_encode(uint8_t out[PFILE_HEADER_BYTES], const struct pfile_hdr *h)
{
	memset(out, 0, PFILE_HEADER_BYTES);
	memcpy(out, PFILE_MAGIC, 8);
	util_le32_put(out + 8, h->version);
	util_le32_put(out + 12, h->kind);
	util_le32_put(out + 16, h->k);
	util_le32_put(out + 20, h->seed_len);
	memcpy(out + 24, h->seed, SYNTH_SEED_MAX);
	util_le32_put(out + 56, h->word56);
	util_le32_put(out + 60, h->job_kind);
	util_le64_put(out + 64, h->job_id);
	util_le64_put(out + 72, h->count);
}

void pfile_hdr_decode(struct pfile_hdr *h, const uint8_t in[PFILE_HEADER_BYTES])
{
	h->version = util_le32_get(in + 8);
	h->kind = util_le32_get(in + 12);
	h->k = util_le32_get(in + 16);
	h->seed_len = util_le32_get(in + 20);
	memcpy(h->seed, in + 24, SYNTH_SEED_MAX);
	memcpy(h->raw, in, PFILE_HEADER_BYTES);
	h->word56 = util_le32_get(in + 56);
	h->job_kind = util_le32_get(in + 60);
	h->job_id = util_le64_get(in + 64);
	h->count = util_le64_get(in + 72);
}

void pfile_result_hdr(struct pfile_hdr *h, const struct pfile_result *res, uint32_t version)
{
	memset(h, 0, sizeof *h);
	h->version = version;
	h->kind = PFILE_KIND_RESULT;
	h->k = res->id.k;
	h->seed_len = res->id.seed_len;
	memcpy(h->seed, res->id.seed, res->id.seed_len <= SYNTH_SEED_MAX ? res->id.seed_len
									: SYNTH_SEED_MAX);
	h->word56 = res->partitions;
	h->job_kind = res->job_kind;
	h->job_id = res->job_id;
	h->count = (uint64_t)res->partitions << res->id.k;
}

/* A job file's region per partition: its H (result), its proof file
 * (proofs), or both, the proof first (proofs+H): the proof sits at the
 * region's start in both proofs layouts, so that whoever wants only the
 * proofs reads 376 bytes at a known offset. */
uint64_t pfile_res_region(uint32_t kind, uint32_t k)
{
	switch (kind) {
	case PFILE_KIND_PROOFS: return PFILE_PROOF_REGION;
	case PFILE_KIND_PROOFS_H: return PFILE_PROOF_REGION + ((uint64_t)FR_BYTES << k);
	default: return (uint64_t)FR_BYTES << k;
	}
}

uint64_t pfile_res_part_off(uint32_t kind, uint32_t k, uint32_t p)
{
	return PFILE_HEADER_BYTES + (uint64_t)p * pfile_res_region(kind, k);
}

uint64_t pfile_res_table_off(uint32_t kind, uint32_t k, uint32_t parts)
{
	return pfile_res_part_off(kind, k, parts);
}

uint64_t pfile_res_size(uint32_t kind, uint32_t k, uint32_t parts)
{
	return pfile_res_table_off(kind, k, parts) + (uint64_t)parts * PFILE_SUM_BYTES + PFILE_SUM_BYTES;
}

void pfile_res_header(uint32_t kind, const struct pfile_result *res, uint8_t hdr[PFILE_HEADER_BYTES])
{
	struct pfile_hdr h;

	pfile_result_hdr(&h, res, PFILE_RESULT_VERSION);
	if (pfile_kind_has_proofs(kind)) {
		h.kind = kind;
		h.count = res->partitions;
	}
	pfile_hdr_encode(hdr, &h);
}

/*
 * Result files (the result2 layout, format versions 2 and 3): the layout
 * and the digests. A partition's region
 * and its digest are one process's business (the one that computed H);
 * whoever assembles the file needs only these offsets, the 80 header
 * bytes and the P digests to write the table and the checksum.
 */
uint64_t pfile_result2_part_off(uint32_t k, uint32_t p)
{
	return PFILE_HEADER_BYTES + (((uint64_t)p * FR_BYTES) << k);
}

uint64_t pfile_result2_table_off(uint32_t k, uint32_t parts)
{
	return pfile_result2_part_off(k, parts);
}

uint64_t pfile_result2_size(uint32_t k, uint32_t parts)
{
	return pfile_result2_table_off(k, parts) + (uint64_t)parts * PFILE_SUM_BYTES +
	       PFILE_SUM_BYTES;
}

void pfile_result2_header(const struct pfile_result *res, uint8_t hdr[PFILE_HEADER_BYTES])
{
	struct pfile_hdr h;

	pfile_result_hdr(&h, res, PFILE_RESULT_VERSION);
	pfile_hdr_encode(hdr, &h);
}

void pfile_result2_sum(const uint8_t hdr[PFILE_HEADER_BYTES], const uint8_t *table,
		       uint32_t parts, uint8_t sum[PFILE_SUM_BYTES])
{
	crypto_generichash_state st;

	pfile_sodium_init();
	crypto_generichash_init(&st, NULL, 0, PFILE_SUM_BYTES);
	crypto_generichash_update(&st, hdr, PFILE_HEADER_BYTES);
	crypto_generichash_update(&st, table, (unsigned long long)parts * PFILE_SUM_BYTES);
	crypto_generichash_final(&st, sum, PFILE_SUM_BYTES);
}

void pfile_digest_init(struct pfile_digest *d)
{
	pfile_sodium_init();
	crypto_generichash_init(&d->st, NULL, 0, PFILE_SUM_BYTES);
}

void pfile_digest_update(struct pfile_digest *d, const void *buf, size_t len)
{
	crypto_generichash_update(&d->st, buf, len);
}

void pfile_digest_final(struct pfile_digest *d, uint8_t out[PFILE_SUM_BYTES])
{
	crypto_generichash_final(&d->st, out, PFILE_SUM_BYTES);
}

/* Elements per section (2^k) and sections in the payload of h. */
uint64_t pfile_sections(const struct pfile_hdr *h)
{
	switch (h->kind) {
	case PFILE_KIND_PARTITION: return 3;
	case PFILE_KIND_H: return 1;
	default: return h->word56;	/* result, proofs, proofs+H: partitions */
	}
}

/* Read exactly len bytes at the current offset: 0, -errno, or -ENODATA
 * at end of file (the file shrank after it was measured). */
int pfile_read_full(int fd, void *buf, size_t len)
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

int pfile_write_full(int fd, const void *buf, size_t len)
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
