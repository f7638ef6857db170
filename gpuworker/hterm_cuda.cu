/*
 * hterm_cuda: Groth16's H-term on one CUDA device, bit-identical to
 * hterm_cpu (the arithmetic is exact and the transforms are the ones
 * field/ntt.h defines).
 *
 * Design: the arithmetic (hcu_fr.cuh), the per-thread work and the order of
 * the steps (hcu_hterm.cuh) are shared with host-side tests, so this file
 * holds only the CUDA mechanics: memory, copies, launches and errors.
 * Kernels are grid-stride loops over one hcu_*_at() each; a transform is a
 * bit-reversal pass and k global-memory radix-2 passes. Simple on purpose:
 * correctness first; at k = 22 the PCIe copies cost more than the kernels.
 *
 * Errors: every CUDA call is checked; the first failure is written to err
 * with cudaGetErrorString and the call returns -1, after freeing what it
 * allocated. Nothing is retried. A sticky error (illegal address, launch
 * failure, ...) poisons the context for the life of the process: it is
 * reported as such, later calls refuse to run, and hterm_cuda_sticky()
 * says so, so the worker exits non-zero and the supervisor restarts it.
 * One call at a time per process (the gpuworker owns one device).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

extern "C" {
#include "gpuworker/hterm.h"
}
#include "gpuworker/hcu_hterm.cuh"

static_assert(sizeof(hcu_fr) == sizeof(fr_t), "hcu_fr must be laid out as fr_t");

#define HCU_BLOCK 256
/* Grid-stride loops cover the rest; this bounds the grid for huge n. */
#define HCU_MAX_BLOCKS (1u << 16)

/* Set once a sticky error has been seen: the context is unusable. */
static char hcu_poison[256];

/* ---- kernels ---- */

__global__ void hcu_k_bitrev(hcu_fr *x, unsigned k)
{
	uint32_t n = 1u << k, stride = gridDim.x * blockDim.x;

	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		hcu_bitrev_at(x, i, k);
}

__global__ void hcu_k_stage(hcu_fr *x, const hcu_fr *tw, unsigned s, unsigned k)
{
	uint32_t m = 1u << (k - 1), stride = gridDim.x * blockDim.x;

	for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < m; t += stride)
		hcu_stage_at(x, tw, t, s, k);
}

__global__ void hcu_k_revscale(hcu_fr *x, unsigned k, struct hcu_pow sc)
{
	uint32_t m = (1u << (k - 1)) + 1, stride = gridDim.x * blockDim.x;

	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride)
		hcu_revscale_at(x, i, k, sc);
}

__global__ void hcu_k_pointwise(hcu_fr *a, const hcu_fr *b, const hcu_fr *c,
				uint32_t n, hcu_fr zinv)
{
	uint32_t stride = gridDim.x * blockDim.x;

	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		hcu_pointwise_at(a, b, c, i, &zinv);
}

__global__ void hcu_k_table(hcu_fr *out, struct hcu_pow t, uint32_t n)
{
	uint32_t stride = gridDim.x * blockDim.x;

	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		hcu_pow_at(&out[i], t, i);
}

/* Fault injection (PROVISOR_HTERM_CUDA_FAULT set): a store far outside
 * any allocation, so tests on a GPU can see a real sticky error reported
 * and the poisoned context refused afterwards. The address is a kernel
 * argument, so the compiler cannot reason the store away. */
__global__ void hcu_k_fault(hcu_fr *bad)
{
	bad[threadIdx.x].l[0] = 1;
}

static unsigned hcu_blocks(uint32_t work)
{
	uint32_t b = (work + HCU_BLOCK - 1) / HCU_BLOCK;

	return b < 1 ? 1 : b > HCU_MAX_BLOCKS ? HCU_MAX_BLOCKS : b;
}

/* ---- errors ---- */

/* Errors after which the context cannot be used again (CUDA runtime API
 * docs: "the process must be terminated and relaunched"). */
static int hcu_sticky_code(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchTimeout:
	case cudaErrorECCUncorrectable:
	case cudaErrorAssert:
	case cudaErrorContained:
	case cudaErrorTensorMemoryLeak:
		return 1;
	default:
		return 0;
	}
}

struct hcu_dev {
	int dev;
	unsigned k;
	const struct hcu_plan *plan;
	hcu_fr *v[3], *tw, *tab;
	char *err;
	size_t errlen;
};

static void hcu_msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Records a failed call. Sticky means in the known list: probing with
 * cudaGetLastError() would also flag runtime-initialization failures (no
 * driver, driver too old), which persist but poison nothing. An ordinary
 * error is cleared so that it does not resurface at the next call. */
static int hcu_fail(struct hcu_dev *d, const char *what, cudaError_t e)
{
	int sticky = hcu_sticky_code(e);

	if (!sticky)
		(void)cudaGetLastError();
	hcu_msg(d->err, d->errlen, "CUDA device %d, k=%u: %s: %s (%s)%s", d->dev, d->k,
		what, cudaGetErrorString(e), cudaGetErrorName(e),
		sticky ? "; sticky error: the CUDA context is unusable, restart the process" : "");
	if (sticky && !hcu_poison[0])
		snprintf(hcu_poison, sizeof(hcu_poison), "%s: %s (%s)", what,
			 cudaGetErrorString(e), cudaGetErrorName(e));
	return -1;
}

static int hcu_check(struct hcu_dev *d, cudaError_t e, const char *what)
{
	return e == cudaSuccess ? 0 : hcu_fail(d, what, e);
}

/* Launch errors (bad configuration) show at once; faults inside kernels
 * show at the next synchronizing call, which is checked too. */
static int hcu_launched(struct hcu_dev *d, const char *kernel)
{
	return hcu_check(d, cudaGetLastError(), kernel);
}

/* ---- the pipeline's operations on the device ---- */

static int hcu_op_bitrev(void *ctx, int vec)
{
	struct hcu_dev *d = (struct hcu_dev *)ctx;

	hcu_k_bitrev<<<hcu_blocks(1u << d->k), HCU_BLOCK>>>(d->v[vec], d->k);
	return hcu_launched(d, "launch hcu_k_bitrev");
}

static int hcu_op_stage(void *ctx, int vec, unsigned s)
{
	struct hcu_dev *d = (struct hcu_dev *)ctx;

	hcu_k_stage<<<hcu_blocks(1u << (d->k - 1)), HCU_BLOCK>>>(d->v[vec], d->tw, s, d->k);
	return hcu_launched(d, "launch hcu_k_stage");
}

static int hcu_op_revscale(void *ctx, int vec, int table)
{
	struct hcu_dev *d = (struct hcu_dev *)ctx;

	hcu_k_revscale<<<hcu_blocks((1u << (d->k - 1)) + 1), HCU_BLOCK>>>(
		d->v[vec], d->k, hcu_plan_pow(d->plan, d->tab, table));
	return hcu_launched(d, "launch hcu_k_revscale");
}

static int hcu_op_pointwise(void *ctx)
{
	struct hcu_dev *d = (struct hcu_dev *)ctx;

	hcu_k_pointwise<<<hcu_blocks(1u << d->k), HCU_BLOCK>>>(d->v[0], d->v[1], d->v[2],
							    1u << d->k, d->plan->zinv);
	return hcu_launched(d, "launch hcu_k_pointwise");
}

static const struct hcu_ops hcu_dev_ops = {
	hcu_op_bitrev, hcu_op_stage, hcu_op_revscale, hcu_op_pointwise,
};

/* ---- entry points ---- */

static int hcu_alloc(struct hcu_dev *d, hcu_fr **p, size_t count, const char *what)
{
	char call[64];

	snprintf(call, sizeof(call), "cudaMalloc(%s, %zu MiB)", what,
		 (count * sizeof(hcu_fr)) >> 20);
	return hcu_check(d, cudaMalloc((void **)p, count * sizeof(hcu_fr)), call);
}

/* Device memory one call needs: a, b, c, the twiddles and the plan. */
static size_t hcu_need(const struct hcu_plan *p)
{
	size_t n = (size_t)1 << p->k;

	return (3 * n + n / 2 + p->count) * sizeof(hcu_fr);
}

static int hcu_run(struct hcu_dev *d, fr_t *a, const fr_t *b, const fr_t *c)
{
	const struct hcu_plan *p = d->plan;
	size_t n = (size_t)1 << d->k, bytes = n * sizeof(hcu_fr), fr = 0, total = 0;
	const void *in[3] = { a, b, c };
	static const char *names[3] = { "a", "b", "c" };

	if (hcu_check(d, cudaSetDevice(d->dev), "cudaSetDevice") ||
	    hcu_check(d, cudaMemGetInfo(&fr, &total), "cudaMemGetInfo"))
		return -1;
	if (hcu_need(p) > fr) {
		hcu_msg(d->err, d->errlen,
			"CUDA device %d: not enough device memory for k=%u: need %zu MiB, "
			"%zu MiB free of %zu MiB", d->dev, d->k, hcu_need(p) >> 20,
			fr >> 20, total >> 20);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (hcu_alloc(d, &d->v[i], n, names[i]))
			return -1;
	if (hcu_alloc(d, &d->tw, n / 2, "twiddles") ||
	    hcu_alloc(d, &d->tab, p->count, "tables"))
		return -1;
	for (int i = 0; i < 3; i++)
		if (hcu_check(d, cudaMemcpy(d->v[i], in[i], bytes, cudaMemcpyHostToDevice),
			      "cudaMemcpy(input to device)"))
			return -1;
	if (hcu_check(d, cudaMemcpy(d->tab, p->tab, p->count * sizeof(hcu_fr),
				    cudaMemcpyHostToDevice), "cudaMemcpy(tables to device)"))
		return -1;
	hcu_k_table<<<hcu_blocks((uint32_t)(n / 2)), HCU_BLOCK>>>(
		d->tw, hcu_plan_pow(p, d->tab, HCU_TAB_W), (uint32_t)(n / 2));
	if (hcu_launched(d, "launch hcu_k_table") ||
	    hcu_hterm_drive(&hcu_dev_ops, d, d->k))
		return -1;
	if (getenv("PROVISOR_HTERM_CUDA_FAULT")) {
		hcu_k_fault<<<1, 32>>>(d->v[0] + ((size_t)1 << 40));
		if (hcu_launched(d, "launch hcu_k_fault"))
			return -1;
	}
	/* Kernel faults surface here, named as such rather than as a copy. */
	if (hcu_check(d, cudaDeviceSynchronize(), "H-term kernels (cudaDeviceSynchronize)") ||
	    hcu_check(d, cudaMemcpy(a, d->v[0], bytes, cudaMemcpyDeviceToHost),
		      "cudaMemcpy(H to host)"))
		return -1;
	return 0;
}

extern "C" int hterm_cuda(int dev, fr_t *a, const fr_t *b, const fr_t *c, unsigned k,
			  char *err, size_t errlen)
{
	struct hcu_plan plan;
	struct hcu_dev d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.dev = dev;
	d.k = k;
	d.plan = &plan;
	d.err = err;
	d.errlen = errlen;
	if (hcu_poison[0]) {
		hcu_msg(err, errlen, "CUDA context unusable after an earlier sticky error (%s); "
			"restart the process", hcu_poison);
		return -1;
	}
	if (k < 1 || k > HCU_MAX_LOG) {
		hcu_msg(err, errlen, "hterm_cuda: k=%u out of range 1..%d", k, HCU_MAX_LOG);
		return -1;
	}
	if (hcu_plan_init(&plan, k)) {
		hcu_msg(err, errlen, "hterm_cuda: out of host memory for the plan");
		return -1;
	}
	rc = hcu_run(&d, a, b, c);
	/* Free on every path. After a failure, further errors from cudaFree
	 * (the context may be gone) add nothing to the first one. */
	hcu_fr *bufs[5] = { d.v[0], d.v[1], d.v[2], d.tw, d.tab };
	for (int i = 0; i < 5; i++) {
		cudaError_t e = bufs[i] ? cudaFree(bufs[i]) : cudaSuccess;
		if (rc == 0 && e != cudaSuccess)
			rc = hcu_fail(&d, "cudaFree", e);
	}
	hcu_plan_free(&plan);
	return rc;
}

extern "C" int hterm_cuda_devices(char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess) {
		int drv = 0, rt = 0;

		/* The runtime says "insufficient driver" both when there is no
		 * driver at all and when it is too old: tell the two apart. */
		if (e == cudaErrorInsufficientDriver &&
		    cudaDriverGetVersion(&drv) == cudaSuccess &&
		    cudaRuntimeGetVersion(&rt) == cudaSuccess) {
			if (drv == 0)
				hcu_msg(err, errlen, "cudaGetDeviceCount: %s (no NVIDIA driver: "
					"libcuda.so.1 not found)", cudaGetErrorString(e));
			else
				hcu_msg(err, errlen, "cudaGetDeviceCount: %s (driver supports CUDA "
					"%d.%d, this build's runtime is %d.%d)",
					cudaGetErrorString(e), drv / 1000, (drv % 1000) / 10,
					rt / 1000, (rt % 1000) / 10);
		} else {
			hcu_msg(err, errlen, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
		}
		(void)cudaGetLastError();	/* an ordinary error: do not leave it pending */
		return -1;
	}
	if (n == 0)
		hcu_msg(err, errlen, "cudaGetDeviceCount: 0 devices");
	return n;
}

extern "C" int hterm_cuda_describe(int dev, char *buf, size_t len)
{
	struct cudaDeviceProp prop;
	int drv = 0;
	cudaError_t e = cudaGetDeviceProperties(&prop, dev);

	if (e != cudaSuccess) {
		hcu_msg(buf, len, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(e));
		(void)cudaGetLastError();
		return -1;
	}
	(void)cudaDriverGetVersion(&drv);
	hcu_msg(buf, len, "device %d: %s, sm_%d%d, %zu MiB, driver %d.%d", dev, prop.name,
		prop.major, prop.minor, (size_t)(prop.totalGlobalMem >> 20), drv / 1000,
		(drv % 1000) / 10);
	return 0;
}

extern "C" int hterm_cuda_sticky(void)
{
	return hcu_poison[0] != 0;
}
