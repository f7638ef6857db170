/*
 * circuit: the hash-chain circuit behind every partition (docs/circuit.md).
 *
 * Round i takes the chain state x to x' = (x + c_i)^5 in three R1CS rows
 * over the witness (one, x, t2, t4, x'), writing t for the linear
 * combination x + c_i*one:
 *   row 3i+0   (x + c_i) * (x + c_i) = t2
 *   row 3i+1   t2 * t2               = t4
 *   row 3i+2   t4 * (x + c_i)        = x'      x' is the next round's x
 * a, b, c of a row are the values of its three linear combinations at the
 * witness, which is what Groth16's H-term consumes. Every row is a real
 * product (no row with b = one), so no prefix of the rows makes A*B - C
 * vanish identically and H always depends on the identity. A partition is
 * the first 2^k rows of its chain; as 3 never divides 2^k, the last round
 * is cut after one or two rows, and each row still holds on its own.
 *
 * The partition key is BLAKE2b-256 over a domain tag and the identity; the
 * initial state and each round constant are BLAKE2b-512 under that key,
 * reduced into Fr. The keyed state is computed once and copied per round.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"

#define SYNTH_KEY_TAG "provisor/synth/key/v1"

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

/* Compute round s->round from s->x into the row buffer; advance x. */
static void synth_round(struct synth_stream *s)
{
	uint8_t msg[9] = { 'c' };
	fr_t ci, t, t2, t4, xn;	/* t: the value of x + c_i */

	for (int i = 0; i < 8; i++)
		msg[1 + i] = (uint8_t)(s->round >> (8 * i));
	synth_h2f(&s->keyed, msg, sizeof msg, &ci);

	fr_add(&t, &s->x, &ci);
	fr_sqr(&t2, &t);
	fr_sqr(&t4, &t2);
	fr_mul(&xn, &t4, &t);

	s->ra[0] = t;	s->rb[0] = t;	s->rc[0] = t2;
	s->ra[1] = t2;	s->rb[1] = t2;	s->rc[1] = t4;
	s->ra[2] = t4;	s->rb[2] = t;	s->rc[2] = xn;

	s->x = xn;
	s->round++;
	s->pos = 0;
}

int synth_stream_init(struct synth_stream *s, const struct synth_id *id)
{
	uint8_t key[crypto_generichash_BYTES];	/* 32 */
	uint8_t w[4];
	crypto_generichash_state st;

	if (synth_id_check(id))
		return -EINVAL;
	synth_sodium_init();

	crypto_generichash_init(&st, NULL, 0, sizeof key);
	crypto_generichash_update(&st, (const uint8_t *)SYNTH_KEY_TAG, sizeof SYNTH_KEY_TAG - 1);
	synth_le32(w, id->seed_len);
	crypto_generichash_update(&st, w, 4);
	crypto_generichash_update(&st, id->seed, id->seed_len);
	synth_le32(w, id->partition);
	crypto_generichash_update(&st, w, 4);
	synth_le32(w, id->k);
	crypto_generichash_update(&st, w, 4);
	crypto_generichash_final(&st, key, sizeof key);

	memset(s, 0, sizeof *s);
	crypto_generichash_init(&s->keyed, key, sizeof key, 64);
	synth_h2f(&s->keyed, (const uint8_t *)"x", 1, &s->x);
	s->round = 0;
	s->pos = SYNTH_ROWS_PER_ROUND;
	sodium_memzero(key, sizeof key);
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
