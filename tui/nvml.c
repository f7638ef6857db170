/*
 * nvml: NVML through dlopen (see nvml.h). Only the few entry points we need
 * are looked up, with the structures they fill declared here as NVML's
 * stable ABI defines them (nvmlUtilization_t, nvmlMemory_t, nvmlPciInfo_t),
 * so no NVIDIA header is needed to build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/nvml.h"

struct nv_util { unsigned gpu, memory; };
struct nv_mem { unsigned long long total, free, used; };
struct nv_pci {			/* nvmlPciInfo_t, as nvmlDeviceGetPciInfo_v3 fills it */
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];	/* "00000000:3B:00.0" */
};

/* Device i's PCI address, UUID and model into n->info[i]. A device whose
 * address is unreadable sorts after the others; one whose UUID is
 * unreadable matches no UUID entry. */
static void nvml_describe(struct nvml *n, unsigned i, int (*pci)(void *, struct nv_pci *),
			  int (*uuid)(void *, char *, unsigned), int (*name)(void *, char *, unsigned))
{
	struct cudavis_dev *d = &n->info[i];
	struct nv_pci p;

	memset(d, 0, sizeof *d);
	d->domain = UINT32_MAX;	/* sorts last when unknown */
	if (pci && pci(n->dev[i], &p) == 0) {
		p.bus_id[sizeof p.bus_id - 1] = '\0';
		if (cudavis_parse_pci(p.bus_id, d) < 0)
			d->domain = p.domain, d->bus = p.bus, d->dev = p.device, d->fn = 0;
	}
	if (!uuid || uuid(n->dev[i], d->uuid, sizeof d->uuid) != 0)
		d->uuid[0] = '\0';
	d->uuid[sizeof d->uuid - 1] = '\0';
	if (!name || name(n->dev[i], d->name, sizeof d->name) != 0)
		d->name[0] = '\0';
	d->name[sizeof d->name - 1] = '\0';
}

int nvml_open(struct nvml *n)
{
	int (*init)(void), (*count)(unsigned *), (*handle)(unsigned, void **);
	int (*pci)(void *, struct nv_pci *), (*uuid)(void *, char *, unsigned), (*name)(void *, char *, unsigned);
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
	*(void **)&pci = dlsym(n->lib, "nvmlDeviceGetPciInfo_v3");
	*(void **)&uuid = dlsym(n->lib, "nvmlDeviceGetUUID");
	*(void **)&name = dlsym(n->lib, "nvmlDeviceGetName");
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
	for (unsigned i = 0; i < n->ndev; i++)
		nvml_describe(n, i, pci, uuid, name);
	nvml_map(n, getenv("CUDA_VISIBLE_DEVICES"), getenv("CUDA_DEVICE_ORDER"));
	return n->ndev ? 0 : -ENOENT;
}

void nvml_map(struct nvml *n, const char *visible, const char *order)
{
	int m = cudavis_map(n->info, (int)n->ndev, visible, order, n->ord, NVML_MAX_DEVS);

	n->nord = m > 0 ? (unsigned)m : 0;
}

/* NAME's value in an environ block (NUL-separated), or NULL. */
static const char *nvml_env_get(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = env; p < env + len; p += strlen(p) + 1)
		if (!strncmp(p, name, nl) && p[nl] == '=')
			return p + nl + 1;
	return NULL;
}

void nvml_map_pid(struct nvml *n, uint32_t pid)
{
	char path[64], env[65536];
	ssize_t len = -1;
	int fd;

	snprintf(path, sizeof path, "/proc/%u/environ", pid);
	if (pid && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t r = 0;
		for (len = 0; len < (ssize_t)sizeof env - 1; len += r)
			if ((r = read(fd, env + len, sizeof env - 1 - (size_t)len)) <= 0)
				break;
		if (r < 0)
			len = -1;	/* EACCES: another user's process */
		close(fd);
	}
	n->env_pid = pid;
	n->env_own = len < 0;
	if (len < 0) {
		nvml_map(n, getenv("CUDA_VISIBLE_DEVICES"), getenv("CUDA_DEVICE_ORDER"));
		return;
	}
	env[len] = '\0';
	nvml_map(n, nvml_env_get(env, (size_t)len, "CUDA_VISIBLE_DEVICES"),
		 nvml_env_get(env, (size_t)len, "CUDA_DEVICE_ORDER"));
}

const struct nvml_dev *nvml_fig(const struct nvml *n, unsigned gpu)
{
	int i;

	if (!n || gpu >= n->nord || (i = n->ord[gpu]) < 0 || (unsigned)i >= n->ndev || !n->fig[i].ok)
		return NULL;
	return &n->fig[i];
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
