/*
 * backend: which H-term backend runs, and running it. auto asks the CUDA
 * runtime for devices and takes CUDA when one answers, else the CPU; the
 * choice and its reason go to stderr as one line, because an operator
 * looking at a slow rig first wants to know whether the GPU was used.
 *
 * Asking for devices initializes the CUDA runtime in the calling process:
 * resolve in the gpuworker, never in a process that forks afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "gpuworker/hterm.h"
#include "field/ntt.h"

int hterm_backend_parse(const char *s, enum hterm_backend *out)
{
	static const struct { const char *name; enum hterm_backend be; } names[] = {
		{ "auto", HTERM_AUTO }, { "cpu", HTERM_CPU }, { "cuda", HTERM_CUDA },
	};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].be;
			return 0;
		}
	return -1;
}

/* "N CUDA device(s), device 0: NAME, sm_XY, ..." for the log line. */
static void hterm_cuda_summary(int n, char *buf, size_t len)
{
	char dev0[200];

	if (hterm_cuda_describe(0, dev0, sizeof(dev0)) != 0)
		snprintf(dev0, sizeof(dev0), "device 0 not described");
	snprintf(buf, len, "%d CUDA device%s, %s", n, n == 1 ? "" : "s", dev0);
}

int hterm_backend_resolve(enum hterm_backend want, enum hterm_backend *got,
			  char *err, size_t errlen)
{
	char why[256], summary[320];
	int n;

	switch (want) {
	case HTERM_CPU:
		*got = HTERM_CPU;
		fprintf(stderr, "provisor: backend cpu (asked for)\n");
		return 0;
	case HTERM_CUDA:
	case HTERM_AUTO:
		break;
	default:
		snprintf(err, errlen, "unknown backend %d", (int)want);
		return -1;
	}
	why[0] = '\0';
	n = hterm_cuda_devices(why, sizeof(why));
	if (n <= 0) {
		if (want == HTERM_CUDA) {
			snprintf(err, errlen, "backend cuda asked for, but no CUDA device: %s", why);
			return -1;
		}
		*got = HTERM_CPU;
		fprintf(stderr, "provisor: backend cpu (auto: no CUDA device: %s)\n", why);
		return 0;
	}
	*got = HTERM_CUDA;
	hterm_cuda_summary(n, summary, sizeof(summary));
	fprintf(stderr, "provisor: backend cuda (%s: %s)\n",
		want == HTERM_AUTO ? "auto" : "asked for", summary);
	return 0;
}

int hterm_run(enum hterm_backend be, int dev, fr_t *a, fr_t *b, fr_t *c,
	      unsigned k, char *err, size_t errlen)
{
	switch (be) {
	case HTERM_CPU:
		if (hterm_cpu(a, b, c, k) == 0)
			return 0;
		snprintf(err, errlen, "hterm_cpu failed at k=%u (k out of range 1..%d, "
			 "or out of memory)", k, NTT_MAX_LOG);
		return -1;
	case HTERM_CUDA:
		return hterm_cuda(dev, a, b, c, k, err, errlen);
	case HTERM_AUTO:
		snprintf(err, errlen, "hterm_run: backend auto not resolved "
			 "(call hterm_backend_resolve first)");
		return -1;
	}
	snprintf(err, errlen, "hterm_run: unknown backend %d", (int)be);
	return -1;
}
