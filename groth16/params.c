/*
 * params: the Groth16 parameters file (docs/formats.md): a 128-byte header,
 * the body in the layout of bellperson's Parameters::write (the verifying
 * key, then the H, L, A, B_G1 and B_G2 queries, each with a big-endian
 * count, every point uncompressed), and a BLAKE2b-256 trailer over
 * everything before it. Unlike bellperson, the A and B queries keep their
 * points at infinity: one point per variable, so the prover needs no
 * density bitmap.
 *
 * The file is built in memory and written in one go; reading maps it and
 * decodes the points on all CPUs. The verifying key's points are checked
 * in full (curve and subgroup); the proving key's are covered by the
 * trailer and checked on the curve only: a subgroup check per point would
 * cost more than the proof.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16_priv.h"
#include "util/util.h"

static const uint8_t params_magic[8] = { 'P', 'V', 'P', 'A', 'R', 'A', 'M', 'S' };

#define VK_BYTES (3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED + 4 + GROTH16_NPUB * G1_UNCOMPRESSED)

void groth16_circuit_digest(unsigned k, uint8_t out[GROTH16_DIGEST])
{
	static const char tag[] = "provisor/groth16/circuit/v2";
	crypto_generichash_state st;
	uint8_t le[4];

	util_le32_put(le, k);
	crypto_generichash_init(&st, NULL, 0, GROTH16_DIGEST);
	crypto_generichash_update(&st, (const uint8_t *)tag, sizeof tag - 1);
	crypto_generichash_update(&st, le, 4);
	crypto_generichash_final(&st, out, GROTH16_DIGEST);
}

void groth16_params_free(struct groth16_params *p)
{
	if (p->map) {
		munmap(p->map, p->map_len);
		p->map = NULL;
		p->h = p->l = p->a = p->b_g1 = NULL;
		p->b_g2 = NULL;
		return;
	}
	free(p->h);
	free(p->l);
	free(p->a);
	free(p->b_g1);
	free(p->b_g2);
	p->h = p->l = p->a = p->b_g1 = NULL;
	p->b_g2 = NULL;
}

/* Sizes of the sections, from the header's counts. */
static uint64_t params_body_len(uint64_t nvars, uint64_t npub, uint64_t nh)
{
	return VK_BYTES + 4 + nh * G1_UNCOMPRESSED + 4 + (nvars - npub) * G1_UNCOMPRESSED +
	       2 * (4 + nvars * G1_UNCOMPRESSED) + 4 + nvars * G2_UNCOMPRESSED;
}

static void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *put_g1s(uint8_t *q, const g1_affine_t *pt, size_t n, int counted)
{
	if (counted) {
		be32_put(q, (uint32_t)n);
		q += 4;
	}
	for (size_t i = 0; i < n; i++, q += G1_UNCOMPRESSED)
		g1_serialize(q, &pt[i]);
	return q;
}

static uint8_t *put_g2s(uint8_t *q, const g2_affine_t *pt, size_t n, int counted)
{
	if (counted) {
		be32_put(q, (uint32_t)n);
		q += 4;
	}
	for (size_t i = 0; i < n; i++, q += G2_UNCOMPRESSED)
		g2_serialize(q, &pt[i]);
	return q;
}

/* The verifying key's bytes (VK_BYTES), as in the file. */
static void vk_bytes(uint8_t *q, const struct groth16_vk *vk)
{
	q = put_g1s(q, &vk->alpha_g1, 1, 0);
	q = put_g1s(q, &vk->beta_g1, 1, 0);
	q = put_g2s(q, &vk->beta_g2, 1, 0);
	q = put_g2s(q, &vk->gamma_g2, 1, 0);
	q = put_g1s(q, &vk->delta_g1, 1, 0);
	q = put_g2s(q, &vk->delta_g2, 1, 0);
	put_g1s(q, vk->ic, GROTH16_NPUB, 1);
}

void groth16_vk_digest(const struct groth16_vk *vk, uint8_t out[GROTH16_DIGEST])
{
	uint8_t buf[VK_BYTES];

	vk_bytes(buf, vk);
	crypto_generichash(out, GROTH16_DIGEST, buf, sizeof buf, NULL, 0);
}

static void header_bytes(uint8_t h[GROTH16_PARAMS_HEADER], const struct groth16_params *p, uint64_t body)
{
	memset(h, 0, GROTH16_PARAMS_HEADER);
	memcpy(h, params_magic, sizeof params_magic);
	util_le32_put(h + 8, GROTH16_PARAMS_VERSION);
	util_le32_put(h + 12, p->k);
	util_le32_put(h + 16, p->nvars);
	util_le32_put(h + 20, p->npub);
	util_le32_put(h + 24, p->flags);
	util_le64_put(h + 32, body);
	memcpy(h + 40, p->vk_digest, GROTH16_DIGEST);
	memcpy(h + 72, p->circuit, GROTH16_DIGEST);
}

int groth16_params_write(const char *path, const struct groth16_params *p, char *err, size_t errlen)
{
	uint64_t body = params_body_len(p->nvars, p->npub, p->nh);
	size_t len = GROTH16_PARAMS_HEADER + body + GROTH16_DIGEST;
	uint8_t *buf = malloc(len), *q;
	int rc;

	if (!buf)
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory for %zu bytes", path, len);
	header_bytes(buf, p, body);
	q = buf + GROTH16_PARAMS_HEADER;
	vk_bytes(q, &p->vk);
	q += VK_BYTES;
	q = put_g1s(q, p->h, p->nh, 1);
	q = put_g1s(q, p->l, p->nvars - p->npub, 1);
	q = put_g1s(q, p->a, p->nvars, 1);
	q = put_g1s(q, p->b_g1, p->nvars, 1);
	q = put_g2s(q, p->b_g2, p->nvars, 1);
	crypto_generichash(q, GROTH16_DIGEST, buf, (size_t)(q - buf), NULL, 0);
	rc = groth16_write_atomic(path, buf, len, err, errlen);
	free(buf);
	return rc;
}

/* ---- reading -------------------------------------------------------- */

struct decode_job {
	const uint8_t *src;	/* first point */
	void *dst;
	size_t n, stride;	/* points; bytes per encoded point */
	int g2;
	const char *what;
	/* out: the first bad point */
	size_t bad;
	char why[160];
	int failed;
};

static void *decode_run(void *arg)
{
	struct decode_job *j = arg;

	for (size_t i = 0; i < j->n; i++) {
		const uint8_t *s = j->src + i * j->stride;
		int rc = j->g2 ? g2_deserialize_unchecked((g2_affine_t *)j->dst + i, s, j->why, sizeof j->why)
			       : g1_deserialize_unchecked((g1_affine_t *)j->dst + i, s, j->why, sizeof j->why);
		if (rc) {
			j->bad = i;
			j->failed = 1;
			break;
		}
	}
	return NULL;
}

/* Decode n points of one query on every CPU, on the curve only. */
static int decode_query(const uint8_t *src, void *dst, size_t n, int g2, const char *what,
			char *err, size_t errlen)
{
	enum { MAXT = 64 };
	struct decode_job jobs[MAXT];
	pthread_t tid[MAXT];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t stride = g2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED, elem = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
	size_t t = cpus < 1 ? 1 : cpus > MAXT ? MAXT : (size_t)cpus, per, started = 0;

	if (n < 4096)
		t = 1;
	per = (n + t - 1) / t;
	for (size_t i = 0; i < t; i++) {
		size_t lo = i * per, hi = lo + per > n ? n : lo + per;
		jobs[i] = (struct decode_job){ .src = src + lo * stride, .dst = (uint8_t *)dst + lo * elem,
					       .n = hi > lo ? hi - lo : 0, .stride = stride, .g2 = g2 };
		if (i + 1 < t && !pthread_create(&tid[i], NULL, decode_run, &jobs[i]))
			started = i + 1;
		else if (i + 1 < t)
			decode_run(&jobs[i]);
	}
	decode_run(&jobs[t - 1]);
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (size_t i = 0; i < t; i++)
		if (jobs[i].failed)
			return util_fail(err, errlen, -EINVAL, "%s[%zu]: %s", what, i * per + jobs[i].bad,
					 jobs[i].why);
	return 0;
}

static int vk_decode(struct groth16_vk *vk, const uint8_t *q, char *err, size_t errlen)
{
	struct {
		const char *name;
		int g2;
		void *dst;
	} f[] = {
		{ "alpha_g1", 0, &vk->alpha_g1 }, { "beta_g1", 0, &vk->beta_g1 },
		{ "beta_g2", 1, &vk->beta_g2 }, { "gamma_g2", 1, &vk->gamma_g2 },
		{ "delta_g1", 0, &vk->delta_g1 }, { "delta_g2", 1, &vk->delta_g2 },
	};
	char why[160];

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		int rc = f[i].g2 ? g2_deserialize(f[i].dst, q, why, sizeof why)
				 : g1_deserialize(f[i].dst, q, why, sizeof why);
		if (rc)
			return util_fail(err, errlen, -EINVAL, "verifying key %s: %s", f[i].name, why);
		q += f[i].g2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED;
	}
	if (be32_get(q) != GROTH16_NPUB)
		return util_fail(err, errlen, -EINVAL, "verifying key has %u IC points, not %u",
				 be32_get(q), GROTH16_NPUB);
	q += 4;
	for (unsigned i = 0; i < GROTH16_NPUB; i++, q += G1_UNCOMPRESSED)
		if (g1_deserialize(&vk->ic[i], q, why, sizeof why))
			return util_fail(err, errlen, -EINVAL, "verifying key ic[%u]: %s", i, why);
	return 0;
}

/* The header's fields, checked against the circuit they name. */
static int header_parse(struct groth16_params *p, const uint8_t *h, uint64_t *body, char *err, size_t errlen)
{
	uint8_t want[GROTH16_DIGEST];
	uint32_t version = util_le32_get(h + 8);

	if (memcmp(h, params_magic, sizeof params_magic))
		return util_fail(err, errlen, -EINVAL, "not a provisor params file (bad magic)");
	if (version != GROTH16_PARAMS_VERSION)
		return util_fail(err, errlen, -EINVAL, "params format version %u is not %u", version,
				 GROTH16_PARAMS_VERSION);
	p->k = util_le32_get(h + 12);
	p->nvars = util_le32_get(h + 16);
	p->npub = util_le32_get(h + 20);
	p->flags = util_le32_get(h + 24);
	*body = util_le64_get(h + 32);
	if (p->k < SYNTH_LOG_MIN || p->k > VOCAB_LOG_MAX)
		return util_fail(err, errlen, -EINVAL, "log size %u is outside %u..%u", p->k, SYNTH_LOG_MIN,
				 VOCAB_LOG_MAX);
	if (p->npub != GROTH16_NPUB || p->nvars != synth_nvars(p->k))
		return util_fail(err, errlen, -EINVAL,
				 "%u variables and %u public inputs do not match the k=%u circuit (%zu and %u)",
				 p->nvars, p->npub, p->k, synth_nvars(p->k), GROTH16_NPUB);
	if (p->flags & ~GROTH16_FLAG_SEEDED)
		return util_fail(err, errlen, -EINVAL, "unknown flags 0x%x", p->flags);
	for (int i = 28; i < 32; i++)
		if (h[i])
			return util_fail(err, errlen, -EINVAL, "reserved header bytes are not zero");
	for (int i = 104; i < GROTH16_PARAMS_HEADER; i++)
		if (h[i])
			return util_fail(err, errlen, -EINVAL, "reserved header bytes are not zero");
	p->nh = ((size_t)1 << p->k) - 1;
	if (*body != params_body_len(p->nvars, p->npub, p->nh))
		return util_fail(err, errlen, -EINVAL, "body length %llu is not the k=%u circuit's %llu",
				 (unsigned long long)*body, p->k,
				 (unsigned long long)params_body_len(p->nvars, p->npub, p->nh));
	memcpy(p->vk_digest, h + 40, GROTH16_DIGEST);
	memcpy(p->circuit, h + 72, GROTH16_DIGEST);
	groth16_circuit_digest(p->k, want);
	if (memcmp(want, p->circuit, GROTH16_DIGEST))
		return util_fail(err, errlen, -EINVAL, "made for another circuit than provisor's k=%u v2 circuit",
				 p->k);
	return 0;
}

/* The vk part of a buffer that holds at least header + vk. */
static int vk_parse(struct groth16_params *p, const uint8_t *buf, char *err, size_t errlen)
{
	uint8_t d[GROTH16_DIGEST];

	crypto_generichash(d, GROTH16_DIGEST, buf + GROTH16_PARAMS_HEADER, VK_BYTES, NULL, 0);
	if (memcmp(d, p->vk_digest, GROTH16_DIGEST))
		return util_fail(err, errlen, -EINVAL, "verifying key does not match its digest (corrupt)");
	return vk_decode(&p->vk, buf + GROTH16_PARAMS_HEADER, err, errlen);
}

/* One counted query at *q: its count must be n. */
static int query_parse(const uint8_t **q, void *dst, size_t n, int g2, const char *what, char *err,
		       size_t errlen)
{
	if (be32_get(*q) != n)
		return util_fail(err, errlen, -EINVAL, "%s has %u points, not %zu", what, be32_get(*q), n);
	*q += 4;
	if (decode_query(*q, dst, n, g2, what, err, errlen))
		return -EINVAL;
	*q += n * (g2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED);
	return 0;
}

int groth16_params_parse(const uint8_t *buf, size_t len, struct groth16_params *p, int vk_only,
			 char *err, size_t errlen)
{
	uint8_t d[GROTH16_DIGEST];
	uint64_t body = 0;
	const uint8_t *q;
	size_t m;

	memset(p, 0, sizeof *p);
	if (len < GROTH16_PARAMS_HEADER)
		return util_fail(err, errlen, -EINVAL, "truncated: %zu bytes, shorter than the header", len);
	if (header_parse(p, buf, &body, err, errlen))
		return -EINVAL;
	if (vk_only ? len < GROTH16_PARAMS_HEADER + VK_BYTES : len != GROTH16_PARAMS_HEADER + body + GROTH16_DIGEST)
		return util_fail(err, errlen, -EINVAL, "%zu bytes, not the %llu of a k=%u params file", len,
				 (unsigned long long)(GROTH16_PARAMS_HEADER + body + GROTH16_DIGEST), p->k);
	if (vk_parse(p, buf, err, errlen))
		return -EINVAL;
	if (vk_only)
		return 0;
	crypto_generichash(d, GROTH16_DIGEST, buf, GROTH16_PARAMS_HEADER + body, NULL, 0);
	if (memcmp(d, buf + GROTH16_PARAMS_HEADER + body, GROTH16_DIGEST))
		return util_fail(err, errlen, -EINVAL, "checksum mismatch (corrupt or truncated)");
	m = p->nvars;
	p->h = malloc(p->nh * sizeof *p->h);
	p->l = malloc((m - p->npub) * sizeof *p->l);
	p->a = malloc(m * sizeof *p->a);
	p->b_g1 = malloc(m * sizeof *p->b_g1);
	p->b_g2 = malloc(m * sizeof *p->b_g2);
	if (!p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
		groth16_params_free(p);
		return util_fail(err, errlen, -ENOMEM, "out of memory for the k=%u proving key", p->k);
	}
	q = buf + GROTH16_PARAMS_HEADER + VK_BYTES;
	if (query_parse(&q, p->h, p->nh, 0, "h", err, errlen) ||
	    query_parse(&q, p->l, m - p->npub, 0, "l", err, errlen) ||
	    query_parse(&q, p->a, m, 0, "a", err, errlen) ||
	    query_parse(&q, p->b_g1, m, 0, "b_g1", err, errlen) ||
	    query_parse(&q, p->b_g2, m, 1, "b_g2", err, errlen)) {
		groth16_params_free(p);
		return -EINVAL;
	}
	return 0;
}

int groth16_params_read(const char *path, struct groth16_params *p, int vk_only, char *err, size_t errlen)
{
	char why[256];
	struct stat st;
	void *map;
	size_t len;
	int fd, rc;

	fd = util_open_regular(path, 0, err, errlen);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return util_fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	len = (size_t)st.st_size;
	if (len == 0) {
		close(fd);
		return util_fail(err, errlen, -EINVAL, "%s: empty file", path);
	}
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return util_fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	rc = groth16_params_parse(map, len, p, vk_only, why, sizeof why);
	munmap(map, len);
	if (rc)
		return util_fail(err, errlen, rc, "%s: %s", path, why);
	return 0;
}
