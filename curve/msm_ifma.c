/*
 * msm_ifma: the G1 MSM's batched affine bucket additions, sixteen at a
 * time with AVX-512 IFMA.
 *
 * A bucket addition is six Fp products (three for the shared inversion,
 * three for the addition itself), and on one core those products were
 * about 60% of an MSM's time. VPMADD52LUQ / VPMADD52HUQ do eight 52 x 52
 * bit products at once; with each lane of a vector holding one element as
 * eight 52-bit limbs (radix 2^52, 416 bits), eight independent additions
 * run side by side, and on the Zen 5 this was written on a lane's product
 * costs about a sixth of one MULX/ADX product (field/fp_adx.c). Two such
 * vectors are in flight at once (MV_W), their instructions interleaved.
 *
 * The batch (see msm_flush in curve/msm_priv.h) is dealt out to the
 * lanes: lane l takes entries l, l + 16, l + 32, ... Each lane keeps its
 * own running product of the denominators x2 - x1 (Montgomery's trick,
 * sixteen chains), the sixteen totals are inverted together by one scalar
 * inversion, and the backward pass gives each entry its inverse and its
 * sum, as the scalar code does for one chain. An entry whose x equals its
 * bucket's (it would double or cancel the bucket) is found from the
 * gathered words in the forward pass, sits out (a denominator of one)
 * and is handed back to the scalar code.
 *
 * The Montgomery product here reduces by 2^416 where the rest of provisor
 * (Montgomery form with R = 2^384) reduces by 2^384. As in fr_ifma.c, one
 * factor enters shifted left by 32 bits: (a 2^32) b / 2^416 = a b / 2^384,
 * exactly fp_mul's product, so values stay in provisor's form and the
 * shift is a limb shuffle, not a multiplication. Between operations values
 * are kept below 2p rather than below p (the product of two of them,
 * divided by 2^384, stays below 1.3p, see the bounds at each step); they
 * are brought below p only where they leave, as bucket coordinates, which
 * must be canonical because the MSM compares them bit for bit.
 *
 * Subtractions are limb-wise on 64-bit lanes (limbs may go negative) plus
 * a multiple of p that keeps the total positive, then one pass of signed
 * carries (arithmetic shifts) brings every limb back below 2^52, as the
 * products' inputs need.
 *
 * Where the time goes (one Zen 5 core, buckets and points in cache): about
 * 72 ns an addition, of which the products are 26; gathers and scatters
 * cost under 7, and the rest is the conversions, carries and reductions
 * around the products. A whole 2^16-point MSM went from about 300 to about
 * 155 ns per point and window.
 *
 * Compiled for any x86-64 with per-function target attributes; msm.c
 * calls it only where fr_have_ifma() says the CPU and the OS allow it.
 * tests/curve/msm_ifma.c checks it against scalar additions.
 */
#include "curve/msm_priv.h"

#include <stddef.h>
#include <string.h>

#include "curve/curve.h"
#include "field/fp.h"
#include "field/fr.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define IFMA __attribute__((target("avx512f,avx512ifma")))
#define IFMA_INLINE static inline __attribute__((always_inline, target("avx512f,avx512ifma")))
#define IFMA_NOINLINE static __attribute__((noinline, target("avx512f,avx512ifma")))
#define M52 0xfffffffffffffULL

/* Eight elements, limb j of each in vector l[j]. */
typedef struct {
	__m512i l[8];
} mv_t;

/* p, 2p, 3p; p and 2p shifted left by 32 bits; one (R mod p), shifted and
 * plain: radix 2^52, least significant limb first, each limb repeated
 * over the eight lanes, so that a limb is a vector in memory. The
 * products take p's limbs as memory operands (mv_madd_lo); written as
 * immediates, every use had been a MOVABS and a broadcast, a sixth of the
 * kernel's instructions (gcc still folds some of the others that way). */
#define MV_B8(x) { x, x, x, x, x, x, x, x }
static const uint64_t mv_p[8][8] __attribute__((aligned(64))) = {
	MV_B8(0xeffffffffaaabULL),
	MV_B8(0xfeb153ffffb9fULL),
	MV_B8(0x6b0f6241eabffULL),
	MV_B8(0x12bf6730d2a0fULL),
	MV_B8(0x764774b84f385ULL),
	MV_B8(0x1ba7b6434bacdULL),
	MV_B8(0x1ea397fe69a4bULL),
	MV_B8(0x000000001a011ULL),
};
static const uint64_t mv_2p[8][8] __attribute__((aligned(64))) = {
	MV_B8(0xdffffffff5556ULL),
	MV_B8(0xfd62a7ffff73fULL),
	MV_B8(0xd61ec483d57ffULL),
	MV_B8(0x257ece61a541eULL),
	MV_B8(0xec8ee9709e70aULL),
	MV_B8(0x374f6c869759aULL),
	MV_B8(0x3d472ffcd3496ULL),
	MV_B8(0x0000000034022ULL),
};
static const uint64_t mv_3p[8][8] __attribute__((aligned(64))) = {
	MV_B8(0xcffffffff0001ULL),
	MV_B8(0xfc13fbffff2dfULL),
	MV_B8(0x412e26c5c03ffULL),
	MV_B8(0x383e359277e2eULL),
	MV_B8(0x62d65e28eda8fULL),
	MV_B8(0x52f722c9e3068ULL),
	MV_B8(0x5beac7fb3cee1ULL),
	MV_B8(0x000000004e033ULL),
};
static const uint64_t mv_p_s[8][8] __attribute__((aligned(64))) = {
	MV_B8(0xfaaab00000000ULL),
	MV_B8(0xffb9fefffffffULL),
	MV_B8(0xeabfffeb153ffULL),
	MV_B8(0xd2a0f6b0f6241ULL),
	MV_B8(0x4f38512bf6730ULL),
	MV_B8(0x4bacd764774b8ULL),
	MV_B8(0x69a4b1ba7b643ULL),
	MV_B8(0x1a0111ea397feULL),
};
static const uint64_t mv_2p_s[8][8] __attribute__((aligned(64))) = {
	MV_B8(0xf555600000000ULL),
	MV_B8(0xff73fdfffffffULL),
	MV_B8(0xd57fffd62a7ffULL),
	MV_B8(0xa541ed61ec483ULL),
	MV_B8(0x9e70a257ece61ULL),
	MV_B8(0x9759aec8ee970ULL),
	MV_B8(0xd3496374f6c86ULL),
	MV_B8(0x340223d472ffcULL),
};
static const uint64_t mv_one_s[8][8] __attribute__((aligned(64))) = {
	MV_B8(0x2fffd00000000ULL),
	MV_B8(0x0276090000000ULL),
	MV_B8(0xbf4000bc40c00ULL),
	MV_B8(0x985753c758baeULL),
	MV_B8(0x3705257455f48ULL),
	MV_B8(0x56ec6d77ce585ULL),
	MV_B8(0x4935c071a97a2ULL),
	MV_B8(0x15f65ec3fa80eULL),
};
static const uint64_t mv_one[8][8] __attribute__((aligned(64))) = {
	MV_B8(0x900000002fffdULL),
	MV_B8(0x0bc40c0002760ULL),
	MV_B8(0x3c758baebf400ULL),
	MV_B8(0x57455f4898575ULL),
	MV_B8(0xd77ce58537052ULL),
	MV_B8(0x071a97a256ec6ULL),
	MV_B8(0xec3fa80e4935cULL),
	MV_B8(0x0000000015f65ULL),
};
static const uint64_t mv_m52[8] __attribute__((aligned(64))) = MV_B8(M52);
static const uint64_t mv_n0[8] __attribute__((aligned(64))) = MV_B8(0x3fffcfffcfffdULL);	/* -p^-1 mod 2^52 */

#define MV_M52 _mm512_load_si512((const void *)mv_m52)
/* Limb j of a constant on all lanes. */
#define MV_K(k, j) _mm512_load_si512((const void *)(k)[j])

IFMA_INLINE void mv_const(mv_t *o, const uint64_t k[8][8])
{
	#pragma GCC unroll 8
	for (int j = 0; j < 8; j++)
		o->l[j] = MV_K(k, j);
}

/* Every helper below works on MV_W vectors (MV_W x 8 lanes) at once,
 * the MV_W instruction streams interleaved: a product is a chain of
 * dependent multiply-adds (four into each accumulator per limb of b), and
 * alone, two independent products took 5.9 ns a lane where one chain took
 * 7.2 (Zen 5). In the kernel the gain was within the noise of a shared
 * machine; the product is then out of line, or six inlined copies of the
 * doubled code outgrew the instruction cache and cost more than they won. */
#define MV_W 2
#define MV_LANES (8 * MV_W)

/* t + the low (high) 52 bits of x y, lane by lane, x from memory. As
 * asm, because with intrinsics gcc kept x's limbs in registers, reused
 * over a product's eight rows, and spilled the accumulators instead: at
 * MV_W = 2 three thousand stack moves in the kernel. */
IFMA_INLINE __m512i mv_madd_lo(__m512i t, const __m512i *x, __m512i y)
{
	__asm__("vpmadd52luq %2, %1, %0" : "+v"(t) : "v"(y), "m"(*x));
	return t;
}

IFMA_INLINE __m512i mv_madd_hi(__m512i t, const __m512i *x, __m512i y)
{
	__asm__("vpmadd52huq %2, %1, %0" : "+v"(t) : "v"(y), "m"(*x));
	return t;
}

/*
 * o = a b / 2^416 mod p, for a and b with limbs below 2^52: word-serial
 * Montgomery (CIOS) on every lane, carries left in the 64-bit
 * accumulators until the end. The result is below a b / 2^416 + p, with
 * limbs below 2^52. Called with a = x 2^32 (x < 2^384) and b = y it gives
 * x y / 2^384 + (less than p): fp_mul's product up to a multiple of p.
 * o may be a or b.
 */
IFMA_NOINLINE void mv_mul(mv_t *o, const mv_t *a, const mv_t *b)
{
	const __m512i zero = _mm512_setzero_si512(), n0 = _mm512_load_si512((const void *)mv_n0);
	__m512i T[MV_W][9], bi[MV_W], m[MV_W];

	#pragma GCC unroll 9
	for (int j = 0; j < 9; j++)
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++)
			T[k][j] = zero;
	#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++)
			bi[k] = b[k].l[i];
		#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			#pragma GCC unroll 2
			for (int k = 0; k < MV_W; k++) {
				T[k][j] = mv_madd_lo(T[k][j], &a[k].l[j], bi[k]);
				T[k][j + 1] = mv_madd_hi(T[k][j + 1], &a[k].l[j], bi[k]);
			}
		/* only T[0]'s low 52 bits enter m */
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++)
			m[k] = _mm512_madd52lo_epu64(zero, T[k][0], n0);
		#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			#pragma GCC unroll 2
			for (int k = 0; k < MV_W; k++) {
				T[k][j] = mv_madd_lo(T[k][j], (const __m512i *)mv_p[j], m[k]);
				T[k][j + 1] = mv_madd_hi(T[k][j + 1], (const __m512i *)mv_p[j], m[k]);
			}
		/* T[0] is now 0 mod 2^52: drop it, keeping its carry. */
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++) {
			T[k][0] = _mm512_add_epi64(T[k][1], _mm512_srli_epi64(T[k][0], 52));
			#pragma GCC unroll 8
			for (int j = 1; j < 8; j++)
				T[k][j] = T[k][j + 1];
			T[k][8] = zero;
		}
	}
	#pragma GCC unroll 8
	for (int j = 0; j < 7; j++)
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++) {
			T[k][j + 1] = _mm512_add_epi64(T[k][j + 1], _mm512_srli_epi64(T[k][j], 52));
			o[k].l[j] = _mm512_and_si512(T[k][j], MV_M52);
		}
	#pragma GCC unroll 2
	for (int k = 0; k < MV_W; k++)
		o[k].l[7] = T[k][7];
}

/* Limbs back below 2^52 (the top one takes the rest), for a non-negative
 * total whose limbs may be negative or above 2^52: signed carries. */
IFMA_INLINE void mv_norm(mv_t *v)
{
	#pragma GCC unroll 8
	for (int j = 0; j < 7; j++)
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++) {
			v[k].l[j + 1] = _mm512_add_epi64(v[k].l[j + 1], _mm512_srai_epi64(v[k].l[j], 52));
			v[k].l[j] = _mm512_and_si512(v[k].l[j], MV_M52);
		}
}

/* v mod p for v below (q + 1) p (q <= 3), lane by lane, v's limbs
 * anything whose total is not negative: v, v - p, ..., v - qp are
 * normalised side by side (independent carry chains, where one after the
 * other they were a long dependent one) and the last that is not
 * negative kept. */
static const uint64_t (*const mv_np[4])[8] = { NULL, mv_p, mv_2p, mv_3p };

IFMA_INLINE void mv_reduce(mv_t *v, int q)
{
	mv_t d[3][MV_W];

	for (int i = 0; i < q; i++)
		#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			#pragma GCC unroll 2
			for (int k = 0; k < MV_W; k++)
				d[i][k].l[j] = _mm512_sub_epi64(v[k].l[j], MV_K(mv_np[i + 1], j));
	mv_norm(v);
	for (int i = 0; i < q; i++)
		mv_norm(d[i]);
	for (int i = 0; i < q; i++)
		#pragma GCC unroll 2
		for (int k = 0; k < MV_W; k++) {
			__mmask8 ok = _mm512_cmpge_epi64_mask(d[i][k].l[7], _mm512_setzero_si512());

			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				v[k].l[j] = _mm512_mask_blend_epi64(ok, v[k].l[j], d[i][k].l[j]);
		}
}

/* o = x 2^32 for x < 2^384: limbs move up 32 bits. o may be x. */
IFMA_INLINE void mv_shift(mv_t *o, const mv_t *x)
{
	#pragma GCC unroll 2
	for (int k = 0; k < MV_W; k++) {
		__m512i prev = _mm512_setzero_si512();

		#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			__m512i cur = x[k].l[j];

			o[k].l[j] = _mm512_ternarylogic_epi64(_mm512_slli_epi64(cur, 32),
							      _mm512_srli_epi64(prev, 20), MV_M52,
							      0xa8);	/* (a | b) & c */
			prev = cur;
		}
	}
}

/* The six 64-bit words of the field elements at addr[l] + off, lane l
 * (the offset rides as the gather's base); zero in the lanes not live. */
IFMA_INLINE void mv_gather(__m512i w[6], __m512i addr, __mmask8 live, int off)
{
	#pragma GCC unroll 6
	for (int i = 0; i < 6; i++)
		w[i] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), live, addr,
						   (const void *)(uintptr_t)(off + 8 * i), 1);
}

#define MV_OR_AND(a, b) _mm512_ternarylogic_epi64((a), (b), MV_M52, 0xa8)

/* Six 64-bit words (an element below 2^384) to radix 2^52. */
IFMA_INLINE void mv_from_words(mv_t *o, const __m512i w[6])
{
	o->l[0] = _mm512_and_si512(w[0], MV_M52);
	o->l[1] = MV_OR_AND(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12));
	o->l[2] = MV_OR_AND(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24));
	o->l[3] = MV_OR_AND(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36));
	o->l[4] = MV_OR_AND(_mm512_srli_epi64(w[3], 16), _mm512_slli_epi64(w[4], 48));
	o->l[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), MV_M52);
	o->l[6] = MV_OR_AND(_mm512_srli_epi64(w[4], 56), _mm512_slli_epi64(w[5], 8));
	o->l[7] = _mm512_srli_epi64(w[5], 44);
}

/* The same, times 2^32 (bit k of the element goes to bit k + 32). */
IFMA_INLINE void mv_from_words_s(mv_t *o, const __m512i w[6])
{
	o->l[0] = _mm512_and_si512(_mm512_slli_epi64(w[0], 32), MV_M52);
	o->l[1] = MV_OR_AND(_mm512_srli_epi64(w[0], 20), _mm512_slli_epi64(w[1], 44));
	o->l[2] = _mm512_and_si512(_mm512_srli_epi64(w[1], 8), MV_M52);
	o->l[3] = MV_OR_AND(_mm512_srli_epi64(w[1], 60), _mm512_slli_epi64(w[2], 4));
	o->l[4] = MV_OR_AND(_mm512_srli_epi64(w[2], 48), _mm512_slli_epi64(w[3], 16));
	o->l[5] = MV_OR_AND(_mm512_srli_epi64(w[3], 36), _mm512_slli_epi64(w[4], 28));
	o->l[6] = MV_OR_AND(_mm512_srli_epi64(w[4], 24), _mm512_slli_epi64(w[5], 40));
	o->l[7] = _mm512_srli_epi64(w[5], 12);
}

/* Radix 2^52 (normalised, below 2^384) to six 64-bit words. */
IFMA_INLINE void mv_to_words(__m512i w[6], const mv_t *v)
{
	w[0] = _mm512_or_si512(v->l[0], _mm512_slli_epi64(v->l[1], 52));
	w[1] = _mm512_or_si512(_mm512_srli_epi64(v->l[1], 12), _mm512_slli_epi64(v->l[2], 40));
	w[2] = _mm512_or_si512(_mm512_srli_epi64(v->l[2], 24), _mm512_slli_epi64(v->l[3], 28));
	w[3] = _mm512_or_si512(_mm512_srli_epi64(v->l[3], 36), _mm512_slli_epi64(v->l[4], 16));
	w[4] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(v->l[4], 48), _mm512_slli_epi64(v->l[5], 4),
					 _mm512_slli_epi64(v->l[6], 56), 0xfe);	/* a | b | c */
	w[5] = _mm512_or_si512(_mm512_srli_epi64(v->l[6], 8), _mm512_slli_epi64(v->l[7], 44));
}

/* v (normalised, canonical) into the x (off 0) or y (off 48) of the
 * live lanes' buckets. */
IFMA_INLINE void mv_scatter(__m512i addr, __mmask8 live, int off, const mv_t *v)
{
	__m512i w[6];

	mv_to_words(w, v);
	#pragma GCC unroll 6
	for (int i = 0; i < 6; i++)
		_mm512_mask_i64scatter_epi64((void *)(uintptr_t)(off + 8 * i), live, addr, w[i], 1);
}

/* The lanes of entries [g, g + 8) of e[0, n): bucket and point
 * addresses, which lanes add a negated point, and which lanes hold an
 * entry (the gathers skip the others). Read as two vectors of four
 * entries: built by scalar stores and read back as one vector, the
 * addresses waited on store forwarding. */
struct mv_lanes {
	__m512i bk, pt;
	__mmask8 neg, live;
};

_Static_assert(sizeof(struct msm_entry) == 16 && offsetof(struct msm_entry, pt) == 0 &&
	       offsetof(struct msm_entry, bucket) == 8 && offsetof(struct msm_entry, neg) == 12,
	       "mv_lanes reads struct msm_entry as two words");

IFMA_INLINE void mv_lanes(struct mv_lanes *ln, const g1_affine_t *bk, const struct msm_entry *e,
			  size_t g, size_t n)
{
	size_t left = g < n ? n - g : 0;	/* the last step's second vector may be empty */
	__mmask8 m0 = left >= 4 ? 0xff : (__mmask8)((1u << (2 * left)) - 1);
	__mmask8 m1 = left >= 8 ? 0xff : left <= 4 ? 0 : (__mmask8)((1u << (2 * (left - 4))) - 1);
	__m512i e0 = _mm512_maskz_loadu_epi64(m0, left ? &e[g] : e);
	__m512i e1 = _mm512_maskz_loadu_epi64(m1, left > 4 ? &e[g + 4] : e);
	__m512i meta = _mm512_permutex2var_epi64(e0, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), e1);

	ln->pt = _mm512_permutex2var_epi64(e0, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), e1);
	/* bucket (the low half of meta) times the bucket size */
	ln->bk = _mm512_add_epi64(_mm512_set1_epi64((long long)(uintptr_t)bk),
				  _mm512_mul_epu32(meta, _mm512_set1_epi64(sizeof(g1_affine_t))));
	ln->live = left >= 8 ? 0xff : (__mmask8)((1u << left) - 1);
	ln->neg = _mm512_mask_test_epi64_mask(ln->live, meta, _mm512_set1_epi64(1LL << 32));
}

size_t msm_ifma_scratch_size(size_t n)
{
	size_t ng = (n + MV_LANES - 1) / MV_LANES;

	return 2 * ng * MV_W * sizeof(mv_t) + ng * MV_W + 64;
}

/*
 * The MV_LANES running products' inverses: acc (below 1.3p) in, inv out,
 * by one scalar inversion (Montgomery's trick over the lanes).
 */
static IFMA void mv_invert(mv_t *inv, mv_t *acc)
{
	uint64_t words[6][8];
	fp_t lane[MV_LANES], pfx[MV_LANES], tot = FP_ONE;
	__m512i w[6];

	mv_reduce(acc, 1);
	for (int k = 0; k < MV_W; k++) {
		mv_to_words(w, &acc[k]);
		for (int i = 0; i < 6; i++)
			_mm512_storeu_si512(words[i], w[i]);
		for (int l = 0; l < 8; l++)
			for (int i = 0; i < 6; i++)
				lane[8 * k + l].l[i] = words[i][l];
	}
	for (int l = 0; l < MV_LANES; l++) {
		pfx[l] = tot;
		fp_mul(&tot, &tot, &lane[l]);
	}
	fp_inv(&tot, &tot);	/* the denominators are not zero */
	for (int l = MV_LANES; l-- > 0;) {
		fp_t il;

		fp_mul(&il, &tot, &pfx[l]);
		fp_mul(&tot, &tot, &lane[l]);
		lane[l] = il;
	}
	for (int k = 0; k < MV_W; k++) {
		for (int l = 0; l < 8; l++)
			for (int i = 0; i < 6; i++)
				words[i][l] = lane[8 * k + l].l[i];
		for (int i = 0; i < 6; i++)
			w[i] = _mm512_loadu_si512(words[i]);
		mv_from_words(&inv[k], w);
	}
}

/*
 * bk[e[i].bucket] += e[i]'s point (negated when e[i].neg) for i < n, the
 * buckets distinct and filled. An entry whose point has its bucket's x
 * (it would double or cancel the bucket) is left alone: those are moved
 * to e[0, k), in order, and k returned, for the scalar code. scratch
 * holds msm_ifma_scratch_size(n) bytes. Entry i goes to lane i %
 * MV_LANES, so step g of the passes below takes entries [g MV_LANES,
 * (g + 1) MV_LANES).
 *
 * Bounds (p > 2^380.7, so 2p / 2^384 < 0.21): a product of x < c p and
 * y < d p by mv_mul is below (0.1 c d + 1) p. The denominators are below
 * 2p and the running products below 1.3p, so every product below stays
 * under 1.3p.
 */
IFMA size_t msm_ifma_add(g1_affine_t *bk, struct msm_entry *e, size_t n, void *scratch)
{
	size_t ng = (n + MV_LANES - 1) / MV_LANES, left = 0;
	mv_t *pre = (mv_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63), *den = pre + ng * MV_W;
	__mmask8 *add = (__mmask8 *)(den + ng * MV_W);	/* the lanes added, per vector */
	mv_t acc[MV_W], inv[MV_W], t[MV_W], x1[MV_W], x2[MV_W], y1[MV_W], y1s[MV_W], y2s[MV_W];
	mv_t lam[MV_W], lam_s[MV_W], v[MV_W];
	struct mv_lanes ln[MV_W];
	__m512i w[6], u[6];

	if (n == 0)
		return 0;
	for (int k = 0; k < MV_W; k++)
		mv_const(&acc[k], mv_one);
	for (size_t g = 0; g < ng; g++) {
		mv_t *d = &den[g * MV_W];

		for (int k = 0; k < MV_W; k++) {
			__mmask8 same;

			mv_lanes(&ln[k], bk, e, (g * MV_W + k) * 8, n);
			mv_gather(w, ln[k].bk, ln[k].live, 0);
			mv_gather(u, ln[k].pt, ln[k].live, 0);
			same = ln[k].live;
			#pragma GCC unroll 6
			for (int i = 0; i < 6; i++)
				same = _mm512_mask_cmpeq_epi64_mask(same, w[i], u[i]);
			add[g * MV_W + k] = ln[k].live & (__mmask8)~same;
			mv_from_words_s(&x1[k], w);
			mv_from_words_s(&x2[k], u);
			/* den = x2 - x1 + p, in (0, 2p) */
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				d[k].l[j] = _mm512_add_epi64(_mm512_sub_epi64(x2[k].l[j], x1[k].l[j]),
							     MV_K(mv_p_s, j));
		}
		mv_norm(d);
		/* one in the lanes that add nothing, which leaves their running
		 * products be */
		for (int k = 0; k < MV_W; k++)
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				d[k].l[j] = _mm512_mask_blend_epi64(add[g * MV_W + k], MV_K(mv_one_s, j), d[k].l[j]);
		mv_shift(&pre[g * MV_W], acc);
		mv_mul(acc, d, acc);
	}

	mv_invert(inv, acc);

	for (size_t g = ng; g-- > 0;) {
		mv_mul(t, &pre[g * MV_W], inv);	/* 1 / den, below 1.2p */
		mv_mul(inv, &den[g * MV_W], inv);	/* 1 / (the lanes' earlier denominators) */
		for (int k = 0; k < MV_W; k++) {
			mv_lanes(&ln[k], bk, e, (g * MV_W + k) * 8, n);
			ln[k].live = add[g * MV_W + k];
			mv_gather(w, ln[k].bk, ln[k].live, 0);
			mv_from_words(&x1[k], w);
			mv_gather(w, ln[k].bk, ln[k].live, 48);
			mv_from_words(&y1[k], w);
			mv_from_words_s(&y1s[k], w);
			mv_gather(w, ln[k].pt, ln[k].live, 0);
			mv_from_words(&x2[k], w);
			mv_gather(w, ln[k].pt, ln[k].live, 48);
			mv_from_words_s(&y2s[k], w);
			/* dy = y2 - y1 + p, or -y2 - y1 + 2p for a negated
			 * point: in (0, 2p] */
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++) {
				__m512i pos = _mm512_add_epi64(y2s[k].l[j], MV_K(mv_p_s, j));
				__m512i ngv = _mm512_sub_epi64(MV_K(mv_2p_s, j), y2s[k].l[j]);

				v[k].l[j] = _mm512_sub_epi64(_mm512_mask_blend_epi64(ln[k].neg, pos, ngv),
							     y1s[k].l[j]);
			}
		}
		mv_norm(v);
		mv_mul(lam, v, t);	/* below 1.3p */
		mv_shift(lam_s, lam);
		mv_mul(v, lam_s, lam);	/* lam^2, below 1.2p */
		/* x3 = lam^2 - x1 - x2 + 2p in (0, 3.2p), then below p */
		for (int k = 0; k < MV_W; k++)
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				v[k].l[j] = _mm512_add_epi64(_mm512_sub_epi64(v[k].l[j],
									      _mm512_add_epi64(x1[k].l[j], x2[k].l[j])),
							     MV_K(mv_2p, j));
		mv_reduce(v, 3);
		for (int k = 0; k < MV_W; k++) {
			mv_scatter(ln[k].bk, ln[k].live, 0, &v[k]);
			/* y3 = lam (x1 - x3) - y1: x1 - x3 + p in (0, 2p) */
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				x1[k].l[j] = _mm512_add_epi64(_mm512_sub_epi64(x1[k].l[j], v[k].l[j]),
							      MV_K(mv_p, j));
		}
		mv_norm(x1);
		mv_mul(v, lam_s, x1);	/* below 1.3p */
		for (int k = 0; k < MV_W; k++)
			#pragma GCC unroll 8
			for (int j = 0; j < 8; j++)
				v[k].l[j] = _mm512_add_epi64(_mm512_sub_epi64(v[k].l[j], y1[k].l[j]),
							     MV_K(mv_p, j));
		mv_reduce(v, 2);	/* from (0, 2.3p) */
		for (int k = 0; k < MV_W; k++)
			mv_scatter(ln[k].bk, ln[k].live, 48, &v[k]);
	}

	/* The entries left alone, to the front (never past where they
	 * are read). */
	for (size_t i = 0; i < n; i++)
		if (!((add[i / 8] >> (i % 8)) & 1))
			e[left++] = e[i];
	return left;
}

int msm_ifma_usable(void)
{
	return fr_have_ifma();
}

#else

int msm_ifma_usable(void)
{
	return 0;
}

size_t msm_ifma_scratch_size(size_t n)
{
	(void)n;
	return 0;
}

/* Never called (msm_ifma_usable says no): every entry left over. */
size_t msm_ifma_add(g1_affine_t *bk, struct msm_entry *e, size_t n, void *scratch)
{
	(void)bk;
	(void)e;
	(void)scratch;
	return n;
}

#endif
