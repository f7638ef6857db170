/*
 * curve/fixed: many multiples s[i] * B of one base point B (the Groth16
 * setup's query vectors: up to ~2^20 of them).
 *
 * One table serves all scalars. With windows of w bits, row j holds
 * d 2^(w j) B for d = 1 .. 2^(w-1), in affine form; a scalar recoded into
 * signed digits d_j in [-(2^(w-1) - 1), 2^(w-1)] is then the sum over j of
 * +-row[j][|d_j|]: about 255 / w additions and no doubling at all. w is
 * picked per call to minimise n (255/w) additions plus the table's
 * (255/w) 2^(w-1) entries, under a memory cap (FB_TABLE_MAX).
 *
 * The sums are kept affine and FB_CHUNK scalars go through the windows
 * side by side, so that one window's additions share one inversion
 * (Montgomery's trick): about 6 multiplications per addition against 11
 * for a mixed Jacobian addition, and the results need no normalisation.
 * Sharing x with the table entry (a doubling or a cancellation, which the
 * affine formula cannot do) goes the slow complete way; for B in G1 or G2
 * it can only happen in the top windows, where a partial sum may wrap
 * around r.
 *
 * Table rows, then chunks of scalars, are shared out to threads through
 * one atomic counter. The per-group code is curve/fixed_tmpl.h.
 */
#include "curve/curve.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FB_SCALAR_BITS 255	/* r < 2^255 */
#define FB_MAX_W 16
#define FB_TABLE_MAX ((size_t)64 << 20)	/* bytes */
#define FB_CHUNK 512	/* scalars per unit of work: one inversion per window */
#define FB_MAX_THREADS 64
#define FB_PREFETCH 8	/* table entries fetched ahead of their use */

struct fb_job {
	unsigned w, nwin;
	size_t rowlen;		/* 2^(w-1) entries per row */
	void *table;		/* nwin rows: row j, entry d-1 = d 2^(w j) B */
	void *bases;		/* nwin affine points 2^(w j) B */
	const fr_t *s;
	void *out;
	size_t n;
	unsigned threads;
	/* one phase: units of work, each done by unit() with scratch bytes */
	int (*unit)(struct fb_job *j, size_t u, void *scratch);
	size_t units, scratch;
	size_t next, done;	/* atomic */
	int failed;		/* atomic */
};

/* Windows of w bits: the last one must absorb the recoding's carry. */
static unsigned fb_nwin(unsigned w)
{
	return FB_SCALAR_BITS / w + 1;
}

/* w, nwin, rowlen and threads for n scalars and affine points of aff
 * bytes. A table entry costs about two additions (one to make it, its
 * share of the normalisation). */
static void fb_setup(struct fb_job *j, size_t aff)
{
	double best_cost = 0;

	j->w = 2;
	for (unsigned w = 2; w <= FB_MAX_W; w++) {
		size_t entries = (size_t)fb_nwin(w) << (w - 1);
		if (entries * aff > FB_TABLE_MAX)
			break;
		double cost = (double)j->n * fb_nwin(w) + 2.0 * (double)entries;
		if (w == 2 || cost < best_cost) {
			j->w = w;
			best_cost = cost;
		}
	}
	j->nwin = fb_nwin(j->w);
	j->rowlen = (size_t)1 << (j->w - 1);
	if (j->threads == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		j->threads = c > 0 ? (unsigned)c : 1;
	}
	if (j->threads > FB_MAX_THREADS)
		j->threads = FB_MAX_THREADS;
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

/* s as nwin signed digits in [-(2^(w-1) - 1), 2^(w-1)], least first: a
 * window above half is taken as negative and carries one into the next.
 * s < 2^255 and nwin = 255/w + 1 leave no carry out of the last. */
static void fb_digits(int32_t *d, const fr_t *s, unsigned w, unsigned nwin)
{
	uint64_t v[4];
	unsigned carry = 0;

	fr_to_limbs(v, s);
	for (unsigned win = 0; win < nwin; win++) {
		unsigned x = fb_bits(v, win * w, w) + carry;
		carry = x > 1u << (w - 1);
		d[win] = carry ? (int32_t)x - (int32_t)(1u << w) : (int32_t)x;
	}
}

/* Takes units off the counter until none is left. A worker without its
 * scratch memory takes none: the others do its share. */
static void *fb_worker(void *arg)
{
	struct fb_job *j = arg;
	void *scratch = malloc(j->scratch);

	if (!scratch)
		return NULL;
	for (;;) {
		size_t u = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (u >= j->units)
			break;
		if (j->unit(j, u, scratch) != 0)
			__atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&j->done, 1, __ATOMIC_RELAXED);
	}
	free(scratch);
	return NULL;
}

/* One phase over up to j->threads threads, this one included. Threads
 * that cannot be started leave their share to the others. */
static int fb_run(struct fb_job *j, int (*unit)(struct fb_job *, size_t, void *),
		  size_t units, size_t scratch)
{
	pthread_t tid[FB_MAX_THREADS];
	unsigned started = 0, want = j->threads < units ? j->threads : (unsigned)units;

	j->unit = unit;
	j->units = units;
	j->scratch = scratch;
	j->next = j->done = 0;
	while (started + 1 < want && pthread_create(&tid[started], NULL, fb_worker, j) == 0)
		started++;
	fb_worker(j);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return j->failed || j->done != units ? -1 : 0;
}

#include "curve/tmpl_g1.h"
#include "curve/fixed_tmpl.h"
#include "curve/tmpl_end.h"

#include "curve/tmpl_g2.h"
#include "curve/fixed_tmpl.h"
#include "curve/tmpl_end.h"
