/*
 * fr: the BLS12-381 scalar field Fr,
 *   r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
 * two-adicity 32, multiplicative generator 7.
 *
 * Elements live in Montgomery form (x * 2^256 mod r) as four 64-bit limbs,
 * least significant first, always fully reduced (< r). The only way in from
 * bytes is fr_from_bytes(), which refuses a non-canonical encoding; the way
 * out is fr_to_bytes() (32 bytes, little-endian, canonical).
 *
 * Multiplication has a portable C path and an x86-64 MULX/ADX path; the
 * fast one is chosen at run time when the CPU has BMI2 and ADX. Both give
 * identical results; fr_set_impl() forces one (tests compare them).
 */
#ifndef FIELD_FR_H
#define FIELD_FR_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t l[4];
} fr_t;

#define FR_BYTES 32
#define FR_TWO_ADICITY 32

/* Constants (Montgomery form unless named otherwise). */
extern const fr_t FR_ZERO;
extern const fr_t FR_ONE;	/* R mod r */
extern const uint64_t FR_MODULUS[4];	/* r, plain */
extern const uint64_t FR_R2[4];	/* R^2 mod r, plain */
extern const uint64_t FR_INV;	/* -r^-1 mod 2^64 */
extern const fr_t FR_GENERATOR;	/* 7 */
extern const fr_t FR_ROOT_OF_UNITY;	/* 7^((r-1) >> 32): order exactly 2^32 */

void fr_add(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *out, const fr_t *a, const fr_t *b);
void fr_neg(fr_t *out, const fr_t *a);
void fr_double(fr_t *out, const fr_t *a);
void fr_mul(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *out, const fr_t *a);
/* out = a^e, e given as 4 plain little-endian limbs. */
void fr_pow(fr_t *out, const fr_t *a, const uint64_t e[4]);
void fr_pow_u64(fr_t *out, const fr_t *a, uint64_t e);
/* Returns 0, or -1 (out untouched) when a is zero. */
int fr_inv(fr_t *out, const fr_t *a);
/* out[i] = 1/a[i] for all i (Montgomery's trick: one inversion). Zero
 * inputs give zero outputs. out may equal a. Returns 0. */
int fr_batch_inv(fr_t *out, const fr_t *a, size_t n);

int fr_is_zero(const fr_t *a);
int fr_equal(const fr_t *a, const fr_t *b);

/* Conversions. */
void fr_from_u64(fr_t *out, uint64_t v);
/* Plain 4-limb integer (must be < r; returns -1 otherwise) to Montgomery. */
int fr_from_limbs(fr_t *out, const uint64_t v[4]);
void fr_to_limbs(uint64_t v[4], const fr_t *a);
/* 32 bytes little-endian; -1 (out untouched) when the value is >= r. */
int fr_from_bytes(fr_t *out, const uint8_t in[FR_BYTES]);
void fr_to_bytes(uint8_t out[FR_BYTES], const fr_t *a);
/* 64 bytes little-endian reduced mod r: for hashing to the field only. */
void fr_from_bytes_wide(fr_t *out, const uint8_t in[64]);

/* Implementation choice: "portable", "adx" (MULX/ADX), or "ifma" (adx for
 * single products, AVX-512 IFMA for batches: fr_muln_fn). The fastest the
 * CPU supports is chosen at start. fr_set_impl returns -1 when the named
 * one is unknown or not supported by this CPU. */
const char *fr_impl_name(void);
int fr_set_impl(const char *name);
int fr_have_adx(void);
int fr_have_ifma(void);

/*
 * Hot loops (NTT butterflies, pointwise products): fetch the selected
 * multiplication once, outside the loop, and call it directly:
 *
 *	fr_mul_fn_t mul = fr_mul_fn();
 *	for (...) mul(&t, &x[i], &w[j]);
 *
 * That saves the extra hop through fr_mul() on every element. The pointer
 * stays valid for the life of the process; it only changes when
 * fr_set_impl() is called, which must not race with arithmetic.
 * out may alias a or b in every fr_ function.
 */
typedef void (*fr_mul_fn_t)(fr_t *out, const fr_t *a, const fr_t *b);
typedef void (*fr_sqr_fn_t)(fr_t *out, const fr_t *a);
fr_mul_fn_t fr_mul_fn(void);
fr_sqr_fn_t fr_sqr_fn(void);
/* out[i] = a[i] * b[i] for i < n: the batch form, eight at a time with
 * IFMA. out may be a or b, but must not overlap them otherwise. */
typedef void (*fr_muln_fn_t)(fr_t *out, const fr_t *a, const fr_t *b, size_t n);
fr_muln_fn_t fr_muln_fn(void);
/* out[i] = a[i] * c for i < n, through fr_muln; out may be a. */
void fr_muln_const(fr_t *out, const fr_t *a, const fr_t *c, size_t n);
/* 1 when fr_muln_fn() is faster than one product at a time (IFMA); else
 * a loop interleaving single products with other work is as fast. */
int fr_batch_wide(void);

/* The implementations behind fr_mul/fr_sqr, for tests and benchmarks. */
void fr_mul_portable(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sqr_portable(fr_t *out, const fr_t *a);
#if defined(__x86_64__)
/* Only valid where fr_have_adx() says so. */
void fr_mul_adx(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sqr_adx(fr_t *out, const fr_t *a);
/* Only valid where fr_have_ifma() says so. */
void fr_mul8_ifma(fr_t *out, const fr_t *a, const fr_t *b);
void fr_muln_ifma(fr_t *out, const fr_t *a, const fr_t *b, size_t n);
#endif

#endif
