/*
 * The params and proof files: what is written reads back the same, and
 * every damaged file is refused with a line that names what is wrong,
 * before any arithmetic trusts it.
 *
 * params: a flipped byte anywhere (the trailer catches it), a changed
 * verifying key (its own digest), a header from another k, bad magic,
 * version, reserved bytes, truncation, an extra byte, and a point off the
 * curve under a recomputed trailer (named by query and index).
 * proof: a flipped byte (checksum), and under a recomputed checksum: a
 * point off the curve, a point on the curve outside the subgroup, a
 * non-canonical public input, a bad identity; bad magic and version.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16.h"
#include "tests/helpers.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	uint8_t *buf;

	CHECK(fd >= 0 && fstat(fd, &st) == 0, "open %s", path);
	*len = (size_t)st.st_size;
	buf = malloc(*len + 1);
	CHECK(buf && read(fd, buf, *len) == (ssize_t)*len, "read %s", path);
	close(fd);
	return buf;
}

static void reseal(uint8_t *buf, size_t len)
{
	crypto_generichash(buf + len - 32, 32, buf, len - 32, NULL, 0);
}

/* parse buf and expect a refusal whose text contains want */
static void refused(const uint8_t *buf, size_t len, int vk_only, const char *want, const char *what)
{
	struct groth16_params p;
	char err[256] = "";

	CHECK(groth16_params_parse(buf, len, &p, vk_only, err, sizeof err) != 0, "%s: accepted", what);
	CHECK(strstr(err, want), "%s: refused with '%s', expected '%s'", what, err, want);
	printf("ok: params %s -> %s\n", what, err);
}

static void proof_refused(const uint8_t *buf, size_t len, const char *want, const char *what)
{
	struct groth16_proof_file f;
	char err[256] = "";

	CHECK(groth16_proof_decode(&f, buf, len, err, sizeof err) != 0, "%s: accepted", what);
	CHECK(strstr(err, want), "%s: refused with '%s', expected '%s'", what, err, want);
	printf("ok: proof %s -> %s\n", what, err);
}

/* A point on G1's curve outside its subgroup, compressed. */
static void off_subgroup_g1(uint8_t out[G1_COMPRESSED])
{
	g1_affine_t a = { .inf = 0 };
	fp_t rhs, four;

	fp_from_u64(&four, 4);
	for (uint64_t x = 1;; x++) {
		fp_from_u64(&a.x, x);
		fp_sqr(&rhs, &a.x);
		fp_mul(&rhs, &rhs, &a.x);
		fp_add(&rhs, &rhs, &four);
		if (fp_sqrt(&a.y, &rhs) == 0 && g1_affine_on_curve(&a) && !g1_affine_in_subgroup(&a))
			break;
	}
	g1_compress(out, &a);
}

static void params_cases(const char *dir)
{
	static const uint8_t seed[] = { 0x5e };
	struct groth16_params p, q;
	char path[600], err[256];
	uint8_t *buf, *c;
	size_t len, vkoff = GROTH16_PARAMS_HEADER, hoff;

	snprintf(path, sizeof path, "%s/params", dir);
	CHECK(groth16_setup(&p, seed, 1, 5, 0, err, sizeof err) == 0, "setup: %s", err);
	CHECK(groth16_params_write(path, &p, err, sizeof err) == 0, "write: %s", err);
	CHECK(groth16_params_read(path, &q, 0, err, sizeof err) == 0, "read: %s", err);
	CHECK(q.k == 5 && q.nvars == p.nvars && q.npub == 3 && q.flags == GROTH16_FLAG_SEEDED, "header");
	CHECK(!memcmp(q.vk_digest, p.vk_digest, 32), "vk digest");
	for (size_t i = 0; i < p.nh; i++)
		CHECK(g1_affine_equal(&p.h[i], &q.h[i]), "h[%zu]", i);
	for (size_t i = 0; i < p.nvars; i++)
		CHECK(g1_affine_equal(&p.a[i], &q.a[i]) && g1_affine_equal(&p.b_g1[i], &q.b_g1[i]) &&
		      g2_affine_equal(&p.b_g2[i], &q.b_g2[i]), "query point %zu", i);
	for (size_t i = 0; i + 3 < p.nvars; i++)
		CHECK(g1_affine_equal(&p.l[i], &q.l[i]), "l[%zu]", i);
	for (int i = 0; i < 3; i++)
		CHECK(g1_affine_equal(&p.vk.ic[i], &q.vk.ic[i]), "ic[%d]", i);
	CHECK(g2_affine_equal(&p.vk.delta_g2, &q.vk.delta_g2) && g1_affine_equal(&p.vk.alpha_g1, &q.vk.alpha_g1),
	      "vk points");
	groth16_params_free(&q);
	CHECK(groth16_params_read(path, &q, 1, err, sizeof err) == 0 && !q.a && !q.h, "vk only: %s", err);

	buf = slurp(path, &len);
	c = malloc(len + 1);
	hoff = vkoff + 3 * 96 + 3 * 192 + 4 + 3 * 96;	/* the h query's count */
#define FRESH() memcpy(c, buf, len)
	FRESH();
	c[hoff + 4 + 3 * 96 + 50] ^= 1;
	refused(c, len, 0, "checksum mismatch", "byte flipped in h[3]");
	FRESH();
	c[vkoff + 100] ^= 1;
	refused(c, len, 1, "does not match its digest", "byte flipped in the vk");
	FRESH();
	c[0] = 'X';
	refused(c, len, 0, "bad magic", "bad magic");
	FRESH();
	c[8] = 2;
	refused(c, len, 0, "version 2", "version 2");
	FRESH();
	c[12] = 6;
	refused(c, len, 0, "do not match the k=6 circuit", "header of another k");
	FRESH();
	c[110] = 1;
	refused(c, len, 0, "reserved", "reserved byte");
	FRESH();
	c[72] ^= 1;
	refused(c, len, 0, "another circuit", "circuit digest");
	refused(buf, len - 1, 0, "not the", "one byte short");
	FRESH();
	c[len] = 0;
	refused(c, len + 1, 0, "not the", "one byte more");
	refused(buf, 100, 1, "truncated", "shorter than the header");
	FRESH();
	/* h[3]'s x: all 0xff is not canonical; resealed, so the decoder must say */
	memset(c + hoff + 4 + 3 * 96 + 1, 0xff, 47);
	c[hoff + 4 + 3 * 96] = 0x1f;
	reseal(c, len);
	refused(c, len, 0, "h[3]", "non-canonical point in h[3]");
	FRESH();
	/* b_g2's last point moved off the curve: y + 1 */
	c[len - 32 - 1] ^= 1;
	reseal(c, len);
	refused(c, len, 0, "b_g2[", "off-curve point in b_g2");
#undef FRESH
	free(c);
	free(buf);
	groth16_params_free(&p);
	unlink(path);
}

static void proof_cases(const char *dir)
{
	struct groth16_proof_file f = { 0 }, g;
	uint8_t buf[GROTH16_PROOF_BYTES], c[GROTH16_PROOF_BYTES + 1];
	char path[600], err[256];
	g1_t t;

	CHECK(synth_parse_seed(&f.id, "abcd") == 0, "seed");
	f.id.partition = 7;
	f.id.k = 9;
	memset(f.vk_digest, 0x42, 32);
	fr_from_u64(&f.x[0], 123);
	fr_from_u64(&f.x[1], 456);
	g1_from_affine(&t, &G1_GENERATOR);
	g1_double(&t, &t);
	g1_to_affine(&f.proof.a, &t);
	f.proof.b = G2_GENERATOR;
	f.proof.c = G1_GENERATOR;
	snprintf(path, sizeof path, "%s/proof", dir);
	CHECK(groth16_proof_write(path, &f, err, sizeof err) == 0, "write: %s", err);
	CHECK(groth16_proof_read(path, &g, err, sizeof err) == 0, "read: %s", err);
	CHECK(g.id.k == 9 && g.id.partition == 7 && g.id.seed_len == 2 && !memcmp(g.id.seed, f.id.seed, 2), "id");
	CHECK(fr_equal(&g.x[0], &f.x[0]) && fr_equal(&g.x[1], &f.x[1]), "inputs");
	CHECK(g1_affine_equal(&g.proof.a, &f.proof.a) && g2_affine_equal(&g.proof.b, &f.proof.b) &&
	      g1_affine_equal(&g.proof.c, &f.proof.c), "points");
	unlink(path);

	groth16_proof_encode(buf, &f);
#define FRESH() memcpy(c, buf, sizeof buf)
	FRESH();
	c[160] ^= 1;
	proof_refused(c, sizeof buf, "checksum", "flipped byte in A");
	FRESH();
	c[152 + 47] ^= 1;	/* A's x + 1: usually no point, else outside G1 */
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "proof A:", "A's x changed, resealed");
	FRESH();
	off_subgroup_g1(c + 296);
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "subgroup", "C on the curve, outside G1");
	FRESH();
	c[200] &= 0x7f;		/* B without its compression flag */
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "proof B:", "B's compression flag cleared");
	FRESH();
	memset(c + 88, 0xff, 32);
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "canonical", "x_0 >= r");
	FRESH();
	c[20] = 40;
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "identity", "seed length 40");
	FRESH();
	c[30] = 1;
	reseal(c, sizeof buf);
	proof_refused(c, sizeof buf, "padding", "seed padding");
	FRESH();
	c[8] = 9;
	proof_refused(c, sizeof buf, "version 9", "version 9");
	FRESH();
	c[1] = 'X';
	proof_refused(c, sizeof buf, "bad magic", "bad magic");
	proof_refused(buf, sizeof buf - 1, "not the", "one byte short");
#undef FRESH
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512];

	CHECK(sodium_init() >= 0, "sodium");
	snprintf(dir, sizeof dir, "%s/g16files.XXXXXX", tmp ? tmp : "/tmp");
	CHECK(mkdtemp(dir), "mkdtemp");
	params_cases(dir);
	proof_cases(dir);
	rmdir(dir);
	return 0;
}
