/*
 * curve/fixed: many multiples s[i] * B of one base point B (the Groth16
 * setup's query vectors: up to ~2^20 of them).
 *
 * One table serves all scalars. With windows of w bits, row j holds
 * d 2^(w j) B for d = 1 .. 2^(w-1), in affine form; a scalar recoded into
 * signed digits d_j in [-(2^(w-1) - 1), 2^(w-1)] is then the sum over j of
 * +-row[j][|d_j|]: about 255 / w mixed additions and no doubling at all.
 * w is picked per call to minimise n (255/w) additions plus the table's
 * (255/w) 2^(w-1) entries, under a memory cap (FB_TABLE_MAX).
 *
 * Both the table rows and the scalars are shared out to threads in small
 * units through one atomic counter; each unit ends with a batch
 * normalisation to affine (one inversion per unit). The algorithm is
 * written once over a small table of group operations (struct fb_ops),
 * one for G1 and one for G2: the indirect call costs nothing next to a
 * mixed addition.
 */
#include "curve/curve.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FB_SCALAR_BITS 255	/* r < 2^255 */
#define FB_MAX_W 16
#define FB_TABLE_MAX ((size_t)64 << 20)	/* bytes */
#define FB_CHUNK 256	/* scalars per unit of work */

struct fb_ops {
	size_t aff, jac;	/* sizeof the affine and Jacobian point */
	void (*set_inf)(void *p);
	void (*from_affine)(void *p, const void *a);
	void (*dbl)(void *p, const void *a);
	void (*madd)(void *p, const void *a, const void *b);
	void (*aneg)(void *o, const void *a);
	int (*to_affine)(void *out, const void *a, size_t n);
};

#define FB_OPS(G)								\
	static void G##_fb_set_inf(void *p) { G##_set_inf(p); }		\
	static void G##_fb_from_affine(void *p, const void *a) { G##_from_affine(p, a); } \
	static void G##_fb_dbl(void *p, const void *a) { G##_double(p, a); }	\
	static void G##_fb_madd(void *p, const void *a, const void *b) { G##_add_affine(p, a, b); } \
	static void G##_fb_aneg(void *o, const void *a) { G##_affine_neg(o, a); } \
	static int G##_fb_to_affine(void *o, const void *a, size_t n) { return G##_batch_to_affine(o, a, n); } \
	static const struct fb_ops G##_fb_ops = {				\
		sizeof(G##_affine_t), sizeof(G##_t), G##_fb_set_inf,		\
		G##_fb_from_affine, G##_fb_dbl, G##_fb_madd, G##_fb_aneg,	\
		G##_fb_to_affine,						\
	};

FB_OPS(g1)
FB_OPS(g2)

struct fb_job {
	const struct fb_ops *ops;
	unsigned w, nwin;
	size_t rowlen;		/* 2^(w-1) entries per row */
	unsigned char *table;	/* nwin rows: row j, entry d-1 = d 2^(w j) B */
	unsigned char *bases;	/* nwin affine points 2^(w j) B */
	const fr_t *s;
	unsigned char *out;
	size_t n;
	int phase;		/* 0: build the table rows; 1: the scalars */
	size_t units, next, done;	/* next and done: atomic */
	int failed;		/* atomic */
	size_t scratch;		/* Jacobian points a worker needs */
};

/* Windows of w bits: the last one must absorb the recoding's carry. */
static unsigned fb_nwin(unsigned w)
{
	return FB_SCALAR_BITS / w + 1;
}

static unsigned fb_width(size_t n, size_t aff)
{
	unsigned best = 2;
	double best_cost = 0;

	for (unsigned w = 2; w <= FB_MAX_W; w++) {
		size_t entries = (size_t)fb_nwin(w) << (w - 1);
		if (entries * aff > FB_TABLE_MAX)
			break;
		/* a table entry: one addition and its share of a normalisation */
		double cost = (double)n * fb_nwin(w) + 2.0 * (double)entries;
		if (w == 2 || cost < best_cost) {
			best = w;
			best_cost = cost;
		}
	}
	return best;
}

/* w bits of the 4-limb v from bit pos (zeros above bit 255). */
static unsigned fb_bits(const uint64_t v[4], unsigned pos, unsigned w)
{
	unsigned limb = pos / 64, sh = pos % 64;

	if (limb >= 4)
		return 0;
	uint64_t x = v[limb] >> sh;
	if (sh + w > 64 && limb + 1 < 4)
		x |= v[limb + 1] << (64 - sh);
	return (unsigned)(x & ((1u << w) - 1));
}

/* Row r: d 2^(w r) B for d = 1 .. rowlen, by repeated mixed addition of
 * 2^(w r) B (the first of them a doubling, which madd handles). */
static int fb_row(struct fb_job *j, size_t r, unsigned char *jac)
{
	const struct fb_ops *o = j->ops;
	const unsigned char *b = j->bases + r * o->aff;

	o->from_affine(jac, b);
	for (size_t d = 1; d < j->rowlen; d++)
		o->madd(jac + d * o->jac, jac + (d - 1) * o->jac, b);
	return o->to_affine(j->table + r * j->rowlen * o->aff, jac, j->rowlen);
}

/* p = s B from the table: digits in [-(2^(w-1) - 1), 2^(w-1)]. */
static void fb_eval(const struct fb_job *j, unsigned char *p, const fr_t *s)
{
	const struct fb_ops *o = j->ops;
	union { g1_affine_t g1; g2_affine_t g2; } neg;	/* room for either */
	unsigned half = 1u << (j->w - 1), carry = 0;
	uint64_t v[4];

	fr_to_limbs(v, s);
	o->set_inf(p);
	for (unsigned win = 0; win < j->nwin; win++) {
		unsigned d = fb_bits(v, win * j->w, j->w) + carry;
		int minus = d > half;
		if (minus)
			d = (1u << j->w) - d;	/* the digit is d - 2^w */
		carry = (unsigned)minus;
		if (d == 0)
			continue;
		const unsigned char *t = j->table + (win * j->rowlen + d - 1) * o->aff;
		if (minus) {
			o->aneg(&neg, t);
			t = (const unsigned char *)&neg;
		}
		o->madd(p, p, t);
	}
}

static int fb_chunk(struct fb_job *j, size_t c, unsigned char *jac)
{
	const struct fb_ops *o = j->ops;
	size_t first = c * FB_CHUNK, cnt = j->n - first < FB_CHUNK ? j->n - first : FB_CHUNK;

	for (size_t i = 0; i < cnt; i++)
		fb_eval(j, jac + i * o->jac, &j->s[first + i]);
	return o->to_affine(j->out + first * o->aff, jac, cnt);
}

/* Takes units off the counter until none is left. A worker without its
 * scratch memory takes none: the others do its share. */
static void *fb_worker(void *arg)
{
	struct fb_job *j = arg;
	unsigned char *jac = malloc(j->scratch * j->ops->jac);

	if (!jac)
		return NULL;
	for (;;) {
		size_t u = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (u >= j->units)
			break;
		int rc = j->phase == 0 ? fb_row(j, u, jac) : fb_chunk(j, u, jac);
		if (rc != 0)
			__atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&j->done, 1, __ATOMIC_RELAXED);
	}
	free(jac);
	return NULL;
}

/* Runs one phase over up to nthreads threads, this one included. Threads
 * that cannot be started leave their share to the others. */
static int fb_phase(struct fb_job *j, int phase, size_t units, unsigned nthreads)
{
	pthread_t tid[64];
	unsigned started = 0;

	j->phase = phase;
	j->units = units;
	j->next = j->done = 0;
	if (nthreads > units)
		nthreads = (unsigned)units;
	if (nthreads > 64)
		nthreads = 64;
	while (started + 1 < nthreads && pthread_create(&tid[started], NULL, fb_worker, j) == 0)
		started++;
	fb_worker(j);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return j->failed || j->done != units ? -1 : 0;
}

static int fb_batch(const struct fb_ops *o, void *out, const void *base, const fr_t *s,
		    size_t n, unsigned threads)
{
	struct fb_job j = { .ops = o, .s = s, .out = out, .n = n };
	unsigned char *cur = NULL, *bjac = NULL;
	int rc = -1;

	if (n == 0)
		return 0;
	if (threads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		threads = c > 0 ? (unsigned)c : 1;
	}
	j.w = fb_width(n, o->aff);
	j.nwin = fb_nwin(j.w);
	j.rowlen = (size_t)1 << (j.w - 1);
	j.scratch = j.rowlen > FB_CHUNK ? j.rowlen : FB_CHUNK;
	j.table = malloc(j.nwin * j.rowlen * o->aff);
	j.bases = malloc(j.nwin * o->aff);
	bjac = malloc(j.nwin * o->jac);
	cur = malloc(o->jac);
	if (!j.table || !j.bases || !bjac || !cur)
		goto out;

	/* 2^(w r) B for every row: FB_SCALAR_BITS doublings, one inversion */
	o->from_affine(cur, base);
	for (unsigned r = 0; r < j.nwin; r++) {
		memcpy(bjac + r * o->jac, cur, o->jac);
		for (unsigned k = 0; k < j.w; k++)
			o->dbl(cur, cur);
	}
	if (o->to_affine(j.bases, bjac, j.nwin) != 0)
		goto out;

	if (fb_phase(&j, 0, j.nwin, threads) != 0)
		goto out;
	rc = fb_phase(&j, 1, (n + FB_CHUNK - 1) / FB_CHUNK, threads);
out:
	free(cur);
	free(bjac);
	free(j.bases);
	free(j.table);
	return rc;
}

int g1_fixed_base_batch(g1_affine_t *out, const g1_affine_t *base, const fr_t *s, size_t n, unsigned threads)
{
	return fb_batch(&g1_fb_ops, out, base, s, n, threads);
}

int g2_fixed_base_batch(g2_affine_t *out, const g2_affine_t *base, const fr_t *s, size_t n, unsigned threads)
{
	return fb_batch(&g2_fb_ops, out, base, s, n, threads);
}
