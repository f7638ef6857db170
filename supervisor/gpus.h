/*
 * gpus: the fallback GPU count of `run --gpus auto`, for when `gpuworker
 * --count-devices` gives no answer: the NVIDIA driver's
 * /proc/driver/nvidia/gpus, one folder per device, filtered the way the
 * CUDA runtime filters (CUDA_VISIBLE_DEVICES; util/cudavis.h), so that the
 * count is of the devices a gpuworker would see.
 */
#ifndef SUPERVISOR_GPUS_H
#define SUPERVISOR_GPUS_H

#define SUP_GPUS_PROCFS "/proc/driver/nvidia/gpus"

/* The devices listed in dir (SUP_GPUS_PROCFS but in tests) that CUDA would
 * see under visible and order (the two variables' values, NULL when
 * unset); 0 when dir cannot be read. */
int sup_gpus_procfs(const char *dir, const char *visible, const char *order);

#endif
