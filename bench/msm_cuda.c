/*
 * msm-cuda: the G1 MSM on the CPU (curve/msm.c, every thread) and on CUDA
 * (gpuworker/msm_cuda.h) over the same random inputs, compared as affine
 * points, with timings per size.
 *
 *   msm-cuda [--from K] [--to K] [--dev N]       (defaults 10..20, device 0)
 *
 * One line per k, exactly (tests/gpu/device.sh parses it):
 *   msm k=K n=N cpu_ms=X cuda_ms=Y load_ms=Z identical=yes|no
 * load_ms is msm_cuda_load_bases for those n bases (done once per k, as
 * at params load); cuda_ms is one msm_cuda_g1 call, scalars' upload and
 * the window sums' download included, after a warm-up call.
 * Exits 0 when every size matched, 1 on a mismatch or a failed call, 77
 * (the reason as the last line) when no CUDA device answers, 2 on bad
 * usage. Random bases: min(n, 2^20) distinct points (fixed-base products
 * of the generator), repeated to n; scalars uniform below r.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/curve.h"
#include "curve/msm.h"
#include "field/fr.h"
#include "gpuworker/msm_cuda.h"

#define MC_DISTINCT (1u << 20)

static uint64_t mc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64 */
static uint64_t mc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void mc_rand_fr(fr_t *out, uint64_t *s)
{
	uint64_t v[4];

	do {
		for (int i = 0; i < 4; i++)
			v[i] = mc_rand(s);
		v[3] &= 0x7fffffffffffffffULL;
	} while (fr_from_limbs(out, v) != 0);
}

static int mc_arg(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void mc_usage(void)
{
	fprintf(stderr, "usage: msm-cuda [--from K] [--to K] [--dev N] (0 <= K <= 26)\n");
	exit(2);
}

/* The status's name (builtin.c's provisor_be_status_name would pull in
 * the whole prover). */
static const char *mc_status(int rc)
{
	switch (rc) {
	case PROVISOR_BE_NOMEM: return "out of memory";
	case PROVISOR_BE_DEVICE_LOST: return "device lost";
	case PROVISOR_BE_BAD_INPUT: return "bad input";
	default: return "internal";
	}
}

static int mc_same(const g1_t *a, const g1_t *b)
{
	g1_affine_t x, y;

	g1_to_affine(&x, a);
	g1_to_affine(&y, b);
	if (x.inf || y.inf)
		return x.inf == y.inf;
	return memcmp(&x.x, &y.x, sizeof(x.x)) == 0 && memcmp(&x.y, &y.y, sizeof(x.y)) == 0;
}

/* One size: 0 when both ran and agree. */
static int mc_one(struct msm_cuda *m, unsigned k, const g1_affine_t *p, fr_t *s, uint64_t *seed)
{
	size_t n = (size_t)1 << k;
	g1_t cpu, gpu;
	char err[512];
	uint64_t t0, t1, t2, t3;
	int rc;

	for (size_t i = 0; i < n; i++)
		mc_rand_fr(&s[i], seed);
	t0 = mc_now_ns();
	rc = msm_cuda_load_bases(m, p, n, err, sizeof(err));
	t1 = mc_now_ns();
	if (rc == PROVISOR_BE_OK)
		rc = msm_cuda_g1(m, &gpu, s, n > 1 ? 1 : n, 0, err, sizeof(err));	/* warm-up */
	t2 = mc_now_ns();
	if (rc == PROVISOR_BE_OK)
		rc = msm_cuda_g1(m, &gpu, s, n, 0, err, sizeof(err));
	t3 = mc_now_ns();
	if (rc != PROVISOR_BE_OK) {
		printf("msm k=%u FAIL: %s: %s\n", k, mc_status(rc), err);
		return -1;
	}
	uint64_t c0 = mc_now_ns();
	if (msm_g1(&cpu, p, s, n, 0) != 0) {
		printf("msm k=%u FAIL: msm_g1 ran out of memory\n", k);
		return -1;
	}
	uint64_t c1 = mc_now_ns();
	int same = mc_same(&cpu, &gpu);

	printf("msm k=%u n=%zu cpu_ms=%.2f cuda_ms=%.2f load_ms=%.2f identical=%s\n", k, n, (c1 - c0) / 1e6,
	       (t3 - t2) / 1e6, (t1 - t0) / 1e6, same ? "yes" : "no");
	fflush(stdout);
	return same ? 0 : -1;
}

int main(int argc, char **argv)
{
	long from = 10, to = 20, dev = 0;
	uint64_t seed = 1;
	char err[512];
	struct msm_cuda *m = NULL;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		long *dst = !strcmp(argv[i], "--from") ? &from : !strcmp(argv[i], "--to") ? &to :
			    !strcmp(argv[i], "--dev") ? &dev : NULL;

		if (!dst || i + 1 >= argc || mc_arg(argv[++i], 0, dst == &dev ? 1024 : 26, dst))
			mc_usage();
	}
	if (from > to)
		mc_usage();

	int nd = msm_cuda_devices(err, sizeof(err));
	if (nd <= 0) {
		printf("no CUDA device: %s\n", err);
		return 77;
	}
	if (dev >= nd) {
		fprintf(stderr, "msm-cuda: --dev %ld, but only %d CUDA device%s\n", dev, nd, nd == 1 ? "" : "s");
		return 2;
	}
	int rc = msm_cuda_open(&m, (int)dev, err, sizeof(err));
	if (rc != PROVISOR_BE_OK) {
		printf("msm-cuda: %s: %s\n", mc_status(rc), err);
		return 1;
	}

	size_t nmax = (size_t)1 << to, ndist = nmax < MC_DISTINCT ? nmax : MC_DISTINCT;
	g1_affine_t *p = malloc(nmax * sizeof(*p));
	fr_t *s = malloc(nmax * sizeof(*s));

	if (!p || !s) {
		fprintf(stderr, "msm-cuda: out of memory for k=%ld\n", to);
		return 1;
	}
	for (size_t i = 0; i < ndist; i++)
		mc_rand_fr(&s[i], &seed);
	if (g1_fixed_base_batch(p, &G1_GENERATOR, s, ndist, 0) != 0) {
		fprintf(stderr, "msm-cuda: out of memory making the bases\n");
		return 1;
	}
	for (size_t i = ndist; i < nmax; i++)
		p[i] = p[i % ndist];

	for (long k = from; k <= to; k++)
		bad |= mc_one(m, (unsigned)k, p, s, &seed) != 0;
	printf("%s\n", bad ? "FAIL: CPU and CUDA MSMs disagree or failed" : "OK: CPU and CUDA MSMs agree");
	msm_cuda_close(m);
	free(p);
	free(s);
	return bad ? 1 : 0;
}
