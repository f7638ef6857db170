/*
 * nvml: NVML through dlopen (see nvml.h). Only the few entry points we need
 * are looked up, with the structures they fill declared here as NVML's
 * stable ABI defines them (nvmlUtilization_t, nvmlMemory_t), so no NVIDIA
 * header is needed to build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "tui/nvml.h"

struct nv_util { unsigned gpu, memory; };
struct nv_mem { unsigned long long total, free, used; };

int nvml_open(struct nvml *n)
{
	int (*init)(void), (*count)(unsigned *), (*handle)(unsigned, void **);
	unsigned c = 0;

	memset(n, 0, sizeof *n);
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return -ENOENT;
	*(void **)&init = dlsym(n->lib, "nvmlInit_v2");
	*(void **)&count = dlsym(n->lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(n->lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->util = dlsym(n->lib, "nvmlDeviceGetUtilizationRates");
	*(void **)&n->mem = dlsym(n->lib, "nvmlDeviceGetMemoryInfo");
	*(void **)&n->temp = dlsym(n->lib, "nvmlDeviceGetTemperature");
	*(void **)&n->power = dlsym(n->lib, "nvmlDeviceGetPowerUsage");
	*(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
	if (!init || !count || !handle || !n->util || !n->mem || !n->temp || !n->power ||
	    !n->shutdown || init() != 0) {
		dlclose(n->lib);
		n->lib = NULL;
		return -ENOENT;
	}
	if (count(&c) != 0 || c == 0) {
		nvml_close(n);
		return -ENOENT;
	}
	for (unsigned i = 0; i < c && i < NVML_MAX_DEVS; i++)
		if (handle(i, &n->dev[i]) == 0)
			n->ndev = i + 1;
	return n->ndev ? 0 : -ENOENT;
}

void nvml_sample(struct nvml *n)
{
	for (unsigned i = 0; i < n->ndev; i++) {
		struct nvml_dev *f = &n->fig[i];
		struct nv_util u;
		struct nv_mem m;

		f->ok = n->dev[i] && n->util(n->dev[i], &u) == 0 && n->mem(n->dev[i], &m) == 0;
		if (!f->ok)
			continue;
		f->util = u.gpu;
		f->mem_used = m.used;
		f->mem_total = m.total;
		if (n->temp(n->dev[i], 0 /* NVML_TEMPERATURE_GPU */, &f->temp_c) != 0)
			f->temp_c = 0;
		if (n->power(n->dev[i], &f->power_mw) != 0)
			f->power_mw = 0;
	}
}

void nvml_close(struct nvml *n)
{
	if (n->lib) {
		n->shutdown();
		dlclose(n->lib);
	}
	memset(n, 0, sizeof *n);
}
