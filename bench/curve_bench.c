/*
 * bench/curve: G1/G2 operations, ns/op (median of RUNS timed runs, each
 * operation's result feeding the next where that makes sense), then the
 * fixed-base batch of 2^16 scalars (or argv[1] as log2 n) in G1 and G2 on
 * the online CPUs. The field implementation in use is printed first.
 * Single operations are timed on the thread's CPU clock, so that a shared,
 * oversubscribed machine slows them less; the batches give wall and
 * process CPU time both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/curve.h"

#define RUNS 5

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

enum op {
	G1_DBL, G1_ADD, G1_MADD, G1_MUL, G1_SUBGROUP, G1_DECOMPRESS, G1_DESERIALIZE,
	G2_DBL, G2_ADD, G2_MADD, G2_MUL, G2_SUBGROUP, G2_DECOMPRESS, NOPS
};

static const struct {
	const char *name;
	long iters;
} ops[NOPS] = {
	[G1_DBL] = { "G1 doubling", 200000 },
	[G1_ADD] = { "G1 addition", 100000 },
	[G1_MADD] = { "G1 mixed addition", 100000 },
	[G1_MUL] = { "G1 mul (255-bit)", 200 },
	[G1_SUBGROUP] = { "G1 subgroup check", 500 },
	[G1_DECOMPRESS] = { "G1 decompress (checked)", 500 },
	[G1_DESERIALIZE] = { "G1 deserialize (checked)", 500 },
	[G2_DBL] = { "G2 doubling", 50000 },
	[G2_ADD] = { "G2 addition", 30000 },
	[G2_MADD] = { "G2 mixed addition", 30000 },
	[G2_MUL] = { "G2 mul (255-bit)", 100 },
	[G2_SUBGROUP] = { "G2 subgroup check", 200 },
	[G2_DECOMPRESS] = { "G2 decompress (checked)", 200 },
};

static g1_t p1, q1;
static g1_affine_t a1;
static g2_t p2, q2;
static g2_affine_t a2;
static fr_t sc;
static uint8_t c1[G1_COMPRESSED], u1[G1_UNCOMPRESSED], c2[G2_COMPRESSED];
static volatile int sink;

static double run_once(enum op op, long n)
{
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (long i = 0; i < n; i++) {
		switch (op) {
		case G1_DBL: g1_double(&p1, &p1); break;
		case G1_ADD: g1_add(&p1, &p1, &q1); break;
		case G1_MADD: g1_add_affine(&p1, &p1, &a1); break;
		case G1_MUL: g1_mul(&p1, &p1, &sc); break;
		case G1_SUBGROUP: sink += g1_affine_in_subgroup(&a1); break;
		case G1_DECOMPRESS: sink += g1_decompress(&a1, c1, NULL, 0); break;
		case G1_DESERIALIZE: sink += g1_deserialize(&a1, u1, NULL, 0); break;
		case G2_DBL: g2_double(&p2, &p2); break;
		case G2_ADD: g2_add(&p2, &p2, &q2); break;
		case G2_MADD: g2_add_affine(&p2, &p2, &a2); break;
		case G2_MUL: g2_mul(&p2, &p2, &sc); break;
		case G2_SUBGROUP: sink += g2_affine_in_subgroup(&a2); break;
		case G2_DECOMPRESS: sink += g2_decompress(&a2, c2, NULL, 0); break;
		case NOPS: break;
		}
	}
	return (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n;
}

static void bench_fixed(size_t n)
{
	fr_t *s = malloc(n * sizeof *s);
	g1_affine_t *o1 = malloc(n * sizeof *o1);
	g2_affine_t *o2 = malloc(n * sizeof *o2);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!s || !o1 || !o2) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	s[0] = sc;
	for (size_t i = 1; i < n; i++)
		fr_mul(&s[i], &s[i - 1], &sc);
	uint64_t w0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (g1_fixed_base_batch(o1, &G1_GENERATOR, s, n, 0) != 0)
		exit(1);
	uint64_t w1 = clock_ns(CLOCK_MONOTONIC), cpu1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (g2_fixed_base_batch(o2, &G2_GENERATOR, s, n, 0) != 0)
		exit(1);
	uint64_t w2 = clock_ns(CLOCK_MONOTONIC), cpu2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	printf("%-28s %12.1f ms  (n = %zu, %ld CPUs, CPU time %.1f ms)\n", "G1 fixed-base batch",
	       (double)(w1 - w0) / 1e6, n, cpus, (double)(cpu1 - cpu0) / 1e6);
	printf("%-28s %12.1f ms  (n = %zu, %ld CPUs, CPU time %.1f ms)\n", "G2 fixed-base batch",
	       (double)(w2 - w1) / 1e6, n, cpus, (double)(cpu2 - cpu1) / 1e6);
	free(s);
	free(o1);
	free(o2);
}

int main(int argc, char **argv)
{
	unsigned logn = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
	uint64_t seed[4] = { 0x0123456789abcdefULL, 0x1111, 0x2222, 0x0333 };

	fr_from_limbs(&sc, seed);
	g1_from_affine(&p1, &G1_GENERATOR);
	g1_mul(&p1, &p1, &sc);
	g1_double(&q1, &p1);
	g1_to_affine(&a1, &q1);
	g1_compress(c1, &a1);
	g1_serialize(u1, &a1);
	g2_from_affine(&p2, &G2_GENERATOR);
	g2_mul(&p2, &p2, &sc);
	g2_double(&q2, &p2);
	g2_to_affine(&a2, &q2);
	g2_compress(c2, &a2);

	printf("fp: %s, fr: %s\n", fp_impl_name(), fr_impl_name());
	for (int op = 0; op < NOPS; op++) {
		double t[RUNS];
		for (int r = 0; r < RUNS; r++)
			t[r] = run_once(op, ops[op].iters / RUNS + 1);
		qsort(t, RUNS, sizeof t[0], cmp_double);
		printf("%-28s %12.1f ns/op\n", ops[op].name, t[RUNS / 2]);
	}
	if (logn > 0 && logn < 26)
		bench_fixed((size_t)1 << logn);
	return sink == 12345 ? 1 : 0;
}
