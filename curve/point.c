/*
 * curve/point: G1 and G2 arithmetic. The group law and scalar
 * multiplication are written once, in curve/point_tmpl.h, and instantiated
 * here for G1 over Fp and G2 over Fp2; what differs between the groups
 * (constants, the endomorphisms behind the subgroup checks) is here.
 *
 * Subgroup checks (Scott, "A note on group membership tests for G1, G2
 * and GT on BLS pairing-friendly curves", eprint 2021/1130, sections 4 and
 * 6; proofs completed in eprint 2022/352), with the curve parameter
 * x = -0xd201000000010000:
 *   G1: phi(P) = -x^2 P, phi(x, y) = (beta x, y), beta a cube root of 1;
 *   G2: psi(P) = x P, psi the untwist-Frobenius-twist endomorphism.
 * Each costs one or two 64-bit multiplications instead of a 255-bit one
 * (r P = 0), which the proof-file decoders feel. tests/curve/points.c
 * checks both against r P = 0 on points in and out of the subgroup.
 *
 * Constants are Montgomery form (x 2^384 mod p); tests/curve/points.c
 * derives each from its definition and compares.
 */
#include "curve/curve.h"

#include <stdlib.h>
#include <string.h>

/* |x| of the BLS parameter x = -0xd201000000010000. */
#define CURVE_X_ABS 0xd201000000010000ULL

/* Scalars of up to 8 limbs (512 bits) are recoded in one go; windows of
 * at most 5 bits (8 table entries). */
#define CURVE_WNAF_LIMBS 8
#define CURVE_WNAF_MAX_W 5
#define CURVE_WNAF_DIGITS (64 * CURVE_WNAF_LIMBS + CURVE_WNAF_MAX_W + 1)

#define FPC(a, b, c, d, e, f) { { a, b, c, d, e, f } }

/* 0x17f1d3a7...22c6bb, 0x08b3f481...c5e7e1: the standard generator
 * (ZCash's BLS12-381 spec, draft-irtf-cfrg-pairing-friendly-curves). */
const g1_affine_t G1_GENERATOR = {
	.x = FPC(0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
		 0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL),
	.y = FPC(0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
		 0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL),
	.inf = 0,
};

/* x = 0x024aa2b2...21bdb8 + 0x13e02b60...042b7e u,
 * y = 0x0ce5d527...b82801 + 0x0606c4a0...f79be u (same sources). */
const g2_affine_t G2_GENERATOR = {
	.x = {
		.c0 = FPC(0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
			  0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL),
		.c1 = FPC(0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
			  0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL),
	},
	.y = {
		.c0 = FPC(0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
			  0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL),
		.c1 = FPC(0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
			  0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL),
	},
	.inf = 0,
};

/* b = 4 (G1) and b' = 4 (u + 1) (G2). */
const fp_t G1_B = FPC(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
			     0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL);
const fp2_t G2_B = {
	.c0 = FPC(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
		  0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL),
	.c1 = FPC(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
		  0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL),
};

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * the cube root of unity whose phi acts on G1 as -x^2 (the other one,
 * beta^2, acts as x^2 - 1). */
const fp_t CURVE_BETA = FPC(0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
			    0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL);
/* psi(x, y) = (conj(x) cx, conj(y) cy), cx = 1 / (u + 1)^((p - 1) / 3),
 * cy = 1 / (u + 1)^((p - 1) / 2). cx has c0 = 0. */
const fp2_t CURVE_PSI_X = {
	.c0 = FPC(0, 0, 0, 0, 0, 0),
	.c1 = FPC(0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		  0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL),
};
const fp2_t CURVE_PSI_Y = {
	.c0 = FPC(0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		  0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL),
	.c1 = FPC(0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		  0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL),
};

/* Window width for a scalar of n limbs: the table costs 2^(w-2) additions,
 * each bit a doubling and 1/(w+1) of an addition. */
static unsigned curve_wnaf_width(size_t n)
{
	return n <= 1 ? 3 : n <= 2 ? 4 : CURVE_WNAF_MAX_W;
}

static unsigned curve_bits(const uint64_t *s, size_t n, size_t pos, unsigned w)
{
	unsigned v = 0;

	for (unsigned k = 0; k < w; k++) {
		size_t b = pos + k;
		if (b < 64 * n)
			v |= (unsigned)(s[b / 64] >> (b % 64) & 1) << k;
	}
	return v;
}

/*
 * Width-w NAF of the n-limb scalar s: digit[i] odd in
 * [-(2^(w-1) - 1), 2^(w-1) - 1] or 0, no two nonzero digits closer than w,
 * s = sum digit[i] 2^i. Returns the number of digits up to the highest
 * nonzero one. Scans runs of bits with a carry instead of subtracting
 * from a copy of s (libsecp256k1's ecmult_wnaf does the same).
 */
static size_t curve_wnaf(int8_t digit[CURVE_WNAF_DIGITS], const uint64_t *s, size_t n, unsigned w)
{
	size_t len = 64 * n, bit = 0, top = 0;
	unsigned carry = 0;

	memset(digit, 0, CURVE_WNAF_DIGITS);
	while (bit < len) {
		if (curve_bits(s, n, bit, 1) == carry) {
			bit++;
			continue;
		}
		int word = (int)(curve_bits(s, n, bit, w) + carry);	/* odd */
		carry = (unsigned)(word >> (w - 1)) & 1;
		word -= (int)(carry << w);
		digit[bit] = (int8_t)word;
		top = bit + 1;
		bit += w;
	}
	if (carry) {
		digit[bit] = 1;
		top = bit + 1;
	}
	return top;
}

#include "curve/tmpl_g1.h"
#include "curve/point_tmpl.h"
#include "curve/tmpl_end.h"

#include "curve/tmpl_g2.h"
#include "curve/point_tmpl.h"
#include "curve/tmpl_end.h"

static const uint64_t curve_x_abs = CURVE_X_ABS;

void g1_endo_phi(g1_affine_t *out, const g1_affine_t *a)
{
	*out = *a;
	if (!a->inf)
		fp_mul(&out->x, &a->x, &CURVE_BETA);
}

void g2_endo_psi(g2_affine_t *out, const g2_affine_t *a)
{
	*out = *a;
	if (a->inf)
		return;
	fp2_conj(&out->x, &a->x);
	fp2_mul(&out->x, &out->x, &CURVE_PSI_X);
	fp2_conj(&out->y, &a->y);
	fp2_mul(&out->y, &out->y, &CURVE_PSI_Y);
}

/* phi(P) = -x^2 P (the sign of x squares away). */
int g1_affine_in_subgroup(const g1_affine_t *a)
{
	g1_t p, q;
	g1_affine_t e;

	if (a->inf)
		return 1;
	g1_from_affine(&p, a);
	g1_mul_limbs(&q, &p, &curve_x_abs, 1);
	g1_mul_limbs(&q, &q, &curve_x_abs, 1);
	g1_neg(&q, &q);
	g1_endo_phi(&e, a);
	g1_from_affine(&p, &e);
	return g1_equal(&p, &q);
}

/* psi(P) = x P = -(|x| P). */
int g2_affine_in_subgroup(const g2_affine_t *a)
{
	g2_t p, q;
	g2_affine_t e;

	if (a->inf)
		return 1;
	g2_from_affine(&p, a);
	g2_mul_limbs(&q, &p, &curve_x_abs, 1);
	g2_neg(&q, &q);
	g2_endo_psi(&e, a);
	g2_from_affine(&p, &e);
	return g2_equal(&p, &q);
}
