/*
 * bench/msm: G1 and G2 MSM at n = 2^12, 2^14, ... up to 2^MSM_BENCH_MAX_LOG
 * (default 20 for both; MSM_BENCH_MAX_LOG caps both), on every
 * online CPU (MSM_BENCH_THREADS overrides). Per size: the plan, the wall
 * time (best of a few runs at small n, one run at large n), and the cost
 * per point as core time two ways: wall x threads / n, and the process
 * CPU time (CLOCK_PROCESS_CPUTIME_ID) / n. Then the naive sum at 2^12 on
 * one thread against the MSM on one thread. MSM_BENCH_MIN_LOG starts the
 * sizes higher (the naive comparison then is skipped), MSM_BENCH_GROUP=g1
 * or g2 runs one group only, MSM_BENCH_C forces the window width.
 *
 * Points are an arithmetic progression P0 + i Q (one Jacobian addition
 * each, then one batch normalisation), so setup stays cheap; the scalars
 * are random, which is what the MSM's cost depends on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/msm.h"
#include "curve/msm_priv.h"

static unsigned bm_c;	/* MSM_BENCH_C: a forced window width, 0: the plan's */

static uint64_t bm_seed = 0x62656e63686d736dULL;

static uint64_t bm_rand(void)
{
	uint64_t x = bm_seed;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	bm_seed = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void bm_rand_fr(fr_t *out)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = bm_rand();
		memcpy(b + i, &r, 8);
	}
	fr_from_bytes_wide(out, b);
}

static double bm_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One group behind void pointers: setup and the timed call. */
struct bm_grp {
	const char *name;
	size_t aff, jac;
	int (*msm)(void *out, const void *p, const fr_t *s, size_t n, unsigned threads, unsigned c);
	void (*naive)(void *out, const void *p, const fr_t *s, size_t n);
	int (*points)(void *p, size_t n);	/* P0 + i Q */
};

#define BM_GROUP(G, GEN) \
static int G##_bm_msm(void *o, const void *p, const fr_t *s, size_t n, unsigned t, unsigned c) \
{ return msm_##G##_c(o, p, s, n, t, c); } \
static void G##_bm_naive(void *o, const void *p, const fr_t *s, size_t n) { msm_##G##_naive(o, p, s, n); } \
static int G##_bm_points(void *p, size_t n) \
{ \
	G##_t *j = malloc(n * sizeof(*j)), q; \
	fr_t a; \
	int rc; \
	if (!j) \
		return -1; \
	bm_rand_fr(&a); \
	G##_from_affine(&j[0], &GEN); \
	G##_mul(&j[0], &j[0], &a); \
	bm_rand_fr(&a); \
	G##_from_affine(&q, &GEN); \
	G##_mul(&q, &q, &a); \
	for (size_t i = 1; i < n; i++) \
		G##_add(&j[i], &j[i - 1], &q); \
	rc = G##_batch_to_affine(p, j, n); \
	free(j); \
	return rc; \
} \
static const struct bm_grp G##_bm = { #G, sizeof(G##_affine_t), sizeof(G##_t), \
	G##_bm_msm, G##_bm_naive, G##_bm_points };

BM_GROUP(g1, G1_GENERATOR)
BM_GROUP(g2, G2_GENERATOR)

static int bm_env(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

/* Times the MSM of the first n points: best wall time of runs, with the
 * process CPU time of that run. */
static void bm_time(const struct bm_grp *g, const void *p, const fr_t *s, size_t n,
		    unsigned threads, int runs, double *wall, double *cpu)
{
	union { g1_t a; g2_t b; } out;

	*wall = -1;
	for (int r = 0; r < runs; r++) {
		double w0 = bm_clock(CLOCK_MONOTONIC), c0 = bm_clock(CLOCK_PROCESS_CPUTIME_ID);

		if (g->msm(&out, p, s, n, threads, bm_c) != 0) {
			fprintf(stderr, "msm: out of memory at n=%zu\n", n);
			exit(1);
		}
		double w = bm_clock(CLOCK_MONOTONIC) - w0, c = bm_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (*wall < 0 || w < *wall) {
			*wall = w;
			*cpu = c;
		}
	}
}

static int bm_group(const struct bm_grp *g, int minlog, int maxlog, unsigned threads)
{
	size_t nmax = (size_t)1 << maxlog;
	void *p = malloc(nmax * g->aff);
	fr_t *s = malloc(nmax * sizeof(fr_t));
	double t0 = bm_clock(CLOCK_MONOTONIC), wall, cpu, w1, c1;

	if (!p || !s || g->points(p, nmax) != 0) {
		fprintf(stderr, "bench/msm: out of memory for 2^%d %s points\n", maxlog, g->name);
		return -1;
	}
	for (size_t i = 0; i < nmax; i++)
		bm_rand_fr(&s[i]);
	printf("%s: setup of 2^%d points %.2f s\n", g->name, maxlog, bm_clock(CLOCK_MONOTONIC) - t0);
	printf("%-3s %6s %3s %4s %7s %10s %14s %14s\n", "", "log n", "c", "k", "threads", "wall ms",
	       "wall*T/n ns", "cpu/n ns");
	for (int lg = minlog; lg <= maxlog; lg += 2) {
		size_t n = (size_t)1 << lg;
		struct msm_plan pl;

		msm_plan(&pl, n, threads, bm_c);
		bm_time(g, p, s, n, threads, lg <= 16 ? 3 : 1, &wall, &cpu);
		printf("%-3s %6d %3u %4u %7u %10.1f %14.0f %14.0f\n", g->name, lg, pl.c, pl.k, pl.threads,
		       wall * 1e3, wall * 1e9 * pl.threads / n, cpu * 1e9 / n);
	}

	/* Naive against the MSM, both on one thread, at 2^12. */
	size_t n = 4096;

	if (minlog > 12)
		goto out;
	union { g1_t a; g2_t b; } out;
	double n0 = bm_clock(CLOCK_MONOTONIC);
	g->naive(&out, p, s, n);
	double naive = bm_clock(CLOCK_MONOTONIC) - n0;
	bm_time(g, p, s, n, 1, 3, &w1, &c1);	/* at bm_c, when forced */
	printf("%s naive 2^12: %.1f ms (%.0f ns/point), msm 1 thread %.1f ms: %.1fx\n", g->name,
	       naive * 1e3, naive * 1e9 / n, w1 * 1e3, naive / w1);
out:
	free(p);
	free(s);
	return 0;
}

int main(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = (unsigned)bm_env("MSM_BENCH_THREADS", online > 0 ? (int)online : 1);
	int maxlog = bm_env("MSM_BENCH_MAX_LOG", 0);
	int minlog = bm_env("MSM_BENCH_MIN_LOG", 12);

	bm_c = (unsigned)bm_env("MSM_BENCH_C", 0);
	int g1max = maxlog ? maxlog : 20, g2max = maxlog ? maxlog : 20;
	const char *grp = getenv("MSM_BENCH_GROUP");
	int g1 = !grp || !*grp || strcmp(grp, "g1") == 0, g2 = !grp || !*grp || strcmp(grp, "g2") == 0;

	if (g1max < 12 || g1max > 26 || minlog < 12 || minlog > g1max || (!g1 && !g2)) {
		fprintf(stderr, "bench/msm: MSM_BENCH_MAX_LOG and MIN_LOG must be 12 to 26, "
			"MSM_BENCH_GROUP g1 or g2\n");
		return 1;
	}
	printf("fp %s, fr %s, %u threads\n", fp_impl_name(), fr_impl_name(), threads);
	if ((g1 && bm_group(&g1_bm, minlog, g1max, threads) != 0) ||
	    (g2 && bm_group(&g2_bm, minlog, g2max, threads) != 0))
		return 1;
	return 0;
}
