/*
 * field_gmp: every Fr operation against libgmp on 10^5 random operands (10^4 under a sanitizer)
 * each, plus edge values, once per implementation (portable, then adx
 * and ifma where the CPU has them). Both runs draw the same operands and fold every
 * result into a hash; the hashes must match, so the two paths agree
 * bit for bit, not just each with GMP.
 */
#include "tests/field/oracle.h"

#define N T_SIZE(100000, 10000)	/* a tenth under a sanitizer: the edge values stay */

static uint64_t seed;
static uint64_t hash;

static void fold(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		hash = (hash ^ b[i]) * 0x100000001b3ULL;
}

/* A value in [0, r): mostly uniform, often an edge (0, 1, r-1, r-2, near
 * powers of two, limbs of all-ones or zero) where carries misbehave. */
static void gen(mpz_t v)
{
	static const uint64_t words[] = { 0, 1, 2, ~0ULL, ~0ULL - 1, 1ULL << 63,
		0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
		0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL };
	uint64_t l[4], k = t_rand(&seed) % 16;

	for (int i = 0; i < 4; i++)
		l[i] = t_rand(&seed);
	if (k == 0) {
		mpz_set_ui(v, t_rand(&seed) % 3);
		return;
	}
	if (k == 1) {
		mpz_sub_ui(v, o_r, 1 + t_rand(&seed) % 3);
		return;
	}
	if (k == 2) {
		mpz_set_ui(v, 1);
		mpz_mul_2exp(v, v, t_rand(&seed) % 256);
		if (t_rand(&seed) & 1)
			mpz_sub_ui(v, v, 1 + t_rand(&seed) % 2);
		mpz_mod(v, v, o_r);
		return;
	}
	if (k == 3)
		for (int i = 0; i < 4; i++)
			l[i] = words[t_rand(&seed) % (sizeof(words) / sizeof(words[0]))];
	o_set_limbs(v, l);
	mpz_mod(v, v, o_r);
}

static void check_ring(void)
{
	mpz_t va, vb, w;
	fr_t a, b, c, t;
	mpz_inits(va, vb, w, NULL);
	for (int i = 0; i < N; i++) {
		gen(va);
		gen(vb);
		if (i % 50 == 0)
			mpz_set(vb, va);	/* exercise equal() and a - a */
		o_make(&a, va);
		o_make(&b, vb);

		fr_add(&c, &a, &b); mpz_add(w, va, vb); O_CHECK(&c, w, "add"); fold(&c, 32);
		fr_sub(&c, &a, &b); mpz_sub(w, va, vb); O_CHECK(&c, w, "sub"); fold(&c, 32);
		fr_mul(&c, &a, &b); mpz_mul(w, va, vb); O_CHECK(&c, w, "mul"); fold(&c, 32);
		fr_neg(&c, &a); mpz_neg(w, va); O_CHECK(&c, w, "neg"); fold(&c, 32);
		fr_double(&c, &a); mpz_mul_2exp(w, va, 1); O_CHECK(&c, w, "double"); fold(&c, 32);
		fr_sqr(&c, &a); mpz_mul(w, va, va); O_CHECK(&c, w, "sqr"); fold(&c, 32);

		/* out aliasing an input */
		t = a; fr_mul(&t, &t, &b); mpz_mul(w, va, vb); O_CHECK(&t, w, "mul alias a");
		t = b; fr_mul(&t, &a, &t); O_CHECK(&t, w, "mul alias b");
		t = a; fr_sub(&t, &t, &b); mpz_sub(w, va, vb); O_CHECK(&t, w, "sub alias");
		t = a; fr_sqr(&t, &t); mpz_mul(w, va, va); O_CHECK(&t, w, "sqr alias");

		CHECK(fr_equal(&a, &b) == (mpz_cmp(va, vb) == 0), "equal");
		CHECK(fr_is_zero(&a) == (mpz_sgn(va) == 0), "is_zero");
	}
	mpz_clears(va, vb, w, NULL);
}

/* The batch product (fr_muln_fn: eight lanes at a time with IFMA) over
 * N pairs in runs of 1..37, so every remainder after the blocks of 8
 * occurs; every other run in place (out = a). */
static void check_muln(void)
{
	enum { RUN = 37 };
	mpz_t va[RUN], vb[RUN], w;
	fr_t a[RUN], b[RUN], c[RUN];
	fr_muln_fn_t muln = fr_muln_fn();
	int runs = 0;

	for (int i = 0; i < RUN; i++)
		mpz_inits(va[i], vb[i], NULL);
	mpz_init(w);
	for (int done = 0; done < N; runs++) {
		int n = 1 + (int)(t_rand(&seed) % RUN);
		for (int i = 0; i < n; i++) {
			gen(va[i]);
			gen(vb[i]);
			o_make(&a[i], va[i]);
			o_make(&b[i], vb[i]);
		}
		fr_t *out = runs & 1 ? a : c;
		muln(out, a, b, (size_t)n);
		for (int i = 0; i < n; i++) {
			mpz_mul(w, va[i], vb[i]);
			O_CHECK(&out[i], w, "muln");
			fold(&out[i], 32);
		}
		done += n;
	}
	for (int i = 0; i < RUN; i++)
		mpz_clears(va[i], vb[i], NULL);
	mpz_clear(w);
}

static void check_pow_inv(void)
{
	mpz_t va, ve, w;
	uint64_t e[4];
	fr_t a, c;
	mpz_inits(va, ve, w, NULL);
	for (int i = 0; i < N; i++) {
		gen(va);
		o_make(&a, va);
		for (int j = 0; j < 4; j++)
			e[j] = t_rand(&seed);
		if (i % 7 == 0)
			e[1] = e[2] = e[3] = 0;
		if (i % 11 == 0)
			e[0] = 0;
		o_set_limbs(ve, e);
		fr_pow(&c, &a, e); mpz_powm(w, va, ve, o_r);
		O_CHECK(&c, w, "pow"); fold(&c, 32);
		fr_pow_u64(&c, &a, e[0]); mpz_powm_ui(w, va, e[0], o_r);
		O_CHECK(&c, w, "pow_u64"); fold(&c, 32);

		c = FR_GENERATOR;
		int rc = fr_inv(&c, &a);
		if (mpz_sgn(va) == 0) {
			CHECK(rc == -1 && fr_equal(&c, &FR_GENERATOR), "inv(0) must fail, untouched");
			continue;
		}
		CHECK(rc == 0, "inv");
		mpz_invert(w, va, o_r);
		O_CHECK(&c, w, "inv"); fold(&c, 32);
	}
	mpz_clears(va, ve, w, NULL);
}

/* Lengths cross the 1024-element chunk inside fr_batch_inv; ~10% zeros. */
static void check_batch_inv(void)
{
	enum { MAXN = 3000 };
	static fr_t a[MAXN], out[MAXN];
	static mpz_t v[MAXN];
	mpz_t w;
	size_t total = 0;
	mpz_init(w);
	for (size_t i = 0; i < MAXN; i++)
		mpz_init(v[i]);
	for (int round = 0; total < N; round++) {
		size_t n = round < 4 ? (size_t[]){ 0, 1, 1024, 1025 }[round] : t_rand(&seed) % MAXN;
		for (size_t i = 0; i < n; i++) {
			gen(v[i]);
			if (t_rand(&seed) % 10 == 0)
				mpz_set_ui(v[i], 0);
			o_make(&a[i], v[i]);
		}
		int inplace = round & 1;
		CHECK(fr_batch_inv(inplace ? a : out, a, n) == 0, "batch_inv");
		fr_t *res = inplace ? a : out;
		for (size_t i = 0; i < n; i++) {
			if (mpz_sgn(v[i]) == 0)
				mpz_set_ui(w, 0);
			else
				mpz_invert(w, v[i], o_r);
			O_CHECK(&res[i], w, "batch_inv"); fold(&res[i], 32);
		}
		total += n;
	}
	for (size_t i = 0; i < MAXN; i++)
		mpz_clear(v[i]);
	mpz_clear(w);
}

static void le_bytes(uint8_t *out, size_t n, const mpz_t z)
{
	size_t cnt = 0;
	memset(out, 0, n);
	mpz_export(out, &cnt, -1, 1, 0, 0, z);
	CHECK(cnt <= n, "too wide");
}

/* One raw 256-bit candidate for from_bytes: accepted iff < r. */
static void check_bytes_one(const mpz_t x)
{
	uint8_t in[32], back[32];
	uint64_t l[4];
	fr_t a = FR_GENERATOR;
	int want_ok = mpz_cmp(x, o_r) < 0;

	le_bytes(in, 32, x);
	int rc = fr_from_bytes(&a, in);
	if (!want_ok) {
		CHECK(rc == -1 && fr_equal(&a, &FR_GENERATOR), "from_bytes accepted a value >= r");
		o_get_limbs(l, x);
		CHECK(fr_from_limbs(&a, l) == -1 && fr_equal(&a, &FR_GENERATOR), "from_limbs accepted >= r");
		return;
	}
	CHECK(rc == 0, "from_bytes rejected a value < r");
	O_CHECK(&a, x, "from_bytes");
	fr_to_bytes(back, &a);
	CHECK(memcmp(in, back, 32) == 0, "to_bytes round trip");
	fr_to_limbs(l, &a);
	mpz_t y;
	mpz_init(y);
	o_set_limbs(y, l);
	CHECK(mpz_cmp(x, y) == 0, "to_limbs");
	CHECK(fr_from_limbs(&a, l) == 0, "from_limbs");
	O_CHECK(&a, x, "from_limbs");
	mpz_clear(y);
	fold(back, 32);
}

static void check_bytes(void)
{
	mpz_t x;
	uint64_t l[8];
	uint8_t wide[64];
	fr_t a;
	mpz_init(x);

	/* edges: around r, 2^255 and 2^256 */
	for (int k = -3; k <= 3; k++) {
		mpz_set(x, o_r);
		k < 0 ? mpz_sub_ui(x, x, -k) : mpz_add_ui(x, x, k);
		check_bytes_one(x);
		for (int e = 254; e <= 256; e++) {
			if (e == 256 && k >= 0)
				continue;	/* not representable in 32 bytes */
			mpz_set_ui(x, 1);
			mpz_mul_2exp(x, x, e);
			k < 0 ? mpz_sub_ui(x, x, -k) : mpz_add_ui(x, x, k);
			check_bytes_one(x);
		}
	}
	mpz_set_ui(x, 0); check_bytes_one(x);
	mpz_set_ui(x, 1); check_bytes_one(x);

	for (int i = 0; i < N; i++) {
		/* half raw 256-bit words (about 55% of them >= r), half < r */
		for (int j = 0; j < 8; j++)
			l[j] = t_rand(&seed);
		if (i & 1) {
			gen(x);
		} else {
			if (i % 8 == 0)
				l[3] >>= 1;	/* around 2^255 */
			o_set_limbs(x, l);
		}
		check_bytes_one(x);

		if (i % 13 == 0)
			memset(l, 0xff, sizeof(l));	/* 2^512 - 1 */
		memcpy(wide, l, 64);	/* little-endian host: limbs are LE bytes */
		mpz_import(x, 64, -1, 1, 0, 0, wide);
		fr_from_bytes_wide(&a, wide);
		O_CHECK(&a, x, "from_bytes_wide"); fold(&a, 32);

		fr_from_u64(&a, l[0]);
		mpz_import(x, 1, -1, 8, 0, 0, &l[0]);
		O_CHECK(&a, x, "from_u64"); fold(&a, 32);
	}
	mpz_clear(x);
}

static uint64_t run_suite(const char *impl)
{
	uint64_t t0 = t_now_ns();
	seed = 0x9e3779b97f4a7c15ULL;
	hash = 0xcbf29ce484222325ULL;
	CHECK(fr_set_impl(impl) == 0, "fr_set_impl(%s)", impl);
	CHECK(strcmp(fr_impl_name(), impl) == 0, "impl name");
	check_ring();
	check_muln();
	check_pow_inv();
	check_batch_inv();
	check_bytes();
	printf("info: %s: add sub mul muln sqr neg double pow pow_u64 inv batch_inv bytes wide u64 limbs"
	       " x %d vs GMP ok in %.1f s\n", impl, N, (t_now_ns() - t0) / 1e9);
	return hash;
}

int main(void)
{
	o_init();
	const char *dflt = fr_impl_name();
	const char *best = fr_have_ifma() ? "ifma" : fr_have_adx() ? "adx" : "portable";
	printf("info: default implementation: %s (cpu adx: %s, avx-512 ifma: %s)\n", dflt,
	       fr_have_adx() ? "yes" : "no", fr_have_ifma() ? "yes" : "no");
	CHECK(strcmp(dflt, best) == 0, "default %s, but the fastest available is %s", dflt, best);
	CHECK(fr_set_impl("nonsense") == -1, "unknown impl accepted");

	/* Each faster path, where the CPU has it, against portable's hash. */
	static const struct { const char *name; int (*have)(void); } paths[] = {
		{ "adx", fr_have_adx }, { "ifma", fr_have_ifma },
	};
	uint64_t hp = run_suite("portable");
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (!paths[i].have()) {
			CHECK(fr_set_impl(paths[i].name) == -1, "%s accepted on a CPU without it",
			      paths[i].name);
			printf("info: %s path not tested: the CPU (or OS) lacks it\n", paths[i].name);
			continue;
		}
		uint64_t h = run_suite(paths[i].name);
		CHECK(hp == h, "portable and %s results differ (hash %016llx vs %016llx)", paths[i].name,
		      (unsigned long long)hp, (unsigned long long)h);
		printf("info: portable and %s agree on every result (hash %016llx)\n", paths[i].name,
		       (unsigned long long)hp);
	}
	return 0;
}
