/*
 * GMP oracle for the Fp and Fp2 tests: an fp_t is checked by its raw
 * Montgomery limbs against x * 2^384 mod p computed by libgmp, so no check
 * leans on the code under test (not even fp_to_limbs). An fp2_t is a pair
 * (c0, c1) of such values, c0 + c1 u with u^2 = -1.
 */
#ifndef TESTS_FIELD_FP_ORACLE_H
#define TESTS_FIELD_FP_ORACLE_H

#include <stdio.h>	/* before gmp.h: enables gmp_fprintf */
#include <gmp.h>

#include "field/fp2.h"
#include "tests/helpers.h"

static mpz_t op_p, op_R;	/* p, 2^384 mod p */

static inline void op_init(void)
{
	mpz_inits(op_p, op_R, NULL);
	mpz_set_str(op_p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf"
		    "6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
	mpz_set_ui(op_R, 1);
	mpz_mul_2exp(op_R, op_R, 384);
	mpz_mod(op_R, op_R, op_p);
}

static inline void op_set_limbs(mpz_t z, const uint64_t l[6])
{
	mpz_import(z, 6, -1, sizeof(uint64_t), 0, 0, l);
}

/* z must be in [0, 2^384). */
static inline void op_get_limbs(uint64_t l[6], const mpz_t z)
{
	size_t n = 0;
	memset(l, 0, 6 * sizeof(uint64_t));
	CHECK(mpz_sgn(z) >= 0 && mpz_sizeinbase(z, 2) <= 384, "value too wide");
	mpz_export(l, &n, -1, sizeof(uint64_t), 0, 0, z);
}

/* The Montgomery limbs of v (any integer), computed by GMP. */
static inline void op_mont(uint64_t l[6], const mpz_t v)
{
	mpz_t t;
	mpz_init(t);
	mpz_mod(t, v, op_p);
	mpz_mul(t, t, op_R);
	mpz_mod(t, t, op_p);
	op_get_limbs(l, t);
	mpz_clear(t);
}

static inline int op_is(const fp_t *a, const mpz_t v)
{
	uint64_t l[6];
	op_mont(l, v);
	return memcmp(l, a->l, sizeof(l)) == 0;
}

static inline void op_make(fp_t *a, const mpz_t v)
{
	op_mont(a->l, v);
}

/* The plain value of a (from its limbs, by GMP). */
static inline void op_value(mpz_t v, const fp_t *a)
{
	mpz_t ri;
	mpz_init(ri);
	op_set_limbs(v, a->l);
	CHECK(mpz_invert(ri, op_R, op_p), "R not invertible");
	mpz_mul(v, v, ri);
	mpz_mod(v, v, op_p);
	mpz_clear(ri);
}

static inline void op_fail_value(const char *what, const mpz_t want, const fp_t *got)
{
	mpz_t g;
	mpz_init(g);
	op_set_limbs(g, got->l);
	gmp_fprintf(stderr, "%s: want (plain) %#Zx, got (mont limbs) %#Zx\n", what, want, g);
	mpz_clear(g);
}

#define OP_CHECK(a, v, what) do { \
	if (!op_is((a), (v))) { op_fail_value((what), (v), (a)); T_FAIL("%s mismatch", (what)); } \
} while (0)

#define OP2_CHECK(a, v0, v1, what) do { \
	OP_CHECK(&(a)->c0, (v0), what " (c0)"); \
	OP_CHECK(&(a)->c1, (v1), what " (c1)"); \
} while (0)

#endif
