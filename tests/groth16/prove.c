/*
 * Groth16 end to end in the library: a seed-derived setup, proofs of
 * several partitions of the k circuit, and the verifier's answer.
 *
 * - Every honest proof verifies, with random r and s and with r = s = 0.
 * - The same r, s give the same proof; other r, s another proof that
 *   verifies too (the proof is randomized, not a function of the witness).
 * - Refused: a proof checked against another partition's public inputs,
 *   a wrong x_0 or x_out, a proof with A, B or C moved, a proof under the
 *   params of another seed, and a proof made from a witness with one
 *   variable changed (the H-term of the honest rows, so the QAP breaks).
 * - The setup is deterministic: the same seed gives the same verifying key.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "gpuworker/hterm.h"
#include "groth16/groth16.h"
#include "synth/synth.h"
#include "tests/helpers.h"

struct inst {
	struct synth_id id;
	fr_t *z, *h, x[2];
};

static void inst_make(struct inst *in, unsigned k, uint32_t part)
{
	size_t n = (size_t)1 << k;
	fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);

	memset(in, 0, sizeof *in);
	CHECK(synth_parse_seed(&in->id, "c0ffee") == 0, "seed");
	in->id.partition = part;
	in->id.k = k;
	in->z = malloc(synth_nvars(k) * sizeof *in->z);
	CHECK(a && b && c && in->z, "memory");
	CHECK(synth_partition(&in->id, a, b, c) == 0, "synth");
	CHECK(synth_witness(&in->id, in->z) == 0, "witness");
	CHECK(synth_public_inputs(&in->id, in->x) == 0, "inputs");
	CHECK(hterm_cpu(a, b, c, k) == 0, "hterm");
	CHECK(hterm_check_top(a, k), "H top");
	in->h = a;
	free(b);
	free(c);
}

static void rand_fr(fr_t *x)
{
	uint8_t w[64];

	randombytes_buf(w, sizeof w);
	fr_from_bytes_wide(x, w);
}

static int proof_equal(const struct groth16_proof *p, const struct groth16_proof *q)
{
	return g1_affine_equal(&p->a, &q->a) && g2_affine_equal(&p->b, &q->b) && g1_affine_equal(&p->c, &q->c);
}

static void prove(struct groth16_proof *pr, const struct groth16_params *p, const struct inst *in,
		  const fr_t *r, const fr_t *s)
{
	CHECK(groth16_prove(pr, p, in->z, in->h, r, s, 2, NULL) == 0, "prove");
}

static void run_k(unsigned k)
{
	static const uint8_t seed[] = { 1, 2, 3 }, seed2[] = { 9 };
	struct groth16_params p, p2, p3;
	struct groth16_proof pr, pr2, bad;
	struct inst in[3];
	char err[256];
	fr_t r, s, x[2];
	g1_t t;

	CHECK(groth16_setup(&p, seed, sizeof seed, k, 2, err, sizeof err) == 0, "setup: %s", err);
	CHECK(groth16_setup(&p3, seed, sizeof seed, k, 1, err, sizeof err) == 0, "setup: %s", err);
	CHECK(!memcmp(p.vk_digest, p3.vk_digest, sizeof p.vk_digest), "setup is not deterministic");
	CHECK(g1_affine_equal(&p.h[p.nh - 1], &p3.h[p.nh - 1]) && g2_affine_equal(&p.b_g2[4], &p3.b_g2[4]),
	      "setup's queries depend on the thread count");
	groth16_params_free(&p3);
	CHECK(groth16_setup(&p2, seed2, sizeof seed2, k, 2, err, sizeof err) == 0, "setup: %s", err);
	CHECK(memcmp(p.vk_digest, p2.vk_digest, sizeof p.vk_digest), "two seeds, one key");

	for (int i = 0; i < 3; i++)
		inst_make(&in[i], k, (uint32_t)i * 7);
	for (int i = 0; i < 3; i++) {
		rand_fr(&r);
		rand_fr(&s);
		prove(&pr, &p, &in[i], &r, &s);
		CHECK(groth16_verify(&p.vk, in[i].x, &pr), "k=%u partition %d: honest proof refused", k, i);
		/* another partition's inputs */
		CHECK(!groth16_verify(&p.vk, in[(i + 1) % 3].x, &pr), "k=%u: proof holds for another partition", k);
		/* the same r, s: the same proof; others: another valid one */
		prove(&pr2, &p, &in[i], &r, &s);
		CHECK(proof_equal(&pr, &pr2), "same r, s gave another proof");
		rand_fr(&r);
		prove(&pr2, &p, &in[i], &r, &s);
		CHECK(!proof_equal(&pr, &pr2), "other r gave the same proof");
		CHECK(groth16_verify(&p.vk, in[i].x, &pr2), "second proof refused");
		/* other params */
		CHECK(!groth16_verify(&p2.vk, in[i].x, &pr), "proof holds under another setup");
	}

	/* wrong public inputs */
	rand_fr(&r);
	rand_fr(&s);
	prove(&pr, &p, &in[0], &r, &s);
	for (int j = 0; j < 2; j++) {
		memcpy(x, in[0].x, sizeof x);
		fr_add(&x[j], &x[j], &FR_ONE);
		CHECK(!groth16_verify(&p.vk, x, &pr), "wrong x[%d] accepted", j);
	}
	/* moved points */
	bad = pr;
	g1_from_affine(&t, &bad.a);
	g1_add_affine(&t, &t, &G1_GENERATOR);
	g1_to_affine(&bad.a, &t);
	CHECK(!groth16_verify(&p.vk, in[0].x, &bad), "moved A accepted");
	bad = pr;
	g1_from_affine(&t, &bad.c);
	g1_double(&t, &t);
	g1_to_affine(&bad.c, &t);
	CHECK(!groth16_verify(&p.vk, in[0].x, &bad), "moved C accepted");
	bad = pr;
	bad.b = G2_GENERATOR;
	CHECK(!groth16_verify(&p.vk, in[0].x, &bad), "replaced B accepted");
	/* r = s = 0 still verifies */
	prove(&pr, &p, &in[1], &FR_ZERO, &FR_ZERO);
	CHECK(groth16_verify(&p.vk, in[1].x, &pr), "r = s = 0 refused");
	/* a cheating witness: one private variable changed */
	fr_add(&in[2].z[3], &in[2].z[3], &FR_ONE);	/* t2 of round 0 */
	prove(&pr, &p, &in[2], &r, &s);
	CHECK(!groth16_verify(&p.vk, in[2].x, &pr), "k=%u: proof of a wrong witness accepted", k);

	for (int i = 0; i < 3; i++) {
		free(in[i].z);
		free(in[i].h);
	}
	groth16_params_free(&p);
	groth16_params_free(&p2);
	printf("info: k=%u: setup, 12 proofs and 17 verifications as expected\n", k);
}

int main(void)
{
	CHECK(sodium_init() >= 0, "sodium");
	run_k(3);
	run_k(5);
	run_k(8);
	return 0;
}
