/*
 * fuzz_params: the Groth16 params parser (groth16_params_parse). Each
 * input is parsed as given, whole and vk-only, and again with its
 * trailer, and its verifying key's digest in the header, recomputed, so
 * the fuzzer reaches the point decoders behind both checksums. What is
 * accepted must describe the k circuit it claims (counts), and a refusal
 * must leave a reason. Cap inputs with -max_len: a k=3 file is ~4.5 KiB.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fuzz/fuzz.h"
#include "groth16/groth16.h"

#define VK_LEN (3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED + 4 + GROTH16_NPUB * G1_UNCOMPRESSED)

static void one(const uint8_t *buf, size_t len, int vk_only)
{
	struct groth16_params p;
	char err[512];

	fuzz_err_fill(err, sizeof err);
	if (groth16_params_parse(buf, len, &p, vk_only, err, sizeof err)) {
		fuzz_check_err(err, sizeof err);
		return;
	}
	FUZZ_ASSERT(p.k >= SYNTH_LOG_MIN && p.k <= VOCAB_LOG_MAX);
	FUZZ_ASSERT(p.nvars == synth_nvars(p.k) && p.npub == GROTH16_NPUB);
	FUZZ_ASSERT(vk_only ? !p.a : p.a && p.h && p.l && p.b_g1 && p.b_g2 && p.nh + 1 == (size_t)1 << p.k);
	for (int i = 0; i < GROTH16_NPUB; i++)
		FUZZ_ASSERT(g1_affine_in_subgroup(&p.vk.ic[i]));
	groth16_params_free(&p);
}

FUZZ_ENTRY(params)
{
	uint8_t *c;

	one(data, size, 0);
	one(data, size, 1);
	if (size < GROTH16_PARAMS_HEADER + VK_LEN + 32)
		return 0;
	c = malloc(size);
	FUZZ_ASSERT(c);
	memcpy(c, data, size);
	crypto_generichash(c + 40, 32, c + GROTH16_PARAMS_HEADER, VK_LEN, NULL, 0);
	crypto_generichash(c + size - 32, 32, c, size - 32, NULL, 0);
	one(c, size, 0);
	one(c, size, 1);
	free(c);
	return 0;
}
