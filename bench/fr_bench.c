/*
 * bench/fr: Fr arithmetic ns/op, portable, adx and ifma side by side from one
 * run. Each figure is the median of RUNS timed runs. "chain" figures feed
 * each result into the next operation (latency, what a serial pow or a
 * butterfly sees); "array" figures run over independent elements
 * (throughput, what a pointwise product over a vector sees).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fr.h"

#define RUNS 7
#define ITERS 2000000
#define ARRAY 4096

static fr_t va[ARRAY], vb[ARRAY], vc[ARRAY];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

enum op { MUL_CALL, MUL_FN, MUL_DIRECT, MUL_ARRAY, MUL_BATCH, SQR, ADD, SUB, INV, BATCH_INV };

static uint64_t sink;

/* One timed run: ns per operation. */
static double run_once(enum op op, fr_mul_fn_t direct, long iters)
{
	fr_mul_fn_t mul = fr_mul_fn();
	fr_t x = va[0], y = vb[1];
	uint64_t t0 = now_ns();

	switch (op) {
	case MUL_CALL: for (long i = 0; i < iters; i++) fr_mul(&x, &x, &y); break;
	case MUL_FN: for (long i = 0; i < iters; i++) mul(&x, &x, &y); break;
	case MUL_DIRECT: for (long i = 0; i < iters; i++) direct(&x, &x, &y); break;
	case MUL_ARRAY:
		for (long i = 0; i < iters; i += ARRAY)
			for (int j = 0; j < ARRAY; j++)
				mul(&vc[j], &va[j], &vb[j]);
		break;
	case MUL_BATCH:
		for (long i = 0; i < iters; i += ARRAY)
			fr_muln_fn()(vc, va, vb, ARRAY);
		break;
	case SQR: for (long i = 0; i < iters; i++) fr_sqr(&x, &x); break;
	case ADD: for (long i = 0; i < iters; i++) fr_add(&x, &x, &y); break;
	case SUB: for (long i = 0; i < iters; i++) fr_sub(&x, &x, &y); break;
	case INV: for (long i = 0; i < iters; i++) fr_inv(&x, &x); break;
	case BATCH_INV:
		for (long i = 0; i < iters; i += ARRAY)
			fr_batch_inv(vc, va, ARRAY);
		break;
	}
	uint64_t dt = now_ns() - t0;
	sink += x.l[0] + vc[0].l[0];
	return (double)dt / (double)iters;
}

/* Median of RUNS; *best gets the fastest run, a floor that the other
 * engineers' jobs on shared cores disturb least. */
static double median(enum op op, fr_mul_fn_t direct, long iters, double *best)
{
	double v[RUNS];
	run_once(op, direct, iters / 10);	/* warm up */
	for (int i = 0; i < RUNS; i++)
		v[i] = run_once(op, direct, iters);
	qsort(v, RUNS, sizeof(v[0]), cmp_double);
	*best = v[0];
	return v[RUNS / 2];
}

struct row {
	const char *name;
	enum op op;
	long iters;
};

static const struct row rows[] = {
	{ "fr_mul (chain, direct call)", MUL_DIRECT, ITERS },
	{ "fr_mul (chain, via fr_mul_fn())", MUL_FN, ITERS },
	{ "fr_mul (chain, via fr_mul())", MUL_CALL, ITERS },
	{ "fr_mul (array, via fr_mul_fn())", MUL_ARRAY, ITERS },
	{ "fr_muln (array, batch of 4096)", MUL_BATCH, ITERS },
	{ "fr_sqr (chain)", SQR, ITERS },
	{ "fr_add (chain)", ADD, ITERS },
	{ "fr_sub (chain)", SUB, ITERS },
	{ "fr_inv", INV, 20000 },
	{ "fr_batch_inv (per element)", BATCH_INV, 40960 * 4 },
};

int main(void)
{
	const char *impls[3] = { "portable", "adx", "ifma" };
	fr_mul_fn_t directs[3] = { fr_mul_portable, NULL, NULL };
	int have[3] = { 1, 0, 0 };
	uint64_t s = 0x2545f4914f6cdd1dULL;

#if defined(__x86_64__)
	directs[1] = directs[2] = fr_mul_adx;
	have[1] = fr_have_adx();
	have[2] = fr_have_ifma();
#endif
	for (int i = 0; i < ARRAY; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		fr_from_u64(&va[i], s);
		fr_sqr(&va[i], &va[i]);
		fr_from_u64(&vb[i], s ^ 0x5555);
		fr_sqr(&vb[i], &vb[i]);
	}
	printf("fr bench: median of %d runs; default implementation %s\n", RUNS, fr_impl_name());
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (int i = 0; i < 3; i++) {
			/* ifma differs from adx only in batches */
			if (!have[i] || (i == 2 && rows[r].op != MUL_BATCH))
				continue;
			fr_set_impl(impls[i]);
			double best, ns = median(rows[r].op, directs[i], rows[r].iters, &best);
			printf("%-34s %-8s %8.2f ns/op  (best %.2f)\n", rows[r].name, impls[i], ns, best);
		}
	}
	if (!have[1])
		printf("adx: not available on this CPU\n");
	if (!have[2])
		printf("ifma: not available on this CPU (or OS)\n");
	return sink == 42;	/* keeps results live; never true in practice */
}
