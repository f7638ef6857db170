/* PROVISIONAL: v2 result layout helpers, replaced by the format v2 branch. */
#include <string.h>
#include <sodium.h>
#include "format/pfile_priv.h"

uint64_t pfile_result2_part_off(uint32_t k, uint32_t p)
{
	return PFILE_HEADER_BYTES + ((uint64_t)p << k) * 32;
}

uint64_t pfile_result2_table_off(uint32_t k, uint32_t parts)
{
	return pfile_result2_part_off(k, parts);
}

uint64_t pfile_result2_size(uint32_t k, uint32_t parts)
{
	return pfile_result2_table_off(k, parts) + (uint64_t)parts * 32 + 32;
}

void pfile_result2_header(const struct pfile_result *res, uint8_t hdr[PFILE_HEADER_BYTES])
{
	struct pfile_hdr h;

	memset(&h, 0, sizeof h);
	h.version = 2;
	h.kind = PFILE_KIND_RESULT;
	h.k = res->id.k;
	h.seed_len = res->id.seed_len;
	memcpy(h.seed, res->id.seed, res->id.seed_len);
	h.word56 = res->partitions;
	h.job_kind = res->job_kind;
	h.job_id = res->job_id;
	h.count = (uint64_t)res->partitions << res->id.k;
	pfile_hdr_encode(hdr, &h);
}

void pfile_result2_sum(const uint8_t hdr[PFILE_HEADER_BYTES], const uint8_t *table, uint32_t parts,
		       uint8_t sum[PFILE_SUM_BYTES])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, PFILE_SUM_BYTES);
	crypto_generichash_update(&st, hdr, PFILE_HEADER_BYTES);
	crypto_generichash_update(&st, table, (size_t)parts * 32);
	crypto_generichash_final(&st, sum, PFILE_SUM_BYTES);
}

void pfile_digest_init(struct pfile_digest *d)
{
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
