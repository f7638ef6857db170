/*
 * cuda_sticky: the CUDA runtime's errors after which a context cannot be
 * used again (its docs: "the process must be terminated and
 * relaunched"), for hterm_cuda.cu and msm_cuda.cu alike: a backend that
 * meets one reports the device lost (gpuworker/backend.h) and refuses
 * every later call; and cuda_msg, the one line a failed call leaves in
 * its caller's buffer. Host code only; nvcc includes it.
 */
#ifndef GPUWORKER_CUDA_STICKY_CUH
#define GPUWORKER_CUDA_STICKY_CUH

#include <stdarg.h>
#include <stdio.h>

#include <cuda_runtime.h>

/* vsnprintf into err, when the caller gave one. */
static inline void cuda_msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static inline int cuda_sticky(cudaError_t e)
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
#if CUDART_VERSION >= 12080	/* both new in CUDA 12.8 */
	case cudaErrorContained:
	case cudaErrorTensorMemoryLeak:
#endif
		return 1;
	default:
		return 0;
	}
}

#endif
