/*
 * field_fp_gmp: every Fp and Fp2 operation against libgmp on random and
 * edge operands, once per implementation (portable, then adx where the
 * CPU has it). Both runs draw the same operands and fold every result
 * into a hash; the hashes must match, so the two paths agree bit for bit,
 * not just each with GMP. Fp2 is checked against a GMP model of
 * c0 + c1 u with u^2 = -1. The pieces of lazy reduction (fp_mul_wide,
 * fp_redc and field/fp_lazy.h's 768-bit sums) are checked as exact
 * integers, on the edges of the ranges they promise to take.
 */
#include "field/fp_lazy.h"
#include "tests/field/fp_oracle.h"

#define N T_SIZE(20000, 4000)	/* ring operations per implementation */
#define NSLOW T_SIZE(600, 150)	/* pow, inv, sqrt: each a few hundred products */

static uint64_t seed;
static uint64_t hash;

static void fold(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		hash = (hash ^ b[i]) * 0x100000001b3ULL;
}

/* A value in [0, p): mostly uniform, often an edge (0, 1, p-1, (p+-1)/2,
 * near powers of two, 2^384 - 1 reduced, limbs of all-ones, zero or p's
 * own) where carries misbehave. */
static void gen(mpz_t v)
{
	static const uint64_t words[] = { 0, 1, 2, ~0ULL, ~0ULL - 1, 1ULL << 63,
		0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
		0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL };
	uint64_t l[6], k = t_rand(&seed) % 16;

	for (int i = 0; i < 6; i++)
		l[i] = t_rand(&seed);
	switch (k) {
	case 0:
		mpz_set_ui(v, t_rand(&seed) % 3);
		return;
	case 1:
		mpz_sub_ui(v, op_p, 1 + t_rand(&seed) % 3);
		return;
	case 2:
		mpz_set_ui(v, 1);
		mpz_mul_2exp(v, v, t_rand(&seed) % 385);
		if (t_rand(&seed) & 1)
			mpz_sub_ui(v, v, 1 + t_rand(&seed) % 2);
		mpz_mod(v, v, op_p);
		return;
	case 3:
		mpz_sub_ui(v, op_p, 1);
		mpz_fdiv_q_2exp(v, v, 1);
		mpz_add_ui(v, v, t_rand(&seed) % 2);	/* (p-1)/2, (p+1)/2 */
		return;
	case 4:
		for (int i = 0; i < 6; i++)
			l[i] = words[t_rand(&seed) % (sizeof(words) / sizeof(words[0]))];
		break;
	}
	op_set_limbs(v, l);
	mpz_mod(v, v, op_p);
}

static void check_ring(void)
{
	static const uint64_t smalls[] = { 0, 1, 2, 3, 4, 8, 12, 63, 64, 1000, ~0ULL };
	mpz_t va, vb, w, h;
	fp_t a, b, c, t;
	mpz_inits(va, vb, w, h, NULL);
	mpz_sub_ui(h, op_p, 1);
	mpz_fdiv_q_2exp(h, h, 1);
	for (int i = 0; i < N; i++) {
		gen(va);
		gen(vb);
		if (i % 50 == 0)
			mpz_set(vb, va);	/* exercise equal() and a - a */
		op_make(&a, va);
		op_make(&b, vb);

		fp_add(&c, &a, &b); mpz_add(w, va, vb); OP_CHECK(&c, w, "add"); fold(&c, 48);
		fp_sub(&c, &a, &b); mpz_sub(w, va, vb); OP_CHECK(&c, w, "sub"); fold(&c, 48);
		fp_mul(&c, &a, &b); mpz_mul(w, va, vb); OP_CHECK(&c, w, "mul"); fold(&c, 48);
		fp_neg(&c, &a); mpz_neg(w, va); OP_CHECK(&c, w, "neg"); fold(&c, 48);
		fp_double(&c, &a); mpz_mul_2exp(w, va, 1); OP_CHECK(&c, w, "double"); fold(&c, 48);
		fp_sqr(&c, &a); mpz_mul(w, va, va); OP_CHECK(&c, w, "sqr"); fold(&c, 48);
		uint64_t v = i % 3 ? smalls[i % (sizeof(smalls) / sizeof(smalls[0]))] : t_rand(&seed);
		fp_mul_small(&c, &a, v); mpz_mul_ui(w, va, v); OP_CHECK(&c, w, "mul_small"); fold(&c, 48);

		/* out aliasing an input */
		t = a; fp_mul(&t, &t, &b); mpz_mul(w, va, vb); OP_CHECK(&t, w, "mul alias a");
		t = b; fp_mul(&t, &a, &t); OP_CHECK(&t, w, "mul alias b");
		t = a; fp_add(&t, &t, &b); mpz_add(w, va, vb); OP_CHECK(&t, w, "add alias");
		t = a; fp_sub(&t, &t, &b); mpz_sub(w, va, vb); OP_CHECK(&t, w, "sub alias a");
		t = b; fp_sub(&t, &a, &t); OP_CHECK(&t, w, "sub alias b");
		t = a; fp_sqr(&t, &t); mpz_mul(w, va, va); OP_CHECK(&t, w, "sqr alias");
		t = a; fp_neg(&t, &t); mpz_neg(w, va); OP_CHECK(&t, w, "neg alias");
		t = a; fp_mul_small(&t, &t, v); mpz_mul_ui(w, va, v); OP_CHECK(&t, w, "mul_small alias");

		CHECK(fp_equal(&a, &b) == (mpz_cmp(va, vb) == 0), "equal");
		CHECK(fp_is_zero(&a) == (mpz_sgn(va) == 0), "is_zero");
		CHECK(fp_is_one(&a) == (mpz_cmp_ui(va, 1) == 0), "is_one");
		CHECK(fp_lexlarger(&a) == (mpz_cmp(va, h) > 0), "lexlarger");
	}
	CHECK(fp_is_one(&FP_ONE) && !fp_is_one(&FP_ZERO) && fp_is_zero(&FP_ZERO), "constants");
	mpz_clears(va, vb, w, h, NULL);
}

static void check_pow_inv_sqrt(void)
{
	mpz_t va, ve, w;
	uint64_t e[7];
	fp_t a, c, sentinel;
	int squares = 0, nonsquares = 0;
	mpz_inits(va, ve, w, NULL);
	mpz_set_ui(w, 7);
	op_make(&sentinel, w);
	for (int i = 0; i < NSLOW; i++) {
		gen(va);
		op_make(&a, va);
		size_t n = (size_t)(i % 8);	/* 0 to 7 limbs */
		for (size_t j = 0; j < n; j++)
			e[j] = t_rand(&seed);
		if (n > 1 && i % 5 == 0)
			e[n - 1] = 0;	/* leading zero limb */
		mpz_import(ve, n, -1, sizeof(uint64_t), 0, 0, e);
		fp_pow(&c, &a, e, n); mpz_powm(w, va, ve, op_p);
		OP_CHECK(&c, w, "pow"); fold(&c, 48);

		c = sentinel;
		int rc = fp_inv(&c, &a);
		if (mpz_sgn(va) == 0) {
			CHECK(rc == -1 && fp_equal(&c, &sentinel), "inv(0) must fail, untouched");
		} else {
			CHECK(rc == 0, "inv");
			mpz_invert(w, va, op_p);
			OP_CHECK(&c, w, "inv"); fold(&c, 48);
		}

		/* half the time a known square, else a random value */
		if (i & 1) {
			mpz_mul(va, va, va);
			mpz_mod(va, va, op_p);
			op_make(&a, va);
		}
		int leg = mpz_legendre(va, op_p);
		CHECK(fp_is_square(&a) == (leg >= 0), "is_square vs legendre");
		c = sentinel;
		rc = fp_sqrt(&c, &a);
		if (leg < 0) {
			CHECK(rc == -1 && fp_equal(&c, &sentinel), "sqrt of a non-square must fail, untouched");
			nonsquares++;
			continue;
		}
		CHECK(rc == 0, "sqrt of a square failed");
		op_value(w, &c);
		mpz_mul(w, w, w);
		mpz_mod(w, w, op_p);
		CHECK(mpz_cmp(w, va) == 0, "sqrt does not square back");
		fold(&c, 48);
		squares++;
	}
	/* odd i are all squares; about half of the even ones */
	CHECK(nonsquares > NSLOW / 8 && squares > NSLOW / 2, "squares %d, non-squares %d",
	      squares, nonsquares);
	mpz_clears(va, ve, w, NULL);
}

/* Lengths 0, 1, 2, and random up to MAXN; ~10% zeros, half in place. */
/*
 * fp_inv and fp_is_square (binary, variable time) on the operands that
 * steer their loops: plain values 1, 2, p-1, (p+-1)/2 and every power of
 * two below p, then elements whose Montgomery limbs themselves are 1,
 * p-1 or a power of two (long runs of zero limbs: shifts past 64 bits).
 * Checked against mpz_invert and mpz_legendre.
 */
static void check_inv_edges(void)
{
	mpz_t v, w;
	fp_t a, c;
	mpz_inits(v, w, NULL);
	for (int pass = 0; pass < 2; pass++) {
		for (int j = -4; j < 381; j++) {
			if (j == -4) {
				mpz_sub_ui(v, op_p, 1);	/* p - 1 */
			} else if (j == -3 || j == -2) {
				mpz_sub_ui(v, op_p, 1);
				mpz_fdiv_q_2exp(v, v, 1);
				mpz_add_ui(v, v, (unsigned long)(j + 3));	/* (p-1)/2, (p+1)/2 */
			} else if (j == -1) {
				mpz_set_ui(v, 3);
			} else {
				mpz_set_ui(v, 1);
				mpz_mul_2exp(v, v, (unsigned long)j);	/* 1, 2, 4, ... */
			}
			if (pass == 0) {
				op_make(&a, v);
			} else {
				/* the same numbers as raw Montgomery limbs */
				op_get_limbs(a.l, v);
				op_value(v, &a);
			}
			CHECK(fp_inv(&c, &a) == 0, "inv edge %d/%d", pass, j);
			mpz_invert(w, v, op_p);
			OP_CHECK(&c, w, "inv edge");
			fold(&c, 48);
			CHECK(fp_is_square(&a) == (mpz_legendre(v, op_p) >= 0),
			      "is_square edge %d/%d", pass, j);
		}
	}
	mpz_clears(v, w, NULL);
}

static void check_batch_inv(void)
{
	enum { MAXN = 700 };
	static fp_t a[MAXN], out[MAXN];
	static mpz_t v[MAXN];
	mpz_t w;
	mpz_init(w);
	for (size_t i = 0; i < MAXN; i++)
		mpz_init(v[i]);
	for (int round = 0; round < 12; round++) {
		size_t n = round < 3 ? (size_t)round : 1 + t_rand(&seed) % MAXN;
		for (size_t i = 0; i < n; i++) {
			gen(v[i]);
			if (t_rand(&seed) % 10 == 0 || (round == 2 && i == 0))
				mpz_set_ui(v[i], 0);
			op_make(&a[i], v[i]);
		}
		int inplace = round & 1;
		CHECK(fp_batch_inv(inplace ? a : out, a, n) == 0, "batch_inv");
		fp_t *res = inplace ? a : out;
		for (size_t i = 0; i < n; i++) {
			if (mpz_sgn(v[i]) == 0)
				mpz_set_ui(w, 0);
			else
				mpz_invert(w, v[i], op_p);
			OP_CHECK(&res[i], w, "batch_inv"); fold(&res[i], 48);
		}
	}
	for (size_t i = 0; i < MAXN; i++)
		mpz_clear(v[i]);
	mpz_clear(w);
}

static void be_bytes(uint8_t *out, size_t n, const mpz_t z)
{
	size_t cnt = 0;
	uint8_t tmp[128];
	CHECK(mpz_sizeinbase(z, 256) <= n, "too wide");
	memset(out, 0, n);
	mpz_export(tmp, &cnt, 1, 1, 0, 0, z);
	memcpy(out + n - cnt, tmp, cnt);
}

/* One raw 384-bit candidate: accepted by from_bytes_be iff < p. */
static void check_bytes_one(const mpz_t x)
{
	uint8_t in[48], back[48];
	uint64_t l[6];
	fp_t a = FP_ONE;
	int want_ok = mpz_cmp(x, op_p) < 0;

	be_bytes(in, 48, x);
	int rc = fp_from_bytes_be(&a, in);
	if (!want_ok) {
		CHECK(rc == -1 && fp_equal(&a, &FP_ONE), "from_bytes_be accepted a value >= p");
		op_get_limbs(l, x);
		CHECK(fp_from_limbs(&a, l) == -1 && fp_equal(&a, &FP_ONE), "from_limbs accepted >= p");
		return;
	}
	CHECK(rc == 0, "from_bytes_be rejected a value < p");
	OP_CHECK(&a, x, "from_bytes_be");
	fp_to_bytes_be(back, &a);
	CHECK(memcmp(in, back, 48) == 0, "to_bytes_be round trip");
	fold(back, 48);
	fp_to_limbs(l, &a);
	mpz_t y;
	mpz_init(y);
	op_set_limbs(y, l);
	CHECK(mpz_cmp(x, y) == 0, "to_limbs");
	CHECK(fp_from_limbs(&a, l) == 0, "from_limbs");
	OP_CHECK(&a, x, "from_limbs");
	mpz_clear(y);
}

static void check_bytes(void)
{
	mpz_t x, w;
	uint8_t wide[64];
	uint64_t l[6];
	fp_t a;
	mpz_inits(x, w, NULL);

	/* the boundary: p - 1 in, p, p + 1, 2^384 - 1 out */
	mpz_sub_ui(x, op_p, 1); check_bytes_one(x);
	mpz_set(x, op_p); check_bytes_one(x);
	mpz_add_ui(x, op_p, 1); check_bytes_one(x);
	mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 384); mpz_sub_ui(x, x, 1); check_bytes_one(x);
	mpz_set_ui(x, 0); check_bytes_one(x);
	for (int i = 0; i < N / 4; i++) {
		for (int j = 0; j < 6; j++)
			l[j] = t_rand(&seed);
		if (i % 3 == 0)
			l[5] &= 0x1fffffffffffffffULL;	/* near p: both outcomes */
		op_set_limbs(x, l);
		if (i % 7 == 0)
			gen(x);
		check_bytes_one(x);

		uint64_t v = i % 5 ? t_rand(&seed) : (uint64_t)i;
		fp_from_u64(&a, v);
		mpz_set_ui(x, v);
		OP_CHECK(&a, x, "from_u64");

		/* 512-bit wide input, reduced mod p */
		for (int j = 0; j < 64; j++)
			wide[j] = (uint8_t)t_rand(&seed);
		if (i % 4 == 0)
			memset(wide, 0xff, 64);
		if (i % 4 == 1)
			memset(wide, 0, 16 + (size_t)(i % 30));
		mpz_import(x, 64, 1, 1, 0, 0, wide);
		fp_from_bytes_wide(&a, wide);
		mpz_mod(w, x, op_p);
		OP_CHECK(&a, w, "from_bytes_wide"); fold(&a, 48);
	}
	mpz_clears(x, w, NULL);
}

/* ---- lazy reduction ---------------------------------------------------- */

static void wide_set(mpz_t z, const fp_wide_t *w)
{
	mpz_import(z, 12, -1, sizeof(uint64_t), 0, 0, w->l);
}

static void wide_get(fp_wide_t *w, const mpz_t z)
{
	size_t n = 0;

	memset(w->l, 0, sizeof(w->l));
	CHECK(mpz_sgn(z) >= 0 && mpz_sizeinbase(z, 2) <= 768, "wide value too wide");
	mpz_export(w->l, &n, -1, sizeof(uint64_t), 0, 0, z);
}

/* A six-limb operand of fp_mul_wide, anywhere below 2^384: gen()'s
 * values, p and 2p and their neighbours, and the top of the range. */
static void gen_any(mpz_t v)
{
	switch (t_rand(&seed) % 8) {
	case 0:
		mpz_set_ui(v, 1);
		mpz_mul_2exp(v, v, 384);
		mpz_sub_ui(v, v, 1 + t_rand(&seed) % 3);	/* 2^384 - 1, -2, -3 */
		return;
	case 1:
		mpz_mul_ui(v, op_p, 1 + t_rand(&seed) % 2);	/* p or 2p, +-1 */
		mpz_add_ui(v, v, 1);
		mpz_sub_ui(v, v, t_rand(&seed) % 3);
		return;
	case 2: {
		uint64_t l[6];
		for (int i = 0; i < 6; i++)
			l[i] = t_rand(&seed);
		op_set_limbs(v, l);
		return;
	}
	default:
		gen(v);
	}
}

/* An input of fp_redc: below p * 2^384, often at its edges. */
static void gen_redc(mpz_t v, const mpz_t top)
{
	mpz_t x;

	mpz_init(x);
	switch (t_rand(&seed) % 6) {
	case 0:
		mpz_sub_ui(v, top, 1 + t_rand(&seed) % 3);	/* p 2^384 - 1, ... */
		break;
	case 1:
		mpz_set_ui(v, t_rand(&seed) % 3);
		break;
	case 2:	/* a product of values below 2p, as the towers make */
		mpz_mul_2exp(x, op_p, 1);
		mpz_sub_ui(x, x, 1 + t_rand(&seed) % 2);
		mpz_mul(v, x, x);
		mpz_sub_ui(v, v, t_rand(&seed) % 2);
		break;
	case 3:
		gen(x);
		mpz_mul_2exp(v, x, 384);	/* low half zero */
		mpz_add_ui(v, v, t_rand(&seed) % 2);
		break;
	default:
		gen(v);
		gen(x);
		mpz_mul_2exp(x, x, 384);
		mpz_add(v, v, x);
		gen(x);
		mpz_mul_2exp(x, x, 384 - t_rand(&seed) % 64);
		mpz_add(v, v, x);
		mpz_mod(v, v, top);
	}
	mpz_clear(x);
}

static void check_wide(void)
{
	mpz_t va, vb, w, top, rinv, m;
	fp_t a, b, c, d;
	fp_wide_t x, y, z;

	mpz_inits(va, vb, w, top, rinv, m, NULL);
	mpz_mul_2exp(top, op_p, 384);	/* p * 2^384 */
	mpz_invert(rinv, op_R, op_p);
	for (int i = 0; i < N; i++) {
		/* fp_mul_wide: the exact product, any operands below 2^384 */
		gen_any(va);
		gen_any(vb);
		op_get_limbs(a.l, va);
		op_get_limbs(b.l, vb);
		fp_mul_wide(&x, &a, &b);
		mpz_mul(w, va, vb);
		wide_set(m, &x);
		CHECK(mpz_cmp(m, w) == 0, "fp_mul_wide differs from the product");
		fold(&x, 96);

		/* fp_redc: a / 2^384 mod p, fully reduced */
		gen_redc(va, top);
		wide_get(&x, va);
		fp_redc(&c, &x);
		mpz_mul(w, va, rinv);
		mpz_mod(w, w, op_p);
		op_get_limbs(d.l, w);
		CHECK(memcmp(c.l, d.l, sizeof(d.l)) == 0, "fp_redc differs");
		fold(&c, 48);

		/* fp_redc(fp_mul_wide(a, b)) = fp_mul(a, b) on reduced operands */
		gen(va);
		gen(vb);
		op_make(&a, va);
		op_make(&b, vb);
		fp_mul_wide(&x, &a, &b);
		fp_redc(&c, &x);
		fp_mul(&d, &a, &b);
		CHECK(fp_equal(&c, &d), "redc(mul_wide) != mul");

		/* fp_add_nr: the plain sum of two values below p */
		fp_add_nr(&c, &a, &b);
		op_set_limbs(w, a.l);
		op_set_limbs(m, b.l);
		mpz_add(w, w, m);
		op_set_limbs(m, c.l);
		CHECK(mpz_cmp(m, w) == 0, "fp_add_nr");

		/* the 768-bit sums modulo p * 2^384, aliased or not */
		gen_redc(va, top);
		gen_redc(vb, top);
		if (i % 50 == 0)
			mpz_set(vb, va);
		wide_get(&x, va);
		wide_get(&y, vb);
		fp_wide_add(&z, &x, &y);
		mpz_add(w, va, vb);
		mpz_mod(w, w, top);
		wide_set(m, &z);
		CHECK(mpz_cmp(m, w) == 0, "fp_wide_add");
		z = x;
		fp_wide_add(&z, &z, &y);
		wide_set(m, &z);
		CHECK(mpz_cmp(m, w) == 0, "fp_wide_add alias a");
		fp_wide_sub(&z, &x, &y);
		mpz_sub(w, va, vb);
		mpz_mod(w, w, top);
		wide_set(m, &z);
		CHECK(mpz_cmp(m, w) == 0, "fp_wide_sub");
		z = y;
		fp_wide_sub(&z, &x, &z);
		wide_set(m, &z);
		CHECK(mpz_cmp(m, w) == 0, "fp_wide_sub alias b");
		if (mpz_cmp(va, vb) < 0) {
			mpz_swap(va, vb);
			z = x, x = y, y = z;
		}
		fp_wide_sub_nr(&z, &x, &y);
		mpz_sub(w, va, vb);
		wide_set(m, &z);
		CHECK(mpz_cmp(m, w) == 0, "fp_wide_sub_nr");
		fold(&z, 96);
	}
	mpz_clears(va, vb, w, top, rinv, m, NULL);
}

/* ---- Fp2 --------------------------------------------------------------- */

/* The model: (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u */
static void m2_mul(mpz_t r0, mpz_t r1, const mpz_t a0, const mpz_t a1,
		   const mpz_t b0, const mpz_t b1)
{
	mpz_t x, y;
	mpz_inits(x, y, NULL);
	mpz_mul(x, a0, b0);
	mpz_submul(x, a1, b1);
	mpz_mul(y, a0, b1);
	mpz_addmul(y, a1, b0);
	mpz_mod(r0, x, op_p);
	mpz_mod(r1, y, op_p);
	mpz_clears(x, y, NULL);
}

static void m2_pow(mpz_t r0, mpz_t r1, const mpz_t a0, const mpz_t a1, const mpz_t e)
{
	mpz_t b0, b1;
	mpz_inits(b0, b1, NULL);
	mpz_set(b0, a0);
	mpz_set(b1, a1);
	mpz_set_ui(r0, 1);
	mpz_set_ui(r1, 0);
	for (size_t i = mpz_sizeinbase(e, 2); i-- > 0;) {
		m2_mul(r0, r1, r0, r1, r0, r1);
		if (mpz_tstbit(e, i))
			m2_mul(r0, r1, r0, r1, b0, b1);
	}
	mpz_clears(b0, b1, NULL);
}

static void make2(fp2_t *a, const mpz_t v0, const mpz_t v1)
{
	op_make(&a->c0, v0);
	op_make(&a->c1, v1);
}

static void check_fp2(void)
{
	mpz_t a0, a1, b0, b1, w0, w1, n, e, f, h;
	fp2_t a, b, c, t, sentinel;
	fp_t s;
	int roots = 0, refused = 0;
	mpz_inits(a0, a1, b0, b1, w0, w1, n, e, f, h, NULL);
	mpz_sub_ui(h, op_p, 1);
	mpz_fdiv_q_2exp(h, h, 1);
	mpz_set_ui(w0, 5);
	mpz_set_ui(w1, 9);
	make2(&sentinel, w0, w1);
	for (int i = 0; i < N / 4; i++) {
		gen(a0); gen(a1); gen(b0); gen(b1);
		if (i % 40 == 0) {
			mpz_set(b0, a0);
			mpz_set(b1, a1);
		}
		if (i % 23 == 0)
			mpz_set_ui(a1, 0);
		make2(&a, a0, a1);
		make2(&b, b0, b1);

		fp2_add(&c, &a, &b); mpz_add(w0, a0, b0); mpz_add(w1, a1, b1);
		OP2_CHECK(&c, w0, w1, "fp2_add"); fold(&c, 96);
		fp2_sub(&c, &a, &b); mpz_sub(w0, a0, b0); mpz_sub(w1, a1, b1);
		OP2_CHECK(&c, w0, w1, "fp2_sub"); fold(&c, 96);
		fp2_neg(&c, &a); mpz_neg(w0, a0); mpz_neg(w1, a1);
		OP2_CHECK(&c, w0, w1, "fp2_neg"); fold(&c, 96);
		fp2_double(&c, &a); mpz_mul_2exp(w0, a0, 1); mpz_mul_2exp(w1, a1, 1);
		OP2_CHECK(&c, w0, w1, "fp2_double"); fold(&c, 96);
		fp2_mul(&c, &a, &b); m2_mul(w0, w1, a0, a1, b0, b1);
		OP2_CHECK(&c, w0, w1, "fp2_mul"); fold(&c, 96);
		t = a; fp2_mul(&t, &t, &b); OP2_CHECK(&t, w0, w1, "fp2_mul alias a");
		t = b; fp2_mul(&t, &a, &t); OP2_CHECK(&t, w0, w1, "fp2_mul alias b");
		fp2_sqr(&c, &a); m2_mul(w0, w1, a0, a1, a0, a1);
		OP2_CHECK(&c, w0, w1, "fp2_sqr"); fold(&c, 96);
		t = a; fp2_sqr(&t, &t); OP2_CHECK(&t, w0, w1, "fp2_sqr alias");
		fp2_mul_fp(&c, &a, &b.c0); mpz_mul(w0, a0, b0); mpz_mul(w1, a1, b0);
		OP2_CHECK(&c, w0, w1, "fp2_mul_fp"); fold(&c, 96);
		t = a; fp2_mul_fp(&t, &t, &t.c0); mpz_mul(w0, a0, a0); mpz_mul(w1, a1, a0);
		OP2_CHECK(&t, w0, w1, "fp2_mul_fp alias");
		uint64_t v = i % 2 ? (uint64_t)(i % 13) : t_rand(&seed);
		fp2_mul_small(&c, &a, v); mpz_mul_ui(w0, a0, v); mpz_mul_ui(w1, a1, v);
		OP2_CHECK(&c, w0, w1, "fp2_mul_small"); fold(&c, 96);
		mpz_set_ui(n, 1);
		fp2_mul_nonresidue(&c, &a); m2_mul(w0, w1, a0, a1, n, n);
		OP2_CHECK(&c, w0, w1, "fp2_mul_nonresidue"); fold(&c, 96);
		t = a; fp2_mul_nonresidue(&t, &t); OP2_CHECK(&t, w0, w1, "fp2_mul_nonresidue alias");
		fp2_conj(&c, &a); mpz_neg(w1, a1);
		OP2_CHECK(&c, a0, w1, "fp2_conj"); fold(&c, 96);

		int zero = mpz_sgn(a0) == 0 && mpz_sgn(a1) == 0;
		CHECK(fp2_is_zero(&a) == zero, "fp2_is_zero");
		CHECK(fp2_equal(&a, &b) == (mpz_cmp(a0, b0) == 0 && mpz_cmp(a1, b1) == 0), "fp2_equal");
		int lex = mpz_sgn(a1) ? mpz_cmp(a1, h) > 0 : mpz_cmp(a0, h) > 0;
		CHECK(fp2_lexlarger(&a) == lex, "fp2_lexlarger");

		if (i % 8)
			continue;
		/* the slow ones: inverse, power, square root */
		c = sentinel;
		int rc = fp2_inv(&c, &a);
		if (zero) {
			CHECK(rc == -1 && fp2_equal(&c, &sentinel), "fp2_inv(0) must fail, untouched");
		} else {
			/* (a0 - a1 u) / (a0^2 + a1^2) */
			mpz_mul(n, a0, a0);
			mpz_addmul(n, a1, a1);
			mpz_mod(n, n, op_p);
			CHECK(mpz_invert(n, n, op_p), "norm of a non-zero element is zero?");
			mpz_mul(w0, a0, n);
			mpz_mul(w1, a1, n);
			mpz_neg(w1, w1);
			CHECK(rc == 0, "fp2_inv");
			OP2_CHECK(&c, w0, w1, "fp2_inv"); fold(&c, 96);
		}
		uint64_t ev[3] = { t_rand(&seed), t_rand(&seed), t_rand(&seed) };
		size_t en = (size_t)(i / 8 % 4);
		mpz_import(e, en, -1, sizeof(uint64_t), 0, 0, ev);
		fp2_pow(&c, &a, ev, en); m2_pow(w0, w1, a0, a1, e);
		OP2_CHECK(&c, w0, w1, "fp2_pow"); fold(&c, 96);

		/* sqrt: of a square half the time, else of a; an element is a
		 * square in Fp2 exactly when its norm is a square in Fp */
		if (i % 16 == 0) {
			m2_mul(a0, a1, a0, a1, a0, a1);
			make2(&a, a0, a1);
		}
		mpz_mul(n, a0, a0);
		mpz_addmul(n, a1, a1);
		mpz_mod(n, n, op_p);
		int is_sq = mpz_legendre(n, op_p) >= 0;
		c = sentinel;
		rc = fp2_sqrt(&c, &a);
		if (!is_sq) {
			CHECK(rc == -1 && fp2_equal(&c, &sentinel), "fp2_sqrt of a non-square must fail, untouched");
			refused++;
			continue;
		}
		CHECK(rc == 0, "fp2_sqrt of a square failed");
		op_value(w0, &c.c0);
		op_value(w1, &c.c1);
		m2_mul(w0, w1, w0, w1, w0, w1);
		CHECK(mpz_cmp(w0, a0) == 0 && mpz_cmp(w1, a1) == 0, "fp2_sqrt does not square back");
		fold(&c, 96);
		roots++;
	}
	CHECK(roots > N / 80 && refused > N / 400, "fp2 sqrt: %d roots, %d refused", roots, refused);

	/* the alpha = -1 branch of the square root: sqrt(-1) = +-u, sqrt(-x^2) for x in Fp */
	mpz_sub_ui(a0, op_p, 1);
	mpz_set_ui(a1, 0);
	make2(&a, a0, a1);
	CHECK(fp2_sqrt(&c, &a) == 0, "sqrt(-1)");
	fp2_sqr(&t, &c);
	CHECK(fp2_equal(&t, &a), "sqrt(-1)^2");
	for (int i = 0; i < 20; i++) {
		gen(a0);
		mpz_mul(a0, a0, a0);
		mpz_neg(a0, a0);
		mpz_mod(a0, a0, op_p);
		make2(&a, a0, a1);
		CHECK(fp2_sqrt(&c, &a) == 0, "sqrt(-x^2)");
		op_value(w0, &c.c0);
		op_value(w1, &c.c1);
		m2_mul(w0, w1, w0, w1, w0, w1);
		CHECK(mpz_cmp(w0, a0) == 0 && mpz_sgn(w1) == 0, "sqrt(-x^2)^2");
	}

	/* batch inversion, zeros inside, in place and not */
	enum { MAXN = 300 };
	static fp2_t va[MAXN], out[MAXN];
	static mpz_t m0[MAXN], m1[MAXN];
	for (int i = 0; i < MAXN; i++)
		mpz_inits(m0[i], m1[i], NULL);
	for (int round = 0; round < 6; round++) {
		size_t cnt = round < 2 ? (size_t)round : 1 + t_rand(&seed) % MAXN;
		for (size_t i = 0; i < cnt; i++) {
			gen(m0[i]);
			gen(m1[i]);
			if (t_rand(&seed) % 8 == 0)
				mpz_set_ui(m0[i], 0), mpz_set_ui(m1[i], 0);
			make2(&va[i], m0[i], m1[i]);
		}
		fp2_t *res = round & 1 ? va : out;
		CHECK(fp2_batch_inv(res, va, cnt) == 0, "fp2_batch_inv");
		for (size_t i = 0; i < cnt; i++) {
			mpz_mul(n, m0[i], m0[i]);
			mpz_addmul(n, m1[i], m1[i]);
			mpz_mod(n, n, op_p);
			if (mpz_sgn(n) == 0) {
				CHECK(fp2_is_zero(&res[i]), "fp2_batch_inv of zero");
				continue;
			}
			mpz_invert(n, n, op_p);
			mpz_mul(w0, m0[i], n);
			mpz_mul(w1, m1[i], n);
			mpz_neg(w1, w1);
			OP2_CHECK(&res[i], w0, w1, "fp2_batch_inv"); fold(&res[i], 96);
		}
	}
	for (int i = 0; i < MAXN; i++)
		mpz_clears(m0[i], m1[i], NULL);
	s = FP_ONE;
	CHECK(fp2_equal(&FP2_ONE, &(fp2_t){ s, FP_ZERO }) && fp2_is_zero(&FP2_ZERO), "fp2 constants");
	mpz_clears(a0, a1, b0, b1, w0, w1, n, e, f, h, NULL);
}

static uint64_t run(void)
{
	uint64_t t0 = t_now_ns();
	seed = 0x9e3779b97f4a7c15ULL;
	hash = 0xcbf29ce484222325ULL;
	check_ring();
	check_pow_inv_sqrt();
	check_inv_edges();
	check_batch_inv();
	check_bytes();
	check_wide();
	check_fp2();
	printf("info: %s: all checks passed in %.2f s\n", fp_impl_name(),
	       (double)(t_now_ns() - t0) / 1e9);
	return hash;
}

int main(void)
{
	op_init();
	CHECK(fp_set_impl("nonsense") == -1, "unknown impl accepted");
	CHECK(fp_set_impl("portable") == 0, "portable");
	uint64_t h = run();
	if (fp_set_impl("adx") == 0) {
		uint64_t h2 = run();
		CHECK(h == h2, "portable and adx results differ (hash %016llx vs %016llx)",
		      (unsigned long long)h, (unsigned long long)h2);
	} else {
		printf("info: adx not available on this CPU; portable only\n");
	}
	return 0;
}
