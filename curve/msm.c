/*
 * msm: multi-scalar multiplication by Pippenger's bucket method.
 *
 * Every scalar s is cut into nwin windows with signed digits: window w
 * has c_w bits (c or c - 1: the 256 bits are shared out evenly, the wider
 * windows on top, see msm_windows) and its digit is the window of s + K
 * less 2^(c_w - 1), where K has 2^(c_w - 1) in every window (no carries
 * to chase). A digit d sends +-P to bucket |d| - 1, so a window needs at
 * most 2^(c-1) buckets; the window's sum is sum (b + 1) * bucket[b],
 * running sums from the top (batched affine additions over segments of
 * the buckets when they are many, see msm_reduce_affine), and the windows
 * are combined by c_w doublings each (Horner).
 *
 * Buckets are affine and filled by batches of additions that share one
 * inversion (Montgomery's trick): an affine addition is then about six
 * multiplications where a mixed Jacobian one is eleven. A batch never
 * holds one bucket twice; a point whose bucket is already in the batch
 * waits in a small queue for the next one; when the queue fills up (points
 * crowding into few buckets, as equal scalars do), its entries go into
 * Jacobian side buckets instead, without inversion.
 *
 * In G1, where the CPU has AVX-512 IFMA, the batches' additions (and the
 * affine reduction's) run sixteen at a time in curve/msm_ifma.c,
 * about three times as fast as one at a time with MULX; the scalar code
 * keeps the additions that double or cancel a bucket, G2, and other CPUs.
 *
 * Work is split into tasks, one per (window, chunk of points), each with
 * its own buckets; workers take tasks from a shared counter. The window
 * width and the chunk count come from a cost model over n and the thread
 * count (msm_plan). The algorithm is written once in curve/msm_priv.h and
 * instantiated here for G1 over Fp and G2 over Fp2.
 *
 * G1's endomorphism (GLV: s = s0 + s1 z^2, two 128-bit halves) is not
 * used: it halves the windows but doubles the points, so the bucket
 * additions, nearly all of the time, stay as many; only the windows'
 * reductions (2 to 3% of a 2^20 MSM) would halve.
 */
#include "curve/msm.h"
#include "curve/msm_priv.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field/fp2.h"

/* Cost model, in base-field multiplications: a batched affine addition
 * into a bucket without its share of the inversion, an inversion (7 us
 * against 36 ns for a product on the Zen 3 this was tuned on), the two
 * Jacobian additions per bucket of the Jacobian running sum, and a
 * Jacobian addition. */
#define MSM_COST_ADD 7.0
#define MSM_COST_INV 200.0
#define MSM_COST_BUCKET 26
#define MSM_COST_JAC 16
/* A bucket addition costs about 100 ns more (2.5 products) once the
 * buckets outgrow the core's L2: measured on a Zen 3 core (512 KiB L2,
 * from 2^13 G1 buckets, c = 14, up: at 2^18 and 2^20 points c = 16 then
 * cost as much as c = 13 with 4 windows more). The threshold is the
 * first c whose 2^(c-1) G1 buckets do not fit in this machine's L2
 * (msm_miss_min_c; 512 KiB when the size is unknown), so a core with a
 * 1 MiB L2 (Zen 4 and 5) pays it from c = 15. G2's buckets are twice the
 * size; the same threshold is kept for both. */
#define MSM_COST_MISS 2.5
/* The IFMA kernel makes a bucket addition about three times cheaper but
 * leaves the same choices best: on one Zen 5 core the plan's widths (c =
 * 13 at 2^16, 14 at 2^18 to 2^22) were within noise of the best forced
 * ones (13 to 14, 14 to 15, 14 to 15, 14 to 16), so one model serves both
 * paths. */
#define MSM_L2_DEFAULT (512u << 10)
#define MSM_AFFINE_MIN_C 10	/* affine reduction from 2^9 buckets up */
#define MSM_BATCH_MAX 1024	/* additions sharing one inversion */
#define MSM_RECODE_STEP 4096	/* points per recoding work item */
#define MSM_PREFETCH 32	/* buckets are fetched this many points ahead */

enum { MSM_ADD, MSM_DOUBLE, MSM_CANCEL, MSM_SKIP, MSM_COPY };

/* One worker's buckets and batch; reused across its tasks. */
struct msm_scratch {
	void *buckets;		/* nbuckets affine points */
	uint64_t *filled;	/* bit b: bucket b holds a point */
	uint64_t *busy;		/* bit b: bucket b has an entry in the batch */
	void *side;		/* nbuckets Jacobian points */
	uint64_t *sided;	/* bit b: side bucket b holds a point */
	struct msm_entry *batch, *queue;
	void *prefix, *den;	/* max(bcap, nseg) field elements each */
	void *run, *tot;	/* nseg affine points each (msm_reduce_affine) */
	struct msm_entry *ord;	/* nseg: msm_vec_add's share for the kernel (IFMA) */
	void *vec;		/* msm_ifma_add's scratch; NULL: no IFMA */
	uint8_t *kind;		/* nseg */
	size_t nbuckets, nb, bcap, nq, qcap;
	size_t nseg;		/* segments of the affine reduction; 0: Jacobian */
	int spilled;		/* this task used side buckets */
};

struct msm_job;

struct msm_ops {
	size_t aff_size, jac_size, field_size;
	void (*task)(const struct msm_job *job, struct msm_scratch *sc, size_t task);
	void (*set_inf)(void *out);
	void (*add)(void *out, const void *a, const void *b);
	void (*dbl)(void *out, const void *a);
};

struct msm_job {
	const struct msm_ops *ops;
	const void *points;
	const fr_t *s;
	size_t n, chunk, ntasks;
	struct msm_plan pl;
	int16_t *digits;	/* [nwin][n] */
	uint64_t offset[5];	/* K: 2^(c_w - 1) in every window w */
	uint16_t wbit[MSM_MAX_WIN + 1];	/* window w: bits [wbit[w], wbit[w + 1]) */
	void *results;		/* ntasks Jacobian points */
	struct msm_scratch *scratch;	/* one per worker */
	atomic_size_t next;	/* the next work item */
	atomic_uint worker;	/* the next worker's index */
	atomic_int *stopped;	/* the stop hook said stop: the rest is skipped */
};

/* The safe points' hook (msm_set_stop): asked between tasks and every
 * MSM_STOP_EVERY points within one. */
#define MSM_STOP_EVERY (1u << 14)
static int (*msm_stop_fn)(void *);
static void *msm_stop_arg;

void msm_set_stop(int (*fn)(void *arg), void *arg)
{
	msm_stop_fn = fn;
	msm_stop_arg = arg;
}

static int msm_should_stop(const struct msm_job *job)
{
	if (atomic_load_explicit(job->stopped, memory_order_relaxed))
		return 1;
	if (msm_stop_fn && msm_stop_fn(msm_stop_arg)) {
		atomic_store(job->stopped, 1);
		return 1;
	}
	return 0;
}

static inline int msm_bit(const uint64_t *m, size_t b)
{
	return (int)(m[b >> 6] >> (b & 63)) & 1;
}

static inline void msm_bit_set(uint64_t *m, size_t b)
{
	m[b >> 6] |= 1ULL << (b & 63);
}

static inline void msm_bit_clear(uint64_t *m, size_t b)
{
	m[b >> 6] &= ~(1ULL << (b & 63));
}

static int msm_ifma_off;

/* The IFMA kernel for G1 where the CPU has it, unless the tests turned it
 * off or fp was forced onto its portable path. */
static int msm_ifma_on(void)
{
	return !msm_ifma_off && msm_ifma_usable() && strcmp(fp_impl_name(), "adx") == 0;
}

int msm_use_ifma(int on)
{
	msm_ifma_off = !on;
	return msm_ifma_on();
}

#define MSM_G g1
#define MSM_F fp
#define MSM_F_ONE FP_ONE
#define MSM_VEC msm_ifma_add
#include "curve/msm_priv.h"
#undef MSM_G
#undef MSM_F
#undef MSM_F_ONE
#undef MSM_VEC

#define MSM_G g2
#define MSM_F fp2
#define MSM_F_ONE FP2_ONE
#include "curve/msm_priv.h"
#undef MSM_G
#undef MSM_F
#undef MSM_F_ONE

/*
 * Windows for width c: s + K must stay below 2^(nwin c), or the top digit
 * would lose a carry. With K < 2^(nwin c) * 2^(c-1) / (2^c - 1) and
 * r < 0.454 * 2^256, nwin c >= 256 is enough for every c from 3 up
 * (checked for each in the tests with s = r - 1); c = 2 needs a bit more.
 */
static unsigned msm_nwin(unsigned c)
{
	return (256 + c - 1) / c + (c == 2);
}

/*
 * The windows' bits. nwin windows of c bits cover more than the scalars'
 * 255 (c = 14: 19 windows, 266 bits), and with equal widths the top
 * window would hold the last few bits only: its digits fall on a handful
 * of buckets, which every point then crowds into (c = 14: eight buckets,
 * n points), a queue that overflows, and Jacobian side buckets for the
 * whole window, a tenth of a 2^20 MSM's time. So the bits are shared out
 * evenly: nwin windows over 256 bits, the wider ones (c bits) on top, so
 * that every window's digits spread over at least half its buckets. The
 * top window has at least 4 bits from c = 4 up, which keeps s + K below
 * 2^256 (its 2^(c_top - 1) leaves room for r and the lower windows' part
 * of K); c = 2 and 3 keep their equal widths over nwin c bits.
 */
static void msm_windows(struct msm_job *job)
{
	unsigned nwin = job->pl.nwin, c = job->pl.c, total = c < 4 ? nwin * c : 256;
	unsigned base = total / nwin, wide = total % nwin, bit = 0;

	for (unsigned w = 0; w < nwin; w++) {
		unsigned cw = base + (w >= nwin - wide);

		job->wbit[w] = (uint16_t)bit;
		bit += cw;
		job->offset[(bit - 1) / 64] |= 1ULL << ((bit - 1) % 64);
	}
	job->wbit[nwin] = (uint16_t)bit;
}

/* Additions per batch: large, to spread the inversion thin, but a quarter
 * of the buckets at most, so that few points find theirs already taken
 * (an eighth of them on average, while the batch fills). */
static size_t msm_batch(unsigned c)
{
	size_t b = ((size_t)1 << (c - 1)) / 4;

	return b > MSM_BATCH_MAX ? MSM_BATCH_MAX : b < 4 ? 4 : b;
}

/* Segments of the affine reduction (msm_reduce_affine): S near
 * sqrt(8 m) for m buckets balances its inversions (2 per step, m / S
 * steps) against its Jacobian tail (about 3 S additions). 0: Jacobian
 * running sum, cheaper for few buckets. */
static size_t msm_segments(unsigned c)
{
	return c < MSM_AFFINE_MIN_C ? 0 : (size_t)1 << ((c + 2) / 2);
}

/* Modelled cost of a window's reduction over its 2^(c-1) buckets. */
static double msm_reduce_cost(unsigned c)
{
	double m = (double)(1u << (c - 1)), S = (double)msm_segments(c);

	if (S == 0)
		return m * MSM_COST_BUCKET;
	return m * (2 * MSM_COST_ADD + 2 * MSM_COST_INV / S) + 3 * S * MSM_COST_JAC;
}

/* The first window width whose G1 buckets outgrow L2. */
static unsigned msm_miss_min_c(void)
{
	static _Atomic unsigned cached;
	unsigned c = atomic_load_explicit(&cached, memory_order_relaxed);
	long l2;

	if (c)
		return c;
	l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (l2 <= 0)
		l2 = MSM_L2_DEFAULT;
	for (c = 2; c < MSM_MAX_C && ((size_t)1 << (c - 1)) * sizeof(g1_affine_t) <= (size_t)l2; c++)
		;
	atomic_store_explicit(&cached, c, memory_order_relaxed);
	return c;
}

static unsigned msm_threads(unsigned threads)
{
	long n;

	if (threads)
		return threads;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/*
 * The plan of least modelled wall time: rounds of tasks (a round is one
 * task per worker) times a task's cost, its chunk's additions plus its
 * buckets' running sum. More chunks per window balance the threads and
 * shorten a task, but each chunk pays a running sum of its own.
 */
void msm_plan(struct msm_plan *pl, size_t n, unsigned threads, unsigned c)
{
	unsigned t = msm_threads(threads), clo = 2, chi = MSM_MAX_C, miss_c = msm_miss_min_c();
	double best = -1;

	if (c)
		clo = chi = c < 2 ? 2 : c > MSM_MAX_C ? MSM_MAX_C : c;
	for (unsigned cc = clo; cc <= chi; cc++) {
		unsigned nwin = msm_nwin(cc);
		double reduce = msm_reduce_cost(cc);
		double add = MSM_COST_ADD + MSM_COST_INV / (double)msm_batch(cc) +
			     (cc >= miss_c ? MSM_COST_MISS : 0);

		for (unsigned k = 1; k <= 64 && k <= n; k++) {
			unsigned tasks = nwin * k, rounds = (tasks + t - 1) / t;
			double chunk = (double)((n + k - 1) / k);
			double cost = rounds * (chunk * add + reduce);

			if (best < 0 || cost < best) {
				best = cost;
				pl->c = cc;
				pl->nwin = nwin;
				pl->k = k;
				pl->threads = tasks < t ? tasks : t;
			}
		}
	}
	pl->batch = msm_batch(pl->c);
}

/* Runs fn on nthreads workers (the caller is one), fewer when threads
 * cannot be made: the work items are shared out through job->next. */
static void msm_parallel(struct msm_job *job, unsigned nthreads, void *(*fn)(void *))
{
	pthread_t *th = nthreads > 1 ? malloc((nthreads - 1) * sizeof(*th)) : NULL;
	unsigned started = 0;

	atomic_store(&job->next, 0);
	atomic_store(&job->worker, 0);
	while (th && started < nthreads - 1 && pthread_create(&th[started], NULL, fn, job) == 0)
		started++;
	fn(job);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* Signed digits of the scalars [lo, hi). */
static void msm_recode(struct msm_job *job, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		uint64_t v[5], carry = 0;

		fr_to_limbs(v, &job->s[i]);
		v[4] = 0;
		for (int j = 0; j < 5; j++) {
			unsigned __int128 t = (unsigned __int128)v[j] + job->offset[j] + carry;
			v[j] = (uint64_t)t;
			carry = (uint64_t)(t >> 64);
		}
		for (unsigned w = 0; w < job->pl.nwin; w++) {
			unsigned bit = job->wbit[w], c = job->wbit[w + 1] - bit, l = bit / 64, off = bit % 64;
			uint64_t x = v[l] >> off;

			if (off + c > 64)
				x |= v[l + 1] << (64 - off);
			job->digits[w * job->n + i] = (int16_t)((int)(x & ((1ULL << c) - 1)) - (1 << (c - 1)));
		}
	}
}

static void *msm_recode_worker(void *arg)
{
	struct msm_job *job = arg;
	size_t lo;

	while ((lo = atomic_fetch_add(&job->next, MSM_RECODE_STEP)) < job->n)
		msm_recode(job, lo, lo + MSM_RECODE_STEP < job->n ? lo + MSM_RECODE_STEP : job->n);
	return NULL;
}

static void *msm_task_worker(void *arg)
{
	struct msm_job *job = arg;
	struct msm_scratch *sc = &job->scratch[atomic_fetch_add(&job->worker, 1)];
	size_t task;

	while (!msm_should_stop(job) && (task = atomic_fetch_add(&job->next, 1)) < job->ntasks)
		job->ops->task(job, sc, task);
	return NULL;
}

static void msm_scratch_free(struct msm_scratch *sc)
{
	free(sc->buckets);
	free(sc->filled);
	free(sc->busy);
	free(sc->side);
	free(sc->sided);
	free(sc->batch);
	free(sc->queue);
	free(sc->prefix);
	free(sc->den);
	free(sc->run);
	free(sc->tot);
	free(sc->kind);
	free(sc->ord);
	free(sc->vec);
}

static int msm_scratch_init(struct msm_scratch *sc, const struct msm_ops *ops, const struct msm_plan *pl,
			    int vec)
{
	size_t nb = (size_t)1 << (pl->c - 1), words = (nb + 63) / 64;
	size_t nf;

	memset(sc, 0, sizeof(*sc));
	sc->nbuckets = nb;
	sc->bcap = pl->batch;
	sc->qcap = pl->batch;	/* <= bcap: a drained queue fits in one batch */
	sc->nseg = msm_segments(pl->c);
	nf = sc->nseg > sc->bcap ? sc->nseg : sc->bcap;
	sc->buckets = malloc(nb * ops->aff_size);
	sc->filled = calloc(words, sizeof(uint64_t));
	sc->busy = calloc(words, sizeof(uint64_t));
	sc->side = malloc(nb * ops->jac_size);
	sc->sided = calloc(words, sizeof(uint64_t));
	sc->batch = malloc(sc->bcap * sizeof(struct msm_entry));
	sc->queue = malloc(sc->qcap * sizeof(struct msm_entry));
	sc->prefix = malloc(nf * ops->field_size);
	sc->den = malloc(nf * ops->field_size);
	sc->run = malloc((sc->nseg + 1) * ops->aff_size);
	sc->tot = malloc((sc->nseg + 1) * ops->aff_size);
	sc->kind = malloc(sc->nseg + 1);
	if (vec) {
		sc->ord = malloc((sc->nseg + 1) * sizeof(struct msm_entry));
		sc->vec = malloc(msm_ifma_scratch_size(nf));
	}
	if (sc->buckets && sc->filled && sc->busy && sc->side && sc->sided && sc->batch && sc->queue &&
	    sc->prefix && sc->den && sc->run && sc->tot && sc->kind && (!vec || (sc->ord && sc->vec)))
		return 0;
	msm_scratch_free(sc);
	return -1;
}

/* out = sum over windows w (top first) of 2^(c w) * (the sum of w's tasks). */
static void msm_combine(const struct msm_job *job, void *out)
{
	const struct msm_ops *ops = job->ops;
	const char *res = job->results;

	ops->set_inf(out);
	for (size_t w = job->pl.nwin; w-- > 0;) {
		for (unsigned i = job->wbit[w]; i < job->wbit[w + 1] && w + 1 < job->pl.nwin; i++)
			ops->dbl(out, out);
		for (size_t j = 0; j < job->pl.k; j++)
			ops->add(out, out, res + (w * job->pl.k + j) * ops->jac_size);
	}
}

static int msm_run(const struct msm_ops *ops, void *out, const void *p, const fr_t *s,
		   size_t n, unsigned threads, unsigned c)
{
	atomic_int stopped = 0;
	struct msm_job job = { .ops = ops, .points = p, .s = s, .n = n, .stopped = &stopped };
	unsigned ready = 0;
	int rc = -1, vec = ops == &g1_msm_ops && msm_ifma_on();

	if (n == 0) {
		ops->set_inf(out);
		return 0;
	}
	msm_plan(&job.pl, n, threads, c);
	job.chunk = (n + job.pl.k - 1) / job.pl.k;
	job.ntasks = (size_t)job.pl.nwin * job.pl.k;
	msm_windows(&job);
	job.digits = malloc(job.pl.nwin * n * sizeof(int16_t));
	job.results = malloc(job.ntasks * ops->jac_size);
	job.scratch = calloc(job.pl.threads, sizeof(struct msm_scratch));
	if (!job.digits || !job.results || !job.scratch)
		goto out;
	for (; ready < job.pl.threads; ready++)
		if (msm_scratch_init(&job.scratch[ready], ops, &job.pl, vec) != 0)
			goto out;

	msm_parallel(&job, job.pl.threads, msm_recode_worker);
	msm_parallel(&job, job.pl.threads, msm_task_worker);
	if (atomic_load(&stopped)) {
		rc = MSM_STOPPED;
		goto out;
	}
	msm_combine(&job, out);
	rc = 0;
out:
	for (unsigned i = 0; i < ready; i++)
		msm_scratch_free(&job.scratch[i]);
	free(job.scratch);
	free(job.results);
	free(job.digits);
	return rc;
}

void msm_g1_naive(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n)
{
	g1_msm_naive(out, p, s, n);
}

void msm_g2_naive(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n)
{
	g2_msm_naive(out, p, s, n);
}

int msm_g1_c(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n, unsigned threads, unsigned c)
{
	return msm_run(&g1_msm_ops, out, p, s, n, threads, c);
}

int msm_g2_c(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n, unsigned threads, unsigned c)
{
	return msm_run(&g2_msm_ops, out, p, s, n, threads, c);
}

int msm_g1(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n, unsigned threads)
{
	return msm_run(&g1_msm_ops, out, p, s, n, threads, 0);
}

int msm_g2(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n, unsigned threads)
{
	return msm_run(&g2_msm_ops, out, p, s, n, threads, 0);
}
