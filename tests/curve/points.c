/*
 * curve_points: the group law, scalar multiplication, subgroup checks and
 * fixed-base batches of G1 and G2, each property checked on both groups
 * through tests/curve/group.h. The oracles are the group axioms
 * themselves, repeated addition, r P = 0 (against the endomorphism
 * subgroup checks), and the constants' own definitions; the comparison
 * with an outside implementation is tests/noble's.
 */
#include "tests/curve/group.h"

#define NRAND T_SIZE(24, 8)	/* random points per law */

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

#define EQ(g, a, b, ...) CHECK((g)->equal((a), (b)), __VA_ARGS__)

/* (p - 1) / d as plain limbs, d small. */
static void p_minus_1_over(uint64_t q[6], uint64_t d)
{
	unsigned __int128 rem = 0;

	for (int i = 5; i >= 0; i--) {
		unsigned __int128 cur = rem << 64 | (i == 0 ? FP_MODULUS[0] - 1 : FP_MODULUS[i]);
		q[i] = (uint64_t)(cur / d);
		rem = cur % d;
	}
	CHECK(rem == 0, "p - 1 not divisible by %llu", (unsigned long long)d);
}

/* The hard-coded constants against their definitions. */
static void test_constants(void)
{
	fp_t four, t;
	fp2_t b2, u1 = { FP_ONE, FP_ONE }, c;
	uint64_t e[6];

	fp_from_u64(&four, 4);
	CHECK(fp_equal(&G1_B, &four), "G1_B is not 4");
	fp2_mul_fp(&b2, &u1, &four);
	CHECK(fp2_equal(&G2_B, &b2), "G2_B is not 4 (u + 1)");

	fp_sqr(&t, &CURVE_BETA);
	fp_mul(&t, &t, &CURVE_BETA);
	CHECK(fp_is_one(&t) && !fp_is_one(&CURVE_BETA), "beta is not a primitive cube root of 1");

	p_minus_1_over(e, 3);
	fp2_pow(&c, &u1, e, 6);
	CHECK(fp2_inv(&c, &c) == 0 && fp2_equal(&c, &CURVE_PSI_X), "psi x coefficient");
	p_minus_1_over(e, 2);
	fp2_pow(&c, &u1, e, 6);
	CHECK(fp2_inv(&c, &c) == 0 && fp2_equal(&c, &CURVE_PSI_Y), "psi y coefficient");
}

/* G on the curve, in the subgroup, of order exactly r. */
static void test_generator(const struct tg *g)
{
	tg_jac p, q, gen;
	uint64_t rm1[4];

	CHECK(g->on_curve(g->gen) && g->in_subgroup(g->gen), "%s generator", g->name);
	g->from_affine(&gen, g->gen);
	CHECK(!g->is_inf(&gen), "%s generator is infinity", g->name);
	g->mul_limbs(&p, &gen, FR_MODULUS, 4);
	CHECK(g->is_inf(&p), "%s: r G is not infinity", g->name);
	memcpy(rm1, FR_MODULUS, sizeof rm1);
	rm1[0]--;
	g->mul_limbs(&p, &gen, rm1, 4);
	g->neg(&q, &gen);
	EQ(g, &p, &q, "%s: (r - 1) G != -G", g->name);
	rm1[0] += 2;
	g->mul_limbs(&p, &gen, rm1, 4);
	EQ(g, &p, &gen, "%s: (r + 1) G != G", g->name);
}

static void test_laws(const struct tg *g)
{
	tg_jac a, b, c, t, u, inf, na;
	tg_aff aa, ab, ainf;

	g->set_inf(&inf);
	tg_aff_set_inf(g, &ainf);
	for (int i = 0; i < NRAND; i++) {
		tg_random(g, &a, &seed);
		tg_random(g, &b, &seed);
		tg_random(g, &c, &seed);
		g->to_affine(&aa, &a);
		g->to_affine(&ab, &b);
		CHECK(g->on_curve(&aa) && g->in_subgroup(&aa), "%s random point off the group", g->name);

		g->add(&t, &a, &b);
		g->add(&u, &b, &a);
		EQ(g, &t, &u, "%s: a + b != b + a", g->name);
		g->add(&t, &t, &c);
		g->add(&u, &b, &c);
		g->add(&u, &a, &u);
		EQ(g, &t, &u, "%s: (a + b) + c != a + (b + c)", g->name);
		g->add(&t, &a, &inf);
		EQ(g, &t, &a, "%s: a + 0 != a", g->name);
		g->add(&t, &inf, &a);
		EQ(g, &t, &a, "%s: 0 + a != a", g->name);
		g->neg(&na, &a);
		g->add(&t, &a, &na);
		CHECK(g->is_inf(&t), "%s: a + (-a) != 0", g->name);
		g->add(&t, &a, &a);
		g->dbl(&u, &a);
		EQ(g, &t, &u, "%s: a + a != 2a", g->name);
		CHECK(!g->equal(&a, &b) && !g->equal(&a, &inf), "%s: equal says yes to different points", g->name);

		/* mixed addition = addition, with every special case */
		g->add_affine(&t, &a, &ab);
		g->add(&u, &a, &b);
		EQ(g, &t, &u, "%s: a + affine b != a + b", g->name);
		g->add_affine(&t, &a, &aa);
		g->dbl(&u, &a);
		EQ(g, &t, &u, "%s: a + affine a != 2a", g->name);
		g->affine_neg(&aa, &aa);
		g->add_affine(&t, &a, &aa);
		CHECK(g->is_inf(&t), "%s: a + affine (-a) != 0", g->name);
		g->add_affine(&t, &inf, &ab);
		EQ(g, &t, &b, "%s: 0 + affine b != b", g->name);
		g->add_affine(&t, &a, &ainf);
		EQ(g, &t, &a, "%s: a + affine 0 != a", g->name);

		/* out aliasing an input */
		g->add(&u, &a, &b);
		t = a;
		g->add(&t, &t, &b);
		EQ(g, &t, &u, "%s: add into its first input", g->name);
		t = b;
		g->add_affine(&t, &a, &ab);
		t = a;
		g->add_affine(&t, &t, &ab);
		EQ(g, &t, &u, "%s: mixed add into its input", g->name);
		g->dbl(&u, &a);
		t = a;
		g->dbl(&t, &t);
		EQ(g, &t, &u, "%s: double into its input", g->name);
	}
	g->dbl(&t, &inf);
	CHECK(g->is_inf(&t), "%s: 2 * 0 != 0", g->name);
	g->add(&t, &inf, &inf);
	CHECK(g->is_inf(&t) && g->equal(&t, &inf), "%s: 0 + 0 != 0", g->name);
}

static void test_scalars(const struct tg *g)
{
	tg_jac a, t, u, v;
	fr_t s1, s2, s3;

	tg_random(g, &a, &seed);
	/* small scalars against repeated addition */
	g->set_inf(&t);
	for (uint64_t k = 0; k < 70; k++) {
		g->mul_limbs(&u, &a, &k, 1);
		EQ(g, &u, &t, "%s: %llu a != a + ... + a", g->name, (unsigned long long)k);
		fr_from_u64(&s1, k);
		g->mul(&u, &a, &s1);
		EQ(g, &u, &t, "%s: fr %llu a != a + ... + a", g->name, (unsigned long long)k);
		g->add(&t, &t, &a);
	}
	for (int i = 0; i < NRAND / 2; i++) {
		tg_rand_fr(&s1, &seed);
		tg_rand_fr(&s2, &seed);
		/* (s1 + s2) a = s1 a + s2 a */
		fr_add(&s3, &s1, &s2);
		g->mul(&t, &a, &s3);
		g->mul(&u, &a, &s1);
		g->mul(&v, &a, &s2);
		g->add(&u, &u, &v);
		EQ(g, &t, &u, "%s: (s1 + s2) a != s1 a + s2 a", g->name);
		/* (s1 s2) a = s1 (s2 a), into its own input */
		fr_mul(&s3, &s1, &s2);
		g->mul(&t, &a, &s3);
		u = a;
		g->mul(&u, &u, &s2);
		g->mul(&u, &u, &s1);
		EQ(g, &t, &u, "%s: (s1 s2) a != s1 (s2 a)", g->name);
	}
	/* A scalar longer than one recoding (10 limbs): k + 2^576. */
	uint64_t big[10] = { 12345 }, e[4] = { 576 };
	big[9] = 1;
	fr_from_u64(&s1, 2);
	fr_pow(&s1, &s1, e);
	g->mul(&u, &a, &s1);
	g->mul_limbs(&v, &a, big, 1);
	g->add(&u, &u, &v);
	g->mul_limbs(&t, &a, big, 10);
	EQ(g, &t, &u, "%s: a 10-limb scalar", g->name);
}

static void test_affine(const struct tg *g)
{
	enum { N = 9 };
	tg_jac p[N], t;		/* arrays of g->jac and g->aff strides */
	tg_aff a[N], b;
	fp_t l;

	for (int i = 0; i < N; i++)
		tg_random(g, TG_AT(p, i, g->jac), &seed);
	g->set_inf(TG_AT(p, 3, g->jac));
	g->set_inf(TG_AT(p, N - 1, g->jac));
	CHECK(g->batch_to_affine(a, p, N) == 0, "%s batch_to_affine", g->name);
	for (int i = 0; i < N; i++) {
		tg_aff *ai = TG_AT(a, i, g->aff);
		g->to_affine(&b, TG_AT(p, i, g->jac));
		CHECK(g->affine_equal(ai, &b), "%s: batch and single to_affine differ at %d", g->name, i);
		CHECK(g->on_curve(ai), "%s: affine point %d off the curve", g->name, i);
		CHECK(tg_aff_is_inf(g, &b) == (i == 3 || i == N - 1), "%s: infinity at %d", g->name, i);
		g->from_affine(&t, ai);
		EQ(g, &t, TG_AT(p, i, g->jac), "%s: from_affine(to_affine(p)) != p", g->name);
	}
	CHECK(g->batch_to_affine(a, p, 0) == 0, "%s: batch of 0", g->name);

	/* one point in two Jacobian forms: (l^2 X, l^3 Y, l Z) */
	tg_random(g, &p[0], &seed);
	t = p[0];
	tg_rand_fp(&l, &seed);
	if (g->id == 1) {
		fp_t l2, l3;
		fp_sqr(&l2, &l);
		fp_mul(&l3, &l2, &l);
		fp_mul(&t.g1.x, &t.g1.x, &l2);
		fp_mul(&t.g1.y, &t.g1.y, &l3);
		fp_mul(&t.g1.z, &t.g1.z, &l);
	} else {
		fp_t l2, l3;
		fp_sqr(&l2, &l);
		fp_mul(&l3, &l2, &l);
		fp2_mul_fp(&t.g2.x, &t.g2.x, &l2);
		fp2_mul_fp(&t.g2.y, &t.g2.y, &l3);
		fp2_mul_fp(&t.g2.z, &t.g2.z, &l);
	}
	EQ(g, &t, &p[0], "%s: rescaled Jacobian point not equal", g->name);
	g->neg(&t, &t);
	CHECK(!g->equal(&t, &p[0]), "%s: -p equal to p", g->name);
}

/* The endomorphism check against r P = 0, in and out of the subgroup. */
static void test_subgroup(const struct tg *g)
{
	int outside = 0;
	tg_jac p, q;
	tg_aff a;

	for (int i = 0; i < NRAND; i++) {
		g->random_curve_point(&a, &seed);
		CHECK(g->on_curve(&a), "%s: random curve point off the curve", g->name);
		g->from_affine(&p, &a);
		g->mul_limbs(&q, &p, FR_MODULUS, 4);
		int in = g->is_inf(&q);
		CHECK(g->in_subgroup(&a) == in, "%s: subgroup check says %d, r P = 0 says %d",
		      g->name, !in, in);
		outside += !in;
		/* the cofactor multiple is in the subgroup */
		g->mul_limbs(&q, &p, g->cofactor, g->cofactor_limbs);
		g->to_affine(&a, &q);
		g->mul_limbs(&p, &q, FR_MODULUS, 4);
		CHECK(!g->is_inf(&q) && g->is_inf(&p), "%s: h P not of order r", g->name);
		CHECK(g->in_subgroup(&a), "%s: h P refused by the subgroup check", g->name);
	}
	CHECK(outside == NRAND, "%s: %d of %d random curve points in the subgroup", g->name,
	      NRAND - outside, NRAND);
	printf("info: %s: %d random curve points outside the subgroup, all refused\n", g->name, outside);
}

/* G1's (0, 2): on the curve, of order 3, not in G1. */
static void test_order3(void)
{
	g1_affine_t a = { .x = FP_ZERO, .inf = 0 };
	g1_t p, t;
	uint64_t three = 3;

	fp_from_u64(&a.y, 2);
	CHECK(g1_affine_on_curve(&a), "(0, 2) off the curve");
	g1_from_affine(&p, &a);
	g1_mul_limbs(&t, &p, &three, 1);
	CHECK(g1_is_inf(&t) && !g1_is_inf(&p), "(0, 2) not of order 3");
	CHECK(!g1_affine_in_subgroup(&a), "(0, 2) passed the subgroup check");

}

/* A point of order 11 (11^2 divides G1's cofactor) as a fixed base: table
 * entries at infinity (11 | d), sums meeting their entry's x (doublings,
 * cancellations) all the time, neither of which a base in G1 produces. */
static void test_fixed_small_order(void)
{
	enum { N = 600 };
	static fr_t s[N];
	static g1_affine_t out[N];
	uint64_t h[2], eleven = 11;
	g1_affine_t a, b;
	g1_t p, t;

	/* h1 / 121: the 11-torsion is Z/11 x Z/11, so (h1 / 121) r Q has
	 * order 11 or 1 */
	memcpy(h, tg_h1, sizeof h);
	unsigned __int128 rem = 0;
	for (int i = 1; i >= 0; i--) {
		unsigned __int128 cur = rem << 64 | h[i];
		h[i] = (uint64_t)(cur / 121);
		rem = cur % 121;
	}
	CHECK(rem == 0, "121 does not divide h1");
	do {
		g1_t_random(&a, &seed);
		g1_from_affine(&p, &a);
		g1_mul_limbs(&p, &p, FR_MODULUS, 4);
		g1_mul_limbs(&p, &p, h, 2);
	} while (g1_is_inf(&p));
	g1_mul_limbs(&t, &p, &eleven, 1);
	CHECK(g1_is_inf(&t), "no point of order 11");
	g1_to_affine(&a, &p);
	for (int i = 0; i < N; i++) {
		if (i < 40)
			fr_from_u64(&s[i], (uint64_t)i);
		else
			tg_rand_fr(&s[i], &seed);
	}
	CHECK(g1_fixed_base_batch(out, &a, s, N, 2) == 0, "fixed-base batch, base of order 11");
	for (int i = 0; i < N; i++) {
		g1_mul(&t, &p, &s[i]);
		g1_to_affine(&b, &t);
		CHECK(g1_affine_equal(&out[i], &b), "fixed-base s[%d] B, B of order 11", i);
	}
}

static void test_fixed(const struct tg *g, size_t n)
{
	fr_t *s = calloc(n, sizeof *s);
	tg_aff *out = calloc(n, sizeof *out), base, b;
	tg_jac bj, t;
	uint64_t rm1[4];

	CHECK(s && out, "calloc");
	memcpy(rm1, FR_MODULUS, sizeof rm1);
	rm1[0]--;
	for (size_t i = 0; i < n; i++)
		tg_rand_fr(&s[i], &seed);
	s[0] = FR_ZERO;
	s[1] = FR_ONE;
	CHECK(fr_from_limbs(&s[2], rm1) == 0, "r - 1");
	fr_from_u64(&s[3], 2);
	fr_from_u64(&s[n - 1], 0);
	for (int round = 0; round < 3; round++) {
		unsigned threads = round == 0 ? 1 : round == 1 ? 3 : 0;
		if (round < 2) {
			tg_random(g, &bj, &seed);
		} else {	/* a base outside the subgroup: the formulas are complete */
			g->random_curve_point(&base, &seed);
			g->from_affine(&bj, &base);
		}
		g->to_affine(&base, &bj);
		CHECK(g->fixed_base_batch(out, &base, s, n, threads) == 0, "%s fixed-base batch", g->name);
		for (size_t i = 0; i < n; i++) {
			g->mul(&t, &bj, &s[i]);
			g->to_affine(&b, &t);
			CHECK(g->affine_equal(TG_AT(out, i, g->aff), &b), "%s: fixed-base out[%zu] != s[%zu] B (%u threads)",
			      g->name, i, i, threads);
		}
	}
	/* the base at infinity: every multiple is infinity */
	tg_aff_set_inf(g, &base);
	CHECK(g->fixed_base_batch(out, &base, s, 5, 2) == 0, "%s fixed-base batch of 0", g->name);
	for (size_t i = 0; i < 5; i++)
		CHECK(tg_aff_is_inf(g, TG_AT(out, i, g->aff)), "%s: s 0 != 0", g->name);
	CHECK(g->fixed_base_batch(out, &base, s, 0, 2) == 0, "%s: empty batch", g->name);
	free(s);
	free(out);
}

int main(void)
{
	test_constants();
	test_order3();
	test_fixed_small_order();
	for (int k = 0; k < 2; k++) {
		const struct tg *g = &tg_groups[k];
		uint64_t t0 = t_now_ns();
		test_generator(g);
		test_laws(g);
		test_scalars(g);
		test_affine(g);
		test_subgroup(g);
		test_fixed(g, k == 0 ? 1100 : 600);
		printf("info: %s laws, scalars, subgroup and fixed-base checks in %.2f s\n", g->name,
		       (double)(t_now_ns() - t0) / 1e9);
	}
	return 0;
}
