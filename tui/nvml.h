/*
 * nvml: per-GPU device figures (utilization, memory, temperature, power)
 * from NVIDIA's NVML, loaded at run time with dlopen("libnvidia-ml.so.1").
 * No build dependency: where the library or a driver is absent, nvml_open
 * fails quietly and the views show the workers' own state only.
 *
 * A slot names its GPU by CUDA ordinal; NVML numbers devices its own way
 * (by PCI bus, and blind to CUDA_VISIBLE_DEVICES). nvml_map_pid works out
 * which NVML device each ordinal is the way the CUDA runtime does
 * (util/cudavis.h), from the PCI address and UUID NVML gives for each
 * device and the CUDA variables of the supervisor's environment, which its
 * gpuworkers inherit (read from /proc/PID/environ; top's own where that is
 * not readable: another user's process). An ordinal it cannot place shows
 * no figures, never another GPU's.
 */
#ifndef TUI_NVML_H
#define TUI_NVML_H

#include <stdint.h>

#include "util/cudavis.h"

#define NVML_MAX_DEVS 64

struct nvml_dev {
	int ok;			/* figures below valid */
	unsigned util;		/* % of time a kernel ran, last sample period */
	uint64_t mem_used, mem_total;	/* bytes */
	unsigned temp_c;
	unsigned power_mw;
};

struct nvml {
	void *lib;
	unsigned ndev;
	void *dev[NVML_MAX_DEVS];	/* nvmlDevice_t handles */
	struct nvml_dev fig[NVML_MAX_DEVS];
	struct cudavis_dev info[NVML_MAX_DEVS];	/* each device's PCI address, UUID, model */
	int ord[NVML_MAX_DEVS];		/* CUDA ordinal -> index above, or CUDAVIS_UNKNOWN */
	unsigned nord;			/* ordinals CUDA sees */
	uint32_t env_pid;		/* whose environment the map follows (0: none yet) */
	int env_own;			/* 1: it was not readable, top's own was used */
	int (*util)(void *, void *);
	int (*mem)(void *, void *);
	int (*temp)(void *, int, unsigned *);
	int (*power)(void *, unsigned *);
	int (*shutdown)(void);
};

/* 0 when NVML is usable (n->ndev devices), -ENOENT otherwise. */
int nvml_open(struct nvml *n);
/* The ordinal map from process pid's CUDA_VISIBLE_DEVICES and
 * CUDA_DEVICE_ORDER (this process's own when pid's are unreadable). */
void nvml_map_pid(struct nvml *n, uint32_t pid);
/* The same from the two values given (NULL: unset). */
void nvml_map(struct nvml *n, const char *visible, const char *order);
/* CUDA ordinal gpu's figures, or NULL (no such ordinal, not placed, no
 * sample). */
const struct nvml_dev *nvml_fig(const struct nvml *n, unsigned gpu);
/* Refresh every device's figures. */
void nvml_sample(struct nvml *n);
void nvml_close(struct nvml *n);

#endif
