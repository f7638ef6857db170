/*
 * synth: the synthesis circuit. One partition of a job is a hash chain of
 * MiMC-style rounds x -> (x + c_i)^5 over Fr, written as R1CS rows; this
 * module produces the rows' evaluations a[i], b[i], c[i] (a[i]*b[i] = c[i])
 * for exactly n = 2^k rows.
 *
 * Everything is a pure function of the partition's identity (seed bytes,
 * partition index, k): the initial state and the round constants come out
 * of keyed BLAKE2b, hashed to the field with fr_from_bytes_wide. Anyone
 * holding the identity re-synthesizes the same rows bit for bit, which is
 * what lets verify check an H without trusting the file it came from.
 * docs/circuit.md describes the circuit and the derivation byte for byte.
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
#define SYNTH_LOG_MIN 1
#define SYNTH_ROWS_PER_ROUND 3

/* What determines a partition. seed bytes past seed_len are ignored by
 * synthesis, but files keep them zero. */
struct synth_id {
	uint8_t seed[SYNTH_SEED_MAX];
	uint32_t seed_len;
	uint32_t partition;
	uint32_t k;
};

/* Row generator: the rounds of one partition, three rows per round. */
struct synth_stream {
	crypto_generichash_state keyed;	/* BLAKE2b keyed with the partition key */
	fr_t x;				/* chain state entering the buffered round */
	uint64_t round;			/* index of the next round to compute */
	unsigned pos;			/* next row of the buffered round; 3 = empty */
	fr_t ra[SYNTH_ROWS_PER_ROUND], rb[SYNTH_ROWS_PER_ROUND], rc[SYNTH_ROWS_PER_ROUND];
};

/* 0 when id is one we can synthesize (seed_len 1..32, k 1..26), else
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

/* Parse a hex seed (1..32 bytes, an even number of digits, optional 0x)
 * into id->seed/seed_len, zeroing the rest. Returns 0 or -EINVAL. */
int synth_parse_seed(struct synth_id *id, const char *hex);
/* Format id's seed as lowercase hex into out (at least 2*32+1 bytes). */
void synth_seed_hex(const struct synth_id *id, char *out, size_t outlen);

#endif
