/*
 * hcu_hterm: the H-term pipeline of the CUDA backend, split so that all of
 * its arithmetic and its order of steps can run on the host too.
 *
 * - hcu_*_at(): the work of one device thread (one butterfly, one swap, one
 *   element), __host__ __device__. The kernels in hterm_cuda.cu are grid-
 *   stride loops around them; tests/gpuworker/hcu_hterm.c runs the same
 *   functions in plain loops.
 * - hcu_plan: the small per-size tables, computed on the host.
 * - hcu_hterm_drive(): the sequence of steps, written once, over a table of
 *   operations (device launches in hterm_cuda.cu, loops in the test).
 *
 * The transforms (definitions as field/ntt.h documents; w = w_k, g = 7):
 *   F(x)[j] = sum_i x[i] w^(ij): bit-reverse, then k radix-2 Cooley-Tukey
 *   stages with twiddles tw[m] = w^m, m < n/2.
 *   inverse(x)[i] = n^-1 F(x)[(n-i) mod n], so every transform is F plus a
 *   "reverse and scale" pass; coset factors fold into that pass:
 *     iNTT then coset prep:  x[i] = n^-1 g^i  F(x)[(n-i) mod n]   (table GS)
 *     coset iNTT:            x[i] = n^-1 g^-i F(x)[(n-i) mod n]   (table GI)
 * Pipeline: for v in a, b, c: F, reverse-scale GS, F (coset evaluations);
 * a = (a*b - c) * (g^n - 1)^-1; F(a), reverse-scale GI -> H in a.
 *
 * Power tables are two-level: value(i) = hi[i >> lbits] * lo[i & mask],
 * so the host computes about 2*sqrt(n) powers and the device one product
 * per element; the product is the same field element however it is formed.
 */
#ifndef GPUWORKER_HCU_HTERM_CUH
#define GPUWORKER_HCU_HTERM_CUH

#include <stdlib.h>
#include <string.h>

#include "gpuworker/hcu_fr.cuh"

#define HCU_MAX_LOG 27	/* VOCAB_LOG_MAX: indices stay below 2^32 */

HCU_FN uint32_t hcu_bitrev(uint32_t i, unsigned k)
{
#ifdef __CUDA_ARCH__
	return k ? __brev(i) >> (32 - k) : 0;
#else
	uint32_t r = 0;
	for (unsigned b = 0; b < k; b++)
		r |= ((i >> b) & 1u) << (k - 1 - b);
	return r;
#endif
}

/* A two-level power table as the device sees it (pointers into one block). */
struct hcu_pow {
	const hcu_fr *lo, *hi;
	unsigned lbits;
};

HCU_FN void hcu_pow_at(hcu_fr *out, struct hcu_pow t, uint32_t i)
{
	hcu_mul(out, &t.hi[i >> t.lbits], &t.lo[i & ((1u << t.lbits) - 1)]);
}

/* Bit-reversal permutation, thread i of n: swaps with its partner once. */
HCU_FN void hcu_bitrev_at(hcu_fr *x, uint32_t i, unsigned k)
{
	uint32_t j = hcu_bitrev(i, k);

	if (i < j) {
		hcu_fr t = x[i];
		x[i] = x[j];
		x[j] = t;
	}
}

/* Butterfly t of n/2 in Cooley-Tukey stage s (spans of 2^(s+1)). The
 * twiddle of position j in a span of 2^(s+1) is w_n^(j * n / 2^(s+1)). */
HCU_FN void hcu_stage_at(hcu_fr *x, const hcu_fr *tw, uint32_t t, unsigned s,
			 unsigned k)
{
	uint32_t half = 1u << s, j = t & (half - 1);
	uint32_t i0 = ((t >> s) << (s + 1)) | j, i1 = i0 + half;
	hcu_fr u = x[i0], v;

	hcu_mul(&v, &x[i1], &tw[(size_t)j << (k - 1 - s)]);
	hcu_add(&x[i0], &u, &v);
	hcu_sub(&x[i1], &u, &v);
}

/* Thread i of n/2 + 1: x[i] = s(i) x[(n-i) mod n] and x[n-i] = s(n-i) x[i];
 * positions 0 and n/2 map to themselves. Pairs are disjoint: no races. */
HCU_FN void hcu_revscale_at(hcu_fr *x, uint32_t i, unsigned k, struct hcu_pow s)
{
	uint32_t n = 1u << k, j = (n - i) & (n - 1);
	hcu_fr si, sj, a, b;

	hcu_pow_at(&si, s, i);
	if (i == j) {
		hcu_mul(&x[i], &x[i], &si);
		return;
	}
	hcu_pow_at(&sj, s, j);
	a = x[i];
	b = x[j];
	hcu_mul(&x[i], &b, &si);
	hcu_mul(&x[j], &a, &sj);
}

/* a[i] = (a[i] * b[i] - c[i]) * zinv. */
HCU_FN void hcu_pointwise_at(hcu_fr *a, const hcu_fr *b, const hcu_fr *c,
			     uint32_t i, const hcu_fr *zinv)
{
	hcu_fr t;

	hcu_mul(&t, &a[i], &b[i]);
	hcu_sub(&t, &t, &c[i]);
	hcu_mul(&a[i], &t, zinv);
}

/* ---- host side: the plan and the driver (plain host functions) ---- */

enum { HCU_TAB_W = 0, HCU_TAB_GS = 1, HCU_TAB_GI = 2, HCU_NTABS = 3 };

/*
 * Per-size setup. tab[] lives in one host block (copied to the device as
 * one block too); offsets say where each table's lo and hi start.
 *   W:  value(m) = w^m,          m < n/2  (twiddles; materialized on device)
 *   GS: value(i) = n^-1 g^i,     i < n
 *   GI: value(i) = n^-1 g^-i,    i < n
 */
struct hcu_plan {
	unsigned k;
	hcu_fr zinv;	/* (g^n - 1)^-1 */
	unsigned lbits[HCU_NTABS];
	size_t lo_off[HCU_NTABS], hi_off[HCU_NTABS];
	size_t count;	/* elements in tab */
	hcu_fr *tab;
};

/* lo[j] = base^j (j < 2^lbits), hi[j] = scale * base^(j 2^lbits) (j < 2^hbits). */
static inline void hcu_plan_fill(hcu_fr *lo, hcu_fr *hi, unsigned lbits, unsigned hbits,
			  const hcu_fr *base, const hcu_fr *scale)
{
	hcu_fr step;

	lo[0] = hcu_one();
	for (size_t j = 1; j < ((size_t)1 << lbits); j++)
		hcu_mul(&lo[j], &lo[j - 1], base);
	hcu_pow_u64(&step, base, (uint64_t)1 << lbits);
	hi[0] = *scale;
	for (size_t j = 1; j < ((size_t)1 << hbits); j++)
		hcu_mul(&hi[j], &hi[j - 1], &step);
}

/* Returns 0, or -1 when k is out of range or malloc fails. */
static inline int hcu_plan_init(struct hcu_plan *p, unsigned k)
{
	hcu_fr root_canon = HCU_ROOT_CANON_INIT, w, g, ginv, ninv, gn, one = hcu_one();
	hcu_fr base[HCU_NTABS], scale[HCU_NTABS];
	unsigned bits[HCU_NTABS] = { k - 1, k, k };

	memset(p, 0, sizeof(*p));
	if (k < 1 || k > HCU_MAX_LOG)
		return -1;
	p->k = k;
	/* w_k = root^(2^(32-k)): square the 2^32-th root 32-k times. */
	hcu_to_mont(&w, &root_canon);
	for (unsigned i = k; i < 32; i++)
		hcu_sqr(&w, &w);
	hcu_from_u64(&g, HCU_GENERATOR);
	hcu_inv(&ginv, &g);
	hcu_from_u64(&ninv, (uint64_t)1 << k);
	hcu_inv(&ninv, &ninv);
	hcu_pow_u64(&gn, &g, (uint64_t)1 << k);
	hcu_sub(&gn, &gn, &one);
	hcu_inv(&p->zinv, &gn);

	base[HCU_TAB_W] = w;     scale[HCU_TAB_W] = one;
	base[HCU_TAB_GS] = g;    scale[HCU_TAB_GS] = ninv;
	base[HCU_TAB_GI] = ginv; scale[HCU_TAB_GI] = ninv;
	for (int t = 0; t < HCU_NTABS; t++) {
		unsigned lb = (bits[t] + 1) / 2, hb = bits[t] - lb;

		p->lbits[t] = lb;
		p->lo_off[t] = p->count;
		p->count += (size_t)1 << lb;
		p->hi_off[t] = p->count;
		p->count += (size_t)1 << hb;
	}
	p->tab = (hcu_fr *)malloc(p->count * sizeof(hcu_fr));
	if (!p->tab)
		return -1;
	for (int t = 0; t < HCU_NTABS; t++) {
		unsigned lb = p->lbits[t], hb = bits[t] - lb;

		hcu_plan_fill(p->tab + p->lo_off[t], p->tab + p->hi_off[t], lb, hb,
			      &base[t], &scale[t]);
	}
	return 0;
}

static inline void hcu_plan_free(struct hcu_plan *p)
{
	free(p->tab);
	p->tab = NULL;
}

/* Table t of the plan, with its lo/hi pointing into block (the host copy
 * p->tab, or the device copy of it). */
static inline struct hcu_pow hcu_plan_pow(const struct hcu_plan *p, const hcu_fr *block, int t)
{
	struct hcu_pow r;

	r.lo = block + p->lo_off[t];
	r.hi = block + p->hi_off[t];
	r.lbits = p->lbits[t];
	return r;
}

/* The steps of the pipeline; vec is 0, 1, 2 for a, b, c. Each returns 0 or
 * -1 (the implementation has recorded why). */
struct hcu_ops {
	int (*bitrev)(void *ctx, int vec);
	int (*stage)(void *ctx, int vec, unsigned s);
	int (*revscale)(void *ctx, int vec, int table);
	int (*pointwise)(void *ctx);
};

static inline int hcu_forward(const struct hcu_ops *o, void *ctx, int vec, unsigned k)
{
	if (o->bitrev(ctx, vec))
		return -1;
	for (unsigned s = 0; s < k; s++)
		if (o->stage(ctx, vec, s))
			return -1;
	return 0;
}

/* The whole H-term, as hterm.h defines it; H ends up in vector 0. */
static inline int hcu_hterm_drive(const struct hcu_ops *o, void *ctx, unsigned k)
{
	for (int v = 0; v < 3; v++) {
		if (hcu_forward(o, ctx, v, k) ||	/* iNTT ...            */
		    o->revscale(ctx, v, HCU_TAB_GS) ||	/* ... and g^i: coset  */
		    hcu_forward(o, ctx, v, k))		/* coset NTT           */
			return -1;
	}
	if (o->pointwise(ctx) ||
	    hcu_forward(o, ctx, 0, k) ||		/* coset iNTT */
	    o->revscale(ctx, 0, HCU_TAB_GI))
		return -1;
	return 0;
}

#endif
