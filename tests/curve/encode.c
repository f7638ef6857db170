/*
 * curve_encode: the ZCash encodings of G1 and G2. Known answers from
 * zkcrypto/bls12_381 (the reference implementation of the format): its
 * src/tests/{g1,g2}_{compressed,uncompressed}_valid_test_vectors.dat hold
 * the encodings of 0, G, 2G, ..., 999G; the generators' encodings are
 * spelled out below (the .dat files' second entries) and the SHA-256 of
 * each whole file is compared with the SHA-256 of what we write for the
 * same 1000 points (digests taken with sha256sum from zkcrypto's tree at
 * 6bb9695). Then round trips, and every refusal of the decoders with its
 * reason.
 */
#include <sodium.h>

#include "tests/curve/group.h"

static uint64_t seed = 0x243f6a8885a308d3ULL;

static void unhex(uint8_t *out, const char *hex, size_t n)
{
	CHECK(strlen(hex) == 2 * n, "hex string of %zu chars for %zu bytes", strlen(hex), n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1, "bad hex");
		out[i] = (uint8_t)v;
	}
}

struct vectors {
	const char *compressed, *uncompressed;	/* of the generator */
	const char *sha_compressed, *sha_uncompressed;	/* of 0, G, ..., 999G */
};

static const struct vectors vec[2] = {
	{
		"97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
		"17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
		"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
		"8acaa1d512b4cf96f4740e4c9afc19ba4618d48fe251c452a19382395bcd0929",
		"e25aae8e95c9cd39cdb1eec0100c8245e297510fef0091cbf80b91d49de6b685",
	},
	{
		"93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
		"13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
		"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
		"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
		"b75bc2e41289adda41e448e56a1ea39b11009a27b02e8676c8b86defedc05deb",
		"80fd0516c8115b13165589324558649fa94f49e714caa3b735537d073a9cfb65",
	},
};

/* p, big-endian. */
static const char *p_hex =
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

static void test_known(const struct tg *g, const struct vectors *v)
{
	uint8_t want[G2_UNCOMPRESSED], got[G2_UNCOMPRESSED];
	tg_aff a;
	char why[200];

	unhex(want, v->compressed, g->compressed);
	g->compress(got, g->gen);
	CHECK(memcmp(got, want, g->compressed) == 0, "%s generator compressed", g->name);
	CHECK(g->decompress(&a, want, why, sizeof why) == 0 && g->affine_equal(&a, g->gen),
	      "%s generator decompressed: %s", g->name, why);
	unhex(want, v->uncompressed, g->uncompressed);
	g->serialize(got, g->gen);
	CHECK(memcmp(got, want, g->uncompressed) == 0, "%s generator uncompressed", g->name);
	CHECK(g->deserialize(&a, want, why, sizeof why) == 0 && g->affine_equal(&a, g->gen),
	      "%s generator deserialized: %s", g->name, why);
}

static void hex32(char out[65], const uint8_t h[32])
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
}

/* 0, G, ..., 999G encoded both ways, hashed, and decoded back. */
static void test_zkcrypto_files(const struct tg *g, const struct vectors *v)
{
	crypto_hash_sha256_state hc, hu;
	uint8_t c[G2_COMPRESSED], u[G2_UNCOMPRESSED], dc[32], du[32];
	char why[200], sc[65], su[65];
	tg_jac p, gen;
	tg_aff a, b;

	crypto_hash_sha256_init(&hc);
	crypto_hash_sha256_init(&hu);
	g->set_inf(&p);
	g->from_affine(&gen, g->gen);
	for (int i = 0; i < 1000; i++) {	/* 1000: the digests below are of these */
		g->to_affine(&a, &p);
		g->compress(c, &a);
		g->serialize(u, &a);
		crypto_hash_sha256_update(&hc, c, g->compressed);
		crypto_hash_sha256_update(&hu, u, g->uncompressed);
		CHECK(g->decompress(&b, c, why, sizeof why) == 0 && g->affine_equal(&a, &b),
		      "%s: %d G compressed round trip: %s", g->name, i, why);
		CHECK(g->deserialize(&b, u, why, sizeof why) == 0 && g->affine_equal(&a, &b),
		      "%s: %d G uncompressed round trip: %s", g->name, i, why);
		g->add(&p, &p, &gen);
	}
	crypto_hash_sha256_final(&hc, dc);
	crypto_hash_sha256_final(&hu, du);
	hex32(sc, dc);
	hex32(su, du);
	CHECK(strcmp(sc, v->sha_compressed) == 0, "%s compressed 0..999 G: sha256 %s", g->name, sc);
	CHECK(strcmp(su, v->sha_uncompressed) == 0, "%s uncompressed 0..999 G: sha256 %s", g->name, su);
}

static void test_round_trips(const struct tg *g)
{
	uint8_t c[G2_COMPRESSED], c2[G2_COMPRESSED], u[G2_UNCOMPRESSED];
	char why[200];
	tg_jac p;
	tg_aff a, n, b;

	for (int i = 0; i < 40; i++) {
		tg_random(g, &p, &seed);
		g->to_affine(&a, &p);
		g->compress(c, &a);
		CHECK(g->decompress(&b, c, why, sizeof why) == 0 && g->affine_equal(&a, &b),
		      "%s compressed round trip: %s", g->name, why);
		g->serialize(u, &a);
		CHECK(g->deserialize(&b, u, why, sizeof why) == 0 && g->affine_equal(&a, &b),
		      "%s uncompressed round trip: %s", g->name, why);
		CHECK(g->deserialize_unchecked(&b, u, why, sizeof why) == 0 && g->affine_equal(&a, &b),
		      "%s unchecked round trip: %s", g->name, why);
		/* -P: the same x, only the sort flag differs */
		g->affine_neg(&n, &a);
		g->compress(c2, &n);
		CHECK((c[0] ^ c2[0]) == 0x20 && memcmp(c + 1, c2 + 1, g->compressed - 1) == 0,
		      "%s: P and -P compressed differ beyond the sort flag", g->name);
		CHECK(g->decompress(&b, c2, NULL, 0) == 0 && g->affine_equal(&n, &b), "%s: -P", g->name);
	}
	tg_aff_set_inf(g, &a);
	g->compress(c, &a);
	g->serialize(u, &a);
	CHECK(c[0] == 0xc0 && u[0] == 0x40, "%s infinity flags", g->name);
	for (size_t i = 1; i < g->uncompressed; i++)
		CHECK(u[i] == 0 && (i >= g->compressed || c[i] == 0), "%s infinity body", g->name);
	CHECK(g->decompress(&b, c, why, sizeof why) == 0 && tg_aff_is_inf(g, &b), "%s: 0 compressed", g->name);
	CHECK(g->deserialize(&b, u, why, sizeof why) == 0 && tg_aff_is_inf(g, &b), "%s: 0 uncompressed", g->name);
}

enum { COMP, UNCOMP, UNCHECKED };

/* Decoding in must fail with a reason containing reason. */
static void refuse(const struct tg *g, int kind, const uint8_t *in, const char *reason, const char *what)
{
	char why[200] = "";
	tg_aff a;
	int rc = kind == COMP ? g->decompress(&a, in, why, sizeof why)
		: kind == UNCOMP ? g->deserialize(&a, in, why, sizeof why)
		: g->deserialize_unchecked(&a, in, why, sizeof why);

	CHECK(rc == -1, "%s %s: accepted", g->name, what);
	CHECK(strstr(why, reason) && strncmp(why, g->name, 2) == 0 && !strchr(why, '\n'),
	      "%s %s: reason \"%s\", expected \"%s\"", g->name, what, why, reason);
	/* no reason buffer: still refused, nothing written */
	rc = kind == COMP ? g->decompress(&a, in, NULL, 0)
		: kind == UNCOMP ? g->deserialize(&a, in, NULL, 0)
		: g->deserialize_unchecked(&a, in, NULL, 0);
	CHECK(rc == -1, "%s %s: accepted without a reason buffer", g->name, what);
}

/* big-endian in[0..48) += p (no carry out: the callers' values are < 2^383) */
static void add_p(uint8_t *x)
{
	uint8_t p[FP_BYTES];
	unsigned carry = 0;

	unhex(p, p_hex, FP_BYTES);
	for (int i = FP_BYTES - 1; i >= 0; i--) {
		carry += (unsigned)x[i] + p[i];
		x[i] = (uint8_t)carry;
		carry >>= 8;
	}
	CHECK(carry == 0, "add_p overflow");
}

/* The smallest k (and for G2, x = k + 0u) with x^3 + b not a square. */
static void x_off_curve(const struct tg *g, uint8_t *out)
{
	fp_t k, r;
	fp2_t k2, r2, s2;

	memset(out, 0, g->compressed);
	for (uint64_t v = 1;; v++) {
		fp_from_u64(&k, v);
		if (g->id == 1) {
			fp_sqr(&r, &k);
			fp_mul(&r, &r, &k);
			fp_add(&r, &r, &G1_B);
			if (!fp_is_square(&r)) {
				fp_to_bytes_be(out, &k);
				break;
			}
		} else {
			k2 = (fp2_t){ k, FP_ZERO };
			fp2_sqr(&r2, &k2);
			fp2_mul(&r2, &r2, &k2);
			fp2_add(&r2, &r2, &G2_B);
			if (fp2_sqrt(&s2, &r2) != 0) {
				fp_to_bytes_be(out + FP_BYTES, &k);	/* c1 = 0, c0 = k */
				break;
			}
		}
	}
	out[0] |= 0x80;
}

static void test_refusals(const struct tg *g)
{
	uint8_t c[G2_COMPRESSED], u[G2_UNCOMPRESSED], t[G2_UNCOMPRESSED], p[FP_BYTES];
	size_t nc = g->compressed, nu = g->uncompressed, fb = nc;	/* bytes of one coordinate */
	tg_aff a, b;

	unhex(p, p_hex, FP_BYTES);
	g->compress(c, g->gen);
	g->serialize(u, g->gen);

	memcpy(t, c, nc);
	t[0] &= 0x7f;
	refuse(g, COMP, t, "without the compression flag", "compressed without 0x80");
	memcpy(t, u, nu);
	t[0] |= 0x80;
	refuse(g, UNCOMP, t, "with the compression flag (0x80) set", "uncompressed with 0x80");
	refuse(g, UNCHECKED, t, "with the compression flag (0x80) set", "unchecked with 0x80");
	memcpy(t, u, nu);
	t[0] |= 0x20;
	refuse(g, UNCOMP, t, "sort flag (0x20) set on an uncompressed", "uncompressed with the sort flag");

	/* infinity: flags and nothing else */
	memset(t, 0, nu);
	t[0] = 0xc0;
	t[nc - 1] = 1;
	refuse(g, COMP, t, "infinity flag (0x40) with nonzero", "compressed infinity, last byte 1");
	t[nc - 1] = 0;
	t[0] = 0xc1;
	refuse(g, COMP, t, "infinity flag (0x40) with nonzero", "compressed infinity, first byte 0xc1");
	t[0] = 0xe0;
	refuse(g, COMP, t, "infinity flag (0x40) with the sort flag", "compressed infinity with the sort flag");
	t[0] = 0x40;
	t[nu - 1] = 1;
	refuse(g, UNCOMP, t, "infinity flag (0x40) with nonzero", "uncompressed infinity, y nonzero");
	t[nu - 1] = 0;
	t[0] = 0x60;
	refuse(g, UNCOMP, t, "sort flag (0x20) set on an uncompressed", "uncompressed infinity with the sort flag");

	/* non-canonical coordinates: p itself, in each Fp slot */
	for (size_t off = 0; off < fb; off += FP_BYTES) {
		memcpy(t, c, nc);
		memcpy(t + off, p, FP_BYTES);
		t[0] |= 0x80;
		refuse(g, COMP, t, "x coordinate not below p", "compressed x = p");
		memcpy(t, u, nu);
		memcpy(t + off, p, FP_BYTES);
		refuse(g, UNCOMP, t, "x coordinate not below p", "uncompressed x = p");
		memcpy(t, u, nu);
		memcpy(t + fb + off, p, FP_BYTES);
		refuse(g, UNCOMP, t, "y coordinate not below p", "uncompressed y = p");
		/* y + p: the right y, not reduced */
		memcpy(t, u, nu);
		add_p(t + fb + off);
		refuse(g, UNCHECKED, t, "y coordinate not below p", "uncompressed y + p");
	}
	memset(t, 0xff, nc);
	t[0] = 0x9f;
	refuse(g, COMP, t, "x coordinate not below p", "compressed x = 2^381 - 1");

	x_off_curve(g, t);
	refuse(g, COMP, t, "no point on the curve", "compressed x off the curve");

	/* (x, y + 1) */
	CHECK(g->deserialize(&a, u, NULL, 0) == 0, "generator");
	if (g->id == 1)
		fp_add(&a.g1.y, &a.g1.y, &FP_ONE);
	else
		fp2_add(&a.g2.y, &a.g2.y, &FP2_ONE);
	g->serialize(t, &a);
	refuse(g, UNCOMP, t, "not on the curve", "uncompressed (x, y + 1)");
	refuse(g, UNCHECKED, t, "not on the curve", "unchecked (x, y + 1)");

	/* on the curve, outside the subgroup: only the unchecked decoder takes it */
	g->random_curve_point(&a, &seed);
	CHECK(!g->in_subgroup(&a), "random curve point in the subgroup");
	g->compress(t, &a);
	refuse(g, COMP, t, "not in the prime-order subgroup", "compressed point outside the subgroup");
	g->serialize(t, &a);
	refuse(g, UNCOMP, t, "not in the prime-order subgroup", "uncompressed point outside the subgroup");
	CHECK(g->deserialize_unchecked(&b, t, NULL, 0) == 0 && g->affine_equal(&a, &b),
	      "%s unchecked refused a point on the curve", g->name);
}

int main(void)
{
	CHECK(sodium_init() >= 0, "sodium_init");
	for (int k = 0; k < 2; k++) {
		const struct tg *g = &tg_groups[k];
		uint64_t t0 = t_now_ns();
		test_known(g, &vec[k]);
		test_zkcrypto_files(g, &vec[k]);
		test_round_trips(g);
		test_refusals(g);
		printf("info: %s encodings: zkcrypto's 1000 vectors both ways, round trips, refusals in %.2f s\n",
		       g->name, (double)(t_now_ns() - t0) / 1e9);
	}
	return 0;
}
