/*
 * fr_adx: Fr Montgomery multiplication for x86-64 CPUs with BMI2 and ADX.
 *
 * The same no-carry CIOS as the portable path in fr.c, in inline asm:
 * MULX leaves the flags alone, so each row runs two independent carry
 * chains at once (ADOX for the low halves of the products, ADCX for the
 * high halves) and the reduction step interleaves with the next row's
 * products. The schedule follows gnark-crypto's generated amd64 code. The
 * final conditional subtraction of r uses CMOV, no branch.
 *
 * Only compiled for x86-64; fr.c calls it only when cpuid reports BMI2
 * and ADX. tests/field/gmp.c checks it against GMP and the portable path.
 */
#include "field/fr.h"

#if defined(__x86_64__)

static const uint64_t fr_adx_q[4] = {
	0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
	0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL,
};
static const uint64_t fr_adx_inv = 0xfffffffeffffffffULL;

/* t += x * y[i]; A collects the top word (both chains' carries). */
#define FR_ADX_ROW(off) \
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
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[A]\n\t" \
	"adoxq %[ax], %[A]\n\t"

/* m = t0 * -r^-1; t = (t + m * r) / 2^64, A folded into the top word.
 * r's top limb < 2^63 - 1 keeps the result within four words. */
#define FR_ADX_REDUCE \
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
	"movl $0, %k[ax]\n\t" \
	"adcxq %[ax], %[t3]\n\t" \
	"adoxq %[A], %[t3]\n\t"

void fr_mul_adx(fr_t *out, const fr_t *a, const fr_t *b)
{
	uint64_t t0, t1, t2, t3, A, ax, c;
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
		"mulxq 24(%[x]), %[ax], %[A]\n\t"
		"adoxq %[ax], %[t3]\n\t"
		"movl $0, %k[ax]\n\t"
		"adoxq %[ax], %[A]\n\t"
		FR_ADX_REDUCE
		FR_ADX_ROW(8)
		FR_ADX_REDUCE
		FR_ADX_ROW(16)
		FR_ADX_REDUCE
		FR_ADX_ROW(24)
		FR_ADX_REDUCE
		/* t < 2r: subtract r unless that borrows (x, y are free now) */
		"movq %[t0], %[ax]\n\t"
		"subq %[q0], %[ax]\n\t"
		"movq %[t1], %[x]\n\t"
		"sbbq %[q1], %[x]\n\t"
		"movq %[t2], %[y]\n\t"
		"sbbq %[q2], %[y]\n\t"
		"movq %[t3], %[A]\n\t"
		"sbbq %[q3], %[A]\n\t"
		"cmovncq %[ax], %[t0]\n\t"
		"cmovncq %[x], %[t1]\n\t"
		"cmovncq %[y], %[t2]\n\t"
		"cmovncq %[A], %[t3]\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [A] "=&r"(A), [ax] "=&r"(ax), [c] "=&r"(c),
		  [x] "+&r"(x), [y] "+&r"(y)
		: [q0] "m"(fr_adx_q[0]), [q1] "m"(fr_adx_q[1]),
		  [q2] "m"(fr_adx_q[2]), [q3] "m"(fr_adx_q[3]),
		  [inv] "m"(fr_adx_inv)
		: "rdx", "cc", "memory");
	(void)A;
	(void)ax;
	(void)c;
	out->l[0] = t0;
	out->l[1] = t1;
	out->l[2] = t2;
	out->l[3] = t3;
}

void fr_sqr_adx(fr_t *out, const fr_t *a)
{
	fr_mul_adx(out, a, a);
}

#endif
