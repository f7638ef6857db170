/*
 * ntt_roundtrip: inverse(forward(x)) = x and coset_inverse(coset_forward(x))
 * = x for every size 2^1 .. 2^16 under each fr implementation, with output
 * entries spot-checked against Horner evaluation of x at w^j (and g w^j);
 * 2^21 once (not under TSan), to cover the coset path without cached
 * power tables; and concurrent first use of one size from several threads. The fused
 * ntt_domain_to_coset() must equal ntt_inverse() then ntt_coset_forward().
 */
#include <pthread.h>

#include "field/ntt.h"
#include "tests/ntt/ntt_naive.h"

/* The roundtrips' largest k: smaller under a sanitizer (under TSan
 * smaller still: the threads' part is the race below, not the sizes). */
#define RT_MAX_K (T_SANITIZER == 2 ? 12u : T_SIZE(16u, 14u))

static void spot_check(const fr_t *x, const fr_t *y, unsigned k, int coset,
		       uint64_t *seed)
{
	size_t n = (size_t)1 << k;
	fr_t w, pt, v;

	tn_omega(&w, k);
	for (int s = 0; s < 3; s++) {
		size_t j = s == 0 ? n - 1 : t_rand(seed) % n;
		fr_pow_u64(&pt, &w, j);
		if (coset)
			fr_mul(&pt, &pt, &FR_GENERATOR);
		tn_eval(&v, x, n, &pt);
		CHECK(fr_equal(&v, &y[j]), "%sforward k=%u wrong at %zu",
		      coset ? "coset " : "", k, j);
	}
}

static void roundtrip(unsigned k, uint64_t *seed)
{
	size_t n = (size_t)1 << k;
	fr_t *x = malloc(n * sizeof(fr_t)), *y = malloc(n * sizeof(fr_t));

	CHECK(x && y, "out of memory");
	for (size_t i = 0; i < n; i++)
		tn_rand(&x[i], seed);
	for (int coset = 0; coset < 2; coset++) {
		memcpy(y, x, n * sizeof(fr_t));
		CHECK((coset ? ntt_coset_forward : ntt_forward)(y, k) == 0, "k=%u", k);
		CHECK(memcmp(x, y, n * sizeof(fr_t)) != 0, "k=%u: transform is identity", k);
		spot_check(x, y, k, coset, seed);
		CHECK((coset ? ntt_coset_inverse : ntt_inverse)(y, k) == 0, "k=%u", k);
		for (size_t i = 0; i < n; i++)
			CHECK(fr_equal(&x[i], &y[i]), "%sroundtrip k=%u differs at %zu",
			      coset ? "coset " : "", k, i);
	}
	/* the fused hterm step is the composition it replaces */
	memcpy(y, x, n * sizeof(fr_t));
	CHECK(ntt_inverse(y, k) == 0 && ntt_coset_forward(y, k) == 0, "k=%u", k);
	CHECK(ntt_domain_to_coset(x, k) == 0, "k=%u", k);
	CHECK(memcmp(x, y, n * sizeof(fr_t)) == 0, "domain_to_coset k=%u differs", k);
	free(x);
	free(y);
}

#define RACE_LOG 17
#define RACE_THREADS 4

static fr_t *race_buf[RACE_THREADS];

static void *race_one(void *arg)
{
	fr_t *x = arg;
	return (void *)(intptr_t)ntt_coset_forward(x, RACE_LOG);
}

static void race(uint64_t *seed)
{
	size_t n = (size_t)1 << RACE_LOG;
	pthread_t tid[RACE_THREADS];
	void *rc;

	for (int t = 0; t < RACE_THREADS; t++) {
		race_buf[t] = malloc(n * sizeof(fr_t));
		CHECK(race_buf[t], "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		tn_rand(&race_buf[0][i], seed);
		for (int t = 1; t < RACE_THREADS; t++)
			race_buf[t][i] = race_buf[0][i];
	}
	for (int t = 0; t < RACE_THREADS; t++)
		CHECK(pthread_create(&tid[t], NULL, race_one, race_buf[t]) == 0, "thread");
	for (int t = 0; t < RACE_THREADS; t++) {
		CHECK(pthread_join(tid[t], &rc) == 0 && rc == NULL, "thread %d", t);
		CHECK(memcmp(race_buf[0], race_buf[t], n * sizeof(fr_t)) == 0,
		      "threads disagree at first use of 2^%d", RACE_LOG);
	}
	for (int t = 1; t < RACE_THREADS; t++)
		free(race_buf[t]);
	CHECK(ntt_coset_inverse(race_buf[0], RACE_LOG) == 0, "inverse");
	free(race_buf[0]);
}

int main(void)
{
	const char *impls[3];
	int nimpl = tn_impls(impls);
	uint64_t seed = 0x726f756e64ULL;

	race(&seed);
	for (int im = 0; im < nimpl; im++) {
		uint64_t t0 = t_now_ns();
		CHECK(fr_set_impl(impls[im]) == 0, "fr_set_impl(%s)", impls[im]);
		for (unsigned k = 1; k <= RT_MAX_K; k++)
			roundtrip(k, &seed);
		printf("info: %s: roundtrips k=1..%u hold (%.2f s)\n", impls[im], RT_MAX_K,
		       (t_now_ns() - t0) / 1e9);
	}
	if (T_SANITIZER == 2) {	/* one thread's arithmetic: 100 s under TSan, nothing for it */
		printf("info: roundtrip k=21 left to the plain and ASan stages\n");
		return 0;
	}
	roundtrip(21, &seed);
	printf("info: %s: roundtrip k=21 holds\n", fr_impl_name());
	return 0;
}
