/*
 * curve: the BLS12-381 groups G1 (y^2 = x^3 + 4 over Fp) and G2
 * (y^2 = x^3 + 4(u + 1) over Fp2, the sextic M-twist), both of prime order
 * r (field/fr.h).
 *
 * Points are Jacobian (x = X/Z^2, y = Y/Z^3; Z = 0 is the point at
 * infinity) for arithmetic, and affine (with an explicit infinity flag)
 * for storage, mixed additions and the encodings. Every function allows
 * out to alias any input.
 *
 * Encodings are ZCash's, which blst, bellperson, gnark and @noble/curves
 * read and write: big-endian coordinates (an Fp2 as c1 then c0), G1 48
 * bytes compressed / 96 uncompressed, G2 96 / 192. The top three bits of
 * the first byte are flags: 0x80 compressed, 0x40 infinity, 0x20 sort (y
 * is the lexicographically larger root; compressed only). The decoders
 * check everything: flag combinations, canonical coordinates (< p),
 * all-zero bodies for infinity, on-curve and in the subgroup, and on
 * refusal say why in one line.
 */
#ifndef CURVE_CURVE_H
#define CURVE_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

typedef struct {
	fp_t x, y, z;
} g1_t;

typedef struct {
	fp_t x, y;
	int inf;
} g1_affine_t;

typedef struct {
	fp2_t x, y, z;
} g2_t;

typedef struct {
	fp2_t x, y;
	int inf;
} g2_affine_t;

#define G1_COMPRESSED 48
#define G1_UNCOMPRESSED 96
#define G2_COMPRESSED 96
#define G2_UNCOMPRESSED 192

extern const g1_affine_t G1_GENERATOR;
extern const g2_affine_t G2_GENERATOR;
extern const fp_t G1_B;		/* 4 */
extern const fp2_t G2_B;	/* 4 (u + 1) */

/* ---- G1 ------------------------------------------------------------- */
void g1_set_inf(g1_t *out);
void g1_from_affine(g1_t *out, const g1_affine_t *a);
void g1_to_affine(g1_affine_t *out, const g1_t *a);
/* n points to affine with one inversion; 0, or -1 when memory ran out. */
int g1_batch_to_affine(g1_affine_t *out, const g1_t *a, size_t n);
int g1_is_inf(const g1_t *a);
int g1_equal(const g1_t *a, const g1_t *b);	/* as group elements */
int g1_affine_equal(const g1_affine_t *a, const g1_affine_t *b);
void g1_neg(g1_t *out, const g1_t *a);
void g1_affine_neg(g1_affine_t *out, const g1_affine_t *a);
void g1_double(g1_t *out, const g1_t *a);
/* Complete: any inputs, equal, opposite or at infinity. */
void g1_add(g1_t *out, const g1_t *a, const g1_t *b);
void g1_add_affine(g1_t *out, const g1_t *a, const g1_affine_t *b);
/* out = s * a, s plain little-endian limbs (n of them), not secret. */
void g1_mul_limbs(g1_t *out, const g1_t *a, const uint64_t *s, size_t n);
void g1_mul(g1_t *out, const g1_t *a, const fr_t *s);
int g1_affine_on_curve(const g1_affine_t *a);	/* infinity counts */
int g1_affine_in_subgroup(const g1_affine_t *a);	/* r * a = 0 */

/* Encodings. Decoders return 0, or -1 with a one-line reason in why. */
void g1_compress(uint8_t out[G1_COMPRESSED], const g1_affine_t *a);
void g1_serialize(uint8_t out[G1_UNCOMPRESSED], const g1_affine_t *a);
int g1_decompress(g1_affine_t *out, const uint8_t in[G1_COMPRESSED], char *why, size_t whylen);
int g1_deserialize(g1_affine_t *out, const uint8_t in[G1_UNCOMPRESSED], char *why, size_t whylen);
/* The same, without the subgroup check: for trusted files whose points
 * were checked when they were made (params); on the curve is still checked. */
int g1_deserialize_unchecked(g1_affine_t *out, const uint8_t in[G1_UNCOMPRESSED], char *why, size_t whylen);

/* ---- G2: the same operations --------------------------------------- */
void g2_set_inf(g2_t *out);
void g2_from_affine(g2_t *out, const g2_affine_t *a);
void g2_to_affine(g2_affine_t *out, const g2_t *a);
int g2_batch_to_affine(g2_affine_t *out, const g2_t *a, size_t n);
int g2_is_inf(const g2_t *a);
int g2_equal(const g2_t *a, const g2_t *b);
int g2_affine_equal(const g2_affine_t *a, const g2_affine_t *b);
void g2_neg(g2_t *out, const g2_t *a);
void g2_affine_neg(g2_affine_t *out, const g2_affine_t *a);
void g2_double(g2_t *out, const g2_t *a);
void g2_add(g2_t *out, const g2_t *a, const g2_t *b);
void g2_add_affine(g2_t *out, const g2_t *a, const g2_affine_t *b);
void g2_mul_limbs(g2_t *out, const g2_t *a, const uint64_t *s, size_t n);
void g2_mul(g2_t *out, const g2_t *a, const fr_t *s);
int g2_affine_on_curve(const g2_affine_t *a);
int g2_affine_in_subgroup(const g2_affine_t *a);

void g2_compress(uint8_t out[G2_COMPRESSED], const g2_affine_t *a);
void g2_serialize(uint8_t out[G2_UNCOMPRESSED], const g2_affine_t *a);
int g2_decompress(g2_affine_t *out, const uint8_t in[G2_COMPRESSED], char *why, size_t whylen);
int g2_deserialize(g2_affine_t *out, const uint8_t in[G2_UNCOMPRESSED], char *why, size_t whylen);
int g2_deserialize_unchecked(g2_affine_t *out, const uint8_t in[G2_UNCOMPRESSED], char *why, size_t whylen);

/* ---- fixed-base multiplication (setup) ------------------------------ */
/* out[i] = s[i] * base for i < n, with one window table for all of them;
 * results affine (batch-normalised). Multi-threaded over threads workers
 * (0: the online CPU count). 0, or -1 when memory ran out. */
int g1_fixed_base_batch(g1_affine_t *out, const g1_affine_t *base, const fr_t *s, size_t n, unsigned threads);
int g2_fixed_base_batch(g2_affine_t *out, const g2_affine_t *base, const fr_t *s, size_t n, unsigned threads);

/* ---- the endomorphisms behind the subgroup checks ------------------- */
/* phi(x, y) = (beta x, y), beta a cube root of unity in Fp: phi acts on G1
 * as multiplication by -x^2 (x = -0xd201000000010000, the BLS parameter).
 * psi = untwist, Frobenius, twist: acts on G2 as multiplication by x.
 * Exposed for the tests, which check the constants against their
 * definitions. */
extern const fp_t CURVE_BETA;
extern const fp2_t CURVE_PSI_X, CURVE_PSI_Y;
void g1_endo_phi(g1_affine_t *out, const g1_affine_t *a);
void g2_endo_psi(g2_affine_t *out, const g2_affine_t *a);

#endif
