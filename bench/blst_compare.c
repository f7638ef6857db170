/*
 * bench/blst_compare: provisor's G1 MSM, pairing and field products
 * against blst's, both on one core in one process, run interleaved
 * (provisor first on even runs, blst first on odd ones) so that a busy
 * or throttled machine slows both alike. Built and run by bench/blst.sh
 * against a blst source tree the operator names (BLST_SRC); blst is never
 * part of provisor's build.
 *
 * Every figure is a median over RUNS runs; the ratio is provisor's
 * median over blst's (below 1: provisor is faster). Each MSM's result and
 * the pairing's are compared byte for byte with blst's before anything is
 * timed: a mismatch is an error, not a figure.
 *
 *   blst_compare [LOG_N ...]   (default 16 18 20 22; BLST_RUNS, default 5;
 *                               BLST_MSM_SCALAR=1 keeps provisor's G1 MSM
 *                               off its IFMA kernel)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blst.h"
#include "curve/msm.h"
#include "curve/msm_priv.h"
#include "curve/pairing.h"
#include "field/fp12.h"

static uint64_t seed = 0x626c7374636d7031ULL;

static uint64_t rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dULL;
}

static void rnd_fr(fr_t *out)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = rnd();
		memcpy(b + i, &r, 8);
	}
	fr_from_bytes_wide(out, b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what)
{
	fprintf(stderr, "blst_compare: %s\n", what);
	exit(1);
}

/* Both sides' inputs: n points (an arithmetic progression P0 + i Q, as
 * bench/msm) and n scalars, provisor's and blst's forms of the same. */
struct msm_in {
	size_t n;
	g1_affine_t *p;
	fr_t *s;
	blst_p1_affine *bp;
	uint8_t *bs;		/* n scalars, 32 bytes little-endian each */
	void *scratch;
};

static void msm_in_make(struct msm_in *in, size_t n)
{
	g1_t *j = malloc(n * sizeof(*j)), q;
	fr_t a;
	uint8_t ser[G1_UNCOMPRESSED];

	in->n = n;
	in->p = malloc(n * sizeof(*in->p));
	in->s = malloc(n * sizeof(*in->s));
	in->bp = malloc(n * sizeof(*in->bp));
	in->bs = malloc(n * 32);
	in->scratch = malloc(blst_p1s_mult_pippenger_scratch_sizeof(n));
	if (!j || !in->p || !in->s || !in->bp || !in->bs || !in->scratch)
		die("out of memory");
	rnd_fr(&a);
	g1_from_affine(&j[0], &G1_GENERATOR);
	g1_mul(&j[0], &j[0], &a);
	rnd_fr(&a);
	g1_from_affine(&q, &G1_GENERATOR);
	g1_mul(&q, &q, &a);
	for (size_t i = 1; i < n; i++)
		g1_add(&j[i], &j[i - 1], &q);
	if (g1_batch_to_affine(in->p, j, n) != 0)
		die("out of memory");
	free(j);
	for (size_t i = 0; i < n; i++) {
		rnd_fr(&in->s[i]);
		fr_to_bytes(in->bs + 32 * i, &in->s[i]);
		g1_serialize(ser, &in->p[i]);
		if (blst_p1_deserialize(&in->bp[i], ser) != BLST_SUCCESS)
			die("blst refused a point provisor wrote");
	}
}

static void msm_in_free(struct msm_in *in)
{
	free(in->p);
	free(in->s);
	free(in->bp);
	free(in->bs);
	free(in->scratch);
}

static void msm_provisor(const struct msm_in *in, uint8_t out[G1_UNCOMPRESSED])
{
	g1_t r;
	g1_affine_t ra;

	if (msm_g1(&r, in->p, in->s, in->n, 1) != 0)
		die("provisor's msm failed");
	g1_to_affine(&ra, &r);
	g1_serialize(out, &ra);
}

static void msm_blst(const struct msm_in *in, uint8_t out[G1_UNCOMPRESSED])
{
	const blst_p1_affine *pts[2] = { in->bp, NULL };
	const uint8_t *sc[2] = { in->bs, NULL };
	blst_p1 r;

	blst_p1s_mult_pippenger(&r, pts, in->n, sc, 255, in->scratch);
	blst_p1_serialize(out, &r);
}

static void bench_msm(int lg, int runs)
{
	struct msm_in in;
	uint8_t a[G1_UNCOMPRESSED], b[G1_UNCOMPRESSED];
	double tp[64], tb[64];
	struct msm_plan pl;

	msm_in_make(&in, (size_t)1 << lg);
	msm_provisor(&in, a);
	msm_blst(&in, b);
	if (memcmp(a, b, sizeof(a)) != 0)
		die("the MSMs disagree");
	for (int r = 0; r < runs; r++) {
		for (int side = 0; side < 2; side++) {
			double t0 = now();

			if ((side ^ (r & 1)) == 0)
				msm_provisor(&in, a);
			else
				msm_blst(&in, b);
			double dt = now() - t0;
			if ((side ^ (r & 1)) == 0)
				tp[r] = dt;
			else
				tb[r] = dt;
		}
	}
	msm_plan(&pl, in.n, 1, 0);
	double mp = median(tp, runs), mb = median(tb, runs);
	printf("g1 msm 2^%-2d   provisor %9.1f ms (c = %2u)  blst %9.1f ms  ratio %.3f\n", lg,
	       mp * 1e3, pl.c, mb * 1e3, mp / mb);
	msm_in_free(&in);
}

/* The pairing of a random pair, and Fp and Fp2 products: per-operation
 * medians over runs of ITERS each. */
#define ITERS 200
#define FITERS 1000000

static void bench_pairing(int runs)
{
	fr_t a, b;
	g1_t p;
	g2_t q;
	g1_affine_t pa;
	g2_affine_t qa;
	blst_p1_affine bp;
	blst_p2_affine bq;
	blst_fp12 bf;
	fp12_t f;
	uint8_t s1[G1_UNCOMPRESSED], s2[G2_UNCOMPRESSED];
	double tp[64], tb[64];

	rnd_fr(&a);
	rnd_fr(&b);
	g1_from_affine(&p, &G1_GENERATOR);
	g1_mul(&p, &p, &a);
	g1_to_affine(&pa, &p);
	g2_from_affine(&q, &G2_GENERATOR);
	g2_mul(&q, &q, &b);
	g2_to_affine(&qa, &q);
	g1_serialize(s1, &pa);
	g2_serialize(s2, &qa);
	if (blst_p1_deserialize(&bp, s1) != BLST_SUCCESS || blst_p2_deserialize(&bq, s2) != BLST_SUCCESS)
		die("blst refused a point provisor wrote");
	pairing(&f, &pa, &qa);
	blst_miller_loop(&bf, &bq, &bp);
	blst_final_exp(&bf, &bf);
	/* Same Montgomery form and the same tower in the same layout:
	 * compared limb for limb (blst_bendian_from_fp12 lists the
	 * coefficients in another order than fp12_to_bytes). */
	if (sizeof(f) != sizeof(bf) || memcmp(&f, &bf, sizeof(f)) != 0)
		die("the pairings disagree");
	for (int r = 0; r < runs; r++) {
		for (int side = 0; side < 2; side++) {
			int mine = (side ^ (r & 1)) == 0;
			double t0 = now();

			for (int i = 0; i < ITERS; i++) {
				if (mine) {
					pairing(&f, &pa, &qa);
				} else {
					blst_miller_loop(&bf, &bq, &bp);
					blst_final_exp(&bf, &bf);
				}
			}
			(mine ? tp : tb)[r] = (now() - t0) / ITERS;
		}
	}
	double mp = median(tp, runs), mb = median(tb, runs);
	printf("pairing        provisor %9.1f us           blst %9.1f us  ratio %.3f\n", mp * 1e6,
	       mb * 1e6, mp / mb);
}

/* A chain of dependent products, so latency and throughput both count. */
static void bench_field(int runs)
{
	fp2_t x, y;
	blst_fp2 bx, by;
	double tp[64], tb[64], up[64], ub[64];

	memcpy(&x, &G2_GENERATOR.x, sizeof(x));
	memcpy(&y, &G2_GENERATOR.y, sizeof(y));
	/* Both libraries keep Fp in Montgomery form with R = 2^384, limbs
	 * least significant first: the same bits. */
	memcpy(&bx, &x, sizeof(bx));
	memcpy(&by, &y, sizeof(by));
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		for (int i = 0; i < FITERS; i++)
			fp_mul(&x.c0, &x.c0, &y.c0);
		tp[r] = (now() - t0) / FITERS;
		t0 = now();
		for (int i = 0; i < FITERS; i++)
			blst_fp_mul(&bx.fp[0], &bx.fp[0], &by.fp[0]);
		tb[r] = (now() - t0) / FITERS;
		t0 = now();
		for (int i = 0; i < FITERS; i++)
			fp2_mul(&x, &x, &y);
		up[r] = (now() - t0) / FITERS;
		t0 = now();
		for (int i = 0; i < FITERS; i++)
			blst_fp2_mul(&bx, &bx, &by);
		ub[r] = (now() - t0) / FITERS;
	}
	if (memcmp(&x, &bx, sizeof(x)) != 0)
		die("the field products disagree");
	double a = median(tp, runs), b = median(tb, runs), c = median(up, runs), d = median(ub, runs);
	printf("fp mul         provisor %9.2f ns           blst %9.2f ns  ratio %.3f\n", a * 1e9, b * 1e9,
	       a / b);
	printf("fp2 mul        provisor %9.2f ns           blst %9.2f ns  ratio %.3f\n", c * 1e9, d * 1e9,
	       c / d);
}

int main(int argc, char **argv)
{
	const char *rv = getenv("BLST_RUNS");
	int runs = rv && *rv ? atoi(rv) : 5;

	if (runs < 1 || runs > 64)
		die("BLST_RUNS must be 1 to 64");
	/* BLST_MSM_SCALAR=1: provisor's G1 MSM without the IFMA kernel. */
	const char *sv = getenv("BLST_MSM_SCALAR");
	int ifma = msm_use_ifma(!(sv && *sv && strcmp(sv, "0") != 0));

	printf("one core, medians of %d interleaved runs; fp %s, g1 msm bucket additions %s\n", runs,
	       fp_impl_name(), ifma ? "ifma" : "scalar");
	bench_field(runs);
	bench_pairing(runs);
	if (argc < 2) {
		for (int lg = 16; lg <= 22; lg += 2)
			bench_msm(lg, runs);
	}
	for (int i = 1; i < argc; i++) {
		int lg = atoi(argv[i]);

		if (lg < 4 || lg > 26)
			die("a size is log2 n, 4 to 26");
		bench_msm(lg, runs);
	}
	return 0;
}
