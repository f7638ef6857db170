/*
 * hterm_cpu: Groth16's H polynomial on the CPU, step for step as bellperson
 * computes it (see hterm.h), on top of field/ntt.
 *
 * The three input vectors go through the same two transforms independently
 * (iNTT, then coset NTT), so for larger sizes each gets its own thread;
 * PROVISOR_HTERM_THREADS=1 keeps everything on the calling thread (the
 * benchmark's single-core figure). The arithmetic is exact, so the result
 * does not depend on the threading.
 */
#include "gpuworker/hterm.h"

#include <pthread.h>
#include <assert.h>
#include <stdlib.h>

#include "field/ntt.h"

/* Below this size a thread costs more than the transforms it runs. */
#define HTERM_THREAD_MIN_LOG 12

static int (*hterm_stop)(void *);
static void *hterm_stop_arg;

void hterm_set_stop(int (*stop)(void *arg), void *arg)
{
	hterm_stop = stop;
	hterm_stop_arg = arg;
	ntt_set_stop(stop, arg);	/* and inside the transforms, between blocks */
}

/* A safe point: nothing is half-written that anyone will read. */
static int hterm_stopped(void)
{
	return hterm_stop && hterm_stop(hterm_stop_arg);
}

struct hterm_job {
	fr_t *x;
	unsigned k;
	int rc;
};

/* Evaluations on the domain -> evaluations on the coset g*domain. */
static void *hterm_to_coset(void *arg)
{
	struct hterm_job *j = arg;

	j->rc = ntt_domain_to_coset(j->x, j->k);
	return NULL;
}

static unsigned hterm_max_threads;	/* hterm_set_threads; 0 = up to 3 */

void hterm_set_threads(unsigned n)
{
	hterm_max_threads = n;
}

/* Threads besides the caller's: 0..2. */
static int hterm_threads_wanted(unsigned k)
{
	const char *s = secure_getenv("PROVISOR_HTERM_THREADS");

	if (k < HTERM_THREAD_MIN_LOG || (s && atoi(s) == 1))
		return 0;
	return hterm_max_threads == 0 || hterm_max_threads >= 3 ? 2 : (int)hterm_max_threads - 1;
}

/* Runs the three jobs, in threads when wanted; a thread that cannot be
 * started leaves its job to the calling thread. */
static int hterm_run_jobs(struct hterm_job *jobs, unsigned k)
{
	pthread_t tid[2];
	int started[2] = { 0, 0 };
	int threads = hterm_threads_wanted(k);

	for (int i = 0; i < threads; i++)
		started[i] = pthread_create(&tid[i], NULL, hterm_to_coset,
					    &jobs[i + 1]) == 0;
	hterm_to_coset(&jobs[0]);
	for (int i = 0; i < 2; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			hterm_to_coset(&jobs[i + 1]);
	}
	if (jobs[0].rc < 0 || jobs[1].rc < 0 || jobs[2].rc < 0)
		return -1;
	return jobs[0].rc || jobs[1].rc || jobs[2].rc ? HTERM_STOPPED : 0;
}

int hterm_cpu(fr_t *a, fr_t *b, fr_t *c, unsigned k)
{
	struct hterm_job jobs[3] = {
		{ a, k, 0 }, { b, k, 0 }, { c, k, 0 },
	};
	fr_t zinv, gn;

	if (k < 1 || k > VOCAB_LOG_MAX)
		return -1;
	size_t n = (size_t)1 << k;
	if (hterm_stopped())
		return HTERM_STOPPED;
	int rc = hterm_run_jobs(jobs, k);
	if (rc)
		return rc;
	if (hterm_stopped())
		return HTERM_STOPPED;

	/* Z(x) = x^n - 1 is the constant g^n - 1 on the coset g*domain
	 * (non-zero: 7 is a non-residue, so g^n != 1 for n <= 2^32). */
	fr_pow_u64(&gn, &FR_GENERATOR, n);
	fr_sub(&gn, &gn, &FR_ONE);
	if (fr_inv(&zinv, &gn))
		return -1;
	/* In batches for fr_muln (eight lanes at a time with IFMA). */
	enum { CHUNK = 64 };
	fr_muln_fn_t muln = fr_muln_fn();
	fr_t t[CHUNK];
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;
		muln(t, a + i, b + i, m);
		for (size_t j = 0; j < m; j++)
			fr_sub(&t[j], &t[j], &c[i + j]);
		fr_muln_const(a + i, t, &zinv, m);
	}
	if (hterm_stopped())
		return HTERM_STOPPED;
	static_assert(NTT_STOPPED == HTERM_STOPPED, "passed through");
	return ntt_coset_inverse(a, k);
}

int hterm_check_top(const fr_t *h, unsigned k)
{
	if (k < 1 || k > VOCAB_LOG_MAX)
		return 0;
	return fr_is_zero(&h[((size_t)1 << k) - 1]);
}
