/*
 * r1cs: the circuit as a constraint system, for Groth16 setup and prove
 * (docs/circuit.md, circuit v2): the linear combinations of every row and
 * a partition's full assignment.
 *
 * Variables, inputs first (bellperson's order): 0 = one, 1 = x_0,
 * 2 = x_out, then t2_i = 3 + 3i, t4_i = 4 + 3i, x_{i+1} = 5 + 3i, the last
 * round's x_R being variable 2 instead. So round i reads x_i from variable
 * 1 (i = 0) or 3i + 2, and nvars = 3R + 2.
 *
 * The foreach takes k only: the constants come from the circuit key, and
 * nothing here can see a partition's identity, so every partition of k
 * is the same R1CS by construction.
 */
#include <errno.h>
#include <string.h>

#include "synth/synth_priv.h"

#define SYNTH_VAR_ONE 0
#define SYNTH_VAR_X0 1
#define SYNTH_VAR_XOUT 2

static int synth_k_ok(unsigned k)
{
	return k >= SYNTH_LOG_MIN && k <= VOCAB_LOG_MAX;
}

size_t synth_rounds(unsigned k)
{
	return synth_k_ok(k) ? (((size_t)1 << k) - 3) / 3 : 0;
}

size_t synth_nvars(unsigned k)
{
	return synth_k_ok(k) ? 3 * synth_rounds(k) + 2 : 0;
}

/* The variable holding x_i, i = 0..R. */
static uint32_t synth_var_x(size_t i, size_t rounds)
{
	if (i == 0)
		return SYNTH_VAR_X0;
	if (i == rounds)
		return SYNTH_VAR_XOUT;
	return (uint32_t)(3 * i + 2);
}

static struct synth_lc synth_lc1(uint32_t var)
{
	struct synth_lc lc = { .n = 1 };

	lc.t[0].var = var;
	lc.t[0].coeff = FR_ONE;
	return lc;
}

int synth_r1cs_foreach(unsigned k,
		       int (*fn)(void *arg, size_t row, const struct synth_lc *a,
				 const struct synth_lc *b, const struct synth_lc *c),
		       void *arg)
{
	const struct synth_lc none = { .n = 0 };
	crypto_generichash_state keyed;
	size_t rounds = synth_rounds(k), n, row = 0;
	int rc;

	if (!synth_k_ok(k))
		return -EINVAL;
	n = (size_t)1 << k;
	synth_circuit_keyed(&keyed, k);
	for (size_t i = 0; i < rounds; i++) {
		struct synth_lc t = synth_lc1(synth_var_x(i, rounds));
		struct synth_lc t2 = synth_lc1((uint32_t)(3 + 3 * i));
		struct synth_lc t4 = synth_lc1((uint32_t)(4 + 3 * i));
		struct synth_lc xn = synth_lc1(synth_var_x(i + 1, rounds));

		t.n = 2;	/* x_i + c_i * one */
		t.t[1].var = SYNTH_VAR_ONE;
		synth_const(&keyed, i, &t.t[1].coeff);
		if ((rc = fn(arg, row++, &t, &t, &t2)) || (rc = fn(arg, row++, &t2, &t2, &t4)) ||
		    (rc = fn(arg, row++, &t4, &t, &xn)))
			return rc;
	}
	for (uint32_t v = SYNTH_VAR_ONE; v <= SYNTH_VAR_XOUT; v++) {
		struct synth_lc in = synth_lc1(v);
		if ((rc = fn(arg, row++, &in, &none, &none)))
			return rc;
	}
	while (row < n)
		if ((rc = fn(arg, row++, &none, &none, &none)))
			return rc;
	return 0;
}

/* Run id's chain, storing the witness in z when z is not NULL; x gets the
 * public inputs. */
static int synth_chain(const struct synth_id *id, fr_t *z, fr_t x[2])
{
	crypto_generichash_state keyed;
	size_t rounds;
	fr_t ci, t, t2, t4, cur;

	if (synth_id_check(id))
		return -EINVAL;
	rounds = synth_rounds(id->k);
	synth_circuit_keyed(&keyed, id->k);
	synth_x0(id, &x[0]);
	cur = x[0];
	for (size_t i = 0; i < rounds; i++) {
		synth_const(&keyed, i, &ci);
		synth_round_vals(&cur, &ci, &t, &t2, &t4, &cur);
		if (z) {
			z[3 + 3 * i] = t2;
			z[4 + 3 * i] = t4;
			z[synth_var_x(i + 1, rounds)] = cur;
		}
	}
	x[1] = cur;
	if (z) {
		z[SYNTH_VAR_ONE] = FR_ONE;
		z[SYNTH_VAR_X0] = x[0];
	}
	return 0;
}

int synth_witness(const struct synth_id *id, fr_t *z)
{
	fr_t x[2];

	return synth_chain(id, z, x);
}

int synth_public_inputs(const struct synth_id *id, fr_t x[2])
{
	return synth_chain(id, NULL, x);
}

void synth_public_inputs_from_rows(unsigned k, const fr_t *a, fr_t x[2])
{
	size_t rounds = synth_rounds(k);

	x[0] = a[3 * rounds + 1];
	x[1] = a[3 * rounds + 2];
}

void synth_witness_from_rows(unsigned k, const fr_t *a, const fr_t *c, fr_t *z)
{
	size_t rounds = synth_rounds(k);

	z[SYNTH_VAR_ONE] = FR_ONE;
	synth_public_inputs_from_rows(k, a, z + SYNTH_VAR_X0);
	for (size_t i = 0; i < rounds; i++) {
		z[3 + 3 * i] = c[3 * i];
		z[4 + 3 * i] = c[3 * i + 1];
		z[synth_var_x(i + 1, rounds)] = c[3 * i + 2];
	}
}
