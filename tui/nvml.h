/*
 * nvml: per-GPU device figures (utilization, memory, temperature, power)
 * from NVIDIA's NVML, loaded at run time with dlopen("libnvidia-ml.so.1").
 * No build dependency: where the library or a driver is absent, nvml_open
 * fails quietly and the views show the workers' own state only.
 */
#ifndef TUI_NVML_H
#define TUI_NVML_H

#include <stdint.h>

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
	int (*util)(void *, void *);
	int (*mem)(void *, void *);
	int (*temp)(void *, int, unsigned *);
	int (*power)(void *, unsigned *);
	int (*shutdown)(void);
};

/* 0 when NVML is usable (n->ndev devices), -ENOENT otherwise. */
int nvml_open(struct nvml *n);
/* Refresh every device's figures. */
void nvml_sample(struct nvml *n);
void nvml_close(struct nvml *n);

#endif
