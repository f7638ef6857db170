/*
 * circuit: the rows of a partition (docs/circuit.md, circuit v2).
 *
 * Round i takes the chain state x to x' = (x + c_i)^5 in three R1CS rows
 * over the witness (one, x, t2, t4, x'), writing t for the linear
 * combination x + c_i*one:
 *   row 3i+0   (x + c_i) * (x + c_i) = t2
 *   row 3i+1   t2 * t2               = t4
 *   row 3i+2   t4 * (x + c_i)        = x'      x' is the next round's x
 * R = (2^k - 3) / 3 full rounds, then the input rows (a, b, c) = (1, 0, 0),
 * (x_0, 0, 0), (x_R, 0, 0), then 1 or 2 empty rows up to 2^k. a, b, c of a
 * row are the values of its three linear combinations at the witness,
 * which is what Groth16's H-term consumes; r1cs.c has the combinations
 * themselves.
 *
 * Two keys: the circuit key depends on k alone and keys the round
 * constants, so all partitions of one k share the R1CS; the identity key
 * keys x_0 only. The circuit-keyed state is computed once and copied per
 * round.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_priv.h"

#define SYNTH_CIRCUIT_TAG "provisor/synth/circuit/v2"
#define SYNTH_ID_TAG "provisor/synth/id/v2"

/* sodium_init picks the fastest BLAKE2b; it is idempotent and thread-safe.
 * Its failure (it does not fail on Linux) would leave the portable code,
 * which computes the same digests, so the result is not needed. */
static void synth_sodium_init(void)
{
	int rc = sodium_init();

	(void)rc;
}

static void synth_le32(uint8_t out[4], uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

int synth_id_check(const struct synth_id *id)
{
	if (id->seed_len < 1 || id->seed_len > SYNTH_SEED_MAX)
		return -EINVAL;
	if (id->k < SYNTH_LOG_MIN || id->k > VOCAB_LOG_MAX)
		return -EINVAL;
	return 0;
}

/* Hash the keyed state plus a short message into the field. */
static void synth_h2f(const crypto_generichash_state *keyed, const uint8_t *msg,
		      size_t len, fr_t *out)
{
	crypto_generichash_state st = *keyed;
	uint8_t wide[64];

	crypto_generichash_update(&st, msg, len);
	crypto_generichash_final(&st, wide, sizeof wide);
	fr_from_bytes_wide(out, wide);
}

/* keyed = BLAKE2b-512 keyed with the key BLAKE2b-256 of st's input so far
 * (st is consumed). */
static void synth_keyed_from(crypto_generichash_state *keyed, crypto_generichash_state *st)
{
	uint8_t key[crypto_generichash_BYTES];	/* 32 */

	crypto_generichash_final(st, key, sizeof key);
	crypto_generichash_init(keyed, key, sizeof key, 64);
	sodium_memzero(key, sizeof key);
}

void synth_circuit_keyed(crypto_generichash_state *keyed, unsigned k)
{
	crypto_generichash_state st;
	uint8_t w[4];

	synth_sodium_init();
	crypto_generichash_init(&st, NULL, 0, crypto_generichash_BYTES);
	crypto_generichash_update(&st, (const uint8_t *)SYNTH_CIRCUIT_TAG,
				  sizeof SYNTH_CIRCUIT_TAG - 1);
	synth_le32(w, k);
	crypto_generichash_update(&st, w, 4);
	synth_keyed_from(keyed, &st);
}

void synth_const(const crypto_generichash_state *keyed, uint64_t i, fr_t *ci)
{
	uint8_t msg[9] = { 'c' };

	for (int j = 0; j < 8; j++)
		msg[1 + j] = (uint8_t)(i >> (8 * j));
	synth_h2f(keyed, msg, sizeof msg, ci);
}

void synth_x0(const struct synth_id *id, fr_t *x0)
{
	crypto_generichash_state st, keyed;
	uint8_t w[4];

	synth_sodium_init();
	crypto_generichash_init(&st, NULL, 0, crypto_generichash_BYTES);
	crypto_generichash_update(&st, (const uint8_t *)SYNTH_ID_TAG, sizeof SYNTH_ID_TAG - 1);
	synth_le32(w, id->seed_len);
	crypto_generichash_update(&st, w, 4);
	crypto_generichash_update(&st, id->seed, id->seed_len);
	synth_le32(w, id->partition);
	crypto_generichash_update(&st, w, 4);
	synth_le32(w, id->k);
	crypto_generichash_update(&st, w, 4);
	synth_keyed_from(&keyed, &st);
	synth_h2f(&keyed, (const uint8_t *)"x", 1, x0);
	sodium_memzero(&keyed, sizeof keyed);
}

/* Fill the row buffer with the next three rows: round s->round while
 * rounds remain, then the input rows, then empty rows. */
static void synth_round(struct synth_stream *s)
{
	if (s->round < s->rounds) {
		fr_t ci, t, t2, t4;

		synth_const(&s->keyed, s->round, &ci);
		synth_round_vals(&s->x, &ci, &t, &t2, &t4, &s->x);
		s->ra[0] = t;	s->rb[0] = t;	s->rc[0] = t2;
		s->ra[1] = t2;	s->rb[1] = t2;	s->rc[1] = t4;
		s->ra[2] = t4;	s->rb[2] = t;	s->rc[2] = s->x;
	} else {
		for (int i = 0; i < SYNTH_ROWS_PER_ROUND; i++)
			s->ra[i] = s->rb[i] = s->rc[i] = FR_ZERO;
		if (s->round == s->rounds) {	/* one, x_0, x_out */
			s->ra[0] = FR_ONE;
			s->ra[1] = s->x0;
			s->ra[2] = s->x;
		}
	}
	s->round++;
	s->pos = 0;
}

int synth_stream_init(struct synth_stream *s, const struct synth_id *id)
{
	if (synth_id_check(id))
		return -EINVAL;
	memset(s, 0, sizeof *s);
	synth_circuit_keyed(&s->keyed, id->k);
	synth_x0(id, &s->x0);
	s->x = s->x0;
	s->round = 0;
	s->rounds = synth_rounds(id->k);
	s->pos = SYNTH_ROWS_PER_ROUND;
	return 0;
}

void synth_stream_rows(struct synth_stream *s, fr_t *a, fr_t *b, fr_t *c, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (s->pos == SYNTH_ROWS_PER_ROUND)
			synth_round(s);
		a[i] = s->ra[s->pos];
		b[i] = s->rb[s->pos];
		c[i] = s->rc[s->pos];
		s->pos++;
	}
}

int synth_partition(const struct synth_id *id, fr_t *a, fr_t *b, fr_t *c)
{
	struct synth_stream s;
	int rc = synth_stream_init(&s, id);

	if (rc)
		return rc;
	synth_stream_rows(&s, a, b, c, (size_t)1 << id->k);
#ifdef SYNTH_DEBUG
	if (synth_check(a, b, c, (size_t)1 << id->k, NULL))
		abort();
#endif
	return 0;
}

int synth_check(const fr_t *a, const fr_t *b, const fr_t *c, size_t n, size_t *bad_row)
{
	fr_t p;

	for (size_t i = 0; i < n; i++) {
		fr_mul(&p, &a[i], &b[i]);
		if (!fr_equal(&p, &c[i])) {
			if (bad_row)
				*bad_row = i;
			return -EDOM;
		}
	}
	return 0;
}

int synth_parse_seed(struct synth_id *id, const char *hex)
{
	uint8_t seed[SYNTH_SEED_MAX];
	size_t len, n;

	if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2;
	len = strlen(hex);
	if (len == 0 || len % 2 || len / 2 > SYNTH_SEED_MAX)
		return -EINVAL;
	/* into a copy: id is untouched unless all of hex is good */
	if (sodium_hex2bin(seed, sizeof seed, hex, len, NULL, &n, NULL) || n != len / 2)
		return -EINVAL;
	memset(id->seed, 0, sizeof id->seed);
	memcpy(id->seed, seed, n);
	id->seed_len = (uint32_t)n;
	return 0;
}

void synth_seed_hex(const struct synth_id *id, char *out, size_t outlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t j = 0;

	for (uint32_t i = 0; i < id->seed_len && i < SYNTH_SEED_MAX && j + 2 < outlen; i++) {
		out[j++] = digits[id->seed[i] >> 4];
		out[j++] = digits[id->seed[i] & 15];
	}
	if (outlen)
		out[j] = '\0';
}
