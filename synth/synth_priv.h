/*
 * synth_priv: what circuit.c (the rows) and r1cs.c (the R1CS and the
 * witness) share: the two keys of docs/circuit.md and one round of the
 * chain. Not part of the module's interface (that is synth.h).
 */
#ifndef SYNTH_SYNTH_PRIV_H
#define SYNTH_SYNTH_PRIV_H

#include "synth/synth.h"

/* BLAKE2b-512 keyed with the circuit key of k (k not checked). */
void synth_circuit_keyed(crypto_generichash_state *keyed, unsigned k);
/* c_i from that keyed state. */
void synth_const(const crypto_generichash_state *keyed, uint64_t i, fr_t *ci);
/* x_0 of id (id not checked). */
void synth_x0(const struct synth_id *id, fr_t *x0);
/* One round from x with constant ci: t = x + ci, t2 = t^2, t4 = t2^2,
 * *xn = t4 * t (xn may alias x). */
static inline void synth_round_vals(const fr_t *x, const fr_t *ci, fr_t *t, fr_t *t2, fr_t *t4,
				    fr_t *xn)
{
	fr_add(t, x, ci);
	fr_sqr(t2, t);
	fr_sqr(t4, t2);
	fr_mul(xn, t4, t);
}

#endif
