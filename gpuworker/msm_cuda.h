/*
 * msm_cuda: the G1 multi-scalar multiplication on one CUDA device, with the
 * bases resident there: loaded once (when the params load) and used by
 * every later call, which uploads only its scalars. The algorithm and its
 * phases are gpuworker/hcu_msm.cuh's (see its header); msm_cuda.cu holds
 * the device mechanics, msm_nocuda.c the stubs of a build without CUDA
 * (every call answers "built without CUDA"). Results are the same group
 * element as curve/msm.c's msm_g1 (compare them as affine points: the
 * Jacobian coordinates differ).
 *
 * Not wired into the proving path yet. That step needs: a context per
 * gpuworker opened in the cuda backend's init (gpuworker/builtin.c), the
 * proving key's G1 queries (A, B1, L, H; groth16/groth16.h) loaded with
 * msm_cuda_load_bases at params load (one context per query, or one
 * context holding them at offsets: the API would then take a base
 * offset), the G1 MSMs of groth16's prover routed here while G2's stay on
 * CPU threads in parallel, the statuses below passed through as the
 * backend's, and a safe point between the MSMs for abandon.
 *
 * Every call returns a PROVISOR_BE_* status (gpuworker/backend.h): OK,
 * NOMEM (device or pinned host memory ran out: nothing is kept
 * half-done, the call may be retried later), DEVICE_LOST (a sticky CUDA
 * error or no usable device: the context is dead, the process should
 * end), BAD_INPUT (n larger than the bases loaded, no bases), INTERNAL
 * (anything else); err gets one line when not OK. One thread at a time
 * per context.
 */
#ifndef GPUWORKER_MSM_CUDA_H
#define GPUWORKER_MSM_CUDA_H

#include <stddef.h>

#include "curve/curve.h"
#include "field/fr.h"
#include "gpuworker/backend.h"

/* msm_cuda.cu cannot include this header (field/fp.h's FP_ZERO meets
 * math.h's under nvcc) and uses these values as numbers: keep them so. */
_Static_assert(PROVISOR_BE_OK == 0 && PROVISOR_BE_NOMEM == 2 && PROVISOR_BE_DEVICE_LOST == 3 &&
	       PROVISOR_BE_BAD_INPUT == 4 && PROVISOR_BE_INTERNAL == 5, "msm_cuda.cu's status numbers");
/* The device reads g1_affine_t and writes g1_t as they are laid out here. */
_Static_assert(sizeof(g1_affine_t) == 104 && sizeof(g1_t) == 144 && sizeof(fr_t) == 32,
	       "msm_cuda.cu's point layouts");

struct msm_cuda;

/* Take device dev (creates the CUDA context and a stream). *ctx is set
 * only on OK. */
int msm_cuda_open(struct msm_cuda **ctx, int dev, char *err, size_t errlen);
/* Upload n affine bases (replacing any loaded before) and size the
 * scratch for MSMs of up to n points. */
int msm_cuda_load_bases(struct msm_cuda *ctx, const g1_affine_t *p, size_t n, char *err, size_t errlen);
/* out = sum_{i < n} s[i] * base[i] over the first n bases loaded; c = 0
 * picks the window width (hcu_msm_default_c), else forces it (2..16). */
int msm_cuda_g1(struct msm_cuda *ctx, g1_t *out, const fr_t *s, size_t n, unsigned c, char *err,
		size_t errlen);
/* Frees everything; the context may be NULL. */
void msm_cuda_close(struct msm_cuda *ctx);
/* CUDA devices that answer, or -1 with why in err (no driver, none, built
 * without CUDA). */
int msm_cuda_devices(char *err, size_t errlen);

#endif
