/*
 * hcu_hterm: the H-term pipeline of the CUDA backend, split so that all of
 * its arithmetic and its order of steps can run on the host too.
 *
 * - hcu_load_at(), hcu_bfly_at(), hcu_elem_at(), hcu_store_at(): the work
 *   of one device thread in one pass, __host__ __device__. hterm_cuda.cu's
 *   one kernel, hcu_k_pass, runs them in the pass's order with
 *   __syncthreads() between steps; tests/gpuworker/hcu_hterm.c runs the
 *   same functions in plain loops (one iteration per thread, a local array
 *   per block for shared memory, the end of a loop for each barrier).
 * - hcu_plan: the small per-size tables, computed on the host.
 * - hcu_hterm_drive(): the sequence of passes, written once, over a table of
 *   operations (device launches in hterm_cuda.cu, loops in the test).
 *
 * The transforms (definitions as field/ntt.h documents; w = w_k, g = 7):
 *   forward  F(x)[j] = sum_i x[i] w^(ij)
 *   inverse  x[i]    = n^-1 sum_j y[j] w^(-ij)
 * A forward transform is decimation in frequency (Gentleman-Sande):
 * natural order in, bit-reversed order out. An inverse transform is
 * decimation in time (Cooley-Tukey) with the twiddles w^-m: bit-reversed
 * in, natural out. So the order flips at each transform and no pass does a
 * bit reversal of its own; the one reversal the chain needs (it runs
 * natural -> natural through three transforms) is a gather folded into the
 * first pass, which reads its input from the upload buffer at bit-reversed
 * positions (32-byte elements: one DRAM sector each, so a gather costs
 * sectors, not whole lines).
 *
 * Pipeline, for v in a, b, c (n^-1 and the coset factors folded in):
 *   iNTT (DIT, w^-1), its first pass gathering v (and converting bytes to
 *     Montgomery form when the input is bytes), then x[i] n^-1 g^i (table
 *     GS): the coset's coefficients, natural order
 *   coset NTT (DIF, w): coset evaluations in bit-reversed order; for c,
 *     then (a*b - c) * (g^n - 1)^-1 in that order, into a
 *   then on a: coset iNTT (DIT, w^-1), then H[i] n^-1 g^-i (table GI),
 *     natural order, as Montgomery elements or as bytes, to H's buffer.
 *
 * Passes: the k bits of an index are cut into P = ceil(k / B) ranges (B =
 * the largest block log, HCU_LOG_BLOCK on the device), their sizes as even
 * as possible. A pass over a range [L, L+b) runs n / 2^b blocks of 2^(b-1)
 * threads, each block holding the 2^b elements (2^L apart) whose indices
 * differ only in those bits, in shared memory (2^b * 32 bytes), and running
 * there every stage of the pass's steps that works on those bits. A DIT
 * runs the ranges bottom up and a DIF top down, so the inverse's last range
 * and the next forward's first are the same bits: one pass does both, with
 * the coset factors between them; the same holds for c's last forward range
 * and the coset iNTT's first, with the quotient between them. That makes
 * 7P - 4 passes over one vector per H-term (hcu_hterm_drive says which):
 * 3 for k <= 10, 10 for k = 11..20, 17 for k = 21..27, against 7P if
 * every transform had its own passes.
 *
 * Twiddles: one table w^m, m < n/2 (materialized on the device once per
 * k); the inverse twiddle w^-m is -w^(n/2 - m) (w^(n/2) = -1), so no second
 * table. Power tables are two-level: value(i) = hi[i >> lbits] *
 * lo[i & mask], so the host computes about 2 sqrt(n) powers and the device
 * one product per element; the product is the same field element however
 * it is formed.
 */
#ifndef GPUWORKER_HCU_HTERM_CUH
#define GPUWORKER_HCU_HTERM_CUH

#include <stdlib.h>
#include <string.h>

#include "gpuworker/hcu_fr.cuh"

#define HCU_MAX_LOG 27	/* VOCAB_LOG_MAX: indices stay below 2^32 */
/* The device's largest block: 2^10 elements, 512 threads, 32 KiB of shared
 * memory (under the 48 KiB a block gets without opting in), so k = 20 is
 * 2 ranges and k = 24..27 are 3. */
#define HCU_LOG_BLOCK 10

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

/* Global-memory element loads and stores. On the device two 128-bit
 * accesses each (every device buffer is cudaMalloc'd and every element
 * 32 bytes, so 16-byte alignment holds), read-only ones through the
 * non-coherent cache; on the host plain copies. hcu_fr itself stays
 * 8-aligned like fr_t, which the host casts to and from. */
HCU_FN hcu_fr hcu_ld(const hcu_fr *p)
{
#ifdef __CUDA_ARCH__
	ulonglong2 lo = ((const ulonglong2 *)p)[0], hi = ((const ulonglong2 *)p)[1];
	hcu_fr r = { { lo.x, lo.y, hi.x, hi.y } };
	return r;
#else
	return *p;
#endif
}

HCU_FN hcu_fr hcu_ldg(const hcu_fr *p)
{
#ifdef __CUDA_ARCH__
	ulonglong2 lo = __ldg((const ulonglong2 *)p), hi = __ldg((const ulonglong2 *)p + 1);
	hcu_fr r = { { lo.x, lo.y, hi.x, hi.y } };
	return r;
#else
	return *p;
#endif
}

HCU_FN void hcu_st(hcu_fr *p, const hcu_fr *v)
{
#ifdef __CUDA_ARCH__
	((ulonglong2 *)p)[0] = make_ulonglong2(v->l[0], v->l[1]);
	((ulonglong2 *)p)[1] = make_ulonglong2(v->l[2], v->l[3]);
#else
	*p = *v;
#endif
}

/* A two-level power table as the device sees it (pointers into one block). */
struct hcu_pow {
	const hcu_fr *lo, *hi;
	unsigned lbits;
};

HCU_FN void hcu_pow_at(hcu_fr *out, struct hcu_pow t, uint32_t i)
{
	hcu_fr hi = hcu_ldg(&t.hi[i >> t.lbits]), lo = hcu_ldg(&t.lo[i & ((1u << t.lbits) - 1)]);

	hcu_mul(out, &hi, &lo);
}

/* How a pass reads its block: in place, or gathered from the upload
 * buffer at bit-reversed positions (as Montgomery elements, or as
 * canonical 32-byte little-endian encodings, converted here). */
enum { HCU_LD_PLAIN, HCU_LD_GATHER, HCU_LD_GATHER_BYTES };
/* What a pass does to its block in shared memory, in order, each step
 * followed by a barrier:
 *   HCU_OP_DIT, HCU_OP_DIF: b radix-2 stages of an inverse DIT (w^-m,
 *     bottom bit first) or forward DIF (w^m, top bit first) transform;
 *   HCU_OP_COSET: x[i] *= n^-1 g^i (table GS; natural order after the
 *     inverse's last stages);
 *   HCU_OP_QUOTIENT: x = (a*b - x) * zinv, a and b read at the same
 *     (bit-reversed) positions: the block is c's coset values. */
enum { HCU_OP_END, HCU_OP_DIT, HCU_OP_DIF, HCU_OP_COSET, HCU_OP_QUOTIENT };
#define HCU_MAX_OPS 6
/* How it writes: in place; into a (the quotient, on its way to H); H
 * times n^-1 g^-i (table GI) into H's buffer, as Montgomery elements or
 * as encodings. */
enum { HCU_ST_PLAIN, HCU_ST_A, HCU_ST_H, HCU_ST_H_BYTES };

/* One pass: bits [L, L+b) of vectors of 2^k, its steps in op[]. */
struct hcu_pass {
	unsigned k, L, b;
	int load, store;
	unsigned char op[HCU_MAX_OPS];	/* HCU_OP_*, HCU_OP_END after the last */
};

/* What a pass reads and writes besides its vector x. */
struct hcu_io {
	hcu_fr *x;
	const hcu_fr *src;	/* HCU_LD_GATHER*: the input, natural order */
	hcu_fr *qa;		/* HCU_OP_QUOTIENT, HCU_ST_A: a */
	const hcu_fr *qb;	/* HCU_OP_QUOTIENT: b */
	hcu_fr *h;		/* HCU_ST_H*: H's buffer */
	const hcu_fr *tw;	/* w^m, m < n/2 */
	struct hcu_pow gs, gi;	/* n^-1 g^i, n^-1 g^-i */
	hcu_fr zinv;		/* (g^n - 1)^-1 */
	unsigned *bad;		/* HCU_LD_GATHER_BYTES: set to 1 on an encoding >= r */
};

/* The global index of element t of block blk in a pass over bits
 * [L, L+b): the block's fixed bits above and below, t in between. */
HCU_FN uint32_t hcu_pass_idx(uint32_t blk, uint32_t t, unsigned L, unsigned b)
{
	return ((blk >> L) << (L + b)) | (t << L) | (blk & ((1u << L) - 1));
}

/* The local bit that stage i of a DIT or DIF step works on: DIF from the
 * top, DIT from the bottom (each pass, and the passes in turn, run the
 * stages of a whole transform in its order). */
HCU_FN unsigned hcu_stage_bit(const struct hcu_pass *p, int op, unsigned i)
{
	return op == HCU_OP_DIF ? p->b - 1 - i : i;
}

/* w^m (forward) or w^-m = -w^(n/2 - m) (inverse), m < n/2. */
HCU_FN void hcu_twiddle(hcu_fr *out, const hcu_fr *tw, uint32_t m, unsigned k, int fwd)
{
	if (fwd || m == 0) {
		*out = hcu_ldg(&tw[m]);
	} else {
		hcu_fr z = { { 0, 0, 0, 0 } }, t = hcu_ldg(&tw[(1u << (k - 1)) - m]);
		hcu_sub(out, &z, &t);
	}
}

/* Thread tau of a block loads its two elements, t = tau and tau + 2^(b-1). */
HCU_FN void hcu_load_at(hcu_fr *y, const struct hcu_pass *p, const struct hcu_io *io,
			uint32_t blk, uint32_t tau)
{
	for (uint32_t t = tau; t < (1u << p->b); t += 1u << (p->b - 1)) {
		uint32_t g = hcu_pass_idx(blk, t, p->L, p->b);

		if (p->load == HCU_LD_PLAIN) {
			y[t] = hcu_ld(&io->x[g]);
		} else if (p->load == HCU_LD_GATHER) {
			y[t] = hcu_ldg(&io->src[hcu_bitrev(g, p->k)]);
		} else {
			hcu_fr v = hcu_ldg(&io->src[hcu_bitrev(g, p->k)]);

			if (!hcu_canonical(&v)) {
				*io->bad = 1;	/* every writer stores the same value */
				v.l[0] = v.l[1] = v.l[2] = v.l[3] = 0;
			}
			hcu_to_mont(&y[t], &v);
		}
	}
}

/* Thread tau's butterfly at local bit lb of block blk, in a DIT or DIF
 * step (op). The pair is global bit s = L + lb apart; its twiddle
 * exponent is (i0 mod 2^s) * n / 2^(s+1), the same for DIT and DIF. */
HCU_FN void hcu_bfly_at(hcu_fr *y, const struct hcu_pass *p, const struct hcu_io *io,
			uint32_t blk, uint32_t tau, unsigned lb, int op)
{
	uint32_t i0 = ((tau >> lb) << (lb + 1)) | (tau & ((1u << lb) - 1)), i1 = i0 | (1u << lb);
	unsigned s = p->L + lb;
	uint32_t g0 = hcu_pass_idx(blk, i0, p->L, p->b);
	uint32_t m = (g0 & ((1u << s) - 1)) << (p->k - 1 - s);
	hcu_fr w, u = y[i0], v = y[i1];

	hcu_twiddle(&w, io->tw, m, p->k, op == HCU_OP_DIF);
	if (op == HCU_OP_DIF) {
		hcu_add(&y[i0], &u, &v);
		hcu_sub(&v, &u, &v);
		hcu_mul(&y[i1], &v, &w);
	} else {
		hcu_mul(&v, &v, &w);
		hcu_add(&y[i0], &u, &v);
		hcu_sub(&y[i1], &u, &v);
	}
}

/* Thread tau's elementwise step (HCU_OP_COSET or HCU_OP_QUOTIENT) on its
 * two elements. */
HCU_FN void hcu_elem_at(hcu_fr *y, const struct hcu_pass *p, const struct hcu_io *io,
			uint32_t blk, uint32_t tau, int op)
{
	for (uint32_t t = tau; t < (1u << p->b); t += 1u << (p->b - 1)) {
		uint32_t g = hcu_pass_idx(blk, t, p->L, p->b);
		hcu_fr s, u;

		if (op == HCU_OP_COSET) {
			hcu_pow_at(&s, io->gs, g);
			hcu_mul(&y[t], &y[t], &s);
		} else {
			s = hcu_ld(&io->qa[g]);
			u = hcu_ldg(&io->qb[g]);
			hcu_mul(&s, &s, &u);
			hcu_sub(&s, &s, &y[t]);
			hcu_mul(&y[t], &s, &io->zinv);
		}
	}
}

/* The barrier-separated steps of a pass between its load and its store:
 * b for each DIT or DIF, one for each elementwise op. */
HCU_FN unsigned hcu_pass_steps(const struct hcu_pass *p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < HCU_MAX_OPS && p->op[i] != HCU_OP_END; i++)
		n += p->op[i] == HCU_OP_DIT || p->op[i] == HCU_OP_DIF ? p->b : 1;
	return n;
}

/* Thread tau's part of step j (< hcu_pass_steps) of block blk. */
HCU_FN void hcu_step_at(hcu_fr *y, const struct hcu_pass *p, const struct hcu_io *io,
			uint32_t blk, uint32_t tau, unsigned j)
{
	for (unsigned i = 0; i < HCU_MAX_OPS && p->op[i] != HCU_OP_END; i++) {
		int op = p->op[i];

		if (op == HCU_OP_DIT || op == HCU_OP_DIF) {
			if (j < p->b) {
				hcu_bfly_at(y, p, io, blk, tau, hcu_stage_bit(p, op, j), op);
				return;
			}
			j -= p->b;
		} else {
			if (j == 0) {
				hcu_elem_at(y, p, io, blk, tau, op);
				return;
			}
			j--;
		}
	}
}

/* Thread tau writes its two elements. */
HCU_FN void hcu_store_at(const hcu_fr *y, const struct hcu_pass *p, const struct hcu_io *io,
			 uint32_t blk, uint32_t tau)
{
	for (uint32_t t = tau; t < (1u << p->b); t += 1u << (p->b - 1)) {
		uint32_t g = hcu_pass_idx(blk, t, p->L, p->b);
		hcu_fr s, v;

		if (p->store == HCU_ST_PLAIN) {
			hcu_st(&io->x[g], &y[t]);
		} else if (p->store == HCU_ST_A) {
			hcu_st(&io->qa[g], &y[t]);
		} else {
			hcu_pow_at(&s, io->gi, g);
			hcu_mul(&v, &y[t], &s);
			if (p->store == HCU_ST_H_BYTES)
				hcu_from_mont(&v, &v);
			hcu_st(&io->h[g], &v);
		}
	}
}

/* ---- the plan (plain host functions) ---- */

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

/* ---- the pass split and the driver (plain host functions) ---- */

/* Ranges of a transform of 2^k in blocks of at most 2^bmax: the passes
 * one transform on its own would take. */
static inline unsigned hcu_npass(unsigned k, unsigned bmax)
{
	return (k + bmax - 1) / bmax;
}

/* Bits of range q (of hcu_npass; 0 the lowest): the larger ones at the
 * bottom, none differing by more than one. */
static inline unsigned hcu_pass_size(unsigned k, unsigned bmax, unsigned q)
{
	unsigned np = hcu_npass(k, bmax);

	return k / np + (q < k % np);
}

/* A pass over bit range r (0 the lowest) of vectors of 2^k, no steps yet:
 * range q has hcu_pass_size(q) bits. An inverse
 * (DIT) transform runs them bottom up, a forward (DIF) one top down, so
 * the inverse's last pass and the forward's first cover the same bits and
 * become one pass, as do the forward's last and the next inverse's first. */
static inline struct hcu_pass hcu_range(unsigned k, unsigned bmax, unsigned r, int load, int store)
{
	struct hcu_pass p;
	unsigned below = 0;

	for (unsigned i = 0; i < r; i++)
		below += hcu_pass_size(k, bmax, i);
	memset(&p, 0, sizeof(p));
	p.k = k;
	p.b = hcu_pass_size(k, bmax, r);
	p.L = below;
	p.load = load;
	p.store = store;
	return p;
}

/* Appends step op to p's program. */
static inline void hcu_add_op(struct hcu_pass *p, int op)
{
	unsigned i = 0;

	while (p->op[i] != HCU_OP_END)
		i++;
	p->op[i] = (unsigned char)op;	/* at most 5 steps: one END always stays */
}

/* Two upload buffers serve three inputs and H: a uploads into 0, b into
 * 1, c into 0 again once a's first pass (its consumed step) has read it,
 * and H goes to 1, which b's first pass read long before. */
static inline int hcu_upload_buf(int vec)
{
	return vec == 1;
}
#define HCU_H_BUF 1

/* The steps of the pipeline; vec is 0, 1, 2 for a, b, c. Each returns 0 or
 * -1 (the implementation has recorded why).
 *   input(vec):    before vec's first pass, which gathers from its upload
 *   consumed(vec): after it, when vec's upload buffer may be reused
 *   pass(vec, p):  one pass over vec (with HCU_OP_QUOTIENT: vec is c, and
 *                  a and b are read; HCU_ST_A writes a, HCU_ST_H* H's buffer) */
struct hcu_ops {
	int (*input)(void *ctx, int vec);
	int (*consumed)(void *ctx, int vec);
	int (*pass)(void *ctx, int vec, const struct hcu_pass *p);
};

/* Which sides are canonical encodings rather than Montgomery elements
 * (hterm.h's HTERM_CUDA_IN_BYTES and HTERM_CUDA_OUT_BYTES). */
#define HCU_ENC_IN 1u
#define HCU_ENC_OUT 2u

/*
 * The whole H-term, as hterm.h defines it, into H's buffer; enc: HCU_ENC_*.
 * With P = ceil(k / bmax) ranges, for each of a, b, c:
 *   ranges 0 .. P-2:  iNTT stages (DIT), the first gathering the input
 *   range P-1:        the iNTT's last stages, the coset factors, the coset
 *                     NTT's first stages (DIF): one pass
 *   ranges P-2 .. 0:  the coset NTT's stages; for c the last of them also
 *                     takes the quotient into a and runs the coset iNTT's
 *                     first stages (DIT) on it
 * then ranges 1 .. P-1 of the coset iNTT on a, the last writing H. That is
 * 3 (2P - 1) + P - 1 = 7P - 4 passes: 3 when one block holds it all.
 */
static inline int hcu_hterm_drive(const struct hcu_ops *o, void *ctx, unsigned k,
				  unsigned bmax, unsigned enc)
{
	unsigned P = hcu_npass(k, bmax);
	int ld = enc & HCU_ENC_IN ? HCU_LD_GATHER_BYTES : HCU_LD_GATHER;
	int sth = enc & HCU_ENC_OUT ? HCU_ST_H_BYTES : HCU_ST_H;

	for (int v = 0; v < 3; v++) {
		if (o->input(ctx, v))
			return -1;
		for (unsigned r = 0; r < P; r++) {
			struct hcu_pass p = hcu_range(k, bmax, r, r == 0 ? ld : HCU_LD_PLAIN, HCU_ST_PLAIN);

			hcu_add_op(&p, HCU_OP_DIT);
			if (r == P - 1) {
				hcu_add_op(&p, HCU_OP_COSET);
				hcu_add_op(&p, HCU_OP_DIF);
				if (P == 1 && v == 2) {	/* c's only pass: all the rest too */
					hcu_add_op(&p, HCU_OP_QUOTIENT);
					hcu_add_op(&p, HCU_OP_DIT);
					p.store = sth;
				}
			}
			if (o->pass(ctx, v, &p) || (r == 0 && o->consumed(ctx, v)))
				return -1;
		}
		for (unsigned r = P - 1; r-- > 0;) {
			struct hcu_pass p = hcu_range(k, bmax, r, HCU_LD_PLAIN, HCU_ST_PLAIN);

			hcu_add_op(&p, HCU_OP_DIF);
			if (v == 2 && r == 0) {
				hcu_add_op(&p, HCU_OP_QUOTIENT);
				hcu_add_op(&p, HCU_OP_DIT);
				p.store = HCU_ST_A;
			}
			if (o->pass(ctx, v, &p))
				return -1;
		}
	}
	for (unsigned r = 1; r < P; r++) {
		struct hcu_pass p = hcu_range(k, bmax, r, HCU_LD_PLAIN, r == P - 1 ? sth : HCU_ST_PLAIN);

		hcu_add_op(&p, HCU_OP_DIT);
		if (o->pass(ctx, 0, &p))
			return -1;
	}
	return 0;
}

/* Passes of one H-term: 7 ceil(k / bmax) - 4. */
static inline unsigned hcu_hterm_passes(unsigned k, unsigned bmax)
{
	return 7 * hcu_npass(k, bmax) - 4;
}

#endif
