/*
 * fp2: Fp2 = Fp[u] / (u^2 + 1), on top of fp.h.
 *
 * Multiplication is Karatsuba (three Fp products), squaring the complex
 * form (a0 + a1)(a0 - a1) + 2 a0 a1 u (two products). Both exist in a
 * lazily reduced form (field/fp_lazy.h) that the towers above build on:
 * fp2_mul_wide keeps the three 768-bit products and combines them before
 * any reduction, so a product costs three fp_mul_wide and two fp_redc
 * instead of three full multiplications, and a caller summing several
 * products (fp6.c, fp12.c) reduces each output coefficient only once.
 * Inversion goes through the norm a0^2 + a1^2, which is zero only for
 * zero because -1 is not a square mod p. The square root is Algorithm 9
 * of Adj and Rodriguez-Henriquez, "Square root computation over even
 * extension fields" (eprint 2012/685), for p = 3 mod 4, with the result
 * squared back as the final word on whether a root exists.
 */
#include "field/fp2.h"
#include "field/fp_lazy.h"

#include <stdlib.h>

const fp2_t FP2_ZERO = { { { 0 } }, { { 0 } } };
const fp2_t FP2_ONE = { { {
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
} }, { { 0 } } };

void fp2_add(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
	fp2_add_inline(out, a, b);
}

void fp2_sub(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
	fp2_sub_inline(out, a, b);
}

void fp2_neg(fp2_t *out, const fp2_t *a)
{
	fp_neg(&out->c0, &a->c0);
	fp_neg(&out->c1, &a->c1);
}

void fp2_double(fp2_t *out, const fp2_t *a)
{
	fp2_add_inline(out, a, a);
}

/*
 * (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u,
 * every product unreduced. The sums a0 + a1 and b0 + b1 stay unreduced
 * too (below 2p), so their product is below 4p^2 < p * 2^384, and
 * (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0 is a plain
 * difference that cannot go negative. a0 b0 - a1 b1 can, and takes
 * p * 2^384 back (fp_wide_sub).
 */
void fp2_mul_wide(fp2_wide_t *out, const fp2_t *a, const fp2_t *b)
{
	fp_t sa, sb;
	fp_wide_t t;

	fp_add_nr(&sa, &a->c0, &a->c1);
	fp_add_nr(&sb, &b->c0, &b->c1);
	fp_mul_wide(&out->c0, &a->c0, &b->c0);
	fp_mul_wide(&t, &a->c1, &b->c1);
	fp_mul_wide(&out->c1, &sa, &sb);
	fp_wide_sub_nr(&out->c1, &out->c1, &out->c0);
	fp_wide_sub_nr(&out->c1, &out->c1, &t);
	fp_wide_sub(&out->c0, &out->c0, &t);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: a0 + a1 < 2p unreduced,
 * a0 - a1 reduced, 2 a0 < 2p unreduced, so both products are below
 * 2p^2. */
void fp2_sqr_wide(fp2_wide_t *out, const fp2_t *a)
{
	fp_t s, d, a2;

	fp_add_nr(&s, &a->c0, &a->c1);
	fp_sub_inline(&d, &a->c0, &a->c1);
	fp_add_nr(&a2, &a->c0, &a->c0);
	fp_mul_wide(&out->c0, &s, &d);
	fp_mul_wide(&out->c1, &a2, &a->c1);
}

void fp2_redc(fp2_t *out, const fp2_wide_t *a)
{
	fp_redc(&out->c0, &a->c0);
	fp_redc(&out->c1, &a->c1);
}

void fp2_mul(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
	fp2_wide_t t;

	fp2_mul_wide(&t, a, b);
	fp2_redc(out, &t);
}

/* The same products as fp2_sqr_wide, each reduced at once: nothing is
 * summed after them, so a full multiplication is as cheap. fp_mul takes
 * the unreduced factors a0 + a1 and 2 a0 (below 2p) as they are: with
 * x < 2p and y < p, Montgomery's running value stays below x + p < 2^384
 * and the result (x y + m p) / 2^384 below 2p, which its one final
 * subtraction brings below p (tests/field/fp_gmp.c has p - 1 among its
 * edges). */
void fp2_sqr(fp2_t *out, const fp2_t *a)
{
	fp_t s, d, a2;

	fp_add_nr(&s, &a->c0, &a->c1);
	fp_sub_inline(&d, &a->c0, &a->c1);
	fp_add_nr(&a2, &a->c0, &a->c0);
	fp_mul(&out->c1, &a2, &a->c1);
	fp_mul(&out->c0, &s, &d);
}

void fp2_mul_fp(fp2_t *out, const fp2_t *a, const fp_t *b)
{
	fp_t t = *b;	/* b may be out->c0 */
	fp_mul(&out->c0, &a->c0, &t);
	fp_mul(&out->c1, &a->c1, &t);
}

void fp2_mul_small(fp2_t *out, const fp2_t *a, uint64_t v)
{
	fp_mul_small(&out->c0, &a->c0, v);
	fp_mul_small(&out->c1, &a->c1, v);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void fp2_mul_nonresidue(fp2_t *out, const fp2_t *a)
{
	fp_t t;
	fp_sub_inline(&t, &a->c0, &a->c1);
	fp_add_inline(&out->c1, &a->c0, &a->c1);
	out->c0 = t;
}

void fp2_conj(fp2_t *out, const fp2_t *a)
{
	out->c0 = a->c0;
	fp_neg(&out->c1, &a->c1);
}

int fp2_is_zero(const fp2_t *a)
{
	return fp_is_zero(&a->c0) && fp_is_zero(&a->c1);
}

int fp2_equal(const fp2_t *a, const fp2_t *b)
{
	return fp_equal(&a->c0, &b->c0) && fp_equal(&a->c1, &b->c1);
}

int fp2_lexlarger(const fp2_t *a)
{
	if (!fp_is_zero(&a->c1))
		return fp_lexlarger(&a->c1);
	return fp_lexlarger(&a->c0);
}

static void fp2_norm(fp_t *out, const fp2_t *a)
{
	fp_t t;
	fp_sqr(out, &a->c0);
	fp_sqr(&t, &a->c1);
	fp_add(out, out, &t);
}

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
int fp2_inv(fp2_t *out, const fp2_t *a)
{
	fp_t n;
	fp2_norm(&n, a);
	if (fp_inv(&n, &n) != 0)
		return -1;	/* the norm is zero only for zero */
	fp_mul(&out->c0, &a->c0, &n);
	fp_mul(&out->c1, &a->c1, &n);
	fp_neg(&out->c1, &out->c1);
	return 0;
}

/* The norms go through fp_batch_inv, so one Fp inversion in all. */
int fp2_batch_inv(fp2_t *out, const fp2_t *a, size_t n)
{
	fp_t *nv;

	if (n == 0)
		return 0;
	nv = malloc(n * sizeof(*nv));
	if (!nv)
		return -1;
	for (size_t i = 0; i < n; i++)
		fp2_norm(&nv[i], &a[i]);
	if (fp_batch_inv(nv, nv, n) != 0) {
		free(nv);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		fp_mul(&out[i].c0, &a[i].c0, &nv[i]);
		fp_mul(&out[i].c1, &a[i].c1, &nv[i]);
		fp_neg(&out[i].c1, &out[i].c1);
	}
	free(nv);
	return 0;
}

void fp2_pow(fp2_t *out, const fp2_t *a, const uint64_t *e, size_t n)
{
	fp2_t acc = FP2_ONE, base = *a;
	int started = 0;

	for (size_t i = 64 * n; i-- > 0;) {
		if (started)
			fp2_sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1) {
			fp2_mul(&acc, &acc, &base);
			started = 1;
		}
	}
	*out = acc;
}

/*
 * Algorithm 9 of eprint 2012/685 (q = p = 3 mod 4, u^2 = -1):
 *   a1 = a^((p-3)/4), alpha = a1^2 a = a^((p-1)/2), x0 = a1 a = a^((p+1)/4);
 *   alpha = -1: x = u x0;  otherwise x = (1 + alpha)^((p-1)/2) x0.
 * For a non-square the candidate does not square back to a, which is the
 * check made here (the paper tests alpha^p alpha = -1 earlier instead).
 */
int fp2_sqrt(fp2_t *out, const fp2_t *a)
{
	static const uint64_t pm3_4[6] = {
		0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
		0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL,
	};
	static const uint64_t pm1_2[6] = {
		0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
		0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL,
	};
	fp2_t a1, alpha, x0, x, c, minus_one;

	fp2_pow(&a1, a, pm3_4, 6);
	fp2_sqr(&alpha, &a1);
	fp2_mul(&alpha, &alpha, a);
	fp2_mul(&x0, &a1, a);
	fp2_neg(&minus_one, &FP2_ONE);
	if (fp2_equal(&alpha, &minus_one)) {
		/* u (c0 + c1 u) = -c1 + c0 u */
		fp_neg(&x.c0, &x0.c1);
		x.c1 = x0.c0;
	} else {
		fp2_t b;
		fp2_add(&b, &alpha, &FP2_ONE);
		fp2_pow(&b, &b, pm1_2, 6);
		fp2_mul(&x, &b, &x0);
	}
	fp2_sqr(&c, &x);
	if (!fp2_equal(&c, a))
		return -1;
	*out = x;
	return 0;
}
