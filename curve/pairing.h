/*
 * pairing: the optimal ate pairing e: G1 x G2 -> GT (a subgroup of Fp12*)
 * of BLS12-381. Miller loop over |x| = 0xd201000000010000 (x negative),
 * then the final exponentiation (p^12 - 1)/r: easy part by Frobenius,
 * hard part with cyclotomic squarings. A multi-pairing shares one final
 * exponentiation and squares once per step for every pair.
 */
#ifndef CURVE_PAIRING_H
#define CURVE_PAIRING_H

#include <stddef.h>

#include "curve/curve.h"
#include "field/fp12.h"

/* out = e(p, q). Infinity on either side gives 1. */
void pairing(fp12_t *out, const g1_affine_t *p, const g2_affine_t *q);
/* out = prod_i f_{p_i, q_i} before the final exponentiation. */
void pairing_miller_loop(fp12_t *out, const g1_affine_t *p, const g2_affine_t *q, size_t n);
void pairing_final_exp(fp12_t *out, const fp12_t *f);
/* 1 when prod_i e(p[i], q[i]) = 1, else 0. */
int pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n);

#endif
