/*
 * bench/groth16: a whole Groth16 proof of one partition at each k in
 * G16_BENCH_KS (default "16 20"), on every CPU: the setup's time, then
 * the proof's wall time split into the H-term and the five MSMs with each
 * one's share, then one verification (median of 5). The figures are wall
 * times on this machine's cores; ns of core time per MSM point are in
 * bench/msm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "gpuworker/hterm.h"
#include "groth16/groth16.h"
#include "synth/synth.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int bench_k(unsigned k)
{
	static const uint8_t seed[] = { 0xbe, 0x4c };
	size_t n = (size_t)1 << k;
	struct groth16_params p;
	struct groth16_proof pr;
	struct groth16_times t;
	struct synth_id id = { .seed = { 1, 2, 3, 4 }, .seed_len = 4, .partition = 0, .k = k };
	fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
	fr_t *z = malloc(synth_nvars(k) * sizeof *z), r, s, x[2];
	uint64_t t0, ts, th, tv[5];
	char err[256];

	if (!a || !b || !c || !z)
		return -1;
	t0 = now_ns();
	if (groth16_setup(&p, seed, sizeof seed, k, 0, err, sizeof err)) {
		fprintf(stderr, "setup: %s\n", err);
		return -1;
	}
	ts = now_ns() - t0;
	synth_partition(&id, a, b, c);
	synth_witness_from_rows(k, a, c, z);
	x[0] = z[1];
	x[1] = z[2];
	t0 = now_ns();
	hterm_cpu(a, b, c, k);
	th = now_ns() - t0;
	fr_from_u64(&r, 12345);
	fr_from_u64(&s, 67890);
	if (groth16_prove(&pr, &p, z, a, &r, &s, 0, &t))
		return -1;
	for (int i = 0; i < 5; i++) {
		t0 = now_ns();
		if (!groth16_verify(&p.vk, x, &pr)) {
			fprintf(stderr, "k=%u: the proof does not verify\n", k);
			return -1;
		}
		tv[i] = now_ns() - t0;
	}
	qsort(tv, 5, sizeof tv[0], cmp_u64);
	{
		double all = (double)(th + t.total);
#define PCT(x) (100.0 * (double)(x) / all)
		printf("k=%-2u setup %8.2f s | proof %8.3f s: H-term %.3f s (%4.1f%%), MSM A %.3f s (%4.1f%%), "
		       "B G1+G2 %.3f s (%4.1f%%), L %.3f s (%4.1f%%), H %.3f s (%4.1f%%) | verify %.2f ms "
		       "= %.3f%% of the proof (the pipeline checks every proof)\n",
		       k, (double)ts / 1e9, all / 1e9, (double)th / 1e9, PCT(th), (double)t.msm_a / 1e9,
		       PCT(t.msm_a), (double)t.msm_b / 1e9, PCT(t.msm_b), (double)t.msm_l / 1e9, PCT(t.msm_l),
		       (double)t.msm_h / 1e9, PCT(t.msm_h), (double)tv[2] / 1e6, PCT(tv[2]));
#undef PCT
	}
	fflush(stdout);
	groth16_params_free(&p);
	free(a);
	free(b);
	free(c);
	free(z);
	return 0;
}

int main(void)
{
	const char *ks = getenv("G16_BENCH_KS");
	char buf[256], *save, *tok;

	if (sodium_init() < 0)
		return 1;
	snprintf(buf, sizeof buf, "%s", ks && *ks ? ks : "16 20");
	printf("groth16: one partition's proof on %ld CPUs (G16_BENCH_KS=\"%s\")\n",
	       sysconf(_SC_NPROCESSORS_ONLN), buf);
	for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		int k = atoi(tok);
		if (k < SYNTH_LOG_MIN || k > VOCAB_LOG_MAX || bench_k((unsigned)k))
			return 1;
	}
	return 0;
}
