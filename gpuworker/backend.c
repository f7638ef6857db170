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

/* "N CUDA device(s), device 0: NAME, sm_XY, ..." for the log line. */
static void hterm_cuda_summary(int n, char *buf, size_t len)
{
	char dev0[200];

	if (hterm_cuda_describe(0, dev0, sizeof(dev0)) != 0)
		snprintf(dev0, sizeof(dev0), "device 0 not described");
	snprintf(buf, len, "%d CUDA device%s, %s", n, n == 1 ? "" : "s", dev0);
}

int hterm_backend_quiet;

int hterm_backend_resolve(enum vocab_backend want, enum vocab_backend *got,
			  char *err, size_t errlen)
{
	char why[256], summary[320];
	int n;

	switch (want) {
	case VOCAB_BACKEND_CPU:
		*got = VOCAB_BACKEND_CPU;
		if (!hterm_backend_quiet)
			fprintf(stderr, "provisor: backend cpu (asked for)\n");
		return 0;
	case VOCAB_BACKEND_CUDA:
	case VOCAB_BACKEND_AUTO:
		break;
	default:
		snprintf(err, errlen, "unknown backend %d", (int)want);
		return -1;
	}
	why[0] = '\0';
	n = hterm_cuda_devices(why, sizeof(why));
	if (n <= 0) {
		if (want == VOCAB_BACKEND_CUDA) {
			snprintf(err, errlen, "backend cuda asked for, but no CUDA device: %s", why);
			return -1;
		}
		*got = VOCAB_BACKEND_CPU;
		if (!hterm_backend_quiet)
			fprintf(stderr, "provisor: backend cpu (auto: no CUDA device: %s)\n", why);
		return 0;
	}
	*got = VOCAB_BACKEND_CUDA;
	hterm_cuda_summary(n, summary, sizeof(summary));
	if (!hterm_backend_quiet)
		fprintf(stderr, "provisor: backend cuda (%s: %s)\n",
			want == VOCAB_BACKEND_AUTO ? "auto" : "asked for", summary);
	return 0;
}

int hterm_run(enum vocab_backend be, int dev, fr_t *a, fr_t *b, fr_t *c,
	      unsigned k, char *err, size_t errlen)
{
	switch (be) {
	case VOCAB_BACKEND_CPU:
		switch (hterm_cpu(a, b, c, k)) {
		case 0:
			return 0;
		case HTERM_STOPPED:
			snprintf(err, errlen, "stopped on request");
			return HTERM_STOPPED;
		}
		snprintf(err, errlen, "hterm_cpu failed at k=%u (k out of range 1..%d, "
			 "or out of memory)", k, VOCAB_LOG_MAX);
		return -1;
	case VOCAB_BACKEND_CUDA:
		return hterm_cuda(dev, a, b, c, k, err, errlen);
	case VOCAB_BACKEND_AUTO:
	case VOCAB_BACKEND_PLUGIN:
		snprintf(err, errlen, "hterm_run: backend %s not resolved "
			 "(call hterm_backend_resolve first)", vocab_backend_name(be));
		return -1;
	}
	snprintf(err, errlen, "hterm_run: unknown backend %d", (int)be);
	return -1;
}
