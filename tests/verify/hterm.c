/*
 * verify against the CPU H-term: for random partitions (several k and
 * seeds) the H of hterm_cpu passes; one changed coefficient of H, at any
 * index including the top one, fails; so does the right H checked under a
 * wrong partition index, seed or an all-zero H. The Lagrange evaluation
 * is cross-checked against A(r) from the iNTT coefficients by Horner.
 * Every verdict is the same streamed (verify_partition_stream: H read in
 * chunks of at most VERIFY_STREAM_CHUNK bytes, its digest the BLAKE2b-256
 * of every byte), which also refuses a non-canonical element and reports
 * a failed read as that errno; and the same behind a prefix
 * (verify_partition_stream_after, a proofs+H region: the digest covers
 * prefix and H, the verdict is H's).
 * Prints the verify time at 2^16 and 2^20.
 */
#include <errno.h>

#include <sodium.h>

#include "field/ntt.h"
#include "gpuworker/hterm.h"
#include "synth/synth.h"
#include "tests/helpers.h"
#include "verify/verify.h"

struct t_part {
	struct synth_id id;
	size_t n;
	fr_t *h;	/* H of id (n coefficients) */
};

static struct t_part t_prove(uint64_t *rng, uint32_t k)
{
	struct t_part p;
	fr_t *a, *b, *c;

	memset(&p, 0, sizeof p);
	p.id.seed_len = 1 + (uint32_t)(t_rand(rng) % SYNTH_SEED_MAX);
	for (uint32_t i = 0; i < p.id.seed_len; i++)
		p.id.seed[i] = (uint8_t)t_rand(rng);
	p.id.partition = (uint32_t)(t_rand(rng) % 16);
	p.id.k = k;
	p.n = (size_t)1 << k;
	a = malloc(p.n * sizeof *a);
	b = malloc(p.n * sizeof *b);
	c = malloc(p.n * sizeof *c);
	CHECK(a && b && c, "malloc");
	CHECK(synth_partition(&p.id, a, b, c) == 0, "synth k=%u", k);
	CHECK(hterm_cpu(a, b, c, k) == 0, "hterm_cpu k=%u", k);
	CHECK(hterm_check_top(a, k), "hterm_cpu k=%u: top coefficient not zero", k);
	free(b);
	free(c);
	p.h = a;
	return p;
}

/* The streamed check's reader: bytes from memory, -EIO from fail_at on. */
struct t_src {
	const uint8_t *b;
	uint64_t fail_at;
	unsigned reads;
};

static int t_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct t_src *s = arg;

	CHECK(len && len <= VERIFY_STREAM_CHUNK, "a read of %zu bytes", len);
	s->reads++;
	if (off + len > s->fail_at)
		return -EIO;
	memcpy(buf, s->b + off, len);
	return 0;
}

/* verify_partition_stream over h (n elements, encoded; bytes overrides
 * them when not NULL): its return, its digest checked against the bytes. */
static int t_stream(const struct synth_id *id, const fr_t *h, const uint8_t *bytes, uint64_t fail_at,
		    char *why, size_t whylen)
{
	size_t n = (size_t)1 << id->k;
	uint8_t *b = malloc(n * FR_BYTES), d[32], want[32];
	struct t_src s = { .b = b, .fail_at = fail_at };
	int rc;

	CHECK(b, "malloc");
	if (bytes)
		memcpy(b, bytes, n * FR_BYTES);
	else
		for (size_t i = 0; i < n; i++)
			fr_to_bytes(b + i * FR_BYTES, &h[i]);
	rc = verify_partition_stream(id, t_read, &s, d, why, whylen);
	crypto_generichash(want, 32, b, n * FR_BYTES, NULL, 0);
	CHECK(rc || !memcmp(d, want, 32), "the stream's digest is not BLAKE2b-256 of H's bytes");
	CHECK(rc || s.reads == 2 * ((n * FR_BYTES + VERIFY_STREAM_CHUNK - 1) / VERIFY_STREAM_CHUNK),
	      "%u reads for two passes", s.reads);
	free(b);
	return rc;
}

/* verify_partition_stream_after, H behind 376 bytes of something else
 * (a proofs+H region's proof): the verdict is H's alone, and the digest
 * covers both, in order. Its return. */
static int t_stream_after(const struct synth_id *id, const fr_t *h, char *why, size_t whylen)
{
	size_t n = (size_t)1 << id->k, pre = 376;
	uint8_t *b = malloc(pre + n * FR_BYTES), d[32], want[32];
	struct t_src s = { .b = b + pre, .fail_at = UINT64_MAX };
	int rc;

	CHECK(b, "malloc");
	for (size_t i = 0; i < pre; i++)
		b[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < n; i++)
		fr_to_bytes(b + pre + i * FR_BYTES, &h[i]);
	rc = verify_partition_stream_after(id, b, pre, t_read, &s, d, why, whylen);
	crypto_generichash(want, 32, b, pre + n * FR_BYTES, NULL, 0);
	CHECK(rc || !memcmp(d, want, 32), "the digest is not BLAKE2b-256 of the prefix and H's bytes");
	free(b);
	return rc;
}

static void t_expect_fail(const struct synth_id *id, const fr_t *h, const char *what)
{
	char why[256] = "";
	int rc = verify_partition(id, h, why, sizeof why);

	CHECK(rc == -EBADMSG, "%s: verify returned %d, expected a failure", what, rc);
	CHECK(why[0], "%s: no reason given", what);
	why[0] = '\0';
	rc = t_stream(id, h, NULL, UINT64_MAX, why, sizeof why);
	CHECK(rc == -EBADMSG && why[0], "%s: streamed, verify returned %d", what, rc);
	why[0] = '\0';
	rc = t_stream_after(id, h, why, sizeof why);
	CHECK(rc == -EBADMSG && why[0], "%s: streamed after a prefix, verify returned %d", what, rc);
}

/* full: also every wrong H and wrong identity (else the good H, the
 * streamed forms and their failures only). */
static void t_case(uint64_t *rng, uint32_t k, int full)
{
	struct t_part p = t_prove(rng, k);
	struct synth_id wrong;
	size_t idx[4] = { 0, p.n - 1, p.n / 2, (size_t)(t_rand(rng) % p.n) };
	char why[256] = "";
	fr_t *z;

	CHECK(verify_partition(&p.id, p.h, why, sizeof why) == 0, "k=%u: good H rejected: %s", k, why);
	CHECK(t_stream(&p.id, p.h, NULL, UINT64_MAX, why, sizeof why) == 0, "k=%u: streamed, good H rejected: %s",
	      k, why);
	CHECK(t_stream_after(&p.id, p.h, why, sizeof why) == 0, "k=%u: streamed after a prefix, good H rejected: %s",
	      k, why);
	CHECK(t_stream(&p.id, p.h, NULL, p.n * FR_BYTES / 2, why, sizeof why) == -EIO && strstr(why, "reading H"),
	      "k=%u: a failed read is not -EIO: %s", k, why);
	{	/* a non-canonical element (0xff..): refused, named */
		uint8_t *b = malloc(p.n * FR_BYTES);
		CHECK(b, "malloc");
		for (size_t i = 0; i < p.n; i++)
			fr_to_bytes(b + i * FR_BYTES, &p.h[i]);
		memset(b + (p.n / 2) * FR_BYTES, 0xff, FR_BYTES);
		CHECK(t_stream(&p.id, p.h, b, UINT64_MAX, why, sizeof why) == -EBADMSG && strstr(why, "canonical"),
		      "k=%u: a non-canonical element: %s", k, why);
		free(b);
	}
	if (!full) {
		free(p.h);
		return;
	}

	for (size_t j = 0; j < 4; j++) {
		fr_t save = p.h[idx[j]], delta;
		fr_from_u64(&delta, 1 + t_rand(rng) % 1000);
		fr_add(&p.h[idx[j]], &p.h[idx[j]], &delta);
		t_expect_fail(&p.id, p.h, "flipped coefficient");
		p.h[idx[j]] = save;
	}
	CHECK(verify_partition(&p.id, p.h, why, sizeof why) == 0, "k=%u: restored H rejected", k);

	wrong = p.id;
	wrong.partition ^= 1;
	t_expect_fail(&wrong, p.h, "wrong partition");
	wrong = p.id;
	wrong.seed[0] ^= 0x80;
	t_expect_fail(&wrong, p.h, "wrong seed");
	wrong = p.id;
	if (wrong.seed_len < SYNTH_SEED_MAX) {
		wrong.seed_len++;	/* same bytes, one zero more */
		t_expect_fail(&wrong, p.h, "longer seed");
	}
	z = calloc(p.n, sizeof *z);
	CHECK(z, "calloc");
	t_expect_fail(&p.id, z, "zero H");
	free(z);
	free(p.h);
}

/* verify's formula for A(r), sum a[i] (r^n - 1)/n w^i/(r - w^i) with w
 * from verify_domain_gen, equals A(r) from field/ntt.h's iNTT coefficients
 * by Horner: the basis and the domain are the ones the H-term uses. */
static void t_lagrange(void)
{
	const uint32_t k = 6;
	size_t n = (size_t)1 << k;
	struct synth_id id;
	fr_t a[64], b[64], c[64], coef[64], w, wi = FR_ONE, r, rn, num, den, t, lag = FR_ZERO, hor = FR_ZERO;

	memset(&id, 0, sizeof id);
	id.seed_len = 1;
	id.k = k;
	CHECK(synth_partition(&id, a, b, c) == 0, "synth");
	memcpy(coef, a, sizeof coef);
	CHECK(ntt_inverse(coef, k) == 0, "intt");
	fr_from_u64(&r, 0x1234567);
	for (size_t i = n; i-- > 0;) {
		fr_mul(&hor, &hor, &r);
		fr_add(&hor, &hor, &coef[i]);
	}
	verify_domain_gen(&w, k);
	rn = r;
	for (uint32_t i = 0; i < k; i++)
		fr_sqr(&rn, &rn);
	fr_sub(&num, &rn, &FR_ONE);
	fr_from_u64(&t, n);
	fr_inv(&t, &t);
	fr_mul(&num, &num, &t);
	for (size_t i = 0; i < n; i++) {
		fr_sub(&den, &r, &wi);
		fr_inv(&den, &den);
		fr_mul(&t, &num, &wi);
		fr_mul(&t, &t, &den);
		fr_mul(&t, &t, &a[i]);
		fr_add(&lag, &lag, &t);
		fr_mul(&wi, &wi, &w);
	}
	CHECK(fr_equal(&lag, &hor), "Lagrange A(r) differs from the iNTT coefficients' A(r)");
	CHECK(fr_equal(&wi, &FR_ONE), "w^n != 1");
}

static void t_timing(uint64_t *rng, uint32_t k)
{
	struct t_part p = t_prove(rng, k);
	char why[256] = "";
	uint64_t t0 = t_now_ns();

	CHECK(verify_partition(&p.id, p.h, why, sizeof why) == 0, "k=%u: %s", k, why);
	printf("info: verify 2^%u: %.1f ms (re-synthesis included; %s Fr)\n", k,
	       (t_now_ns() - t0) / 1e6, fr_impl_name());
	free(p.h);
}

int main(void)
{
	static const uint32_t ks[] = { 3, 4, 5, 6, 7, 10, 12, 13 };
	uint64_t rng = 0x7e57;

	t_lagrange();
	/* H is 8 MiB: the stream reads it in two chunks a pass (under a
	 * sanitizer only the streamed checks: the rest is k's business below) */
	t_case(&rng, 18, !T_SANITIZER);
	for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++)
		for (int rep = 0; rep < T_SIZE(3, 1); rep++)	/* random rounds: fewer under a sanitizer */
			t_case(&rng, ks[j], 1);
	/* Another Fr path (portable, or ADX) gives the same verdicts. */
	if (fr_have_adx()) {
		const char *def = fr_impl_name();
		CHECK(fr_set_impl(!strcmp(def, "portable") ? "adx" : "portable") == 0, "switch Fr path");
		t_case(&rng, 3, 1);
		t_case(&rng, 11, 1);
		CHECK(fr_set_impl(def) == 0, "restore %s", def);
	}
	if (!T_SANITIZER) {	/* figures only: a sanitizer's would mislead */
		t_timing(&rng, 16);
		t_timing(&rng, 20);
	}
	return 0;
}
