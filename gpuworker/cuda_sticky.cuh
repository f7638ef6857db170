/*
 * cuda_sticky: the CUDA runtime's errors after which a context cannot be
 * used again (its docs: "the process must be terminated and
 * relaunched"), for hterm_cuda.cu and msm_cuda.cu alike: a backend that
 * meets one reports the device lost (gpuworker/backend.h) and refuses
 * every later call. Host code only; nvcc includes it.
 */
#ifndef GPUWORKER_CUDA_STICKY_CUH
#define GPUWORKER_CUDA_STICKY_CUH

#include <cuda_runtime.h>

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
