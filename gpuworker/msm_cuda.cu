/*
 * msm_cuda: the G1 MSM of gpuworker/hcu_msm.cuh on one CUDA device (API
 * and statuses: msm_cuda.h). This file holds only the mechanics: memory,
 * copies, launches and errors; the arithmetic and every phase's per-thread
 * work are the .cuh's, which tests/gpuworker/hcu_msm.c runs on the host.
 *
 * Memory. The bases stay on the device from msm_cuda_load_bases on: 104
 * bytes a point (g1_affine_t as it is, flag and padding included; 96
 * would do). A call uploads its scalars (32 bytes a point) and uses one
 * scratch allocation, kept and grown only when a call needs more: digits
 * and sorted entries, 8 bytes per point and window, 288 bytes per piece
 * of phase 5 (its two partial sums) and 144 bytes per bucket and per
 * segment sum (hcu_msm_scratch_bytes). At n = 2^24, c = 16 (16 windows):
 * 1.6 GiB of bases, 0.5 GiB of scalars, 2 GiB of digits and entries,
 * 0.3 GiB of partial sums, 80 MiB of buckets: far inside an H200's 141 GB.
 *
 * Window width for n = 2^20..2^24 (hcu_msm_default_c: c = lg n - 7, at
 * most 16): 13..16. Phase 5a has nwin n / 256 threads of 256 additions
 * whatever c is (2^16 to 2^20 threads: several per core of an H200's 132
 * SMs); c sets the buckets per window, 2^7 to 2^8 points each on random
 * scalars, so most buckets span one or two pieces. Wider windows mean
 * fewer windows (less of phases 1-5) but more buckets to reduce (6, 7);
 * none of this is measured yet.
 *
 * Launches: grid-stride kernels of 256 threads, one stream per context;
 * the counts are zeroed on it, every phase follows the last on it, and
 * the nwin window sums come back to the host, which combines them
 * (hcu_msm_combine: c doublings per window, well under a millisecond on
 * one core, where a single device thread is slow).
 *
 * What sppark and ICICLE do differently, as far as their published
 * designs go (their code was not consulted for this file; nothing is
 * copied): buckets in XYZZ coordinates; the sort is a radix sort (sppark
 * its own in shared memory, ICICLE CUB's), with digits not kept for every
 * window at once; ICICLE treats the few very large buckets separately
 * where 5b here still joins a large bucket's m / 256 partial sums in one
 * thread; the bucket reduction runs on many more threads; Montgomery
 * products in PTX with carry chains (madc.hi.cc); scalars taken from
 * pinned memory with uploads overlapped with the previous batch's
 * kernels. Those are the next steps once a device can measure them.
 *
 * Errors: every call is checked; cudaErrorMemoryAllocation is NOMEM, a
 * sticky error (the context is unusable) is DEVICE_LOST and marks the
 * context dead, so every later call refuses; anything else is INTERNAL.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpuworker/cuda_sticky.cuh"
#include "gpuworker/hcu_msm.cuh"

/* PROVISOR_BE_* (gpuworker/backend.h, which nvcc cannot include: field/fp.h's
 * FP_ZERO meets math.h's); msm_cuda.h asserts that the numbers agree. */
enum { MCU_OK = 0, MCU_NOMEM = 2, MCU_LOST = 3, MCU_BAD = 4, MCU_INTERNAL = 5 };

/* g1_affine_t, g1_t, fr_t: msm_cuda.h asserts the same sizes on the C side. */
static_assert(sizeof(hcu_g1_aff) == 104, "hcu_g1_aff laid out as g1_affine_t");
static_assert(sizeof(hcu_g1) == 144, "hcu_g1 laid out as g1_t");
static_assert(sizeof(hcu_fr) == 32, "hcu_fr laid out as fr_t");

#define MCU_BLOCK 256
#define MCU_MAX_BLOCKS (1u << 16)	/* grid-stride loops cover the rest */
#define MCU_ALIGN 256

struct msm_cuda {
	int dev;
	cudaStream_t st;
	hcu_g1_aff *bases;
	size_t nbases;
	hcu_fr *scalars;	/* nbases */
	char *scratch;		/* scratch_bytes, carved per call */
	size_t scratch_bytes;
	hcu_g1 wsum[(256 + HCU_MSM_MIN_C - 1) / HCU_MSM_MIN_C];	/* the window sums, on the host */
	char dead[256];		/* a sticky error seen: why */
};

/* ---- kernels: one thread per t, grid-stride ---- */

#define MCU_FOR(t, work) \
	for (uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; t < (work); \
	     t += (uint64_t)gridDim.x * blockDim.x)

__global__ void mcu_k_digits(struct hcu_msm_plan pl, const hcu_fr *s, int32_t *digits)
{
	MCU_FOR(t, pl.n) hcu_msm_digits_at(&pl, s, digits, (uint32_t)t);
}

__global__ void mcu_k_count(struct hcu_msm_plan pl, const int32_t *digits, uint32_t *count)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.n) hcu_msm_count_at(&pl, digits, count, t);
}

__global__ void mcu_k_scan_chunk(struct hcu_msm_plan pl, const uint32_t *count, uint32_t *csum)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.nchunk) hcu_msm_scan_chunk_at(&pl, count, csum, t);
}

__global__ void mcu_k_scan_window(struct hcu_msm_plan pl, uint32_t *csum, uint32_t *start)
{
	MCU_FOR(t, pl.nwin) hcu_msm_scan_window_at(&pl, csum, start, (uint32_t)t);
}

__global__ void mcu_k_scan_fill(struct hcu_msm_plan pl, const uint32_t *count, const uint32_t *csum,
				uint32_t *start, uint32_t *cursor)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.nchunk) hcu_msm_scan_fill_at(&pl, count, csum, start, cursor, t);
}

__global__ void mcu_k_scatter(struct hcu_msm_plan pl, const int32_t *digits, uint32_t *cursor, uint32_t *sorted)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.n) hcu_msm_scatter_at(&pl, digits, cursor, sorted, t);
}

__global__ void mcu_k_piece(struct hcu_msm_plan pl, const hcu_g1_aff *bases, const uint32_t *sorted,
			    const uint32_t *start, hcu_g1 *buckets, hcu_g1 *head, hcu_g1 *tail)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.npiece) hcu_msm_piece_at(&pl, bases, sorted, start, buckets, head, tail, t);
}

__global__ void mcu_k_bucket(struct hcu_msm_plan pl, const uint32_t *start, const hcu_g1 *head, const hcu_g1 *tail,
			     hcu_g1 *buckets)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.nb) hcu_msm_bucket_at(&pl, start, head, tail, buckets, t);
}

__global__ void mcu_k_segment(struct hcu_msm_plan pl, const hcu_g1 *buckets, hcu_g1 *run, hcu_g1 *tot)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.nseg) hcu_msm_segment_at(&pl, buckets, run, tot, t);
}

__global__ void mcu_k_group(struct hcu_msm_plan pl, const hcu_g1 *run, const hcu_g1 *tot, hcu_g1 *rsum,
			    hcu_g1 *jsum, hcu_g1 *tsum)
{
	MCU_FOR(t, (uint64_t)pl.nwin * pl.ngrp) hcu_msm_group_at(&pl, run, tot, rsum, jsum, tsum, t);
}

__global__ void mcu_k_window(struct hcu_msm_plan pl, const hcu_g1 *rsum, const hcu_g1 *jsum, const hcu_g1 *tsum,
			     hcu_g1 *wsum)
{
	MCU_FOR(t, pl.nwin) hcu_msm_window_at(&pl, rsum, jsum, tsum, wsum, (uint32_t)t);
}

static unsigned mcu_blocks(uint64_t work)
{
	uint64_t b = (work + MCU_BLOCK - 1) / MCU_BLOCK;

	return b < 1 ? 1 : b > MCU_MAX_BLOCKS ? MCU_MAX_BLOCKS : (unsigned)b;
}

/* ---- errors ---- */

/* A failed call's status, with one line in err. */
static int mcu_fail(struct msm_cuda *m, const char *what, cudaError_t e, char *err, size_t errlen)
{
	int sticky = cuda_sticky(e);

	if (!sticky)
		(void)cudaGetLastError();	/* do not leave an ordinary error pending */
	cuda_msg(err, errlen, "CUDA MSM, device %d: %s: %s (%s)%s", m ? m->dev : -1, what, cudaGetErrorString(e),
		cudaGetErrorName(e), sticky ? "; sticky error: the CUDA context is unusable" : "");
	if (sticky && m && !m->dead[0])
		snprintf(m->dead, sizeof(m->dead), "%s: %s", what, cudaGetErrorName(e));
	if (e == cudaErrorMemoryAllocation)
		return MCU_NOMEM;
	if (sticky || e == cudaErrorNoDevice || e == cudaErrorInvalidDevice || e == cudaErrorInsufficientDriver ||
	    e == cudaErrorDevicesUnavailable)
		return MCU_LOST;
	return MCU_INTERNAL;
}

#define MCU_TRY(call, what) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) \
		return mcu_fail(m, what, e_, err, errlen); \
} while (0)

/* ---- the API ---- */

extern "C" int msm_cuda_devices(char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess) {
		cuda_msg(err, errlen, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
		(void)cudaGetLastError();
		return -1;
	}
	if (n == 0)
		cuda_msg(err, errlen, "cudaGetDeviceCount: 0 devices");
	return n;
}

extern "C" void msm_cuda_close(struct msm_cuda *m)
{
	if (!m)
		return;
	if (cudaSetDevice(m->dev) == cudaSuccess) {
		cudaFree(m->bases);
		cudaFree(m->scalars);
		cudaFree(m->scratch);
		if (m->st)
			cudaStreamDestroy(m->st);
	}
	free(m);
}

extern "C" int msm_cuda_open(struct msm_cuda **ctx, int dev, char *err, size_t errlen)
{
	struct msm_cuda *m = (struct msm_cuda *)calloc(1, sizeof(*m));
	int rc;

	if (!m) {
		cuda_msg(err, errlen, "CUDA MSM: out of host memory");
		return MCU_NOMEM;
	}
	m->dev = dev;
	cudaError_t e = cudaSetDevice(dev);
	if (e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&m->st, cudaStreamNonBlocking);
	if (e != cudaSuccess) {
		rc = mcu_fail(m, "cudaSetDevice/cudaStreamCreate", e, err, errlen);
		msm_cuda_close(m);
		return rc;
	}
	*ctx = m;
	return MCU_OK;
}

/* The scratch for plan pl, grown (never shrunk) as needed. */
static int mcu_reserve(struct msm_cuda *m, const struct hcu_msm_plan *pl, char *err, size_t errlen)
{
	size_t need = (size_t)hcu_msm_scratch_bytes(pl) + 16 * MCU_ALIGN;

	if (need <= m->scratch_bytes)
		return MCU_OK;
	MCU_TRY(cudaFree(m->scratch), "cudaFree(scratch)");
	m->scratch = NULL;
	m->scratch_bytes = 0;
	MCU_TRY(cudaMalloc((void **)&m->scratch, need), "cudaMalloc(scratch)");
	m->scratch_bytes = need;
	return MCU_OK;
}

extern "C" int msm_cuda_load_bases(struct msm_cuda *m, const hcu_g1_aff *p, size_t n, char *err, size_t errlen)
{
	struct hcu_msm_plan pl;

	if (m->dead[0]) {
		cuda_msg(err, errlen, "CUDA MSM: context unusable after an earlier sticky error (%s)", m->dead);
		return MCU_LOST;
	}
	if (n == 0 || n > 0x7fffffffu) {
		cuda_msg(err, errlen, "CUDA MSM: %zu bases (1 to 2^31 - 1 are taken)", n);
		return MCU_BAD;
	}
	MCU_TRY(cudaSetDevice(m->dev), "cudaSetDevice");
	MCU_TRY(cudaFree(m->bases), "cudaFree(bases)");
	MCU_TRY(cudaFree(m->scalars), "cudaFree(scalars)");
	m->bases = NULL;
	m->scalars = NULL;
	m->nbases = 0;
	MCU_TRY(cudaMalloc((void **)&m->bases, n * sizeof(hcu_g1_aff)), "cudaMalloc(bases)");
	MCU_TRY(cudaMalloc((void **)&m->scalars, n * sizeof(hcu_fr)), "cudaMalloc(scalars)");
	hcu_msm_plan(&pl, (uint32_t)n, 0);
	int rc = mcu_reserve(m, &pl, err, errlen);
	if (rc != MCU_OK)
		return rc;
	MCU_TRY(cudaMemcpyAsync(m->bases, p, n * sizeof(hcu_g1_aff), cudaMemcpyHostToDevice, m->st),
		"upload bases");
	MCU_TRY(cudaStreamSynchronize(m->st), "upload bases (sync)");
	m->nbases = n;
	return MCU_OK;
}

/* Carves the scratch: a pointer of n T's, aligned, advancing *at. */
template <typename T> static T *mcu_carve(char **at, uint64_t n)
{
	T *p = (T *)*at;

	*at += (n * sizeof(T) + MCU_ALIGN - 1) / MCU_ALIGN * MCU_ALIGN;
	return p;
}

#define MCU_LAUNCHED(what) MCU_TRY(cudaGetLastError(), "launch " what)

extern "C" int msm_cuda_g1(struct msm_cuda *m, hcu_g1 *out, const hcu_fr *s, size_t n, unsigned c, char *err,
			   size_t errlen)
{
	struct hcu_msm_plan pl;

	if (m->dead[0]) {
		cuda_msg(err, errlen, "CUDA MSM: context unusable after an earlier sticky error (%s)", m->dead);
		return MCU_LOST;
	}
	if (n > m->nbases) {
		cuda_msg(err, errlen, "CUDA MSM: %zu points asked for, %zu bases loaded", n, m->nbases);
		return MCU_BAD;
	}
	if (n == 0) {
		hcu_g1_set_inf(out);
		return MCU_OK;
	}
	MCU_TRY(cudaSetDevice(m->dev), "cudaSetDevice");
	hcu_msm_plan(&pl, (uint32_t)n, c);
	int rc = mcu_reserve(m, &pl, err, errlen);
	if (rc != MCU_OK)
		return rc;

	uint64_t nd = (uint64_t)pl.nwin * pl.n, nbk = (uint64_t)pl.nwin * pl.nb, nsg = (uint64_t)pl.nwin * pl.nseg;
	uint64_t nck = (uint64_t)pl.nwin * pl.nchunk, ngr = (uint64_t)pl.nwin * pl.ngrp;
	uint64_t npc = (uint64_t)pl.nwin * pl.npiece;
	char *at = m->scratch;
	int32_t *digits = mcu_carve<int32_t>(&at, nd);
	uint32_t *sorted = mcu_carve<uint32_t>(&at, nd);
	uint32_t *count = mcu_carve<uint32_t>(&at, nbk);
	uint32_t *start = mcu_carve<uint32_t>(&at, nbk + pl.nwin);
	uint32_t *cursor = mcu_carve<uint32_t>(&at, nbk);
	uint32_t *csum = mcu_carve<uint32_t>(&at, nck);
	hcu_g1 *buckets = mcu_carve<hcu_g1>(&at, nbk);
	hcu_g1 *head = mcu_carve<hcu_g1>(&at, npc);
	hcu_g1 *tail = mcu_carve<hcu_g1>(&at, npc);
	hcu_g1 *run = mcu_carve<hcu_g1>(&at, nsg);
	hcu_g1 *tot = mcu_carve<hcu_g1>(&at, nsg);
	hcu_g1 *rsum = mcu_carve<hcu_g1>(&at, ngr);
	hcu_g1 *jsum = mcu_carve<hcu_g1>(&at, ngr);
	hcu_g1 *tsum = mcu_carve<hcu_g1>(&at, ngr);
	hcu_g1 *wsum = mcu_carve<hcu_g1>(&at, pl.nwin);

	/* Pageable upload (the driver stages it); the proving path should
	 * pin its scalar buffer once instead (cudaHostRegister). */
	MCU_TRY(cudaMemcpyAsync(m->scalars, s, n * sizeof(hcu_fr), cudaMemcpyHostToDevice, m->st), "upload scalars");
	MCU_TRY(cudaMemsetAsync(count, 0, nbk * sizeof(uint32_t), m->st), "zero counts");
	mcu_k_digits<<<mcu_blocks(pl.n), MCU_BLOCK, 0, m->st>>>(pl, m->scalars, digits);
	MCU_LAUNCHED("mcu_k_digits");
	mcu_k_count<<<mcu_blocks(nd), MCU_BLOCK, 0, m->st>>>(pl, digits, count);
	MCU_LAUNCHED("mcu_k_count");
	mcu_k_scan_chunk<<<mcu_blocks(nck), MCU_BLOCK, 0, m->st>>>(pl, count, csum);
	MCU_LAUNCHED("mcu_k_scan_chunk");
	mcu_k_scan_window<<<mcu_blocks(pl.nwin), MCU_BLOCK, 0, m->st>>>(pl, csum, start);
	MCU_LAUNCHED("mcu_k_scan_window");
	mcu_k_scan_fill<<<mcu_blocks(nck), MCU_BLOCK, 0, m->st>>>(pl, count, csum, start, cursor);
	MCU_LAUNCHED("mcu_k_scan_fill");
	mcu_k_scatter<<<mcu_blocks(nd), MCU_BLOCK, 0, m->st>>>(pl, digits, cursor, sorted);
	MCU_LAUNCHED("mcu_k_scatter");
	mcu_k_piece<<<mcu_blocks(npc), MCU_BLOCK, 0, m->st>>>(pl, m->bases, sorted, start, buckets, head, tail);
	MCU_LAUNCHED("mcu_k_piece");
	mcu_k_bucket<<<mcu_blocks(nbk), MCU_BLOCK, 0, m->st>>>(pl, start, head, tail, buckets);
	MCU_LAUNCHED("mcu_k_bucket");
	mcu_k_segment<<<mcu_blocks(nsg), MCU_BLOCK, 0, m->st>>>(pl, buckets, run, tot);
	MCU_LAUNCHED("mcu_k_segment");
	mcu_k_group<<<mcu_blocks(ngr), MCU_BLOCK, 0, m->st>>>(pl, run, tot, rsum, jsum, tsum);
	MCU_LAUNCHED("mcu_k_group");
	mcu_k_window<<<mcu_blocks(pl.nwin), MCU_BLOCK, 0, m->st>>>(pl, rsum, jsum, tsum, wsum);
	MCU_LAUNCHED("mcu_k_window");
	MCU_TRY(cudaMemcpyAsync(m->wsum, wsum, pl.nwin * sizeof(hcu_g1), cudaMemcpyDeviceToHost, m->st),
		"download window sums");
	MCU_TRY(cudaStreamSynchronize(m->st), "MSM kernels (sync)");
	hcu_msm_combine(&pl, m->wsum, out);
	return MCU_OK;
}
