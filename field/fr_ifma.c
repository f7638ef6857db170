/*
 * fr_ifma: eight Fr Montgomery multiplications at once with AVX-512 IFMA.
 *
 * VPMADD52LUQ / VPMADD52HUQ multiply the low 52 bits of each 64-bit lane
 * and add the low or high 52 bits of the 104-bit product to an
 * accumulator. Each of the eight lanes holds one element as five 52-bit
 * limbs (radix 2^52, 260 bits), and the lanes run the same word-serial
 * Montgomery reduction (CIOS) side by side: per limb of b, t += a * b_i,
 * then m = t_0 * (-r^-1) mod 2^52, t += m * r, t >>= 52. The
 * accumulators are 64 bits wide, so carries are left in them and
 * propagated once, at the end.
 *
 * The rest of provisor keeps elements as 4x64-bit words in Montgomery
 * form with R = 2^256; this reduction divides by 2^260. So a enters
 * shifted left by 4 bits (a < r < 2^255, so a * 16 still fits the five
 * limbs, no reduction needed) and the product comes out as a * b / 2^256,
 * exactly what fr_mul gives. With a * 16 < 2^259 and b < r the result
 * before the final subtraction is below 1.5 r; one conditional
 * subtraction makes it canonical.
 *
 * Compiled for any x86-64 with a per-function target attribute; called
 * only when cpuid and the OS (XCR0) say AVX-512 F and IFMA are usable.
 * tests/field/gmp.c checks it against GMP and the other paths.
 */
#include "field/fr.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define IFMA __attribute__((target("avx512f,avx512ifma")))
#define M52 0xfffffffffffffULL

/* The limb loops must be unrolled (at -O2 GCC keeps them rolled, and the
 * accumulators then live in memory: 3x slower). */

/* r in radix 2^52, and -r^-1 mod 2^52. */
static const uint64_t fr_ifma_r[5] = {
	0xfffff00000001ULL, 0x2fffe5bfefffULL, 0x9a1d80553bda4ULL,
	0x7d483339d8080ULL, 0x73eda753299dULL,
};

/* 8 elements (a[k].l[i] for k < 8) as four vectors of word i. */
static IFMA void fr_ifma_load(__m512i w[4], const fr_t *a)
{
	/* Rows are elements, columns words: a 4x8 transpose by gathers
	 * would be slow, so two elements share a 512-bit register and
	 * permutes pick word i of each. */
	__m512i e01 = _mm512_loadu_si512((const void *)&a[0]);
	__m512i e23 = _mm512_loadu_si512((const void *)&a[2]);
	__m512i e45 = _mm512_loadu_si512((const void *)&a[4]);
	__m512i e67 = _mm512_loadu_si512((const void *)&a[6]);
	__m512i x0 = _mm512_permutex2var_epi64(e01, _mm512_set_epi64(13, 9, 12, 8, 5, 1, 4, 0), e23);
	__m512i x1 = _mm512_permutex2var_epi64(e45, _mm512_set_epi64(13, 9, 12, 8, 5, 1, 4, 0), e67);
	__m512i y0 = _mm512_permutex2var_epi64(e01, _mm512_set_epi64(15, 11, 14, 10, 7, 3, 6, 2), e23);
	__m512i y1 = _mm512_permutex2var_epi64(e45, _mm512_set_epi64(15, 11, 14, 10, 7, 3, 6, 2), e67);
	/* x0 = [a0w0 a1w0 a0w1 a1w1 a2w0 a3w0 a2w1 a3w1]; x1 likewise for 4..7 */
	w[0] = _mm512_permutex2var_epi64(x0, _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), x1);
	w[1] = _mm512_permutex2var_epi64(x0, _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2), x1);
	w[2] = _mm512_permutex2var_epi64(y0, _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), y1);
	w[3] = _mm512_permutex2var_epi64(y0, _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2), y1);
}

/* The inverse of fr_ifma_load. */
static IFMA void fr_ifma_store(fr_t *out, const __m512i w[4])
{
	/* w[i] = [e0..e7 word i]; pair words (0,1) and (2,3) per element. */
	__m512i p01lo = _mm512_permutex2var_epi64(w[0], _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), w[1]);
	__m512i p01hi = _mm512_permutex2var_epi64(w[0], _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), w[1]);
	__m512i p23lo = _mm512_permutex2var_epi64(w[2], _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), w[3]);
	__m512i p23hi = _mm512_permutex2var_epi64(w[2], _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), w[3]);
	/* p01lo = [e0w0 e0w1 e1w0 e1w1 e2w0 e2w1 e3w0 e3w1] */
	const __m512i q0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
	const __m512i q1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
	_mm512_storeu_si512((void *)&out[0], _mm512_permutex2var_epi64(p01lo, q0, p23lo));
	_mm512_storeu_si512((void *)&out[2], _mm512_permutex2var_epi64(p01lo, q1, p23lo));
	_mm512_storeu_si512((void *)&out[4], _mm512_permutex2var_epi64(p01hi, q0, p23hi));
	_mm512_storeu_si512((void *)&out[6], _mm512_permutex2var_epi64(p01hi, q1, p23hi));
}

IFMA void fr_mul8_ifma(fr_t *out, const fr_t *a, const fr_t *b)
{
	const __m512i m52 = _mm512_set1_epi64((long long)M52), zero = _mm512_setzero_si512();
	const __m512i n0 = _mm512_set1_epi64((long long)(0xfffffffeffffffffULL & M52));
	__m512i w[4], A[5], B[5], R[5], T[6];

	#pragma GCC unroll 5
	for (int j = 0; j < 5; j++)
		R[j] = _mm512_set1_epi64((long long)fr_ifma_r[j]);
	/* a * 16 in radix 2^52 */
	fr_ifma_load(w, a);
	A[0] = _mm512_and_si512(_mm512_slli_epi64(w[0], 4), m52);
	A[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[0], 48), _mm512_slli_epi64(w[1], 16)), m52);
	A[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[1], 36), _mm512_slli_epi64(w[2], 28)), m52);
	A[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[2], 24), _mm512_slli_epi64(w[3], 40)), m52);
	A[4] = _mm512_srli_epi64(w[3], 12);
	/* b in radix 2^52 */
	fr_ifma_load(w, b);
	B[0] = _mm512_and_si512(w[0], m52);
	B[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), m52);
	B[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), m52);
	B[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), m52);
	B[4] = _mm512_srli_epi64(w[3], 16);

	#pragma GCC unroll 5
	for (int j = 0; j < 6; j++)
		T[j] = zero;
	#pragma GCC unroll 5
	for (int i = 0; i < 5; i++) {
		#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			T[j] = _mm512_madd52lo_epu64(T[j], A[j], B[i]);
			T[j + 1] = _mm512_madd52hi_epu64(T[j + 1], A[j], B[i]);
		}
		/* only T[0]'s low 52 bits enter the product: m = t mod 2^52 * n0 */
		__m512i m = _mm512_madd52lo_epu64(zero, T[0], n0);
		#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			T[j] = _mm512_madd52lo_epu64(T[j], m, R[j]);
			T[j + 1] = _mm512_madd52hi_epu64(T[j + 1], m, R[j]);
		}
		/* T[0] is now 0 mod 2^52: drop it, keeping its carry. */
		T[0] = _mm512_add_epi64(T[1], _mm512_srli_epi64(T[0], 52));
		#pragma GCC unroll 5
		for (int j = 1; j < 5; j++)
			T[j] = T[j + 1];
		T[5] = zero;
	}
	/* Carries, then t - r; keep t where that borrows. */
	#pragma GCC unroll 5
	for (int j = 0; j < 4; j++) {
		T[j + 1] = _mm512_add_epi64(T[j + 1], _mm512_srli_epi64(T[j], 52));
		T[j] = _mm512_and_si512(T[j], m52);
	}
	__m512i D[5], borrow = zero;
	#pragma GCC unroll 5
	for (int j = 0; j < 5; j++) {
		D[j] = _mm512_sub_epi64(_mm512_sub_epi64(T[j], R[j]), borrow);
		borrow = _mm512_srli_epi64(D[j], 63);
		D[j] = _mm512_and_si512(D[j], m52);
	}
	__mmask8 keep = _mm512_cmpneq_epi64_mask(borrow, zero);
	#pragma GCC unroll 5
	for (int j = 0; j < 5; j++)
		T[j] = _mm512_mask_blend_epi64(keep, D[j], T[j]);
	/* radix 2^52 -> 4 x 64 */
	w[0] = _mm512_or_si512(T[0], _mm512_slli_epi64(T[1], 52));
	w[1] = _mm512_or_si512(_mm512_srli_epi64(T[1], 12), _mm512_slli_epi64(T[2], 40));
	w[2] = _mm512_or_si512(_mm512_srli_epi64(T[2], 24), _mm512_slli_epi64(T[3], 28));
	w[3] = _mm512_or_si512(_mm512_srli_epi64(T[3], 36), _mm512_slli_epi64(T[4], 16));
	fr_ifma_store(out, w);
}

void fr_muln_ifma(fr_t *out, const fr_t *a, const fr_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		fr_mul8_ifma(out + i, a + i, b + i);
	for (; i < n; i++)
		fr_mul_adx(out + i, a + i, b + i);
}

#endif
