/*
 * The synthesis circuit: deterministic, sensitive to every part of the
 * identity, every row satisfied for k = 3..16, the round structure and
 * the input and empty rows of docs/circuit.md, streaming in odd chunks equal to one call, the same
 * rows from the portable and the ADX Fr paths, a pinned
 * digest (so a change to the circuit, which would orphan every existing
 * file, cannot slip in unnoticed), seed parsing, and the time to
 * synthesize 2^16 and 2^20 rows.
 */
#include <errno.h>
#include <sodium.h>

#include "synth/synth.h"
#include "tests/helpers.h"

static struct synth_id t_id(const char *hex, uint32_t part, uint32_t k)
{
	struct synth_id id;

	memset(&id, 0, sizeof id);
	CHECK(synth_parse_seed(&id, hex) == 0, "seed %s", hex);
	id.partition = part;
	id.k = k;
	return id;
}

/* BLAKE2b-256 over the canonical bytes of a, b, c. */
static void t_digest(const struct synth_id *id, uint8_t out[32])
{
	size_t n = (size_t)1 << id->k;
	fr_t *v = malloc(3 * n * sizeof *v);
	crypto_generichash_state st;
	uint8_t buf[FR_BYTES];

	CHECK(v, "malloc");
	CHECK(synth_partition(id, v, v + n, v + 2 * n) == 0, "synth");
	crypto_generichash_init(&st, NULL, 0, 32);
	for (size_t i = 0; i < 3 * n; i++) {
		fr_to_bytes(buf, &v[i]);
		crypto_generichash_update(&st, buf, sizeof buf);
	}
	crypto_generichash_final(&st, out, 32);
	free(v);
}

static void t_determinism(void)
{
	struct synth_id base = t_id("00112233445566778899aabbccddeeff", 3, 10);
	struct synth_id other[] = {
		t_id("00112233445566778899aabbccddeeff", 4, 10),	/* partition */
		t_id("00112233445566778899aabbccddeefe", 3, 10),	/* seed byte */
		t_id("00112233445566778899aabbccddeeff00", 3, 10),	/* seed length */
		t_id("00112233445566778899aabbccddeeff", 3, 11),	/* k */
	};
	uint8_t d0[32], d1[32];

	t_digest(&base, d0);
	t_digest(&base, d1);
	CHECK(!memcmp(d0, d1, 32), "same identity gave different rows");
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		t_digest(&other[i], d1);
		CHECK(memcmp(d0, d1, 32), "identity variant %zu gave the same rows", i);
	}
}

static void t_satisfied(void)
{
	uint64_t rng = 0x5eed;

	for (uint32_t k = SYNTH_LOG_MIN; k <= 16; k++) {
		size_t n = (size_t)1 << k, bad = 0;
		fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
		struct synth_id id = t_id("c0ffee", (uint32_t)t_rand(&rng), k);

		CHECK(a && b && c, "malloc");
		CHECK(synth_partition(&id, a, b, c) == 0, "k=%u", k);
		CHECK(synth_check(a, b, c, n, &bad) == 0, "k=%u row %zu violates a*b = c", k, bad);

		/* The round structure: t*t = t2; t2*t2 = t4; t4*t = x'. */
		size_t R = synth_rounds(k);
		CHECK(R == (n - 3) / 3 && 3 * R + 3 <= n && n - 3 * R - 3 <= 2, "k=%u R=%zu", k, R);
		for (size_t i = 0; i < 3 * R; i += 3) {
			CHECK(fr_equal(&b[i], &a[i]), "k=%u row %zu", k, i);
			CHECK(fr_equal(&a[i + 1], &c[i]) && fr_equal(&b[i + 1], &c[i]), "k=%u row %zu", k, i + 1);
			CHECK(fr_equal(&a[i + 2], &c[i + 1]) && fr_equal(&b[i + 2], &a[i]), "k=%u row %zu", k, i + 2);
		}
		/* Not degenerate: no zeros, no row with b = 1, rounds differ. */
		for (size_t i = 0; i < 3 * R; i++)
			CHECK(!fr_is_zero(&a[i]) && !fr_is_zero(&c[i]) && !fr_equal(&b[i], &FR_ONE),
			      "k=%u row %zu is degenerate", k, i);
		if (R >= 2)
			CHECK(!fr_equal(&a[0], &a[3]), "k=%u rounds 0 and 1 equal", k);
		/* The input rows (one, x_0, x_out; b = c = 0): x_out is the last
		 * round's output; then empty rows. */
		CHECK(fr_equal(&a[3 * R], &FR_ONE) && !fr_is_zero(&a[3 * R + 1]) &&
		      fr_equal(&a[3 * R + 2], &c[3 * R - 1]), "k=%u input rows", k);
		for (size_t i = 3 * R; i < n; i++)
			CHECK(fr_is_zero(&b[i]) && fr_is_zero(&c[i]) && (i < 3 * R + 3 || fr_is_zero(&a[i])),
			      "k=%u row %zu: not an input or empty row", k, i);

		/* One flipped value is caught, at its row. */
		fr_add(&c[n / 2], &c[n / 2], &FR_ONE);
		CHECK(synth_check(a, b, c, n, &bad) == -EDOM && bad == n / 2, "k=%u tamper not found", k);
		free(a);
		free(b);
		free(c);
	}
}

/* Rows drawn in chunks that split rounds equal rows drawn at once. */
static void t_stream(void)
{
	struct synth_id id = t_id("abcdef", 7, 9);
	size_t n = (size_t)1 << id.k;
	fr_t *v = malloc(6 * n * sizeof *v);
	struct synth_stream s;
	size_t done = 0, step = 1;

	CHECK(v, "malloc");
	CHECK(synth_partition(&id, v, v + n, v + 2 * n) == 0, "synth");
	CHECK(synth_stream_init(&s, &id) == 0, "init");
	while (done < n) {
		size_t m = step < n - done ? step : n - done;
		synth_stream_rows(&s, v + 3 * n + done, v + 4 * n + done, v + 5 * n + done, m);
		done += m;
		step = step * 3 % 11 + 1;
	}
	CHECK(!memcmp(v, v + 3 * n, 3 * n * sizeof *v), "chunked stream differs");
	free(v);
}

static void t_pinned(void)
{
	/* Pinned when circuit v2 was written, computed by the independent
	 * Python model in docs/circuit.md (run with python3). */
	static const char want[] = "628ef42e37546dfb7f7fd81fe5e3ccda2ca206b487e3e2ea044b6d621631625c";
	struct synth_id id = t_id("0001020304050607", 1, 6);
	uint8_t d[32];
	char hex[65];

	t_digest(&id, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	CHECK(!strcmp(hex, want), "circuit digest %s, pinned %s: the circuit changed", hex, want);
}

/* The portable and the ADX Fr paths synthesize identical rows. */
static void t_impls(void)
{
	struct synth_id id = t_id("5a5a", 2, 12);
	const char *def = fr_impl_name();
	uint8_t d0[32], d1[32];

	if (!fr_have_adx()) {
		printf("info: no ADX on this CPU; portable path only\n");
		return;
	}
	CHECK(fr_set_impl("portable") == 0, "portable");
	t_digest(&id, d0);
	CHECK(fr_set_impl("adx") == 0, "adx");
	t_digest(&id, d1);
	CHECK(fr_set_impl(def) == 0, "restore %s", def);
	CHECK(!memcmp(d0, d1, 32), "portable and adx Fr synthesize different rows");
}

static void t_seeds(void)
{
	struct synth_id id;
	char hex[65];

	memset(&id, 0, sizeof id);
	CHECK(synth_parse_seed(&id, "0xDEADbeef") == 0 && id.seed_len == 4 && id.seed[0] == 0xde &&
	      id.seed[3] == 0xef, "0x prefix, mixed case");
	synth_seed_hex(&id, hex, sizeof hex);
	CHECK(!strcmp(hex, "deadbeef"), "hex out: %s", hex);
	CHECK(synth_parse_seed(&id, "") == -EINVAL, "empty");
	CHECK(synth_parse_seed(&id, "0x") == -EINVAL, "bare 0x");
	CHECK(synth_parse_seed(&id, "abc") == -EINVAL, "odd digits");
	CHECK(synth_parse_seed(&id, "zz") == -EINVAL, "not hex");
	CHECK(synth_parse_seed(&id, "00 1") == -EINVAL, "space");
	CHECK(synth_parse_seed(&id, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff") == 0 &&
	      id.seed_len == 32, "32 bytes");
	CHECK(synth_parse_seed(&id, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00") ==
	      -EINVAL, "33 bytes");
	id.k = 0;
	CHECK(synth_stream_init(&(struct synth_stream){ .pos = 0 }, &id) == -EINVAL, "k = 0");
	id.k = 2;
	CHECK(synth_id_check(&id) == -EINVAL, "k = 2 (too small for one round and the inputs)");
	id.k = 3;
	CHECK(synth_id_check(&id) == 0, "k = 3");
	id.k = 28;
	CHECK(synth_id_check(&id) == -EINVAL, "k = 28");
	id.k = 10;
	id.seed_len = 0;
	CHECK(synth_id_check(&id) == -EINVAL, "empty seed");
}

static void t_timing(void)
{
	static const uint32_t ks[] = { 16, 20 };

	for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
		size_t n = (size_t)1 << ks[j];
		fr_t *v = malloc(3 * n * sizeof *v);
		struct synth_id id = t_id("7177", 0, ks[j]);
		uint64_t t0;

		CHECK(v, "malloc");
		t0 = t_now_ns();
		CHECK(synth_partition(&id, v, v + n, v + 2 * n) == 0, "synth");
		printf("info: synth 2^%u rows: %.1f ms (%s Fr)\n", ks[j], (t_now_ns() - t0) / 1e6,
		       fr_impl_name());
		free(v);
	}
}

int main(void)
{
	t_seeds();
	t_determinism();
	t_satisfied();
	t_stream();
	t_impls();
	if (!T_SANITIZER)	/* figures only: a sanitizer's would mislead */
		t_timing();
	t_pinned();
	return 0;
}
