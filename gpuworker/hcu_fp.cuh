/*
 * hcu_fp: BLS12-381 Fp arithmetic for the CUDA MSM (gpuworker/hcu_msm.cuh),
 * written once for both sides as gpuworker/hcu_fr.cuh is: nvcc compiles it
 * __host__ __device__, a plain C compiler compiles the same text for the
 * host-side tests (tests/gpuworker/hcu_fp.c checks it against GMP and
 * against field/fp.c bit for bit). The 64x64 -> 128 multiply is the only
 * line that differs between host and device; it comes from hcu_fr.cuh
 * (hcu_mulhi, and the carry helpers hcu_mac, hcu_adc, hcu_sbb built on it).
 *
 * Representation: exactly field/fp.h's fp_t: six 64-bit limbs, least
 * significant first, Montgomery form with R = 2^384, always fully reduced
 * below p. Points therefore go to the device and come back byte for byte.
 *
 * Independent of field/fp.c (and of its ADX path) on purpose, so that a
 * comparison checks two implementations against each other. Carries are
 * compare-and-select in C, no PTX carry chains yet (issue 22 part 3 asks
 * for those in the NTT; the same change would apply here).
 */
#ifndef GPUWORKER_HCU_FP_CUH
#define GPUWORKER_HCU_FP_CUH

#include <stdint.h>

#include "gpuworker/hcu_fr.cuh"

/* Larger functions are left for the compiler to inline or not: forcing
 * every product inline into every point operation makes nvcc's work on
 * the MSM kernels grow several times over for little gain. */
#ifdef __CUDACC__
#define HCU_FP_FN static __host__ __device__ inline
#else
#define HCU_FP_FN static inline
#endif

typedef struct {
	uint64_t l[6];
} hcu_fp;

/* p, plain, least significant limb first (p < 2^381, so 2p < 2^384). */
#define HCU_FP_P0 0xb9feffffffffaaabULL
#define HCU_FP_P1 0x1eabfffeb153ffffULL
#define HCU_FP_P2 0x6730d2a0f6b0f624ULL
#define HCU_FP_P3 0x64774b84f38512bfULL
#define HCU_FP_P4 0x4b1ba7b6434bacd7ULL
#define HCU_FP_P5 0x1a0111ea397fe69aULL
/* -p^-1 mod 2^64 */
#define HCU_FP_INV 0x89f3fffcfffcfffdULL
/* R mod p: one in Montgomery form. */
#define HCU_FP_ONE_INIT { { 0x760900000002fffdULL, 0xebf4000bc40c0002ULL, \
			    0x5f48985753c758baULL, 0x77ce585370525745ULL, \
			    0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }

HCU_FN hcu_fp hcu_fp_one(void)
{
	hcu_fp one = HCU_FP_ONE_INIT;
	return one;
}

HCU_FN hcu_fp hcu_fp_zero(void)
{
	hcu_fp z = { { 0, 0, 0, 0, 0, 0 } };
	return z;
}

/* t (< 2p) reduced below p, branch-free (select, no divergence on data). */
HCU_FN void hcu_fp_reduce_once(hcu_fp *out, const uint64_t t[6])
{
	const uint64_t p[6] = { HCU_FP_P0, HCU_FP_P1, HCU_FP_P2, HCU_FP_P3, HCU_FP_P4, HCU_FP_P5 };
	uint64_t b = 0, d[6];

	for (int i = 0; i < 6; i++)
		d[i] = hcu_sbb(t[i], p[i], &b);
	/* b == 1: t < p, keep t. */
	uint64_t keep = 0 - b;
	for (int i = 0; i < 6; i++)
		out->l[i] = (t[i] & keep) | (d[i] & ~keep);
}

HCU_FN void hcu_fp_add(hcu_fp *out, const hcu_fp *a, const hcu_fp *b)
{
	uint64_t c = 0, t[6];

	for (int i = 0; i < 6; i++)
		t[i] = hcu_adc(a->l[i], b->l[i], &c);
	/* a, b < p: a + b < 2p < 2^384, no carry out of the top limb. */
	hcu_fp_reduce_once(out, t);
}

HCU_FN void hcu_fp_sub(hcu_fp *out, const hcu_fp *a, const hcu_fp *b)
{
	const uint64_t p[6] = { HCU_FP_P0, HCU_FP_P1, HCU_FP_P2, HCU_FP_P3, HCU_FP_P4, HCU_FP_P5 };
	uint64_t br = 0, c = 0, t[6];

	for (int i = 0; i < 6; i++)
		t[i] = hcu_sbb(a->l[i], b->l[i], &br);
	uint64_t m = 0 - br;	/* borrow: add p back, masked */
	for (int i = 0; i < 6; i++)
		out->l[i] = hcu_adc(t[i], p[i] & m, &c);
}

HCU_FN void hcu_fp_double(hcu_fp *out, const hcu_fp *a)
{
	hcu_fp_add(out, a, a);
}

HCU_FN int hcu_fp_is_zero(const hcu_fp *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

HCU_FN int hcu_fp_equal(const hcu_fp *a, const hcu_fp *b)
{
	uint64_t d = 0;

	for (int i = 0; i < 6; i++)
		d |= a->l[i] ^ b->l[i];
	return d == 0;
}

/* -a; zero stays zero (p - 0 would not be reduced). */
HCU_FN void hcu_fp_neg(hcu_fp *out, const hcu_fp *a)
{
	hcu_fp z = hcu_fp_zero();

	hcu_fp_sub(out, &z, a);
}

/*
 * Montgomery product a*b/R mod p, CIOS over six limbs with two spare
 * words: after each round t < 2p < 2^384, so t[6] is at most 1 and t[7]
 * stays 0; the final t < 2p is reduced once. out may alias a or b.
 */
HCU_FP_FN void hcu_fp_mul(hcu_fp *out, const hcu_fp *a, const hcu_fp *b)
{
	const uint64_t p[6] = { HCU_FP_P0, HCU_FP_P1, HCU_FP_P2, HCU_FP_P3, HCU_FP_P4, HCU_FP_P5 };
	uint64_t t[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };

	for (int i = 0; i < 6; i++) {
		uint64_t c = 0, cc = 0, bi = b->l[i];

		for (int j = 0; j < 6; j++)
			t[j] = hcu_mac(a->l[j], bi, t[j], &c);
		t[6] = hcu_adc(t[6], c, &cc);
		t[7] = cc;

		uint64_t m = t[0] * HCU_FP_INV;
		c = 0;
		(void)hcu_mac(m, p[0], t[0], &c);	/* zero by the choice of m */
		for (int j = 1; j < 6; j++)
			t[j - 1] = hcu_mac(m, p[j], t[j], &c);
		cc = 0;
		t[5] = hcu_adc(t[6], c, &cc);
		t[6] = t[7] + cc;
	}
	hcu_fp_reduce_once(out, t);
}

HCU_FN void hcu_fp_sqr(hcu_fp *out, const hcu_fp *a)
{
	hcu_fp_mul(out, a, a);
}

/* 1/a by Fermat (a^(p-2)); zero maps to zero. For the tests and host-side
 * set-up only: the MSM itself never divides (Jacobian coordinates). */
HCU_FP_FN void hcu_fp_inv(hcu_fp *out, const hcu_fp *a)
{
	const uint64_t e[6] = { HCU_FP_P0 - 2, HCU_FP_P1, HCU_FP_P2, HCU_FP_P3, HCU_FP_P4, HCU_FP_P5 };
	hcu_fp acc = hcu_fp_one(), base = *a;

	for (int i = 383; i >= 0; i--) {
		hcu_fp_sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1)
			hcu_fp_mul(&acc, &acc, &base);
	}
	*out = acc;
}

#endif
