/*
 * The CUDA backend's Fr arithmetic (gpuworker/hcu_fr.cuh), compiled for the
 * host, against GMP as an independent oracle: edge values and 10^5 random
 * operand pairs per operation, plus the constants from first principles.
 * The device runs the same source with __umul64hi in place of __int128, so
 * this is the evidence for the device arithmetic on machines without a GPU.
 */
#include <stdio.h>

#include <gmp.h>

#include "tests/helpers.h"
#include "gpuworker/hcu_fr.cuh"

#define RANDOM_PAIRS T_SIZE(100000, 10000)

static mpz_t P, R, RINV;

static void to_mpz(mpz_t z, const hcu_fr *a)
{
	mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, a->l);
}

static void from_mpz(hcu_fr *a, const mpz_t z)
{
	size_t cnt = 0;

	memset(a, 0, sizeof(*a));
	mpz_export(a->l, &cnt, -1, sizeof(uint64_t), 0, 0, z);
	CHECK(cnt <= 4, "value too large to export");
}

/* Montgomery element -> its value x (a = x R mod p). */
static void value_of(mpz_t v, const hcu_fr *a)
{
	to_mpz(v, a);
	mpz_mul(v, v, RINV);
	mpz_mod(v, v, P);
}

/* value v (< p) -> Montgomery element, computed by GMP only. */
static void mont_of(hcu_fr *a, const mpz_t v)
{
	mpz_t t;

	mpz_init(t);
	mpz_mul(t, v, R);
	mpz_mod(t, t, P);
	from_mpz(a, t);
	mpz_clear(t);
}

static int fully_reduced(const hcu_fr *a)
{
	mpz_t t;
	int ok;

	mpz_init(t);
	to_mpz(t, a);
	ok = mpz_cmp(t, P) < 0;
	mpz_clear(t);
	return ok;
}

/* Random Montgomery element, uniform below p (rejection sampling). */
static void rand_fr(hcu_fr *a, uint64_t *seed)
{
	mpz_t t;

	mpz_init(t);
	do {
		for (int i = 0; i < 4; i++)
			a->l[i] = t_rand(seed);
		a->l[3] &= 0x7fffffffffffffffULL;
		to_mpz(t, a);
	} while (mpz_cmp(t, P) >= 0);
	mpz_clear(t);
}

enum op { OP_ADD, OP_SUB, OP_MUL, OP_SQR };
static const char *op_name[] = { "add", "sub", "mul", "sqr" };

/* One operation on Montgomery elements a, b checked against GMP. */
static void check_op(enum op op, const hcu_fr *a, const hcu_fr *b)
{
	mpz_t va, vb, want, got;
	hcu_fr out, ref;

	mpz_inits(va, vb, want, got, NULL);
	value_of(va, a);
	value_of(vb, b);
	switch (op) {
	case OP_ADD: hcu_add(&out, a, b); mpz_add(want, va, vb); break;
	case OP_SUB: hcu_sub(&out, a, b); mpz_sub(want, va, vb); break;
	case OP_MUL: hcu_mul(&out, a, b); mpz_mul(want, va, vb); break;
	case OP_SQR: hcu_sqr(&out, a); mpz_mul(want, va, va); break;
	}
	mpz_mod(want, want, P);
	mont_of(&ref, want);
	if (!fully_reduced(&out) || !hcu_equal(&out, &ref)) {
		value_of(got, &out);
		gmp_fprintf(stderr, "%s(%Zx, %Zx) = %Zx, expected %Zx\n",
			    op_name[op], va, vb, got, want);
		T_FAIL("hcu_%s disagrees with GMP", op_name[op]);
	}
	/* Aliasing: out == a. */
	if (op != OP_SQR) {
		hcu_fr x = *a;
		if (op == OP_ADD) hcu_add(&x, &x, b);
		if (op == OP_SUB) hcu_sub(&x, &x, b);
		if (op == OP_MUL) hcu_mul(&x, &x, b);
		CHECK(hcu_equal(&x, &ref), "hcu_%s with out == a differs", op_name[op]);
	}
	mpz_clears(va, vb, want, got, NULL);
}

static void check_constants(void)
{
	hcu_fr one = hcu_one(), r2 = HCU_R2_INIT, root_c = HCU_ROOT_CANON_INIT, w, t, g;
	mpz_t z, e;

	mpz_inits(z, e, NULL);
	/* one = R mod p; R2 = R^2 mod p; INV * p = -1 mod 2^64. */
	to_mpz(z, &one);
	mpz_mod(e, R, P);
	CHECK(mpz_cmp(z, e) == 0, "HCU_ONE is not R mod r");
	to_mpz(z, &r2);
	mpz_mul(e, R, R);
	mpz_mod(e, e, P);
	CHECK(mpz_cmp(z, e) == 0, "HCU_R2 is not R^2 mod r");
	CHECK_EQ_U64(HCU_INV * HCU_P0, (uint64_t)-1);
	/* root = 7^((p-1) >> 32) */
	mpz_sub_ui(e, P, 1);
	mpz_fdiv_q_2exp(e, e, 32);
	mpz_set_ui(z, 7);
	mpz_powm(z, z, e, P);
	to_mpz(e, &root_c);
	CHECK(mpz_cmp(z, e) == 0, "HCU_ROOT_CANON is not 7^((r-1)>>32)");
	/* In Montgomery form through hcu: w^(2^31) = -1, w^(2^32) = 1. */
	hcu_to_mont(&w, &root_c);
	t = w;
	for (int i = 0; i < 31; i++)
		hcu_sqr(&t, &t);
	hcu_add(&t, &t, &one);
	CHECK(hcu_is_zero(&t), "w^(2^31) != -1");
	/* Round trip and the generator. */
	hcu_from_mont(&t, &w);
	CHECK(hcu_equal(&t, &root_c), "from_mont(to_mont(w)) != w");
	hcu_from_u64(&g, 7);
	value_of(z, &g);
	CHECK(mpz_cmp_ui(z, 7) == 0, "hcu_from_u64(7) is wrong");
	mpz_clears(z, e, NULL);
}

static void check_pow_inv(uint64_t *seed)
{
	for (int i = 0; i < 200; i++) {
		hcu_fr a, x, y, one = hcu_one();
		uint64_t e = t_rand(seed);
		mpz_t va, want;

		rand_fr(&a, seed);
		mpz_inits(va, want, NULL);
		value_of(va, &a);
		mpz_powm_ui(want, va, e, P);
		hcu_pow_u64(&x, &a, e);
		value_of(va, &x);
		CHECK(mpz_cmp(va, want) == 0, "hcu_pow_u64 disagrees with GMP");
		hcu_inv(&y, &a);
		hcu_mul(&y, &y, &a);
		CHECK(hcu_equal(&y, &one), "a * hcu_inv(a) != 1");
		mpz_clears(va, want, NULL);
	}
	hcu_fr z = { { 0, 0, 0, 0 } }, zi;
	hcu_inv(&zi, &z);
	CHECK(hcu_is_zero(&zi), "hcu_inv(0) != 0");
}

int main(void)
{
	uint64_t seed = 0x6863755f66722121ULL;
	hcu_fr edge[8];
	mpz_t v;
	int ne = 0;

	mpz_inits(P, R, RINV, v, NULL);
	mpz_set_str(P, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
	mpz_setbit(R, 256);
	mpz_invert(RINV, R, P);

	check_constants();

	/* The device's input check: below r is canonical, r and above not. */
	{
		static const struct { hcu_fr x; int ok; } c[] = {
			{ { { 0, 0, 0, 0 } }, 1 },
			{ { { HCU_P0 - 1, HCU_P1, HCU_P2, HCU_P3 } }, 1 },
			{ { { HCU_P0, HCU_P1, HCU_P2, HCU_P3 } }, 0 },
			{ { { HCU_P0 + 1, HCU_P1, HCU_P2, HCU_P3 } }, 0 },
			{ { { 0, 0, 0, HCU_P3 + 1 } }, 0 },
			{ { { ~0ULL, ~0ULL, ~0ULL, HCU_P3 - 1 } }, 1 },
			{ { { ~0ULL, ~0ULL, ~0ULL, ~0ULL } }, 0 },
		};
		for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			CHECK(hcu_canonical(&c[i].x) == c[i].ok, "hcu_canonical, case %u", i);
	}

	/* Edge values: 0, 1, 2, r-1, r-2, (r-1)/2, 2^254, 2^255 mod r. */
	const long small[] = { 0, 1, 2, -1, -2 };
	for (int i = 0; i < 5; i++) {
		mpz_set_si(v, small[i]);
		mpz_mod(v, v, P);
		mont_of(&edge[ne++], v);
	}
	mpz_sub_ui(v, P, 1);
	mpz_fdiv_q_2exp(v, v, 1);
	mont_of(&edge[ne++], v);
	mpz_set_ui(v, 0);
	mpz_setbit(v, 254);
	mont_of(&edge[ne++], v);
	mpz_set_ui(v, 0);
	mpz_setbit(v, 255);
	mpz_mod(v, v, P);
	mont_of(&edge[ne++], v);
	for (int op = OP_ADD; op <= OP_SQR; op++)
		for (int i = 0; i < ne; i++)
			for (int j = 0; j < ne; j++)
				check_op((enum op)op, &edge[i], &edge[j]);
	/* Raw Montgomery words near the top too (r-1, r-2 as stored). */
	hcu_fr top = { { HCU_P0 - 1, HCU_P1, HCU_P2, HCU_P3 } };
	for (int op = OP_ADD; op <= OP_SQR; op++)
		for (int i = 0; i < ne; i++)
			check_op((enum op)op, &top, &edge[i]);

	for (int op = OP_ADD; op <= OP_SQR; op++)
		for (int n = 0; n < RANDOM_PAIRS; n++) {
			hcu_fr a, b;
			rand_fr(&a, &seed);
			rand_fr(&b, &seed);
			check_op((enum op)op, &a, &b);
		}
	check_pow_inv(&seed);
	printf("info: hcu_fr: add, sub, mul, sqr agree with GMP on %d random pairs each and %d edge pairs\n",
	       RANDOM_PAIRS, ne * ne + ne);
	mpz_clears(P, R, RINV, v, NULL);
	return 0;
}
