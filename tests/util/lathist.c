/*
 * util/lathist.h: every bucket boundary falls where the header says (each
 * bucket at most 12.5% of its lower bound wide, from 1 us to past 10 s);
 * known samples give the right count, sum, maximum, p50 and p99; and on
 * random samples every quantile is the exact one (sorted) or at most
 * 12.5% above it, never below.
 */
#include "tests/helpers.h"
#include "util/lathist.h"

#define MS 1000000ull
#define US 1000ull

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The exact q-quantile of sorted v[0..n): the value of rank ceil(q n). */
static uint64_t exact(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	return v[(rank ? rank : 1) - 1];
}

static void buckets(void)
{
	CHECK(lathist_bucket(0) == 0 && lathist_bucket(1000) == 0 && lathist_bucket(1023) == 0,
	      "below 1.024 us is bucket 0");
	CHECK(lathist_bucket(1024) == 1, "1024 ns opens bucket 1");
	CHECK(lathist_bucket(10ull * 1000 * MS) < LATHIST_N - 1, "10 s has a bucket of its own");
	CHECK(lathist_bucket(20ull * 1000 * MS) == LATHIST_N - 1 && lathist_bucket(UINT64_MAX) == LATHIST_N - 1,
	      "beyond 17 s is the last bucket");
	CHECK(lathist_upper(LATHIST_N - 1) == UINT64_MAX, "the last bucket is open");
	for (unsigned i = 0; i + 1 < LATHIST_N; i++) {
		uint64_t up = lathist_upper(i), lo = i ? lathist_upper(i - 1) : 0;
		CHECK(up > lo, "bucket %u is empty", i);
		CHECK(lathist_bucket(up - 1) == i && lathist_bucket(up) == i + 1,
		      "bucket %u ends at %llu: %u / %u", i, (unsigned long long)up,
		      lathist_bucket(up - 1), lathist_bucket(up));
		CHECK(i == 0 || (up - lo) * 8 <= lo, "bucket %u [%llu, %llu) wider than 12.5%%", i,
		      (unsigned long long)lo, (unsigned long long)up);
	}
}

static void known(void)
{
	struct lathist h = { 0 };

	CHECK(lathist_quantile(&h, 0.5) == 0 && lathist_quantile(&h, 0.99) == 0, "empty: 0");

	/* 98 iterations of 100 us, 2 of 40 ms: p50 100 us, p99 (rank 99) 40 ms */
	for (int i = 0; i < 98; i++)
		lathist_add(&h, 100 * US);
	lathist_add(&h, 40 * MS);
	lathist_add(&h, 40 * MS);
	CHECK_EQ_U64(h.n, 100);
	CHECK_EQ_U64(h.sum_ns, 98 * 100 * US + 80 * MS);
	CHECK_EQ_U64(h.max_ns, 40 * MS);
	uint64_t p50 = lathist_quantile(&h, 0.5), p99 = lathist_quantile(&h, 0.99);
	CHECK(p50 >= 100 * US && p50 <= 112500, "p50 %llu, wanted 100 us (+12.5%%)", (unsigned long long)p50);
	CHECK_EQ_U64(p99, 40 * MS);	/* the maximum's bucket: capped at the maximum */
	CHECK(lathist_quantile(&h, 0.98) <= 112500, "p98 is still 100 us");

	/* 1, 2, ..., 1000 ms */
	h = (struct lathist){ 0 };
	for (uint64_t v = 1; v <= 1000; v++)
		lathist_add(&h, v * MS);
	p50 = lathist_quantile(&h, 0.5), p99 = lathist_quantile(&h, 0.99);
	CHECK(p50 >= 500 * MS && p50 <= 500 * MS * 9 / 8, "p50 %llu, wanted 500 ms", (unsigned long long)p50);
	CHECK(p99 >= 990 * MS && p99 <= 1000 * MS, "p99 %llu, wanted 990 ms (capped at 1 s)",
	      (unsigned long long)p99);
	CHECK_EQ_U64(lathist_quantile(&h, 1.0), 1000 * MS);
	CHECK_EQ_U64(h.sum_ns, 500500 * MS);

	/* one sample: every quantile is that sample */
	h = (struct lathist){ 0 };
	lathist_add(&h, 7 * MS);
	CHECK_EQ_U64(lathist_quantile(&h, 0.5), 7 * MS);
	CHECK_EQ_U64(lathist_quantile(&h, 0.99), 7 * MS);

	/* a 30 s stall among fast ones lands in the open bucket */
	for (int i = 0; i < 1000; i++)
		lathist_add(&h, 2 * US);
	lathist_add(&h, 30000 * MS);
	CHECK_EQ_U64(h.b[LATHIST_N - 1], 1);
	CHECK_EQ_U64(lathist_quantile(&h, 1.0), 30000 * MS);
	CHECK(lathist_quantile(&h, 0.99) <= 2250, "p99 %llu, wanted 2 us",
	      (unsigned long long)lathist_quantile(&h, 0.99));
}

static void random_samples(void)
{
	static const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	static uint64_t v[20000];
	uint64_t seed = 7;

	for (int round = 0; round < 20; round++) {
		struct lathist h = { 0 };
		size_t n = 1 + t_rand(&seed) % (sizeof v / sizeof v[0]);
		for (size_t i = 0; i < n; i++) {
			/* log-uniform from 100 ns to 16.7 s (past 17 s a quantile is the maximum) */
			v[i] = (100 + t_rand(&seed) % 900) << (t_rand(&seed) % 25);
			lathist_add(&h, v[i]);
		}
		qsort(v, n, sizeof v[0], cmp_u64);
		CHECK_EQ_U64(h.max_ns, v[n - 1]);
		for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
			uint64_t want = exact(v, n, qs[k]), got = lathist_quantile(&h, qs[k]);
			CHECK(got >= want && (got - want) * 8 <= want + 8 * 1024,
			      "n %zu q %g: got %llu, exact %llu", n, qs[k], (unsigned long long)got,
			      (unsigned long long)want);
		}
	}
}

int main(void)
{
	buckets();
	known();
	random_samples();
	printf("info: lathist: %u buckets, 1 us .. 17 s at 12.5%%; known and random quantiles right\n",
	       LATHIST_N);
	return 0;
}
