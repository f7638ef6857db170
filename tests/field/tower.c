/*
 * Fp6 and Fp12 (field/fp12.h) on random elements: the field axioms, the
 * sparse and special forms against the general ones, the Frobenius maps
 * against exponentiation by p, p^2 and p^3 (GMP computes the exponents),
 * the cyclotomic squaring in the cyclotomic subgroup, the byte encoding.
 * fp12_mul is also checked against an oracle that shares nothing with the
 * tower: GMP schoolbook products in Fp[W] / (W^12 - 2 W^6 + 2), which is
 * the same field (w^6 = u + 1 and u^2 = -1 give (w^6 - 1)^2 = -1).
 * The products reduce lazily (field/fp_lazy.h), so the oracle also gets
 * elements whose coefficients sit at the edges (0, 1, p - 1, p - 2,
 * (p +- 1)/2), where unreduced sums come closest to their bounds; and
 * everything runs once per Fp implementation (portable, then adx).
 */
#include <stdio.h>	/* before gmp.h: enables gmp_* with FILE */
#include <gmp.h>

#include "field/fp12.h"
#include "tests/helpers.h"

#define ROUNDS T_SIZE(20, 5)

static uint64_t seed = 0x9e3779b97f4a7c15ULL;
static mpz_t p;

static void rand_fp(fp_t *a)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = t_rand(&seed);
		memcpy(b + i, &r, 8);
	}
	fp_from_bytes_wide(a, b);
}

/* With edge set, mostly values at the edges of [0, p) (mode 1), or
 * only p - 1 (mode 2). */
static int edge;

static void edge_fp(fp_t *a)
{
	static const uint64_t pm1[6] = {
		0xb9feffffffffaaaaULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
		0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
	};
	static const uint64_t half[6] = {	/* (p - 1)/2 */
		0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
		0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL,
	};
	uint64_t l[6];
	unsigned k = edge == 2 ? 0 : (unsigned)(t_rand(&seed) % 7);

	memcpy(l, k < 2 ? pm1 : half, sizeof l);
	switch (k) {
	case 1:
		l[0]--;			/* p - 2 */
		break;
	case 3:
		l[0]++;			/* (p + 1)/2 */
		break;
	case 4:
	case 5:
		memset(l, 0, sizeof l);
		l[0] = k - 4;		/* 0, 1 */
		break;
	case 6:
		rand_fp(a);
		return;
	}
	CHECK(fp_from_limbs(a, l) == 0, "edge value");
}

static void rand_fp2(fp2_t *a)
{
	if (edge) {
		edge_fp(&a->c0);
		edge_fp(&a->c1);
		return;
	}
	rand_fp(&a->c0);
	rand_fp(&a->c1);
}

static void rand_fp6(fp6_t *a)
{
	rand_fp2(&a->c0);
	rand_fp2(&a->c1);
	rand_fp2(&a->c2);
}

static void rand_fp12(fp12_t *a)
{
	rand_fp6(&a->c0);
	rand_fp6(&a->c1);
}

/* The plain little-endian limbs of z, n of them (zero-padded). */
static size_t limbs_of(uint64_t *l, size_t n, const mpz_t z)
{
	size_t cnt = 0;

	CHECK(mpz_sizeinbase(z, 2) <= 64 * n, "exponent too wide");
	memset(l, 0, n * sizeof *l);
	mpz_export(l, &cnt, -1, sizeof(uint64_t), 0, 0, z);
	return n;
}

/* ---- the GMP oracle: Fp[W] / (W^12 - 2 W^6 + 2) --------------------- */

static void fp_to_mpz(mpz_t z, const fp_t *a)
{
	uint8_t b[FP_BYTES];

	fp_to_bytes_be(b, a);
	mpz_import(z, FP_BYTES, 1, 1, 0, 0, b);
}

/* g_i = a + b u at w^i, u = w^6 - 1: (a - b) w^i + b w^(i+6). */
static void to_poly(mpz_t c[12], const fp12_t *x)
{
	const fp2_t *g[6] = { &x->c0.c0, &x->c1.c0, &x->c0.c1, &x->c1.c1, &x->c0.c2, &x->c1.c2 };
	mpz_t a, b;

	mpz_inits(a, b, NULL);
	for (int i = 0; i < 12; i++)
		mpz_set_ui(c[i], 0);
	for (int i = 0; i < 6; i++) {
		fp_to_mpz(a, &g[i]->c0);
		fp_to_mpz(b, &g[i]->c1);
		mpz_sub(a, a, b);
		mpz_add(c[i], c[i], a);
		mpz_add(c[i + 6], c[i + 6], b);
	}
	for (int i = 0; i < 12; i++)
		mpz_mod(c[i], c[i], p);
	mpz_clears(a, b, NULL);
}

/* c = a b mod (W^12 - 2 W^6 + 2): W^k for k >= 12 becomes 2 W^(k-6) - 2 W^(k-12). */
static void poly_mul(mpz_t c[12], mpz_t a[12], mpz_t b[12])
{
	mpz_t t[23];

	for (int i = 0; i < 23; i++)
		mpz_init(t[i]);
	for (int i = 0; i < 12; i++)
		for (int j = 0; j < 12; j++)
			mpz_addmul(t[i + j], a[i], b[j]);
	for (int k = 22; k >= 12; k--) {
		mpz_addmul_ui(t[k - 6], t[k], 2);
		mpz_submul_ui(t[k - 12], t[k], 2);
		mpz_set_ui(t[k], 0);
	}
	for (int i = 0; i < 12; i++)
		mpz_mod(c[i], t[i], p);
	for (int i = 0; i < 23; i++)
		mpz_clear(t[i]);
}

static void check_oracle(void)
{
	mpz_t a[12], b[12], c[12], d[12];

	for (int i = 0; i < 12; i++)
		mpz_inits(a[i], b[i], c[i], d[i], NULL);
	for (int r = 0; r < 3 * ROUNDS; r++) {
		fp12_t x, y, z, l;

		edge = r < ROUNDS ? 0 : r < 2 * ROUNDS ? 1 : r == 2 * ROUNDS ? 2 : 1;
		rand_fp12(&x);
		rand_fp12(&y);
		edge = 0;

		/* y's line-shaped part: y0 + y2 w^2 + y3 w^3 */
		memset(&l, 0, sizeof l);
		l.c0.c0 = y.c0.c0;
		l.c0.c1 = y.c0.c1;
		l.c1.c1 = y.c1.c1;
		fp12_mul_by_014(&z, &x, &y.c0.c0, &y.c0.c1, &y.c1.c1);
		to_poly(a, &x);
		to_poly(b, &l);
		poly_mul(c, a, b);
		to_poly(d, &z);
		for (int i = 0; i < 12; i++)
			CHECK(mpz_cmp(c[i], d[i]) == 0, "fp12_mul_by_014 differs from the GMP oracle (round %d, W^%d)", r, i);

		/* Fp6 (the c0 halves alone): the oracle on elements of Fp6 */
		memset(&l, 0, sizeof l);
		l.c0 = y.c0;
		memset(&z, 0, sizeof z);
		fp6_mul(&z.c0, &x.c0, &y.c0);
		memset(&x.c1, 0, sizeof x.c1);
		to_poly(a, &x);
		to_poly(b, &l);
		poly_mul(c, a, b);
		to_poly(d, &z);
		for (int i = 0; i < 12; i++)
			CHECK(mpz_cmp(c[i], d[i]) == 0, "fp6_mul differs from the GMP oracle (round %d, W^%d)", r, i);
		fp6_sqr(&z.c0, &x.c0);
		poly_mul(c, a, a);
		to_poly(d, &z);
		for (int i = 0; i < 12; i++)
			CHECK(mpz_cmp(c[i], d[i]) == 0, "fp6_sqr differs from the GMP oracle (round %d, W^%d)", r, i);

		edge = r < ROUNDS ? 0 : r < 2 * ROUNDS ? 1 : r == 2 * ROUNDS ? 2 : 1;
		rand_fp12(&x);
		edge = 0;
		fp12_mul(&z, &x, &y);
		to_poly(a, &x);
		to_poly(b, &y);
		poly_mul(c, a, b);
		to_poly(d, &z);
		for (int i = 0; i < 12; i++)
			CHECK(mpz_cmp(c[i], d[i]) == 0, "fp12_mul differs from the GMP oracle (round %d, W^%d)", r, i);
		fp12_sqr(&z, &x);
		poly_mul(c, a, a);
		to_poly(d, &z);
		for (int i = 0; i < 12; i++)
			CHECK(mpz_cmp(c[i], d[i]) == 0, "fp12_sqr differs from the GMP oracle (round %d, W^%d)", r, i);
	}
	for (int i = 0; i < 12; i++)
		mpz_clears(a[i], b[i], c[i], d[i], NULL);
}

/* ---- Fp6 ------------------------------------------------------------ */

static void check_fp6(void)
{
	CHECK(fp_equal(&FP6_ONE.c0.c0, &FP_ONE) && fp_is_zero(&FP6_ONE.c0.c1) &&
	      fp2_is_zero(&FP6_ONE.c1) && fp2_is_zero(&FP6_ONE.c2), "FP6_ONE is not 1");
	CHECK(fp6_is_zero(&FP6_ZERO), "FP6_ZERO");
	for (int r = 0; r < ROUNDS; r++) {
		fp6_t a, b, c, x, y, v = FP6_ZERO;

		rand_fp6(&a);
		rand_fp6(&b);
		rand_fp6(&c);
		fp6_mul(&x, &a, &b);
		fp6_mul(&y, &b, &a);
		CHECK(fp6_equal(&x, &y), "fp6 mul commutes");
		fp6_mul(&x, &x, &c);
		fp6_mul(&y, &b, &c);
		fp6_mul(&y, &a, &y);
		CHECK(fp6_equal(&x, &y), "fp6 mul associates");
		fp6_add(&x, &b, &c);
		fp6_mul(&x, &a, &x);
		fp6_mul(&y, &a, &b);
		fp6_mul(&v, &a, &c);
		fp6_add(&y, &y, &v);
		CHECK(fp6_equal(&x, &y), "fp6 distributes");
		fp6_sub(&x, &a, &b);
		fp6_add(&x, &x, &b);
		CHECK(fp6_equal(&x, &a), "fp6 a - b + b = a");
		fp6_neg(&x, &a);
		fp6_add(&x, &x, &a);
		CHECK(fp6_is_zero(&x), "fp6 a + -a = 0");
		fp6_sqr(&x, &a);
		fp6_mul(&y, &a, &a);
		CHECK(fp6_equal(&x, &y), "fp6 sqr = mul self");
		CHECK(fp6_inv(&x, &a) == 0, "fp6_inv of a random element");
		fp6_mul(&x, &x, &a);
		CHECK(fp6_equal(&x, &FP6_ONE), "fp6 a * a^-1 = 1");

		v = FP6_ZERO;
		v.c1 = FP2_ONE;			/* v itself */
		fp6_mul_by_nonresidue(&x, &a);
		fp6_mul(&y, &a, &v);
		CHECK(fp6_equal(&x, &y), "fp6_mul_by_nonresidue = mul by v");
		fp6_mul(&x, &v, &v);
		fp6_mul(&x, &x, &v);
		CHECK(fp_equal(&x.c0.c0, &FP_ONE) && fp_equal(&x.c0.c1, &FP_ONE) &&
		      fp2_is_zero(&x.c1) && fp2_is_zero(&x.c2), "v^3 = u + 1");

		v = b;
		v.c2 = FP2_ZERO;
		fp6_mul_by_01(&x, &a, &b.c0, &b.c1);
		fp6_mul(&y, &a, &v);
		CHECK(fp6_equal(&x, &y), "fp6_mul_by_01 = full mul");
		v.c0 = FP2_ZERO;
		fp6_mul_by_1(&x, &a, &b.c1);
		fp6_mul(&y, &a, &v);
		CHECK(fp6_equal(&x, &y), "fp6_mul_by_1 = full mul");
	}
	fp6_t z = FP6_ZERO, x = FP6_ONE;
	CHECK(fp6_inv(&x, &z) == -1 && fp6_equal(&x, &FP6_ONE), "fp6_inv(0) refused, out untouched");
}

/* ---- Fp12 ----------------------------------------------------------- */

static void check_fp12(void)
{
	fp12_t w = FP12_ONE;

	CHECK(fp12_is_one(&FP12_ONE) && fp_equal(&FP12_ONE.c0.c0.c0, &FP_ONE), "FP12_ONE is 1");
	w.c0 = FP6_ZERO;
	w.c1 = FP6_ONE;				/* w itself */
	fp12_mul(&w, &w, &w);
	CHECK(fp6_is_zero(&w.c1) && fp2_is_zero(&w.c0.c0) && fp2_equal(&w.c0.c1, &FP2_ONE) &&
	      fp2_is_zero(&w.c0.c2), "w^2 = v");

	for (int r = 0; r < ROUNDS; r++) {
		fp12_t a, b, c, x, y, t;

		rand_fp12(&a);
		rand_fp12(&b);
		rand_fp12(&c);
		fp12_mul(&x, &a, &b);
		fp12_mul(&y, &b, &a);
		CHECK(fp12_equal(&x, &y), "fp12 mul commutes");
		fp12_mul(&x, &x, &c);
		fp12_mul(&y, &b, &c);
		fp12_mul(&y, &a, &y);
		CHECK(fp12_equal(&x, &y), "fp12 mul associates");
		fp12_add(&x, &b, &c);
		fp12_mul(&x, &a, &x);
		fp12_mul(&y, &a, &b);
		fp12_mul(&t, &a, &c);
		fp12_add(&y, &y, &t);
		CHECK(fp12_equal(&x, &y), "fp12 distributes");
		fp12_sub(&x, &a, &b);
		fp12_add(&x, &x, &b);
		CHECK(fp12_equal(&x, &a), "fp12 a - b + b = a");
		fp12_sqr(&x, &a);
		fp12_mul(&y, &a, &a);
		CHECK(fp12_equal(&x, &y), "fp12 sqr = mul self");
		CHECK(fp12_inv(&x, &a) == 0, "fp12_inv of a random element");
		fp12_mul(&x, &x, &a);
		CHECK(fp12_is_one(&x), "fp12 a * a^-1 = 1");
		CHECK(!fp12_is_one(&a) && !fp12_equal(&a, &b), "random elements differ");

		/* a line: c0 + c1 w^2 + c4 w^3 = (c0 + c1 v) + (c4 v) w */
		t.c0 = FP6_ZERO;
		t.c1 = FP6_ZERO;
		t.c0.c0 = b.c0.c0;
		t.c0.c1 = b.c0.c1;
		t.c1.c1 = b.c1.c1;
		fp12_mul_by_014(&x, &a, &b.c0.c0, &b.c0.c1, &b.c1.c1);
		fp12_mul(&y, &a, &t);
		CHECK(fp12_equal(&x, &y), "fp12_mul_by_014 = full mul by the sparse element");

		/* conj is the p^6 power: a * conj(a) lies in Fp6 */
		fp12_conj(&x, &a);
		fp12_mul(&x, &x, &a);
		CHECK(fp6_is_zero(&x.c1), "a * conj(a) in Fp6");

		uint8_t buf[FP12_BYTES];
		fp12_to_bytes(buf, &a);
		CHECK(fp12_from_bytes(&x, buf) == 0 && fp12_equal(&x, &a), "bytes round trip");
		memset(buf + 5 * FP_BYTES, 0xff, FP_BYTES);
		x = b;
		CHECK(fp12_from_bytes(&x, buf) == -1 && fp12_equal(&x, &b), "coefficient >= p refused");
	}
	/* the order of the bytes: v = w^2 is 1 at c0.c1.c0, the third Fp */
	uint8_t buf[FP12_BYTES], want[FP12_BYTES] = { 0 };
	fp12_to_bytes(buf, &w);
	want[3 * FP_BYTES - 1] = 1;
	CHECK(memcmp(buf, want, sizeof buf) == 0, "v encodes as 1 in the third 48-byte field (c0.c1.c0)");
}

static void check_frobenius(void)
{
	uint64_t e[18];
	mpz_t z;
	fp12_t a, x, y;

	mpz_init(z);
	/* random elements, then sparse ones (w, v w, u w^5): zero
	 * coefficients take other paths through conj and neg */
	for (int r = 0; r < 6; r++) {
		if (r < 3) {
			rand_fp12(&a);
		} else {
			memset(&a, 0, sizeof a);
			if (r == 3)
				a.c1.c0.c0 = FP_ONE;
			else if (r == 4)
				a.c1.c1.c0 = FP_ONE;
			else
				a.c1.c2.c1 = FP_ONE;
		}
		for (unsigned k = 1; k <= 3; k++) {
			mpz_pow_ui(z, p, k);
			fp12_pow_limbs(&y, &a, e, limbs_of(e, 6 * k, z));
			fp12_frobenius(&x, &a, k);
			CHECK(fp12_equal(&x, &y), "fp12_frobenius(a, %u) = a^(p^%u)", k, k);
		}
		fp12_frobenius(&x, &a, 6);
		fp12_conj(&y, &a);
		CHECK(fp12_equal(&x, &y), "frobenius^6 = conj");
		fp12_frobenius(&x, &a, 12);
		CHECK(fp12_equal(&x, &a), "frobenius^12 = identity");
		fp12_frobenius(&x, &a, 1);
		CHECK(!fp12_equal(&x, &a), "frobenius moves a random element");
	}
	mpz_clear(z);
}

static void check_cyclotomic(void)
{
	uint64_t e[48];
	mpz_t z, t;
	fp12_t a, m, x, y;

	mpz_inits(z, t, NULL);
	/* (p^6 - 1)(p^2 + 1) */
	mpz_pow_ui(z, p, 6);
	mpz_sub_ui(z, z, 1);
	mpz_pow_ui(t, p, 2);
	mpz_add_ui(t, t, 1);
	mpz_mul(z, z, t);
	size_t n = limbs_of(e, 48, z);
	for (int r = 0; r < 2; r++) {
		rand_fp12(&a);
		fp12_pow_limbs(&m, &a, e, n);
		fp12_cyclotomic_sqr(&x, &m);
		fp12_sqr(&y, &m);
		CHECK(fp12_equal(&x, &y), "cyclotomic_sqr = sqr in the cyclotomic subgroup");
		fp12_cyclotomic_sqr(&x, &x);
		fp12_sqr(&y, &y);
		CHECK(fp12_equal(&x, &y), "twice");
		fp12_cyclotomic_sqr(&x, &a);
		fp12_sqr(&y, &a);
		CHECK(!fp12_equal(&x, &y), "differs outside it (so the check above means something)");
	}
	mpz_clears(z, t, NULL);
}

int main(void)
{
	static const char *const impls[] = { "portable", "adx" };

	mpz_init_set_str(p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
			 "1eabfffeb153ffffb9feffffffffaaab", 16);
	for (int i = 0; i < 2; i++) {
		if (fp_set_impl(impls[i]) != 0) {
			printf("info: %s not available on this CPU\n", impls[i]);
			continue;
		}
		check_fp6();
		check_fp12();
		check_oracle();
		check_frobenius();
		check_cyclotomic();
		printf("info: %s: fp6/fp12 axioms, GMP oracle (random and edge coefficients), "
		       "frobenius p^1..3, cyclotomic squaring: %d rounds\n", impls[i], ROUNDS);
	}
	mpz_clear(p);
	return 0;
}
