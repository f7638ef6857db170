/*
 * msm: multi-scalar multiplication, out = sum_i s[i] * P[i], by Pippenger's
 * bucket method: signed window digits, the window width chosen from n,
 * bucket sums accumulated with batch-affine additions, the windows split
 * over threads. Points at infinity and zero scalars are allowed.
 */
#ifndef CURVE_MSM_H
#define CURVE_MSM_H

#include <stddef.h>

#include "curve/curve.h"
#include "field/fr.h"

/* threads 0: the online CPU count. Returns 0, -1 when memory ran out
 * (out untouched), or MSM_STOPPED when the stop hook asked (out
 * untouched). */
#define MSM_STOPPED (-2)
int msm_g1(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n, unsigned threads);
int msm_g2(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n, unsigned threads);

/* Safe points: fn(arg) is asked, from any of an MSM's threads, between
 * its tasks and every 2^14 points within one; once it returns nonzero the
 * MSM stops within about that much work per thread and returns
 * MSM_STOPPED. Process-wide; NULL removes it. fn must be thread-safe. */
void msm_set_stop(int (*fn)(void *arg), void *arg);

/* The naive sum (one scalar multiplication per point): the tests' and
 * the benchmark's baseline. */
void msm_g1_naive(g1_t *out, const g1_affine_t *p, const fr_t *s, size_t n);
void msm_g2_naive(g2_t *out, const g2_affine_t *p, const fr_t *s, size_t n);

#endif
