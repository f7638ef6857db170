/*
 * tests/curve/group.h: G1 and G2 behind one table of operations, so that
 * each property of tests/curve/points.c and encode.c is written once and
 * checked on both groups. Points travel as unions big enough for either.
 */
#ifndef TESTS_CURVE_GROUP_H
#define TESTS_CURVE_GROUP_H

#include "curve/curve.h"
#include "tests/helpers.h"

typedef union {
	g1_t g1;
	g2_t g2;
} tg_jac;

typedef union {
	g1_affine_t g1;
	g2_affine_t g2;
} tg_aff;

struct tg {
	int id;		/* 1 or 2 */
	const char *name;
	size_t jac, aff;	/* sizeof a point: the stride of arrays of them */
	size_t compressed, uncompressed;
	const void *gen;	/* affine */
	void (*set_inf)(void *p);
	void (*from_affine)(void *p, const void *a);
	void (*to_affine)(void *a, const void *p);
	int (*batch_to_affine)(void *a, const void *p, size_t n);
	int (*is_inf)(const void *p);
	int (*equal)(const void *p, const void *q);
	int (*affine_equal)(const void *a, const void *b);
	void (*neg)(void *o, const void *p);
	void (*affine_neg)(void *o, const void *a);
	void (*dbl)(void *o, const void *p);
	void (*add)(void *o, const void *p, const void *q);
	void (*add_affine)(void *o, const void *p, const void *a);
	void (*mul_limbs)(void *o, const void *p, const uint64_t *s, size_t n);
	void (*mul)(void *o, const void *p, const fr_t *s);
	int (*on_curve)(const void *a);
	int (*in_subgroup)(const void *a);
	void (*compress)(uint8_t *out, const void *a);
	void (*serialize)(uint8_t *out, const void *a);
	int (*decompress)(void *a, const uint8_t *in, char *why, size_t whylen);
	int (*deserialize)(void *a, const uint8_t *in, char *why, size_t whylen);
	int (*deserialize_unchecked)(void *a, const uint8_t *in, char *why, size_t whylen);
	int (*fixed_base_batch)(void *out, const void *base, const fr_t *s, size_t n, unsigned threads);
	/* a random point of the whole curve (mostly outside the subgroup) */
	void (*random_curve_point)(void *a, uint64_t *seed);
	/* the cofactor: multiplying by it lands in the subgroup */
	const uint64_t *cofactor;
	size_t cofactor_limbs;
};

#define TG_WRAP(G)									\
static void G##_t_set_inf(void *p) { G##_set_inf(p); }					\
static void G##_t_from_affine(void *p, const void *a) { G##_from_affine(p, a); }	\
static void G##_t_to_affine(void *a, const void *p) { G##_to_affine(a, p); }		\
static int G##_t_batch(void *a, const void *p, size_t n) { return G##_batch_to_affine(a, p, n); } \
static int G##_t_is_inf(const void *p) { return G##_is_inf(p); }			\
static int G##_t_equal(const void *p, const void *q) { return G##_equal(p, q); }	\
static int G##_t_aequal(const void *a, const void *b) { return G##_affine_equal(a, b); } \
static void G##_t_neg(void *o, const void *p) { G##_neg(o, p); }			\
static void G##_t_aneg(void *o, const void *a) { G##_affine_neg(o, a); }		\
static void G##_t_dbl(void *o, const void *p) { G##_double(o, p); }			\
static void G##_t_add(void *o, const void *p, const void *q) { G##_add(o, p, q); }	\
static void G##_t_madd(void *o, const void *p, const void *a) { G##_add_affine(o, p, a); } \
static void G##_t_mul_limbs(void *o, const void *p, const uint64_t *s, size_t n) { G##_mul_limbs(o, p, s, n); } \
static void G##_t_mul(void *o, const void *p, const fr_t *s) { G##_mul(o, p, s); }	\
static int G##_t_on_curve(const void *a) { return G##_affine_on_curve(a); }		\
static int G##_t_in_sub(const void *a) { return G##_affine_in_subgroup(a); }		\
static void G##_t_compress(uint8_t *o, const void *a) { G##_compress(o, a); }		\
static void G##_t_serialize(uint8_t *o, const void *a) { G##_serialize(o, a); }	\
static int G##_t_decompress(void *a, const uint8_t *in, char *w, size_t l) { return G##_decompress(a, in, w, l); } \
static int G##_t_deser(void *a, const uint8_t *in, char *w, size_t l) { return G##_deserialize(a, in, w, l); } \
static int G##_t_deser_u(void *a, const uint8_t *in, char *w, size_t l) { return G##_deserialize_unchecked(a, in, w, l); } \
static int G##_t_fixed(void *o, const void *b, const fr_t *s, size_t n, unsigned t) { return G##_fixed_base_batch(o, b, s, n, t); }

TG_WRAP(g1)
TG_WRAP(g2)

#define TG_OPS(G)									\
	G##_t_set_inf, G##_t_from_affine, G##_t_to_affine, G##_t_batch, G##_t_is_inf,	\
	G##_t_equal, G##_t_aequal, G##_t_neg, G##_t_aneg, G##_t_dbl, G##_t_add,		\
	G##_t_madd, G##_t_mul_limbs, G##_t_mul, G##_t_on_curve, G##_t_in_sub,		\
	G##_t_compress, G##_t_serialize, G##_t_decompress, G##_t_deser, G##_t_deser_u,	\
	G##_t_fixed

/* Random field elements from 64 random bytes each. */
static inline void tg_rand_fp(fp_t *x, uint64_t *seed)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t v = t_rand(seed);
		memcpy(b + i, &v, 8);
	}
	fp_from_bytes_wide(x, b);
}

static inline void tg_rand_fr(fr_t *x, uint64_t *seed)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t v = t_rand(seed);
		memcpy(b + i, &v, 8);
	}
	fr_from_bytes_wide(x, b);
}

/* Random x until x^3 + b is a square; either root. */
static void g1_t_random(void *out, uint64_t *seed)
{
	g1_affine_t *a = out;
	fp_t r;

	do {
		tg_rand_fp(&a->x, seed);
		fp_sqr(&r, &a->x);
		fp_mul(&r, &r, &a->x);
		fp_add(&r, &r, &G1_B);
	} while (fp_sqrt(&a->y, &r) != 0);
	a->inf = 0;
}

static void g2_t_random(void *out, uint64_t *seed)
{
	g2_affine_t *a = out;
	fp2_t r;

	do {
		tg_rand_fp(&a->x.c0, seed);
		tg_rand_fp(&a->x.c1, seed);
		fp2_sqr(&r, &a->x);
		fp2_mul(&r, &r, &a->x);
		fp2_add(&r, &r, &G2_B);
	} while (fp2_sqrt(&a->y, &r) != 0);
	a->inf = 0;
}

/* h1 = (x - 1)^2 / 3 and h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2
 * - 4x + 13) / 9 for x = -0xd201000000010000 (the BLS12-381 spec). */
static const uint64_t tg_h1[2] = { 0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL };
static const uint64_t tg_h2[8] = {
	0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL, 0xa628f1cb4d9e82efULL,
	0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL, 0x091d50792876a202ULL, 0x05d543a95414e7f1ULL,
};

static const struct tg tg_groups[2] = {
	{ 1, "G1", sizeof(g1_t), sizeof(g1_affine_t), G1_COMPRESSED, G1_UNCOMPRESSED, &G1_GENERATOR, TG_OPS(g1), g1_t_random, tg_h1, 2 },
	{ 2, "G2", sizeof(g2_t), sizeof(g2_affine_t), G2_COMPRESSED, G2_UNCOMPRESSED, &G2_GENERATOR, TG_OPS(g2), g2_t_random, tg_h2, 8 },
};

/* Element i of an array of the group's points (unions are bigger than a
 * G1 point: arrays passed to the library have the group's own stride). */
#define TG_AT(arr, i, size) ((void *)((char *)(arr) + (i) * (size)))

static inline void tg_aff_set_inf(const struct tg *g, tg_aff *a)
{
	memset(a, 0, sizeof *a);
	if (g->id == 1)
		a->g1.inf = 1;
	else
		a->g2.inf = 1;
}

static inline int tg_aff_is_inf(const struct tg *g, const tg_aff *a)
{
	return g->id == 1 ? a->g1.inf : a->g2.inf;
}

/* A random point of the subgroup, Jacobian with a random-looking Z. */
static inline void tg_random(const struct tg *g, tg_jac *p, uint64_t *seed)
{
	tg_jac gen;
	fr_t s;

	tg_rand_fr(&s, seed);
	g->from_affine(&gen, g->gen);
	g->mul(p, &gen, &s);
}

#endif
