/*
 * hterm-compare: the CPU and CUDA H-term backends on the same inputs,
 * compared byte for byte, with timings per size.
 *
 *   hterm-compare [--from K] [--to K] [--dev N] [--seed N]
 *   hterm-compare --fault [--dev N]     (the sticky-error path, see hc_fault)
 *
 * For each k it builds deterministic random satisfied inputs (a, b random,
 * c = a*b), runs hterm_cpu and hterm_cuda (timed including the copies to
 * and from the device), and prints cpu ms, cuda ms and their ratio, then
 * the CUDA call's phases (setup of the per-k context on its first call,
 * uploads, kernels, H's way back) and its global passes; then the same
 * inputs as encodings through hterm_cuda_enc, H's encodings compared.
 * Then the largest size twice more (its kept context: no setup), with an
 * input encoding of r in between, which must be refused as such. Exits
 * 1 on any mismatch or backend failure, 77 (with the reason as the last
 * line) when no CUDA device answers, 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fr.h"
#include "gpuworker/hterm.h"

static uint64_t hc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: deterministic, and good enough to fill test vectors. */
static uint64_t hc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void hc_rand_fr(fr_t *out, uint64_t *s)
{
	uint64_t v[4];

	do {
		for (int i = 0; i < 4; i++)
			v[i] = hc_rand(s);
		v[3] &= 0x7fffffffffffffffULL;
	} while (fr_from_limbs(out, v) != 0);	/* rejects v >= r */
}

static int hc_arg(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void hc_usage(void)
{
	fprintf(stderr, "usage: hterm-compare [--from K] [--to K] [--dev N] [--seed N]"
		" (1 <= K <= 27)\n       hterm-compare --fault [--dev N]\n");
	exit(2);
}

/* --fault: a kernel that stores to an illegal address must come back as
 * -1 with a message that says sticky; hterm_cuda_sticky() must say so and
 * the next call must refuse to run. Poisons this process: run it alone. */
static int hc_fault(int dev)
{
	fr_t v[3][16];
	char err[512];
	int ok = 1;

	for (int i = 0; i < 16; i++) {
		fr_from_u64(&v[0][i], 3 + i);
		fr_from_u64(&v[1][i], 5 + i);
		fr_mul(&v[2][i], &v[0][i], &v[1][i]);
	}
	setenv("PROVISOR_HTERM_CUDA_FAULT", "1", 1);
	err[0] = '\0';
	int rc = hterm_cuda(dev, v[0], v[1], v[2], 4, err, sizeof(err));
	printf("fault injected: rc %d: %s\n", rc, err);
	ok &= rc == -1 && strstr(err, "sticky") != NULL;
	ok &= hterm_cuda_sticky() == 1;
	unsetenv("PROVISOR_HTERM_CUDA_FAULT");
	err[0] = '\0';
	rc = hterm_cuda(dev, v[0], v[1], v[2], 4, err, sizeof(err));
	printf("next call: rc %d: %s\n", rc, err);
	ok &= rc == -1 && strstr(err, "earlier sticky error") != NULL;
	printf("%s\n", ok ? "OK: sticky error reported, poisoned context refused"
			   : "FAIL: sticky error not handled as documented");
	return ok ? 0 : 1;
}

/* One size: 0 when both backends ran and H matched byte for byte, in
 * Montgomery form (hterm_cuda) and as encodings (hterm_cuda_enc, the
 * device converting both ways). */
static int hc_one(unsigned k, int dev, uint64_t seed, fr_t *in[3], fr_t *cpu[3], fr_t *gpu)
{
	size_t n = (size_t)1 << k, bytes = n * sizeof(fr_t);
	uint64_t s = seed ^ ((uint64_t)k << 56), t0, t1, t2;
	struct hterm_cuda_times tm;
	char err[512];

	for (size_t i = 0; i < n; i++) {
		hc_rand_fr(&in[0][i], &s);
		hc_rand_fr(&in[1][i], &s);
		fr_mul(&in[2][i], &in[0][i], &in[1][i]);
	}
	for (int i = 0; i < 3; i++)
		memcpy(cpu[i], in[i], bytes);
	memcpy(gpu, in[0], bytes);

	t0 = hc_now_ns();
	if (hterm_cpu(cpu[0], cpu[1], cpu[2], k) != 0) {
		printf("k=%2u  FAIL: hterm_cpu failed\n", k);
		return -1;
	}
	t1 = hc_now_ns();
	if (hterm_cuda(dev, gpu, in[1], in[2], k, err, sizeof(err)) != 0) {
		printf("k=%2u  FAIL: %s\n", k, err);
		return -1;
	}
	t2 = hc_now_ns();
	hterm_cuda_times(&tm);

	double cms = (t1 - t0) / 1e6, gms = (t2 - t1) / 1e6;
	int same = memcmp(cpu[0], gpu, bytes) == 0;
	int top = fr_is_zero(&gpu[n - 1]);

	/* up, kern, down: the phases of the CUDA call (hterm.h's
	 * hterm_cuda_times; the uploads overlap the kernels). */
	printf("k=%2u  n=%9zu  cpu %10.2f ms  cuda %9.2f ms  cpu/cuda %7.1fx  setup %7.2f  up %7.2f  "
	       "kern %7.2f  down %7.2f ms  %2u passes  %s%s\n",
	       k, n, cms, gms, gms > 0 ? cms / gms : 0.0, tm.setup_ms, tm.up_ms, tm.kernels_ms,
	       tm.down_ms, tm.passes, same ? "H identical" : "H DIFFERS",
	       top ? "" : ", top coefficient NOT zero");
	if (!same) {
		for (size_t i = 0; i < n; i++)
			if (!fr_equal(&cpu[0][i], &gpu[i])) {
				printf("       first difference at H[%zu]\n", i);
				break;
			}
		return -1;
	}

	/* Encodings in, encodings out: the host only copies. */
	uint8_t *enc[3] = { (uint8_t *)in[0], (uint8_t *)in[1], (uint8_t *)in[2] };
	for (int v = 0; v < 3; v++)
		for (size_t i = 0; i < n; i++) {
			fr_t t = in[v][i];
			fr_to_bytes(enc[v] + i * FR_BYTES, &t);
		}
	for (size_t i = 0; i < n; i++) {
		fr_t t = cpu[0][i];
		fr_to_bytes((uint8_t *)cpu[1] + i * FR_BYTES, &t);
	}
	t1 = hc_now_ns();
	int rc = hterm_cuda_enc(dev, gpu, enc[0], enc[1], enc[2], k,
				HTERM_CUDA_IN_BYTES | HTERM_CUDA_OUT_BYTES, err, sizeof(err));
	t2 = hc_now_ns();
	if (rc != 0) {
		printf("k=%2u  FAIL: hterm_cuda_enc: %s\n", k, err);
		return -1;
	}
	hterm_cuda_times(&tm);
	same = memcmp(cpu[1], gpu, bytes) == 0;
	printf("      bytes in and out: cuda %9.2f ms  up %7.2f  kern %7.2f  down %7.2f ms  %s\n",
	       (t2 - t1) / 1e6, tm.up_ms, tm.kernels_ms, tm.down_ms,
	       same ? "H's encodings identical" : "H's encodings DIFFER");
	return same && top ? 0 : -1;
}

/* An encoding >= r (r itself) among the inputs must come back as
 * HTERM_NONCANONICAL, and the context must serve the next call as before. */
static int hc_noncanonical(unsigned k, int dev, fr_t *in[3])
{
	size_t n = (size_t)1 << k;
	char err[512];

	static const uint8_t r_le[FR_BYTES] = {
		0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
		0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
	};
	for (int v = 0; v < 3; v++)
		memset(in[v], 0, n * sizeof(fr_t));
	memcpy((uint8_t *)in[2] + (n / 2) * FR_BYTES, r_le, FR_BYTES);
	int rc = hterm_cuda_enc(dev, in[0], in[0], in[1], in[2], k, HTERM_CUDA_IN_BYTES, err, sizeof(err));
	printf("k=%2u  an encoding of r in c: rc %d: %s\n", k, rc, rc ? err : "(accepted)");
	return rc == HTERM_NONCANONICAL ? 0 : -1;
}

int main(int argc, char **argv)
{
	long from = 1, to = 20, dev = 0, seed = 1;
	char err[512];
	int bad = 0;

	int fault = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fault")) {
			fault = 1;
			continue;
		}
		long *dst = !strcmp(argv[i], "--from") ? &from : !strcmp(argv[i], "--to") ? &to :
			    !strcmp(argv[i], "--dev") ? &dev : !strcmp(argv[i], "--seed") ? &seed : NULL;
		long hi = dst == &dev ? 1024 : dst == &seed ? 0x7fffffffL : VOCAB_LOG_MAX;

		if (!dst || i + 1 >= argc || hc_arg(argv[++i], dst == &seed || dst == &dev ? 0 : 1,
						    hi, dst))
			hc_usage();
	}
	if (from > to)
		hc_usage();

	int nd = hterm_cuda_devices(err, sizeof(err));
	if (nd <= 0) {
		printf("no CUDA device: %s\n", err);
		return 77;
	}
	if (dev >= nd) {
		fprintf(stderr, "hterm-compare: --dev %ld, but only %d CUDA device%s\n", dev, nd,
			nd == 1 ? "" : "s");
		return 2;
	}
	if (hterm_cuda_describe((int)dev, err, sizeof(err)) == 0)
		printf("CUDA %s\n", err);
	if (fault)
		return hc_fault((int)dev);
	printf("CPU fr implementation: %s\n", fr_impl_name());

	size_t n = (size_t)1 << to;
	fr_t *in[3], *cpu[3], *gpu = malloc(n * sizeof(fr_t));
	for (int i = 0; i < 3; i++) {
		in[i] = malloc(n * sizeof(fr_t));
		cpu[i] = malloc(n * sizeof(fr_t));
		if (!in[i] || !cpu[i] || !gpu) {
			fprintf(stderr, "hterm-compare: out of memory for k=%ld\n", to);
			return 1;
		}
	}
	/* Context creation and module load happen on the first call: keep
	 * them out of the first size's timing. */
	fr_t w[3][2];
	for (int j = 0; j < 2; j++) {
		fr_from_u64(&w[0][j], 3 + j);
		fr_from_u64(&w[1][j], 5 + j);
		fr_mul(&w[2][j], &w[0][j], &w[1][j]);
	}
	uint64_t t0 = hc_now_ns();
	if (hterm_cuda((int)dev, w[0], w[1], w[2], 1, err, sizeof(err)) != 0) {
		printf("warm-up k=1 FAIL: %s\n", err);
		return 1;
	}
	printf("CUDA warm-up (context, modules): %.1f ms\n", (hc_now_ns() - t0) / 1e6);

	for (long k = from; k <= to; k++)
		bad |= hc_one((unsigned)k, (int)dev, (uint64_t)seed, in, cpu, gpu) != 0;
	/* The largest size again: its context is kept, so no setup this time. */
	bad |= hc_one((unsigned)to, (int)dev, (uint64_t)seed + 1, in, cpu, gpu) != 0;
	bad |= hc_noncanonical((unsigned)to, (int)dev, in) != 0;
	bad |= hc_one((unsigned)to, (int)dev, (uint64_t)seed + 2, in, cpu, gpu) != 0;
	printf("%s\n", bad ? "FAIL: CPU and CUDA backends disagree or failed"
			   : "OK: CPU and CUDA backends agree byte for byte");
	for (int i = 0; i < 3; i++) {
		free(in[i]);
		free(cpu[i]);
	}
	free(gpu);
	hterm_cuda_fini();
	return bad ? 1 : 0;
}
