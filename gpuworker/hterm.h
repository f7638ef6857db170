/*
 * hterm: Groth16's H polynomial from the R1CS evaluations of one partition,
 * exactly as bellperson computes it. With a, b, c the evaluations of the
 * A, B, C polynomials on the domain of size n = 2^k:
 *   iNTT(a), iNTT(b), iNTT(c)              -> coefficients
 *   coset NTT(a), coset NTT(b), coset NTT(c) (generator 7)
 *   h[i] = (a[i]*b[i] - c[i]) * (g^n - 1)^-1   (Z is constant on the coset)
 *   coset iNTT(h)                          -> H, n coefficients
 * For a satisfied system H[n-1] is zero; hterm_check_top() says so.
 * Backends give bit-identical results (the arithmetic is exact).
 */
#ifndef GPUWORKER_HTERM_H
#define GPUWORKER_HTERM_H

#include <stddef.h>
#include <stdint.h>
#include "field/fr.h"
#include "util/vocab.h"

/* CPU: a, b, c are overwritten; H is left in a. Returns 0 or -1 (bad k,
 * no memory), or HTERM_STOPPED when the stop hook asked it to end at a
 * safe point (between its stages: the transforms to the coset, the
 * quotient, the inverse transform), with nothing useful in a, b, c. */
int hterm_cpu(fr_t *a, fr_t *b, fr_t *c, unsigned k);
#define HTERM_STOPPED 1
/* The stop hook (the gpuworker's pre-emption): stop(arg) is called at
 * each safe point and returns 1 to abandon the computation. NULL = none.
 * Set it before the computations it is for. */
void hterm_set_stop(int (*stop)(void *arg), void *arg);
/* The CPU H-term's threads (its three transforms run side by side): n of
 * them at most, 0 (the default) for 3. A gpuworker sets its thread budget. */
void hterm_set_threads(unsigned n);

/* CUDA on device ordinal dev: H into a; b and c are left unchanged.
 * Returns 0, or -1 with the CUDA error string in err. */
int hterm_cuda(int dev, fr_t *a, const fr_t *b, const fr_t *c, unsigned k,
	       char *err, size_t errlen);
/* The same with either side as canonical encodings (32 bytes little-
 * endian each, as fr_to_bytes writes them) instead of fr_t: how is
 * HTERM_CUDA_IN_BYTES (a, b, c are encodings) and/or HTERM_CUDA_OUT_BYTES
 * (H's encodings go to h), 0 for neither. The device converts in its first
 * and last passes, so the host only copies. H goes to h, which may be a.
 * Returns 0, -1 (err), or HTERM_NONCANONICAL when an input encoding is
 * >= r (h then holds nothing useful). hterm_cuda(dev, a, b, c, ...) is
 * hterm_cuda_enc(dev, a, a, b, c, k, 0, ...). */
#define HTERM_CUDA_IN_BYTES 1u
#define HTERM_CUDA_OUT_BYTES 2u
#define HTERM_NONCANONICAL 2
int hterm_cuda_enc(int dev, void *h, const void *a, const void *b, const void *c, unsigned k,
		   unsigned how, char *err, size_t errlen);
/* Where the last hterm_cuda or hterm_cuda_enc call spent its time:
 * setup (the context for this k made, 0 once it is kept), the uploads
 * (first to last, on their own stream: they overlap the kernels), the
 * kernels (every pass of every transform; the quotient is fused into
 * them), and H's way back (its copy and the host's). passes: global
 * passes over one vector. All zero after a failure or without CUDA. */
struct hterm_cuda_times {
	double setup_ms, up_ms, kernels_ms, down_ms;
	unsigned passes;
};
void hterm_cuda_times(struct hterm_cuda_times *t);
/* Frees the per-k device contexts (buffers, twiddles, pinned slots,
 * streams) that hterm_cuda keeps between calls. */
void hterm_cuda_fini(void);
/* Number of CUDA devices that answer, or -1 with why in err (no driver,
 * built without CUDA, ...). */
int hterm_cuda_devices(char *err, size_t errlen);
/* One line about device dev (name, sm_XY, memory, driver) into buf, for
 * the log; 0, or -1 with why in buf. */
int hterm_cuda_describe(int dev, char *buf, size_t len);
/* 1 once a sticky CUDA error (illegal address, launch failure, ...) has
 * made this process's context unusable: hterm_cuda then refuses to run,
 * and the caller should exit non-zero so that it is restarted. */
int hterm_cuda_sticky(void);

/* Resolve auto to cpu or cuda, writing one log line to stderr that says
 * which and why (none while hterm_backend_quiet is set: the supervisor
 * has one of its gpuworkers say it, not every one). An explicit cuda
 * without a device returns -1 with a clear message in err; gpuworker then
 * exits GPUWORKER_EXIT_NO_DEVICE, which the supervisor does not retry. */
extern int hterm_backend_quiet;
#define GPUWORKER_EXIT_NO_DEVICE 3
/* Further exits the supervisor tells apart (gpuworker/main.c): 4 the
 * H-term failed (kept for the record: now DEVICE_LOST); 5 the backend
 * lost its device while proving (restarted, disabled as "device lost"
 * after a few); 6 the backend's init found its device unusable
 * (disabled as "bad device" at once); 7 the backend could not be loaded
 * or initialized (a plugin that will not load, a wrong ABI version:
 * disabled as "bad backend" at once). */
#define GPUWORKER_EXIT_DEVICE_LOST 5
#define GPUWORKER_EXIT_BAD_DEVICE 6
#define GPUWORKER_EXIT_BAD_BACKEND 7
int hterm_backend_resolve(enum vocab_backend want, enum vocab_backend *got,
			  char *err, size_t errlen);
/* Run the chosen (resolved) backend: 0, -1 (err), or HTERM_STOPPED (the
 * stop hook; CPU only). */
int hterm_run(enum vocab_backend be, int dev, fr_t *a, fr_t *b, fr_t *c,
	      unsigned k, char *err, size_t errlen);

/* 1 when H's top coefficient is zero, as it is for a satisfied system. */
int hterm_check_top(const fr_t *h, unsigned k);

#endif
