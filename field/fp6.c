/*
 * fp6: Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1, written on fp2_ alone.
 *
 * Multiplication is Karatsuba over the three coefficients (6 Fp2
 * multiplications), squaring is Chung and Hasan's CH-SQR2 (2 Fp2
 * multiplications, 3 squarings); both reduce v^3 to xi by
 * fp2_mul_nonresidue, which costs additions only. The sparse products
 * fp6_mul_by_01 and fp6_mul_by_1 serve the line functions of the pairing
 * (fp12_mul_by_014).
 *
 * The products are lazily reduced (field/fp_lazy.h): the Fp2 products
 * stay 768-bit, the Karatsuba sums and differences run on those, and
 * each of the six output Fp coefficients takes one Montgomery reduction
 * (6 instead of 12 for fp6_mul). The _wide forms stop before that
 * reduction, for fp12.c to go on summing.
 */
#include "field/fp12.h"
#include "field/fp_lazy.h"

/* R mod p (Montgomery one), as FP_ONE; tests/field/tower.c checks that
 * the two agree. A constant initializer cannot read FP_ONE itself. */
#define FP6_MONT_ONE { { 0x760900000002fffdULL, 0xebf4000bc40c0002ULL, \
	0x5f48985753c758baULL, 0x77ce585370525745ULL, \
	0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }

const fp6_t FP6_ZERO;
const fp6_t FP6_ONE = { .c0 = { .c0 = FP6_MONT_ONE } };
const fp12_t FP12_ONE = { .c0 = { .c0 = { .c0 = FP6_MONT_ONE } } };

void fp6_add(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp6_add_inline(out, a, b);
}

void fp6_sub(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp6_sub_inline(out, a, b);
}

void fp6_neg(fp6_t *out, const fp6_t *a)
{
	fp2_neg(&out->c0, &a->c0);
	fp2_neg(&out->c1, &a->c1);
	fp2_neg(&out->c2, &a->c2);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v + b2 v^2), v^3 = xi:
 *   c0 = a0 b0 + xi (a1 b2 + a2 b1)
 *   c1 = a0 b1 + a1 b0 + xi a2 b2
 *   c2 = a0 b2 + a1 b1 + a2 b0
 * each cross sum from one product of sums less the diagonal products.
 * The sums of coefficients are reduced: fp2_mul_wide's factors must be. */
void fp6_mul_wide(fp6_wide_t *out, const fp6_t *a, const fp6_t *b)
{
	fp2_wide_t t0, t1, t2, m;
	fp2_t s, u;

	fp2_mul_wide(&t0, &a->c0, &b->c0);
	fp2_mul_wide(&t1, &a->c1, &b->c1);
	fp2_mul_wide(&t2, &a->c2, &b->c2);

	fp2_add_inline(&s, &a->c1, &a->c2);
	fp2_add_inline(&u, &b->c1, &b->c2);
	fp2_mul_wide(&m, &s, &u);
	fp2_wide_sub(&m, &m, &t1);
	fp2_wide_sub(&m, &m, &t2);
	fp2_wide_mul_nonresidue(&out->c0, &m);
	fp2_wide_add(&out->c0, &out->c0, &t0);

	fp2_add_inline(&s, &a->c0, &a->c1);
	fp2_add_inline(&u, &b->c0, &b->c1);
	fp2_mul_wide(&out->c1, &s, &u);
	fp2_wide_sub(&out->c1, &out->c1, &t0);
	fp2_wide_sub(&out->c1, &out->c1, &t1);
	fp2_wide_mul_nonresidue(&m, &t2);
	fp2_wide_add(&out->c1, &out->c1, &m);

	fp2_add_inline(&s, &a->c0, &a->c2);
	fp2_add_inline(&u, &b->c0, &b->c2);
	fp2_mul_wide(&out->c2, &s, &u);
	fp2_wide_sub(&out->c2, &out->c2, &t0);
	fp2_wide_sub(&out->c2, &out->c2, &t2);
	fp2_wide_add(&out->c2, &out->c2, &t1);
}

void fp6_redc(fp6_t *out, const fp6_wide_t *a)
{
	fp2_redc(&out->c0, &a->c0);
	fp2_redc(&out->c1, &a->c1);
	fp2_redc(&out->c2, &a->c2);
}

void fp6_mul(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp6_wide_t t;

	fp6_mul_wide(&t, a, b);
	fp6_redc(out, &t);
}

/* CH-SQR2 (Chung, Hasan, "Asymmetric squaring formulae", 2007):
 * s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
 * c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4.
 * The doublings go before the products, on reduced Fp2 elements. */
void fp6_sqr(fp6_t *out, const fp6_t *a)
{
	fp2_wide_t s0, s1, s2, s3, s4, t;
	fp2_t d;

	fp2_sqr_wide(&s0, &a->c0);
	fp2_add_inline(&d, &a->c0, &a->c0);
	fp2_mul_wide(&s1, &d, &a->c1);
	fp2_sub_inline(&d, &a->c0, &a->c1);
	fp2_add_inline(&d, &d, &a->c2);
	fp2_sqr_wide(&s2, &d);
	fp2_add_inline(&d, &a->c1, &a->c1);
	fp2_mul_wide(&s3, &d, &a->c2);
	fp2_sqr_wide(&s4, &a->c2);

	fp2_wide_add(&s2, &s2, &s1);
	fp2_wide_add(&s2, &s2, &s3);
	fp2_wide_sub(&s2, &s2, &s0);
	fp2_wide_sub(&s2, &s2, &s4);
	fp2_redc(&out->c2, &s2);
	fp2_wide_mul_nonresidue(&t, &s3);
	fp2_wide_add(&t, &t, &s0);
	fp2_redc(&out->c0, &t);
	fp2_wide_mul_nonresidue(&t, &s4);
	fp2_wide_add(&t, &t, &s1);
	fp2_redc(&out->c1, &t);
}

/* (a0, a1, a2) v = (xi a2, a0, a1). */
void fp6_mul_by_nonresidue(fp6_t *out, const fp6_t *a)
{
	fp2_t t;

	fp2_mul_nonresidue(&t, &a->c2);
	out->c2 = a->c1;
	out->c1 = a->c0;
	out->c0 = t;
}

/* a (b0 + b1 v): c0 = a0 b0 + xi a2 b1, c1 = a0 b1 + a1 b0,
 * c2 = a1 b1 + a2 b0; 5 Fp2 multiplications. */
void fp6_mul_by_01_wide(fp6_wide_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
	fp2_wide_t t0, t1, m;
	fp2_t s, u;

	fp2_mul_wide(&t0, &a->c0, b0);
	fp2_mul_wide(&t1, &a->c1, b1);

	fp2_mul_wide(&m, &a->c2, b1);
	fp2_wide_mul_nonresidue(&out->c0, &m);
	fp2_wide_add(&out->c0, &out->c0, &t0);

	fp2_add_inline(&s, &a->c0, &a->c1);
	fp2_add_inline(&u, b0, b1);
	fp2_mul_wide(&out->c1, &s, &u);
	fp2_wide_sub(&out->c1, &out->c1, &t0);
	fp2_wide_sub(&out->c1, &out->c1, &t1);

	fp2_mul_wide(&out->c2, &a->c2, b0);
	fp2_wide_add(&out->c2, &out->c2, &t1);
}

void fp6_mul_by_01(fp6_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
	fp6_wide_t t;

	fp6_mul_by_01_wide(&t, a, b0, b1);
	fp6_redc(out, &t);
}

/* a (b1 v) = (xi a2 b1, a0 b1, a1 b1). */
void fp6_mul_by_1_wide(fp6_wide_t *out, const fp6_t *a, const fp2_t *b1)
{
	fp2_wide_t m;

	fp2_mul_wide(&m, &a->c2, b1);
	fp2_wide_mul_nonresidue(&out->c0, &m);
	fp2_mul_wide(&out->c1, &a->c0, b1);
	fp2_mul_wide(&out->c2, &a->c1, b1);
}

void fp6_mul_by_1(fp6_t *out, const fp6_t *a, const fp2_t *b1)
{
	fp6_wide_t t;

	fp6_mul_by_1_wide(&t, a, b1);
	fp6_redc(out, &t);
}

/* The adjugate over Fp2: with A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1,
 * C = a1^2 - a0 a2, a (A + B v + C v^2) = a0 A + xi (a2 B + a1 C), an Fp2
 * element (the norm down to Fp2); one Fp2 inversion of that. */
int fp6_inv(fp6_t *out, const fp6_t *a)
{
	fp2_t A, B, C, t, n;

	fp2_sqr(&A, &a->c0);
	fp2_mul(&t, &a->c1, &a->c2);
	fp2_mul_nonresidue(&t, &t);
	fp2_sub(&A, &A, &t);

	fp2_sqr(&B, &a->c2);
	fp2_mul_nonresidue(&B, &B);
	fp2_mul(&t, &a->c0, &a->c1);
	fp2_sub(&B, &B, &t);

	fp2_sqr(&C, &a->c1);
	fp2_mul(&t, &a->c0, &a->c2);
	fp2_sub(&C, &C, &t);

	fp2_mul(&n, &a->c2, &B);
	fp2_mul(&t, &a->c1, &C);
	fp2_add(&n, &n, &t);
	fp2_mul_nonresidue(&n, &n);
	fp2_mul(&t, &a->c0, &A);
	fp2_add(&n, &n, &t);
	if (fp2_inv(&n, &n) != 0)
		return -1;
	fp2_mul(&out->c0, &A, &n);
	fp2_mul(&out->c1, &B, &n);
	fp2_mul(&out->c2, &C, &n);
	return 0;
}

int fp6_is_zero(const fp6_t *a)
{
	return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

int fp6_equal(const fp6_t *a, const fp6_t *b)
{
	return fp2_equal(&a->c0, &b->c0) && fp2_equal(&a->c1, &b->c1) &&
	       fp2_equal(&a->c2, &b->c2);
}
