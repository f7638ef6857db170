/*
 * bench/pairing: the optimal ate pairing on one core. Miller loop and
 * final exponentiation apart, a whole pairing, and a 4-pair pairing_check
 * (the shape of a Groth16 verification), for each Fp implementation the
 * CPU has. Each figure is the median of RUNS timed runs; the target is one
 * pairing in 2 ms or less.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/pairing.h"

#define RUNS 7
#define ITERS 20

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void fp_hex(fp_t *a, const char *hex)
{
	uint8_t b[FP_BYTES];

	for (int i = 0; i < FP_BYTES; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			abort();
		b[i] = (uint8_t)v;
	}
	if (fp_from_bytes_be(a, b) != 0)
		abort();
}

static g1_affine_t ps[4];
static g2_affine_t qs[4];

enum op { MILLER, FINAL_EXP, PAIRING, CHECK4 };
static const char *const op_name[] = { "miller loop", "final exp", "pairing", "check, 4 pairs" };

/* One timed run: microseconds per operation. */
static double run_once(enum op op)
{
	fp12_t f, g;
	int ok = 1;

	pairing_miller_loop(&f, ps, qs, 1);
	uint64_t t0 = now_ns();
	for (int i = 0; i < ITERS; i++) {
		switch (op) {
		case MILLER: pairing_miller_loop(&g, ps, qs, 1); break;
		case FINAL_EXP: pairing_final_exp(&g, &f); break;
		case PAIRING: pairing(&g, ps, qs); break;
		case CHECK4: ok &= pairing_check(ps, qs, 4); break;
		}
	}
	double us = (double)(now_ns() - t0) / ITERS / 1000.0;
	if (!ok) {
		fprintf(stderr, "pairing: e(P,Q) e(-P,Q) e(P,Q) e(-P,Q) is not 1\n");
		exit(1);
	}
	return us;
}

int main(void)
{
	static const char *const impls[] = { "portable", "adx" };
	g1_affine_t p = { .inf = 0 };
	g2_affine_t q = { .inf = 0 };

	fp_hex(&p.x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
	fp_hex(&p.y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
	fp_hex(&q.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
	fp_hex(&q.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
	fp_hex(&q.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
	fp_hex(&q.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
	for (int i = 0; i < 4; i++) {
		ps[i] = p;
		qs[i] = q;
		if (i & 1)
			fp_neg(&ps[i].y, &p.y);	/* -P */
	}

	printf("%-16s", "us/op");
	for (size_t k = 0; k < sizeof impls / sizeof *impls; k++)
		printf(" %10s", impls[k]);
	printf("\n");
	for (int op = MILLER; op <= CHECK4; op++) {
		printf("%-16s", op_name[op]);
		for (size_t k = 0; k < sizeof impls / sizeof *impls; k++) {
			double t[RUNS];

			if (fp_set_impl(impls[k]) != 0) {
				printf(" %10s", "-");
				continue;
			}
			for (int r = 0; r < RUNS; r++)
				t[r] = run_once(op);
			qsort(t, RUNS, sizeof *t, cmp_double);
			printf(" %10.1f", t[RUNS / 2]);
		}
		printf("\n");
	}
	return 0;
}
