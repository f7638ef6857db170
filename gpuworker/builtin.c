/*
 * builtin: the cpu and cuda backends behind gpuworker/backend.h, and the
 * loading of a plugin that provides one. The built-in ones compute H on
 * their device (hterm_run: the CUDA path exactly as before) and, when a
 * proof is wanted, the MSMs on the CPU (groth16_prove). Their safe points
 * are the H-term's stages and the MSMs' windows (hterm_set_stop,
 * msm_set_stop), which check the abandon ticket.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "curve/msm.h"
#include "gpuworker/backend.h"
#include "gpuworker/hterm.h"
#include "util/vocab.h"

const char *provisor_be_status_name(int status)
{
	static const char *const n[PROVISOR_BE_NSTATUS] = {
		[PROVISOR_BE_OK] = "ok", [PROVISOR_BE_STOPPED] = "stopped",
		[PROVISOR_BE_NOMEM] = "out of memory", [PROVISOR_BE_DEVICE_LOST] = "device lost",
		[PROVISOR_BE_BAD_INPUT] = "bad input", [PROVISOR_BE_INTERNAL] = "internal",
	};
	return status >= 0 && status < PROVISOR_BE_NSTATUS ? n[status] : "not a status";
}

/* One per process: a worker runs one backend. */
static struct {
	int be;			/* VOCAB_BACKEND_CPU or _CUDA */
	int dev;
	unsigned threads;
	_Atomic uint64_t cur;	/* the running prove's ticket, 0 between calls */
	_Atomic uint64_t stop;	/* the last ticket abandoned */
} bi;

static int bi_stopped(void *arg)
{
	uint64_t t = atomic_load(&bi.cur);

	(void)arg;
	return t && atomic_load(&bi.stop) == t;
}

static int bi_init(struct provisor_be_init *in, void **ctx)
{
	bi.dev = in->device;
	bi.threads = in->threads;
	hterm_set_stop(bi_stopped, NULL);
	msm_set_stop(bi_stopped, NULL);
	hterm_set_threads(in->threads);	/* the supervisor's share of cores (0: unbounded) */
	if (bi.be == VOCAB_BACKEND_CUDA) {
		/* The ordinal against what this process sees (CUDA_VISIBLE_DEVICES
		 * applies), here, at start: a slot given a device that is not
		 * there is disabled as a bad device, and no partition is ever
		 * charged for it (its first failure used to be cudaSetDevice's,
		 * in a partition). */
		char why[200] = "";
		int n = hterm_cuda_devices(why, sizeof why);

		if (n <= 0 || in->device < 0 || in->device >= n) {
			if (in->desc && in->desc_len)
				snprintf(in->desc, in->desc_len, "device %d: this process sees %d CUDA device(s)%s%s",
					 in->device, n > 0 ? n : 0, why[0] ? ": " : "", why);
			return PROVISOR_BE_DEVICE_LOST;
		}
		if (in->desc && in->desc_len && hterm_cuda_describe(in->device, in->desc, in->desc_len))
			return PROVISOR_BE_DEVICE_LOST;	/* its properties unreadable: not usable */
	}
	*ctx = &bi;
	return PROVISOR_BE_OK;
}

static int bi_init_cpu(struct provisor_be_init *in, void **ctx)
{
	bi.be = VOCAB_BACKEND_CPU;
	return bi_init(in, ctx);
}

static int bi_init_cuda(struct provisor_be_init *in, void **ctx)
{
	bi.be = VOCAB_BACKEND_CUDA;
	return bi_init(in, ctx);
}

static int bi_fail(const struct provisor_be_out *out, int status, const char *why)
{
	snprintf(out->err, out->err_len, "%s", why);
	return status;
}

static int bi_prove_in(const struct provisor_be_part *p, struct provisor_be_out *out)
{
	int rc = hterm_run((enum vocab_backend)bi.be, bi.dev, p->a, p->b, p->c, p->k, out->err, out->err_len);

	if (rc == HTERM_STOPPED)
		return PROVISOR_BE_STOPPED;
	if (rc && bi.be == VOCAB_BACKEND_CPU)	/* k is checked before: memory ran out */
		return PROVISOR_BE_NOMEM;
	if (rc)	/* a CUDA error: the context may be poisoned, the process ends */
		return !hterm_cuda_sticky() && strstr(out->err, "out of memory") ? PROVISOR_BE_NOMEM
										  : PROVISOR_BE_DEVICE_LOST;
	if (!hterm_check_top(p->a, p->k))
		return bi_fail(out, PROVISOR_BE_BAD_INPUT, "unsatisfied system: H's top coefficient is not "
			       "zero (a[i]*b[i] != c[i] for some row)");
	if (out->h != p->a)
		memcpy(out->h, p->a, sizeof(fr_t) << p->k);
	if (!p->params)
		return PROVISOR_BE_OK;
	rc = groth16_prove(out->proof, p->params, p->z, p->a, p->r, p->s, bi.threads, NULL);
	if (rc == GROTH16_STOPPED)
		return PROVISOR_BE_STOPPED;
	if (rc)
		return bi_fail(out, PROVISOR_BE_NOMEM, "out of memory for the MSMs");
	return PROVISOR_BE_OK;
}

static int bi_prove(void *ctx, const struct provisor_be_part *p, struct provisor_be_out *out)
{
	(void)ctx;
	atomic_store(&bi.cur, p->ticket);
	int rc = bi_prove_in(p, out);
	atomic_store(&bi.cur, 0);
	return rc;
}

static void bi_abandon(void *ctx, uint64_t ticket)
{
	(void)ctx;
	atomic_store(&bi.stop, ticket);
}

static void bi_fini(void *ctx)
{
	(void)ctx;
	hterm_set_stop(NULL, NULL);
	msm_set_stop(NULL, NULL);
	hterm_cuda_fini();	/* the per-k device contexts; none on cpu */
}

static const struct provisor_backend bi_cpu = {
	.abi_version = PROVISOR_BACKEND_ABI, .name = "cpu", .init = bi_init_cpu,
	.prove = bi_prove, .abandon = bi_abandon, .fini = bi_fini,
};
static const struct provisor_backend bi_cuda = {
	.abi_version = PROVISOR_BACKEND_ABI, .name = "cuda", .init = bi_init_cuda,
	.prove = bi_prove, .abandon = bi_abandon, .fini = bi_fini,
};

const struct provisor_backend *backend_builtin(int vocab_backend)
{
	return vocab_backend == VOCAB_BACKEND_CUDA ? &bi_cuda : vocab_backend == VOCAB_BACKEND_CPU ? &bi_cpu
											      : NULL;
}

/* The handle stays open for the process's life: the table lives in it. */
int backend_plugin_open(const char *path, const struct provisor_backend **be, char *err, size_t errlen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	provisor_backend_fn fn;
	const struct provisor_backend *t;

	if (!h) {
		snprintf(err, errlen, "plugin %s: cannot load: %s", path, dlerror());
		return -1;
	}
	*(void **)&fn = dlsym(h, PROVISOR_BACKEND_SYMBOL);
	if (!fn) {
		snprintf(err, errlen, "plugin %s: no symbol %s: not a provisor backend", path,
			 PROVISOR_BACKEND_SYMBOL);
		goto fail;
	}
	t = fn();
	if (!t) {
		snprintf(err, errlen, "plugin %s: %s returned no table", path, PROVISOR_BACKEND_SYMBOL);
		goto fail;
	}
	if (t->abi_version != PROVISOR_BACKEND_ABI) {
		snprintf(err, errlen, "plugin %s: backend ABI version %u, but this gpuworker speaks %u",
			 path, t->abi_version, PROVISOR_BACKEND_ABI);
		goto fail;
	}
	if (!t->name || !t->init || !t->prove || !t->abandon || !t->fini) {
		snprintf(err, errlen, "plugin %s: its table lacks a name or a call", path);
		goto fail;
	}
	*be = t;
	return 0;
fail:
	dlclose(h);
	return -1;
}
