/*
 * msm_nocuda: the CUDA MSM's entry points in a build without CUDA (CUDA=0,
 * no nvcc, sanitizer builds): each answers "built without CUDA", as
 * hterm_nocuda.c does for the H-term, so everything links and a caller
 * learns exactly why not.
 */
#include <stdio.h>

#include "gpuworker/msm_cuda.h"

#define MSM_NOCUDA "built without CUDA (rebuild with nvcc present, or make CUDA=1)"

int msm_cuda_open(struct msm_cuda **ctx, int dev, char *err, size_t errlen)
{
	(void)ctx; (void)dev;
	snprintf(err, errlen, "%s", MSM_NOCUDA);
	return PROVISOR_BE_DEVICE_LOST;
}

int msm_cuda_load_bases(struct msm_cuda *ctx, const g1_affine_t *p, size_t n, char *err, size_t errlen)
{
	(void)ctx; (void)p; (void)n;
	snprintf(err, errlen, "%s", MSM_NOCUDA);
	return PROVISOR_BE_DEVICE_LOST;
}

int msm_cuda_g1(struct msm_cuda *ctx, g1_t *out, const fr_t *s, size_t n, unsigned c, char *err, size_t errlen)
{
	(void)ctx; (void)out; (void)s; (void)n; (void)c;
	snprintf(err, errlen, "%s", MSM_NOCUDA);
	return PROVISOR_BE_DEVICE_LOST;
}

void msm_cuda_close(struct msm_cuda *ctx)
{
	(void)ctx;
}

int msm_cuda_devices(char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", MSM_NOCUDA);
	return -1;
}
