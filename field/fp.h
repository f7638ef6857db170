/*
 * fp: the BLS12-381 base field Fp,
 *   p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
 *         1eabfffeb153ffffb9feffffffffaaab (381 bits),
 * p = 3 mod 4.
 *
 * Elements live in Montgomery form (x * 2^384 mod p) as six 64-bit limbs,
 * least significant first, always fully reduced (< p). The ways in from
 * bytes refuse a non-canonical encoding. Byte encodings are big-endian,
 * as the ZCash point encodings (curve/curve.h) need.
 *
 * Multiplication has a portable C path and an x86-64 MULX/ADX path, chosen
 * at run time as in field/fr.h; fp_set_impl() forces one. Every fp_
 * function allows out to alias any input.
 *
 * The towers above Fp (fp2.c, fp6.c, fp12.c) reduce lazily: they take
 * unreduced 768-bit products (fp_mul_wide), add and subtract those
 * (field/fp_lazy.h) and pay one Montgomery reduction (fp_redc) per output
 * coefficient, instead of one per product.
 */
#ifndef FIELD_FP_H
#define FIELD_FP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t l[6];
} fp_t;

#define FP_BYTES 48

/* A double-width intermediate: twelve limbs, least significant first. */
typedef struct {
	uint64_t l[12];
} fp_wide_t;

extern const fp_t FP_ZERO;
extern const fp_t FP_ONE;		/* R mod p */
extern const uint64_t FP_MODULUS[6];	/* p, plain */
extern const uint64_t FP_INV;		/* -p^-1 mod 2^64 */

void fp_add(fp_t *out, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *out, const fp_t *a, const fp_t *b);
void fp_neg(fp_t *out, const fp_t *a);
void fp_double(fp_t *out, const fp_t *a);
void fp_mul(fp_t *out, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *out, const fp_t *a);
/* out = a * b as a plain 768-bit integer, for any a, b below 2^384 (not
 * only reduced ones); out may not overlap a or b. */
void fp_mul_wide(fp_wide_t *out, const fp_t *a, const fp_t *b);
/* out = a / 2^384 mod p, fully reduced, for a < p * 2^384: Montgomery
 * reduction alone, so fp_redc(fp_mul_wide(a, b)) = fp_mul(a, b). */
void fp_redc(fp_t *out, const fp_wide_t *a);
/* out = a * v for a small plain v (curve constants: 3, 4, 8, 12). */
void fp_mul_small(fp_t *out, const fp_t *a, uint64_t v);
/* out = a^e, e given as n plain little-endian limbs. */
void fp_pow(fp_t *out, const fp_t *a, const uint64_t *e, size_t n);
/* Returns 0, or -1 (out untouched) when a is zero. */
int fp_inv(fp_t *out, const fp_t *a);
/* out[i] = 1/a[i] (Montgomery's trick, one inversion); zero in, zero out.
 * out may equal a. Returns 0, or -1 when memory ran out. */
int fp_batch_inv(fp_t *out, const fp_t *a, size_t n);
/* A square root of a: 0, or -1 (out untouched) when a is not a square.
 * Which root is returned is unspecified; callers pick by fp_lexlarger. */
int fp_sqrt(fp_t *out, const fp_t *a);
/* 1 when a is a square (zero included). */
int fp_is_square(const fp_t *a);

int fp_is_zero(const fp_t *a);
int fp_is_one(const fp_t *a);
int fp_equal(const fp_t *a, const fp_t *b);
/* 1 when a > (p - 1) / 2 as a plain integer: the ZCash "sort" flag. */
int fp_lexlarger(const fp_t *a);

void fp_from_u64(fp_t *out, uint64_t v);
/* Plain 6-limb integer (must be < p; -1 otherwise) to Montgomery. */
int fp_from_limbs(fp_t *out, const uint64_t v[6]);
void fp_to_limbs(uint64_t v[6], const fp_t *a);
/* 48 bytes big-endian; -1 (out untouched) when the value is >= p. */
int fp_from_bytes_be(fp_t *out, const uint8_t in[FP_BYTES]);
void fp_to_bytes_be(uint8_t out[FP_BYTES], const fp_t *a);
/* 64 bytes big-endian, reduced mod p: for hashing to the field only. */
void fp_from_bytes_wide(fp_t *out, const uint8_t in[64]);

/* "portable" or "adx"; the fastest the CPU supports is chosen at start.
 * fp_set_impl returns -1 when the name is unknown or unsupported here. */
const char *fp_impl_name(void);
int fp_set_impl(const char *name);

/* The implementations behind fp_mul/fp_sqr/fp_mul_wide/fp_redc, for
 * tests and benchmarks. */
void fp_mul_portable(fp_t *out, const fp_t *a, const fp_t *b);
void fp_sqr_portable(fp_t *out, const fp_t *a);
void fp_mul_wide_portable(fp_wide_t *out, const fp_t *a, const fp_t *b);
void fp_redc_portable(fp_t *out, const fp_wide_t *a);
#if defined(__x86_64__)
void fp_mul_adx(fp_t *out, const fp_t *a, const fp_t *b);	/* BMI2+ADX only */
void fp_sqr_adx(fp_t *out, const fp_t *a);
void fp_mul_wide_adx(fp_wide_t *out, const fp_t *a, const fp_t *b);
void fp_redc_adx(fp_t *out, const fp_wide_t *a);
#endif

#endif
