/*
 * curve_msm: msm_g1 and msm_g2 against the naive sum of scalar
 * multiplications for n = 0 to about 300 with awkward inputs (scalars 0, 1
 * and r - 1, repeated points, points at infinity, P beside -P, all scalars
 * equal) and window widths from 2 to 16 (three of them under TSan); and
 * at n = 2^12 against a known relation (points (a + i b) G, so the sum is
 * (sum (a + i b) s_i) G with the scalar computed in Fr) and against two
 * half-size MSMs. One and two
 * threads must agree everywhere. Where the CPU has AVX-512 IFMA, G1 runs
 * both with its bucket additions on the IFMA kernel and without.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "curve/msm.h"
#include "curve/msm_priv.h"
#include "tests/helpers.h"

/* One group behind void pointers, so that every check is written once. */
struct grp {
	const char *name;
	size_t aff, jac;
	const void *gen;
	int (*msm)(void *out, const void *p, const fr_t *s, size_t n, unsigned threads, unsigned c);
	void (*naive)(void *out, const void *p, const fr_t *s, size_t n);
	int (*equal)(const void *a, const void *b);
	int (*is_inf)(const void *a);
	void (*add)(void *out, const void *a, const void *b);
	void (*mul)(void *out, const void *a, const fr_t *s);
	void (*from_affine)(void *out, const void *a);
	void (*aff_neg)(void *out, const void *a);
	void (*aff_set_inf)(void *a);
	int (*batch_to_affine)(void *out, const void *a, size_t n);
};

/* c = 0 goes through the public entry point. */
#define TM_GROUP(G, GEN) \
static int G##_tm_msm(void *o, const void *p, const fr_t *s, size_t n, unsigned t, unsigned c) \
{ return c ? msm_##G##_c(o, p, s, n, t, c) : msm_##G(o, p, s, n, t); } \
static void G##_tm_naive(void *o, const void *p, const fr_t *s, size_t n) { msm_##G##_naive(o, p, s, n); } \
static int G##_tm_equal(const void *a, const void *b) { return G##_equal(a, b); } \
static int G##_tm_is_inf(const void *a) { return G##_is_inf(a); } \
static void G##_tm_add(void *o, const void *a, const void *b) { G##_add(o, a, b); } \
static void G##_tm_mul(void *o, const void *a, const fr_t *s) { G##_mul(o, a, s); } \
static void G##_tm_from_affine(void *o, const void *a) { G##_from_affine(o, a); } \
static void G##_tm_aff_neg(void *o, const void *a) { G##_affine_neg(o, a); } \
static void G##_tm_aff_set_inf(void *a) { ((G##_affine_t *)a)->inf = 1; } \
static int G##_tm_b2a(void *o, const void *a, size_t n) { return G##_batch_to_affine(o, a, n); } \
static const struct grp G##_grp = { #G, sizeof(G##_affine_t), sizeof(G##_t), &GEN, \
	G##_tm_msm, G##_tm_naive, G##_tm_equal, G##_tm_is_inf, G##_tm_add, G##_tm_mul, \
	G##_tm_from_affine, G##_tm_aff_neg, G##_tm_aff_set_inf, G##_tm_b2a };

TM_GROUP(g1, G1_GENERATOR)
TM_GROUP(g2, G2_GENERATOR)

typedef union {
	g1_t g1;
	g2_t g2;
} tm_jac;

static uint64_t seed = 0x6d736d5f74657374ULL;

static void tm_rand_fr(fr_t *out)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = t_rand(&seed);
		memcpy(b + i, &r, 8);
	}
	fr_from_bytes_wide(out, b);
}

#define AFF(g, p, i) ((char *)(p) + (size_t)(i) * (g)->aff)

/* p[i] = (a + i b) G for i < n, a and b random (returned). */
static void tm_points(const struct grp *g, void *p, size_t n, fr_t *a, fr_t *b)
{
	char *jac = malloc(n * g->jac);
	tm_jac step;

	CHECK(jac, "out of memory");
	tm_rand_fr(a);
	tm_rand_fr(b);
	g->from_affine(jac, g->gen);
	g->mul(jac, jac, a);
	g->from_affine(&step, g->gen);
	g->mul(&step, &step, b);
	for (size_t i = 1; i < n; i++)
		g->add(jac + i * g->jac, jac + (i - 1) * g->jac, &step);
	CHECK(g->batch_to_affine(p, jac, n) == 0, "batch_to_affine");
	free(jac);
}

/* The MSM with c (0: its own choice) on 1 and 2 threads equals want. */
static void tm_expect(const struct grp *g, const void *want, const void *p, const fr_t *s,
		      size_t n, unsigned c, const char *what)
{
	tm_jac got;

	for (unsigned t = 1; t <= 2; t++) {
		CHECK(g->msm(&got, p, s, n, t, c) == 0, "%s msm failed", g->name);
		CHECK(g->equal(&got, want), "%s %s: n=%zu c=%u threads=%u differs from the expected sum",
		      g->name, what, n, c, t);
	}
}

static void tm_vs_naive(const struct grp *g, const void *p, const fr_t *s, size_t n,
			unsigned c, const char *what)
{
	tm_jac want;

	g->naive(&want, p, s, n);
	tm_expect(g, &want, p, s, n, c, what);
}

/* As tm_vs_naive with the automatic width and with c = 11, where the
 * buckets are summed by the batched affine reduction (msm_reduce_affine):
 * the degenerate inputs below make its running sums double and cancel. */
static void tm_vs_naive_both(const struct grp *g, const void *p, const fr_t *s, size_t n,
			     const char *what)
{
	tm_jac want;

	g->naive(&want, p, s, n);
	tm_expect(g, &want, p, s, n, 0, what);
	tm_expect(g, &want, p, s, n, 11, what);
}

static void tm_small(const struct grp *g)
{
	size_t cap = 300, sizes[] = { 1, 2, 3, 4, 7, 31, 64, 129, 300 };
	char *p = malloc(cap * g->aff);
	fr_t *s = malloc(cap * sizeof(fr_t)), a, b, rm1, one = FR_ONE;
	tm_jac r;

	CHECK(p && s, "out of memory");
	fr_neg(&rm1, &one);
	tm_points(g, p, cap, &a, &b);

	CHECK(g->msm(&r, p, s, 0, 1, 0) == 0 && g->is_inf(&r), "%s n=0 is not infinity", g->name);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];

		for (size_t i = 0; i < n; i++)
			tm_rand_fr(&s[i]);
		tm_vs_naive(g, p, s, n, 0, "random");
		/* 0, 1, r - 1 among random ones */
		for (size_t i = 0; i < n; i += 4) {
			s[i] = FR_ZERO;
			if (i + 1 < n)
				s[i + 1] = one;
			if (i + 2 < n)
				s[i + 2] = rm1;
		}
		tm_vs_naive(g, p, s, n, 0, "0, 1, r-1");
	}

	/* All zero, all one, all r - 1, all one random value. */
	tm_rand_fr(&a);
	const fr_t same[] = { FR_ZERO, one, rm1, a };
	for (size_t k = 0; k < 4; k++) {
		for (size_t i = 0; i < 100; i++)
			s[i] = same[k];
		tm_vs_naive_both(g, p, s, 100, "equal scalars");
	}

	/* One point 100 times: every bucket addition doubles or repeats;
	 * with one scalar the whole input lands in one bucket per window. */
	for (size_t i = 1; i < 100; i++)
		memcpy(AFF(g, p, i), p, g->aff);
	tm_vs_naive_both(g, p, s, 100, "one point, one scalar");
	for (size_t i = 0; i < 100; i++)
		tm_rand_fr(&s[i]);
	tm_vs_naive_both(g, p, s, 100, "one point");

	/* P, -P, P, -P, ... with one scalar: buckets empty and refill; then
	 * random scalars, and some points at infinity. */
	tm_points(g, p, cap, &a, &b);
	for (size_t i = 0; i < 64; i++)
		if (i % 2)
			g->aff_neg(AFF(g, p, i), AFF(g, p, i - 1));
	for (size_t i = 0; i < 64; i++)
		s[i] = same[3];
	tm_vs_naive_both(g, p, s, 64, "P and -P, one scalar");
	tm_vs_naive_both(g, p, s, 63, "P and -P, one scalar, odd");
	for (size_t i = 0; i < 64; i++)
		tm_rand_fr(&s[i]);
	tm_vs_naive_both(g, p, s, 64, "P and -P");
	for (size_t i = 0; i < 64; i += 3)
		g->aff_set_inf(AFF(g, p, i));
	tm_vs_naive_both(g, p, s, 64, "infinity");
	for (size_t i = 0; i < 64; i++)
		g->aff_set_inf(AFF(g, p, i));
	tm_vs_naive_both(g, p, s, 64, "all infinity");

	/* Every window width on one input, the queue and batch sizes with it. */
	tm_points(g, p, cap, &a, &b);
	for (size_t i = 0; i < 40; i++)
		memcpy(AFF(g, p, 40 + i), AFF(g, p, i), g->aff);
	for (size_t i = 0; i < 80; i++)
		tm_rand_fr(&s[i]);
	s[50] = s[10];
	s[51] = s[11];
	tm_vs_naive(g, p, s, 80, 0, "auto c");
	/* The recoding is the same code for both groups: every width on G1
	 * (r - 1 gives the largest s + K), the cheaper ones on G2. Under
	 * TSan three widths: how threads share the work does not depend on
	 * c, and the wide ones took most of a minute there (the plain and
	 * ASan stages check every width). */
	s[0] = rm1;
	for (unsigned c = 2; c <= (g == &g1_grp ? MSM_MAX_C : 10); c++)
		if (T_SANITIZER != 2 || c == 2 || c == 5 || c == 11)
			tm_vs_naive(g, p, s, 80, c, "forced c");
	free(p);
	free(s);
}

/* n = 2^12 (G2 under a sanitizer: 2^10, still split between threads):
 * against (sum (a + i b) s_i) G, and against two halves. */
static void tm_large(const struct grp *g)
{
	size_t n = g == &g1_grp ? 4096 : T_SIZE(4096, 1024);
	char *p = malloc(n * g->aff);
	fr_t *s = malloc(n * sizeof(fr_t)), a, b, k, t, sum = FR_ZERO;
	tm_jac want, lo, hi;

	CHECK(p && s, "out of memory");
	tm_points(g, p, n, &a, &b);
	k = a;
	for (size_t i = 0; i < n; i++) {
		tm_rand_fr(&s[i]);
		fr_mul(&t, &k, &s[i]);
		fr_add(&sum, &sum, &t);
		fr_add(&k, &k, &b);
	}
	g->from_affine(&want, g->gen);
	g->mul(&want, &want, &sum);
	tm_expect(g, &want, p, s, n, 0, "large relation");
	tm_expect(g, &want, p, s, n, 13, "large relation");

	CHECK(g->msm(&lo, p, s, n / 2, 2, 0) == 0, "msm");
	CHECK(g->msm(&hi, AFF(g, p, n / 2), s + n / 2, n / 2, 1, 0) == 0, "msm");
	g->add(&lo, &lo, &hi);
	tm_expect(g, &lo, p, s, n, 0, "large halves");
	CHECK(g->msm(&hi, p, s, n, 0, 0) == 0 && g->equal(&hi, &lo),
	      "%s large n on the online CPU count differs", g->name);
	free(p);
	free(s);
}

/* The safe points (msm_set_stop): asked often enough, and once the hook
 * says stop the MSM ends with MSM_STOPPED, its output untouched, asking
 * at most once more per other thread. */
static atomic_uint stop_calls, stop_at;

static int stop_hook(void *arg)
{
	(void)arg;
	return atomic_fetch_add(&stop_calls, 1) + 1 >= atomic_load(&stop_at);
}

static void tm_stop(void)
{
	size_t n = (size_t)1 << T_SIZE(16, 14);
	g1_affine_t *p = malloc(n * sizeof *p);
	fr_t *s = malloc(n * sizeof *s), a, b;
	g1_t out, ref;
	unsigned nwin;
	struct msm_plan pl;

	CHECK(p && s, "out of memory");
	tm_points(&g1_grp, p, n, &a, &b);
	for (size_t i = 0; i < n; i++)
		tm_rand_fr(&s[i]);
	msm_plan(&pl, n, 1, 0);
	nwin = pl.nwin;
	msm_set_stop(stop_hook, NULL);
	atomic_store(&stop_at, UINT32_MAX);	/* never: the same sum, the safe points counted */
	atomic_store(&stop_calls, 0);
	CHECK(msm_g1(&out, p, s, n, 1) == 0, "msm with a hook that never stops");
	msm_set_stop(NULL, NULL);
	CHECK(msm_g1(&ref, p, s, n, 1) == 0 && g1_equal(&out, &ref), "the hook changed the sum");
	CHECK(atomic_load(&stop_calls) >= nwin * (n >> 14), "%u safe points for %u windows of %zu points",
	      atomic_load(&stop_calls), nwin, n);
	printf("info: msm safe points: %u for %zu points in %u windows\n", atomic_load(&stop_calls), n, nwin);
	for (unsigned th = 1; th <= 2; th++) {
		g1_t untouched = ref;

		msm_set_stop(stop_hook, NULL);
		atomic_store(&stop_calls, 0);
		atomic_store(&stop_at, 3);
		CHECK(msm_g1(&untouched, p, s, n, th) == MSM_STOPPED, "not stopped on %u thread(s)", th);
		CHECK(g1_equal(&untouched, &ref), "a stopped MSM wrote its output");
		CHECK(atomic_load(&stop_calls) <= 3 + th - 1, "asked %u times after stopping at 3 (%u threads)",
		      atomic_load(&stop_calls), th);
		msm_set_stop(NULL, NULL);
	}
	free(p);
	free(s);
}

int main(void)
{
	const struct grp *gs[] = { &g1_grp, &g2_grp };

	tm_stop();
	struct msm_plan pl;

	for (int i = 0; i < 2; i++) {
		uint64_t t0 = t_now_ns();

		tm_small(gs[i]);
		tm_large(gs[i]);
		printf("info: %s %.1f s\n", gs[i]->name, (t_now_ns() - t0) / 1e9);
	}
	/* G1 again on the scalar bucket additions where the IFMA kernel
	 * served above (under TSan the small cases only: the threads share
	 * the work the same way whichever adds inside a task). */
	if (msm_use_ifma(1)) {
		msm_use_ifma(0);
		tm_small(&g1_grp);
		if (T_SANITIZER != 2) {
			tm_large(&g1_grp);
			tm_stop();
		}
		msm_use_ifma(1);
		printf("info: g1 checked with and without the IFMA kernel\n");
	} else {
		printf("info: no IFMA here: g1 checked on the scalar bucket additions only\n");
	}
	msm_plan(&pl, 4096, 2, 0);
	printf("info: 2^12 points on 2 threads: c=%u, %u windows x %u chunks, batch %zu\n",
	       pl.c, pl.nwin, pl.k, pl.batch);
	return 0;
}
