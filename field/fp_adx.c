/*
 * fp_adx: Fp Montgomery multiplication for x86-64 CPUs with BMI2 and ADX.
 *
 * The same no-carry CIOS as the portable path in fp.c, in inline asm, as
 * fr_adx.c does for Fr: MULX leaves the flags alone, so each row runs two
 * independent carry chains at once (ADOX for the low halves of the
 * products, ADCX for the high halves) and the reduction step interleaves
 * with the next row's products. The final conditional subtraction of p
 * runs in the same asm block (SBB, CMOV).
 *
 * Only compiled for x86-64; fp.c calls it only when cpuid reports BMI2
 * and ADX. tests/field/fp_gmp.c checks it against GMP and the portable
 * path.
 */
#include "field/fp.h"

#if defined(__x86_64__)

static const uint64_t fp_adx_q[6] = {
	0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
	0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
static const uint64_t fp_adx_inv = 0x89f3fffcfffcfffdULL;

/*
 * Why this schedule (measured on the AMD Zen 3 these builds run on; see
 * bench/fp): MULX issues one per cycle only while nothing else competes
 * for its port, and the plain ALU operations around it (ADCX/ADOX, MOV
 * of an immediate, XOR) share that port. A row of six MULX with their
 * eleven additions runs in ~6.7 cycles alone, but the whole
 * multiplication (72 MULX, 6 IMUL, ~190 other operations) is bound by
 * the multiplier port plus its share of the other operations, not by the
 * dependency chain (~76 cycles) and not by the m = t0 * -p^-1 latency:
 * removing the IMUL dependency altogether changed nothing. So every
 * operation that is not a product or an addition of one is gone: a
 * register z holds zero for the carry folds (instead of a MOV $0 per
 * row), the XOR that clears both flags at each row zeroes z itself,
 * -p^-1 is loaded from memory (a load, not an ALU op), and the final
 * conditional subtraction uses the freed pointer and scratch registers
 * with SBB and CMOV inside the same asm block. This took the function
 * from ~130 to ~110 cycles.
 */

/* t += x * y[i]; A collects the top word (both chains' carries). */
#define FP_ADX_ROW(off) \
	"xorl %k[z], %k[z]\n\t" \
	"movq " #off "(%[y]), %%rdx\n\t" \
	"mulxq 0(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t0]\n\t" \
	"adcxq %[A], %[t1]\n\t" \
	"mulxq 8(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t1]\n\t" \
	"adcxq %[A], %[t2]\n\t" \
	"mulxq 16(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t2]\n\t" \
	"adcxq %[A], %[t3]\n\t" \
	"mulxq 24(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t3]\n\t" \
	"adcxq %[A], %[t4]\n\t" \
	"mulxq 32(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t4]\n\t" \
	"adcxq %[A], %[t5]\n\t" \
	"mulxq 40(%[x]), %[ax], %[A]\n\t" \
	"adoxq %[ax], %[t5]\n\t" \
	"adcxq %[z], %[A]\n\t" \
	"adoxq %[z], %[A]\n\t"

/* m = t0 * -p^-1; t = (t + m * p) / 2^64, A folded into the top word.
 * p's top limb < 2^63 - 1 keeps the result within six words. */
#define FP_ADX_REDUCE \
	"movq %[inv], %%rdx\n\t" \
	"imulq %[t0], %%rdx\n\t" \
	"xorl %k[z], %k[z]\n\t" \
	"mulxq %[q0], %[ax], %[c]\n\t" \
	"adcxq %[t0], %[ax]\n\t" \
	"movq %[c], %[t0]\n\t" \
	"adcxq %[t1], %[t0]\n\t" \
	"mulxq %[q1], %[ax], %[t1]\n\t" \
	"adoxq %[ax], %[t0]\n\t" \
	"adcxq %[t2], %[t1]\n\t" \
	"mulxq %[q2], %[ax], %[t2]\n\t" \
	"adoxq %[ax], %[t1]\n\t" \
	"adcxq %[t3], %[t2]\n\t" \
	"mulxq %[q3], %[ax], %[t3]\n\t" \
	"adoxq %[ax], %[t2]\n\t" \
	"adcxq %[t4], %[t3]\n\t" \
	"mulxq %[q4], %[ax], %[t4]\n\t" \
	"adoxq %[ax], %[t3]\n\t" \
	"adcxq %[t5], %[t4]\n\t" \
	"mulxq %[q5], %[ax], %[t5]\n\t" \
	"adoxq %[ax], %[t4]\n\t" \
	"adcxq %[z], %[t5]\n\t" \
	"adoxq %[A], %[t5]\n\t"

/* t < 2p: t - p unless that borrows, with SBB and CMOV into the six
 * scratch registers the loop no longer needs. */
#define FP_ADX_FINAL \
	"movq %[t0], %[x]\n\t" \
	"movq %[t1], %[y]\n\t" \
	"movq %[t2], %[ax]\n\t" \
	"movq %[t3], %[A]\n\t" \
	"movq %[t4], %[c]\n\t" \
	"movq %[t5], %[z]\n\t" \
	"subq %[q0], %[x]\n\t" \
	"sbbq %[q1], %[y]\n\t" \
	"sbbq %[q2], %[ax]\n\t" \
	"sbbq %[q3], %[A]\n\t" \
	"sbbq %[q4], %[c]\n\t" \
	"sbbq %[q5], %[z]\n\t" \
	"cmovncq %[x], %[t0]\n\t" \
	"cmovncq %[y], %[t1]\n\t" \
	"cmovncq %[ax], %[t2]\n\t" \
	"cmovncq %[A], %[t3]\n\t" \
	"cmovncq %[c], %[t4]\n\t" \
	"cmovncq %[z], %[t5]\n\t"

void fp_mul_adx(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t t0, t1, t2, t3, t4, t5, A, ax, c, z;
	const uint64_t *x = a->l, *y = b->l;

	__asm__(
		/* row 0: t = x * y[0], no previous t to add */
		"xorl %k[z], %k[z]\n\t"
		"movq 0(%[y]), %%rdx\n\t"
		"mulxq 0(%[x]), %[t0], %[t1]\n\t"
		"mulxq 8(%[x]), %[ax], %[t2]\n\t"
		"adoxq %[ax], %[t1]\n\t"
		"mulxq 16(%[x]), %[ax], %[t3]\n\t"
		"adoxq %[ax], %[t2]\n\t"
		"mulxq 24(%[x]), %[ax], %[t4]\n\t"
		"adoxq %[ax], %[t3]\n\t"
		"mulxq 32(%[x]), %[ax], %[t5]\n\t"
		"adoxq %[ax], %[t4]\n\t"
		"mulxq 40(%[x]), %[ax], %[A]\n\t"
		"adoxq %[ax], %[t5]\n\t"
		"adoxq %[z], %[A]\n\t"
		FP_ADX_REDUCE
		FP_ADX_ROW(8)
		FP_ADX_REDUCE
		FP_ADX_ROW(16)
		FP_ADX_REDUCE
		FP_ADX_ROW(24)
		FP_ADX_REDUCE
		FP_ADX_ROW(32)
		FP_ADX_REDUCE
		FP_ADX_ROW(40)
		FP_ADX_REDUCE
		FP_ADX_FINAL
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [t4] "=&r"(t4), [t5] "=&r"(t5),
		  [A] "=&r"(A), [ax] "=&r"(ax), [c] "=&r"(c), [z] "=&r"(z),
		  [x] "+&r"(x), [y] "+&r"(y)
		: [q0] "m"(fp_adx_q[0]), [q1] "m"(fp_adx_q[1]),
		  [q2] "m"(fp_adx_q[2]), [q3] "m"(fp_adx_q[3]),
		  [q4] "m"(fp_adx_q[4]), [q5] "m"(fp_adx_q[5]),
		  [inv] "m"(fp_adx_inv)
		: "rdx", "cc", "memory");
	(void)A;
	(void)ax;
	(void)c;
	(void)z;
	(void)x;
	(void)y;
	out->l[0] = t0;
	out->l[1] = t1;
	out->l[2] = t2;
	out->l[3] = t3;
	out->l[4] = t4;
	out->l[5] = t5;
}

void fp_sqr_adx(fp_t *out, const fp_t *a)
{
	fp_mul_adx(out, a, a);
}

/*
 * The plain 768-bit product for the lazily reduced towers (fp.h): the
 * rows of the multiplication above without the reduction steps between
 * them, in the same two carry chains. Each row finishes the lowest word
 * of its window, which goes straight to memory; that register then takes
 * the row's top word, so the six-word window rotates through the same six
 * registers and after the last row holds the upper half in order. The
 * block is volatile: its only effect is the stores (fp_lazy.h).
 */

/* Row i (i >= 1) on the window W0..W5 = t_i..t_{i+5}: t += x * y[i]
 * 2^(64 i), t_i stored, W0 becomes t_{i+6}. */
#define FP_ADX_WROW(off, W0, W1, W2, W3, W4, W5) \
	"xorl %k[ax], %k[ax]\n\t" \
	"movq " #off "(%[y]), %%rdx\n\t" \
	"mulxq 0(%[x]), %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #W0 "]\n\t" \
	"adcxq %[hi], %[" #W1 "]\n\t" \
	"movq %[" #W0 "], " #off "(%[o])\n\t" \
	"mulxq 8(%[x]), %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #W1 "]\n\t" \
	"adcxq %[hi], %[" #W2 "]\n\t" \
	"mulxq 16(%[x]), %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #W2 "]\n\t" \
	"adcxq %[hi], %[" #W3 "]\n\t" \
	"mulxq 24(%[x]), %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #W3 "]\n\t" \
	"adcxq %[hi], %[" #W4 "]\n\t" \
	"mulxq 32(%[x]), %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #W4 "]\n\t" \
	"adcxq %[hi], %[" #W5 "]\n\t" \
	"mulxq 40(%[x]), %[ax], %[" #W0 "]\n\t" \
	"adoxq %[ax], %[" #W5 "]\n\t" \
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[" #W0 "]\n\t" \
	"adoxq %[ax], %[" #W0 "]\n\t"

void fp_mul_wide_adx(fp_wide_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t w0, w1, w2, w3, w4, w5, ax, hi;

	__asm__ volatile(
		/* row 0: t = x * y[0], one carry chain; t_0 stored */
		"movq 0(%[y]), %%rdx\n\t"
		"mulxq 0(%[x]), %[ax], %[w1]\n\t"
		"movq %[ax], 0(%[o])\n\t"
		"mulxq 8(%[x]), %[ax], %[w2]\n\t"
		"addq %[ax], %[w1]\n\t"
		"mulxq 16(%[x]), %[ax], %[w3]\n\t"
		"adcq %[ax], %[w2]\n\t"
		"mulxq 24(%[x]), %[ax], %[w4]\n\t"
		"adcq %[ax], %[w3]\n\t"
		"mulxq 32(%[x]), %[ax], %[w5]\n\t"
		"adcq %[ax], %[w4]\n\t"
		"mulxq 40(%[x]), %[ax], %[w0]\n\t"
		"adcq %[ax], %[w5]\n\t"
		"adcq $0, %[w0]\n\t"
		FP_ADX_WROW(8, w1, w2, w3, w4, w5, w0)
		FP_ADX_WROW(16, w2, w3, w4, w5, w0, w1)
		FP_ADX_WROW(24, w3, w4, w5, w0, w1, w2)
		FP_ADX_WROW(32, w4, w5, w0, w1, w2, w3)
		FP_ADX_WROW(40, w5, w0, w1, w2, w3, w4)
		"movq %[w0], 48(%[o])\n\t"
		"movq %[w1], 56(%[o])\n\t"
		"movq %[w2], 64(%[o])\n\t"
		"movq %[w3], 72(%[o])\n\t"
		"movq %[w4], 80(%[o])\n\t"
		"movq %[w5], 88(%[o])\n\t"
		: [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3),
		  [w4] "=&r"(w4), [w5] "=&r"(w5), [ax] "=&r"(ax), [hi] "=&r"(hi)
		: [x] "r"(a->l), [y] "r"(b->l), [o] "r"(out->l)
		: "rdx", "cc", "memory");
	(void)w0;
	(void)w1;
	(void)w2;
	(void)w3;
	(void)w4;
	(void)w5;
	(void)ax;
	(void)hi;
}

/*
 * Montgomery reduction alone, two words per step: m = t * -p^-1 mod 2^128
 * (m_lo = t0 * inv, m_hi = hi(t0 * inv) + t0 * inv_hi + t1 * inv), then
 * t = (t + m p) / 2^128, three times over the low half, then the high
 * half added and the result brought below p. One word per step, as the
 * multiplication reduces, is a chain of six IMUL-MULX-ADD rounds that
 * nothing else overlaps (fp_redc alone has no products to interleave):
 * about 58 cycles. With 128-bit digits the chain has three rounds, each
 * a little longer; the products of the two rows overlap. For t below
 * 2^384 the sum t + m p stays below 2^512 (eight words, two of them new
 * each step) and (t + m p) / 2^128 below 2^256 + p; for a below
 * p * 2^384 the end result is below 2p (fp.c, fp_redc_portable).
 *
 * The eight words rotate through eight registers: a step consumes
 * R0, R1 (zero afterwards) and leaves t in R2..R7.
 */
#define FP_ADX_R2STEP(R0, R1, R2, R3, R4, R5, R6, R7) \
	"movq %[inv], %%rdx\n\t" \
	"mulxq %[" #R0 "], %%rdx, %[mh]\n\t" \
	"movq %[" #R0 "], %[ax]\n\t" \
	"imulq %[invh], %[ax]\n\t" \
	"addq %[ax], %[mh]\n\t" \
	"movq %[" #R1 "], %[ax]\n\t" \
	"imulq %[inv], %[ax]\n\t" \
	"addq %[ax], %[mh]\n\t" \
	/* t += m_lo p, the new top word in R6 */ \
	"xorl %k[ax], %k[ax]\n\t" \
	"mulxq %[q0], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R0 "]\n\t" \
	"adcxq %[hi], %[" #R1 "]\n\t" \
	"mulxq %[q1], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R1 "]\n\t" \
	"adcxq %[hi], %[" #R2 "]\n\t" \
	"mulxq %[q2], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R2 "]\n\t" \
	"adcxq %[hi], %[" #R3 "]\n\t" \
	"mulxq %[q3], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R3 "]\n\t" \
	"adcxq %[hi], %[" #R4 "]\n\t" \
	"mulxq %[q4], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R4 "]\n\t" \
	"adcxq %[hi], %[" #R5 "]\n\t" \
	"mulxq %[q5], %[ax], %[" #R6 "]\n\t" \
	"adoxq %[ax], %[" #R5 "]\n\t" \
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[" #R6 "]\n\t" \
	"adoxq %[ax], %[" #R6 "]\n\t" \
	/* t += m_hi p 2^64, the new top word in R7 */ \
	"movq %[mh], %%rdx\n\t" \
	"xorl %k[ax], %k[ax]\n\t" \
	"mulxq %[q0], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R1 "]\n\t" \
	"adcxq %[hi], %[" #R2 "]\n\t" \
	"mulxq %[q1], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R2 "]\n\t" \
	"adcxq %[hi], %[" #R3 "]\n\t" \
	"mulxq %[q2], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R3 "]\n\t" \
	"adcxq %[hi], %[" #R4 "]\n\t" \
	"mulxq %[q3], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R4 "]\n\t" \
	"adcxq %[hi], %[" #R5 "]\n\t" \
	"mulxq %[q4], %[ax], %[hi]\n\t" \
	"adoxq %[ax], %[" #R5 "]\n\t" \
	"adcxq %[hi], %[" #R6 "]\n\t" \
	"mulxq %[q5], %[ax], %[" #R7 "]\n\t" \
	"adoxq %[ax], %[" #R6 "]\n\t" \
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[" #R7 "]\n\t" \
	"adoxq %[ax], %[" #R7 "]\n\t"

/* -p^-1 mod 2^128, upper word (the lower one is fp_adx_inv). */
static const uint64_t fp_adx_inv_hi = 0x286adb92d9d113e8ULL;

void fp_redc_adx(fp_t *out, const fp_wide_t *a)
{
	uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3],
		 t4 = a->l[4], t5 = a->l[5], t6, t7;
	uint64_t ax, hi, mh;
	const uint64_t *up = a->l + 6;

	__asm__(
		FP_ADX_R2STEP(t0, t1, t2, t3, t4, t5, t6, t7)
		FP_ADX_R2STEP(t2, t3, t4, t5, t6, t7, t0, t1)
		FP_ADX_R2STEP(t4, t5, t6, t7, t0, t1, t2, t3)
		/* t = t6, t7, t0..t3 (low to high); add the high half */
		"addq 0(%[up]), %[t6]\n\t"
		"adcq 8(%[up]), %[t7]\n\t"
		"adcq 16(%[up]), %[t0]\n\t"
		"adcq 24(%[up]), %[t1]\n\t"
		"adcq 32(%[up]), %[t2]\n\t"
		"adcq 40(%[up]), %[t3]\n\t"
		/* t < 2p: t - p unless that borrows */
		"movq %[t6], %[t4]\n\t"
		"movq %[t7], %[t5]\n\t"
		"movq %[t0], %[ax]\n\t"
		"movq %[t1], %[hi]\n\t"
		"movq %[t2], %[mh]\n\t"
		"movq %[t3], %%rdx\n\t"
		"subq %[q0], %[t4]\n\t"
		"sbbq %[q1], %[t5]\n\t"
		"sbbq %[q2], %[ax]\n\t"
		"sbbq %[q3], %[hi]\n\t"
		"sbbq %[q4], %[mh]\n\t"
		"sbbq %[q5], %%rdx\n\t"
		"cmovncq %[t4], %[t6]\n\t"
		"cmovncq %[t5], %[t7]\n\t"
		"cmovncq %[ax], %[t0]\n\t"
		"cmovncq %[hi], %[t1]\n\t"
		"cmovncq %[mh], %[t2]\n\t"
		"cmovncq %%rdx, %[t3]\n\t"
		: [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3),
		  [t4] "+&r"(t4), [t5] "+&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7),
		  [ax] "=&r"(ax), [hi] "=&r"(hi), [mh] "=&r"(mh)
		: [up] "r"(up), [q0] "m"(fp_adx_q[0]), [q1] "m"(fp_adx_q[1]),
		  [q2] "m"(fp_adx_q[2]), [q3] "m"(fp_adx_q[3]),
		  [q4] "m"(fp_adx_q[4]), [q5] "m"(fp_adx_q[5]),
		  [inv] "m"(fp_adx_inv), [invh] "m"(fp_adx_inv_hi)
		: "rdx", "cc", "memory");
	(void)t4;
	(void)t5;
	(void)ax;
	(void)hi;
	(void)mh;
	out->l[0] = t6;
	out->l[1] = t7;
	out->l[2] = t0;
	out->l[3] = t1;
	out->l[4] = t2;
	out->l[5] = t3;
}

#endif
