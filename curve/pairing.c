/*
 * pairing: the optimal ate pairing of BLS12-381, x = -0xd201000000010000:
 *   e(P, Q) = (conj f_{|x|,Q}(P))^(3 (p^12 - 1)/r)
 * (the factor 3 is the final exponentiation's, see below).
 *
 * Miller loop. Q stays on the twist E': y^2 = x^3 + 4 xi (the M-twist),
 * in homogeneous projective coordinates over Fp2 (x = X/Z, y = Y/Z), and
 * never leaves it: psi(x', y') = (x' / w^2, y' / w^3) maps E' into E over
 * Fp12, so the line through psi(T) with slope lambda' / w, evaluated at P
 * and multiplied by w^3, is
 *     l(P) = (lambda' x_T - y_T) - lambda' x_P w^2 + y_P w^3,
 * three Fp2 coefficients at w^0, w^2, w^3 (fp12_mul_by_014). Every factor
 * dropped on the way (w^3, the denominators of lambda', signs) lies in a
 * proper subfield of Fp12 and dies in the final exponentiation, whose
 * exponent is a multiple of p^6 - 1 (and of p^4 - 1).
 * Doubling and mixed addition are the formulas of Costello, Lange and
 * Naehrig (PKC 2010) in the form of Aranha, Karabina, Longa, Gebotys and
 * Lopez (Eurocrypt 2011, eprint 2010/354), adapted to the M-twist lines.
 * x is negative: f_{x,Q} = 1 / (f_{|x|,Q} v) with v a vertical line, and
 * after the easy part the inverse is the conjugate.
 *
 * Final exponentiation (p^12 - 1)/r = (p^6 - 1)(p^2 + 1) (p^4 - p^2 + 1)/r.
 * Easy part by one inversion and Frobenius maps. Hard part after
 * Hayashida, Hayasaka and Teruya (eprint 2020/875): for BLS12,
 *   3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3,
 * five exponentiations by x with cyclotomic squarings. The pairing is the
 * cube of the "plain" one (3 is prime to r, so it is still a
 * non-degenerate bilinear pairing) and equals, byte for byte, what
 * zkcrypto/bls12_381 and @noble/curves compute (tests/curve/pairing.c).
 */
#include "curve/pairing.h"

/* |x|, and its bits below the top one: the Miller loop and the
 * exponentiation by x walk them from bit 62 down. */
#define PAIRING_X 0xd201000000010000ULL
#define PAIRING_X_TOP 63

/* Pairs per Miller loop pass, state on the stack; more pairs run in
 * several passes whose results are multiplied (a few more squarings). */
#define PAIRING_CHUNK 16

typedef struct {
	fp2_t x, y, z;		/* T on the twist, homogeneous projective */
	fp2_t qx, qy;		/* Q, affine, for the additions */
	fp_t px_neg, py;	/* -x_P and y_P: the line coefficients scale by them */
} pairing_state_t;

/* a / 2 in Fp, on the Montgomery representation (halving is linear):
 * a + p when a is odd (no carry out: 2p < 2^384), then shift right. */
static void fp_half(fp_t *out, const fp_t *a)
{
	uint64_t mask = -(a->l[0] & 1), carry = 0, t[6];
	int i;

	for (i = 0; i < 6; i++) {
		unsigned __int128 s = (unsigned __int128)a->l[i] + (FP_MODULUS[i] & mask) + carry;

		t[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
	for (i = 0; i < 5; i++)
		out->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
	out->l[5] = t[5] >> 1;
}

static void fp2_half(fp2_t *out, const fp2_t *a)
{
	fp_half(&out->c0, &a->c0);
	fp_half(&out->c1, &a->c1);
}

/* T = 2T, and f *= the tangent at T evaluated at P. With B = Y^2,
 * C = Z^2, E = 3 b' C (b' = 4 xi), H = 2YZ:
 *   X' = XY/2 (B - 3E), Y' = ((B + 3E)/2)^2 - 3E^2, Z' = B H,
 * and the tangent, times 2YZ: (Y^2 - 3 b' Z^2) - 3X^2 x_P w^2 + 2YZ y_P w^3
 * (x_T^3 = y_T^2 - b' brought the constant term to that form). */
static void pairing_double(pairing_state_t *s, fp12_t *f)
{
	fp2_t a, b, c, e, g, h, j, t, l0, l1, l4;

	fp2_mul(&a, &s->x, &s->y);
	fp2_half(&a, &a);
	fp2_sqr(&b, &s->y);
	fp2_sqr(&c, &s->z);
	/* 3 b' C = 12 xi C, by additions (fp2_mul_small's general loop
	 * takes eight per coefficient) */
	fp2_mul_nonresidue(&e, &c);
	fp2_double(&e, &e);
	fp2_double(&e, &e);			/* 4 xi C */
	fp2_add(&t, &e, &e);
	fp2_add(&e, &e, &t);			/* 12 xi C */
	fp2_add(&t, &s->y, &s->z);
	fp2_sqr(&h, &t);
	fp2_sub(&h, &h, &b);
	fp2_sub(&h, &h, &c);			/* 2YZ */
	fp2_sqr(&j, &s->x);

	fp2_sub(&l0, &b, &e);
	fp2_add(&l1, &j, &j);
	fp2_add(&l1, &l1, &j);
	fp2_mul_fp(&l1, &l1, &s->px_neg);
	fp2_mul_fp(&l4, &h, &s->py);

	fp2_add(&t, &e, &e);
	fp2_add(&t, &t, &e);			/* F = 3E */
	fp2_add(&g, &b, &t);
	fp2_half(&g, &g);
	fp2_sub(&t, &b, &t);
	fp2_mul(&s->x, &a, &t);
	fp2_sqr(&g, &g);
	fp2_sqr(&t, &e);
	fp2_sub(&g, &g, &t);
	fp2_sub(&g, &g, &t);
	fp2_sub(&s->y, &g, &t);
	fp2_mul(&s->z, &b, &h);

	fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* T = T + Q (Q affine, T != +-Q), and f *= the line through them at P.
 * theta = Y - y_Q Z, lambda = X - x_Q Z (slope theta/lambda);
 *   D = lambda^2, E = lambda^3, F = Z theta^2, G = X D, H = E + F - 2G,
 *   X' = lambda H, Y' = theta (G - H) - Y E, Z' = Z E,
 * and the line, times lambda:
 *   (theta x_Q - lambda y_Q) - theta x_P w^2 + lambda y_P w^3. */
static void pairing_add(pairing_state_t *s, fp12_t *f)
{
	fp2_t theta, lambda, d, e, ff, g, h, t, l0, l1, l4;

	fp2_mul(&theta, &s->qy, &s->z);
	fp2_sub(&theta, &s->y, &theta);
	fp2_mul(&lambda, &s->qx, &s->z);
	fp2_sub(&lambda, &s->x, &lambda);

	fp2_mul(&l0, &theta, &s->qx);
	fp2_mul(&t, &lambda, &s->qy);
	fp2_sub(&l0, &l0, &t);
	fp2_mul_fp(&l1, &theta, &s->px_neg);
	fp2_mul_fp(&l4, &lambda, &s->py);

	fp2_sqr(&d, &lambda);
	fp2_mul(&e, &lambda, &d);
	fp2_sqr(&ff, &theta);
	fp2_mul(&ff, &ff, &s->z);
	fp2_mul(&g, &s->x, &d);
	fp2_add(&h, &e, &ff);
	fp2_sub(&h, &h, &g);
	fp2_sub(&h, &h, &g);
	fp2_mul(&s->x, &lambda, &h);
	fp2_sub(&t, &g, &h);
	fp2_mul(&t, &theta, &t);
	fp2_mul(&s->y, &s->y, &e);
	fp2_sub(&s->y, &t, &s->y);
	fp2_mul(&s->z, &s->z, &e);

	fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* f = prod f_{|x|, Q_i}(P_i) for up to PAIRING_CHUNK pairs, one squaring
 * of f per step for all of them; infinity on either side is skipped. */
static void pairing_miller_chunk(fp12_t *out, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
	pairing_state_t st[PAIRING_CHUNK];
	fp12_t f = FP12_ONE;
	size_t i, m = 0;
	int bit;

	for (i = 0; i < n; i++) {
		if (p[i].inf || q[i].inf)
			continue;
		st[m].x = st[m].qx = q[i].x;
		st[m].y = st[m].qy = q[i].y;
		st[m].z = FP2_ONE;
		fp_neg(&st[m].px_neg, &p[i].x);
		st[m].py = p[i].y;
		m++;
	}
	if (m > 0) {
		for (bit = PAIRING_X_TOP - 1; bit >= 0; bit--) {
			if (bit != PAIRING_X_TOP - 1)	/* f = 1 before */
				fp12_sqr(&f, &f);
			for (i = 0; i < m; i++)
				pairing_double(&st[i], &f);
			if ((PAIRING_X >> bit) & 1)
				for (i = 0; i < m; i++)
					pairing_add(&st[i], &f);
		}
		fp12_conj(&f, &f);	/* x < 0 */
	}
	*out = f;
}

void pairing_miller_loop(fp12_t *out, const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
	fp12_t f = FP12_ONE, g;
	size_t i, k;

	for (i = 0; i < n; i += k) {
		k = n - i < PAIRING_CHUNK ? n - i : PAIRING_CHUNK;
		pairing_miller_chunk(&g, p + i, q + i, k);
		if (i == 0)
			f = g;
		else
			fp12_mul(&f, &f, &g);
	}
	*out = f;
}

/* a^x for a in the cyclotomic subgroup: a^|x| by cyclotomic squarings,
 * then the conjugate (the inverse there) for the sign. */
static void pairing_exp_by_x(fp12_t *out, const fp12_t *a)
{
	fp12_t r = *a;
	int bit;

	for (bit = PAIRING_X_TOP - 1; bit >= 0; bit--) {
		fp12_cyclotomic_sqr(&r, &r);
		if ((PAIRING_X >> bit) & 1)
			fp12_mul(&r, &r, a);
	}
	fp12_conj(out, &r);
}

/* Exponents in the comments are of m = f^((p^6 - 1)(p^2 + 1)), where
 * conj is the inverse and frobenius(k) raises to p^k. */
void pairing_final_exp(fp12_t *out, const fp12_t *f)
{
	fp12_t m, t0, t1, t2, t3, t4;

	/* easy part; f = 0 never comes out of a Miller loop (its factors are
	 * lines through points of order r, never zero at P), but 0 in
	 * gives 0 out rather than garbage */
	if (fp12_inv(&t0, f) != 0) {
		*out = *f;
		return;
	}
	fp12_conj(&m, f);
	fp12_mul(&m, &m, &t0);			/* f^(p^6 - 1) */
	fp12_frobenius(&t0, &m, 2);
	fp12_mul(&m, &t0, &m);			/* ^(p^2 + 1) */

	/* hard part: m^((x-1)^2 (x+p)(x^2+p^2-1) + 3) */
	fp12_cyclotomic_sqr(&t1, &m);
	fp12_conj(&t1, &t1);			/* t1 = m^-2 */
	pairing_exp_by_x(&t3, &m);		/* t3 = m^x */
	fp12_mul(&t1, &t1, &t3);		/* t1 = m^(x-2) */
	pairing_exp_by_x(&t2, &t1);		/* t2 = m^(x^2-2x) */
	fp12_cyclotomic_sqr(&t4, &t3);		/* t4 = m^2x */
	pairing_exp_by_x(&t0, &t2);		/* t0 = m^(x^3-2x^2) */
	fp12_mul(&t3, &t3, &t0);		/* t3 = m^(x(x-1)^2) */
	pairing_exp_by_x(&t0, &t0);		/* m^(x^4-2x^3) */
	fp12_mul(&t0, &t0, &t4);		/* t0 = m^((x-1)^2 (x^2-1) + 1) */
	pairing_exp_by_x(&t4, &t0);		/* t4 = m^(x (x-1)^2 (x^2-1) + x) */
	fp12_conj(&t1, &t1);			/* m^(2-x) */
	fp12_mul(&t4, &t4, &t1);
	fp12_mul(&t4, &t4, &m);			/* t4 = m^(x (x-1)^2 (x^2-1) + 3) */

	fp12_mul(&t2, &t2, &m);			/* m^((x-1)^2) */
	fp12_frobenius(&t2, &t2, 3);		/* ... p^3 */
	fp12_conj(&t1, &m);
	fp12_mul(&t0, &t0, &t1);		/* m^((x-1)^2 (x^2-1)) */
	fp12_frobenius(&t0, &t0, 1);		/* ... p */
	fp12_frobenius(&t3, &t3, 2);		/* m^(x(x-1)^2 p^2) */

	fp12_mul(&t3, &t3, &t2);
	fp12_mul(&t3, &t3, &t0);
	fp12_mul(out, &t3, &t4);
}

void pairing(fp12_t *out, const g1_affine_t *p, const g2_affine_t *q)
{
	fp12_t f;

	pairing_miller_loop(&f, p, q, 1);
	pairing_final_exp(out, &f);
}

int pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
	fp12_t f;

	pairing_miller_loop(&f, p, q, n);
	pairing_final_exp(&f, &f);
	return fp12_is_one(&f);
}
