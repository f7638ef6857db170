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
static void verify_point_start(crypto_generichash_state *base, const struct synth_id *id);
static void verify_point_finish(const crypto_generichash_state *base, unsigned k, fr_t *r);

void verify_point(const struct synth_id *id, const fr_t *h, fr_t *r)
{
	crypto_generichash_state base;
	uint8_t buf[256 * FR_BYTES];
	size_t n = (size_t)1 << id->k;

	verify_point_start(&base, id);
	for (size_t i = 0; i < n;) {
		size_t m = 0;
		verify_tick(i);
		for (; m < 256 && i < n; m++, i++)
			fr_to_bytes(buf + m * FR_BYTES, &h[i]);
		crypto_generichash_update(&base, buf, m * FR_BYTES);
	}
	verify_point_finish(&base, id->k, r);
}

/* The challenge's state before H's bytes: tag, seed_len, seed, partition, k. */
static void verify_point_start(crypto_generichash_state *base, const struct synth_id *id)
{
	uint8_t w4[4];

	verify_sodium_init();
	crypto_generichash_init(base, NULL, 0, 64);
	crypto_generichash_update(base, (const uint8_t *)VERIFY_TAG, sizeof VERIFY_TAG - 1);
	verify_le32(w4, id->seed_len);
	crypto_generichash_update(base, w4, 4);
	crypto_generichash_update(base, id->seed, id->seed_len);
	verify_le32(w4, id->partition);
	crypto_generichash_update(base, w4, 4);
	verify_le32(w4, id->k);
	crypto_generichash_update(base, w4, 4);
}

/* After H's bytes: the counter, until r is off the domain. */
static void verify_point_finish(const crypto_generichash_state *base, unsigned k, fr_t *r)
{
	crypto_generichash_state st;
	uint8_t w4[4], wide[64];
	fr_t rn;

	for (uint32_t ctr = 0;; ctr++) {
		st = *base;
		verify_le32(w4, ctr);
		crypto_generichash_update(&st, w4, 4);
		crypto_generichash_final(&st, wide, sizeof wide);
		fr_from_bytes_wide(r, wide);
		rn = *r;
		for (uint32_t i = 0; i < k; i++)
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

/* With r chosen and H(r) known: re-synthesize the rows, A(r), B(r), C(r)
 * through the Lagrange basis, and the check. */
static int verify_at(const struct synth_id *id, const fr_t *r, const fr_t *hr, char *why, size_t whylen)
{
	struct synth_stream s;
	fr_t *a, *b, *c, *d, *wi;
	fr_t w, wcur, rn, z, ninv, fac, sa = FR_ZERO, sb = FR_ZERO, sc = FR_ZERO, t, lhs, rhs;
	size_t n = (size_t)1 << id->k;
	int rc;

	if (synth_stream_init(&s, id))
		return verify_fail(why, whylen, -EINVAL, "bad identity (seed length or k out of range)");
	a = malloc(5 * VERIFY_CHUNK * sizeof *a);
	if (!a)
		return verify_fail(why, whylen, -ENOMEM, "out of memory");
	b = a + VERIFY_CHUNK;
	c = b + VERIFY_CHUNK;
	d = c + VERIFY_CHUNK;
	wi = d + VERIFY_CHUNK;
	rn = *r;
	for (uint32_t i = 0; i < id->k; i++)
		fr_sqr(&rn, &rn);
	fr_sub(&z, &rn, &FR_ONE);

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
			fr_sub(&d[j], r, &wcur);
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
	fr_mul(&rhs, hr, &z);
	rc = fr_equal(&lhs, &rhs) ? 0 : -EBADMSG;
	if (rc)
		verify_fail(why, whylen, rc,
			    "A(r)*B(r) - C(r) != H(r)*Z(r) at the Fiat-Shamir point: "
			    "H is not the quotient of this partition");
	return rc;
}

int verify_partition(const struct synth_id *id, const fr_t *h, char *why, size_t whylen)
{
	struct synth_stream s;
	fr_t r, hr;
	size_t n;

	if (synth_stream_init(&s, id))
		return verify_fail(why, whylen, -EINVAL, "bad identity (seed length or k out of range)");
	n = (size_t)1 << id->k;
	if (!fr_is_zero(&h[n - 1]))
		return verify_fail(why, whylen, -EBADMSG,
				   "H's top coefficient H[n-1] is not zero (no satisfied system gives that)");
	verify_point(id, h, &r);
	hr = FR_ZERO;	/* Horner, from the top coefficient down */
	for (size_t i = n; i-- > 0;) {
		verify_tick(i);
		fr_mul(&hr, &hr, &r);
		fr_add(&hr, &hr, &h[i]);
	}
	return verify_at(id, &r, &hr, why, whylen);
}

int verify_partition_stream(const struct synth_id *id, int (*rd)(void *arg, uint64_t off, void *buf, size_t len),
			    void *arg, uint8_t digest[32], char *why, size_t whylen)
{
	return verify_partition_stream_after(id, NULL, 0, rd, arg, digest, why, whylen);
}

int verify_partition_stream_after(const struct synth_id *id, const void *prefix, size_t prefix_len,
				  int (*rd)(void *arg, uint64_t off, void *buf, size_t len), void *arg,
				  uint8_t digest[32], char *why, size_t whylen)
{
	crypto_generichash_state base, dg;
	struct synth_stream s;
	size_t n, per = VERIFY_STREAM_CHUNK / FR_BYTES;
	uint8_t *raw;
	fr_t r, hr = FR_ZERO, pw = FR_ONE, e;
	int rc = 0;

	if (synth_stream_init(&s, id))
		return verify_fail(why, whylen, -EINVAL, "bad identity (seed length or k out of range)");
	n = (size_t)1 << id->k;
	raw = malloc(VERIFY_STREAM_CHUNK);
	if (!raw)
		return verify_fail(why, whylen, -ENOMEM, "out of memory");
	verify_point_start(&base, id);
	crypto_generichash_init(&dg, NULL, 0, 32);
	if (prefix_len)	/* the digest's, not the challenge's: r depends on H alone */
		crypto_generichash_update(&dg, prefix, prefix_len);
	/* pass 1: every element canonical, the top one zero; the challenge and the digest */
	for (size_t i = 0; i < n && !rc; i += per) {
		size_t m = n - i < per ? n - i : per;

		if ((rc = rd(arg, (uint64_t)i * FR_BYTES, raw, m * FR_BYTES))) {
			snprintf(why, whylen, "reading H: %s", strerror(-rc));
			break;
		}
		crypto_generichash_update(&dg, raw, m * FR_BYTES);
		crypto_generichash_update(&base, raw, m * FR_BYTES);
		for (size_t j = 0; j < m && !rc; j++) {
			verify_tick(i + j);
			if (fr_from_bytes(&e, raw + j * FR_BYTES)) {
				snprintf(why, whylen, "H[%zu] is not a canonical element", i + j);
				rc = -EBADMSG;
			} else if (i + j == n - 1 && !fr_is_zero(&e)) {
				snprintf(why, whylen, "H's top coefficient H[n-1] is not zero (no satisfied system "
					 "gives that)");
				rc = -EBADMSG;
			}
		}
	}
	crypto_generichash_final(&dg, digest, 32);
	if (rc) {
		free(raw);
		return rc;
	}
	verify_point_finish(&base, id->k, &r);
	/* pass 2: H(r) = sum h_i r^i, lowest degree first */
	for (size_t i = 0; i < n && !rc; i += per) {
		size_t m = n - i < per ? n - i : per;

		if ((rc = rd(arg, (uint64_t)i * FR_BYTES, raw, m * FR_BYTES))) {
			snprintf(why, whylen, "reading H again: %s", strerror(-rc));
			break;
		}
		for (size_t j = 0; j < m; j++) {
			verify_tick(i + j);
			if (fr_from_bytes(&e, raw + j * FR_BYTES)) {	/* changed underneath */
				snprintf(why, whylen, "H[%zu] changed between the two passes", i + j);
				rc = -EBADMSG;
				break;
			}
			fr_mul(&e, &e, &pw);
			fr_add(&hr, &hr, &e);
			fr_mul(&pw, &pw, &r);
		}
	}
	free(raw);
	if (rc)
		return rc;
	return verify_at(id, &r, &hr, why, whylen);
}
