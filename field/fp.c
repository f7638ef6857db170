/*
 * fp: BLS12-381 base field arithmetic, portable C path and dispatch.
 *
 * Elements are six 64-bit limbs in Montgomery form, always < p. The
 * multiplication is CIOS Montgomery in its "no-carry" form, as in fr.c:
 * p's top limb (0x1a0111ea397fe69a) is below 2^63 - 1, so the running sum
 * never needs a seventh word and the reduction folds into the product
 * loop. Everything else (add, sub, pow, inversion, square roots,
 * conversions) is written once on top of whichever multiplication is
 * selected: fp_mul and fp_sqr jump through one resolved pointer pair,
 * picked at start-up from cpuid (fp_adx.c on x86-64 with BMI2+ADX) or
 * forced by fp_set_impl().
 *
 * Nothing here handles secrets: inversion, square roots and the Legendre
 * symbol are not constant time.
 */
#include "field/fp.h"
#include "field/fp_lazy.h"
#include "field/limb.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif


#define P0 0xb9feffffffffaaabULL
#define P1 0x1eabfffeb153ffffULL
#define P2 0x6730d2a0f6b0f624ULL
#define P3 0x64774b84f38512bfULL
#define P4 0x4b1ba7b6434bacd7ULL
#define P5 0x1a0111ea397fe69aULL

typedef void (*fp_mul_fn_t_)(fp_t *out, const fp_t *a, const fp_t *b);
typedef void (*fp_sqr_fn_t_)(fp_t *out, const fp_t *a);
typedef void (*fp_mul_wide_fn_t_)(fp_wide_t *out, const fp_t *a, const fp_t *b);
typedef void (*fp_redc_fn_t_)(fp_t *out, const fp_wide_t *a);


/* t < 2p (so < 2^384) -> out = t mod p, branch-free: the borrow is
 * data-dependent and unpredictable. Scalars, not arrays (see fr.c's
 * fr_reduce4 on store forwarding). */
static inline void fp_reduce6(uint64_t out[6], uint64_t t0, uint64_t t1,
			      uint64_t t2, uint64_t t3, uint64_t t4, uint64_t t5)
{
	uint64_t b = 0;
	uint64_t d0 = limb_sbb(t0, P0, &b);
	uint64_t d1 = limb_sbb(t1, P1, &b);
	uint64_t d2 = limb_sbb(t2, P2, &b);
	uint64_t d3 = limb_sbb(t3, P3, &b);
	uint64_t d4 = limb_sbb(t4, P4, &b);
	uint64_t d5 = limb_sbb(t5, P5, &b);
	uint64_t keep = 0 - b;	/* b set: t < p, keep t */
	uint64_t r0 = (t0 & keep) | (d0 & ~keep);
	uint64_t r1 = (t1 & keep) | (d1 & ~keep);
	uint64_t r2 = (t2 & keep) | (d2 & ~keep);
	uint64_t r3 = (t3 & keep) | (d3 & ~keep);
	uint64_t r4 = (t4 & keep) | (d4 & ~keep);
	uint64_t r5 = (t5 & keep) | (d5 & ~keep);
	/* An empty asm pins the results in general registers: without it
	 * gcc vectorised the select through SSE (fp_add 38 cycles instead of
	 * about 15), and written as ternaries it became a branch. */
	__asm__("" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5));
	out[0] = r0;
	out[1] = r1;
	out[2] = r2;
	out[3] = r3;
	out[4] = r4;
	out[5] = r5;
}

/* fp_add_inline and fp_sub_inline: field/fp_lazy.h, shared with the towers. */

const uint64_t FP_MODULUS[6] = { P0, P1, P2, P3, P4, P5 };
const uint64_t FP_INV = 0x89f3fffcfffcfffdULL;
const fp_t FP_ZERO = { { 0, 0, 0, 0, 0, 0 } };
const fp_t FP_ONE = { {
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL,
} };
/* R^2 mod p: mont(x, R^2) = x * R, a plain value into Montgomery form. */
static const fp_t fp_r2 = { {
	0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
	0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL,
} };
/* R^3 mod p: mont(x, R^3) = x * 2^384 in Montgomery form, the weight of
 * a wide input's upper part. */
static const fp_t fp_r3 = { {
	0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,
	0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL,
} };
/* (p - 1) / 2, plain: the exponent of Euler's criterion and the bound of
 * the lexicographic sort flag. */
static const uint64_t fp_half[6] = {
	0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
	0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL,
};
/* (p + 1) / 4: a^((p+1)/4) is a square root of a square a (p = 3 mod 4). */
static const uint64_t fp_sqrt_exp[6] = {
	0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
	0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL,
};

/* ---- portable multiplication ------------------------------------------ */

/*
 * Row i adds a * b[i], then the reduction adds m * p, m chosen to clear
 * the low word, and shifts t down one word. Each step keeps the low and
 * high halves of its six products apart, on two limb_adc() carry chains
 * (ADC on x86-64): written as three-term 128-bit sums (x*y + t + c, the
 * textbook form, as in bench/fp_bench.c's baseline) gcc materialised
 * every carry with setc/movzx. The top word t6 never needs a carry out
 * of its own because p5 < 2^63 - 1 keeps t below 2p < 2^384 between rows.
 */
void fp_mul_portable(fp_t *out, const fp_t *a, const fp_t *b)
{
	const uint64_t *x = a->l, *y = b->l;
	uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6;
	uint64_t l0, l1, l2, l3, l4, l5, h0, h1, h2, h3, h4, h5, c, m;

	for (int i = 0; i < 6; i++) {
		uint64_t yi = y[i];
		l0 = limb_mul(x[0], yi, &h0);
		l1 = limb_mul(x[1], yi, &h1);
		l2 = limb_mul(x[2], yi, &h2);
		l3 = limb_mul(x[3], yi, &h3);
		l4 = limb_mul(x[4], yi, &h4);
		l5 = limb_mul(x[5], yi, &h5);
		c = 0;
		t0 = limb_adc(t0, l0, &c);
		t1 = limb_adc(t1, l1, &c);
		t2 = limb_adc(t2, l2, &c);
		t3 = limb_adc(t3, l3, &c);
		t4 = limb_adc(t4, l4, &c);
		t5 = limb_adc(t5, l5, &c);
		t6 = c;
		c = 0;
		t1 = limb_adc(t1, h0, &c);
		t2 = limb_adc(t2, h1, &c);
		t3 = limb_adc(t3, h2, &c);
		t4 = limb_adc(t4, h3, &c);
		t5 = limb_adc(t5, h4, &c);
		t6 = t6 + h5 + c;	/* t + x * y[i] < 2^448: no carry out */

		m = t0 * FP_INV;
		l0 = limb_mul(m, P0, &h0);
		l1 = limb_mul(m, P1, &h1);
		l2 = limb_mul(m, P2, &h2);
		l3 = limb_mul(m, P3, &h3);
		l4 = limb_mul(m, P4, &h4);
		l5 = limb_mul(m, P5, &h5);
		c = 0;
		limb_adc(t0, l0, &c);	/* 0 mod 2^64; only the carry counts */
		t1 = limb_adc(t1, l1, &c);
		t2 = limb_adc(t2, l2, &c);
		t3 = limb_adc(t3, l3, &c);
		t4 = limb_adc(t4, l4, &c);
		t5 = limb_adc(t5, l5, &c);
		t6 += c;
		c = 0;
		t0 = limb_adc(t1, h0, &c);
		t1 = limb_adc(t2, h1, &c);
		t2 = limb_adc(t3, h2, &c);
		t3 = limb_adc(t4, h3, &c);
		t4 = limb_adc(t5, h4, &c);
		t5 = t6 + h5 + c;	/* < 2p < 2^384 */
	}
	fp_reduce6(out->l, t0, t1, t2, t3, t4, t5);
}

void fp_sqr_portable(fp_t *out, const fp_t *a)
{
	fp_mul_portable(out, a, a);
}

/*
 * The plain product, row by row as above without the reduction: row i
 * adds x * y[i] at word i, on the same two carry chains. Before row i the
 * words from i + 6 up are still zero and the sum stays below
 * 2^(64 (i + 7)), so the top word of a row takes its carries without one
 * of its own.
 */
void fp_mul_wide_portable(fp_wide_t *out, const fp_t *a, const fp_t *b)
{
	const uint64_t *x = a->l, *y = b->l;
	uint64_t t[12] = { 0 };
	uint64_t l[6], h[6], c, top;

	for (int i = 0; i < 6; i++) {
		uint64_t *r = t + i;

		for (int j = 0; j < 6; j++)
			l[j] = limb_mul(x[j], y[i], &h[j]);
		c = 0;
		for (int j = 0; j < 6; j++)
			r[j] = limb_adc(r[j], l[j], &c);
		top = c;
		c = 0;
		for (int j = 0; j < 5; j++)
			r[j + 1] = limb_adc(r[j + 1], h[j], &c);
		r[6] = top + h[5] + c;
	}
	for (int i = 0; i < 12; i++)
		out->l[i] = t[i];
}

/*
 * Montgomery reduction on its own: six steps of m = t0 * -p^-1,
 * t = (t + m p) / 2^64 over the low half (which keeps t below
 * 2^320 + p, so six words), then the high half added on. For a below
 * p * 2^384 the sum, (a + M p) / 2^384 with M < 2^384, is below 2p: one
 * conditional subtraction, as in the multiplication.
 */
void fp_redc_portable(fp_t *out, const fp_wide_t *a)
{
	uint64_t t0 = a->l[0], t1 = a->l[1], t2 = a->l[2], t3 = a->l[3],
		 t4 = a->l[4], t5 = a->l[5], t6;
	uint64_t l0, l1, l2, l3, l4, l5, h0, h1, h2, h3, h4, h5, c, m;

	for (int i = 0; i < 6; i++) {
		m = t0 * FP_INV;
		l0 = limb_mul(m, P0, &h0);
		l1 = limb_mul(m, P1, &h1);
		l2 = limb_mul(m, P2, &h2);
		l3 = limb_mul(m, P3, &h3);
		l4 = limb_mul(m, P4, &h4);
		l5 = limb_mul(m, P5, &h5);
		c = 0;
		limb_adc(t0, l0, &c);	/* 0 mod 2^64; only the carry counts */
		t1 = limb_adc(t1, l1, &c);
		t2 = limb_adc(t2, l2, &c);
		t3 = limb_adc(t3, l3, &c);
		t4 = limb_adc(t4, l4, &c);
		t5 = limb_adc(t5, l5, &c);
		t6 = c;
		c = 0;
		t0 = limb_adc(t1, h0, &c);
		t1 = limb_adc(t2, h1, &c);
		t2 = limb_adc(t3, h2, &c);
		t3 = limb_adc(t4, h3, &c);
		t4 = limb_adc(t5, h4, &c);
		t5 = t6 + h5 + c;
	}
	c = 0;
	t0 = limb_adc(t0, a->l[6], &c);
	t1 = limb_adc(t1, a->l[7], &c);
	t2 = limb_adc(t2, a->l[8], &c);
	t3 = limb_adc(t3, a->l[9], &c);
	t4 = limb_adc(t4, a->l[10], &c);
	t5 = limb_adc(t5, a->l[11], &c);
	fp_reduce6(out->l, t0, t1, t2, t3, t4, t5);
}

/* ---- dispatch ---------------------------------------------------------- */

struct fp_impl {
	const char *name;
	fp_mul_fn_t_ mul;
	fp_sqr_fn_t_ sqr;
	fp_mul_wide_fn_t_ mul_wide;
	fp_redc_fn_t_ redc;
	int (*have)(void);
};

static int fp_have_any(void)
{
	return 1;
}

/* cpuid leaf 7: EBX bit 8 is BMI2 (MULX), bit 19 is ADX (ADCX/ADOX). */
static int fp_have_adx(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & (1u << 8)) && (b & (1u << 19));
#else
	return 0;
#endif
}

/* Fastest last: the constructor takes the last one the CPU supports. */
static const struct fp_impl fp_impls[] = {
	{ "portable", fp_mul_portable, fp_sqr_portable, fp_mul_wide_portable,
	  fp_redc_portable, fp_have_any },
#if defined(__x86_64__)
	{ "adx", fp_mul_adx, fp_sqr_adx, fp_mul_wide_adx, fp_redc_adx, fp_have_adx },
#endif
};
#define FP_NIMPLS (sizeof(fp_impls) / sizeof(fp_impls[0]))

static const struct fp_impl *fp_cur = &fp_impls[0];

__attribute__((constructor)) static void fp_select_impl(void)
{
	for (size_t i = FP_NIMPLS; i-- > 0;)
		if (fp_impls[i].have()) {
			fp_cur = &fp_impls[i];
			return;
		}
}

const char *fp_impl_name(void)
{
	return fp_cur->name;
}

int fp_set_impl(const char *name)
{
	for (size_t i = 0; i < FP_NIMPLS; i++) {
		if (strcmp(name, fp_impls[i].name) != 0)
			continue;
		if (!fp_impls[i].have())
			return -1;
		fp_cur = &fp_impls[i];
		return 0;
	}
	return -1;
}

void fp_mul(fp_t *out, const fp_t *a, const fp_t *b)
{
	fp_cur->mul(out, a, b);
}

void fp_sqr(fp_t *out, const fp_t *a)
{
	fp_cur->sqr(out, a);
}

void fp_mul_wide(fp_wide_t *out, const fp_t *a, const fp_t *b)
{
	fp_cur->mul_wide(out, a, b);
}

void fp_redc(fp_t *out, const fp_wide_t *a)
{
	fp_cur->redc(out, a);
}

/* ---- additive group ---------------------------------------------------- */

void fp_add(fp_t *out, const fp_t *a, const fp_t *b)
{
	fp_add_inline(out, a, b);
}

void fp_sub(fp_t *out, const fp_t *a, const fp_t *b)
{
	fp_sub_inline(out, a, b);
}

void fp_neg(fp_t *out, const fp_t *a)
{
	/* p - a, except that -0 is 0 (p itself is not a valid element) */
	uint64_t nz = 0 - (uint64_t)!fp_is_zero(a), bw = 0;
	uint64_t r0 = limb_sbb(P0, a->l[0], &bw);
	uint64_t r1 = limb_sbb(P1, a->l[1], &bw);
	uint64_t r2 = limb_sbb(P2, a->l[2], &bw);
	uint64_t r3 = limb_sbb(P3, a->l[3], &bw);
	uint64_t r4 = limb_sbb(P4, a->l[4], &bw);
	uint64_t r5 = limb_sbb(P5, a->l[5], &bw);
	out->l[0] = r0 & nz;
	out->l[1] = r1 & nz;
	out->l[2] = r2 & nz;
	out->l[3] = r3 & nz;
	out->l[4] = r4 & nz;
	out->l[5] = r5 & nz;
}

void fp_double(fp_t *out, const fp_t *a)
{
	fp_add_inline(out, a, a);
}

/* Small factors by doubling and adding (3, 4, 8, 12 cost two to four
 * additions, against a multiplication); others by one multiplication. */
void fp_mul_small(fp_t *out, const fp_t *a, uint64_t v)
{
	if (v >= 64) {
		fp_t t;
		fp_from_u64(&t, v);
		fp_cur->mul(out, a, &t);
		return;
	}
	fp_t acc = FP_ZERO, base = *a;
	for (int i = 5; i >= 0; i--) {
		fp_add_inline(&acc, &acc, &acc);
		if ((v >> i) & 1)
			fp_add_inline(&acc, &acc, &base);
	}
	*out = acc;
}

int fp_is_zero(const fp_t *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

int fp_is_one(const fp_t *a)
{
	return fp_equal(a, &FP_ONE);
}

int fp_equal(const fp_t *a, const fp_t *b)
{
	return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
		(a->l[3] ^ b->l[3]) | (a->l[4] ^ b->l[4]) | (a->l[5] ^ b->l[5])) == 0;
}

/* ---- exponentiation, inversion, square roots --------------------------- */

static void fp_inv_nonzero(fp_t *out, const fp_t *a);
static int fp_legendre(const fp_t *a);

void fp_pow(fp_t *out, const fp_t *a, const uint64_t *e, size_t n)
{
	fp_mul_fn_t_ mul = fp_cur->mul;
	fp_sqr_fn_t_ sqr = fp_cur->sqr;
	fp_t acc = FP_ONE, base = *a;
	int started = 0;

	/* Left to right; squarings of 1 before the top set bit are skipped. */
	for (size_t i = 64 * n; i-- > 0;) {
		if (started)
			sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1) {
			mul(&acc, &acc, &base);
			started = 1;
		}
	}
	*out = acc;
}

int fp_inv(fp_t *out, const fp_t *a)
{
	if (fp_is_zero(a))
		return -1;
	fp_inv_nonzero(out, a);
	return 0;
}

int fp_batch_inv(fp_t *out, const fp_t *a, size_t n)
{
	fp_mul_fn_t_ mul = fp_cur->mul;
	fp_t *pre, acc = FP_ONE;

	if (n == 0)
		return 0;
	pre = malloc(n * sizeof(*pre));
	if (!pre)
		return -1;
	for (size_t i = 0; i < n; i++) {
		pre[i] = acc;
		if (!fp_is_zero(&a[i]))
			mul(&acc, &acc, &a[i]);
	}
	fp_inv_nonzero(&acc, &acc);	/* a product of non-zeros */
	for (size_t i = n; i-- > 0;) {
		fp_t ai = a[i];	/* read before out[i] (may alias) is written */
		if (fp_is_zero(&ai)) {
			out[i] = FP_ZERO;
			continue;
		}
		mul(&out[i], &acc, &pre[i]);
		mul(&acc, &acc, &ai);
	}
	free(pre);
	return 0;
}

int fp_sqrt(fp_t *out, const fp_t *a)
{
	fp_t r, c;
	fp_pow(&r, a, fp_sqrt_exp, 6);
	fp_cur->sqr(&c, &r);
	if (!fp_equal(&c, a))
		return -1;
	*out = r;
	return 0;
}

int fp_is_square(const fp_t *a)
{
	return fp_legendre(a) >= 0;
}

/* ---- conversions ------------------------------------------------------- */

static int fp_limbs_lt_p(const uint64_t v[6])
{
	uint64_t b = 0;
	limb_sbb(v[0], P0, &b);
	limb_sbb(v[1], P1, &b);
	limb_sbb(v[2], P2, &b);
	limb_sbb(v[3], P3, &b);
	limb_sbb(v[4], P4, &b);
	limb_sbb(v[5], P5, &b);
	return (int)b;
}

void fp_from_u64(fp_t *out, uint64_t v)
{
	fp_t t = { { v, 0, 0, 0, 0, 0 } };
	fp_cur->mul(out, &t, &fp_r2);
}

int fp_from_limbs(fp_t *out, const uint64_t v[6])
{
	if (!fp_limbs_lt_p(v))
		return -1;
	fp_t t;
	memcpy(t.l, v, sizeof(t.l));
	fp_cur->mul(out, &t, &fp_r2);
	return 0;
}

void fp_to_limbs(uint64_t v[6], const fp_t *a)
{
	static const fp_t one_plain = { { 1, 0, 0, 0, 0, 0 } };
	fp_t t;
	fp_cur->mul(&t, a, &one_plain);	/* a * R * 1 / R */
	memcpy(v, t.l, sizeof(t.l));
}

/* 8 * words big-endian bytes into words little-endian limbs. */
static void fp_load_be(uint64_t *v, const uint8_t *in, int words)
{
	for (int i = 0; i < words; i++) {
		const uint8_t *w = in + 8 * (words - 1 - i);
		uint64_t x = 0;
		for (int j = 0; j < 8; j++)
			x = (x << 8) | w[j];
		v[i] = x;
	}
}

int fp_from_bytes_be(fp_t *out, const uint8_t in[FP_BYTES])
{
	uint64_t v[6];
	fp_load_be(v, in, 6);
	return fp_from_limbs(out, v);
}

void fp_to_bytes_be(uint8_t out[FP_BYTES], const fp_t *a)
{
	uint64_t v[6];
	fp_to_limbs(v, a);
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 8; j++)
			out[8 * (5 - i) + 7 - j] = (uint8_t)(v[i] >> (8 * j));
}

/* 8p, 4p, 2p and p, plain: all below 2^384. */
static const uint64_t fp_kp[4][6] = {
	{ 0xcff7fffffffd5558ULL, 0xf55ffff58a9ffffdULL, 0x39869507b587b120ULL,
	  0x23ba5c279c2895fbULL, 0x58dd3db21a5d66bbULL, 0xd0088f51cbff34d2ULL },
	{ 0xe7fbfffffffeaaacULL, 0x7aaffffac54ffffeULL, 0x9cc34a83dac3d890ULL,
	  0x91dd2e13ce144afdULL, 0x2c6e9ed90d2eb35dULL, 0x680447a8e5ff9a69ULL },
	{ 0x73fdffffffff5556ULL, 0x3d57fffd62a7ffffULL, 0xce61a541ed61ec48ULL,
	  0xc8ee9709e70a257eULL, 0x96374f6c869759aeULL, 0x340223d472ffcd34ULL },
	{ P0, P1, P2, P3, P4, P5 },
};

/*
 * in = hi * 2^384 + lo, hi the first 16 bytes, lo the last 48. lo < 2^384
 * < 16p comes below p by conditional subtractions of 8p, 4p, 2p, p; hi
 * < 2^128 is already below p. Then lo*R = mont(lo, R^2) and
 * hi*2^384*R = mont(hi, R^3).
 */
void fp_from_bytes_wide(fp_t *out, const uint8_t in[64])
{
	fp_t lo, hi = FP_ZERO;
	fp_load_be(lo.l, in + 16, 6);
	fp_load_be(hi.l, in, 2);
	for (int k = 0; k < 4; k++) {
		uint64_t b = 0, d[6];
		for (int i = 0; i < 6; i++)
			d[i] = limb_sbb(lo.l[i], fp_kp[k][i], &b);
		if (!b)
			memcpy(lo.l, d, sizeof(d));
	}
	fp_cur->mul(&lo, &lo, &fp_r2);
	fp_cur->mul(&hi, &hi, &fp_r3);
	fp_add_inline(out, &lo, &hi);
}

int fp_lexlarger(const fp_t *a)
{
	uint64_t v[6], b = 0;
	fp_to_limbs(v, a);
	/* half - v borrows exactly when v > half */
	for (int i = 0; i < 6; i++)
		limb_sbb(fp_half[i], v[i], &b);
	return (int)b;
}

/* ---- inversion and the Legendre symbol -------------------------------- */

/*
 * Variable-time inversion (nothing here is secret): Kaliski's almost
 * Montgomery inverse, a binary extended Euclid on plain six-limb integers
 * that keeps p = u*s + v*r with u, v, r, s positive (so r, s <= p and
 * everything fits six limbs) and strips all trailing zeros of a
 * difference in one shift. For x = aR (the Montgomery limbs, read as an
 * integer) it ends with z = x^-1 * 2^k mod p, k the number of halvings
 * (381 <= k <= 762). The wanted a^-1 * R = z * 2^(768 - k): one
 * multiplication by R^3 gives z * 2^768, then fp_div2k takes 2^-k off,
 * up to 64 bits per Montgomery reduction step.
 */
static int fp_ctz6(const uint64_t x[6])	/* x != 0 */
{
	int i = 0;
	while (x[i] == 0)
		i++;
	return 64 * i + __builtin_ctzll(x[i]);
}

static void fp_shr6(uint64_t x[6], int c)
{
	int w = c / 64, b = c % 64, i;
	for (i = 0; i + w < 6; i++) {
		uint64_t lo = x[i + w], hi = i + w + 1 < 6 ? x[i + w + 1] : 0;
		x[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
	}
	for (; i < 6; i++)
		x[i] = 0;
}

static void fp_shl6(uint64_t x[6], int c)	/* the result fits */
{
	int w = c / 64, b = c % 64, i;
	for (i = 5; i >= w; i--) {
		uint64_t hi = x[i - w], lo = i - w - 1 >= 0 ? x[i - w - 1] : 0;
		x[i] = b ? (hi << b) | (lo >> (64 - b)) : hi;
	}
	for (; i >= 0; i--)
		x[i] = 0;
}

/* x = x - y, returns the borrow. */
static uint64_t fp_sub6(uint64_t x[6], const uint64_t y[6])
{
	uint64_t b = 0;
	for (int i = 0; i < 6; i++)
		x[i] = limb_sbb(x[i], y[i], &b);
	return b;
}

static void fp_add6(uint64_t x[6], const uint64_t y[6])
{
	uint64_t c = 0;
	for (int i = 0; i < 6; i++)
		x[i] = limb_adc(x[i], y[i], &c);
}

/* 1 when x > y. */
static int fp_gt6(const uint64_t x[6], const uint64_t y[6])
{
	for (int i = 5; i >= 0; i--)
		if (x[i] != y[i])
			return x[i] > y[i];
	return 0;
}

/* x = x * 2^-k mod p, x < p: per step of s <= 64 bits, add m * p with
 * m = x * -p^-1 mod 2^s (so x + m*p = 0 mod 2^s) and shift right by s;
 * (x + m*p) / 2^s < p + p keeps x below 2p, then below p after the
 * conditional subtraction. */
static void fp_div2k(uint64_t x[6], int k)
{
	while (k > 0) {
		int sh = k < 64 ? k : 64;
		uint64_t m = x[0] * FP_INV, t[7], c = 0;
		if (sh < 64)
			m &= (1ULL << sh) - 1;
		for (int i = 0; i < 6; i++) {
			limb_u128 v = (limb_u128)m * FP_MODULUS[i] + x[i] + c;
			t[i] = (uint64_t)v;
			c = (uint64_t)(v >> 64);
		}
		t[6] = c;
		for (int i = 0; i < 6; i++)
			x[i] = sh < 64 ? (t[i] >> sh) | (t[i + 1] << (64 - sh)) : t[i + 1];
		uint64_t d[6];
		memcpy(d, x, sizeof(d));
		if (!fp_sub6(d, FP_MODULUS))
			memcpy(x, d, sizeof(d));
		k -= sh;
	}
}

/* x = (x >> c) for 0 < c < 64, the common case of fp_shr6. */
static inline void fp_shr6_small(uint64_t x[6], int c)
{
	x[0] = (x[0] >> c) | (x[1] << (64 - c));
	x[1] = (x[1] >> c) | (x[2] << (64 - c));
	x[2] = (x[2] >> c) | (x[3] << (64 - c));
	x[3] = (x[3] >> c) | (x[4] << (64 - c));
	x[4] = (x[4] >> c) | (x[5] << (64 - c));
	x[5] >>= c;
}

static inline void fp_shl6_small(uint64_t x[6], int c)
{
	x[5] = (x[5] << c) | (x[4] >> (64 - c));
	x[4] = (x[4] << c) | (x[3] >> (64 - c));
	x[3] = (x[3] << c) | (x[2] >> (64 - c));
	x[2] = (x[2] << c) | (x[1] >> (64 - c));
	x[1] = (x[1] << c) | (x[0] >> (64 - c));
	x[0] <<= c;
}

/* x = (x - y) >> ctz(x - y), *k += that count; x - y is even and
 * non-zero; then s <<= the same count after r += s. One step of the
 * almost inverse, for either side. */
static inline void fp_inv_step(uint64_t x[6], uint64_t r[6], uint64_t s[6], int *k)
{
	int c = x[0] ? __builtin_ctzll(x[0]) : fp_ctz6(x);
	if (c < 64) {
		fp_shr6_small(x, c);
		fp_add6(r, s);
		fp_shl6_small(s, c);
	} else {
		fp_shr6(x, c);
		fp_add6(r, s);
		fp_shl6(s, c);
	}
	*k += c;
}

/* Six-limb copies as plain moves: memcpy became 16-byte SSE moves. */
#define FP_CP6(d, s) do { \
	(d)[0] = (s)[0]; (d)[1] = (s)[1]; (d)[2] = (s)[2]; \
	(d)[3] = (s)[3]; (d)[4] = (s)[4]; (d)[5] = (s)[5]; \
} while (0)

static void fp_inv_nonzero(fp_t *out, const fp_t *a)
{
	uint64_t u[6], v[6], r[6] = { 0 }, s[6] = { 1 }, d[6];
	int k;

	FP_CP6(u, FP_MODULUS);
	FP_CP6(v, a->l);
	/* u = p is odd; v's twos first (r = 0 stays 0), then both are odd
	 * at the top of each round */
	k = fp_ctz6(v);
	fp_shr6(v, k);
	for (;;) {
		FP_CP6(d, u);
		if (!fp_sub6(d, v)) {
			if ((d[0] | d[1] | d[2] | d[3] | d[4] | d[5]) == 0) {
				/* u = v = 1: the last step takes v to 0 */
				fp_add6(s, r);
				fp_shl6_small(r, 1);
				k += 1;
				break;
			}
			FP_CP6(u, d);	/* u > v */
			fp_inv_step(u, r, s, &k);
		} else {
			fp_sub6(v, u);	/* v > u */
			fp_inv_step(v, s, r, &k);
		}
	}
	/* r <= 2p: z = p - (r mod p) = x^-1 * 2^k */
	FP_CP6(d, r);
	if (!fp_sub6(d, FP_MODULUS))
		FP_CP6(r, d);
	FP_CP6(d, FP_MODULUS);
	fp_sub6(d, r);
	fp_t zt;
	FP_CP6(zt.l, d);
	fp_cur->mul(out, &zt, &fp_r3);	/* z * 2^768 */
	fp_div2k(out->l, k);
}

/*
 * The Legendre symbol by the binary Jacobi algorithm, on the Montgomery
 * limbs directly: (aR / p) = (a / p) (2 / p)^384 = (a / p). Pull out
 * twos ((2 / n) = -1 for n = 3, 5 mod 8), swap by reciprocity (a sign
 * flip when both are 3 mod 4), subtract; variable time.
 */
static int fp_legendre(const fp_t *a)
{
	uint64_t x[6], n[6], tmp[6];
	int t = 1;

	if (fp_is_zero(a))
		return 0;
	FP_CP6(x, a->l);
	FP_CP6(n, FP_MODULUS);
	for (;;) {
		/* x != 0, n odd */
		int c = fp_ctz6(x);
		fp_shr6(x, c);
		if ((c & 1) && ((n[0] & 7) == 3 || (n[0] & 7) == 5))
			t = -t;
		if (fp_gt6(n, x)) {	/* both odd: swap by reciprocity */
			if ((x[0] & 3) == 3 && (n[0] & 3) == 3)
				t = -t;
			FP_CP6(tmp, x);
			FP_CP6(x, n);
			FP_CP6(n, tmp);
		}
		fp_sub6(x, n);	/* x >= n, both odd: even */
		if ((x[0] | x[1] | x[2] | x[3] | x[4] | x[5]) == 0)
			break;
	}
	/* x = n: n = gcd(a, p) = 1, p being prime and a != 0 mod p */
	return t;
}
