/*
 * lathist: a latency histogram with constant memory and constant-time
 * adds, for durations from 1 us to beyond 10 s (the supervisor times
 * every loop iteration with it; bench tools may too).
 *
 * Buckets are log2 octaves split into LATHIST_SUB equal sub-buckets, so
 * every bucket is at most 1/LATHIST_SUB (12.5%) of its lower bound wide:
 *
 *   bucket 0                 [0, 2^10 ns)             below ~1 us
 *   octave o, sub-bucket s   [2^o (1 + s/8), 2^o (1 + (s+1)/8))
 *                            for o = 10 .. 33
 *   the last bucket          [2^34 ns, inf)           above ~17 s
 *
 * A quantile is the upper bound of the bucket that holds the sample of
 * that rank, capped at the largest sample seen: never below the true
 * value, at most 12.5% above it (and exact for the maximum). The count,
 * the sum and the maximum are exact.
 *
 * Header-only and libc-only like the rest of util/.
 */
#ifndef UTIL_LATHIST_H
#define UTIL_LATHIST_H

#include <stdint.h>

#define LATHIST_SUB_BITS 3
#define LATHIST_SUB (1u << LATHIST_SUB_BITS)	/* sub-buckets per octave */
#define LATHIST_MIN_SHIFT 10	/* 2^10 ns = 1.024 us: the first octave */
#define LATHIST_MAX_SHIFT 34	/* 2^34 ns = 17.2 s: the last bucket starts here */
#define LATHIST_N (2 + (LATHIST_MAX_SHIFT - LATHIST_MIN_SHIFT) * LATHIST_SUB)

struct lathist {
	uint64_t n;		/* samples */
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t b[LATHIST_N];
};

/* The bucket a duration falls in. */
static inline unsigned lathist_bucket(uint64_t ns)
{
	unsigned o;

	if (ns < (1ull << LATHIST_MIN_SHIFT))
		return 0;
	if (ns >= (1ull << LATHIST_MAX_SHIFT))
		return LATHIST_N - 1;
	o = 63u - (unsigned)__builtin_clzll(ns);	/* 2^o <= ns < 2^(o+1) */
	return 1 + (o - LATHIST_MIN_SHIFT) * LATHIST_SUB +
	       (unsigned)((ns >> (o - LATHIST_SUB_BITS)) & (LATHIST_SUB - 1));
}

/* The first duration past bucket i (UINT64_MAX for the last). */
static inline uint64_t lathist_upper(unsigned i)
{
	unsigned o, s;

	if (i == 0)
		return 1ull << LATHIST_MIN_SHIFT;
	if (i >= LATHIST_N - 1)
		return UINT64_MAX;
	o = LATHIST_MIN_SHIFT + (i - 1) / LATHIST_SUB;
	s = (i - 1) % LATHIST_SUB;
	return (1ull << o) + ((uint64_t)(s + 1) << (o - LATHIST_SUB_BITS));
}

static inline void lathist_add(struct lathist *h, uint64_t ns)
{
	h->n++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->b[lathist_bucket(ns)]++;
}

/* The q-quantile (0 < q <= 1): the smallest bucket bound that at least
 * ceil(q * n) samples do not exceed, capped at the maximum; 0 when empty. */
static inline uint64_t lathist_quantile(const struct lathist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)(q * (double)h->n);
	if ((double)rank < q * (double)h->n)
		rank++;		/* ceil */
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (unsigned i = 0; i < LATHIST_N; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t up = lathist_upper(i);
			return up - 1 < h->max_ns ? up - 1 : h->max_ns;
		}
	}
	return h->max_ns;
}

#endif
