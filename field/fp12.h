/*
 * fp12: the towers above Fp2 that the pairing of BLS12-381 lands in,
 *
 *   Fp6  = Fp2[v] / (v^3 - xi), xi = u + 1   (fp2_mul_nonresidue)
 *   Fp12 = Fp6[w] / (w^2 - v)                (so w^6 = xi)
 *
 * the tower of zkcrypto/bls12_381, blst and @noble/curves. An fp6_t is
 * c0 + c1*v + c2*v^2, an fp12_t is c0 + c1*w. Seen over Fp2 an fp12_t is
 * sum g_i w^i with g_0 = c0.c0, g_1 = c1.c0, g_2 = c0.c1, g_3 = c1.c1,
 * g_4 = c0.c2, g_5 = c1.c2: the Frobenius maps and the line functions of
 * the pairing are written in that basis.
 *
 * Every function allows out to alias any input. Nothing here is constant
 * time: the pairing inputs of a verifier are public.
 */
#ifndef FIELD_FP12_H
#define FIELD_FP12_H

#include <stddef.h>
#include <stdint.h>

#include "field/fp.h"
#include "field/fp2.h"

typedef struct {
	fp2_t c0, c1, c2;
} fp6_t;

typedef struct {
	fp6_t c0, c1;
} fp12_t;

/* fp12_to_bytes: the 12 Fp coefficients, 48 bytes big-endian each, in the
 * order c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
 * c1.c0.c0, ..., c1.c2.c1: c0 before c1 at every level (Fp2 too, unlike
 * the ZCash point encodings). That is the order in which zkcrypto and
 * noble list e(G1, G2) (fromBigTwelve); blst's blst_bendian_from_fp12
 * interleaves the halves instead (c0.c0, c1.c0, c0.c1, ...), though its
 * fp12 in memory has fp12_t's layout (bench/blst_compare.c relies on it). */
#define FP12_BYTES (12 * FP_BYTES)

extern const fp6_t FP6_ZERO;
extern const fp6_t FP6_ONE;
extern const fp12_t FP12_ONE;

/* ---- Fp6 ------------------------------------------------------------ */
void fp6_add(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *out, const fp6_t *a);
void fp6_mul(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *out, const fp6_t *a);
/* out = a * v. */
void fp6_mul_by_nonresidue(fp6_t *out, const fp6_t *a);
/* out = a * (b0 + b1*v): the sparse factors of a line function. */
void fp6_mul_by_01(fp6_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
/* out = a * (b1*v). */
void fp6_mul_by_1(fp6_t *out, const fp6_t *a, const fp2_t *b1);
/* Returns 0, or -1 (out untouched) when a is zero. */
int fp6_inv(fp6_t *out, const fp6_t *a);
int fp6_is_zero(const fp6_t *a);
int fp6_equal(const fp6_t *a, const fp6_t *b);

/* ---- Fp12 ----------------------------------------------------------- */
void fp12_add(fp12_t *out, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *out, const fp12_t *a, const fp12_t *b);
void fp12_mul(fp12_t *out, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *out, const fp12_t *a);
/* Returns 0, or -1 (out untouched) when a is zero. */
int fp12_inv(fp12_t *out, const fp12_t *a);
/* c0 - c1*w = a^(p^6); the inverse of a unitary element (norm 1 over
 * Fp6), which every element of the cyclotomic subgroup is. */
void fp12_conj(fp12_t *out, const fp12_t *a);
/* out = a^(p^k) for k = 1, 2 or 3 (other k: any k mod 12 by repetition);
 * constants xi^(i(p^k-1)/6) computed once from p. */
void fp12_frobenius(fp12_t *out, const fp12_t *a, unsigned k);
/* out = a^2 for a in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1,
 * e.g. anything after the easy part of the final exponentiation);
 * Granger-Scott, 9 Fp2 squarings instead of the 12 Fp2 multiplications of
 * fp12_sqr. Wrong for other elements. */
void fp12_cyclotomic_sqr(fp12_t *out, const fp12_t *a);
/* out = a * (c0 + c1*w^2 + c4*w^3) = a * ((c0 + c1 v) + (c4 v) w): the
 * line functions of the M-twist have only these three Fp2 coefficients. */
void fp12_mul_by_014(fp12_t *out, const fp12_t *a, const fp2_t *c0, const fp2_t *c1, const fp2_t *c4);
/* out = a^e, e given as n plain little-endian limbs (square and multiply;
 * for tests and rare use, not a fast path). */
void fp12_pow_limbs(fp12_t *out, const fp12_t *a, const uint64_t *e, size_t n);

int fp12_is_zero(const fp12_t *a);
int fp12_is_one(const fp12_t *a);
int fp12_equal(const fp12_t *a, const fp12_t *b);

/* The FP12_BYTES encoding described above. fp12_from_bytes returns -1
 * (out untouched) when a coefficient is not below p. */
void fp12_to_bytes(uint8_t out[FP12_BYTES], const fp12_t *a);
int fp12_from_bytes(fp12_t *out, const uint8_t in[FP12_BYTES]);

#endif
