/*
 * hterm_cuda: Groth16's H-term on one CUDA device, bit-identical to
 * hterm_cpu (the arithmetic is exact and the transforms are the ones
 * field/ntt.h defines).
 *
 * Design: the arithmetic (hcu_fr.cuh), the per-thread work of a pass and
 * the order of the passes (hcu_hterm.cuh) are shared with host-side tests,
 * so this file holds only the CUDA mechanics: contexts, memory, copies,
 * streams, launches and errors.
 *
 * Kernels: one, hcu_k_pass: a block loads 2^b elements (b <= HCU_LOG_BLOCK
 * = 10) into shared memory (with the bit-reversed gather and the bytes ->
 * Montgomery conversion in an input's first pass), runs the pass's steps
 * there with a barrier after each (b radix-2 stages of a DIT or a DIF
 * transform; the coset factors; the quotient (a*b - c)/Z), and writes the
 * block back (or H, scaled, and converted to bytes if asked). Block:
 * 2^(b-1) threads, two elements and one butterfly per stage each, 2^b * 32
 * bytes of shared memory (32 KiB at b = 10). The k index bits are P =
 * ceil(k / 10) ranges; an inverse's last range and the next forward's
 * first are one pass, so the H-term's 7 transforms take 7P - 4 passes:
 * 3 at k <= 10, 10 at k = 20, 17 at k = 24 (against 7(k + 1) + 6 = 181
 * before: per transform a bit reversal and k radix-2 stages, then four
 * scalings, the quotient and the twiddle table). hcu_hterm.cuh says why
 * this order needs no bit-reversal pass and which pass does what.
 *
 * Context: per device and k, made at the first call for that k and kept
 * (HCU_CTX_MAX of them, the least recently used evicted first, and all
 * evicted before a new one is refused for want of device memory): the
 * plan and its tables, the twiddles, three work vectors and two upload
 * buffers on the device (5.5 n elements: 2.75 GiB at k = 24), two pinned
 * host slots of HCU_PIN_CHUNK bytes, two streams and their events.
 * hterm_cuda_fini() frees them all.
 *
 * Copies: the caller's vectors stay pageable (the API takes them as they
 * are); they pass through the two pinned slots in chunks, the host filling
 * one while the copy engine drains the other. Uploads run on their own
 * stream: b's and c's overlap a's and b's transforms (c waits only for a's
 * first pass to have read its upload buffer). H comes back the same way,
 * chunk by chunk, the host copying one while the next is in flight.
 *
 * Errors: every CUDA call is checked; the first failure is written to err
 * with cudaGetErrorString and the call returns -1, and the context it used
 * is freed (a later call makes a new one). Nothing is retried. A sticky
 * error (illegal address, launch failure, ...) poisons the CUDA context
 * for the life of the process: it is reported as such, later calls refuse
 * to run, and hterm_cuda_sticky() says so, so the worker exits non-zero
 * and the supervisor restarts it. One call at a time per process (the
 * gpuworker owns one device).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

extern "C" {
#include "gpuworker/hterm.h"
}
#include "gpuworker/cuda_sticky.cuh"
#include "gpuworker/hcu_hterm.cuh"

static_assert(sizeof(hcu_fr) == sizeof(fr_t), "hcu_fr must be laid out as fr_t");
static_assert(sizeof(hcu_fr) == FR_BYTES, "an element and its encoding are both 32 bytes");

#define HCU_BLOCK 256	/* the table kernel's block */
/* Grid-stride loops cover the rest; this bounds the grid for huge n. */
#define HCU_MAX_BLOCKS (1u << 16)
#define HCU_CTX_MAX 4
#define HCU_PIN_CHUNK ((size_t)16 << 20)	/* bytes per pinned slot */

/* Set once a sticky error has been seen: the context is unusable. */
static char hcu_poison[256];

/* ---- kernels ---- */

/* One pass (hcu_hterm.cuh): 2^(b-1) threads, 2^b elements of shared memory. */
__global__ void __launch_bounds__(1u << (HCU_LOG_BLOCK - 1))
hcu_k_pass(struct hcu_pass p, struct hcu_io io)
{
	extern __shared__ __align__(16) uint64_t hcu_sh[];
	hcu_fr *y = (hcu_fr *)hcu_sh;
	uint32_t blk = blockIdx.x, tau = threadIdx.x;
	unsigned steps = hcu_pass_steps(&p);

	hcu_load_at(y, &p, &io, blk, tau);
	__syncthreads();
	for (unsigned j = 0; j < steps; j++) {
		hcu_step_at(y, &p, &io, blk, tau, j);
		__syncthreads();
	}
	hcu_store_at(y, &p, &io, blk, tau);
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

/* Where a call reports: the device, the size and the caller's buffer. */
struct hcu_dev {
	int dev;
	unsigned k;
	char *err;
	size_t errlen;
};

/* Records a failed call. Sticky means in the known list: probing with
 * cudaGetLastError() would also flag runtime-initialization failures (no
 * driver, driver too old), which persist but poison nothing. An ordinary
 * error is cleared so that it does not resurface at the next call. */
static int hcu_fail(struct hcu_dev *d, const char *what, cudaError_t e)
{
	int sticky = cuda_sticky(e);

	if (!sticky)
		(void)cudaGetLastError();
	cuda_msg(d->err, d->errlen, "CUDA device %d, k=%u: %s: %s (%s)%s", d->dev, d->k,
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

/* ---- contexts ---- */

enum { HCU_EV_UP0, HCU_EV_UP1, HCU_EV_UP2, HCU_EV_FREE0, HCU_EV_FREE1, HCU_EV_SLOT0, HCU_EV_SLOT1,
       HCU_EV_T_UP, HCU_EV_T_K0, HCU_EV_T_K1, HCU_NEV };

struct hcu_ctx {
	int dev;
	unsigned k;
	uint64_t used;		/* LRU stamp */
	struct hcu_plan plan;
	hcu_fr *v[3], *up[2], *tw, *tab;	/* device */
	unsigned *bad;				/* device: an encoding >= r */
	void *pin[2];				/* host, pinned: HCU_PIN_CHUNK each */
	unsigned *bad_host;			/* host, pinned */
	unsigned slot;				/* the next pinned slot */
	cudaStream_t cs, xs;			/* compute, uploads */
	int have_streams;
	cudaEvent_t ev[HCU_NEV];
	int nev;
	unsigned enc;				/* this call: HCU_ENC_* */
	struct hcu_dev *d;			/* this call's error reporting */
	const void *in[3];			/* this call's inputs */
};

static struct hcu_ctx *hcu_ctxs[HCU_CTX_MAX];
static uint64_t hcu_clock;
static struct hterm_cuda_times hcu_times;

static uint64_t hcu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Frees what x holds, on any path; errors here add nothing to the first. */
static void hcu_ctx_free(struct hcu_ctx *x)
{
	if (!x)
		return;
	(void)cudaSetDevice(x->dev);
	if (x->have_streams) {
		(void)cudaStreamSynchronize(x->cs);
		(void)cudaStreamSynchronize(x->xs);
	}
	for (int i = 0; i < x->nev; i++)
		(void)cudaEventDestroy(x->ev[i]);
	if (x->have_streams) {
		(void)cudaStreamDestroy(x->cs);
		(void)cudaStreamDestroy(x->xs);
	}
	hcu_fr *dv[7] = { x->v[0], x->v[1], x->v[2], x->up[0], x->up[1], x->tw, x->tab };
	for (int i = 0; i < 7; i++)
		if (dv[i])
			(void)cudaFree(dv[i]);
	if (x->bad)
		(void)cudaFree(x->bad);
	for (int i = 0; i < 2; i++)
		if (x->pin[i])
			(void)cudaFreeHost(x->pin[i]);
	if (x->bad_host)
		(void)cudaFreeHost(x->bad_host);
	(void)cudaGetLastError();
	hcu_plan_free(&x->plan);
	free(x);
}

static void hcu_ctx_drop(struct hcu_ctx *x)
{
	for (int i = 0; i < HCU_CTX_MAX; i++)
		if (hcu_ctxs[i] == x)
			hcu_ctxs[i] = NULL;
	hcu_ctx_free(x);
}

/* Device memory one context needs: a, b, c, two upload buffers, the
 * twiddles and the plan's tables. */
static size_t hcu_need(const struct hcu_plan *p)
{
	size_t n = (size_t)1 << p->k;

	return (5 * n + n / 2 + p->count) * sizeof(hcu_fr) + 256;
}

static int hcu_alloc(struct hcu_dev *d, hcu_fr **p, size_t count, const char *what)
{
	char call[64];

	snprintf(call, sizeof(call), "cudaMalloc(%s, %zu MiB)", what,
		 (count * sizeof(hcu_fr)) >> 20);
	return hcu_check(d, cudaMalloc((void **)p, count * sizeof(hcu_fr)), call);
}

/* Makes x's device state: memory, streams, events, tables, twiddles. */
static int hcu_ctx_init(struct hcu_dev *d, struct hcu_ctx *x)
{
	size_t n = (size_t)1 << x->k, fr = 0, total = 0;
	const struct hcu_plan *p = &x->plan;

	if (hcu_check(d, cudaMemGetInfo(&fr, &total), "cudaMemGetInfo"))
		return -1;
	if (hcu_need(p) > fr) {
		/* Cached contexts of other sizes go first. */
		for (int i = 0; i < HCU_CTX_MAX; i++)
			if (hcu_ctxs[i] && hcu_ctxs[i]->dev == x->dev)
				hcu_ctx_drop(hcu_ctxs[i]);
		if (hcu_check(d, cudaSetDevice(x->dev), "cudaSetDevice") ||
		    hcu_check(d, cudaMemGetInfo(&fr, &total), "cudaMemGetInfo"))
			return -1;
	}
	if (hcu_need(p) > fr) {
		cuda_msg(d->err, d->errlen,
			"CUDA device %d: not enough device memory (out of memory) for k=%u: "
			"need %zu MiB, %zu MiB free of %zu MiB", d->dev, d->k, hcu_need(p) >> 20,
			fr >> 20, total >> 20);
		return -1;
	}
	static const char *names[3] = { "a", "b", "c" };
	for (int i = 0; i < 3; i++)
		if (hcu_alloc(d, &x->v[i], n, names[i]))
			return -1;
	if (hcu_alloc(d, &x->up[0], n, "upload 0") || hcu_alloc(d, &x->up[1], n, "upload 1") ||
	    hcu_alloc(d, &x->tw, n / 2, "twiddles") || hcu_alloc(d, &x->tab, p->count, "tables") ||
	    hcu_check(d, cudaMalloc((void **)&x->bad, sizeof(unsigned)), "cudaMalloc(flag)"))
		return -1;
	for (int i = 0; i < 2; i++)
		if (hcu_check(d, cudaHostAlloc(&x->pin[i], HCU_PIN_CHUNK, cudaHostAllocDefault),
			      "cudaHostAlloc(pinned slot)"))
			return -1;
	if (hcu_check(d, cudaHostAlloc((void **)&x->bad_host, sizeof(unsigned), cudaHostAllocDefault),
		      "cudaHostAlloc(flag)") ||
	    hcu_check(d, cudaStreamCreateWithFlags(&x->cs, cudaStreamNonBlocking), "cudaStreamCreate"))
		return -1;
	if (hcu_check(d, cudaStreamCreateWithFlags(&x->xs, cudaStreamNonBlocking), "cudaStreamCreate")) {
		(void)cudaStreamDestroy(x->cs);
		return -1;
	}
	x->have_streams = 1;
	for (; x->nev < HCU_NEV; x->nev++)
		if (hcu_check(d, cudaEventCreate(&x->ev[x->nev]), "cudaEventCreate"))
			return -1;
	/* Shared memory above 48 KiB needs an opt-in; 2^10 * 32 is 32 KiB. */
	static_assert((sizeof(hcu_fr) << HCU_LOG_BLOCK) <= 48 * 1024, "block fits the default");
	if (hcu_check(d, cudaMemcpyAsync(x->tab, p->tab, p->count * sizeof(hcu_fr),
					 cudaMemcpyHostToDevice, x->cs), "cudaMemcpy(tables to device)"))
		return -1;
	hcu_k_table<<<hcu_blocks((uint32_t)(n / 2)), HCU_BLOCK, 0, x->cs>>>(
		x->tw, hcu_plan_pow(p, x->tab, HCU_TAB_W), (uint32_t)(n / 2));
	if (hcu_launched(d, "launch hcu_k_table") ||
	    hcu_check(d, cudaStreamSynchronize(x->cs), "twiddles (cudaStreamSynchronize)"))
		return -1;
	return 0;
}

/* The context for (dev, k): the cached one, or a new one in the least
 * recently used place. NULL with err written on failure. */
static struct hcu_ctx *hcu_ctx_get(struct hcu_dev *d)
{
	struct hcu_ctx *x;
	int slot = 0;

	for (int i = 0; i < HCU_CTX_MAX; i++) {
		x = hcu_ctxs[i];
		if (x && x->dev == d->dev && x->k == d->k) {
			x->used = ++hcu_clock;
			return x;
		}
		if (!x || (hcu_ctxs[slot] && x->used < hcu_ctxs[slot]->used))
			slot = i;
	}
	if (hcu_ctxs[slot])
		hcu_ctx_drop(hcu_ctxs[slot]);
	x = (struct hcu_ctx *)calloc(1, sizeof(*x));
	if (!x || hcu_plan_init(&x->plan, d->k)) {
		cuda_msg(d->err, d->errlen, "hterm_cuda: out of host memory for the plan");
		free(x);
		return NULL;
	}
	x->dev = d->dev;
	x->k = d->k;
	if (hcu_ctx_init(d, x)) {
		hcu_ctx_free(x);
		return NULL;
	}
	x->used = ++hcu_clock;
	hcu_ctxs[slot] = x;
	return x;
}

/* ---- copies through the pinned slots ---- */

/* Host src (pageable) to device dst on the upload stream, then done. */
static int hcu_upload(struct hcu_ctx *x, hcu_fr *dst, const void *src, size_t bytes, cudaEvent_t done)
{
	struct hcu_dev *d = x->d;

	for (size_t off = 0; off < bytes; off += HCU_PIN_CHUNK) {
		size_t len = bytes - off < HCU_PIN_CHUNK ? bytes - off : HCU_PIN_CHUNK;
		unsigned s = x->slot++ & 1;

		/* The slot's previous copy has left it (an event never
		 * recorded counts as done). */
		if (hcu_check(d, cudaEventSynchronize(x->ev[HCU_EV_SLOT0 + s]), "upload (cudaEventSynchronize)"))
			return -1;
		memcpy(x->pin[s], (const char *)src + off, len);
		if (hcu_check(d, cudaMemcpyAsync((char *)dst + off, x->pin[s], len, cudaMemcpyHostToDevice,
						 x->xs), "cudaMemcpyAsync(input to device)") ||
		    hcu_check(d, cudaEventRecord(x->ev[HCU_EV_SLOT0 + s], x->xs), "cudaEventRecord"))
			return -1;
	}
	return hcu_check(d, cudaEventRecord(done, x->xs), "cudaEventRecord");
}

/* Device src to host dst (pageable), after the compute stream's work:
 * chunk i + 1 in flight while the host copies chunk i out. */
static int hcu_download(struct hcu_ctx *x, void *dst, const hcu_fr *src, size_t bytes)
{
	struct hcu_dev *d = x->d;
	size_t nch = (bytes + HCU_PIN_CHUNK - 1) / HCU_PIN_CHUNK;

	for (size_t i = 0; i <= nch; i++) {
		if (i < nch) {
			size_t off = i * HCU_PIN_CHUNK, len = bytes - off < HCU_PIN_CHUNK ? bytes - off : HCU_PIN_CHUNK;

			if (hcu_check(d, cudaMemcpyAsync(x->pin[i & 1], (const char *)src + off, len,
							 cudaMemcpyDeviceToHost, x->cs),
				      "cudaMemcpyAsync(H to host)") ||
			    hcu_check(d, cudaEventRecord(x->ev[HCU_EV_SLOT0 + (i & 1)], x->cs), "cudaEventRecord"))
				return -1;
		}
		if (i >= 1) {
			size_t j = i - 1, off = j * HCU_PIN_CHUNK;
			size_t len = bytes - off < HCU_PIN_CHUNK ? bytes - off : HCU_PIN_CHUNK;

			/* Kernel faults surface here, named as such rather than as a copy. */
			if (hcu_check(d, cudaEventSynchronize(x->ev[HCU_EV_SLOT0 + (j & 1)]),
				      "H-term kernels and H's copy (cudaEventSynchronize)"))
				return -1;
			memcpy((char *)dst + off, x->pin[j & 1], len);
		}
	}
	return 0;
}

/* ---- the pipeline's operations on the device ---- */

/* Vector vec's upload: a to buffer 0, b to 1, c to 0 again once a's
 * first pass has read it. The compute stream then waits for it. */
static int hcu_op_input(void *ctx, int vec)
{
	struct hcu_ctx *x = (struct hcu_ctx *)ctx;
	size_t bytes = sizeof(hcu_fr) << x->k;

	if (vec == 0 && hcu_check(x->d, cudaEventRecord(x->ev[HCU_EV_T_UP], x->xs), "cudaEventRecord"))
		return -1;
	if (vec == 2 && hcu_check(x->d, cudaStreamWaitEvent(x->xs, x->ev[HCU_EV_FREE0], 0),
				  "cudaStreamWaitEvent"))
		return -1;
	if (hcu_upload(x, x->up[hcu_upload_buf(vec)], x->in[vec], bytes, x->ev[HCU_EV_UP0 + vec]) ||
	    hcu_check(x->d, cudaStreamWaitEvent(x->cs, x->ev[HCU_EV_UP0 + vec], 0), "cudaStreamWaitEvent"))
		return -1;
	if (vec == 0 && hcu_check(x->d, cudaEventRecord(x->ev[HCU_EV_T_K0], x->cs), "cudaEventRecord"))
		return -1;
	return 0;
}

static int hcu_op_consumed(void *ctx, int vec)
{
	struct hcu_ctx *x = (struct hcu_ctx *)ctx;

	return vec == 2 ? 0 : hcu_check(x->d, cudaEventRecord(x->ev[HCU_EV_FREE0 + vec], x->cs),
					"cudaEventRecord");
}

static int hcu_op_pass(void *ctx, int vec, const struct hcu_pass *p)
{
	struct hcu_ctx *x = (struct hcu_ctx *)ctx;
	struct hcu_io io;

	memset(&io, 0, sizeof(io));
	io.x = x->v[vec];
	io.src = x->up[hcu_upload_buf(vec)];
	io.qa = x->v[0];
	io.qb = x->v[1];
	io.h = x->up[HCU_H_BUF];
	io.tw = x->tw;
	io.gs = hcu_plan_pow(&x->plan, x->tab, HCU_TAB_GS);
	io.gi = hcu_plan_pow(&x->plan, x->tab, HCU_TAB_GI);
	io.zinv = x->plan.zinv;
	io.bad = x->bad;
	hcu_k_pass<<<1u << (p->k - p->b), 1u << (p->b - 1), sizeof(hcu_fr) << p->b, x->cs>>>(*p, io);
	return hcu_launched(x->d, "launch hcu_k_pass");
}

static const struct hcu_ops hcu_dev_ops = { hcu_op_input, hcu_op_consumed, hcu_op_pass };

/* ---- entry points ---- */

static int hcu_run(struct hcu_ctx *x, void *h)
{
	struct hcu_dev *d = x->d;
	size_t bytes = sizeof(hcu_fr) << x->k;
	float up_ms = 0, k_ms = 0;

	int in_bytes = (x->enc & HCU_ENC_IN) != 0;

	if (in_bytes && hcu_check(d, cudaMemsetAsync(x->bad, 0, sizeof(unsigned), x->cs), "cudaMemsetAsync"))
		return -1;
	if (hcu_hterm_drive(&hcu_dev_ops, x, x->k, HCU_LOG_BLOCK, x->enc))
		return -1;
	if (getenv("PROVISOR_HTERM_CUDA_FAULT")) {
		hcu_k_fault<<<1, 32, 0, x->cs>>>(x->v[0] + ((size_t)1 << 40));
		if (hcu_launched(d, "launch hcu_k_fault"))
			return -1;
	}
	if (hcu_check(d, cudaEventRecord(x->ev[HCU_EV_T_K1], x->cs), "cudaEventRecord") ||
	    (in_bytes && hcu_check(d, cudaMemcpyAsync(x->bad_host, x->bad, sizeof(unsigned),
						      cudaMemcpyDeviceToHost, x->cs), "cudaMemcpyAsync(flag)")))
		return -1;
	uint64_t t0 = hcu_now_ns();
	if (hcu_download(x, h, x->up[HCU_H_BUF], bytes) ||
	    hcu_check(d, cudaStreamSynchronize(x->cs), "cudaStreamSynchronize"))
		return -1;
	hcu_times.down_ms = (hcu_now_ns() - t0) / 1e6;
	if (cudaEventElapsedTime(&up_ms, x->ev[HCU_EV_T_UP], x->ev[HCU_EV_UP2]) == cudaSuccess)
		hcu_times.up_ms = up_ms;
	if (cudaEventElapsedTime(&k_ms, x->ev[HCU_EV_T_K0], x->ev[HCU_EV_T_K1]) == cudaSuccess)
		hcu_times.kernels_ms = k_ms;
	(void)cudaGetLastError();
	hcu_times.passes = hcu_hterm_passes(x->k, HCU_LOG_BLOCK);
	if (in_bytes && *x->bad_host) {
		cuda_msg(d->err, d->errlen, "hterm_cuda: an input element's encoding is not canonical (>= r)");
		return HTERM_NONCANONICAL;
	}
	return 0;
}

/* Both entry points: in[] and h are elements (bytes 0) or encodings. */
static int hcu_call(int dev, void *h, const void *a, const void *b, const void *c, unsigned k,
		    unsigned enc, char *err, size_t errlen)
{
	struct hcu_dev d;
	struct hcu_ctx *x;
	int rc;

	memset(&d, 0, sizeof(d));
	memset(&hcu_times, 0, sizeof(hcu_times));
	d.dev = dev;
	d.k = k;
	d.err = err;
	d.errlen = errlen;
	if (hcu_poison[0]) {
		cuda_msg(err, errlen, "CUDA context unusable after an earlier sticky error (%s); "
			"restart the process", hcu_poison);
		return -1;
	}
	if (k < 1 || k > HCU_MAX_LOG) {
		cuda_msg(err, errlen, "hterm_cuda: k=%u out of range 1..%d", k, HCU_MAX_LOG);
		return -1;
	}
	uint64_t t0 = hcu_now_ns();
	if (hcu_check(&d, cudaSetDevice(dev), "cudaSetDevice") || !(x = hcu_ctx_get(&d)))
		return -1;
	hcu_times.setup_ms = (hcu_now_ns() - t0) / 1e6;
	x->d = &d;
	x->enc = enc;
	x->in[0] = a;
	x->in[1] = b;
	x->in[2] = c;
	rc = hcu_run(x, h);
	x->d = NULL;
	if (rc < 0)	/* mid-flight: whatever it holds is suspect */
		hcu_ctx_drop(x);
	return rc;
}

extern "C" int hterm_cuda(int dev, fr_t *a, const fr_t *b, const fr_t *c, unsigned k,
			  char *err, size_t errlen)
{
	return hcu_call(dev, a, a, b, c, k, 0, err, errlen);
}

static_assert(HTERM_CUDA_IN_BYTES == HCU_ENC_IN && HTERM_CUDA_OUT_BYTES == HCU_ENC_OUT, "one encoding");

extern "C" int hterm_cuda_enc(int dev, void *h, const void *a, const void *b, const void *c,
			      unsigned k, unsigned how, char *err, size_t errlen)
{
	if (how & ~(HCU_ENC_IN | HCU_ENC_OUT)) {
		cuda_msg(err, errlen, "hterm_cuda_enc: unknown bits in how (%#x)", how);
		return -1;
	}
	return hcu_call(dev, h, a, b, c, k, how, err, errlen);
}

extern "C" void hterm_cuda_times(struct hterm_cuda_times *t)
{
	*t = hcu_times;
}

extern "C" void hterm_cuda_fini(void)
{
	for (int i = 0; i < HCU_CTX_MAX; i++)
		if (hcu_ctxs[i])
			hcu_ctx_drop(hcu_ctxs[i]);
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
				cuda_msg(err, errlen, "cudaGetDeviceCount: %s (no NVIDIA driver: "
					"libcuda.so.1 not found)", cudaGetErrorString(e));
			else
				cuda_msg(err, errlen, "cudaGetDeviceCount: %s (driver supports CUDA "
					"%d.%d, this build's runtime is %d.%d)",
					cudaGetErrorString(e), drv / 1000, (drv % 1000) / 10,
					rt / 1000, (rt % 1000) / 10);
		} else {
			cuda_msg(err, errlen, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
		}
		(void)cudaGetLastError();	/* an ordinary error: do not leave it pending */
		return -1;
	}
	if (n == 0)
		cuda_msg(err, errlen, "cudaGetDeviceCount: 0 devices");
	return n;
}

extern "C" int hterm_cuda_describe(int dev, char *buf, size_t len)
{
	struct cudaDeviceProp prop;
	int drv = 0;
	cudaError_t e = cudaGetDeviceProperties(&prop, dev);

	if (e != cudaSuccess) {
		cuda_msg(buf, len, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(e));
		(void)cudaGetLastError();
		return -1;
	}
	(void)cudaDriverGetVersion(&drv);
	cuda_msg(buf, len, "device %d: %s, sm_%d%d, %zu MiB, driver %d.%d", dev, prop.name,
		prop.major, prop.minor, (size_t)(prop.totalGlobalMem >> 20), drv / 1000,
		(drv % 1000) / 10);
	return 0;
}

extern "C" int hterm_cuda_sticky(void)
{
	return hcu_poison[0] != 0;
}
