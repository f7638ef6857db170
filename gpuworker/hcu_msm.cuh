/*
 * hcu_msm: the G1 multi-scalar multiplication of the CUDA backend, out =
 * sum_i s[i] * P[i], by the bucket method, written once for host and
 * device as hcu_fr.cuh and hcu_fp.cuh are. Every phase is a per-thread
 * function hcu_msm_*_at(..., t): gpuworker/msm_cuda.cu launches one device
 * thread per t, and tests/gpuworker/hcu_msm.c runs the same functions as
 * one loop iteration per t, phase after phase in the same order, and
 * checks the result against curve/msm.c. The only host/device differences
 * are hcu_mulhi (hcu_fr.cuh) and hcu_msm_fetch_add (an atomicAdd on the
 * device, a plain increment on the host).
 *
 * Phases, for n points, windows of c bits (nwin = ceil(256 / c) of them,
 * nb = 2^(c-1) buckets each):
 *   1 digits    one thread per scalar: Montgomery -> plain, then signed
 *               digits d in (-2^(c-1), 2^(c-1)] by carrying (a window
 *               above 2^(c-1) becomes d - 2^c and carries one up); as
 *               nwin c >= 256 > 255 bits + 1, the top window never carries
 *               out. d sends +-P to bucket |d| - 1; d = 0 sends nothing.
 *   2 count     one thread per (window, point): count[w][|d| - 1] += 1.
 *   3 scan      exclusive prefix sums of each window's counts (start[w]
 *               [0..nb], and cursor = start), in three passes so that no
 *               thread walks all 2^(c-1) counts of a window: 3a one thread
 *               per chunk of HCU_MSM_SCAN_CHUNK buckets sums its counts,
 *               3b one thread per window scans its chunks' sums, 3c one
 *               thread per chunk writes its buckets' starts.
 *   4 scatter   one thread per (window, point): the point's index (top bit:
 *               negated) at sorted[w][cursor[w][b]++]. Steps 2-4 are a
 *               counting sort of (bucket, point) pairs by bucket. On the
 *               device the order of the points within a bucket follows
 *               the atomics; the bucket's sum, a group element, does not.
 *   5 buckets   the points added into Jacobian bucket sums by mixed
 *               additions with the affine bases (complete: infinity, equal
 *               points, opposite points each handled), in two passes so
 *               that the work per thread does not follow the scalars'
 *               distribution (a witness full of ones puts nearly every
 *               point in one bucket): 5a one thread per piece of P =
 *               HCU_MSM_PIECE consecutive sorted entries of a window sums
 *               its entries bucket by bucket, writes the buckets that lie
 *               wholly inside the piece, and keeps the partial sums of its
 *               first and last bucket (head, tail); 5b one thread per
 *               (window, bucket) writes the empty buckets and joins those
 *               that span pieces: tail of the first piece, tails of the
 *               middle ones (whole pieces), head of the last. A bucket of
 *               m points thus costs 5b about m / P additions in one
 *               thread (2^16 at n = 2^24 if every scalar is 1): a tree over
 *               the pieces would remove that too.
 *   6 segments  one thread per (window, segment): the buckets of a window
 *               fall into S segments of L; each thread runs the running
 *               sums over its own L buckets from the top: run_j (their sum)
 *               and tot_j (their sum weighted by local index u + 1).
 *   7 windows   the window's sum (b + 1) bucket[b] = sum_j tot_j +
 *               L sum_j j run_j, by the same trick one level up, so that
 *               no thread walks all S segments: 7a one thread per group of
 *               G segments (j = g G + v) sums its run_j (R_g), v run_j
 *               (J_g) and tot_j (T_g); 7b one thread per window forms
 *               sum_j j run_j = sum_g J_g + G sum_g g R_g (a running sum
 *               over g, log2 G doublings), then log2 L doublings and the
 *               T_g.
 *   8 combine   one thread (the host, in msm_cuda.cu: nwin points only):
 *               Horner over the windows, c doublings each.
 *
 * Digits are signed, as in curve/msm.c (half the buckets), but recoded by
 * carrying rather than by msm.c's offset K, and the windows are of equal
 * width; the results agree as group elements, which is what is compared
 * (after conversion to affine, bit for bit).
 *
 * Points: bases are hcu_g1_aff, laid out as curve/curve.h's g1_affine_t
 * (x, y, int inf: 104 bytes), so the params' points are uploaded as they
 * are; accumulators are Jacobian hcu_g1, laid out as g1_t (Z = 0 is
 * infinity). XYZZ coordinates (sppark's and ICICLE's buckets; 8M + 2S a
 * mixed addition against 7M + 4S here) are left for when a device can
 * measure the difference.
 */
#ifndef GPUWORKER_HCU_MSM_CUH
#define GPUWORKER_HCU_MSM_CUH

#include <stdint.h>

#include "gpuworker/hcu_fp.cuh"

typedef struct {
	hcu_fp x, y, z;
} hcu_g1;

typedef struct {
	hcu_fp x, y;
	int32_t inf;
} hcu_g1_aff;

#define HCU_MSM_MIN_C 2
#define HCU_MSM_MAX_C 16
#define HCU_MSM_NEG 0x80000000u	/* sorted entries: the point is negated */
#define HCU_MSM_SCAN_CHUNK 64	/* buckets per thread in phases 3a and 3c */
#define HCU_MSM_PIECE 256	/* sorted entries per thread in phase 5a */

/* The shape of one MSM: see the phases above. */
struct hcu_msm_plan {
	uint32_t n;		/* points */
	uint32_t c, nwin, nb;	/* window bits, windows, buckets per window */
	uint32_t nseg, lseg, lg_lseg;	/* segments per window, buckets per segment */
	uint32_t nchunk, lchunk;	/* phase 3's chunks per window, buckets per chunk */
	uint32_t ngrp, lgrp, lg_lgrp;	/* phase 7's groups per window, segments per group */
	uint32_t npiece, lpiece;	/* phase 5's pieces per window, entries per piece */
};

/* The window width for n points on a GPU: about n / 2^7 buckets in all,
 * i.e. around 256 points per bucket thread in phase 5 (c = lg n - 7), within
 * [3, 16]. Not tuned on a device yet (none was lent): for n = 2^20..2^24
 * this gives c = 13..16, and bench/msm-cuda prints what it costs. */
HCU_FN unsigned hcu_msm_default_c(uint32_t n)
{
	unsigned lg = 0;

	while (lg < 32 && ((uint64_t)1 << lg) < n)
		lg++;
	return lg < 10 ? 3 : lg - 7 > HCU_MSM_MAX_C ? HCU_MSM_MAX_C : lg - 7;
}

/* c = 0: hcu_msm_default_c; else clamped to [HCU_MSM_MIN_C, HCU_MSM_MAX_C]. */
HCU_FN void hcu_msm_plan(struct hcu_msm_plan *pl, uint32_t n, unsigned c)
{
	if (c == 0)
		c = hcu_msm_default_c(n);
	c = c < HCU_MSM_MIN_C ? HCU_MSM_MIN_C : c > HCU_MSM_MAX_C ? HCU_MSM_MAX_C : c;
	pl->n = n;
	pl->c = c;
	pl->nwin = (256 + c - 1) / c;
	pl->nb = 1u << (c - 1);
	pl->lg_lseg = (c - 1) / 2;	/* S = 2^ceil((c-1)/2) >= L = 2^floor((c-1)/2) */
	pl->lseg = 1u << pl->lg_lseg;
	pl->nseg = pl->nb >> pl->lg_lseg;
	pl->lchunk = pl->nb < HCU_MSM_SCAN_CHUNK ? pl->nb : HCU_MSM_SCAN_CHUNK;
	pl->nchunk = pl->nb / pl->lchunk;
	pl->lg_lgrp = (pl->c - 1 - pl->lg_lseg) / 2;	/* G = 2^floor(lg S / 2) */
	pl->lgrp = 1u << pl->lg_lgrp;
	pl->ngrp = pl->nseg >> pl->lg_lgrp;
	pl->lpiece = HCU_MSM_PIECE;
	pl->npiece = (n + pl->lpiece - 1) / pl->lpiece;
}

HCU_FN uint32_t hcu_msm_fetch_add(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
	return atomicAdd(p, v);
#else
	uint32_t old = *p;

	*p = old + v;
	return old;
#endif
}

/* ---- point operations (a = 0, b = 4) ---- */

HCU_FN void hcu_g1_set_inf(hcu_g1 *p)
{
	p->x = hcu_fp_one();
	p->y = hcu_fp_one();
	p->z = hcu_fp_zero();
}

HCU_FN int hcu_g1_is_inf(const hcu_g1 *p)
{
	return hcu_fp_is_zero(&p->z);
}

/* dbl-2009-l: 2M + 5S. Infinity (Z = 0) stays infinity (Z3 = 2 Y Z); G1
 * has no point of order two, so Y = 0 only at infinity. out may alias. */
HCU_FP_FN void hcu_g1_double(hcu_g1 *out, const hcu_g1 *p)
{
	hcu_fp a, b, c, d, e, f, t;

	hcu_fp_sqr(&a, &p->x);
	hcu_fp_sqr(&b, &p->y);
	hcu_fp_sqr(&c, &b);
	hcu_fp_add(&d, &p->x, &b);
	hcu_fp_sqr(&d, &d);
	hcu_fp_sub(&d, &d, &a);
	hcu_fp_sub(&d, &d, &c);
	hcu_fp_double(&d, &d);		/* D = 2((X + B)^2 - A - C) */
	hcu_fp_double(&e, &a);
	hcu_fp_add(&e, &e, &a);		/* E = 3A */
	hcu_fp_sqr(&f, &e);		/* F = E^2 */
	hcu_fp_mul(&t, &p->y, &p->z);
	hcu_fp_double(&out->z, &t);	/* Z3 = 2 Y Z */
	hcu_fp_double(&t, &d);
	hcu_fp_sub(&out->x, &f, &t);	/* X3 = F - 2D */
	hcu_fp_sub(&t, &d, &out->x);
	hcu_fp_mul(&t, &t, &e);
	hcu_fp_double(&c, &c);
	hcu_fp_double(&c, &c);
	hcu_fp_double(&c, &c);
	hcu_fp_sub(&out->y, &t, &c);	/* Y3 = E (D - X3) - 8C */
}

/* out = p + q, q affine, negated when neg: madd-2007-bl (7M + 4S), with
 * every special case: q at infinity, p at infinity, p == q (doubling),
 * p == -q (infinity). out may alias p. */
HCU_FP_FN void hcu_g1_add_affine(hcu_g1 *out, const hcu_g1 *p, const hcu_g1_aff *q, int neg)
{
	hcu_fp z1z1, u2, s2, h, hh, i, j, r, v, y2, t;

	if (q->inf) {
		*out = *p;
		return;
	}
	y2 = q->y;
	if (neg)
		hcu_fp_neg(&y2, &y2);
	if (hcu_g1_is_inf(p)) {
		out->x = q->x;
		out->y = y2;
		out->z = hcu_fp_one();
		return;
	}
	hcu_fp_sqr(&z1z1, &p->z);
	hcu_fp_mul(&u2, &q->x, &z1z1);
	hcu_fp_mul(&s2, &y2, &p->z);
	hcu_fp_mul(&s2, &s2, &z1z1);
	hcu_fp_sub(&h, &u2, &p->x);		/* H = U2 - X1 */
	hcu_fp_sub(&r, &s2, &p->y);
	if (hcu_fp_is_zero(&h)) {
		if (hcu_fp_is_zero(&r))
			hcu_g1_double(out, p);
		else
			hcu_g1_set_inf(out);
		return;
	}
	hcu_fp_double(&r, &r);			/* r = 2 (S2 - Y1) */
	hcu_fp_sqr(&hh, &h);
	hcu_fp_double(&i, &hh);
	hcu_fp_double(&i, &i);			/* I = 4 HH */
	hcu_fp_mul(&j, &h, &i);			/* J = H I */
	hcu_fp_mul(&v, &p->x, &i);		/* V = X1 I */
	hcu_fp_add(&t, &p->z, &h);
	hcu_fp_sqr(&t, &t);
	hcu_fp_sub(&t, &t, &z1z1);
	hcu_fp_sub(&out->z, &t, &hh);		/* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
	hcu_fp_mul(&t, &p->y, &j);
	hcu_fp_double(&y2, &t);			/* 2 Y1 J (before Y1 may be overwritten) */
	hcu_fp_sqr(&t, &r);
	hcu_fp_sub(&t, &t, &j);
	hcu_fp_sub(&t, &t, &v);
	hcu_fp_sub(&out->x, &t, &v);		/* X3 = r^2 - J - 2V */
	hcu_fp_sub(&t, &v, &out->x);
	hcu_fp_mul(&t, &t, &r);
	hcu_fp_sub(&out->y, &t, &y2);		/* Y3 = r (V - X3) - 2 Y1 J */
}

/* out = p + q, both Jacobian: add-2007-bl (11M + 5S), complete as above.
 * out may alias either. */
HCU_FP_FN void hcu_g1_add(hcu_g1 *out, const hcu_g1 *p, const hcu_g1 *q)
{
	hcu_fp z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;

	if (hcu_g1_is_inf(q) || hcu_g1_is_inf(p)) {
		*out = hcu_g1_is_inf(q) ? *p : *q;
		return;
	}
	hcu_fp_sqr(&z1z1, &p->z);
	hcu_fp_sqr(&z2z2, &q->z);
	hcu_fp_mul(&u1, &p->x, &z2z2);
	hcu_fp_mul(&u2, &q->x, &z1z1);
	hcu_fp_mul(&s1, &p->y, &q->z);
	hcu_fp_mul(&s1, &s1, &z2z2);
	hcu_fp_mul(&s2, &q->y, &p->z);
	hcu_fp_mul(&s2, &s2, &z1z1);
	hcu_fp_sub(&h, &u2, &u1);
	hcu_fp_sub(&r, &s2, &s1);
	if (hcu_fp_is_zero(&h)) {
		if (hcu_fp_is_zero(&r))
			hcu_g1_double(out, p);
		else
			hcu_g1_set_inf(out);
		return;
	}
	hcu_fp_double(&r, &r);			/* r = 2 (S2 - S1) */
	hcu_fp_double(&i, &h);
	hcu_fp_sqr(&i, &i);			/* I = (2H)^2 */
	hcu_fp_mul(&j, &h, &i);			/* J = H I */
	hcu_fp_mul(&v, &u1, &i);		/* V = U1 I */
	hcu_fp_add(&t, &p->z, &q->z);
	hcu_fp_sqr(&t, &t);
	hcu_fp_sub(&t, &t, &z1z1);
	hcu_fp_sub(&t, &t, &z2z2);
	hcu_fp_mul(&out->z, &t, &h);		/* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H */
	hcu_fp_sqr(&t, &r);
	hcu_fp_sub(&t, &t, &j);
	hcu_fp_sub(&t, &t, &v);
	hcu_fp_sub(&out->x, &t, &v);		/* X3 = r^2 - J - 2V */
	hcu_fp_sub(&t, &v, &out->x);
	hcu_fp_mul(&t, &t, &r);
	hcu_fp_mul(&s1, &s1, &j);
	hcu_fp_double(&s1, &s1);
	hcu_fp_sub(&out->y, &t, &s1);		/* Y3 = r (V - X3) - 2 S1 J */
}

/* ---- the phases ---- */

/* 1: the signed digits of scalar i (Montgomery fr, as fr_t) into
 * digits[w * n + i] for every window w. */
HCU_FN void hcu_msm_digits_at(const struct hcu_msm_plan *pl, const hcu_fr *s, int32_t *digits, uint32_t i)
{
	hcu_fr v;
	uint32_t carry = 0, mask = (1u << pl->c) - 1;

	hcu_from_mont(&v, &s[i]);
	for (uint32_t w = 0; w < pl->nwin; w++) {
		uint32_t bit = w * pl->c, l = bit / 64, off = bit % 64;
		uint64_t x = v.l[l] >> off;

		if (off + pl->c > 64 && l + 1 < 4)
			x |= v.l[l + 1] << (64 - off);
		uint32_t d = ((uint32_t)x & mask) + carry;

		carry = d > pl->nb;
		digits[(uint64_t)w * pl->n + i] = carry ? (int32_t)d - (int32_t)(1u << pl->c) : (int32_t)d;
	}
}

/* 2: thread t = w * n + i counts its digit's bucket. */
HCU_FN void hcu_msm_count_at(const struct hcu_msm_plan *pl, const int32_t *digits, uint32_t *count, uint64_t t)
{
	int32_t d = digits[t];
	uint32_t w = (uint32_t)(t / pl->n);

	if (d != 0)
		hcu_msm_fetch_add(&count[(uint64_t)w * pl->nb + (uint32_t)(d < 0 ? -d : d) - 1], 1);
}

/* 3a: thread t = w * nchunk + k: the counts of chunk k of window w, into
 * csum[t]. Chunks are consecutive, so bucket w nb + k L is t L. */
HCU_FN void hcu_msm_scan_chunk_at(const struct hcu_msm_plan *pl, const uint32_t *count, uint32_t *csum,
				  uint64_t t)
{
	const uint32_t *c = count + t * pl->lchunk;
	uint32_t acc = 0;

	for (uint32_t b = 0; b < pl->lchunk; b++)
		acc += c[b];
	csum[t] = acc;
}

/* 3b: window w's chunk sums become their exclusive prefix sums, in place;
 * the window's total goes to start[w][nb]. */
HCU_FN void hcu_msm_scan_window_at(const struct hcu_msm_plan *pl, uint32_t *csum, uint32_t *start, uint32_t w)
{
	uint32_t *cs = csum + (uint64_t)w * pl->nchunk, acc = 0;

	for (uint32_t k = 0; k < pl->nchunk; k++) {
		uint32_t v = cs[k];

		cs[k] = acc;
		acc += v;
	}
	start[(uint64_t)w * (pl->nb + 1) + pl->nb] = acc;
}

/* 3c: thread t = w * nchunk + k writes start[w * (nb + 1) + b] and
 * cursor[w * nb + b] = start for the buckets b of its chunk. */
HCU_FN void hcu_msm_scan_fill_at(const struct hcu_msm_plan *pl, const uint32_t *count, const uint32_t *csum,
				 uint32_t *start, uint32_t *cursor, uint64_t t)
{
	uint64_t w = t / pl->nchunk, b0 = (t - w * pl->nchunk) * pl->lchunk;
	uint32_t acc = csum[t];

	for (uint32_t b = 0; b < pl->lchunk; b++) {
		start[w * (pl->nb + 1) + b0 + b] = acc;
		cursor[w * pl->nb + b0 + b] = acc;
		acc += count[w * pl->nb + b0 + b];
	}
}

/* 4: thread t = w * n + i places point i in its bucket's run of sorted[w]. */
HCU_FN void hcu_msm_scatter_at(const struct hcu_msm_plan *pl, const int32_t *digits, uint32_t *cursor,
			       uint32_t *sorted, uint64_t t)
{
	int32_t d = digits[t];
	uint64_t w = t / pl->n;
	uint32_t i = (uint32_t)(t - w * pl->n);

	if (d == 0)
		return;
	uint32_t pos = hcu_msm_fetch_add(&cursor[w * pl->nb + (uint32_t)(d < 0 ? -d : d) - 1], 1);
	sorted[w * pl->n + pos] = i | (d < 0 ? HCU_MSM_NEG : 0);
}

/* 5a: thread t = w * npiece + k sums the entries [k P, (k + 1) P) of
 * window w's sorted run (fewer at its end): the buckets wholly inside into
 * buckets[], the partial sums of the piece's first and last bucket into
 * head[t] and tail[t] (the same sum when one bucket covers the piece). */
HCU_FN void hcu_msm_piece_at(const struct hcu_msm_plan *pl, const hcu_g1_aff *bases, const uint32_t *sorted,
			     const uint32_t *start, hcu_g1 *buckets, hcu_g1 *head, hcu_g1 *tail, uint64_t t)
{
	uint64_t w = t / pl->npiece, k = t - w * pl->npiece;
	const uint32_t *st = start + w * (pl->nb + 1);
	const uint32_t *run = sorted + w * pl->n;
	hcu_g1 *bk = buckets + w * pl->nb;
	uint32_t lo = (uint32_t)k * pl->lpiece, hi = lo + pl->lpiece, b = 0, first = 1;
	hcu_g1 acc;

	hcu_g1_set_inf(&acc);
	if (hi > st[pl->nb])
		hi = st[pl->nb];
	if (lo >= hi) {
		head[t] = acc;
		tail[t] = acc;
		return;
	}
	/* The bucket holding position lo: the last b < nb with st[b] <= lo. */
	for (uint32_t top = pl->nb; b + 1 < top;) {
		uint32_t mid = (b + top) / 2;

		if (st[mid] <= lo)
			b = mid;
		else
			top = mid;
	}
	for (uint32_t pos = lo; pos < hi; pos++) {
		while (pos >= st[b + 1]) {	/* bucket b ended inside the piece */
			if (first)
				head[t] = acc;
			if (st[b] >= lo)
				bk[b] = acc;
			hcu_g1_set_inf(&acc);
			b++;
			first = 0;
		}
		uint32_t e = run[pos];

		hcu_g1_add_affine(&acc, &acc, &bases[e & ~HCU_MSM_NEG], (e & HCU_MSM_NEG) != 0);
	}
	if (first)
		head[t] = acc;
	tail[t] = acc;
	if (st[b] >= lo && st[b + 1] <= hi)
		bk[b] = acc;
}

/* 5b: thread t = w * nb + b: an empty bucket is set to infinity; one whose
 * entries span pieces kb < ke is tail[kb] + tail[kb + 1 .. ke) + head[ke];
 * any other was written whole by 5a. */
HCU_FN void hcu_msm_bucket_at(const struct hcu_msm_plan *pl, const uint32_t *start, const hcu_g1 *head,
			      const hcu_g1 *tail, hcu_g1 *buckets, uint64_t t)
{
	uint64_t w = t / pl->nb, b = t - w * pl->nb;
	const uint32_t *st = start + w * (pl->nb + 1);
	const hcu_g1 *hd = head + w * pl->npiece, *tl = tail + w * pl->npiece;

	if (st[b] == st[b + 1]) {
		hcu_g1_set_inf(&buckets[t]);
		return;
	}
	uint32_t kb = st[b] / pl->lpiece, ke = (st[b + 1] - 1) / pl->lpiece;
	if (kb == ke)
		return;
	hcu_g1 acc = tl[kb];

	for (uint32_t k = kb + 1; k < ke; k++)
		hcu_g1_add(&acc, &acc, &tl[k]);
	hcu_g1_add(&acc, &acc, &hd[ke]);
	buckets[t] = acc;
}

/* 6: thread t = w * nseg + j: segment j's buckets, from its top down. */
HCU_FN void hcu_msm_segment_at(const struct hcu_msm_plan *pl, const hcu_g1 *buckets, hcu_g1 *run, hcu_g1 *tot,
			       uint64_t t)
{
	const hcu_g1 *bk = buckets + t * pl->lseg;	/* w nb + j L = t L */
	hcu_g1 r, s;

	hcu_g1_set_inf(&r);
	hcu_g1_set_inf(&s);
	for (uint32_t u = pl->lseg; u-- > 0;) {
		hcu_g1_add(&r, &r, &bk[u]);
		hcu_g1_add(&s, &s, &r);
	}
	run[t] = r;
	tot[t] = s;
}

/* 7a: thread t = w * ngrp + g: the segments j = g G + v (v < G) of window
 * w, from run[] and tot[] (segment w S + j is t G + v): rsum[t] = sum_v
 * run_j, jsum[t] = sum_v v run_j, tsum[t] = sum_v tot_j. */
HCU_FN void hcu_msm_group_at(const struct hcu_msm_plan *pl, const hcu_g1 *run, const hcu_g1 *tot, hcu_g1 *rsum,
			     hcu_g1 *jsum, hcu_g1 *tsum, uint64_t t)
{
	const hcu_g1 *r = run + t * pl->lgrp, *o = tot + t * pl->lgrp;
	hcu_g1 acc, ws, ts;

	hcu_g1_set_inf(&acc);
	hcu_g1_set_inf(&ws);
	hcu_g1_set_inf(&ts);
	for (uint32_t v = pl->lgrp; v-- > 1;) {
		hcu_g1_add(&acc, &acc, &r[v]);
		hcu_g1_add(&ws, &ws, &acc);
	}
	hcu_g1_add(&acc, &acc, &r[0]);
	for (uint32_t v = 0; v < pl->lgrp; v++)
		hcu_g1_add(&ts, &ts, &o[v]);
	rsum[t] = acc;
	jsum[t] = ws;
	tsum[t] = ts;
}

/* 7b: window w's sum: L (sum_g J_g + G sum_g g R_g) + sum_g T_g. */
HCU_FN void hcu_msm_window_at(const struct hcu_msm_plan *pl, const hcu_g1 *rsum, const hcu_g1 *jsum,
			      const hcu_g1 *tsum, hcu_g1 *wsum, uint32_t w)
{
	uint64_t base = (uint64_t)w * pl->ngrp;
	hcu_g1 acc, ws;

	hcu_g1_set_inf(&acc);
	hcu_g1_set_inf(&ws);
	for (uint32_t g = pl->ngrp; g-- > 1;) {
		hcu_g1_add(&acc, &acc, &rsum[base + g]);
		hcu_g1_add(&ws, &ws, &acc);
	}
	for (uint32_t l = 0; l < pl->lg_lgrp; l++)
		hcu_g1_double(&ws, &ws);
	for (uint32_t g = 0; g < pl->ngrp; g++)
		hcu_g1_add(&ws, &ws, &jsum[base + g]);
	for (uint32_t l = 0; l < pl->lg_lseg; l++)
		hcu_g1_double(&ws, &ws);
	for (uint32_t g = 0; g < pl->ngrp; g++)
		hcu_g1_add(&ws, &ws, &tsum[base + g]);
	wsum[w] = ws;
}

/* 8: out = sum_w 2^(c w) wsum[w], Horner from the top window. */
HCU_FN void hcu_msm_combine(const struct hcu_msm_plan *pl, const hcu_g1 *wsum, hcu_g1 *out)
{
	hcu_g1 acc;

	hcu_g1_set_inf(&acc);
	for (uint32_t w = pl->nwin; w-- > 0;) {
		for (uint32_t i = 0; i < pl->c && w + 1 < pl->nwin; i++)
			hcu_g1_double(&acc, &acc);
		hcu_g1_add(&acc, &acc, &wsum[w]);
	}
	*out = acc;
}

/* Device memory per MSM beyond the bases (n * sizeof(hcu_g1_aff)) and the
 * scalars (n * 32 bytes): the digits and the sorted entries (4 bytes each
 * per window and point), counts, starts and cursors (12 bytes per bucket,
 * and 4 per chunk of phase 3),
 * the buckets, the pieces' two partial sums, the segments' two sums and
 * the groups' three (144 bytes each). */
HCU_FN uint64_t hcu_msm_scratch_bytes(const struct hcu_msm_plan *pl)
{
	uint64_t nbk = (uint64_t)pl->nwin * pl->nb, nsg = (uint64_t)pl->nwin * pl->nseg;
	uint64_t ngr = (uint64_t)pl->nwin * pl->ngrp, npc = (uint64_t)pl->nwin * pl->npiece;

	return 8ull * pl->nwin * pl->n + 12 * nbk + 4ull * pl->nwin * (pl->nchunk + 1) +
	       sizeof(hcu_g1) * (nbk + 2 * npc + 2 * nsg + 3 * ngr + pl->nwin);
}

#endif
