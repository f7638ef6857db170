/*
 * ntt bench: ns per butterfly of the forward NTT at 2^16 and 2^20
 * (butterflies = (n/2) * k per transform), and the CPU H-term per partition
 * at 2^16 and 2^20, all on one core (PROVISOR_HTERM_THREADS=1), medians of
 * a few runs; then the H-term with its three transforms in threads (wall
 * time). Twiddle tables are built before timing starts. Each Fr path the
 * CPU has (portable, adx, ifma) is measured in turn in the same run, or
 * only the one named as the argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/ntt.h"
#include "gpuworker/hterm.h"

#define RUNS 5

/* Thread CPU time: the machines this runs on are often shared, and a
 * single-threaded figure should not count time spent descheduled. */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(bench_clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static void fill(fr_t *x, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		fr_from_u64(&x[i], seed);
	}
}

static int bench_ntt(unsigned k)
{
	size_t n = (size_t)1 << k;
	fr_t *x = malloc(n * sizeof(fr_t));
	double t[RUNS], bfly = (double)(n / 2) * k;

	if (!x)
		return -1;
	fill(x, n, k);
	if (ntt_forward(x, k))	/* builds the tables */
		return -1;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		ntt_forward(x, k);
		t[r] = now_s() - t0;
	}
	double fw = median(t, RUNS);
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		ntt_coset_inverse(x, k);
		t[r] = now_s() - t0;
	}
	double ci = median(t, RUNS);
	printf("ntt 2^%-2u  forward %8.2f ms  %6.2f ns/butterfly   coset inverse %8.2f ms  %6.2f ns/butterfly\n",
	       k, fw * 1e3, fw * 1e9 / bfly, ci * 1e3, ci * 1e9 / bfly);
	free(x);
	return 0;
}

static int bench_hterm(unsigned k, const char *how)
{
	size_t n = (size_t)1 << k;
	fr_t *a = malloc(n * sizeof(fr_t)), *b = malloc(n * sizeof(fr_t));
	fr_t *c = malloc(n * sizeof(fr_t));
	double t[RUNS];

	if (!a || !b || !c)
		return -1;
	for (int r = 0; r < RUNS; r++) {
		fill(a, n, 1);
		fill(b, n, 2);
		for (size_t i = 0; i < n; i++)
			fr_mul(&c[i], &a[i], &b[i]);
		double t0 = now_s();
		if (hterm_cpu(a, b, c, k))
			return -1;
		t[r] = now_s() - t0;
		if (!hterm_check_top(a, k))
			return -1;
	}
	printf("hterm 2^%-2u %8.2f ms per partition (%s)\n", k, median(t, RUNS) * 1e3, how);
	free(a);
	free(b);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	/* Every Fr path this CPU has, side by side (or only the one named). */
	static const char *const all[] = { "portable", "adx", "ifma" };
	const char *impls[3];
	int n = 0;

	if (argc > 1) {
		if (fr_set_impl(argv[1])) {
			fprintf(stderr, "ntt bench: unknown fr implementation %s\n", argv[1]);
			return 2;
		}
		impls[n++] = argv[1];
	} else {
		for (int i = 0; i < 3; i++)
			if (fr_set_impl(all[i]) == 0)
				impls[n++] = all[i];
	}
	for (int i = 0; i < n; i++) {
		fr_set_impl(impls[i]);
		setenv("PROVISOR_HTERM_THREADS", "1", 1);
		bench_clock = CLOCK_THREAD_CPUTIME_ID;
		printf("fr implementation: %s\n", fr_impl_name());
		if (bench_ntt(16) || bench_ntt(20) || bench_hterm(16, "one core") ||
		    bench_hterm(20, "one core"))
			goto fail;
		/* The three transforms in parallel: wall time, as many cores as free. */
		setenv("PROVISOR_HTERM_THREADS", "3", 1);
		bench_clock = CLOCK_MONOTONIC;
		if (bench_hterm(16, "3 threads, wall") || bench_hterm(20, "3 threads, wall"))
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "ntt bench: failed (out of memory?)\n");
	return 1;
}
