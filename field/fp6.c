/*
 * fp6: Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1, written on fp2_ alone.
 *
 * Multiplication is Karatsuba over the three coefficients (6 Fp2
 * multiplications), squaring is Chung and Hasan's CH-SQR2 (2 Fp2
 * multiplications, 3 squarings); both reduce v^3 to xi by
 * fp2_mul_nonresidue, which costs additions only. The sparse products
 * fp6_mul_by_01 and fp6_mul_by_1 serve the line functions of the pairing
 * (fp12_mul_by_014).
 */
#include "field/fp12.h"

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
	fp2_add(&out->c0, &a->c0, &b->c0);
	fp2_add(&out->c1, &a->c1, &b->c1);
	fp2_add(&out->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp2_sub(&out->c0, &a->c0, &b->c0);
	fp2_sub(&out->c1, &a->c1, &b->c1);
	fp2_sub(&out->c2, &a->c2, &b->c2);
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
 * each cross sum from one product of sums less the diagonal products. */
void fp6_mul(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp2_t t0, t1, t2, s, u, c0, c1, c2;

	fp2_mul(&t0, &a->c0, &b->c0);
	fp2_mul(&t1, &a->c1, &b->c1);
	fp2_mul(&t2, &a->c2, &b->c2);

	fp2_add(&s, &a->c1, &a->c2);
	fp2_add(&u, &b->c1, &b->c2);
	fp2_mul(&c0, &s, &u);
	fp2_sub(&c0, &c0, &t1);
	fp2_sub(&c0, &c0, &t2);
	fp2_mul_nonresidue(&c0, &c0);
	fp2_add(&c0, &c0, &t0);

	fp2_add(&s, &a->c0, &a->c1);
	fp2_add(&u, &b->c0, &b->c1);
	fp2_mul(&c1, &s, &u);
	fp2_sub(&c1, &c1, &t0);
	fp2_sub(&c1, &c1, &t1);
	fp2_mul_nonresidue(&s, &t2);
	fp2_add(&c1, &c1, &s);

	fp2_add(&s, &a->c0, &a->c2);
	fp2_add(&u, &b->c0, &b->c2);
	fp2_mul(&c2, &s, &u);
	fp2_sub(&c2, &c2, &t0);
	fp2_sub(&c2, &c2, &t2);
	fp2_add(&c2, &c2, &t1);

	out->c0 = c0;
	out->c1 = c1;
	out->c2 = c2;
}

/* CH-SQR2 (Chung, Hasan, "Asymmetric squaring formulae", 2007):
 * s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
 * c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4. */
void fp6_sqr(fp6_t *out, const fp6_t *a)
{
	fp2_t s0, s1, s2, s3, s4, t;

	fp2_sqr(&s0, &a->c0);
	fp2_mul(&s1, &a->c0, &a->c1);
	fp2_double(&s1, &s1);
	fp2_sub(&t, &a->c0, &a->c1);
	fp2_add(&t, &t, &a->c2);
	fp2_sqr(&s2, &t);
	fp2_mul(&s3, &a->c1, &a->c2);
	fp2_double(&s3, &s3);
	fp2_sqr(&s4, &a->c2);

	fp2_add(&out->c2, &s1, &s2);
	fp2_add(&out->c2, &out->c2, &s3);
	fp2_sub(&out->c2, &out->c2, &s0);
	fp2_sub(&out->c2, &out->c2, &s4);
	fp2_mul_nonresidue(&t, &s3);
	fp2_add(&out->c0, &s0, &t);
	fp2_mul_nonresidue(&t, &s4);
	fp2_add(&out->c1, &s1, &t);
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
void fp6_mul_by_01(fp6_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
	fp2_t t0, t1, s, u, c0, c1, c2;

	fp2_mul(&t0, &a->c0, b0);
	fp2_mul(&t1, &a->c1, b1);

	fp2_add(&s, &a->c1, &a->c2);
	fp2_mul(&c0, &s, b1);
	fp2_sub(&c0, &c0, &t1);
	fp2_mul_nonresidue(&c0, &c0);
	fp2_add(&c0, &c0, &t0);

	fp2_add(&s, &a->c0, &a->c1);
	fp2_add(&u, b0, b1);
	fp2_mul(&c1, &s, &u);
	fp2_sub(&c1, &c1, &t0);
	fp2_sub(&c1, &c1, &t1);

	fp2_add(&s, &a->c0, &a->c2);
	fp2_mul(&c2, &s, b0);
	fp2_sub(&c2, &c2, &t0);
	fp2_add(&c2, &c2, &t1);

	out->c0 = c0;
	out->c1 = c1;
	out->c2 = c2;
}

/* a (b1 v) = (xi a2 b1, a0 b1, a1 b1). */
void fp6_mul_by_1(fp6_t *out, const fp6_t *a, const fp2_t *b1)
{
	fp2_t c0, c1, c2;

	fp2_mul(&c0, &a->c2, b1);
	fp2_mul_nonresidue(&c0, &c0);
	fp2_mul(&c1, &a->c0, b1);
	fp2_mul(&c2, &a->c1, b1);
	out->c0 = c0;
	out->c1 = c1;
	out->c2 = c2;
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
