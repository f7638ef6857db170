/*
 * fuzz_proof: the Groth16 proof file decoder (groth16_proof_decode), on
 * the input as given and with its checksum recomputed. What it accepts
 * must have a valid identity and points in their subgroups, and must
 * encode back to the same bytes; a refusal must leave a reason.
 */
#include <string.h>

#include <sodium.h>

#include "fuzz/fuzz.h"
#include "groth16/groth16.h"

static void one(const uint8_t *buf, size_t len)
{
	struct groth16_proof_file f;
	uint8_t out[GROTH16_PROOF_BYTES];
	char err[512];

	fuzz_err_fill(err, sizeof err);
	if (groth16_proof_decode(&f, buf, len, err, sizeof err)) {
		fuzz_check_err(err, sizeof err);
		return;
	}
	FUZZ_ASSERT(synth_id_check(&f.id) == 0);
	FUZZ_ASSERT(g1_affine_in_subgroup(&f.proof.a) && g1_affine_in_subgroup(&f.proof.c));
	FUZZ_ASSERT(g2_affine_in_subgroup(&f.proof.b));
	groth16_proof_encode(out, &f);
	FUZZ_ASSERT(len == sizeof out && !memcmp(out, buf, len));
}

FUZZ_ENTRY(proof)
{
	uint8_t c[GROTH16_PROOF_BYTES];

	one(data, size);
	if (size != GROTH16_PROOF_BYTES)
		return 0;
	memcpy(c, data, size);
	crypto_generichash(c + size - 32, 32, c, size - 32, NULL, 0);
	one(c, size);
	return 0;
}
