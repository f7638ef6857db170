/*
 * curve_msm_ifma: the IFMA bucket kernel (msm_ifma_add) against one
 * scalar affine addition per entry, bit for bit: every batch size from 1
 * to 70 (so every fill of the last step's vectors) and 1024, negated
 * points, and entries that would double or cancel their bucket put at
 * every lane, which the kernel must leave, in order, for the scalar code
 * and not touch. Coordinates must come out canonical (below p), since the
 * MSM compares them bit for bit. Skips where the CPU has no IFMA.
 */
#include "curve/msm.h"
#include "curve/msm_priv.h"
#include "tests/helpers.h"

#define NB 2048		/* buckets */
#define NP 512		/* points */

static uint64_t seed = 0x69666d615f6b726eULL;

static void ti_rand_fr(fr_t *out)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = t_rand(&seed);
		memcpy(b + i, &r, 8);
	}
	fr_from_bytes_wide(out, b);
}

/* out[i] = k_i G for random k_i. */
static void ti_points(g1_affine_t *out, size_t n)
{
	g1_t *j = malloc(n * sizeof(*j));
	fr_t k;

	CHECK(j, "out of memory");
	for (size_t i = 0; i < n; i++) {
		ti_rand_fr(&k);
		g1_from_affine(&j[i], &G1_GENERATOR);
		g1_mul(&j[i], &j[i], &k);
	}
	CHECK(g1_batch_to_affine(out, j, n) == 0, "batch_to_affine");
	free(j);
}

/* One batch of n entries: every `special`-th one (0: none) doubles or
 * cancels its bucket, the rest are random. */
static void ti_batch(g1_affine_t *bk, const g1_affine_t *pts, size_t n, size_t special, void *scratch)
{
	struct msm_entry *e = malloc(n * sizeof(*e)), *left = malloc(n * sizeof(*left));
	g1_affine_t *want = malloc(NB * sizeof(*want)), *negs = malloc(n * sizeof(*negs));
	uint8_t *used = calloc(NB, 1);
	size_t nleft = 0, k;

	CHECK(e && left && want && negs && used, "out of memory");
	memcpy(want, bk, NB * sizeof(*bk));
	for (size_t i = 0; i < n; i++) {
		g1_affine_t q;
		g1_t sum;
		uint32_t b;

		do
			b = (uint32_t)(t_rand(&seed) % NB);
		while (used[b]);
		used[b] = 1;
		e[i].bucket = b;
		e[i].neg = (uint8_t)(t_rand(&seed) & 1);
		e[i].kind = 0;
		if (special && i % special == special - 1) {
			/* the bucket itself (doubles), or its negation (cancels):
			 * negs[i] holds a copy the entry can point at */
			negs[i] = bk[b];
			if (t_rand(&seed) & 1)
				g1_affine_neg(&negs[i], &negs[i]);
			e[i].pt = &negs[i];
			left[nleft++] = e[i];
			continue;
		}
		e[i].pt = &pts[t_rand(&seed) % NP];
		q = *(const g1_affine_t *)e[i].pt;
		if (e[i].neg)
			g1_affine_neg(&q, &q);
		g1_from_affine(&sum, &bk[b]);
		g1_add_affine(&sum, &sum, &q);
		g1_to_affine(&want[b], &sum);
	}
	k = msm_ifma_add(bk, e, n, scratch);
	CHECK(k == nleft, "n=%zu: %zu entries left for the scalar code, expected %zu", n, k, nleft);
	for (size_t i = 0; i < k; i++)
		CHECK(e[i].bucket == left[i].bucket && e[i].pt == left[i].pt && e[i].neg == left[i].neg,
		      "n=%zu: left-over entry %zu differs", n, i);
	for (size_t b = 0; b < NB; b++) {
		CHECK(!bk[b].inf, "bucket %zu went to infinity", b);
		CHECK(memcmp(&bk[b].x, &want[b].x, sizeof(fp_t)) == 0 &&
		      memcmp(&bk[b].y, &want[b].y, sizeof(fp_t)) == 0,
		      "n=%zu special=%zu: bucket %zu differs from the scalar sum", n, special, b);
	}
	free(e);
	free(left);
	free(want);
	free(negs);
	free(used);
}

int main(void)
{
	g1_affine_t *bk = malloc(NB * sizeof(*bk)), *pts = malloc(NP * sizeof(*pts));
	void *scratch = malloc(msm_ifma_scratch_size(1024));
	size_t runs = 0;

	if (!msm_ifma_usable())
		T_SKIP("no AVX-512 IFMA on this CPU: the kernel is never used here");
	CHECK(bk && pts && scratch, "out of memory");
	ti_points(bk, NB);
	ti_points(pts, NP);
	for (size_t n = 1; n <= 70; n++) {
		ti_batch(bk, pts, n, 0, scratch);
		ti_batch(bk, pts, n, 1 + n % 7, scratch);
		runs += 2;
	}
	ti_batch(bk, pts, 1024, 0, scratch);
	ti_batch(bk, pts, 1024, 5, scratch);
	ti_batch(bk, pts, 1024, 1, scratch);	/* every entry left over */
	printf("info: %zu batches checked against scalar additions\n", runs + 3);
	free(bk);
	free(pts);
	free(scratch);
	return 0;
}
