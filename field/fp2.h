/*
 * fp2: Fp2 = Fp[u] / (u^2 + 1), the field of G2's coordinates. An element
 * is c0 + c1*u. ZCash encodings put c1 first (curve/curve.h). Every fp2_
 * function allows out to alias any input.
 */
#ifndef FIELD_FP2_H
#define FIELD_FP2_H

#include "field/fp.h"

typedef struct {
	fp_t c0, c1;
} fp2_t;

extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;

void fp2_add(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_neg(fp2_t *out, const fp2_t *a);
void fp2_double(fp2_t *out, const fp2_t *a);
void fp2_mul(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *out, const fp2_t *a);
void fp2_mul_fp(fp2_t *out, const fp2_t *a, const fp_t *b);
void fp2_mul_small(fp2_t *out, const fp2_t *a, uint64_t v);
/* out = a * (u + 1), the non-residue of the Fp6 tower. */
void fp2_mul_nonresidue(fp2_t *out, const fp2_t *a);
void fp2_conj(fp2_t *out, const fp2_t *a);	/* c0 - c1*u = a^p */
/* Returns 0, or -1 (out untouched) when a is zero. */
int fp2_inv(fp2_t *out, const fp2_t *a);
/* out[i] = 1/a[i], one Fp inversion in all; zero in, zero out. 0 or -1
 * when memory ran out. out may equal a. */
int fp2_batch_inv(fp2_t *out, const fp2_t *a, size_t n);
/* A square root: 0, or -1 (out untouched) when a is not a square. */
int fp2_sqrt(fp2_t *out, const fp2_t *a);
/* out = a^e, e given as n plain little-endian limbs. */
void fp2_pow(fp2_t *out, const fp2_t *a, const uint64_t *e, size_t n);

int fp2_is_zero(const fp2_t *a);
int fp2_equal(const fp2_t *a, const fp2_t *b);
/* The ZCash sort flag: c1 lexicographically larger, or c1 = 0 and c0 is. */
int fp2_lexlarger(const fp2_t *a);

#endif
