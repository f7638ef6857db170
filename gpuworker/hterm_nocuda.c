/*
 * hterm_nocuda: the CUDA entry points of a build without CUDA (CUDA=0, no
 * nvcc, sanitizer builds). They answer "built without CUDA", so backend
 * auto falls back to the CPU and an explicit cuda says exactly why not.
 */
#include <stdio.h>
#include <string.h>

#include "gpuworker/hterm.h"

#define HTERM_NOCUDA "built without CUDA (rebuild with nvcc present, or make CUDA=1)"

int hterm_cuda(int dev, fr_t *a, const fr_t *b, const fr_t *c, unsigned k,
	       char *err, size_t errlen)
{
	(void)dev; (void)a; (void)b; (void)c; (void)k;
	snprintf(err, errlen, "%s", HTERM_NOCUDA);
	return -1;
}

int hterm_cuda_enc(int dev, void *h, const void *a, const void *b, const void *c, unsigned k,
		   unsigned how, char *err, size_t errlen)
{
	(void)dev; (void)h; (void)a; (void)b; (void)c; (void)k; (void)how;
	snprintf(err, errlen, "%s", HTERM_NOCUDA);
	return -1;
}

void hterm_cuda_times(struct hterm_cuda_times *t)
{
	memset(t, 0, sizeof(*t));
}

void hterm_cuda_fini(void)
{
}

int hterm_cuda_devices(char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", HTERM_NOCUDA);
	return -1;
}

int hterm_cuda_describe(int dev, char *buf, size_t len)
{
	(void)dev;
	snprintf(buf, len, "%s", HTERM_NOCUDA);
	return -1;
}

int hterm_cuda_sticky(void)
{
	return 0;
}
