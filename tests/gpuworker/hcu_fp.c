/*
 * The CUDA MSM's Fp arithmetic (gpuworker/hcu_fp.cuh), compiled for the
 * host, against two references: GMP (the values) and field/fp.c (the very
 * words: hcu_fp and fp_t share Montgomery form, so every result must be
 * bit for bit the CPU's, on both of fp.c's paths). Edge values (0, 1, 2,
 * p-1, p-2, (p+-1)/2, 2^381 mod p, 2^383 mod p) against each other, then
 * random pairs. The device runs the same source with __umul64hi.
 */
#include <stdio.h>

#include <gmp.h>

#include "tests/helpers.h"
#include "field/fp.h"
#include "gpuworker/hcu_fp.cuh"

#define RANDOM_PAIRS T_SIZE(50000, 5000)

_Static_assert(sizeof(hcu_fp) == sizeof(fp_t), "hcu_fp must be laid out as fp_t");

static mpz_t P, R, RINV;

static void to_mpz(mpz_t z, const hcu_fp *a)
{
	mpz_import(z, 6, -1, sizeof(uint64_t), 0, 0, a->l);
}

/* Montgomery element -> its value x (a = x R mod p). */
static void value_of(mpz_t v, const hcu_fp *a)
{
	to_mpz(v, a);
	mpz_mul(v, v, RINV);
	mpz_mod(v, v, P);
}

/* value v (< p) -> Montgomery element, by GMP alone. */
static void mont_of(hcu_fp *a, const mpz_t v)
{
	mpz_t t;
	size_t cnt = 0;

	mpz_init(t);
	mpz_mul(t, v, R);
	mpz_mod(t, t, P);
	memset(a, 0, sizeof(*a));
	mpz_export(a->l, &cnt, -1, sizeof(uint64_t), 0, 0, t);
	mpz_clear(t);
}

static void rand_fp(hcu_fp *a, uint64_t *seed)
{
	mpz_t v;

	mpz_init(v);
	do {
		for (int i = 0; i < 6; i++)
			a->l[i] = t_rand(seed);
		a->l[5] &= (1ULL << 61) - 1;
		to_mpz(v, a);
	} while (mpz_cmp(v, P) >= 0);
	mpz_clear(v);
}

enum op { OP_ADD, OP_SUB, OP_MUL, OP_SQR, OP_NEG, OP_NOPS };
static const char *op_name[] = { "add", "sub", "mul", "sqr", "neg" };

/* One operation: GMP's value, and fp.c's words (fp_t copied byte for byte). */
static void check_op(enum op op, const hcu_fp *a, const hcu_fp *b)
{
	mpz_t va, vb, want;
	hcu_fp out, ref, alias = *a;
	fp_t fa, fb, fo;

	mpz_inits(va, vb, want, NULL);
	value_of(va, a);
	value_of(vb, b);
	memcpy(&fa, a, sizeof(fa));
	memcpy(&fb, b, sizeof(fb));
	switch (op) {
	case OP_ADD: hcu_fp_add(&out, a, b); hcu_fp_add(&alias, &alias, b);
		fp_add(&fo, &fa, &fb); mpz_add(want, va, vb); break;
	case OP_SUB: hcu_fp_sub(&out, a, b); hcu_fp_sub(&alias, &alias, b);
		fp_sub(&fo, &fa, &fb); mpz_sub(want, va, vb); break;
	case OP_MUL: hcu_fp_mul(&out, a, b); hcu_fp_mul(&alias, &alias, b);
		fp_mul(&fo, &fa, &fb); mpz_mul(want, va, vb); break;
	case OP_SQR: hcu_fp_sqr(&out, a); hcu_fp_sqr(&alias, &alias);
		fp_sqr(&fo, &fa); mpz_mul(want, va, va); break;
	default: hcu_fp_neg(&out, a); hcu_fp_neg(&alias, &alias);
		fp_neg(&fo, &fa); mpz_neg(want, va); break;
	}
	mpz_mod(want, want, P);
	mont_of(&ref, want);
	if (!hcu_fp_equal(&out, &ref)) {
		gmp_fprintf(stderr, "%s(%Zx, %Zx): expected %Zx\n", op_name[op], va, vb, want);
		T_FAIL("hcu_fp_%s disagrees with GMP", op_name[op]);
	}
	CHECK(hcu_fp_equal(&alias, &ref), "hcu_fp_%s with out == a differs", op_name[op]);
	CHECK(memcmp(&fo, &out, sizeof(fo)) == 0, "hcu_fp_%s differs from fp_%s (%s) bit for bit",
	      op_name[op], op_name[op], fp_impl_name());
	mpz_clears(va, vb, want, NULL);
}

static void check_inv(uint64_t *seed)
{
	hcu_fp a, x, one = hcu_fp_one(), z = hcu_fp_zero();
	fp_t fa, fx;

	for (int i = 0; i < T_SIZE(100, 20); i++) {
		rand_fp(&a, seed);
		hcu_fp_inv(&x, &a);
		memcpy(&fa, &a, sizeof(fa));
		if (!hcu_fp_is_zero(&a)) {
			CHECK(fp_inv(&fx, &fa) == 0, "fp_inv");
			CHECK(memcmp(&fx, &x, sizeof(fx)) == 0, "hcu_fp_inv differs from fp_inv");
			hcu_fp_mul(&x, &x, &a);
			CHECK(hcu_fp_equal(&x, &one), "a * hcu_fp_inv(a) != 1");
		}
	}
	hcu_fp_inv(&x, &z);
	CHECK(hcu_fp_is_zero(&x), "hcu_fp_inv(0) != 0");
}

static int run(uint64_t seed)
{
	hcu_fp edge[10], one = hcu_fp_one();
	mpz_t v;
	int ne = 0;

	mpz_init(v);
	const long small[] = { 0, 1, 2, -1, -2 };
	for (int i = 0; i < 5; i++) {
		mpz_set_si(v, small[i]);
		mpz_mod(v, v, P);
		mont_of(&edge[ne++], v);
	}
	mpz_sub_ui(v, P, 1);
	mpz_fdiv_q_2exp(v, v, 1);
	mont_of(&edge[ne++], v);	/* (p-1)/2 */
	mpz_add_ui(v, v, 1);
	mont_of(&edge[ne++], v);	/* (p+1)/2 */
	for (int bit = 381; bit <= 383; bit += 2) {
		mpz_set_ui(v, 0);
		mpz_setbit(v, bit);
		mpz_mod(v, v, P);
		mont_of(&edge[ne++], v);
	}
	mpz_set_ui(v, 1);
	value_of(v, &one);
	CHECK(mpz_cmp_ui(v, 1) == 0, "HCU_FP_ONE is not R mod p");
	CHECK_EQ_U64(HCU_FP_INV * HCU_FP_P0, (uint64_t)-1);
	/* Raw words p-1 and 0 as stored (not only values mapped to them). */
	hcu_fp top = { { HCU_FP_P0 - 1, HCU_FP_P1, HCU_FP_P2, HCU_FP_P3, HCU_FP_P4, HCU_FP_P5 } };
	edge[ne++] = top;
	for (int op = 0; op < OP_NOPS; op++)
		for (int i = 0; i < ne; i++)
			for (int j = 0; j < ne; j++)
				check_op((enum op)op, &edge[i], &edge[j]);
	for (int op = 0; op < OP_NOPS; op++)
		for (int n = 0; n < RANDOM_PAIRS; n++) {
			hcu_fp a, b;

			rand_fp(&a, &seed);
			rand_fp(&b, &seed);
			check_op((enum op)op, &a, &b);
		}
	check_inv(&seed);
	mpz_clear(v);
	return ne;
}

int main(void)
{
	int ne;

	mpz_inits(P, R, RINV, NULL);
	mpz_set_str(P, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
		    "1eabfffeb153ffffb9feffffffffaaab", 16);
	mpz_setbit(R, 384);
	mpz_invert(RINV, R, P);

	CHECK(fp_set_impl("portable") == 0, "fp portable path");
	ne = run(0x6863755f66702121ULL);
	if (fp_set_impl("adx") == 0) {
		run(0x6863755f66702122ULL);
		printf("info: hcu_fp: also bit for bit with fp.c's adx path\n");
	}
	printf("info: hcu_fp: add, sub, mul, sqr, neg agree with GMP and fp.c on %d random pairs each"
	       " and %d edge pairs; inv too\n", RANDOM_PAIRS, ne * ne);
	mpz_clears(P, R, RINV, NULL);
	return 0;
}
