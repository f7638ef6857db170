/*
 * hcu_fr: BLS12-381 Fr arithmetic for the CUDA H-term backend, written once
 * for both sides: nvcc compiles it as __host__ __device__, and a plain C
 * compiler compiles the very same text for the host-side tests
 * (tests/gpuworker/hcu_fr.c checks it against GMP). That is how the device
 * arithmetic gets real evidence of correctness on machines without a GPU.
 * What differs between host and device (#ifdef __CUDA_ARCH__): the 64x64
 * -> high 64 multiply (__umul64hi against unsigned __int128), and the
 * carry chains of hcu_mac, hcu_add, hcu_sub and hcu_reduce_once, which the
 * device runs as PTX add.cc/addc/sub.cc/subc/mad.lo.cc/madc.hi chains in
 * one asm statement each, the host as compare-and-select. Those PTX lines
 * are the only arithmetic the host tests cannot reach; each is a direct
 * transcription of the portable code beside it.
 *
 * Representation: exactly field/fr.h's fr_t (four 64-bit limbs, least
 * significant first, Montgomery form with R = 2^256, always fully reduced
 * below r), so vectors are copied to and from the device byte for byte and
 * results are bit-identical to the CPU backend.
 *
 * This is independent of field/fr.c on purpose: the GPU comparison then
 * checks two implementations against each other, not one against itself.
 */
#ifndef GPUWORKER_HCU_FR_CUH
#define GPUWORKER_HCU_FR_CUH

#include <stdint.h>

#ifdef __CUDACC__
#define HCU_FN static __host__ __device__ __forceinline__
#else
#define HCU_FN static inline
#endif

typedef struct {
	uint64_t l[4];
} hcu_fr;

/* r, plain, least significant limb first. */
#define HCU_P0 0xffffffff00000001ULL
#define HCU_P1 0x53bda402fffe5bfeULL
#define HCU_P2 0x3339d80809a1d805ULL
#define HCU_P3 0x73eda753299d7d48ULL
/* -r^-1 mod 2^64 */
#define HCU_INV 0xfffffffeffffffffULL
/* R mod r (one in Montgomery form) and R^2 mod r (plain). */
#define HCU_ONE_INIT { { 0x00000001fffffffeULL, 0x5884b7fa00034802ULL, \
			 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL } }
#define HCU_R2_INIT { { 0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, \
			0x05d314967254398fULL, 0x0748d9d99f59ff11ULL } }
/* 7^((r-1) >> 32), canonical (not Montgomery): order exactly 2^32. */
#define HCU_ROOT_CANON_INIT { { 0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, \
				0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL } }
#define HCU_GENERATOR 7u

HCU_FN uint64_t hcu_mulhi(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
	return __umul64hi(a, b);
#else
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* lo 64 bits of a*b + c + *carry; the high 64 go to *carry. The sum is
 * at most (2^64-1)^2 + 2(2^64-1) = 2^128 - 1, so nothing is lost. On the
 * device one PTX carry chain (the carry flag lives only inside one asm
 * statement, so the chain is never split); on the host the portable code. */
HCU_FN uint64_t hcu_mac(uint64_t a, uint64_t b, uint64_t c, uint64_t *carry)
{
#ifdef __CUDA_ARCH__
	uint64_t lo, hi;

	asm("mad.lo.cc.u64 %0, %2, %3, %4;\n\t"
	    "madc.hi.u64 %1, %2, %3, 0;\n\t"
	    "add.cc.u64 %0, %0, %5;\n\t"
	    "addc.u64 %1, %1, 0;"
	    : "=&l"(lo), "=&l"(hi) : "l"(a), "l"(b), "l"(c), "l"(*carry));
	*carry = hi;
	return lo;
#else
	uint64_t lo = a * b, hi = hcu_mulhi(a, b);

	lo += c;
	hi += lo < c;
	lo += *carry;
	hi += lo < *carry;
	*carry = hi;
	return lo;
#endif
}

/* lo 64 bits of a + b + *carry (carry 0 or 1); the carry out to *carry. */
HCU_FN uint64_t hcu_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	uint64_t s = a + b, c1 = s < a;
	uint64_t t = s + *carry, c2 = t < s;

	*carry = c1 | c2;
	return t;
}

/* a - b - *borrow (borrow 0 or 1); the borrow out to *borrow. */
HCU_FN uint64_t hcu_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	uint64_t d = a - b, b1 = a < b;
	uint64_t e = d - *borrow, b2 = d < *borrow;

	*borrow = b1 | b2;
	return e;
}

/* t (< 2r, as r < 2^255 t fits in 256 bits) reduced below r. Branch-free:
 * the subtraction is always done and the result selected, so warps do not
 * diverge on data. */
HCU_FN void hcu_reduce_once(hcu_fr *out, const uint64_t t[4])
{
	uint64_t b = 0, d[4];

#ifdef __CUDA_ARCH__
	asm("sub.cc.u64 %0, %5, %9;\n\t"
	    "subc.cc.u64 %1, %6, %10;\n\t"
	    "subc.cc.u64 %2, %7, %11;\n\t"
	    "subc.cc.u64 %3, %8, %12;\n\t"
	    "subc.u64 %4, 0, 0;"
	    : "=&l"(d[0]), "=&l"(d[1]), "=&l"(d[2]), "=&l"(d[3]), "=&l"(b)
	    : "l"(t[0]), "l"(t[1]), "l"(t[2]), "l"(t[3]),
	      "l"(HCU_P0), "l"(HCU_P1), "l"(HCU_P2), "l"(HCU_P3));
	b &= 1;	/* subc from 0 - 0 - borrow: all ones on borrow */
#else
	d[0] = hcu_sbb(t[0], HCU_P0, &b);
	d[1] = hcu_sbb(t[1], HCU_P1, &b);
	d[2] = hcu_sbb(t[2], HCU_P2, &b);
	d[3] = hcu_sbb(t[3], HCU_P3, &b);
#endif
	/* b == 1: t < r, keep t. */
	uint64_t keep = 0 - b;
	for (int i = 0; i < 4; i++)
		out->l[i] = (t[i] & keep) | (d[i] & ~keep);
}

HCU_FN void hcu_add(hcu_fr *out, const hcu_fr *a, const hcu_fr *b)
{
	uint64_t t[4];

#ifdef __CUDA_ARCH__
	asm("add.cc.u64 %0, %4, %8;\n\t"
	    "addc.cc.u64 %1, %5, %9;\n\t"
	    "addc.cc.u64 %2, %6, %10;\n\t"
	    "addc.u64 %3, %7, %11;"
	    : "=&l"(t[0]), "=&l"(t[1]), "=&l"(t[2]), "=&l"(t[3])
	    : "l"(a->l[0]), "l"(a->l[1]), "l"(a->l[2]), "l"(a->l[3]),
	      "l"(b->l[0]), "l"(b->l[1]), "l"(b->l[2]), "l"(b->l[3]));
#else
	uint64_t c = 0;

	t[0] = hcu_adc(a->l[0], b->l[0], &c);
	t[1] = hcu_adc(a->l[1], b->l[1], &c);
	t[2] = hcu_adc(a->l[2], b->l[2], &c);
	t[3] = hcu_adc(a->l[3], b->l[3], &c);
#endif
	/* a, b < r < 2^255: no carry out of the top limb. */
	hcu_reduce_once(out, t);
}

HCU_FN void hcu_sub(hcu_fr *out, const hcu_fr *a, const hcu_fr *b)
{
#ifdef __CUDA_ARCH__
	uint64_t t[4], m;

	/* a - b, then r masked by the borrow added back, in two chains. */
	asm("sub.cc.u64 %0, %5, %9;\n\t"
	    "subc.cc.u64 %1, %6, %10;\n\t"
	    "subc.cc.u64 %2, %7, %11;\n\t"
	    "subc.cc.u64 %3, %8, %12;\n\t"
	    "subc.u64 %4, 0, 0;"
	    : "=&l"(t[0]), "=&l"(t[1]), "=&l"(t[2]), "=&l"(t[3]), "=&l"(m)
	    : "l"(a->l[0]), "l"(a->l[1]), "l"(a->l[2]), "l"(a->l[3]),
	      "l"(b->l[0]), "l"(b->l[1]), "l"(b->l[2]), "l"(b->l[3]));
	asm("add.cc.u64 %0, %4, %8;\n\t"
	    "addc.cc.u64 %1, %5, %9;\n\t"
	    "addc.cc.u64 %2, %6, %10;\n\t"
	    "addc.u64 %3, %7, %11;"
	    : "=l"(out->l[0]), "=l"(out->l[1]), "=l"(out->l[2]), "=l"(out->l[3])
	    : "l"(t[0]), "l"(t[1]), "l"(t[2]), "l"(t[3]),
	      "l"(HCU_P0 & m), "l"(HCU_P1 & m), "l"(HCU_P2 & m), "l"(HCU_P3 & m));
#else
	uint64_t br = 0, c = 0, t[4];

	t[0] = hcu_sbb(a->l[0], b->l[0], &br);
	t[1] = hcu_sbb(a->l[1], b->l[1], &br);
	t[2] = hcu_sbb(a->l[2], b->l[2], &br);
	t[3] = hcu_sbb(a->l[3], b->l[3], &br);
	/* On borrow add r back; masking r keeps it branch-free. */
	uint64_t m = 0 - br;
	out->l[0] = hcu_adc(t[0], HCU_P0 & m, &c);
	out->l[1] = hcu_adc(t[1], HCU_P1 & m, &c);
	out->l[2] = hcu_adc(t[2], HCU_P2 & m, &c);
	out->l[3] = hcu_adc(t[3], HCU_P3 & m, &c);
#endif
}

/*
 * Montgomery product a*b*R^-1 mod r, CIOS (coarsely integrated operand
 * scanning), with the full sixth word kept: r's top limb leaves room to
 * drop it, but correctness first and the word is cheap. out may alias.
 */
HCU_FN void hcu_mul(hcu_fr *out, const hcu_fr *a, const hcu_fr *b)
{
	const uint64_t p[4] = { HCU_P0, HCU_P1, HCU_P2, HCU_P3 };
	uint64_t t[6] = { 0, 0, 0, 0, 0, 0 };

	for (int i = 0; i < 4; i++) {
		uint64_t c = 0, bi = b->l[i];

		for (int j = 0; j < 4; j++)
			t[j] = hcu_mac(a->l[j], bi, t[j], &c);
		uint64_t cc = 0;
		t[4] = hcu_adc(t[4], c, &cc);
		t[5] = cc;

		uint64_t m = t[0] * HCU_INV;
		c = 0;
		(void)hcu_mac(m, p[0], t[0], &c);	/* low word is zero by choice of m */
		for (int j = 1; j < 4; j++)
			t[j - 1] = hcu_mac(m, p[j], t[j], &c);
		cc = 0;
		t[3] = hcu_adc(t[4], c, &cc);
		t[4] = t[5] + cc;
	}
	/* t < 2r here (inputs < r), and t[4] is 0 because 2r < 2^256. */
	hcu_reduce_once(out, t);
}

HCU_FN void hcu_sqr(hcu_fr *out, const hcu_fr *a)
{
	hcu_mul(out, a, a);
}

/* 1 when a (a plain 256-bit integer: an encoding read as limbs) is below
 * r, as a canonical encoding must be. */
HCU_FN int hcu_canonical(const hcu_fr *a)
{
	uint64_t b = 0;

	(void)hcu_sbb(a->l[0], HCU_P0, &b);
	(void)hcu_sbb(a->l[1], HCU_P1, &b);
	(void)hcu_sbb(a->l[2], HCU_P2, &b);
	(void)hcu_sbb(a->l[3], HCU_P3, &b);
	return (int)b;
}

HCU_FN int hcu_is_zero(const hcu_fr *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

HCU_FN int hcu_equal(const hcu_fr *a, const hcu_fr *b)
{
	return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) |
		(a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}

HCU_FN hcu_fr hcu_one(void)
{
	hcu_fr one = HCU_ONE_INIT;
	return one;
}

/* Plain integer (< r) into Montgomery form: x * R^2 * R^-1 = x * R. */
HCU_FN void hcu_to_mont(hcu_fr *out, const hcu_fr *plain)
{
	hcu_fr r2 = HCU_R2_INIT;
	hcu_mul(out, plain, &r2);
}

/* Montgomery form out to the plain integer: x * 1 * R^-1. */
HCU_FN void hcu_from_mont(hcu_fr *out, const hcu_fr *a)
{
	hcu_fr one_plain = { { 1, 0, 0, 0 } };
	hcu_mul(out, a, &one_plain);
}

HCU_FN void hcu_from_u64(hcu_fr *out, uint64_t v)
{
	hcu_fr plain = { { v, 0, 0, 0 } };
	hcu_to_mont(out, &plain);
}

/* out = a^e (square and multiply, high bit first). */
HCU_FN void hcu_pow_u64(hcu_fr *out, const hcu_fr *a, uint64_t e)
{
	hcu_fr acc = hcu_one(), base = *a;

	for (int i = 63; i >= 0; i--) {
		hcu_sqr(&acc, &acc);
		if ((e >> i) & 1)
			hcu_mul(&acc, &acc, &base);
	}
	*out = acc;
}

/* out = a^e with e four plain limbs. */
HCU_FN void hcu_pow(hcu_fr *out, const hcu_fr *a, const uint64_t e[4])
{
	hcu_fr acc = hcu_one(), base = *a;

	for (int i = 255; i >= 0; i--) {
		hcu_sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1)
			hcu_mul(&acc, &acc, &base);
	}
	*out = acc;
}

/* 1/a by Fermat (a^(r-2)); zero maps to zero. Host-side setup only: it
 * is slow, but the pipeline needs just a few inverses per call. */
HCU_FN void hcu_inv(hcu_fr *out, const hcu_fr *a)
{
	const uint64_t e[4] = { HCU_P0 - 2, HCU_P1, HCU_P2, HCU_P3 };
	hcu_pow(out, a, e);
}

#endif
