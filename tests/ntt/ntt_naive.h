/*
 * Independent references for the NTT tests: the O(n^2) DFT written straight
 * from the definitions in field/ntt.h, Horner evaluation, random elements.
 * Only fr_ arithmetic is used, never field/ntt.
 */
#ifndef TESTS_NTT_NAIVE_H
#define TESTS_NTT_NAIVE_H

#include "field/fr.h"
#include "tests/helpers.h"

/* Uniform random element (a wide reduction of 64 random bytes). */
static inline void tn_rand(fr_t *out, uint64_t *seed)
{
	uint8_t b[64];

	for (int i = 0; i < 8; i++) {
		uint64_t v = t_rand(seed);
		memcpy(b + 8 * i, &v, 8);
	}
	fr_from_bytes_wide(out, b);
}

/* w_k = FR_ROOT_OF_UNITY^(2^(32-k)), checked to have order exactly 2^k. */
static inline void tn_omega(fr_t *w, unsigned k)
{
	fr_t t, minus_one;

	fr_pow_u64(w, &FR_ROOT_OF_UNITY, (uint64_t)1 << (32 - k));
	fr_pow_u64(&t, w, (uint64_t)1 << (k - 1));
	fr_neg(&minus_one, &FR_ONE);
	CHECK(fr_equal(&t, &minus_one), "w_%u^(n/2) != -1", k);
}

enum tn_kind { TN_FWD, TN_INV, TN_COSET_FWD, TN_COSET_INV };

/* out = the transform of in by definition (out must not alias in):
 *   fwd:       X[j] = sum_i x[i] w^(ij)
 *   inv:       x[i] = n^-1 sum_j X[j] w^(-ij)
 *   coset fwd: X[j] = sum_i x[i] g^i w^(ij)
 *   coset inv: x[i] = g^-i n^-1 sum_j X[j] w^(-ij) */
static inline void tn_dft(fr_t *out, const fr_t *in, unsigned k, enum tn_kind kind)
{
	size_t n = (size_t)1 << k;
	fr_t w, *pw = malloc(n * sizeof(fr_t)), *x = malloc(n * sizeof(fr_t));
	fr_t ninv, nf, g = FR_GENERATOR, gi;
	int inv = kind == TN_INV || kind == TN_COSET_INV;

	CHECK(pw && x, "out of memory");
	tn_omega(&w, k);
	pw[0] = FR_ONE;
	for (size_t i = 1; i < n; i++)
		fr_mul(&pw[i], &pw[i - 1], &w);
	memcpy(x, in, n * sizeof(fr_t));
	if (kind == TN_COSET_FWD) {
		fr_t s = FR_ONE;
		for (size_t i = 0; i < n; i++) {
			fr_mul(&x[i], &x[i], &s);
			fr_mul(&s, &s, &g);
		}
	}
	for (size_t j = 0; j < n; j++) {
		fr_t acc = FR_ZERO, t;
		for (size_t i = 0; i < n; i++) {
			size_t e = (i * j) % n;
			if (inv)
				e = (n - e) % n;
			fr_mul(&t, &x[i], &pw[e]);
			fr_add(&acc, &acc, &t);
		}
		out[j] = acc;
	}
	if (inv) {
		fr_from_u64(&nf, n);
		CHECK(fr_inv(&ninv, &nf) == 0, "1/n");
		CHECK(fr_inv(&gi, &g) == 0, "1/g");
		fr_t s = ninv;
		for (size_t i = 0; i < n; i++) {
			fr_mul(&out[i], &out[i], &s);
			if (kind == TN_COSET_INV)
				fr_mul(&s, &s, &gi);
		}
	}
	free(pw);
	free(x);
}

/* sum_i c[i] x^i */
static inline void tn_eval(fr_t *out, const fr_t *c, size_t n, const fr_t *x)
{
	fr_t acc = FR_ZERO;

	for (size_t i = n; i-- > 0;) {
		fr_mul(&acc, &acc, x);
		fr_add(&acc, &acc, &c[i]);
	}
	*out = acc;
}

/* The fr implementations this CPU can run: portable, then adx and ifma
 * (batched products on AVX-512 IFMA) where present. */
static inline int tn_impls(const char *names[3])
{
	static const char *const all[] = { "portable", "adx", "ifma" };
	int n = 0;

	for (int i = 0; i < 3; i++)
		if (fr_set_impl(all[i]) == 0)
			names[n++] = all[i];
	return n;
}

#endif
