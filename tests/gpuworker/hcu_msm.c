/*
 * The CUDA G1 MSM (gpuworker/hcu_msm.cuh) emulated on the host: every
 * phase run as one loop iteration per device thread, phases in the
 * kernels' order, and the result checked bit for bit (as an affine point)
 * against curve/msm.c's msm_g1 on the same inputs: random points and
 * scalars at n = 1, 2, 3, 255, 256, 257, 2^12, 2^16 (smaller under a
 * sanitizer), forced widths c = 2, 11, 13 and 16 (digit 2^15), and edge inputs
 * (scalars 0, 1, r-1, all equal (one bucket per window), one point
 * repeated, a point beside its negation, points at infinity). The point
 * operations are checked against curve/point.c first, special cases
 * included, and phase 1 alone at every c (the digits give the scalar
 * back). Last, one deliberately broken phase (the sort loses one
 * entry's sign) must make the comparison fail.
 */
#include <stdio.h>

#include "tests/helpers.h"
#include "curve/curve.h"
#include "curve/msm.h"
#include "gpuworker/hcu_msm.cuh"

_Static_assert(sizeof(hcu_g1) == sizeof(g1_t), "hcu_g1 must be laid out as g1_t");
_Static_assert(sizeof(hcu_g1_aff) == sizeof(g1_affine_t), "hcu_g1_aff must be laid out as g1_affine_t");
_Static_assert(offsetof(hcu_g1_aff, inf) == offsetof(g1_affine_t, inf), "inf at the same offset");
_Static_assert(sizeof(hcu_fr) == sizeof(fr_t), "hcu_fr must be laid out as fr_t");

static uint64_t seed = 0x68637530736d2121ULL;

static void rand_fr(fr_t *out)
{
	uint64_t v[4];

	do {
		for (int i = 0; i < 4; i++)
			v[i] = t_rand(&seed);
		v[3] &= 0x7fffffffffffffffULL;
	} while (fr_from_limbs(out, v) != 0);
}

/* 1 when the Jacobian points a (hcu) and b (CPU) are the same affine
 * point, word for word. */
static int same_point(const hcu_g1 *a, const g1_t *b)
{
	g1_t ga;
	g1_affine_t x, y;

	memcpy(&ga, a, sizeof(ga));
	g1_to_affine(&x, &ga);
	g1_to_affine(&y, b);
	if (x.inf || y.inf)
		return x.inf == y.inf;
	return memcmp(&x.x, &y.x, sizeof(x.x)) == 0 && memcmp(&x.y, &y.y, sizeof(x.y)) == 0;
}

static void rand_points(g1_affine_t *p, size_t n)
{
	fr_t *s = malloc(n * sizeof(*s));

	CHECK(s, "malloc");
	for (size_t i = 0; i < n; i++)
		rand_fr(&s[i]);
	CHECK(g1_fixed_base_batch(p, &G1_GENERATOR, s, n, 0) == 0, "fixed-base batch");
	free(s);
}

static void check_point_ops(void)
{
	g1_affine_t a[4];
	g1_t pa, pb, want;
	hcu_g1 ha, hb, got;
	const hcu_g1_aff *qa = (const hcu_g1_aff *)&a[0], *qb = (const hcu_g1_aff *)&a[1];
	hcu_g1_aff inf = { .inf = 1 };

	for (int round = 0; round < 50; round++) {
		rand_points(a, 2);
		g1_from_affine(&pa, &a[0]);
		g1_from_affine(&pb, &a[1]);
		g1_double(&pb, &pb);	/* a Z != 1 */
		memcpy(&ha, &pa, sizeof(ha));
		memcpy(&hb, &pb, sizeof(hb));

		g1_add(&want, &pa, &pb);
		hcu_g1_add(&got, &ha, &hb);
		CHECK(same_point(&got, &want), "hcu_g1_add");
		g1_add_affine(&want, &pb, &a[1]);
		hcu_g1_add_affine(&got, &hb, qb, 0);
		CHECK(same_point(&got, &want), "hcu_g1_add_affine");
		g1_affine_neg(&a[2], &a[1]);
		g1_add_affine(&want, &pb, &a[2]);
		hcu_g1_add_affine(&got, &hb, qb, 1);
		CHECK(same_point(&got, &want), "hcu_g1_add_affine, negated");
		g1_double(&want, &pb);
		hcu_g1_double(&got, &hb);
		CHECK(same_point(&got, &want), "hcu_g1_double");
		/* Special cases: P + P, P + (-P), infinity on either side. */
		g1_double(&want, &pa);
		hcu_g1_add_affine(&got, &ha, qa, 0);
		CHECK(same_point(&got, &want), "madd P + P must double");
		hcu_g1_add(&got, &hb, &hb);
		g1_double(&want, &pb);
		CHECK(same_point(&got, &want), "add P + P must double");
		hcu_g1_add_affine(&got, &ha, qa, 1);
		CHECK(hcu_g1_is_inf(&got), "madd P + (-P) must be infinity");
		g1_neg(&want, &pb);
		memcpy(&got, &want, sizeof(got));
		hcu_g1_add(&got, &got, &hb);
		CHECK(hcu_g1_is_inf(&got), "add (-P) + P must be infinity");
		hcu_g1_add_affine(&got, &hb, &inf, 0);
		CHECK(same_point(&got, &pb), "P + infinity");
		hcu_g1_set_inf(&got);
		hcu_g1_add_affine(&got, &got, qa, 1);
		g1_neg(&want, &pa);
		CHECK(same_point(&got, &want), "infinity + (-P)");
		hcu_g1_set_inf(&got);
		hcu_g1_add(&got, &got, &hb);
		CHECK(same_point(&got, &pb), "infinity + P");
		hcu_g1_set_inf(&got);
		hcu_g1_double(&got, &got);
		CHECK(hcu_g1_is_inf(&got), "2 infinity");
	}
}

/* Phase 1 alone, at every c: the digits lie in (-2^(c-1), 2^(c-1)] and
 * give back the scalar (sum d_w 2^(c w) mod r; a lost top carry would
 * leave 2^(c nwin) out), for 0, 1, r-1, r-2 and random scalars. */
static void check_digits(void)
{
	fr_t s[8], acc, t, pw, one;
	int32_t digits[8 * 128];

	fr_from_u64(&one, 1);
	s[0] = FR_ZERO;
	s[1] = one;
	fr_neg(&s[2], &one);
	fr_sub(&s[3], &s[2], &one);
	for (int i = 4; i < 8; i++)
		rand_fr(&s[i]);
	for (unsigned c = HCU_MSM_MIN_C; c <= HCU_MSM_MAX_C; c++) {
		struct hcu_msm_plan pl;

		hcu_msm_plan(&pl, 8, c);
		CHECK(pl.c == c && pl.nwin * c >= 256 && pl.nseg * pl.lseg == pl.nb &&
		      pl.nchunk * pl.lchunk == pl.nb && pl.ngrp * pl.lgrp == pl.nseg, "plan at c %u", c);
		for (uint32_t i = 0; i < 8; i++) {
			hcu_msm_digits_at(&pl, (const hcu_fr *)s, digits, i);
			acc = FR_ZERO;
			pw = one;
			for (uint32_t w = 0; w < pl.nwin; w++) {
				int32_t d = digits[w * 8 + i];

				CHECK(d > -(int32_t)pl.nb && d <= (int32_t)pl.nb, "digit %d out of range at c %u", d, c);
				fr_from_u64(&t, (uint64_t)(d < 0 ? -d : d));
				if (d < 0)
					fr_neg(&t, &t);
				fr_mul(&t, &t, &pw);
				fr_add(&acc, &acc, &t);
				for (unsigned b = 0; b < c; b++)
					fr_double(&pw, &pw);
			}
			CHECK(fr_equal(&acc, &s[i]), "digits of scalar %u do not give it back at c %u", i, c);
		}
	}
}

/* The emulation: the device's phases, in order, one iteration per thread.
 * broken 1: phase 4 drops the sign of the first negated entry it places. */
static void emulate(hcu_g1 *out, const g1_affine_t *p, const fr_t *s, uint32_t n, unsigned c, int broken)
{
	struct hcu_msm_plan pl;
	const hcu_g1_aff *bases = (const hcu_g1_aff *)p;

	hcu_msm_plan(&pl, n, c);
	uint64_t nd = (uint64_t)pl.nwin * n, nbk = (uint64_t)pl.nwin * pl.nb, nsg = (uint64_t)pl.nwin * pl.nseg;
	uint64_t nck = (uint64_t)pl.nwin * pl.nchunk, ngr = (uint64_t)pl.nwin * pl.ngrp;
	hcu_g1 *rsum = malloc(ngr * sizeof(*rsum)), *jsum = malloc(ngr * sizeof(*jsum));
	hcu_g1 *tsum = malloc(ngr * sizeof(*tsum));
	uint64_t npc = (uint64_t)pl.nwin * pl.npiece;
	hcu_g1 *head = malloc(npc * sizeof(*head)), *tail = malloc(npc * sizeof(*tail));
	uint32_t *csum = malloc(nck * sizeof(*csum));
	int32_t *digits = malloc(nd * sizeof(*digits));
	uint32_t *sorted = malloc(nd * sizeof(*sorted)), *count = calloc(nbk, sizeof(*count));
	uint32_t *start = malloc((nbk + pl.nwin) * sizeof(*start)), *cursor = malloc(nbk * sizeof(*cursor));
	hcu_g1 *buckets = malloc(nbk * sizeof(*buckets)), *run = malloc(nsg * sizeof(*run));
	hcu_g1 *tot = malloc(nsg * sizeof(*tot)), *wsum = malloc(pl.nwin * sizeof(*wsum));

	CHECK(head && tail && rsum && jsum && tsum && csum && digits && sorted && count && start && cursor && buckets && run && tot && wsum, "malloc");
	for (uint32_t i = 0; i < n; i++)
		hcu_msm_digits_at(&pl, (const hcu_fr *)s, digits, i);
	for (uint64_t t = 0; t < nd; t++)
		hcu_msm_count_at(&pl, digits, count, t);
	for (uint64_t t = 0; t < nck; t++)
		hcu_msm_scan_chunk_at(&pl, count, csum, t);
	for (uint32_t w = 0; w < pl.nwin; w++)
		hcu_msm_scan_window_at(&pl, csum, start, w);
	for (uint64_t t = 0; t < nck; t++)
		hcu_msm_scan_fill_at(&pl, count, csum, start, cursor, t);
	for (uint64_t t = 0; t < nd; t++) {
		hcu_msm_scatter_at(&pl, digits, cursor, sorted, t);
		if (broken && digits[t] < 0) {
			uint64_t w = t / n;
			uint32_t b = (uint32_t)-digits[t] - 1;

			sorted[w * n + cursor[w * pl.nb + b] - 1] &= ~HCU_MSM_NEG;
			broken = 0;
		}
	}
	for (uint64_t t = 0; t < npc; t++)
		hcu_msm_piece_at(&pl, bases, sorted, start, buckets, head, tail, t);
	for (uint64_t t = 0; t < nbk; t++)
		hcu_msm_bucket_at(&pl, start, head, tail, buckets, t);
	for (uint64_t t = 0; t < nsg; t++)
		hcu_msm_segment_at(&pl, buckets, run, tot, t);
	for (uint64_t t = 0; t < ngr; t++)
		hcu_msm_group_at(&pl, run, tot, rsum, jsum, tsum, t);
	for (uint32_t w = 0; w < pl.nwin; w++)
		hcu_msm_window_at(&pl, rsum, jsum, tsum, wsum, w);
	hcu_msm_combine(&pl, wsum, out);
	free(csum);
	free(head);
	free(tail);
	free(rsum);
	free(jsum);
	free(tsum);
	free(digits);
	free(sorted);
	free(count);
	free(start);
	free(cursor);
	free(buckets);
	free(run);
	free(tot);
	free(wsum);
}

/* One comparison; 1 when the emulation gives msm_g1's point. */
static int agree(const g1_affine_t *p, const fr_t *s, uint32_t n, unsigned c, int broken)
{
	g1_t want;
	hcu_g1 got;

	CHECK(msm_g1(&want, p, s, n, 0) == 0, "msm_g1");
	emulate(&got, p, s, n, c, broken);
	return same_point(&got, &want);
}

#define CHECK_AGREE(p, s, n, c, what) \
	CHECK(agree(p, s, n, c, 0), "emulated CUDA MSM differs from msm_g1: %s (n %u, c %u)", what, \
	      (unsigned)(n), (unsigned)(c))

static void check_edges(g1_affine_t *p, fr_t *s, uint32_t n)
{
	fr_t one, rm1;

	fr_from_u64(&one, 1);
	fr_neg(&rm1, &one);
	for (uint32_t i = 0; i < n; i++)	/* 0, 1, r-1, random, in turn */
		s[i] = i % 4 == 0 ? FR_ZERO : i % 4 == 1 ? one : i % 4 == 2 ? rm1 : s[i];
	CHECK_AGREE(p, s, n, 0, "scalars 0, 1, r-1");
	for (uint32_t i = 0; i < n; i++)
		s[i] = rm1;
	CHECK_AGREE(p, s, n, 0, "every scalar r-1: one bucket per window");
	CHECK_AGREE(p, s, n, 16, "every scalar r-1, c = 16");
	rand_fr(&s[0]);
	for (uint32_t i = 1; i < n; i++)
		s[i] = s[0];
	CHECK_AGREE(p, s, n, 0, "every scalar equal");
	for (uint32_t i = 1; i < n; i++)
		p[i] = p[0];
	CHECK_AGREE(p, s, n, 0, "one point, one scalar, repeated");
	for (uint32_t i = 0; i < n; i++)
		rand_fr(&s[i]);
	CHECK_AGREE(p, s, n, 0, "one point repeated, random scalars");
	rand_points(p, n);
	for (uint32_t i = 0; i + 1 < n; i += 2) {
		g1_affine_neg(&p[i + 1], &p[i]);
		s[i + 1] = s[i];
	}
	CHECK_AGREE(p, s, n, 0, "each point beside its negation, same scalars (sum 0)");
	for (uint32_t i = 0; i < n; i += 3)
		p[i].inf = 1;
	CHECK_AGREE(p, s, n, 0, "points at infinity");
}

int main(void)
{
	static const uint32_t sizes[] = { 1, 2, 3, 255, 256, 257, 1u << 12, 1u << 16 };
	uint32_t nmax = T_SIZE(1u << 16, 1u << 12);
	g1_affine_t *p = malloc(nmax * sizeof(*p));
	fr_t *s = malloc(nmax * sizeof(*s));
	uint64_t t0;

	CHECK(p && s, "malloc");
	check_point_ops();
	check_digits();
	rand_points(p, nmax);
	for (uint32_t i = 0; i < nmax; i++)
		rand_fr(&s[i]);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= nmax; k++) {
		struct hcu_msm_plan pl;

		hcu_msm_plan(&pl, sizes[k], 0);
		t0 = t_now_ns();
		CHECK_AGREE(p, s, sizes[k], 0, "random");
		printf("info: hcu_msm: n %u (c %u, %u windows): emulation and msm_g1 agree, %.0f ms\n",
		       sizes[k], pl.c, pl.nwin, (t_now_ns() - t0) / 1e6);
	}
	CHECK_AGREE(p, s, 300, 16, "forced c = 16");
	CHECK_AGREE(p, s, 300, 2, "forced c = 2");
	CHECK_AGREE(p, s, 300, 11, "forced c = 11");
	/* The widths a device uses at 2^20..2^24, on fewer points. */
	for (unsigned c = 13; c <= 16; c += 3) {
		t0 = t_now_ns();
		CHECK_AGREE(p, s, T_SIZE(4096, 512), c, "forced width");
		printf("info: hcu_msm: n %u at c %u agrees, %.0f ms\n", T_SIZE(4096, 512), c, (t_now_ns() - t0) / 1e6);
	}

	CHECK(!agree(p, s, 257, 0, 1), "a sort that loses a sign went unnoticed");
	printf("info: hcu_msm: a broken sort (one sign lost) makes the comparison fail, as it must\n");

	t0 = t_now_ns();
	check_edges(p, s, 257);
	check_edges(p, s, T_SIZE(4096, 1024));
	printf("info: hcu_msm: edge inputs agree (%.0f ms)\n", (t_now_ns() - t0) / 1e6);
	free(p);
	free(s);
	return 0;
}
