/*
 * fp_adx: Fp Montgomery multiplication for x86-64 CPUs with BMI2 and ADX.
 *
 * The same no-carry CIOS as the portable path in fp.c, in inline asm, as
 * fr_adx.c does for Fr: MULX leaves the flags alone, so each row runs two
 * independent carry chains at once (ADOX for the low halves of the
 * products, ADCX for the high halves) and the reduction step interleaves
 * with the next row's products. The final conditional subtraction of p is
 * left to C (it needs six scratch registers the asm has no room for).
 *
 * Only compiled for x86-64; fp.c calls it only when cpuid reports BMI2
 * and ADX. tests/field/fp_gmp.c checks it against GMP and the portable
 * path.
 */
#include "field/fp.h"

#if defined(__x86_64__)
#include <x86intrin.h>

static const uint64_t fp_adx_q[6] = {
	0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
	0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
};
static const uint64_t fp_adx_inv = 0x89f3fffcfffcfffdULL;

/* t += x * y[i]; A collects the top word (both chains' carries). */
#define FP_ADX_ROW(off) \
	"xorl %k[ax], %k[ax]\n\t" \
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
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[A]\n\t" \
	"adoxq %[ax], %[A]\n\t"

/* m = t0 * -p^-1; t = (t + m * p) / 2^64, A folded into the top word.
 * p's top limb < 2^63 - 1 keeps the result within six words. */
#define FP_ADX_REDUCE \
	"movq %[inv], %%rdx\n\t" \
	"imulq %[t0], %%rdx\n\t" \
	"xorl %k[ax], %k[ax]\n\t" \
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
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[t5]\n\t" \
	"adoxq %[A], %[t5]\n\t"

void fp_mul_adx(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t t0, t1, t2, t3, t4, t5, A, ax, c;
	const uint64_t *x = a->l, *y = b->l;

	__asm__(
		/* row 0: t = x * y[0], no previous t to add */
		"xorl %k[ax], %k[ax]\n\t"
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
		"movl $0, %k[ax]\n\t"
		"adoxq %[ax], %[A]\n\t"
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
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [t4] "=&r"(t4), [t5] "=&r"(t5),
		  [A] "=&r"(A), [ax] "=&r"(ax), [c] "=&r"(c)
		: [x] "r"(x), [y] "r"(y),
		  [q0] "m"(fp_adx_q[0]), [q1] "m"(fp_adx_q[1]),
		  [q2] "m"(fp_adx_q[2]), [q3] "m"(fp_adx_q[3]),
		  [q4] "m"(fp_adx_q[4]), [q5] "m"(fp_adx_q[5]),
		  [inv] "m"(fp_adx_inv)
		: "rdx", "cc", "memory");
	(void)A;
	(void)ax;
	(void)c;

	/* t < 2p: subtract p unless that borrows */
	unsigned long long d0, d1, d2, d3, d4, d5;
	unsigned char bw = 0;
	bw = _subborrow_u64(bw, t0, fp_adx_q[0], &d0);
	bw = _subborrow_u64(bw, t1, fp_adx_q[1], &d1);
	bw = _subborrow_u64(bw, t2, fp_adx_q[2], &d2);
	bw = _subborrow_u64(bw, t3, fp_adx_q[3], &d3);
	bw = _subborrow_u64(bw, t4, fp_adx_q[4], &d4);
	bw = _subborrow_u64(bw, t5, fp_adx_q[5], &d5);
	uint64_t keep = 0 - (uint64_t)bw;
	out->l[0] = (t0 & keep) | (d0 & ~keep);
	out->l[1] = (t1 & keep) | (d1 & ~keep);
	out->l[2] = (t2 & keep) | (d2 & ~keep);
	out->l[3] = (t3 & keep) | (d3 & ~keep);
	out->l[4] = (t4 & keep) | (d4 & ~keep);
	out->l[5] = (t5 & keep) | (d5 & ~keep);
}

void fp_sqr_adx(fp_t *out, const fp_t *a)
{
	fp_mul_adx(out, a, a);
}

#endif
