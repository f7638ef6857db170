/*
 * limb: the 64-bit word operations every field's portable code is built
 * from (fr.c, fp.c): add and subtract with carry, and a full product.
 * On x86-64 the intrinsics become plain ADC/SBB (baseline ISA, no
 * BMI2/ADX); elsewhere 128-bit arithmetic does the same job.
 */
#ifndef FIELD_LIMB_H
#define FIELD_LIMB_H

#include <stdint.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef unsigned __int128 limb_u128;

#if defined(__x86_64__)
static inline uint64_t limb_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned long long s;
	*carry = _addcarry_u64((unsigned char)*carry, a, b, &s);
	return s;
}

static inline uint64_t limb_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned long long d;
	*borrow = _subborrow_u64((unsigned char)*borrow, a, b, &d);
	return d;
}
#else
static inline uint64_t limb_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	limb_u128 s = (limb_u128)a + b + *carry;
	*carry = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

static inline uint64_t limb_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	limb_u128 d = (limb_u128)a - b - *borrow;
	*borrow = (uint64_t)(d >> 64) & 1;
	return (uint64_t)d;
}
#endif

/* a * b: the low word, and the high word in *hi. */
static inline uint64_t limb_mul(uint64_t a, uint64_t b, uint64_t *hi)
{
	limb_u128 p = (limb_u128)a * b;
	*hi = (uint64_t)(p >> 64);
	return (uint64_t)p;
}

#endif
