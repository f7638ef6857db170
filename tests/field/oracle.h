/*
 * GMP oracle for the field tests: an fr_t is checked by its raw
 * Montgomery limbs against x * 2^256 mod r computed by libgmp, so no
 * check leans on the code under test (not even fr_to_limbs).
 */
#ifndef TESTS_FIELD_ORACLE_H
#define TESTS_FIELD_ORACLE_H

#include <stdio.h>	/* before gmp.h: enables gmp_fprintf */
#include <gmp.h>

#include "field/fr.h"
#include "tests/helpers.h"

static mpz_t o_r, o_R, o_Rinv;	/* r, 2^256 mod r, 2^-256 mod r */

static inline void o_init(void)
{
	mpz_inits(o_r, o_R, o_Rinv, NULL);
	mpz_set_str(o_r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
	mpz_set_ui(o_R, 1);
	mpz_mul_2exp(o_R, o_R, 256);
	mpz_mod(o_R, o_R, o_r);
	CHECK(mpz_invert(o_Rinv, o_R, o_r), "R not invertible");
}

static inline void o_set_limbs(mpz_t z, const uint64_t l[4])
{
	mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, l);
}

/* z must be in [0, 2^256). */
static inline void o_get_limbs(uint64_t l[4], const mpz_t z)
{
	size_t n = 0;
	memset(l, 0, 4 * sizeof(uint64_t));
	CHECK(mpz_sgn(z) >= 0 && mpz_sizeinbase(z, 2) <= 256, "value too wide");
	mpz_export(l, &n, -1, sizeof(uint64_t), 0, 0, z);
}

/* Does a hold exactly the Montgomery form of v (any integer)? */
static inline int o_is(const fr_t *a, const mpz_t v)
{
	mpz_t t;
	uint64_t l[4];
	mpz_init(t);
	mpz_mod(t, v, o_r);
	mpz_mul(t, t, o_R);
	mpz_mod(t, t, o_r);
	o_get_limbs(l, t);
	mpz_clear(t);
	return memcmp(l, a->l, sizeof(l)) == 0;
}

/* An element straight from its Montgomery limbs, built by the oracle. */
static inline void o_make(fr_t *a, const mpz_t v)
{
	mpz_t t;
	mpz_init(t);
	mpz_mod(t, v, o_r);
	mpz_mul(t, t, o_R);
	mpz_mod(t, t, o_r);
	o_get_limbs(a->l, t);
	mpz_clear(t);
}

static inline void o_fail_value(const char *what, const mpz_t want, const fr_t *got)
{
	mpz_t g;
	mpz_init(g);
	o_set_limbs(g, got->l);
	gmp_fprintf(stderr, "%s: want (plain) %#Zx, got (mont limbs) %#Zx\n", what, want, g);
	mpz_clear(g);
}

#define O_CHECK(a, v, what) do { \
	if (!o_is((a), (v))) { o_fail_value((what), (v), (a)); T_FAIL("%s mismatch", (what)); } \
} while (0)

#endif
