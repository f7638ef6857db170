/*
 * fp12: Fp12 = Fp6[w] / (w^2 - v), the target field of the pairing.
 *
 * Multiplication is Karatsuba over Fp6 (3 Fp6 multiplications), squaring
 * the "complex" method (2). The pairing's hot paths have their own forms:
 * fp12_mul_by_014 multiplies by a line function (13 Fp2 multiplications
 * instead of 18), and fp12_cyclotomic_sqr squares in the cyclotomic
 * subgroup where the final exponentiation lives. Products are lazily
 * reduced as in fp6.c: fp12_mul and fp12_mul_by_014 sum the unreduced
 * Fp6 products and reduce each of the twelve output coefficients once,
 * and the cyclotomic squaring does the same for its Fp4 squarings.
 *
 * The Frobenius map raises to p^k coefficient by coefficient: over Fp2,
 * (g w^i)^(p^k) = conj^k(g) w^(i p^k) = conj^k(g) gamma_{k,i} w^i with
 * gamma_{k,i} = w^(i (p^k - 1)) = xi^(i (p^k - 1)/6) in Fp2 (p = 1 mod 6).
 * The fifteen constants are computed once, on first use, from p: gamma_1
 * by one exponentiation, gamma_2 = gamma_1 conj(gamma_1) (its norm) and
 * gamma_3 = gamma_2 gamma_1, since Fp2 elements are fixed by p^2.
 */
#include "field/fp12.h"
#include "field/fp_lazy.h"

#include <pthread.h>

void fp12_add(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
	fp6_add_inline(&out->c0, &a->c0, &b->c0);
	fp6_add_inline(&out->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
	fp6_sub_inline(&out->c0, &a->c0, &b->c0);
	fp6_sub_inline(&out->c1, &a->c1, &b->c1);
}

void fp12_conj(fp12_t *out, const fp12_t *a)
{
	out->c0 = a->c0;
	fp6_neg(&out->c1, &a->c1);
}

/* c0 = t0 + v t1 on unreduced Fp6 values: (t0_0 + xi t1_2) + (t0_1 + t1_0) v
 * + (t0_2 + t1_1) v^2, reduced into out. */
static void fp12_redc_plus_v(fp6_t *out, fp6_wide_t *t0, const fp6_wide_t *t1)
{
	fp2_wide_t m;

	fp2_wide_mul_nonresidue(&m, &t1->c2);
	fp2_wide_add(&t0->c0, &t0->c0, &m);
	fp2_wide_add(&t0->c1, &t0->c1, &t1->c0);
	fp2_wide_add(&t0->c2, &t0->c2, &t1->c1);
	fp6_redc(out, t0);
}

/* (a0 + a1 w)(b0 + b1 w) = a0 b0 + v a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) w */
void fp12_mul(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
	fp6_wide_t t0, t1, m;
	fp6_t s, u;

	fp6_add_inline(&s, &a->c0, &a->c1);
	fp6_add_inline(&u, &b->c0, &b->c1);
	fp6_mul_wide(&t0, &a->c0, &b->c0);
	fp6_mul_wide(&t1, &a->c1, &b->c1);
	fp6_mul_wide(&m, &s, &u);
	fp6_wide_sub(&m, &m, &t0);
	fp6_wide_sub(&m, &m, &t1);
	fp6_redc(&out->c1, &m);
	fp12_redc_plus_v(&out->c0, &t0, &t1);
}

/* (a0 + a1 w)^2 = a0^2 + v a1^2 + 2 a0 a1 w, with
 * a0^2 + v a1^2 = (a0 + a1)(a0 + v a1) - t - v t, t = a0 a1. */
void fp12_sqr(fp12_t *out, const fp12_t *a)
{
	fp6_t t, s, u;

	fp6_mul(&t, &a->c0, &a->c1);
	fp6_add_inline(&s, &a->c0, &a->c1);
	fp6_mul_by_nonresidue(&u, &a->c1);
	fp6_add_inline(&u, &u, &a->c0);
	fp6_mul(&s, &s, &u);
	fp6_sub_inline(&s, &s, &t);
	fp6_mul_by_nonresidue(&u, &t);
	fp6_sub_inline(&out->c0, &s, &u);
	fp6_add_inline(&out->c1, &t, &t);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2). */
int fp12_inv(fp12_t *out, const fp12_t *a)
{
	fp6_t t, s;

	fp6_sqr(&t, &a->c0);
	fp6_sqr(&s, &a->c1);
	fp6_mul_by_nonresidue(&s, &s);
	fp6_sub(&t, &t, &s);
	if (fp6_inv(&t, &t) != 0)
		return -1;
	fp6_mul(&out->c0, &a->c0, &t);
	fp6_mul(&out->c1, &a->c1, &t);
	fp6_neg(&out->c1, &out->c1);
	return 0;
}

/* a (l0 + l1 w) with l0 = c0 + c1 v, l1 = c4 v: Karatsuba over Fp6 with
 * sparse factors, 5 + 3 + 5 Fp2 multiplications, 12 Fp reductions. */
void fp12_mul_by_014(fp12_t *out, const fp12_t *a, const fp2_t *c0, const fp2_t *c1, const fp2_t *c4)
{
	fp6_wide_t t0, t1, m;
	fp6_t s;
	fp2_t c14;

	fp2_add_inline(&c14, c1, c4);
	fp6_add_inline(&s, &a->c0, &a->c1);
	fp6_mul_by_01_wide(&t0, &a->c0, c0, c1);
	fp6_mul_by_1_wide(&t1, &a->c1, c4);
	fp6_mul_by_01_wide(&m, &s, c0, &c14);
	fp6_wide_sub(&m, &m, &t0);
	fp6_wide_sub(&m, &m, &t1);
	fp6_redc(&out->c1, &m);
	fp12_redc_plus_v(&out->c0, &t0, &t1);
}

/* (a + b s)^2 in Fp4 = Fp2[s] / (s^2 - xi): a^2 + xi b^2 + 2ab s, the last
 * as (a + b)^2 - a^2 - b^2; four reductions. */
static void fp4_sqr(fp2_t *c0, fp2_t *c1, const fp2_t *a, const fp2_t *b)
{
	fp2_wide_t t0, t1, t;
	fp2_t s;

	fp2_add_inline(&s, a, b);
	fp2_sqr_wide(&t0, a);
	fp2_sqr_wide(&t1, b);
	fp2_sqr_wide(&t, &s);
	fp2_wide_sub(&t, &t, &t0);
	fp2_wide_sub(&t, &t, &t1);
	fp2_redc(c1, &t);
	fp2_wide_mul_nonresidue(&t, &t1);
	fp2_wide_add(&t, &t, &t0);
	fp2_redc(c0, &t);
}

/* 3 t - 2 z (sign -1) or 3 t + 2 z (sign +1), the shape of every output
 * coefficient of the cyclotomic squaring. */
static void fp12_cyc_out(fp2_t *z, const fp2_t *t, int sign)
{
	fp2_t r;

	if (sign < 0)
		fp2_sub_inline(&r, t, z);
	else
		fp2_add_inline(&r, t, z);
	fp2_add_inline(&r, &r, &r);
	fp2_add_inline(z, &r, t);
}

/* Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions" (PKC 2010). Over Fp4 = Fp2[s], s = w^3, an element is
 * A + B t + C t^2 with t = w, t^3 = s: A = g0 + g3 s, B = g1 + g4 s,
 * C = g2 + g5 s. For a unitary element
 *   (A + B t + C t^2)^2 = (3A^2 - 2 conj A) + (3 s C^2 + 2 conj B) t
 *                         + (3 B^2 - 2 conj C) t^2,
 * conj over Fp2 being s -> -s. Three Fp4 squarings, 9 Fp2 squarings. */
void fp12_cyclotomic_sqr(fp12_t *out, const fp12_t *a)
{
	fp2_t z0 = a->c0.c0, z1 = a->c1.c1;	/* A */
	fp2_t z2 = a->c1.c0, z3 = a->c0.c2;	/* B */
	fp2_t z4 = a->c0.c1, z5 = a->c1.c2;	/* C */
	fp2_t t0, t1, t2, t3;

	fp4_sqr(&t0, &t1, &z0, &z1);		/* A^2 */
	fp12_cyc_out(&z0, &t0, -1);
	fp12_cyc_out(&z1, &t1, +1);

	fp4_sqr(&t0, &t1, &z2, &z3);		/* B^2 */
	fp4_sqr(&t2, &t3, &z4, &z5);		/* C^2 */
	fp12_cyc_out(&z4, &t0, -1);
	fp12_cyc_out(&z5, &t1, +1);

	fp2_mul_nonresidue(&t3, &t3);		/* s C^2 = xi t3 + t2 s */
	fp12_cyc_out(&z2, &t3, +1);
	fp12_cyc_out(&z3, &t2, -1);

	out->c0.c0 = z0;
	out->c0.c1 = z4;
	out->c0.c2 = z3;
	out->c1.c0 = z2;
	out->c1.c1 = z1;
	out->c1.c2 = z5;
}

/* ---- Frobenius ------------------------------------------------------ */

/* fp12_gamma[k-1][i] = xi^(i (p^k - 1)/6), i = 1..5 at index i - 1. */
static fp2_t fp12_gamma[3][5];
static pthread_once_t fp12_gamma_once = PTHREAD_ONCE_INIT;

static void fp12_gamma_init(void)
{
	uint64_t e[6];
	unsigned __int128 rem = 0;
	fp2_t xi = { FP_ONE, FP_ONE };
	int i;

	/* (p - 1) / 6, exact: p = 1 mod 6 */
	for (i = 5; i >= 0; i--) {
		unsigned __int128 cur = (rem << 64) | (FP_MODULUS[i] - (i == 0));
		e[i] = (uint64_t)(cur / 6);
		rem = cur % 6;
	}
	fp2_pow(&fp12_gamma[0][0], &xi, e, 6);
	for (i = 1; i < 5; i++)
		fp2_mul(&fp12_gamma[0][i], &fp12_gamma[0][i - 1], &fp12_gamma[0][0]);
	for (i = 0; i < 5; i++) {
		fp2_t c;

		fp2_conj(&c, &fp12_gamma[0][i]);
		fp2_mul(&fp12_gamma[1][i], &fp12_gamma[0][i], &c);
		fp2_mul(&fp12_gamma[2][i], &fp12_gamma[1][i], &fp12_gamma[0][i]);
	}
}

/* a^(p^k) for k in 1..3, coefficient by coefficient in the w basis. */
static void fp12_frobenius_once(fp12_t *out, const fp12_t *a, unsigned k)
{
	const fp2_t *g = fp12_gamma[k - 1];
	/* the coefficients of w^0..w^5 (see fp12.h) */
	const fp2_t *in[6] = { &a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2 };
	fp2_t *res[6] = { &out->c0.c0, &out->c1.c0, &out->c0.c1, &out->c1.c1, &out->c0.c2, &out->c1.c2 };
	fp2_t t;
	int i;

	for (i = 0; i < 6; i++) {
		if (k & 1)
			fp2_conj(&t, in[i]);
		else
			t = *in[i];
		if (i > 0) {
			/* gamma_2 lies in Fp: two Fp multiplications suffice */
			if (k == 2)
				fp2_mul_fp(&t, &t, &g[i - 1].c0);
			else
				fp2_mul(&t, &t, &g[i - 1]);
		}
		*res[i] = t;
	}
}

void fp12_frobenius(fp12_t *out, const fp12_t *a, unsigned k)
{
	pthread_once(&fp12_gamma_once, fp12_gamma_init);
	k %= 12;
	if (k == 0) {
		*out = *a;
		return;
	}
	fp12_t t = *a;
	while (k > 0) {
		unsigned step = k > 3 ? 3 : k;

		fp12_frobenius_once(&t, &t, step);
		k -= step;
	}
	*out = t;
}

/* ---- the rest ------------------------------------------------------- */

void fp12_pow_limbs(fp12_t *out, const fp12_t *a, const uint64_t *e, size_t n)
{
	fp12_t r = FP12_ONE, b = *a;
	size_t i;
	int j;

	for (i = n; i-- > 0;)
		for (j = 63; j >= 0; j--) {
			fp12_sqr(&r, &r);
			if ((e[i] >> j) & 1)
				fp12_mul(&r, &r, &b);
		}
	*out = r;
}

int fp12_is_zero(const fp12_t *a)
{
	return fp6_is_zero(&a->c0) && fp6_is_zero(&a->c1);
}

int fp12_is_one(const fp12_t *a)
{
	return fp12_equal(a, &FP12_ONE);
}

int fp12_equal(const fp12_t *a, const fp12_t *b)
{
	return fp6_equal(&a->c0, &b->c0) && fp6_equal(&a->c1, &b->c1);
}

/* The coefficients in the order of fp12.h: c0 before c1 at every level. */
static fp_t *fp12_coeff(fp12_t *a, int i)
{
	fp6_t *s = (i / 6) ? &a->c1 : &a->c0;
	fp2_t *d = (i / 2) % 3 == 0 ? &s->c0 : (i / 2) % 3 == 1 ? &s->c1 : &s->c2;

	return (i & 1) ? &d->c1 : &d->c0;
}

void fp12_to_bytes(uint8_t out[FP12_BYTES], const fp12_t *a)
{
	fp12_t t = *a;

	for (int i = 0; i < 12; i++)
		fp_to_bytes_be(out + FP_BYTES * i, fp12_coeff(&t, i));
}

int fp12_from_bytes(fp12_t *out, const uint8_t in[FP12_BYTES])
{
	fp12_t t;

	for (int i = 0; i < 12; i++)
		if (fp_from_bytes_be(fp12_coeff(&t, i), in + FP_BYTES * i) != 0)
			return -1;
	*out = t;
	return 0;
}
