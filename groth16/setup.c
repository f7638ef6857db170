/*
 * setup: the seed-derived ("insecure") Groth16 setup of the k circuit.
 *
 * The toxic waste is hashed from the seed:
 *   key = BLAKE2b-256("provisor/groth16/setup/v1" || LE32(seed_len) || seed || LE32(k))
 *   t = H2F(BLAKE2b-512 keyed with key (NAME)) for NAME in tau, alpha, beta, gamma, delta
 * Anyone who knows the seed knows tau and can forge proofs: this setup is
 * for tests and demos, and the file says so in its flags.
 *
 * The QAP is evaluated at tau through the Lagrange basis of the domain
 * {w^j} of size n = 2^k:  L_j(tau) = (tau^n - 1) / n * w^j / (tau - w^j),
 * so a variable's A_v(tau) = sum over rows j of A[j][v] L_j(tau), one pass
 * over synth_r1cs_foreach. Every query is then a fixed-base batch on its
 * generator (curve/curve.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "groth16/groth16_priv.h"
#include "util/util.h"

struct qap {
	fr_t *lag;		/* L_j(tau), j < n */
	fr_t *at, *bt, *ct;	/* A_v(tau), B_v(tau), C_v(tau), v < nvars */
};

static void lc_acc(fr_t *acc, const struct synth_lc *lc, const fr_t *l)
{
	for (unsigned i = 0; i < lc->n; i++) {
		fr_t t;
		fr_mul(&t, &lc->t[i].coeff, l);
		fr_add(&acc[lc->t[i].var], &acc[lc->t[i].var], &t);
	}
}

static int qap_row(void *arg, size_t row, const struct synth_lc *a, const struct synth_lc *b,
		   const struct synth_lc *c)
{
	struct qap *q = arg;

	lc_acc(q->at, a, &q->lag[row]);
	lc_acc(q->bt, b, &q->lag[row]);
	lc_acc(q->ct, c, &q->lag[row]);
	return 0;
}

/* w_k: the generator of the domain of size 2^k (field/ntt.h's). */
static void domain_root(fr_t *w, unsigned k)
{
	*w = FR_ROOT_OF_UNITY;
	for (unsigned i = k; i < FR_TWO_ADICITY; i++)
		fr_sqr(w, w);
}

/* q->lag from tau; -1 when tau^n = 1 (tau in the domain: a new seed). */
static int lagrange(fr_t *lag, const fr_t *tau, unsigned k, fr_t *zt)
{
	size_t n = (size_t)1 << k;
	fr_t w, wj = FR_ONE, ninv, scale;

	*zt = *tau;
	for (unsigned i = 0; i < k; i++)
		fr_sqr(zt, zt);
	fr_sub(zt, zt, &FR_ONE);
	if (fr_is_zero(zt))
		return -1;
	domain_root(&w, k);
	for (size_t j = 0; j < n; j++) {
		fr_sub(&lag[j], tau, &wj);
		fr_mul(&wj, &wj, &w);
	}
	fr_batch_inv(lag, lag, n);
	fr_from_u64(&ninv, n);
	fr_inv(&ninv, &ninv);
	fr_mul(&scale, zt, &ninv);
	wj = FR_ONE;
	for (size_t j = 0; j < n; j++) {
		fr_t t;
		fr_mul(&t, &scale, &wj);
		fr_mul(&lag[j], &lag[j], &t);
		fr_mul(&wj, &wj, &w);
	}
	return 0;
}

/* (beta A + alpha B + C) * inv */
static void combine(fr_t *out, const struct qap *q, size_t v, const fr_t *alpha, const fr_t *beta,
		    const fr_t *inv)
{
	fr_t t, u;

	fr_mul(&t, beta, &q->at[v]);
	fr_mul(&u, alpha, &q->bt[v]);
	fr_add(&t, &t, &u);
	fr_add(&t, &t, &q->ct[v]);
	fr_mul(out, &t, inv);
}

static void g1_affine_mul(g1_affine_t *out, const g1_affine_t *base, const fr_t *s)
{
	g1_t t;

	g1_from_affine(&t, base);
	g1_mul(&t, &t, s);
	g1_to_affine(out, &t);
}

static void g2_affine_mul(g2_affine_t *out, const g2_affine_t *base, const fr_t *s)
{
	g2_t t;

	g2_from_affine(&t, base);
	g2_mul(&t, &t, s);
	g2_to_affine(out, &t);
}

int groth16_setup(struct groth16_params *p, const uint8_t *seed, size_t seed_len, unsigned k,
		  unsigned threads, char *err, size_t errlen)
{
	static const char tag[] = "provisor/groth16/setup/v1";
	uint8_t key[32], le[4];
	crypto_generichash_state st;
	fr_t tau, alpha, beta, gamma, delta, ginv, dinv, zt, *s1 = NULL;
	struct qap q = { 0 };
	size_t n, m, nl, ns;
	int rc = -1;

	memset(p, 0, sizeof *p);
	if (k < SYNTH_LOG_MIN || k > VOCAB_LOG_MAX)
		return util_fail(err, errlen, -EINVAL, "log size %u is outside %u..%u", k, SYNTH_LOG_MIN,
				 VOCAB_LOG_MAX);
	crypto_generichash_init(&st, NULL, 0, sizeof key);
	crypto_generichash_update(&st, (const uint8_t *)tag, sizeof tag - 1);
	util_le32_put(le, (uint32_t)seed_len);
	crypto_generichash_update(&st, le, 4);
	crypto_generichash_update(&st, seed, seed_len);
	util_le32_put(le, k);
	crypto_generichash_update(&st, le, 4);
	crypto_generichash_final(&st, key, sizeof key);
	groth16_h2f(&tau, key, "tau");
	groth16_h2f(&alpha, key, "alpha");
	groth16_h2f(&beta, key, "beta");
	groth16_h2f(&gamma, key, "gamma");
	groth16_h2f(&delta, key, "delta");
	sodium_memzero(key, sizeof key);
	if (fr_inv(&ginv, &gamma) || fr_inv(&dinv, &delta) || fr_is_zero(&tau) || fr_is_zero(&alpha) ||
	    fr_is_zero(&beta))
		return util_fail(err, errlen, -EINVAL, "this seed gives a zero secret; choose another");

	n = (size_t)1 << k;
	m = synth_nvars(k);
	nl = m - GROTH16_NPUB;
	p->k = k;
	p->nvars = (uint32_t)m;
	p->npub = GROTH16_NPUB;
	p->flags = GROTH16_FLAG_SEEDED;
	p->nh = n - 1;
	groth16_circuit_digest(k, p->circuit);

	q.lag = malloc(n * sizeof *q.lag);
	q.at = calloc(m, sizeof *q.at);
	q.bt = calloc(m, sizeof *q.bt);
	q.ct = calloc(m, sizeof *q.ct);
	/* All G1 scalars in one array, in the order of the queries:
	 * h (n - 1), l (m - 3), a (m), b_g1 (m); then b_g2's (m) */
	ns = p->nh + nl + 2 * m;
	s1 = malloc((ns + m) * sizeof *s1);
	p->h = malloc(p->nh * sizeof *p->h);
	p->l = malloc(nl * sizeof *p->l);
	p->a = malloc(m * sizeof *p->a);
	p->b_g1 = malloc(m * sizeof *p->b_g1);
	p->b_g2 = malloc(m * sizeof *p->b_g2);
	if (!q.lag || !q.at || !q.bt || !q.ct || !s1 || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
		util_fail(err, errlen, -ENOMEM, "out of memory for the k=%u setup", k);
		goto out;
	}
	if (lagrange(q.lag, &tau, k, &zt)) {
		util_fail(err, errlen, -EINVAL, "this seed puts tau in the domain; choose another");
		goto out;
	}
	if (synth_r1cs_foreach(k, qap_row, &q)) {
		util_fail(err, errlen, -EINVAL, "the k=%u circuit could not be walked", k);
		goto out;
	}

	/* h: tau^i Z(tau) / delta */
	{
		fr_t c;
		fr_mul(&c, &zt, &dinv);
		for (size_t i = 0; i < p->nh; i++) {
			s1[i] = c;
			fr_mul(&c, &c, &tau);
		}
	}
	for (size_t v = 0; v < nl; v++)
		combine(&s1[p->nh + v], &q, GROTH16_NPUB + v, &alpha, &beta, &dinv);
	memcpy(&s1[p->nh + nl], q.at, m * sizeof *s1);
	memcpy(&s1[p->nh + nl + m], q.bt, m * sizeof *s1);
	memcpy(&s1[ns], q.bt, m * sizeof *s1);

	/* One table for every G1 query, written straight into place: the
	 * queries are consecutive in s1, so split the output. */
	{
		g1_affine_t *all = malloc(ns * sizeof *all);
		if (!all || g1_fixed_base_batch(all, &G1_GENERATOR, s1, ns, threads)) {
			free(all);
			util_fail(err, errlen, -ENOMEM, "out of memory for the k=%u setup", k);
			goto out;
		}
		memcpy(p->h, all, p->nh * sizeof *all);
		memcpy(p->l, all + p->nh, nl * sizeof *all);
		memcpy(p->a, all + p->nh + nl, m * sizeof *all);
		memcpy(p->b_g1, all + p->nh + nl + m, m * sizeof *all);
		free(all);
	}
	if (g2_fixed_base_batch(p->b_g2, &G2_GENERATOR, &s1[ns], m, threads)) {
		util_fail(err, errlen, -ENOMEM, "out of memory for the k=%u setup", k);
		goto out;
	}

	g1_affine_mul(&p->vk.alpha_g1, &G1_GENERATOR, &alpha);
	g1_affine_mul(&p->vk.beta_g1, &G1_GENERATOR, &beta);
	g1_affine_mul(&p->vk.delta_g1, &G1_GENERATOR, &delta);
	g2_affine_mul(&p->vk.beta_g2, &G2_GENERATOR, &beta);
	g2_affine_mul(&p->vk.gamma_g2, &G2_GENERATOR, &gamma);
	g2_affine_mul(&p->vk.delta_g2, &G2_GENERATOR, &delta);
	for (unsigned i = 0; i < GROTH16_NPUB; i++) {
		fr_t t;
		combine(&t, &q, i, &alpha, &beta, &ginv);
		g1_affine_mul(&p->vk.ic[i], &G1_GENERATOR, &t);
	}
	groth16_vk_digest(&p->vk, p->vk_digest);
	rc = 0;
out:
	sodium_memzero(&tau, sizeof tau);
	sodium_memzero(&alpha, sizeof alpha);
	sodium_memzero(&beta, sizeof beta);
	sodium_memzero(&gamma, sizeof gamma);
	sodium_memzero(&delta, sizeof delta);
	free(q.lag);
	free(q.at);
	free(q.bt);
	free(q.ct);
	free(s1);
	if (rc)
		groth16_params_free(p);
	return rc;
}
