/*
 * field_constants: Fr's constants re-derived from first principles with
 * libgmp (r prime, R = 2^256 mod r, R^2, -r^-1 mod 2^64, 7 a non-residue,
 * the 2^32-th root of unity), then the root's order checked with the
 * field's own arithmetic under each implementation.
 */
#include "tests/field/oracle.h"

static void check_limbs(const char *what, const uint64_t got[4], const mpz_t want)
{
	uint64_t l[4];
	o_get_limbs(l, want);
	if (memcmp(l, got, sizeof(l)) != 0) {
		gmp_fprintf(stderr, "%s: want %#Zx\n", what, want);
		T_FAIL("%s wrong", what);
	}
}

static void check_gmp_side(void)
{
	mpz_t t, e, w;
	mpz_inits(t, e, w, NULL);

	o_set_limbs(t, FR_MODULUS);
	CHECK(mpz_cmp(t, o_r) == 0, "FR_MODULUS is not r");
	CHECK(mpz_probab_prime_p(o_r, 50) > 0, "r is not prime");
	mpz_sub_ui(t, o_r, 1);
	CHECK(mpz_scan1(t, 0) == FR_TWO_ADICITY, "two-adicity of r-1 is not 32");

	check_limbs("FR_ONE (R mod r)", FR_ONE.l, o_R);
	mpz_mul(t, o_R, o_R);
	mpz_mod(t, t, o_r);
	check_limbs("FR_R2", FR_R2, t);

	/* INV: r * INV = -1 mod 2^64, both in plain C and via GMP's inverse */
	CHECK(FR_MODULUS[0] * FR_INV == ~0ULL, "r0 * INV != -1 mod 2^64");
	mpz_set_ui(w, 1);
	mpz_mul_2exp(w, w, 64);
	CHECK(mpz_invert(t, o_r, w), "r not invertible mod 2^64");
	mpz_sub(t, w, t);
	CHECK(mpz_cmp_ui(t, FR_INV) == 0 || mpz_get_ui(t) == FR_INV, "FR_INV != -r^-1 mod 2^64");

	mpz_set_ui(t, 7);
	CHECK(mpz_legendre(t, o_r) == -1, "7 is a quadratic residue mod r");
	CHECK(o_is(&FR_GENERATOR, t), "FR_GENERATOR is not 7");

	/* w = 7^((r-1) >> 32), and bellperson's published value */
	mpz_sub_ui(e, o_r, 1);
	mpz_fdiv_q_2exp(e, e, 32);
	mpz_powm(w, t, e, o_r);
	mpz_set_str(t, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b", 16);
	CHECK(mpz_cmp(w, t) == 0, "7^((r-1)>>32) is not bellperson's root of unity");
	CHECK(o_is(&FR_ROOT_OF_UNITY, w), "FR_ROOT_OF_UNITY");
	mpz_clears(t, e, w, NULL);
}

/* The same facts through the field's own arithmetic. */
static void check_field_side(const char *impl)
{
	fr_t w = FR_ROOT_OF_UNITY, one, minus_one, t;
	uint64_t e[4];

	CHECK(fr_set_impl(impl) == 0, "fr_set_impl(%s)", impl);
	fr_from_u64(&one, 1);
	CHECK(fr_equal(&one, &FR_ONE), "from_u64(1) != FR_ONE");
	fr_neg(&minus_one, &one);

	for (int i = 0; i < 31; i++)
		fr_sqr(&w, &w);
	CHECK(fr_equal(&w, &minus_one), "%s: w^(2^31) != -1", impl);
	fr_sqr(&w, &w);
	CHECK(fr_equal(&w, &one), "%s: w^(2^32) != 1", impl);

	memcpy(e, FR_MODULUS, sizeof(e));
	e[0] -= 1;	/* r - 1, even: shift right by one */
	for (int i = 0; i < 4; i++)
		e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);
	fr_pow(&t, &FR_GENERATOR, e);
	CHECK(fr_equal(&t, &minus_one), "%s: 7^((r-1)/2) != -1: 7 must be a non-residue", impl);

	fr_from_u64(&t, 7);
	CHECK(fr_equal(&t, &FR_GENERATOR), "from_u64(7) != FR_GENERATOR");
	printf("info: %s: w^(2^31) = -1, w^(2^32) = 1, 7^((r-1)/2) = -1\n", impl);
}

int main(void)
{
	o_init();
	check_gmp_side();
	check_field_side("portable");
	if (fr_have_adx())
		check_field_side("adx");
	else
		printf("info: adx path not checked: CPU lacks BMI2/ADX\n");
	return 0;
}
