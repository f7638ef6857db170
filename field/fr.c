/*
 * fr: BLS12-381 scalar field arithmetic, portable C path and dispatch.
 *
 * Elements are four 64-bit limbs in Montgomery form, always < r. The
 * multiplication is CIOS Montgomery in its "no-carry" form: r's top limb
 * is below 2^63 - 1, so the running sum never needs a fifth word and the
 * reduction folds into the product loop (Gautam Botrel's goff trick).
 * Everything else (add, sub, pow, inversion, conversions) is written once
 * on top of whichever multiplication is selected: fr_mul and fr_sqr jump
 * through one resolved pointer pair, picked at start-up from cpuid
 * (fr_adx.c on x86-64 with BMI2+ADX; fr_ifma.c for batches where AVX-512
 * IFMA exists) or forced by fr_set_impl().
 */
#include "field/fr.h"
#include "field/limb.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif


#define R0 0xffffffff00000001ULL
#define R1 0x53bda402fffe5bfeULL
#define R2 0x3339d80809a1d805ULL
#define R3 0x73eda753299d7d48ULL

const uint64_t FR_MODULUS[4] = { R0, R1, R2, R3 };
const uint64_t FR_R2[4] = {
	0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
	0x05d314967254398fULL, 0x0748d9d99f59ff11ULL,
};
const uint64_t FR_INV = 0xfffffffeffffffffULL;
const fr_t FR_ZERO = { { 0, 0, 0, 0 } };
const fr_t FR_ONE = { {
	0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
	0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL,
} };
const fr_t FR_GENERATOR = { {
	0x0000000efffffff1ULL, 0x17e363d300189c0fULL,
	0xff9c57876f8457b0ULL, 0x351332208fc5a8c4ULL,
} };
/* 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b,
 * bellperson's ROOT_OF_UNITY, in Montgomery form. */
const fr_t FR_ROOT_OF_UNITY = { {
	0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL,
	0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL,
} };
static const fr_t fr_r2 = { {	/* FR_R2 as an operand */
	0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
	0x05d314967254398fULL, 0x0748d9d99f59ff11ULL,
} };
/* R^3 mod r: mont_mul(x, R^3) = x * R^2, the weight of a wide input's
 * upper half (x * 2^256) brought into Montgomery form. */
static const fr_t FR_R3 = { {
	0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL,
	0x73d13c71c7b5f418ULL, 0x6e2a5bb9c8db33e9ULL,
} };


/* (t0..t3) < 2r, and < 2^256 -> out = t mod r. Kept in scalars: built
 * through small arrays, gcc vectorised the select and the 16-byte loads
 * of 8-byte stores stalled store forwarding (4x slower fr_add). */
static inline void fr_reduce4(uint64_t out[4], uint64_t t0, uint64_t t1,
			      uint64_t t2, uint64_t t3)
{
	uint64_t b = 0;
	uint64_t d0 = limb_sbb(t0, R0, &b);
	uint64_t d1 = limb_sbb(t1, R1, &b);
	uint64_t d2 = limb_sbb(t2, R2, &b);
	uint64_t d3 = limb_sbb(t3, R3, &b);
	/* b set: t < r, keep t. Branch-free: the borrow is data-dependent
	 * and unpredictable in NTT loops. */
	uint64_t keep = 0 - b;
	out[0] = (t0 & keep) | (d0 & ~keep);
	out[1] = (t1 & keep) | (d1 & ~keep);
	out[2] = (t2 & keep) | (d2 & ~keep);
	out[3] = (t3 & keep) | (d3 & ~keep);
}

static inline void fr_reduce_once(uint64_t out[4], const uint64_t t[4])
{
	fr_reduce4(out, t[0], t[1], t[2], t[3]);
}

static int fr_limbs_lt_r(const uint64_t v[4])
{
	uint64_t b = 0;
	limb_sbb(v[0], R0, &b);
	limb_sbb(v[1], R1, &b);
	limb_sbb(v[2], R2, &b);
	limb_sbb(v[3], R3, &b);
	return (int)b;
}

/* ---- portable multiplication ---------------------------------------- */

#if defined(__clang__)
/* clang turns the textbook three-term 128-bit sums (x*y + t + c) into
 * tight MUL/ADD/ADC code (~22 ns here, against ~24 ns for the split form
 * below); gcc does not, hence two spellings of one algorithm. Both are
 * checked against GMP and against each other by tests/field/gmp.c. */
void fr_mul_portable(fr_t *out, const fr_t *a, const fr_t *b)
{
	const uint64_t *x = a->l, *y = b->l;
	uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;

	for (int i = 0; i < 4; i++) {
		uint64_t xi = x[i], c, c2, m;
		limb_u128 p;

		p = (limb_u128)xi * y[0] + t0;
		c = (uint64_t)(p >> 64);
		t0 = (uint64_t)p;
		m = t0 * FR_INV;
		p = (limb_u128)m * R0 + t0;	/* low word is 0 by choice of m */
		c2 = (uint64_t)(p >> 64);

		p = (limb_u128)xi * y[1] + t1 + c;
		c = (uint64_t)(p >> 64);
		t1 = (uint64_t)p;
		p = (limb_u128)m * R1 + t1 + c2;
		c2 = (uint64_t)(p >> 64);
		t0 = (uint64_t)p;

		p = (limb_u128)xi * y[2] + t2 + c;
		c = (uint64_t)(p >> 64);
		t2 = (uint64_t)p;
		p = (limb_u128)m * R2 + t2 + c2;
		c2 = (uint64_t)(p >> 64);
		t1 = (uint64_t)p;

		p = (limb_u128)xi * y[3] + t3 + c;
		c = (uint64_t)(p >> 64);
		t3 = (uint64_t)p;
		p = (limb_u128)m * R3 + t3 + c2;
		c2 = (uint64_t)(p >> 64);
		t2 = (uint64_t)p;

		t3 = c + c2;	/* cannot overflow: r3 < 2^63 - 1 */
	}
	fr_reduce4(out->l, t0, t1, t2, t3);
}

#else
/*
 * Each step keeps the two halves of the four products apart: the low
 * words go down one carry chain and the high words down a second, as
 * separate limb_adc() chains (ADC on x86-64). Written with three-term
 * 128-bit sums instead (x*y + t + c, the textbook form), gcc materialised
 * every carry with setc/movzx and the multiplication ran at ~34 ns against
 * ~26 ns for this form (gcc 12, Zen 4). The arithmetic is
 * unchanged: the same no-carry CIOS, so the same result bit for bit.
 */
void fr_mul_portable(fr_t *out, const fr_t *a, const fr_t *b)
{
	const uint64_t *x = a->l, *y = b->l;
	uint64_t t0, t1, t2, t3, t4, h0, h1, h2, h3, l0, l1, l2, l3, m, c;

	/* row 0: t = x * y[0] */
	l0 = limb_mul(x[0], y[0], &h0);
	l1 = limb_mul(x[1], y[0], &h1);
	l2 = limb_mul(x[2], y[0], &h2);
	l3 = limb_mul(x[3], y[0], &h3);
	c = 0;
	t0 = l0;
	t1 = limb_adc(l1, h0, &c);
	t2 = limb_adc(l2, h1, &c);
	t3 = limb_adc(l3, h2, &c);
	t4 = h3 + c;		/* x * y[0] < 2^320: no carry out */
	for (int i = 0;; i++) {
		/* t = (t + m * r) / 2^64, m chosen so the low word is 0 */
		m = t0 * FR_INV;
		l0 = limb_mul(m, R0, &h0);
		l1 = limb_mul(m, R1, &h1);
		l2 = limb_mul(m, R2, &h2);
		l3 = limb_mul(m, R3, &h3);
		c = 0;
		limb_adc(l0, t0, &c);	/* 0 mod 2^64; only the carry counts */
		t1 = limb_adc(l1, t1, &c);
		t2 = limb_adc(l2, t2, &c);
		t3 = limb_adc(l3, t3, &c);
		t4 += c;
		c = 0;
		t0 = limb_adc(t1, h0, &c);
		t1 = limb_adc(t2, h1, &c);
		t2 = limb_adc(t3, h2, &c);
		t3 = t4 + h3 + c;	/* < 2r < 2^256: r3 < 2^63 - 1 */
		if (i == 3)
			break;
		/* t += x * y[i + 1]; t4 takes the carries out of t3 */
		uint64_t yi = y[i + 1];
		l0 = limb_mul(x[0], yi, &h0);
		l1 = limb_mul(x[1], yi, &h1);
		l2 = limb_mul(x[2], yi, &h2);
		l3 = limb_mul(x[3], yi, &h3);
		c = 0;
		t0 = limb_adc(l0, t0, &c);
		t1 = limb_adc(l1, t1, &c);
		t2 = limb_adc(l2, t2, &c);
		t3 = limb_adc(l3, t3, &c);
		t4 = c;
		c = 0;
		t1 = limb_adc(t1, h0, &c);
		t2 = limb_adc(t2, h1, &c);
		t3 = limb_adc(t3, h2, &c);
		t4 = t4 + h3 + c;
	}
	fr_reduce4(out->l, t0, t1, t2, t3);
}
#endif

void fr_sqr_portable(fr_t *out, const fr_t *a)
{
	fr_mul_portable(out, a, a);
}

/* ---- dispatch -------------------------------------------------------- */

struct fr_impl {
	const char *name;
	fr_mul_fn_t mul;
	fr_sqr_fn_t sqr;
	fr_muln_fn_t muln;
	int (*have)(void);
	int wide;		/* muln beats one product at a time */
};

static void fr_muln_portable(fr_t *out, const fr_t *a, const fr_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fr_mul_portable(&out[i], &a[i], &b[i]);
}

static int fr_have_any(void)
{
	return 1;
}

#if defined(__x86_64__)
static void fr_muln_adx(fr_t *out, const fr_t *a, const fr_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fr_mul_adx(&out[i], &a[i], &b[i]);
}
#endif

/* Fastest last: the constructor takes the last one the CPU supports. */
static const struct fr_impl fr_impls[] = {
	{ "portable", fr_mul_portable, fr_sqr_portable, fr_muln_portable, fr_have_any, 0 },
#if defined(__x86_64__)
	{ "adx", fr_mul_adx, fr_sqr_adx, fr_muln_adx, fr_have_adx, 0 },
	/* single products stay on MULX/ADX; batches of 8 go to IFMA */
	{ "ifma", fr_mul_adx, fr_sqr_adx, fr_muln_ifma, fr_have_ifma, 1 },
#endif
};
#define FR_NIMPLS (sizeof(fr_impls) / sizeof(fr_impls[0]))

/* Starts portable (correct everywhere); the constructor upgrades it before
 * main() when the CPU allows. */
static const struct fr_impl *fr_cur = &fr_impls[0];

/* cpuid leaf 7: EBX bit 8 is BMI2 (MULX), bit 19 is ADX (ADCX/ADOX). */
int fr_have_adx(void)
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

/* AVX-512 F and IFMA (cpuid leaf 7 EBX bits 16 and 21), ADX too, and the
 * OS saving the opmask and zmm state (XCR0 bits 1, 2, 5, 6, 7). */
int fr_have_ifma(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d, lo, hi;
	if (!fr_have_adx() || !__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
		return 0;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	if ((lo & 0xe6) != 0xe6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & (1u << 16)) && (b & (1u << 21));
#else
	return 0;
#endif
}

__attribute__((constructor)) static void fr_select_impl(void)
{
	for (size_t i = FR_NIMPLS; i-- > 0;)
		if (fr_impls[i].have()) {
			fr_cur = &fr_impls[i];
			return;
		}
}

const char *fr_impl_name(void)
{
	return fr_cur->name;
}

int fr_set_impl(const char *name)
{
	for (size_t i = 0; i < FR_NIMPLS; i++) {
		if (strcmp(name, fr_impls[i].name) != 0)
			continue;
		if (!fr_impls[i].have())
			return -1;
		fr_cur = &fr_impls[i];
		return 0;
	}
	return -1;
}

fr_muln_fn_t fr_muln_fn(void)
{
	return fr_cur->muln;
}

void fr_muln_const(fr_t *out, const fr_t *a, const fr_t *c, size_t n)
{
	enum { CHUNK = 64 };
	fr_t cs[CHUNK];

	for (size_t i = 0; i < CHUNK && i < n; i++)
		cs[i] = *c;
	for (size_t i = 0; i < n; i += CHUNK)
		fr_cur->muln(out + i, a + i, cs, n - i < CHUNK ? n - i : CHUNK);
}

int fr_batch_wide(void)
{
	return fr_cur->wide;
}

fr_mul_fn_t fr_mul_fn(void)
{
	return fr_cur->mul;
}

fr_sqr_fn_t fr_sqr_fn(void)
{
	return fr_cur->sqr;
}

void fr_mul(fr_t *out, const fr_t *a, const fr_t *b)
{
	fr_cur->mul(out, a, b);
}

void fr_sqr(fr_t *out, const fr_t *a)
{
	fr_cur->sqr(out, a);
}

/* ---- additive group --------------------------------------------------- */

void fr_add(fr_t *out, const fr_t *a, const fr_t *b)
{
	uint64_t c = 0;
	/* a + b < 2r < 2^256: no carry out of the top limb. */
	uint64_t t0 = limb_adc(a->l[0], b->l[0], &c);
	uint64_t t1 = limb_adc(a->l[1], b->l[1], &c);
	uint64_t t2 = limb_adc(a->l[2], b->l[2], &c);
	uint64_t t3 = limb_adc(a->l[3], b->l[3], &c);
	fr_reduce4(out->l, t0, t1, t2, t3);
}

void fr_sub(fr_t *out, const fr_t *a, const fr_t *b)
{
	uint64_t bw = 0, c = 0;
	uint64_t t0 = limb_sbb(a->l[0], b->l[0], &bw);
	uint64_t t1 = limb_sbb(a->l[1], b->l[1], &bw);
	uint64_t t2 = limb_sbb(a->l[2], b->l[2], &bw);
	uint64_t t3 = limb_sbb(a->l[3], b->l[3], &bw);
	/* Went negative: add r back (masked, no branch). */
	uint64_t mask = 0 - bw;
	out->l[0] = limb_adc(t0, R0 & mask, &c);
	out->l[1] = limb_adc(t1, R1 & mask, &c);
	out->l[2] = limb_adc(t2, R2 & mask, &c);
	out->l[3] = limb_adc(t3, R3 & mask, &c);
}

void fr_neg(fr_t *out, const fr_t *a)
{
	fr_sub(out, &FR_ZERO, a);
}

void fr_double(fr_t *out, const fr_t *a)
{
	fr_add(out, a, a);
}

int fr_is_zero(const fr_t *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

int fr_equal(const fr_t *a, const fr_t *b)
{
	return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) |
		(a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}

/* ---- exponentiation and inversion -------------------------------------- */

void fr_pow(fr_t *out, const fr_t *a, const uint64_t e[4])
{
	fr_mul_fn_t mul = fr_cur->mul;
	fr_sqr_fn_t sqr = fr_cur->sqr;
	fr_t acc = FR_ONE, base = *a;
	int started = 0;

	/* Left to right; squarings of 1 before the top set bit are skipped. */
	for (int i = 255; i >= 0; i--) {
		if (started)
			sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1) {
			mul(&acc, &acc, &base);
			started = 1;
		}
	}
	*out = acc;
}

void fr_pow_u64(fr_t *out, const fr_t *a, uint64_t e)
{
	uint64_t ev[4] = { e, 0, 0, 0 };
	fr_pow(out, a, ev);
}

/* Fermat: a^(r-2). Not constant time; nothing here handles secrets. */
int fr_inv(fr_t *out, const fr_t *a)
{
	static const uint64_t rm2[4] = { R0 - 2, R1, R2, R3 };
	if (fr_is_zero(a))
		return -1;
	fr_pow(out, a, rm2);
	return 0;
}

/* Chunks bound the scratch space to the stack (no allocation, so no
 * failure path); one inversion per chunk costs ~4 ns per element against
 * the ~3 multiplications each element needs anyway. */
#define FR_BATCH_CHUNK 1024

static void fr_batch_inv_chunk(fr_t *out, const fr_t *a, size_t n)
{
	fr_t pre[FR_BATCH_CHUNK];
	fr_mul_fn_t mul = fr_cur->mul;
	fr_t acc = FR_ONE;

	for (size_t i = 0; i < n; i++) {
		pre[i] = acc;
		if (!fr_is_zero(&a[i]))
			mul(&acc, &acc, &a[i]);
	}
	fr_inv(&acc, &acc);	/* acc is a product of non-zeros: never 0 */
	for (size_t i = n; i-- > 0;) {
		fr_t ai = a[i];	/* read before out[i] (may alias) is written */
		if (fr_is_zero(&ai)) {
			out[i] = FR_ZERO;
			continue;
		}
		mul(&out[i], &acc, &pre[i]);
		mul(&acc, &acc, &ai);
	}
}

int fr_batch_inv(fr_t *out, const fr_t *a, size_t n)
{
	for (size_t i = 0; i < n; i += FR_BATCH_CHUNK) {
		size_t m = n - i < FR_BATCH_CHUNK ? n - i : FR_BATCH_CHUNK;
		fr_batch_inv_chunk(out + i, a + i, m);
	}
	return 0;
}

/* ---- conversions ------------------------------------------------------- */

void fr_from_u64(fr_t *out, uint64_t v)
{
	fr_t t = { { v, 0, 0, 0 } };
	fr_cur->mul(out, &t, &fr_r2);
}

int fr_from_limbs(fr_t *out, const uint64_t v[4])
{
	if (!fr_limbs_lt_r(v))
		return -1;
	fr_t t = { { v[0], v[1], v[2], v[3] } };
	fr_cur->mul(out, &t, &fr_r2);
	return 0;
}

void fr_to_limbs(uint64_t v[4], const fr_t *a)
{
	static const fr_t one_plain = { { 1, 0, 0, 0 } };
	fr_t t;
	fr_cur->mul(&t, a, &one_plain);	/* a * R * 1 / R */
	memcpy(v, t.l, sizeof(t.l));
}

static void fr_load_le(uint64_t v[4], const uint8_t *in)
{
	for (int i = 0; i < 4; i++) {
		uint64_t w = 0;
		for (int j = 7; j >= 0; j--)
			w = (w << 8) | in[8 * i + j];
		v[i] = w;
	}
}

int fr_from_bytes(fr_t *out, const uint8_t in[FR_BYTES])
{
	uint64_t v[4];
	fr_load_le(v, in);
	return fr_from_limbs(out, v);
}

void fr_to_bytes(uint8_t out[FR_BYTES], const fr_t *a)
{
	uint64_t v[4];
	fr_to_limbs(v, a);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			out[8 * i + j] = (uint8_t)(v[i] >> (8 * j));
}

/* in = lo + hi * 2^256. Each half (< 2^256 < 3r) is first brought below r
 * by at most two subtractions; then lo*R = mont(lo, R^2) and
 * hi*2^256*R = hi*R^2 = mont(hi, R^3). */
void fr_from_bytes_wide(fr_t *out, const uint8_t in[64])
{
	fr_t lo, hi;
	fr_load_le(lo.l, in);
	fr_load_le(hi.l, in + 32);
	fr_reduce_once(lo.l, lo.l);
	fr_reduce_once(lo.l, lo.l);
	fr_reduce_once(hi.l, hi.l);
	fr_reduce_once(hi.l, hi.l);
	fr_cur->mul(&lo, &lo, &fr_r2);
	fr_cur->mul(&hi, &hi, &FR_R3);
	fr_add(out, &lo, &hi);
}
