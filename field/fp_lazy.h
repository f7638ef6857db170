/*
 * fp_lazy: the inline pieces of lazy reduction, for fp.c and the towers
 * above it (fp2.c, fp6.c, fp12.c); not part of the field's interface.
 *
 * The towers multiply with fp_mul_wide, keep the 768-bit products and
 * their sums as fp_wide_t, and reduce each output coefficient once with
 * fp_redc. fp_redc wants its input below p * 2^384, so every fp_wide_t
 * here stays in [0, p * 2^384): fp_wide_add and fp_wide_sub work modulo
 * p * 2^384 (their correction touches the upper half only), which changes
 * nothing modulo p. A product of two values below 2p is below 4p^2 <
 * p * 2^384 (4p < 2^383), so the factors may be unreduced sums of two
 * reduced elements (fp_add_nr), never more.
 *
 * The reduced fp_add/fp_sub live here too, inline, so that the tower
 * code does not pay a call for each: at that size the call and its
 * stores cost about as much as the addition.
 *
 * Every function allows out to be one of the inputs, but not to overlap
 * one partially.
 */
#ifndef FIELD_FP_LAZY_H
#define FIELD_FP_LAZY_H

#include "field/fp12.h"
#include "field/limb.h"

/* An Fp2 element before its reduction: c0 + c1 u, each coefficient an
 * fp_wide_t in [0, p * 2^384). */
typedef struct {
	fp_wide_t c0, c1;
} fp2_wide_t;

/* fp2.c: out = a * b and a^2, unreduced (a, b reduced), and the two
 * reductions. out may not overlap a or b. */
void fp2_mul_wide(fp2_wide_t *out, const fp2_t *a, const fp2_t *b);
void fp2_sqr_wide(fp2_wide_t *out, const fp2_t *a);
void fp2_redc(fp2_t *out, const fp2_wide_t *a);

/* An Fp6 element before its reduction. */
typedef struct {
	fp2_wide_t c0, c1, c2;
} fp6_wide_t;

/* fp6.c: the products of fp12.h's fp6_mul, fp6_mul_by_01 and
 * fp6_mul_by_1, unreduced, and the reduction. */
void fp6_mul_wide(fp6_wide_t *out, const fp6_t *a, const fp6_t *b);
void fp6_mul_by_01_wide(fp6_wide_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6_mul_by_1_wide(fp6_wide_t *out, const fp6_t *a, const fp2_t *b1);
void fp6_redc(fp6_t *out, const fp6_wide_t *a);

#if defined(__x86_64__)
/*
 * Addition and subtraction in asm: from plain C, gcc vectorised the final
 * select with SSE and stored the result as 16-byte halves (the next
 * operation's 8-byte loads of those then miss store forwarding: ~35
 * cycles per dependent fp_add on Zen 3), and in fp_sub it rebuilt each
 * carry with SETB / ADD $0xff. Both are branch-free: the borrow of t - p
 * (or of a - b) picks the result with CMOV (or masks p).
 */
static inline void fp_add_inline(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3],
		 t4 = a->l[4], t5 = a->l[5];
	uint64_t d0, d1, d2, d3, d4, d5;

	/* a + b < 2p < 2^384: no carry out of the top limb. */
	__asm__("addq 0(%[b]), %[t0]\n\t"
		"adcq 8(%[b]), %[t1]\n\t"
		"adcq 16(%[b]), %[t2]\n\t"
		"adcq 24(%[b]), %[t3]\n\t"
		"adcq 32(%[b]), %[t4]\n\t"
		"adcq 40(%[b]), %[t5]\n\t"
		"movq %[t0], %[d0]\n\t"
		"movq %[t1], %[d1]\n\t"
		"movq %[t2], %[d2]\n\t"
		"movq %[t3], %[d3]\n\t"
		"movq %[t4], %[d4]\n\t"
		"movq %[t5], %[d5]\n\t"
		"subq %[p0], %[d0]\n\t"
		"sbbq %[p1], %[d1]\n\t"
		"sbbq %[p2], %[d2]\n\t"
		"sbbq %[p3], %[d3]\n\t"
		"sbbq %[p4], %[d4]\n\t"
		"sbbq %[p5], %[d5]\n\t"
		"cmovncq %[d0], %[t0]\n\t"
		"cmovncq %[d1], %[t1]\n\t"
		"cmovncq %[d2], %[t2]\n\t"
		"cmovncq %[d3], %[t3]\n\t"
		"cmovncq %[d4], %[t4]\n\t"
		"cmovncq %[d5], %[t5]\n\t"
		: [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3),
		  [t4] "+&r"(t4), [t5] "+&r"(t5), [d0] "=&r"(d0), [d1] "=&r"(d1),
		  [d2] "=&r"(d2), [d3] "=&r"(d3), [d4] "=&r"(d4), [d5] "=&r"(d5)
		: [b] "r"(b->l), [p0] "m"(FP_MODULUS[0]), [p1] "m"(FP_MODULUS[1]),
		  [p2] "m"(FP_MODULUS[2]), [p3] "m"(FP_MODULUS[3]),
		  [p4] "m"(FP_MODULUS[4]), [p5] "m"(FP_MODULUS[5])
		: "cc", "memory");
	out->l[0] = t0;
	out->l[1] = t1;
	out->l[2] = t2;
	out->l[3] = t3;
	out->l[4] = t4;
	out->l[5] = t5;
}

static inline void fp_sub_inline(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3],
		 t4 = a->l[4], t5 = a->l[5];
	uint64_t m0, m1, m2, m3, m4, m5;

	/* a - b; when it borrows, add p back (p masked by the borrow). */
	__asm__("subq 0(%[b]), %[t0]\n\t"
		"sbbq 8(%[b]), %[t1]\n\t"
		"sbbq 16(%[b]), %[t2]\n\t"
		"sbbq 24(%[b]), %[t3]\n\t"
		"sbbq 32(%[b]), %[t4]\n\t"
		"sbbq 40(%[b]), %[t5]\n\t"
		"sbbq %[m0], %[m0]\n\t"
		"movq %[m0], %[m1]\n\t"
		"movq %[m0], %[m2]\n\t"
		"movq %[m0], %[m3]\n\t"
		"movq %[m0], %[m4]\n\t"
		"movq %[m0], %[m5]\n\t"
		"andq %[p0], %[m0]\n\t"
		"andq %[p1], %[m1]\n\t"
		"andq %[p2], %[m2]\n\t"
		"andq %[p3], %[m3]\n\t"
		"andq %[p4], %[m4]\n\t"
		"andq %[p5], %[m5]\n\t"
		"addq %[m0], %[t0]\n\t"
		"adcq %[m1], %[t1]\n\t"
		"adcq %[m2], %[t2]\n\t"
		"adcq %[m3], %[t3]\n\t"
		"adcq %[m4], %[t4]\n\t"
		"adcq %[m5], %[t5]\n\t"
		: [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3),
		  [t4] "+&r"(t4), [t5] "+&r"(t5), [m0] "=&r"(m0), [m1] "=&r"(m1),
		  [m2] "=&r"(m2), [m3] "=&r"(m3), [m4] "=&r"(m4), [m5] "=&r"(m5)
		: [b] "r"(b->l), [p0] "m"(FP_MODULUS[0]), [p1] "m"(FP_MODULUS[1]),
		  [p2] "m"(FP_MODULUS[2]), [p3] "m"(FP_MODULUS[3]),
		  [p4] "m"(FP_MODULUS[4]), [p5] "m"(FP_MODULUS[5])
		: "cc", "memory");
	out->l[0] = t0;
	out->l[1] = t1;
	out->l[2] = t2;
	out->l[3] = t3;
	out->l[4] = t4;
	out->l[5] = t5;
}

/* out = a + b with no reduction; the caller knows a + b < 2^384. */
static inline void fp_add_nr(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3],
		 t4 = a->l[4], t5 = a->l[5];

	__asm__("addq 0(%[b]), %[t0]\n\t"
		"adcq 8(%[b]), %[t1]\n\t"
		"adcq 16(%[b]), %[t2]\n\t"
		"adcq 24(%[b]), %[t3]\n\t"
		"adcq 32(%[b]), %[t4]\n\t"
		"adcq 40(%[b]), %[t5]\n\t"
		: [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3),
		  [t4] "+r"(t4), [t5] "+r"(t5)
		: [b] "r"(b->l)
		: "cc", "memory");
	out->l[0] = t0;
	out->l[1] = t1;
	out->l[2] = t2;
	out->l[3] = t3;
	out->l[4] = t4;
	out->l[5] = t5;
}

/*
 * The 768-bit forms run as one carry chain over both halves: the lower
 * half goes back to memory as soon as it is done (MOV keeps the flags),
 * which frees its registers for the upper half and its correction by p
 * (p * 2^384 touches the upper half only). The pointers double as the
 * last scratch registers once everything is loaded, which keeps the block
 * within the registers a frame-pointer (sanitizer) build leaves. The
 * blocks are volatile because their register outputs are all dead (the
 * result leaves through memory): without it gcc deleted them.
 */

/* out = a + b mod p * 2^384, for a, b < p * 2^384. */
static inline void fp_wide_add(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t t0, t1, t2, t3, t4, t5, d0, d1, d2, d3;
	const uint64_t *x = a->l, *y = b->l;

	/* a + b < 2p * 2^384 < 2^767: no carry out of the top limb. */
	__asm__ volatile(
		"movq 0(%[x]), %[t0]\n\t"
		"movq 8(%[x]), %[t1]\n\t"
		"movq 16(%[x]), %[t2]\n\t"
		"movq 24(%[x]), %[t3]\n\t"
		"movq 32(%[x]), %[t4]\n\t"
		"movq 40(%[x]), %[t5]\n\t"
		"addq 0(%[y]), %[t0]\n\t"
		"adcq 8(%[y]), %[t1]\n\t"
		"adcq 16(%[y]), %[t2]\n\t"
		"adcq 24(%[y]), %[t3]\n\t"
		"adcq 32(%[y]), %[t4]\n\t"
		"adcq 40(%[y]), %[t5]\n\t"
		"movq %[t0], 0(%[o])\n\t"
		"movq %[t1], 8(%[o])\n\t"
		"movq %[t2], 16(%[o])\n\t"
		"movq %[t3], 24(%[o])\n\t"
		"movq %[t4], 32(%[o])\n\t"
		"movq %[t5], 40(%[o])\n\t"
		"movq 48(%[x]), %[t0]\n\t"
		"movq 56(%[x]), %[t1]\n\t"
		"movq 64(%[x]), %[t2]\n\t"
		"movq 72(%[x]), %[t3]\n\t"
		"movq 80(%[x]), %[t4]\n\t"
		"movq 88(%[x]), %[t5]\n\t"
		"adcq 48(%[y]), %[t0]\n\t"
		"adcq 56(%[y]), %[t1]\n\t"
		"adcq 64(%[y]), %[t2]\n\t"
		"adcq 72(%[y]), %[t3]\n\t"
		"adcq 80(%[y]), %[t4]\n\t"
		"adcq 88(%[y]), %[t5]\n\t"
		"movq %[t0], %[d0]\n\t"
		"movq %[t1], %[d1]\n\t"
		"movq %[t2], %[d2]\n\t"
		"movq %[t3], %[d3]\n\t"
		"movq %[t4], %[x]\n\t"
		"movq %[t5], %[y]\n\t"
		"subq %[p0], %[d0]\n\t"
		"sbbq %[p1], %[d1]\n\t"
		"sbbq %[p2], %[d2]\n\t"
		"sbbq %[p3], %[d3]\n\t"
		"sbbq %[p4], %[x]\n\t"
		"sbbq %[p5], %[y]\n\t"
		"cmovncq %[d0], %[t0]\n\t"
		"cmovncq %[d1], %[t1]\n\t"
		"cmovncq %[d2], %[t2]\n\t"
		"cmovncq %[d3], %[t3]\n\t"
		"cmovncq %[x], %[t4]\n\t"
		"cmovncq %[y], %[t5]\n\t"
		"movq %[t0], 48(%[o])\n\t"
		"movq %[t1], 56(%[o])\n\t"
		"movq %[t2], 64(%[o])\n\t"
		"movq %[t3], 72(%[o])\n\t"
		"movq %[t4], 80(%[o])\n\t"
		"movq %[t5], 88(%[o])\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [t4] "=&r"(t4), [t5] "=&r"(t5), [d0] "=&r"(d0), [d1] "=&r"(d1),
		  [d2] "=&r"(d2), [d3] "=&r"(d3), [x] "+&r"(x), [y] "+&r"(y)
		: [o] "r"(out->l), [p0] "m"(FP_MODULUS[0]), [p1] "m"(FP_MODULUS[1]),
		  [p2] "m"(FP_MODULUS[2]), [p3] "m"(FP_MODULUS[3]),
		  [p4] "m"(FP_MODULUS[4]), [p5] "m"(FP_MODULUS[5])
		: "cc", "memory");
}

/* out = a - b mod p * 2^384, for a, b < p * 2^384. */
static inline void fp_wide_sub(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t t0, t1, t2, t3, t4, t5, m0, m1, m2, m3;
	const uint64_t *x = a->l, *y = b->l;

	__asm__ volatile(
		"movq 0(%[x]), %[t0]\n\t"
		"movq 8(%[x]), %[t1]\n\t"
		"movq 16(%[x]), %[t2]\n\t"
		"movq 24(%[x]), %[t3]\n\t"
		"movq 32(%[x]), %[t4]\n\t"
		"movq 40(%[x]), %[t5]\n\t"
		"subq 0(%[y]), %[t0]\n\t"
		"sbbq 8(%[y]), %[t1]\n\t"
		"sbbq 16(%[y]), %[t2]\n\t"
		"sbbq 24(%[y]), %[t3]\n\t"
		"sbbq 32(%[y]), %[t4]\n\t"
		"sbbq 40(%[y]), %[t5]\n\t"
		"movq %[t0], 0(%[o])\n\t"
		"movq %[t1], 8(%[o])\n\t"
		"movq %[t2], 16(%[o])\n\t"
		"movq %[t3], 24(%[o])\n\t"
		"movq %[t4], 32(%[o])\n\t"
		"movq %[t5], 40(%[o])\n\t"
		"movq 48(%[x]), %[t0]\n\t"
		"movq 56(%[x]), %[t1]\n\t"
		"movq 64(%[x]), %[t2]\n\t"
		"movq 72(%[x]), %[t3]\n\t"
		"movq 80(%[x]), %[t4]\n\t"
		"movq 88(%[x]), %[t5]\n\t"
		"sbbq 48(%[y]), %[t0]\n\t"
		"sbbq 56(%[y]), %[t1]\n\t"
		"sbbq 64(%[y]), %[t2]\n\t"
		"sbbq 72(%[y]), %[t3]\n\t"
		"sbbq 80(%[y]), %[t4]\n\t"
		"sbbq 88(%[y]), %[t5]\n\t"
		/* borrowed: add p * 2^384 back (p masked by the borrow) */
		"sbbq %[m0], %[m0]\n\t"
		"movq %[m0], %[m1]\n\t"
		"movq %[m0], %[m2]\n\t"
		"movq %[m0], %[m3]\n\t"
		"movq %[m0], %[x]\n\t"
		"movq %[m0], %[y]\n\t"
		"andq %[p0], %[m0]\n\t"
		"andq %[p1], %[m1]\n\t"
		"andq %[p2], %[m2]\n\t"
		"andq %[p3], %[m3]\n\t"
		"andq %[p4], %[x]\n\t"
		"andq %[p5], %[y]\n\t"
		"addq %[m0], %[t0]\n\t"
		"adcq %[m1], %[t1]\n\t"
		"adcq %[m2], %[t2]\n\t"
		"adcq %[m3], %[t3]\n\t"
		"adcq %[x], %[t4]\n\t"
		"adcq %[y], %[t5]\n\t"
		"movq %[t0], 48(%[o])\n\t"
		"movq %[t1], 56(%[o])\n\t"
		"movq %[t2], 64(%[o])\n\t"
		"movq %[t3], 72(%[o])\n\t"
		"movq %[t4], 80(%[o])\n\t"
		"movq %[t5], 88(%[o])\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [t4] "=&r"(t4), [t5] "=&r"(t5), [m0] "=&r"(m0), [m1] "=&r"(m1),
		  [m2] "=&r"(m2), [m3] "=&r"(m3), [x] "+&r"(x), [y] "+&r"(y)
		: [o] "r"(out->l), [p0] "m"(FP_MODULUS[0]), [p1] "m"(FP_MODULUS[1]),
		  [p2] "m"(FP_MODULUS[2]), [p3] "m"(FP_MODULUS[3]),
		  [p4] "m"(FP_MODULUS[4]), [p5] "m"(FP_MODULUS[5])
		: "cc", "memory");
}

/* out = a - b as plain integers; the caller knows a >= b. */
static inline void fp_wide_sub_nr(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t t0, t1, t2, t3, t4, t5;
	const uint64_t *x = a->l, *y = b->l;

	__asm__ volatile(
		"movq 0(%[x]), %[t0]\n\t"
		"movq 8(%[x]), %[t1]\n\t"
		"movq 16(%[x]), %[t2]\n\t"
		"movq 24(%[x]), %[t3]\n\t"
		"movq 32(%[x]), %[t4]\n\t"
		"movq 40(%[x]), %[t5]\n\t"
		"subq 0(%[y]), %[t0]\n\t"
		"sbbq 8(%[y]), %[t1]\n\t"
		"sbbq 16(%[y]), %[t2]\n\t"
		"sbbq 24(%[y]), %[t3]\n\t"
		"sbbq 32(%[y]), %[t4]\n\t"
		"sbbq 40(%[y]), %[t5]\n\t"
		"movq %[t0], 0(%[o])\n\t"
		"movq %[t1], 8(%[o])\n\t"
		"movq %[t2], 16(%[o])\n\t"
		"movq %[t3], 24(%[o])\n\t"
		"movq %[t4], 32(%[o])\n\t"
		"movq %[t5], 40(%[o])\n\t"
		"movq 48(%[x]), %[t0]\n\t"
		"movq 56(%[x]), %[t1]\n\t"
		"movq 64(%[x]), %[t2]\n\t"
		"movq 72(%[x]), %[t3]\n\t"
		"movq 80(%[x]), %[t4]\n\t"
		"movq 88(%[x]), %[t5]\n\t"
		"sbbq 48(%[y]), %[t0]\n\t"
		"sbbq 56(%[y]), %[t1]\n\t"
		"sbbq 64(%[y]), %[t2]\n\t"
		"sbbq 72(%[y]), %[t3]\n\t"
		"sbbq 80(%[y]), %[t4]\n\t"
		"sbbq 88(%[y]), %[t5]\n\t"
		"movq %[t0], 48(%[o])\n\t"
		"movq %[t1], 56(%[o])\n\t"
		"movq %[t2], 64(%[o])\n\t"
		"movq %[t3], 72(%[o])\n\t"
		"movq %[t4], 80(%[o])\n\t"
		"movq %[t5], 88(%[o])\n\t"
		: [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
		  [t4] "=&r"(t4), [t5] "=&r"(t5)
		: [x] "r"(x), [y] "r"(y), [o] "r"(out->l)
		: "cc", "memory");
}
#else
/* a + b < 2p < 2^384: no carry out of the top limb. */
static inline void fp_add_inline(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t c = 0, bw = 0, d[6], t[6];

	for (int i = 0; i < 6; i++)
		t[i] = limb_adc(a->l[i], b->l[i], &c);
	for (int i = 0; i < 6; i++)
		d[i] = limb_sbb(t[i], FP_MODULUS[i], &bw);
	uint64_t keep = 0 - bw;	/* borrowed: t < p, keep t */
	for (int i = 0; i < 6; i++)
		out->l[i] = (t[i] & keep) | (d[i] & ~keep);
}

static inline void fp_sub_inline(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t bw = 0, c = 0, t[6];

	for (int i = 0; i < 6; i++)
		t[i] = limb_sbb(a->l[i], b->l[i], &bw);
	uint64_t mask = 0 - bw;	/* went negative: add p back */
	for (int i = 0; i < 6; i++)
		out->l[i] = limb_adc(t[i], FP_MODULUS[i] & mask, &c);
}

static inline void fp_add_nr(fp_t *out, const fp_t *a, const fp_t *b)
{
	uint64_t c = 0;

	for (int i = 0; i < 6; i++)
		out->l[i] = limb_adc(a->l[i], b->l[i], &c);
}

static inline void fp_wide_add(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t c = 0, bw = 0, d[6], t[6];

	for (int i = 0; i < 6; i++)
		out->l[i] = limb_adc(a->l[i], b->l[i], &c);
	for (int i = 0; i < 6; i++)
		t[i] = limb_adc(a->l[6 + i], b->l[6 + i], &c);
	for (int i = 0; i < 6; i++)
		d[i] = limb_sbb(t[i], FP_MODULUS[i], &bw);
	uint64_t keep = 0 - bw;
	for (int i = 0; i < 6; i++)
		out->l[6 + i] = (t[i] & keep) | (d[i] & ~keep);
}

static inline void fp_wide_sub(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t bw = 0, c = 0, t[6];

	for (int i = 0; i < 6; i++)
		out->l[i] = limb_sbb(a->l[i], b->l[i], &bw);
	for (int i = 0; i < 6; i++)
		t[i] = limb_sbb(a->l[6 + i], b->l[6 + i], &bw);
	uint64_t mask = 0 - bw;
	for (int i = 0; i < 6; i++)
		out->l[6 + i] = limb_adc(t[i], FP_MODULUS[i] & mask, &c);
}

static inline void fp_wide_sub_nr(fp_wide_t *out, const fp_wide_t *a, const fp_wide_t *b)
{
	uint64_t bw = 0;

	for (int i = 0; i < 12; i++)
		out->l[i] = limb_sbb(a->l[i], b->l[i], &bw);
}
#endif

/* ---- Fp2, unreduced ------------------------------------------------- */

static inline void fp2_wide_add(fp2_wide_t *out, const fp2_wide_t *a, const fp2_wide_t *b)
{
	fp_wide_add(&out->c0, &a->c0, &b->c0);
	fp_wide_add(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_wide_sub(fp2_wide_t *out, const fp2_wide_t *a, const fp2_wide_t *b)
{
	fp_wide_sub(&out->c0, &a->c0, &b->c0);
	fp_wide_sub(&out->c1, &a->c1, &b->c1);
}

/* out = a * (u + 1) = (a0 - a1) + (a0 + a1) u; out may not be a. */
static inline void fp2_wide_mul_nonresidue(fp2_wide_t *out, const fp2_wide_t *a)
{
	fp_wide_sub(&out->c0, &a->c0, &a->c1);
	fp_wide_add(&out->c1, &a->c0, &a->c1);
}

static inline void fp6_wide_sub(fp6_wide_t *out, const fp6_wide_t *a, const fp6_wide_t *b)
{
	fp2_wide_sub(&out->c0, &a->c0, &b->c0);
	fp2_wide_sub(&out->c1, &a->c1, &b->c1);
	fp2_wide_sub(&out->c2, &a->c2, &b->c2);
}

/* Reduced Fp2 additions, inline for the towers. */
static inline void fp2_add_inline(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
	fp_add_inline(&out->c0, &a->c0, &b->c0);
	fp_add_inline(&out->c1, &a->c1, &b->c1);
}

static inline void fp2_sub_inline(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
	fp_sub_inline(&out->c0, &a->c0, &b->c0);
	fp_sub_inline(&out->c1, &a->c1, &b->c1);
}

static inline void fp6_add_inline(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp2_add_inline(&out->c0, &a->c0, &b->c0);
	fp2_add_inline(&out->c1, &a->c1, &b->c1);
	fp2_add_inline(&out->c2, &a->c2, &b->c2);
}

static inline void fp6_sub_inline(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
	fp2_sub_inline(&out->c0, &a->c0, &b->c0);
	fp2_sub_inline(&out->c1, &a->c1, &b->c1);
	fp2_sub_inline(&out->c2, &a->c2, &b->c2);
}

#endif
