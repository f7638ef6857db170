/*
 * verify: the Schwartz-Zippel check of an H (see verify.h).
 *
 * A(r) comes from the evaluations a[i] through the Lagrange basis of the
 * domain {w^i}:
 *   L_i(r) = (r^n - 1)/n * w^i / (r - w^i),   A(r) = sum_i a[i] L_i(r)
 * so no transform is needed. Rows are re-synthesized and consumed in
 * chunks, one batch inversion (Montgomery's trick) per chunk: memory stays
 * at a few hundred KiB at any k, and the extra inversions (n / 4096 of
 * them) cost nothing next to the n multiplications. H(r) is Horner's rule
 * on the coefficients. Total: O(n) multiplications, one pass of BLAKE2b
 * over H for the challenge.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "verify/verify.h"

#define VERIFY_TAG "provisor/verify/r/v1"
#define VERIFY_CHUNK 4096

static void (*verify_progress)(void);

void verify_set_progress(void (*fn)(void))
{
	verify_progress = fn;
}

/* Every 2^16 elements of a pass over n. */
static inline void verify_tick(size_t i)
{
	if (verify_progress && (i & 0xffff) == 0)
		verify_progress();
}

/* sodium_init picks the fastest BLAKE2b; it is idempotent and thread-safe.
 * Its failure (it does not fail on Linux) would leave the portable code,
 * which computes the same digests, so the result is not needed. */
static void verify_sodium_init(void)
{
	int rc = sodium_init();

	(void)rc;
}

static void verify_le32(uint8_t out[4], uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

void verify_domain_gen(fr_t *w, unsigned k)
{
	*w = FR_ROOT_OF_UNITY;
	for (unsigned i = k; i < FR_TWO_ADICITY; i++)
		fr_sqr(w, w);
}

/*
 * r = BLAKE2b-512(tag, seed_len, seed, partition, k, H bytes, counter)
 * reduced mod r, for counter = 0, 1, ... until r^n != 1 (r off the
 * domain, so every r - w^i is invertible). The loop runs once except with
 * probability n / |Fr|.
 */
void verify_point(const struct synth_id *id, const fr_t *h, fr_t *r)
{
	crypto_generichash_state base, st;
	uint8_t buf[256 * FR_BYTES], w4[4], wide[64];
	size_t n = (size_t)1 << id->k;
	fr_t rn;

	verify_sodium_init();
	crypto_generichash_init(&base, NULL, 0, sizeof wide);
	crypto_generichash_update(&base, (const uint8_t *)VERIFY_TAG, sizeof VERIFY_TAG - 1);
	verify_le32(w4, id->seed_len);
	crypto_generichash_update(&base, w4, 4);
	crypto_generichash_update(&base, id->seed, id->seed_len);
	verify_le32(w4, id->partition);
	crypto_generichash_update(&base, w4, 4);
	verify_le32(w4, id->k);
	crypto_generichash_update(&base, w4, 4);
	for (size_t i = 0; i < n;) {
		size_t m = 0;
		verify_tick(i);
		for (; m < 256 && i < n; m++, i++)
			fr_to_bytes(buf + m * FR_BYTES, &h[i]);
		crypto_generichash_update(&base, buf, m * FR_BYTES);
	}
	for (uint32_t ctr = 0;; ctr++) {
		st = base;
		verify_le32(w4, ctr);
		crypto_generichash_update(&st, w4, 4);
		crypto_generichash_final(&st, wide, sizeof wide);
		fr_from_bytes_wide(r, wide);
		rn = *r;
		for (uint32_t i = 0; i < id->k; i++)
			fr_sqr(&rn, &rn);
		if (!fr_equal(&rn, &FR_ONE))
			return;
	}
}

static int verify_fail(char *why, size_t whylen, int rc, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return rc;
}

int verify_partition(const struct synth_id *id, const fr_t *h, char *why, size_t whylen)
{
	struct synth_stream s;
	fr_t *a = NULL, *b, *c, *d, *wi;
	fr_t r, w, wcur, rn, z, hr, ninv, fac, sa = FR_ZERO, sb = FR_ZERO, sc = FR_ZERO, t, lhs, rhs;
	size_t n;
	int rc;

	if (synth_stream_init(&s, id))
		return verify_fail(why, whylen, -EINVAL, "bad identity (seed length or k out of range)");
	n = (size_t)1 << id->k;
	if (!fr_is_zero(&h[n - 1]))
		return verify_fail(why, whylen, -EBADMSG,
				   "H's top coefficient H[n-1] is not zero (no satisfied system gives that)");

	a = malloc(5 * VERIFY_CHUNK * sizeof *a);
	if (!a)
		return verify_fail(why, whylen, -ENOMEM, "out of memory");
	b = a + VERIFY_CHUNK;
	c = b + VERIFY_CHUNK;
	d = c + VERIFY_CHUNK;
	wi = d + VERIFY_CHUNK;

	verify_point(id, h, &r);
	rn = r;
	for (uint32_t i = 0; i < id->k; i++)
		fr_sqr(&rn, &rn);
	fr_sub(&z, &rn, &FR_ONE);

	hr = FR_ZERO;	/* Horner, from the top coefficient down */
	for (size_t i = n; i-- > 0;) {
		verify_tick(i);
		fr_mul(&hr, &hr, &r);
		fr_add(&hr, &hr, &h[i]);
	}

	/* sum_i x[i] w^i / (r - w^i) for x = a, b, c, chunk by chunk. */
	verify_domain_gen(&w, id->k);
	wcur = FR_ONE;
	for (size_t i = 0; i < n; i += VERIFY_CHUNK) {
		size_t m = n - i < VERIFY_CHUNK ? n - i : VERIFY_CHUNK;
		if (verify_progress)
			verify_progress();
		synth_stream_rows(&s, a, b, c, m);
		for (size_t j = 0; j < m; j++) {
			wi[j] = wcur;
			fr_sub(&d[j], &r, &wcur);
			fr_mul(&wcur, &wcur, &w);
		}
		fr_batch_inv(d, d, m);
		for (size_t j = 0; j < m; j++) {
			fr_mul(&d[j], &d[j], &wi[j]);
			fr_mul(&t, &a[j], &d[j]);
			fr_add(&sa, &sa, &t);
			fr_mul(&t, &b[j], &d[j]);
			fr_add(&sb, &sb, &t);
			fr_mul(&t, &c[j], &d[j]);
			fr_add(&sc, &sc, &t);
		}
	}
	free(a);

	/* The common factor (r^n - 1)/n = Z(r)/n. */
	fr_from_u64(&t, n);
	fr_inv(&ninv, &t);
	fr_mul(&fac, &z, &ninv);
	fr_mul(&sa, &sa, &fac);
	fr_mul(&sb, &sb, &fac);
	fr_mul(&sc, &sc, &fac);

	fr_mul(&lhs, &sa, &sb);
	fr_sub(&lhs, &lhs, &sc);
	fr_mul(&rhs, &hr, &z);
	rc = fr_equal(&lhs, &rhs) ? 0 : -EBADMSG;
	if (rc)
		verify_fail(why, whylen, rc,
			    "A(r)*B(r) - C(r) != H(r)*Z(r) at the Fiat-Shamir point: "
			    "H is not the quotient of this partition");
	return rc;
}
