/*
 * pcpu: see pcpu.h. One context per process (a gpuworker runs one
 * backend); the abandon ticket is checked at the H-term's stages and
 * between the MSMs' windows through their stop hooks.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "curve/msm.h"
#include "gpuworker/hterm.h"
#include "plugins/pcpu.h"

static struct {
	unsigned threads;
	_Atomic uint64_t cur;	/* the running prove's ticket; 0 between calls */
	_Atomic uint64_t stop;	/* the last ticket abandoned */
} pc;

static int pcpu_stopped(void *arg)
{
	uint64_t t = atomic_load(&pc.cur);

	(void)arg;
	return t && atomic_load(&pc.stop) == t;
}

int pcpu_init(struct provisor_be_init *in, void **ctx)
{
	pc.threads = in->threads;
	hterm_set_stop(pcpu_stopped, NULL);
	msm_set_stop(pcpu_stopped, NULL);
	hterm_set_threads(in->threads);
	if (in->desc && in->desc_len)
		snprintf(in->desc, in->desc_len, "the CPU, %u thread(s) (0: all)", in->threads);
	*ctx = &pc;
	return PROVISOR_BE_OK;
}

static int pcpu_prove_in(const struct provisor_be_part *p, struct provisor_be_out *out)
{
	int rc = hterm_cpu(p->a, p->b, p->c, p->k);

	if (rc == HTERM_STOPPED)
		return PROVISOR_BE_STOPPED;
	if (rc) {
		snprintf(out->err, out->err_len, "out of memory for the H-term at k = %u", p->k);
		return PROVISOR_BE_NOMEM;
	}
	if (!hterm_check_top(p->a, p->k)) {
		snprintf(out->err, out->err_len, "unsatisfied system: H's top coefficient is not zero");
		return PROVISOR_BE_BAD_INPUT;
	}
	if (out->h != p->a)
		memcpy(out->h, p->a, sizeof(fr_t) << p->k);
	if (!p->params)
		return PROVISOR_BE_OK;
	rc = groth16_prove(out->proof, p->params, p->z, p->a, p->r, p->s, pc.threads, NULL);
	if (rc == GROTH16_STOPPED)
		return PROVISOR_BE_STOPPED;
	if (rc) {
		snprintf(out->err, out->err_len, "out of memory for the MSMs");
		return PROVISOR_BE_NOMEM;
	}
	return PROVISOR_BE_OK;
}

int pcpu_prove(void *ctx, const struct provisor_be_part *p, struct provisor_be_out *out)
{
	(void)ctx;
	atomic_store(&pc.cur, p->ticket);
	int rc = pcpu_prove_in(p, out);
	atomic_store(&pc.cur, 0);
	return rc;
}

void pcpu_abandon(void *ctx, uint64_t ticket)
{
	(void)ctx;
	atomic_store(&pc.stop, ticket);
}

void pcpu_fini(void *ctx)
{
	(void)ctx;
	hterm_set_stop(NULL, NULL);
	msm_set_stop(NULL, NULL);
}
