/*
 * ntt: radix-2 number-theoretic transforms over Fr, natural order in and
 * out, for n = 2^k, 1 <= k <= VOCAB_LOG_MAX.
 *
 * One kernel serves all four transforms: a bit-reversal permutation, then
 * decimation-in-time stages. The inverse is the same forward kernel, since
 *   n^-1 sum_j X[j] w^(-ij) = n^-1 * forward(X)[(n - i) mod n],
 * so only forward twiddles are ever stored, and the index negation and the
 * scaling (by n^-1, or by n^-1 g^-i for the coset) share one final pass.
 *
 * Twiddles of stage h (butterflies h apart) sit contiguously at
 * tw[h .. 2h), tw[h + j] = w_(2h)^j, so every stage reads them
 * sequentially. Stages run depth first (two half-size transforms, then
 * the combining stage) so that everything below NTT_BLOCK elements is done
 * while it sits in L2, and the larger stages stay in L3 as long as they
 * fit. A size's tables are built on first use under that size's mutex and
 * published through an atomic pointer; they live as long as the process.
 */
#include "field/ntt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Elements per leaf of the depth-first recursion: 2^11 elements (64 KiB)
 * plus as many twiddles stay in a 1 MiB L2 with room to spare. */
#define NTT_BLOCK ((size_t)1 << 11)
/* Coset power tables (g^i and n^-1 g^-i, 64 bytes per element) are kept
 * up to this size; above it they are generated on the fly, one extra
 * multiplication per element, instead of holding gigabytes. */
#define NTT_COSET_TABLE_LOG 20

struct ntt_dom {
	size_t n;
	fr_t *tw;		/* tw[h + j] = w_(2h)^j, 1 <= h < n, j < h */
	fr_t n_inv;
	fr_t g_inv;		/* FR_GENERATOR^-1 */
	fr_t *coset;		/* g^i, or NULL above NTT_COSET_TABLE_LOG */
	fr_t *icoset;		/* n^-1 g^-i, likewise */
	fr_t *to_coset;		/* n^-1 g^rev(p) at p, likewise: see
				   ntt_domain_to_coset() */
};

static void ntt_bitrev(fr_t *x, unsigned k);

static _Atomic(struct ntt_dom *) ntt_doms[VOCAB_LOG_MAX + 1];
static pthread_mutex_t ntt_locks[VOCAB_LOG_MAX + 1] = {
	[0 ... VOCAB_LOG_MAX] = PTHREAD_MUTEX_INITIALIZER
};

/* The selected multiplication, called directly: fr_mul would add one more
 * indirect jump per butterfly. */
static fr_mul_fn_t ntt_mul_get(void)
{
	return fr_mul_fn();
}

/* The batch product where it beats one product at a time (IFMA), else
 * NULL: then the loops interleave each product with its additions, which
 * lets a scalar multiplier overlap them. */
static fr_muln_fn_t ntt_muln_get(void)
{
	return fr_batch_wide() ? fr_muln_fn() : NULL;
}

struct ntt_mul {
	fr_mul_fn_t one;
	fr_muln_fn_t batch;	/* NULL: use one */
};

static struct ntt_mul ntt_mul_pick(void)
{
	return (struct ntt_mul){ ntt_mul_get(), ntt_muln_get() };
}

static void *ntt_alloc(size_t count)
{
	size_t bytes = count * sizeof(fr_t);
	/* 64-byte alignment: one element never straddles two cache lines. */
	return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/* out[i] = c * r^i for i < n: a running product (exact in a field). */
static void ntt_powers(fr_t *out, size_t n, const fr_t *c, const fr_t *r)
{
	fr_mul_fn_t mul = ntt_mul_get();

	out[0] = *c;
	for (size_t i = 1; i < n; i++)
		mul(&out[i], &out[i - 1], r);
}

static struct ntt_dom *ntt_dom_build(unsigned k)
{
	size_t n = (size_t)1 << k;
	struct ntt_dom *d = calloc(1, sizeof(*d));
	fr_t w = FR_ROOT_OF_UNITY, nf;

	if (!d)
		return NULL;
	d->n = n;
	d->tw = ntt_alloc(n);
	if (!d->tw)
		goto fail;
	/* w_k = root^(2^(32-k)); the top stage is w_k^j, j < n/2, and stage h
	 * below it takes every other entry of stage 2h: w_(2h)^j = w_(4h)^(2j). */
	for (unsigned i = k; i < FR_TWO_ADICITY; i++)
		fr_sqr(&w, &w);
	d->tw[0] = FR_ZERO;
	ntt_powers(d->tw + n / 2, n / 2, &FR_ONE, &w);
	for (size_t h = n / 4; h >= 1; h /= 2)
		for (size_t j = 0; j < h; j++)
			d->tw[h + j] = d->tw[2 * h + 2 * j];

	fr_from_u64(&nf, n);
	if (fr_inv(&d->n_inv, &nf) || fr_inv(&d->g_inv, &FR_GENERATOR))
		goto fail;
	if (k <= NTT_COSET_TABLE_LOG) {
		d->coset = ntt_alloc(n);
		d->icoset = ntt_alloc(n);
		d->to_coset = ntt_alloc(n);
		if (!d->coset || !d->icoset || !d->to_coset)
			goto fail;
		ntt_powers(d->coset, n, &FR_ONE, &FR_GENERATOR);
		ntt_powers(d->icoset, n, &d->n_inv, &d->g_inv);
		ntt_powers(d->to_coset, n, &d->n_inv, &FR_GENERATOR);
		ntt_bitrev(d->to_coset, k);
	}
	return d;
fail:
	free(d->tw);
	free(d->coset);
	free(d->icoset);
	free(d->to_coset);
	free(d);
	return NULL;
}

/* The tables for 2^k, built once; NULL when k is out of range or memory
 * ran out (a later call tries again). */
static const struct ntt_dom *ntt_dom_get(unsigned k)
{
	struct ntt_dom *d;

	if (k < 1 || k > VOCAB_LOG_MAX)
		return NULL;
	d = atomic_load_explicit(&ntt_doms[k], memory_order_acquire);
	if (d)
		return d;
	pthread_mutex_lock(&ntt_locks[k]);
	d = atomic_load_explicit(&ntt_doms[k], memory_order_relaxed);
	if (!d) {
		d = ntt_dom_build(k);
		if (d)
			atomic_store_explicit(&ntt_doms[k], d, memory_order_release);
	}
	pthread_mutex_unlock(&ntt_locks[k]);
	return d;
}

/* ---- kernel ------------------------------------------------------------ */

static void ntt_bitrev(fr_t *x, unsigned k)
{
	size_t n = (size_t)1 << k;

	for (size_t i = 1, j = 0; i < n; i++) {
		/* j = bitrev(i), advanced by a reversed increment. */
		size_t bit = n >> 1;
		while (j & bit) {
			j ^= bit;
			bit >>= 1;
		}
		j |= bit;
		if (i < j) {
			fr_t t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
	}
}

/*
 * The butterfly's add and subtract, inlined: through fr_add/fr_sub they
 * cost two calls and a store-forwarding stall each, as much again as the
 * multiplication. Same arithmetic as fr.c (inputs and outputs < r; r is
 * below 2^255, so p + t never carries out of four limbs):
 *   q <- p - t (plus r when negative),   p <- p + t (minus r when >= r).
 * On x86-64 it is written out in asm: compilers spill _addcarry_u64 chains
 * to the stack and put the selects through vector registers.
 */
#if defined(__x86_64__) && !defined(NTT_PORTABLE_BUTTERFLY)
static inline void ntt_addsub(fr_t *p, fr_t *q, const fr_t *t)
{
	uint64_t a0, a1, a2, a3, b0, b1, b2, b3;

	__asm__ volatile(
		/* q = p - t; on borrow add back r (masked: no branch) */
		"movq 0(%[p]), %[b0]\n\t"
		"movq 8(%[p]), %[b1]\n\t"
		"movq 16(%[p]), %[b2]\n\t"
		"movq 24(%[p]), %[b3]\n\t"
		"subq 0(%[t]), %[b0]\n\t"
		"sbbq 8(%[t]), %[b1]\n\t"
		"sbbq 16(%[t]), %[b2]\n\t"
		"sbbq 24(%[t]), %[b3]\n\t"
		"sbbq %[a0], %[a0]\n\t"
		"movq %[r0], %[a1]\n\t"
		"andq %[a0], %[a1]\n\t"
		"movq %[r1], %[a2]\n\t"
		"andq %[a0], %[a2]\n\t"
		"movq %[r2], %[a3]\n\t"
		"andq %[a0], %[a3]\n\t"
		"andq %[r3], %[a0]\n\t"
		"addq %[a1], %[b0]\n\t"
		"adcq %[a2], %[b1]\n\t"
		"adcq %[a3], %[b2]\n\t"
		"adcq %[a0], %[b3]\n\t"
		"movq %[b0], 0(%[q])\n\t"
		"movq %[b1], 8(%[q])\n\t"
		"movq %[b2], 16(%[q])\n\t"
		"movq %[b3], 24(%[q])\n\t"
		/* p = p + t; keep p + t - r unless that borrowed */
		"movq 0(%[p]), %[a0]\n\t"
		"movq 8(%[p]), %[a1]\n\t"
		"movq 16(%[p]), %[a2]\n\t"
		"movq 24(%[p]), %[a3]\n\t"
		"addq 0(%[t]), %[a0]\n\t"
		"adcq 8(%[t]), %[a1]\n\t"
		"adcq 16(%[t]), %[a2]\n\t"
		"adcq 24(%[t]), %[a3]\n\t"
		"movq %[a0], %[b0]\n\t"
		"movq %[a1], %[b1]\n\t"
		"movq %[a2], %[b2]\n\t"
		"movq %[a3], %[b3]\n\t"
		"subq %[r0], %[b0]\n\t"
		"sbbq %[r1], %[b1]\n\t"
		"sbbq %[r2], %[b2]\n\t"
		"sbbq %[r3], %[b3]\n\t"
		"cmovncq %[b0], %[a0]\n\t"
		"cmovncq %[b1], %[a1]\n\t"
		"cmovncq %[b2], %[a2]\n\t"
		"cmovncq %[b3], %[a3]\n\t"
		"movq %[a0], 0(%[p])\n\t"
		"movq %[a1], 8(%[p])\n\t"
		"movq %[a2], 16(%[p])\n\t"
		"movq %[a3], 24(%[p])"
		: [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
		  [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3)
		: [p] "r"(p), [q] "r"(q), [t] "r"(t),
		  [r0] "m"(FR_MODULUS[0]), [r1] "m"(FR_MODULUS[1]),
		  [r2] "m"(FR_MODULUS[2]), [r3] "m"(FR_MODULUS[3])
		: "cc", "memory");
}
#else
static inline uint64_t ntt_adc(uint64_t a, uint64_t b, uint64_t *c)
{
	unsigned __int128 s = (unsigned __int128)a + b + *c;
	*c = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

static inline uint64_t ntt_sbb(uint64_t a, uint64_t b, uint64_t *c)
{
	unsigned __int128 d = (unsigned __int128)a - b - *c;
	*c = (uint64_t)(d >> 64) & 1;
	return (uint64_t)d;
}

static inline void ntt_addsub(fr_t *p, fr_t *q, const fr_t *t)
{
	const uint64_t *r = FR_MODULUS;
	uint64_t s[4], m[4], d[4], c = 0, bw = 0, keep, fix;

	for (int i = 0; i < 4; i++)
		s[i] = ntt_adc(p->l[i], t->l[i], &c);
	c = 0;
	for (int i = 0; i < 4; i++)
		m[i] = ntt_sbb(s[i], r[i], &c);
	keep = 0 - c;		/* s < r: keep s */
	for (int i = 0; i < 4; i++)
		d[i] = ntt_sbb(p->l[i], t->l[i], &bw);
	fix = 0 - bw;		/* p < t: add r back */
	c = 0;
	for (int i = 0; i < 4; i++) {
		q->l[i] = ntt_adc(d[i], r[i] & fix, &c);
		p->l[i] = (s[i] & keep) | (m[i] & ~keep);
	}
}
#endif

/* Products per batch handed to the selected fr_muln: with IFMA it takes
 * eight at a time; 64 keeps the temporaries on the stack small. */
#define NTT_CHUNK 64

/* One DIT stage over x[0 .. m): butterflies (p, q = p + h) with twiddle
 * tw[h + j]. In batches (IFMA) from 8 butterflies per group up; else, and
 * below that, the j = 0 butterfly (twiddle 1) skips its multiply. */
static void ntt_stage(fr_t *x, size_t m, size_t h, const fr_t *tw, const struct ntt_mul *mm)
{
	const fr_t *t = tw + h;
	size_t j0 = mm->batch && h >= 8 ? 0 : 1;
	fr_t u[NTT_CHUNK];

	for (size_t b = 0; b < m; b += 2 * h) {
		fr_t *p = x + b, *q = p + h;

		if (j0) {
			u[0] = q[0];
			ntt_addsub(&p[0], &q[0], &u[0]);
		}
		if (!mm->batch || j0) {
			for (size_t j = 1; j < h; j++) {
				mm->one(&u[0], &q[j], &t[j]);
				ntt_addsub(&p[j], &q[j], &u[0]);
			}
			continue;
		}
		for (size_t j = 0; j < h; j += NTT_CHUNK) {
			size_t c = h - j < NTT_CHUNK ? h - j : NTT_CHUNK;
			mm->batch(u, q + j, t + j, c);
			for (size_t i = 0; i < c; i++)
				ntt_addsub(&p[j + i], &q[j + i], &u[i]);
		}
	}
}

static int (*ntt_stop_fn)(void *);
static void *ntt_stop_arg;

void ntt_set_stop(int (*stop)(void *arg), void *arg)
{
	ntt_stop_fn = stop;
	ntt_stop_arg = arg;
}

static int ntt_stopped(void)
{
	return ntt_stop_fn && ntt_stop_fn(ntt_stop_arg);
}

/* Every stage of a transform of size m on bit-reversed x, depth first. */
static void ntt_dit(fr_t *x, size_t m, const fr_t *tw, const struct ntt_mul *mm)
{
	if (ntt_stop_fn && ntt_stopped())
		return;		/* abandoned: the caller reports NTT_STOPPED */
	if (m <= NTT_BLOCK) {
		for (size_t h = 1; h < m; h *= 2)
			ntt_stage(x, m, h, tw, mm);
		return;
	}
	ntt_dit(x, m / 2, tw, mm);
	ntt_dit(x + m / 2, m / 2, tw, mm);
	ntt_stage(x, m, m / 2, tw, mm);
}

/*
 * One decimation-in-frequency stage of the inverse-direction transform
 * (twiddles w^-j), natural order in, bit-reversed out after all stages:
 *   p <- p + q,   q <- (p - q) w_(2h)^-j = (q - p) w_(2h)^(h-j)
 * since w_(2h)^h = -1; so it reads the forward table, backwards.
 */
static void ntt_dif_stage(fr_t *x, size_t m, size_t h, const fr_t *tw, const struct ntt_mul *mm)
{
	const fr_t *t = tw + 2 * h;
	size_t j0 = mm->batch && h >= 8 ? 0 : 1;
	fr_t tr[NTT_CHUNK];	/* a batch's twiddles, in j order */

	for (size_t b = 0; b < m; b += 2 * h) {
		fr_t *p = x + b, *q = p + h, s;

		if (j0) {	/* twiddle 1: no multiply */
			s = q[0];
			ntt_addsub(&p[0], &q[0], &s);
		}
		if (!mm->batch || j0) {
			for (size_t j = 1; j < h; j++) {
				s = q[j];
				ntt_addsub(&s, &q[j], &p[j]);	/* q = q - p, s = q + p */
				p[j] = s;
				mm->one(&q[j], &q[j], t - j);
			}
			continue;
		}
		for (size_t j = 0; j < h; j += NTT_CHUNK) {
			size_t c = h - j < NTT_CHUNK ? h - j : NTT_CHUNK;
			for (size_t i = 0; i < c; i++) {
				s = q[j + i];
				ntt_addsub(&s, &q[j + i], &p[j + i]);
				p[j + i] = s;
				if (j + i)
					tr[i] = *(t - j - i);
			}
			/* j = 0 in a batch: (q - p) * w_(2h)^h = p - q, as wanted
			 * (and t - 0 is past the table at the top stage) */
			if (j == 0)
				fr_neg(&tr[0], &FR_ONE);
			mm->batch(q + j, q + j, tr, c);
		}
	}
}

/* Every DIF stage of a size-m transform, depth first (mirror of ntt_dit). */
static void ntt_dif(fr_t *x, size_t m, const fr_t *tw, const struct ntt_mul *mm)
{
	if (ntt_stop_fn && ntt_stopped())
		return;		/* abandoned: the caller reports NTT_STOPPED */
	if (m <= NTT_BLOCK) {
		for (size_t h = m / 2; h >= 1; h /= 2)
			ntt_dif_stage(x, m, h, tw, mm);
		return;
	}
	ntt_dif_stage(x, m, m / 2, tw, mm);
	ntt_dif(x, m / 2, tw, mm);
	ntt_dif(x + m / 2, m / 2, tw, mm);
}

static void ntt_run(fr_t *x, unsigned k, const struct ntt_dom *d)
{
	ntt_bitrev(x, k);
	struct ntt_mul mm = ntt_mul_pick();
	ntt_dit(x, d->n, d->tw, &mm);
}

/* x[i] *= s_i for i < n, with s_i = tab[i], or c * r^i when tab is NULL. */
static void ntt_scale(fr_t *x, size_t n, const fr_t *tab, const fr_t *c,
		      const fr_t *r)
{
	fr_mul_fn_t mul = ntt_mul_get();

	if (tab) {
		fr_muln_fn()(x, x, tab, n);
		return;
	}
	fr_t s = *c;
	for (size_t i = 0; i < n; i++) {
		mul(&x[i], &x[i], &s);
		mul(&s, &s, r);
	}
}

/* x[i] <- s_i * x[(n - i) mod n]: the index negation that turns a forward
 * transform into an inverse one, merged with its scaling. s_i = tab[i];
 * or, with tab NULL, c * r^i (r NULL: r = 1). */
static void ntt_negate_scale(fr_t *x, size_t n, const fr_t *tab,
			     const fr_t *c, const fr_t *r)
{
	fr_mul_fn_t mul = ntt_mul_get();
	fr_t lo, hi, t;

	if (tab || !r) {	/* reverse, then scale in batches */
		for (size_t i = 1; i < n / 2; i++) {
			t = x[i];
			x[i] = x[n - i];
			x[n - i] = t;
		}
		if (tab)
			fr_muln_fn()(x, x, tab, n);
		else
			fr_muln_const(x, x, c, n);
		return;
	}
	/* Two running products: s_i upwards from i = 1, s_(n-i) downwards
	 * from n - 1 (multiplying by r^-1 = the other direction's step). */
	fr_t r_inv, s_half;
	fr_pow_u64(&hi, r, n - 1);
	fr_mul(&hi, &hi, c);
	fr_pow_u64(&s_half, r, n / 2);
	fr_mul(&s_half, &s_half, c);
	if (fr_inv(&r_inv, r))
		return;		/* r is never zero here */
	mul(&x[0], &x[0], c);
	mul(&x[n / 2], &x[n / 2], &s_half);
	mul(&lo, c, r);
	for (size_t i = 1; i < n / 2; i++) {
		t = x[i];
		mul(&x[i], &x[n - i], &lo);
		mul(&x[n - i], &t, &hi);
		mul(&lo, &lo, r);
		mul(&hi, &hi, &r_inv);
	}
}

/* ---- API --------------------------------------------------------------- */

int ntt_forward(fr_t *x, unsigned k)
{
	const struct ntt_dom *d = ntt_dom_get(k);

	if (!d)
		return -1;
	ntt_run(x, k, d);
	return ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
}

int ntt_inverse(fr_t *x, unsigned k)
{
	const struct ntt_dom *d = ntt_dom_get(k);

	if (!d)
		return -1;
	ntt_run(x, k, d);
	ntt_negate_scale(x, d->n, NULL, &d->n_inv, NULL);
	return ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
}

int ntt_coset_forward(fr_t *x, unsigned k)
{
	const struct ntt_dom *d = ntt_dom_get(k);

	if (!d)
		return -1;
	ntt_scale(x, d->n, d->coset, &FR_ONE, &FR_GENERATOR);
	ntt_run(x, k, d);
	return ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
}

int ntt_coset_inverse(fr_t *x, unsigned k)
{
	const struct ntt_dom *d = ntt_dom_get(k);

	if (!d)
		return -1;
	ntt_run(x, k, d);
	ntt_negate_scale(x, d->n, d->icoset, &d->n_inv, &d->g_inv);
	return ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
}

/*
 * The inverse-direction DIF leaves n * coefficient i at position rev(i);
 * scaling position p by n^-1 g^rev(p) turns that into the coset
 * polynomial's coefficients in exactly the bit-reversed order the DIT
 * stages take, so neither transform needs a permutation pass.
 */
int ntt_domain_to_coset(fr_t *x, unsigned k)
{
	const struct ntt_dom *d = ntt_dom_get(k);

	if (!d)
		return -1;
	if (!d->to_coset)
		return ntt_inverse(x, k) < 0 || ntt_coset_forward(x, k) < 0 ? -1
			: ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
	struct ntt_mul mm = ntt_mul_pick();
	ntt_dif(x, d->n, d->tw, &mm);
	ntt_scale(x, d->n, d->to_coset, NULL, NULL);
	ntt_dit(x, d->n, d->tw, &mm);
	return ntt_stop_fn && ntt_stopped() ? NTT_STOPPED : 0;
}
