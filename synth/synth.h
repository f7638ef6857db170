/*
 * synth: the synthesis circuit (v2). One circuit per k: R = (2^k - 3) / 3
 * MiMC-style rounds x -> (x + c_i)^5 over Fr written as R1CS rows, then
 * the public-input rows, n = 2^k rows in all. The round constants c_i
 * depend on k alone, so every partition of one k is the same R1CS (one
 * Groth16 setup); a partition's identity (seed bytes, partition index, k)
 * enters only through the public input x_0, the chain's start, and
 * x_out, its end.
 *
 * This module produces the rows' evaluations a[j], b[j], c[j]
 * (a[j]*b[j] = c[j]) at a partition's witness, the R1CS itself
 * (synth_r1cs_foreach) and the witness (synth_witness). Constants and
 * x_0 come out of keyed BLAKE2b, hashed to the field with
 * fr_from_bytes_wide. Anyone holding the identity re-synthesizes the same
 * rows bit for bit, which is what lets verify check an H without trusting
 * the file it came from. docs/circuit.md describes the circuit and the
 * derivation byte for byte.
 *
 * Rows come out of a stream (synth_stream_*) so that a consumer that only
 * needs a linear pass (verify) never holds all 3n elements at once.
 */
#ifndef SYNTH_SYNTH_H
#define SYNTH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "field/fr.h"
#include "util/vocab.h"

#define SYNTH_SEED_MAX 32	/* seed length in bytes, 1..SYNTH_SEED_MAX */
#define SYNTH_LOG_MIN VOCAB_LOG_MIN	/* 3: n = 8 rows hold one round and the inputs */
#define SYNTH_ROWS_PER_ROUND 3
#define SYNTH_NPUB 3		/* variables one, x_0, x_out: the public inputs */

/* What determines a partition. seed bytes past seed_len are ignored by
 * synthesis, but files keep them zero. */
struct synth_id {
	uint8_t seed[SYNTH_SEED_MAX];
	uint32_t seed_len;
	uint32_t partition;
	uint32_t k;
};

/* Row generator: the rounds of one partition, three rows per round, then
 * the three input rows, then empty rows (a "round" of three rows each). */
struct synth_stream {
	crypto_generichash_state keyed;	/* BLAKE2b keyed with the circuit key */
	fr_t x0;			/* the chain's start (public input) */
	fr_t x;				/* chain state entering the buffered round */
	uint64_t round;			/* index of the next round to compute */
	uint64_t rounds;		/* R */
	unsigned pos;			/* next row of the buffered round; 3 = empty */
	fr_t ra[SYNTH_ROWS_PER_ROUND], rb[SYNTH_ROWS_PER_ROUND], rc[SYNTH_ROWS_PER_ROUND];
};

/* 0 when id is one we can synthesize (seed_len 1..32, k 3..27), else
 * -EINVAL. */
int synth_id_check(const struct synth_id *id);

/* Start the row stream of id. Returns 0 or -EINVAL (bad id). */
int synth_stream_init(struct synth_stream *s, const struct synth_id *id);
/* The next count rows into a, b, c (any count; rounds split across calls
 * as needed). */
void synth_stream_rows(struct synth_stream *s, fr_t *a, fr_t *b, fr_t *c, size_t count);

/* Fill a, b, c (2^k elements each, Montgomery form) with the partition's
 * rows. Returns 0 or -EINVAL. Built with -DSYNTH_DEBUG it also checks
 * every row and aborts on a violated one (a synthesis bug). */
int synth_partition(const struct synth_id *id, fr_t *a, fr_t *b, fr_t *c);

/* Check a[i]*b[i] == c[i] for i < n. Returns 0, or -EDOM with the first
 * bad row in *bad_row (when bad_row is not NULL). */
int synth_check(const fr_t *a, const fr_t *b, const fr_t *c, size_t n, size_t *bad_row);

/*
 * The R1CS, for Groth16 setup and prove. Variables in bellperson's order,
 * inputs first: 0 = one, 1 = x_0, 2 = x_out (public), then for round i
 * t2_i = 3 + 3i, t4_i = 4 + 3i, x_{i+1} = 5 + 3i, except that the last
 * round's output x_R is variable 2. Rows 3i..3i+2 are round i; rows 3R,
 * 3R+1, 3R+2 are the input constraints one * 0 = 0, x_0 * 0 = 0,
 * x_out * 0 = 0 (they make the inputs' polynomials linearly
 * independent); the remaining 1 or 2 rows are empty.
 */
/* R = (2^k - 3) / 3 rounds, or 0 for a k outside 3..27. */
size_t synth_rounds(unsigned k);
/* Variables: 3R + 2 (one and the two public inputs included), or 0. */
size_t synth_nvars(unsigned k);

struct synth_term {
	uint32_t var;
	fr_t coeff;	/* Montgomery form, like every fr_t */
};
/* A linear combination of at most two terms (x_i + c_i * one is the
 * longest). Terms of a round's x + c_i: the variable (coefficient 1) first,
 * then one with c_i. */
struct synth_lc {
	unsigned n;
	struct synth_term t[2];
};

/* The R1CS of the k circuit: calls fn for every row j < 2^k in order with
 * its A, B, C (empty rows have n = 0 everywhere; the lcs live only for the
 * call). It takes no identity: every partition of k has this R1CS.
 * Returns 0, -EINVAL for a bad k, or fn's first nonzero return. O(n)
 * hashing (one constant per round). */
int synth_r1cs_foreach(unsigned k,
		       int (*fn)(void *arg, size_t row, const struct synth_lc *a,
				 const struct synth_lc *b, const struct synth_lc *c),
		       void *arg);
/* The full assignment z[0 .. synth_nvars(k)) of id (z[0] = one). 0 or
 * -EINVAL (bad id). */
int synth_witness(const struct synth_id *id, fr_t *z);
/* The public inputs x[0] = x_0, x[1] = x_out (O(n) hashing: the chain is
 * run). 0 or -EINVAL. */
int synth_public_inputs(const struct synth_id *id, fr_t x[2]);
/* The same from a partition's rows already in memory (2^k each, k in
 * 3..27, not checked): x_0 = a[3R+1], x_out = a[3R+2]. */
void synth_public_inputs_from_rows(unsigned k, const fr_t *a, fr_t x[2]);
/* The witness from the rows: t2_i = c[3i], t4_i = c[3i+1],
 * x_{i+1} = c[3i+2], and the inputs as above; z has synth_nvars(k)
 * elements. */
void synth_witness_from_rows(unsigned k, const fr_t *a, const fr_t *c, fr_t *z);

/* Parse a hex seed (1..32 bytes, an even number of digits, optional 0x)
 * into id->seed/seed_len, zeroing the rest. Returns 0 or -EINVAL. */
int synth_parse_seed(struct synth_id *id, const char *hex);
/* Format id's seed as lowercase hex into out (at least 2*32+1 bytes). */
void synth_seed_hex(const struct synth_id *id, char *out, size_t outlen);

#endif
