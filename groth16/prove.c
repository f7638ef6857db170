/*
 * prove: a Groth16 proof from an assignment and its H-term, and the
 * verifier's pairing check (groth16.h has the equations).
 *
 * Five MSMs make a proof: A and B_G1 over every variable, B_G2 likewise in
 * G2, L over the private variables and H over the H-term's n - 1
 * coefficients. Each runs on all the threads asked for, one after another.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "curve/msm.h"
#include "curve/pairing.h"
#include "groth16/groth16_priv.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* out = base + msm + s * d (G1, Jacobian) */
static void g1_blind(g1_t *out, const g1_affine_t *base, const g1_t *msm, const fr_t *s, const g1_affine_t *d)
{
	g1_t t;

	g1_from_affine(&t, d);
	g1_mul(&t, &t, s);
	g1_add(&t, &t, msm);
	g1_add_affine(out, &t, base);
}

int groth16_prove(struct groth16_proof *out, const struct groth16_params *p, const fr_t *z,
		  const fr_t *h, const fr_t *r, const fr_t *s, unsigned threads, struct groth16_times *t)
{
	struct groth16_times tm = { 0 };
	size_t m = p->nvars;
	uint64_t t0 = now_ns(), t1;
	g1_t ma, mb1, ml, mh, a, b1, c, u;
	g2_t mb2, b2;
	fr_t rs;

	int rc;

	if ((rc = msm_g1(&ma, p->a, z, m, threads)))
		return rc;
	t1 = now_ns();
	tm.msm_a = t1 - t0;
	if ((rc = msm_g2(&mb2, p->b_g2, z, m, threads)) || (rc = msm_g1(&mb1, p->b_g1, z, m, threads)))
		return rc;
	tm.msm_b = now_ns() - t1;
	t1 = now_ns();
	if ((rc = msm_g1(&ml, p->l, z + p->npub, m - p->npub, threads)))
		return rc;
	tm.msm_l = now_ns() - t1;
	t1 = now_ns();
	if ((rc = msm_g1(&mh, p->h, h, p->nh, threads)))
		return rc;
	tm.msm_h = now_ns() - t1;

	/* A = alpha + sum z A + r delta;  B = beta + sum z B + s delta */
	g1_blind(&a, &p->vk.alpha_g1, &ma, r, &p->vk.delta_g1);
	g1_blind(&b1, &p->vk.beta_g1, &mb1, s, &p->vk.delta_g1);
	g2_from_affine(&b2, &p->vk.delta_g2);
	g2_mul(&b2, &b2, s);
	g2_add(&b2, &b2, &mb2);
	g2_add_affine(&b2, &b2, &p->vk.beta_g2);

	/* C = L + H + s A + r B1 - r s delta */
	g1_add(&c, &ml, &mh);
	g1_mul(&u, &a, s);
	g1_add(&c, &c, &u);
	g1_mul(&u, &b1, r);
	g1_add(&c, &c, &u);
	fr_mul(&rs, r, s);
	g1_from_affine(&u, &p->vk.delta_g1);
	g1_mul(&u, &u, &rs);
	g1_neg(&u, &u);
	g1_add(&c, &c, &u);

	g1_to_affine(&out->a, &a);
	g2_to_affine(&out->b, &b2);
	g1_to_affine(&out->c, &c);
	tm.total = now_ns() - t0;
	if (t)
		*t = tm;
	return 0;
}

void groth16_randomness(fr_t *r, fr_t *s)
{
	uint8_t wide[64];

	randombytes_buf(wide, sizeof wide);
	fr_from_bytes_wide(r, wide);
	randombytes_buf(wide, sizeof wide);
	fr_from_bytes_wide(s, wide);
	sodium_memzero(wide, sizeof wide);
}

int groth16_verify(const struct groth16_vk *vk, const fr_t x[GROTH16_NPUB - 1], const struct groth16_proof *pr)
{
	g1_affine_t ps[4];
	g2_affine_t qs[4];
	g1_t acc, t;

	/* sum x_i IC_i with x = (1, x_0, x_out) */
	g1_from_affine(&acc, &vk->ic[0]);
	for (unsigned i = 1; i < GROTH16_NPUB; i++) {
		g1_from_affine(&t, &vk->ic[i]);
		g1_mul(&t, &t, &x[i - 1]);
		g1_add(&acc, &acc, &t);
	}
	/* e(A, B) e(-alpha, beta) e(-acc, gamma) e(-C, delta) = 1 */
	ps[0] = pr->a;
	g1_affine_neg(&ps[1], &vk->alpha_g1);
	g1_neg(&acc, &acc);
	g1_to_affine(&ps[2], &acc);
	g1_affine_neg(&ps[3], &pr->c);
	qs[0] = pr->b;
	qs[1] = vk->beta_g2;
	qs[2] = vk->gamma_g2;
	qs[3] = vk->delta_g2;
	return pairing_check(ps, qs, 4);
}
