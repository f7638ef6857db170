/*
 * msm_priv: what the tests and the benchmark see of the MSM beyond
 * curve/msm.h (the plan it picks, a forced window width), and, below the
 * include guard, the bucket algorithm written once over a group and its
 * coordinate field: curve/msm.c includes this file twice more, once for G1
 * over Fp and once for G2 over Fp2, with MSM_G and MSM_F naming them.
 */
#ifndef CURVE_MSM_PRIV_H
#define CURVE_MSM_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "curve/msm.h"

#define MSM_MAX_C 16
#define MSM_MAX_WIN 129	/* windows at c = 2 */

/* How an MSM of n points runs: windows of up to c bits (nwin of them,
 * 2^(c-1) buckets each), every window split into k chunks of points (one task
 * each), on threads workers; batches of up to batch bucket additions share
 * one inversion. */
struct msm_plan {
	unsigned c, nwin, k, threads;
	size_t batch;
};

/* The plan for n points on threads workers (0: the online CPU count);
 * c forces the window width when not 0 (2 to MSM_MAX_C). */
void msm_plan(struct msm_plan *pl, size_t n, unsigned threads, unsigned c);

/* msm_g1 / msm_g2 with the window width forced (c as in msm_plan). */
int msm_g1_c(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n, unsigned threads, unsigned c);
int msm_g2_c(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n, unsigned threads, unsigned c);

/* 0 keeps G1's bucket additions off the IFMA kernel (curve/msm_ifma.c)
 * even where the CPU has it, 1 (the default) lets them use it: for the
 * tests and benchmarks, which compare both. Not thread-safe. Returns 1
 * when G1 MSMs will use it (on, the CPU has IFMA and fp its ADX path). */
int msm_use_ifma(int on);

/* An addition waiting in a batch: bucket += point, negated when neg. */
struct msm_entry {
	const void *pt;		/* affine point */
	uint32_t bucket;
	uint8_t neg, kind;
};

/* curve/msm_ifma.c: G1 bucket additions on AVX-512 IFMA, for the
 * CPUs where msm_ifma_usable() says so. msm_ifma_add adds every entry's
 * point (negated when neg) to bk[bucket], the buckets distinct and not at
 * infinity, except those whose point has its bucket's x (they would
 * double or cancel it): those it moves to e[0, k), in order, and returns
 * k. scratch: msm_ifma_scratch_size(n) bytes. */
int msm_ifma_usable(void);
size_t msm_ifma_scratch_size(size_t n);
size_t msm_ifma_add(g1_affine_t *bk, struct msm_entry *e, size_t n, void *scratch);

#endif

#ifdef MSM_G
/*
 * The template. Before including, msm.c defines struct msm_scratch,
 * struct msm_job, the bit helpers and the MSM_* kinds; MSM_G is the group
 * prefix (g1, g2), MSM_F the field prefix (fp, fp2), MSM_F_ONE the
 * field's one, and MSM_VEC, where defined (G1), the vector kernel that
 * takes the ordinary additions when the scratch has its memory (sc->vec).
 * Each instance defines static functions named after the group
 * (g1_msm_flush, ...) and the table MSM_G##_msm_ops.
 */
#define MSM_PASTE_(a, b) a##_##b
#define MSM_PASTE(a, b) MSM_PASTE_(a, b)
#define F_(name) MSM_PASTE(MSM_F, name)
#define G_(name) MSM_PASTE(MSM_G, name)
#define FT F_(t)
#define AFF G_(affine_t)
#define JAC G_(t)

/* The y of an entry's point, negated when its digit was. */
static inline void G_(msm_entry_y)(FT *y, const struct msm_entry *e)
{
	const AFF *p = e->pt;

	if (e->neg)
		F_(neg)(y, &p->y);
	else
		*y = p->y;
}

#ifdef MSM_VEC
/* msm_flush's first step where MSM_VEC (the IFMA kernel, G1) is on: it
 * adds every entry whose x differs from its bucket's (all of them but for
 * degenerate inputs) and leaves those that double or cancel in the batch
 * for the scalar code. */
static void G_(msm_vec_flush)(struct msm_scratch *sc)
{
	for (size_t i = 0; i < sc->nb; i++)
		msm_bit_clear(sc->busy, sc->batch[i].bucket);
	sc->nb = MSM_VEC(sc->buckets, sc->batch, sc->nb, sc->vec);
}
#endif

/*
 * bucket[e.bucket] += e.point for every entry of the batch, in affine
 * coordinates, with one inversion for all: the denominators' running
 * products go forward, the inverse of the last one comes back (Montgomery's
 * trick). No bucket appears twice in a batch, so each addition sees its
 * bucket as it was when the batch closed. Equal points double; opposite
 * points empty the bucket.
 */
static void G_(msm_flush)(struct msm_scratch *sc)
{
	AFF *bk = sc->buckets;
	FT *pre = sc->prefix, *den = sc->den;
	FT acc = MSM_F_ONE, inv, y;

	if (sc->nb == 0)
		return;
#ifdef MSM_VEC
	if (sc->vec) {
		G_(msm_vec_flush)(sc);	/* leaves the entries it could not do */
		if (sc->nb == 0)
			return;
	}
#endif
	for (size_t i = 0; i < sc->nb; i++) {
		struct msm_entry *e = &sc->batch[i];
		const AFF *a = &bk[e->bucket], *p = e->pt;

		pre[i] = acc;
		if (F_(equal)(&a->x, &p->x)) {
			G_(msm_entry_y)(&y, e);
			if (!F_(equal)(&a->y, &y) || F_(is_zero)(&y)) {
				e->kind = MSM_CANCEL;
				continue;
			}
			e->kind = MSM_DOUBLE;
			F_(double)(&den[i], &y);
		} else {
			e->kind = MSM_ADD;
			F_(sub)(&den[i], &p->x, &a->x);
		}
		F_(mul)(&acc, &acc, &den[i]);
	}
	F_(inv)(&inv, &acc);	/* a product of non-zero factors */
	for (size_t i = sc->nb; i-- > 0;) {
		const struct msm_entry *e = &sc->batch[i];
		AFF *a = &bk[e->bucket];
		const AFF *p = e->pt;
		FT t, lam, x3;

		msm_bit_clear(sc->busy, e->bucket);
		if (e->kind == MSM_CANCEL) {
			msm_bit_clear(sc->filled, e->bucket);
			continue;
		}
		F_(mul)(&t, &inv, &pre[i]);	/* 1 / den[i] */
		F_(mul)(&inv, &inv, &den[i]);	/* 1 / (den[0] ... den[i-1]) */
		/* lambda = (y2 - y1) / (x2 - x1), or 3 x^2 / 2y to double; for a
		 * negated point, -lambda = (y2 + y1) / (x2 - x1) (and y2 is
		 * already negated when doubling), which saves the negation:
		 * y3 = lambda (x1 - x3) - y1 = -lambda (x3 - x1) - y1. */
		int flip = e->neg && e->kind != MSM_DOUBLE;

		if (e->kind == MSM_DOUBLE) {
			F_(sqr)(&lam, &a->x);
			F_(mul_small)(&lam, &lam, 3);
		} else if (flip) {
			F_(add)(&lam, &p->y, &a->y);
		} else {
			F_(sub)(&lam, &p->y, &a->y);
		}
		F_(mul)(&lam, &lam, &t);
		F_(sqr)(&x3, &lam);
		F_(sub)(&x3, &x3, &a->x);
		F_(sub)(&x3, &x3, &p->x);
		F_(sub)(&t, flip ? &x3 : &a->x, flip ? &a->x : &x3);	/* selects, no branch */
		F_(mul)(&t, &t, &lam);
		F_(sub)(&a->y, &t, &a->y);
		a->x = x3;
	}
	sc->nb = 0;
}

/* Adds e's point to its bucket, which is not in the batch: a copy when the
 * bucket is empty, else an entry of the batch (which the caller flushes
 * when full). */
static inline void G_(msm_place)(struct msm_scratch *sc, const struct msm_entry *e)
{
	AFF *a = &((AFF *)sc->buckets)[e->bucket];

	if (!msm_bit(sc->filled, e->bucket)) {
		a->x = ((const AFF *)e->pt)->x;
		G_(msm_entry_y)(&a->y, e);
		a->inf = 0;
		msm_bit_set(sc->filled, e->bucket);
		return;
	}
	__builtin_prefetch(a, 1);
	msm_bit_set(sc->busy, e->bucket);
	sc->batch[sc->nb++] = *e;
}

/* Flushes the batch, then moves the waiting entries whose buckets are now
 * free into the next one; again while that fills it. */
static void G_(msm_flush_drain)(struct msm_scratch *sc)
{
	do {
		size_t kept = 0;

		G_(msm_flush)(sc);
		for (size_t j = 0; j < sc->nq; j++) {
			const struct msm_entry *e = &sc->queue[j];

			if (msm_bit(sc->busy, e->bucket))
				sc->queue[kept++] = *e;
			else
				G_(msm_place)(sc, e);
		}
		sc->nq = kept;
	} while (sc->nb == sc->bcap);
}

/* A waiting list full of entries means the points crowd into few buckets
 * (many equal scalars, say 1): those go into the Jacobian side buckets one
 * mixed addition each, no inversion, rather than one batch per entry. */
static void G_(msm_spill)(struct msm_scratch *sc)
{
	JAC *side = sc->side;

	sc->spilled = 1;
	for (size_t j = 0; j < sc->nq; j++) {
		const struct msm_entry *e = &sc->queue[j];
		AFF q = *(const AFF *)e->pt;

		G_(msm_entry_y)(&q.y, e);
		if (msm_bit(sc->sided, e->bucket)) {
			G_(add_affine)(&side[e->bucket], &side[e->bucket], &q);
		} else {
			G_(from_affine)(&side[e->bucket], &q);
			msm_bit_set(sc->sided, e->bucket);
		}
	}
	sc->nq = 0;
}

static inline void G_(msm_put)(struct msm_scratch *sc, const struct msm_entry *e)
{
	if (msm_bit(sc->busy, e->bucket)) {
		if (sc->nq == sc->qcap)
			G_(msm_spill)(sc);
		sc->queue[sc->nq++] = *e;
		return;
	}
	G_(msm_place)(sc, e);
	if (sc->nb == sc->bcap)
		G_(msm_flush_drain)(sc);
}

/*
 * acc[j] += src[j * stride] for j < m, in affine coordinates with one
 * inversion (as msm_flush, but either side may be the point at infinity,
 * and the m targets are distinct by construction).
 */
static void G_(msm_vec_add)(struct msm_scratch *sc, AFF *acc, const AFF *src, size_t stride, size_t m)
{
	FT *pre = sc->prefix, *den = sc->den;
	uint8_t *kind = sc->kind;
	FT prod = MSM_F_ONE, inv = MSM_F_ONE;
	size_t ndiv = 0;
#ifdef MSM_VEC
	size_t nv = 0;
#endif

	for (size_t j = 0; j < m; j++) {
		const AFF *a = &acc[j], *p = &src[j * stride];

		pre[j] = prod;
		if (p->inf) {
			kind[j] = MSM_SKIP;
			continue;
		}
		if (a->inf) {
			kind[j] = MSM_COPY;
			continue;
		}
		if (F_(equal)(&a->x, &p->x)) {
			if (!F_(equal)(&a->y, &p->y) || F_(is_zero)(&p->y)) {
				kind[j] = MSM_CANCEL;
				continue;
			}
			kind[j] = MSM_DOUBLE;
			F_(double)(&den[j], &p->y);
		} else {
#ifdef MSM_VEC
			if (sc->vec) {	/* to the kernel, below */
				sc->ord[nv].pt = p;
				sc->ord[nv].bucket = (uint32_t)j;
				sc->ord[nv++].neg = 0;
				kind[j] = MSM_SKIP;
				continue;
			}
#endif
			kind[j] = MSM_ADD;
			F_(sub)(&den[j], &p->x, &a->x);
		}
		F_(mul)(&prod, &prod, &den[j]);
		ndiv++;
	}
#ifdef MSM_VEC
	if (nv)	/* none left over: equal x were sorted out above */
		MSM_VEC(acc, sc->ord, nv, sc->vec);
#endif
	if (ndiv)
		F_(inv)(&inv, &prod);
	for (size_t j = m; j-- > 0;) {
		AFF *a = &acc[j];
		const AFF *p = &src[j * stride];
		FT t, lam, x3;

		switch (kind[j]) {
		case MSM_SKIP:
			continue;
		case MSM_COPY:
			*a = *p;
			continue;
		case MSM_CANCEL:
			a->inf = 1;
			continue;
		case MSM_DOUBLE:
			F_(sqr)(&lam, &a->x);
			F_(mul_small)(&lam, &lam, 3);
			break;
		default:
			F_(sub)(&lam, &p->y, &a->y);
		}
		F_(mul)(&t, &inv, &pre[j]);
		F_(mul)(&inv, &inv, &den[j]);
		F_(mul)(&lam, &lam, &t);
		F_(sqr)(&x3, &lam);
		F_(sub)(&x3, &x3, &a->x);
		F_(sub)(&x3, &x3, &p->x);
		F_(sub)(&t, &a->x, &x3);
		F_(mul)(&t, &t, &lam);
		F_(sub)(&a->y, &t, &a->y);
		a->x = x3;
	}
}

/*
 * sum (b + 1) * bucket[b] over the affine buckets, with affine additions
 * batched across segments: the buckets fall into S segments of L, each
 * segment j keeps its own running sum run_j and total tot_j (from its top
 * bucket down, local weights u + 1), and one step advances all S at once,
 * two batches of S additions (run += bucket, then tot += run) with one
 * inversion each. Since b + 1 = (u + 1) + j L, the window's sum is
 *   sum_j tot_j + L * sum_j j run_j,
 * the last by a short Jacobian running sum over j and log2 L doublings.
 * Leaves the buckets empty.
 */
static void G_(msm_reduce_affine)(struct msm_scratch *sc, JAC *out)
{
	AFF *bk = sc->buckets, *run = sc->run, *tot = sc->tot;
	size_t S = sc->nseg, L = sc->nbuckets / S;
	JAC acc, wsum, sum;

	for (size_t b = 0; b < sc->nbuckets; b++) {
		bk[b].inf = !msm_bit(sc->filled, b);
		msm_bit_clear(sc->filled, b);
	}
	for (size_t j = 0; j < S; j++)
		run[j].inf = tot[j].inf = 1;
	for (size_t u = L; u-- > 0;) {
		G_(msm_vec_add)(sc, run, &bk[u], L, S);
		G_(msm_vec_add)(sc, tot, run, 1, S);
	}
	G_(set_inf)(&acc);
	G_(set_inf)(&wsum);
	G_(set_inf)(&sum);
	for (size_t j = S; j-- > 1;) {
		G_(add_affine)(&acc, &acc, &run[j]);
		G_(add)(&wsum, &wsum, &acc);
	}
	for (size_t l = L; l > 1; l >>= 1)
		G_(double)(&wsum, &wsum);
	for (size_t j = 0; j < S; j++)
		G_(add_affine)(&sum, &sum, &tot[j]);
	G_(add)(out, &sum, &wsum);
}

/*
 * One task: the points of one chunk into the buckets of one window, then
 * the window's weighted sum, sum (b + 1) * bucket[b]: by msm_reduce_affine
 * when the buckets are many, else (and when side buckets were used) as a
 * Jacobian running sum from the top bucket down (a bucket is its affine
 * part plus its side part).
 * Leaves the buckets empty for the next task.
 */
static void G_(msm_task)(const struct msm_job *job, struct msm_scratch *sc, size_t task)
{
	size_t w = task / job->pl.k, lo = task % job->pl.k * job->chunk;
	size_t hi = lo + job->chunk < job->n ? lo + job->chunk : job->n;
	const int16_t *dig = job->digits + w * job->n;
	const AFF *pts = job->points, *bk = sc->buckets;
	const JAC *side = sc->side;
	JAC run, tot;
	int any = 0;

	for (size_t i = lo; i < hi; i++) {
		int d = dig[i];
		struct msm_entry e;

		if (((i - lo) & (MSM_STOP_EVERY - 1)) == MSM_STOP_EVERY - 1 && msm_should_stop(job))
			break;	/* its result is never combined */

		if (i + MSM_PREFETCH < hi) {	/* its bucket, for msm_place */
			unsigned f = (unsigned)abs(dig[i + MSM_PREFETCH]);

			__builtin_prefetch(&bk[f - (f != 0)], 1);	/* no branch on a random sign */
		}
		if (d == 0 || pts[i].inf)
			continue;
		e.pt = &pts[i];
		e.neg = d < 0;
		e.bucket = (uint32_t)(d < 0 ? -d : d) - 1;
		G_(msm_put)(sc, &e);
	}
	while (sc->nb > 0 || sc->nq > 0)
		G_(msm_flush_drain)(sc);

	if (sc->nseg && !sc->spilled) {
		G_(msm_reduce_affine)(sc, &((JAC *)job->results)[task]);
		return;
	}
	sc->spilled = 0;
	G_(set_inf)(&run);
	G_(set_inf)(&tot);
	for (size_t b = sc->nbuckets; b-- > 0;) {
		if (msm_bit(sc->filled, b)) {
			G_(add_affine)(&run, &run, &bk[b]);
			msm_bit_clear(sc->filled, b);
			any = 1;
		}
		if (msm_bit(sc->sided, b)) {
			G_(add)(&run, &run, &side[b]);
			msm_bit_clear(sc->sided, b);
			any = 1;
		}
		if (any)
			G_(add)(&tot, &tot, &run);
	}
	((JAC *)job->results)[task] = tot;
}

static void G_(msm_vset_inf)(void *out)
{
	G_(set_inf)(out);
}

static void G_(msm_vadd)(void *out, const void *a, const void *b)
{
	G_(add)(out, a, b);
}

static void G_(msm_vdouble)(void *out, const void *a)
{
	G_(double)(out, a);
}

static void G_(msm_naive)(JAC *out, const AFF *p, const fr_t *s, size_t n)
{
	JAC acc, t;

	G_(set_inf)(&acc);
	for (size_t i = 0; i < n; i++) {
		G_(from_affine)(&t, &p[i]);
		G_(mul)(&t, &t, &s[i]);
		G_(add)(&acc, &acc, &t);
	}
	*out = acc;
}

static const struct msm_ops G_(msm_ops) = {
	.aff_size = sizeof(AFF),
	.jac_size = sizeof(JAC),
	.field_size = sizeof(FT),
	.task = G_(msm_task),
	.set_inf = G_(msm_vset_inf),
	.add = G_(msm_vadd),
	.dbl = G_(msm_vdouble),
};

#undef MSM_PASTE_
#undef MSM_PASTE
#undef F_
#undef G_
#undef FT
#undef AFF
#undef JAC
#endif
