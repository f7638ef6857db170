/*
 * proof: the proof file (docs/formats.md), 376 bytes:
 *
 *   0  "PVPROOF1"      8  LE32 version   12 LE32 k   16 LE32 partition
 *   20 LE32 seed_len   24 seed[32], zero-padded
 *   56 vk_digest[32]: the params it was made with
 *   88 x_0, 120 x_out: the public inputs, Fr, 32 bytes little-endian
 *   152 A (G1, 48 compressed)  200 B (G2, 96)  296 C (G1, 48)
 *   344 BLAKE2b-256 over bytes 0..344
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16_priv.h"
#include "util/util.h"

static const uint8_t proof_magic[8] = { 'P', 'V', 'P', 'R', 'O', 'O', 'F', '1' };

enum {
	OFF_VERSION = 8, OFF_K = 12, OFF_PART = 16, OFF_SEEDLEN = 20, OFF_SEED = 24,
	OFF_VK = 56, OFF_X0 = 88, OFF_XOUT = 120, OFF_A = 152, OFF_B = 200, OFF_C = 296,
	OFF_SUM = 344,
};
_Static_assert(OFF_SUM + GROTH16_DIGEST == GROTH16_PROOF_BYTES, "proof layout");

void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const struct groth16_proof_file *f)
{
	memset(out, 0, GROTH16_PROOF_BYTES);
	memcpy(out, proof_magic, sizeof proof_magic);
	util_le32_put(out + OFF_VERSION, GROTH16_PROOF_VERSION);
	util_le32_put(out + OFF_K, f->id.k);
	util_le32_put(out + OFF_PART, f->id.partition);
	util_le32_put(out + OFF_SEEDLEN, f->id.seed_len);
	memcpy(out + OFF_SEED, f->id.seed, f->id.seed_len);
	memcpy(out + OFF_VK, f->vk_digest, GROTH16_DIGEST);
	fr_to_bytes(out + OFF_X0, &f->x[0]);
	fr_to_bytes(out + OFF_XOUT, &f->x[1]);
	g1_compress(out + OFF_A, &f->proof.a);
	g2_compress(out + OFF_B, &f->proof.b);
	g1_compress(out + OFF_C, &f->proof.c);
	crypto_generichash(out + OFF_SUM, GROTH16_DIGEST, out, OFF_SUM, NULL, 0);
}

int groth16_proof_decode(struct groth16_proof_file *f, const uint8_t *in, size_t len, char *err, size_t errlen)
{
	uint8_t sum[GROTH16_DIGEST];
	char why[160];
	uint32_t v;

	memset(f, 0, sizeof *f);
	if (len != GROTH16_PROOF_BYTES)
		return util_fail(err, errlen, -EINVAL, "%zu bytes, not the %d of a proof file", len,
				 GROTH16_PROOF_BYTES);
	if (memcmp(in, proof_magic, sizeof proof_magic))
		return util_fail(err, errlen, -EINVAL, "not a provisor proof file (bad magic)");
	v = util_le32_get(in + OFF_VERSION);
	if (v != GROTH16_PROOF_VERSION)
		return util_fail(err, errlen, -EINVAL, "proof format version %u is not %u", v, GROTH16_PROOF_VERSION);
	crypto_generichash(sum, sizeof sum, in, OFF_SUM, NULL, 0);
	if (memcmp(sum, in + OFF_SUM, sizeof sum))
		return util_fail(err, errlen, -EINVAL, "checksum mismatch (corrupt or tampered)");
	f->id.k = util_le32_get(in + OFF_K);
	f->id.partition = util_le32_get(in + OFF_PART);
	f->id.seed_len = util_le32_get(in + OFF_SEEDLEN);
	if (f->id.seed_len >= 1 && f->id.seed_len <= SYNTH_SEED_MAX)
		memcpy(f->id.seed, in + OFF_SEED, f->id.seed_len);
	if (synth_id_check(&f->id))
		return util_fail(err, errlen, -EINVAL, "bad identity (seed length %u, k %u)", f->id.seed_len,
				 f->id.k);
	for (size_t i = OFF_SEED + f->id.seed_len; i < OFF_VK; i++)
		if (in[i])
			return util_fail(err, errlen, -EINVAL, "seed padding is not zero");
	memcpy(f->vk_digest, in + OFF_VK, GROTH16_DIGEST);
	if (fr_from_bytes(&f->x[0], in + OFF_X0) || fr_from_bytes(&f->x[1], in + OFF_XOUT))
		return util_fail(err, errlen, -EINVAL, "a public input is not a canonical field element");
	if (g1_decompress(&f->proof.a, in + OFF_A, why, sizeof why))
		return util_fail(err, errlen, -EINVAL, "proof A: %s", why);
	if (g2_decompress(&f->proof.b, in + OFF_B, why, sizeof why))
		return util_fail(err, errlen, -EINVAL, "proof B: %s", why);
	if (g1_decompress(&f->proof.c, in + OFF_C, why, sizeof why))
		return util_fail(err, errlen, -EINVAL, "proof C: %s", why);
	return 0;
}

int groth16_proof_write(const char *path, const struct groth16_proof_file *f, char *err, size_t errlen)
{
	uint8_t buf[GROTH16_PROOF_BYTES];

	groth16_proof_encode(buf, f);
	return groth16_write_atomic(path, buf, sizeof buf, err, errlen);
}

int groth16_proof_read(const char *path, struct groth16_proof_file *f, char *err, size_t errlen)
{
	uint8_t buf[GROTH16_PROOF_BYTES + 1];
	char why[256];
	ssize_t n;
	int fd = util_open_regular(path, 0, err, errlen);

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof buf);
	if (n < 0) {
		int rc = -errno;
		close(fd);
		return util_fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	close(fd);
	if (groth16_proof_decode(f, buf, (size_t)n, why, sizeof why))
		return util_fail(err, errlen, -EINVAL, "%s: %s", path, why);
	return 0;
}
