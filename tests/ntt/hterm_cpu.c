/*
 * hterm_cpu: for random satisfied systems (c = a*b pointwise), H from
 * hterm_cpu() satisfies A(x)B(x) - C(x) = H(x)(x^n - 1) at random points x,
 * with A, B, C's coefficients found independently (the naive inverse DFT
 * up to 2^8, ntt_inverse above), and H[n-1] = 0; an unsatisfied system
 * (one c[i] changed) fails that check. k = 1 .. 14, threaded and not, under
 * each fr implementation; bad k is refused.
 *
 * Safe points: a stop hook that never stops is asked at least once per
 * 2^11 elements of each of the 7 transforms at k = 16, so an abandon
 * waits for no whole transform (counted, not timed); one that stops at
 * its m-th call (and every one after) ends the H-term with HTERM_STOPPED,
 * the rest of its work skipped.
 */
#include "field/ntt.h"
#include "gpuworker/hterm.h"
#include "tests/ntt/ntt_naive.h"

#define POINTS 4

/* The coefficient form of evaluations e on the domain of size 2^k. */
static void coeffs(fr_t *out, const fr_t *e, unsigned k)
{
	size_t n = (size_t)1 << k;

	if (k <= 8) {
		tn_dft(out, e, k, TN_INV);
		return;
	}
	memcpy(out, e, n * sizeof(fr_t));
	CHECK(ntt_inverse(out, k) == 0, "ntt_inverse k=%u", k);
}

/* 1 when A(x)B(x) - C(x) == H(x)(x^n - 1) at every one of POINTS random x. */
static int identity_holds(const fr_t *A, const fr_t *B, const fr_t *C,
			  const fr_t *H, unsigned k, uint64_t *seed)
{
	size_t n = (size_t)1 << k;

	for (int p = 0; p < POINTS; p++) {
		fr_t x, va, vb, vc, vh, z, lhs, rhs;
		tn_rand(&x, seed);
		tn_eval(&va, A, n, &x);
		tn_eval(&vb, B, n, &x);
		tn_eval(&vc, C, n, &x);
		tn_eval(&vh, H, n, &x);
		fr_mul(&lhs, &va, &vb);
		fr_sub(&lhs, &lhs, &vc);
		fr_pow_u64(&z, &x, n);
		fr_sub(&z, &z, &FR_ONE);
		fr_mul(&rhs, &vh, &z);
		if (!fr_equal(&lhs, &rhs))
			return 0;
	}
	return 1;
}

/* Runs hterm_cpu on (a, b, c) and returns whether H checks out against
 * the independent coefficient forms. */
static int check_system(const fr_t *a, const fr_t *b, const fr_t *c,
			unsigned k, uint64_t *seed, int *top_zero)
{
	size_t n = (size_t)1 << k, sz = n * sizeof(fr_t);
	fr_t *h = malloc(sz), *hb = malloc(sz), *hc = malloc(sz);
	fr_t *A = malloc(sz), *B = malloc(sz), *C = malloc(sz);
	int ok;

	CHECK(h && hb && hc && A && B && C, "out of memory");
	memcpy(h, a, sz);
	memcpy(hb, b, sz);
	memcpy(hc, c, sz);
	CHECK(hterm_cpu(h, hb, hc, k) == 0, "hterm_cpu k=%u", k);
	coeffs(A, a, k);
	coeffs(B, b, k);
	coeffs(C, c, k);
	*top_zero = hterm_check_top(h, k);
	ok = identity_holds(A, B, C, h, k, seed);
	if (ok) {
		/* One flipped coefficient of H must break it. */
		size_t i = t_rand(seed) % n;
		fr_add(&h[i], &h[i], &FR_ONE);
		CHECK(!identity_holds(A, B, C, h, k, seed),
		      "k=%u: identity survives a flipped H[%zu]", k, i);
	}
	free(h); free(hb); free(hc);
	free(A); free(B); free(C);
	return ok;
}

static void run_k(unsigned k, uint64_t *seed)
{
	size_t n = (size_t)1 << k, sz = n * sizeof(fr_t);
	fr_t *a = malloc(sz), *b = malloc(sz), *c = malloc(sz);
	int top;

	CHECK(a && b && c, "out of memory");
	for (size_t i = 0; i < n; i++) {
		tn_rand(&a[i], seed);
		tn_rand(&b[i], seed);
		fr_mul(&c[i], &a[i], &b[i]);
	}
	CHECK(check_system(a, b, c, k, seed, &top), "k=%u: A*B - C != H*Z", k);
	CHECK(top, "k=%u: satisfied system, H[n-1] != 0", k);

	size_t i = t_rand(seed) % n;
	fr_add(&c[i], &c[i], &FR_ONE);
	int ok = check_system(a, b, c, k, seed, &top);
	CHECK(!ok, "k=%u: unsatisfied system (c[%zu] changed) passes the identity", k, i);
	CHECK(!(ok && top), "k=%u: unsatisfied system passes", k);
	free(a); free(b); free(c);
}

static _Atomic unsigned stop_calls, stop_at;

static int count_stop(void *arg)
{
	(void)arg;
	return ++stop_calls >= stop_at && stop_at;	/* sticky, as an abandon is */
}

static void safe_points(uint64_t *seed)
{
	enum { K = 16 };
	size_t n = (size_t)1 << K;
	fr_t *v = malloc(3 * n * sizeof(fr_t));

	CHECK(v, "out of memory");
	for (size_t i = 0; i < 3 * n; i++)
		tn_rand(&v[i], seed);
	setenv("PROVISOR_HTERM_THREADS", "1", 1);
	hterm_set_stop(count_stop, NULL);
	stop_calls = 0;
	stop_at = 0;	/* never */
	CHECK(hterm_cpu(v, v + n, v + 2 * n, K) == 0, "k=%d with a hook that never stops", K);
	unsigned all = stop_calls;
	CHECK(all >= 7 * (n >> 11), "k=%d: %u safe points in 7 transforms of 2^%d", K, all, K);
	stop_calls = 0;
	stop_at = all / 2;
	CHECK(hterm_cpu(v, v + n, v + 2 * n, K) == HTERM_STOPPED, "not stopped at safe point %u", all / 2);
	/* the rest of the work skipped: the safe points after it unasked */
	CHECK(stop_calls < all / 2 + all / 4, "asked %u of %u times after stopping at %u", stop_calls,
	      all, all / 2);
	hterm_set_stop(NULL, NULL);
	printf("info: k=%d: %u safe points in an H-term; stopped at the %u-th, asked %u times in all\n",
	       K, all, all / 2, stop_calls);
	free(v);
}

int main(void)
{
	const char *impls[3];
	int nimpl = tn_impls(impls);
	uint64_t seed = 0x6874726d;
	fr_t x[4];

	CHECK(hterm_cpu(x, x, x, 0) == -1, "k=0 accepted");
	CHECK(hterm_cpu(x, x, x, VOCAB_LOG_MAX + 1) == -1, "k=28 accepted");
	CHECK(hterm_check_top(x, 0) == 0, "check_top accepts k=0");
	safe_points(&seed);

	for (int im = 0; im < nimpl; im++) {
		CHECK(fr_set_impl(impls[im]) == 0, "fr_set_impl(%s)", impls[im]);
		for (int threads = 0; threads < 2; threads++) {
			setenv("PROVISOR_HTERM_THREADS", threads ? "3" : "1", 1);
			uint64_t t0 = t_now_ns();
			for (unsigned k = 1; k <= 14; k++)
				run_k(k, &seed);
			printf("info: %s, %s: H checks out for k=1..14 (%.2f s)\n",
			       impls[im], threads ? "threaded" : "one thread",
			       (t_now_ns() - t0) / 1e9);
		}
	}
	return 0;
}
