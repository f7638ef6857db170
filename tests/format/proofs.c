/*
 * Job proofs files (kind 4) and proofs+H files (kind 5, keep_h): the
 * layout helpers give docs/formats.md's offsets and sizes (the worked
 * example, and k = 27 without a file); a file assembled from them region
 * by region, as the supervisor and its gpuworkers write it, reads back
 * through the region reader (pfile_proofs_open): each proof, each H in
 * pieces, each region against its digest. Each corruption is refused in
 * one line naming the file: a flipped H byte (at its region's check, the
 * right partition named), a flipped proof byte in a proofs file, a
 * stale table, a truncated file, a byte too many, a wrong count, and a
 * file of another kind; a proofs+H file is refused by the readers that
 * would read it whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pfile.h"
#include "synth/synth.h"
#include "tests/helpers.h"
#include "util/util.h"

static char t_dir[64], t_err[512];

static char *t_path(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", t_dir, name);
	return buf[i];
}

static void t_layout(void)
{
	const uint64_t n10 = 1024, n27 = (uint64_t)1 << 27;

	/* docs/formats.md's example: P = 2, k = 10 */
	CHECK_EQ_U64(pfile_res_region(PFILE_KIND_PROOFS_H, 10), 376 + 32 * n10);
	CHECK_EQ_U64(pfile_res_part_off(PFILE_KIND_PROOFS_H, 10, 0), 80);
	CHECK_EQ_U64(pfile_res_part_off(PFILE_KIND_PROOFS_H, 10, 1), 33224);
	CHECK_EQ_U64(pfile_res_table_off(PFILE_KIND_PROOFS_H, 10, 2), 66368);
	CHECK_EQ_U64(pfile_res_size(PFILE_KIND_PROOFS_H, 10, 2), 66464);
	/* a porep job at k = 27: 10 regions of 4 GiB + 376 */
	CHECK_EQ_U64(pfile_res_region(PFILE_KIND_PROOFS_H, 27), 376 + 32 * n27);
	CHECK_EQ_U64(pfile_res_part_off(PFILE_KIND_PROOFS_H, 27, 9), 80 + 9 * (376 + 32 * n27));
	CHECK_EQ_U64(pfile_res_size(PFILE_KIND_PROOFS_H, 27, 10), 80 + 10 * (376 + 32 * n27 + 32) + 32);
	/* the other kinds are as they were */
	CHECK_EQ_U64(pfile_res_size(PFILE_KIND_PROOFS, 27, 10), 4192);
	CHECK_EQ_U64(pfile_res_size(PFILE_KIND_RESULT, 10, 2), pfile_result2_size(10, 2));
	CHECK(pfile_kind_has_proofs(PFILE_KIND_PROOFS_H) && pfile_kind_is_job(PFILE_KIND_PROOFS_H) &&
	      !pfile_kind_has_proofs(PFILE_KIND_RESULT) && pfile_kind_is_job(PFILE_KIND_RESULT) &&
	      !pfile_kind_is_job(PFILE_KIND_H), "kind predicates");
	printf("ok: layout\n");
}

/* A job file of kind at k with parts partitions, assembled piece by piece
 * as the supervisor does: header, each region (a made-up 376-byte "proof"
 * and, kind 5, canonical H) in reverse order, table, checksum. Its bytes
 * in *out (malloc'd), its length returned. */
static size_t t_assemble(const char *name, uint32_t kind, uint32_t k, uint32_t parts, uint8_t **out)
{
	struct pfile_result res = { .job_id = 77, .job_kind = VOCAB_KIND_POREP, .partitions = parts };
	uint64_t size = pfile_res_size(kind, k, parts), region = pfile_res_region(kind, k);
	uint8_t *b = calloc(1, size), hdr[PFILE_HEADER_BYTES];
	uint64_t table = pfile_res_table_off(kind, k, parts);
	int fd;

	CHECK(b, "calloc");
	CHECK(synth_parse_seed(&res.id, "c0ffee") == 0, "seed");
	res.id.k = k;
	pfile_res_header(kind, &res, hdr);
	memcpy(b, hdr, sizeof hdr);
	for (uint32_t q = 0; q < parts; q++) {
		uint32_t p = parts - 1 - q;
		uint8_t *r = b + pfile_res_part_off(kind, k, p);
		struct pfile_digest d;

		for (uint32_t i = 0; i < PFILE_PROOF_REGION; i++)
			r[i] = (uint8_t)(p * 31 + i);
		for (uint64_t i = 0; kind == PFILE_KIND_PROOFS_H && i < ((uint64_t)1 << k); i++) {
			fr_t e;
			fr_from_u64(&e, p * 1000 + i);
			fr_to_bytes(r + PFILE_PROOF_REGION + i * FR_BYTES, &e);
		}
		pfile_digest_init(&d);
		pfile_digest_update(&d, r, region);
		pfile_digest_final(&d, b + table + (uint64_t)p * PFILE_SUM_BYTES);
	}
	pfile_result2_sum(b, b + table, parts, b + table + (uint64_t)parts * PFILE_SUM_BYTES);
	fd = open(t_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, b, size) == (ssize_t)size && close(fd) == 0, "write %s", name);
	*out = b;
	return size;
}

static void t_save(const char *name, const uint8_t *b, size_t len)
{
	int fd = open(t_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, b, len) == (ssize_t)len && close(fd) == 0, "write %s", name);
}

/* Opening name must fail with want in one line naming the file. */
static void t_refused(const char *name, const char *want, const char *what)
{
	struct pfile_result res;
	struct pfile_proofs *r = (struct pfile_proofs *)1;
	uint32_t kind;

	t_err[0] = '\0';
	CHECK(pfile_proofs_open(t_path(name), &res, &kind, &r, t_err, sizeof t_err) < 0, "%s: opened", what);
	CHECK(!r, "%s: a reader handed out on failure", what);
	CHECK(strstr(t_err, want) && strstr(t_err, t_path(name)) && !strchr(t_err, '\n'),
	      "%s: error '%s' does not say '%s'", what, t_err, want);
	printf("  %-26s -> %s\n", what, t_err);
}

static void t_proofs_h(void)
{
	const uint32_t k = 10, parts = 3, n = 1u << k;
	uint8_t *b, proof[PFILE_PROOF_REGION], *h = malloc((size_t)n * FR_BYTES);
	size_t len = t_assemble("ph", PFILE_KIND_PROOFS_H, k, parts, &b);
	struct pfile_result res;
	struct pfile_proofs *r;
	enum pfile_kind probed;
	uint32_t kind;

	CHECK(h, "malloc");
	CHECK(len == pfile_res_size(PFILE_KIND_PROOFS_H, k, parts), "size");
	CHECK(util_le32_get(b + 12) == PFILE_KIND_PROOFS_H && util_le32_get(b + 56) == parts &&
	      util_le64_get(b + 72) == parts, "header: kind 5, P at 56, count P at 72");
	CHECK(pfile_probe(t_path("ph"), &probed, t_err, sizeof t_err) == 0 && probed == PFILE_KIND_PROOFS_H,
	      "probe: %s", t_err);
	CHECK(pfile_proofs_open(t_path("ph"), &res, &kind, &r, t_err, sizeof t_err) == 0, "open: %s", t_err);
	CHECK(kind == PFILE_KIND_PROOFS_H && res.partitions == parts && res.id.k == k && res.job_id == 77 &&
	      res.job_kind == VOCAB_KIND_POREP && res.id.seed_len == 3, "what open says");
	for (uint32_t p = 0; p < parts; p++) {
		const uint8_t *want = b + pfile_res_part_off(kind, k, p);

		CHECK(pfile_proofs_proof(r, p, proof, t_err, sizeof t_err) == 0, "proof %u: %s", p, t_err);
		CHECK(!memcmp(proof, want, sizeof proof), "proof %u's bytes", p);
		CHECK(pfile_proofs_h_read(r, p, 0, h, (size_t)n * FR_BYTES / 2) == 0 &&
		      pfile_proofs_h_read(r, p, (uint64_t)n * FR_BYTES / 2, h + (size_t)n * FR_BYTES / 2,
					  (size_t)n * FR_BYTES / 2) == 0, "H %u read in two pieces", p);
		CHECK(!memcmp(h, want + PFILE_PROOF_REGION, (size_t)n * FR_BYTES), "H %u's bytes", p);
		CHECK(pfile_proofs_check(r, p, t_err, sizeof t_err) == 0, "region %u: %s", p, t_err);
		CHECK(!memcmp(pfile_proofs_digest(r, p), b + pfile_res_table_off(kind, k, parts) + p * 32, 32),
		      "digest %u", p);
	}
	CHECK(pfile_proofs_h_read(r, 0, (uint64_t)n * FR_BYTES - 8, h, 16) == -EINVAL &&
	      pfile_proofs_h_read(r, parts, 0, h, 32) == -EINVAL, "reads past an H or a partition refused");
	CHECK(pfile_proofs_proof(r, parts, proof, t_err, sizeof t_err) == -EINVAL && strstr(t_err, "no partition 3"),
	      "proof of partition P: %s", t_err);
	pfile_proofs_close(r);
	printf("ok: a proofs+H file assembled by regions reads back\n");

	/* one byte of partition 1's H: the table still holds, the region not */
	b[pfile_res_part_off(PFILE_KIND_PROOFS_H, k, 1) + PFILE_PROOF_REGION + 5 * FR_BYTES] ^= 1;
	t_save("ph1", b, len);
	CHECK(pfile_proofs_open(t_path("ph1"), &res, &kind, &r, t_err, sizeof t_err) == 0, "open: %s", t_err);
	CHECK(pfile_proofs_check(r, 0, t_err, sizeof t_err) == 0 && pfile_proofs_check(r, 2, t_err, sizeof t_err) == 0,
	      "sound regions refused: %s", t_err);
	CHECK(pfile_proofs_check(r, 1, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition 1's region does not match its digest (table entry at offset 99544)"),
	      "a flipped H byte: %s", t_err);
	printf("  %-26s -> %s\n", "a flipped H byte", t_err);
	pfile_proofs_close(r);
	b[pfile_res_part_off(PFILE_KIND_PROOFS_H, k, 1) + PFILE_PROOF_REGION + 5 * FR_BYTES] ^= 1;

	/* what open itself refuses */
	b[pfile_res_table_off(PFILE_KIND_PROOFS_H, k, parts)] ^= 1;
	t_save("bad", b, len);
	t_refused("bad", "checksum mismatch: the header or the digest table is corrupt", "a stale table");
	b[pfile_res_table_off(PFILE_KIND_PROOFS_H, k, parts)] ^= 1;
	t_save("bad", b, len - 1);
	t_refused("bad", "truncated: 99639 bytes, header implies 99640", "a truncated file");
	t_save("bad", b, len);
	CHECK(truncate(t_path("bad"), (off_t)len + 1) == 0, "extend");
	t_refused("bad", "(trailing bytes)", "a byte too many");
	util_le64_put(b + 72, (uint64_t)parts << k);	/* count as a result file's */
	t_save("bad", b, len);
	t_refused("bad", "size mismatch: header counts 3072 proofs for 3 partitions", "a result file's count");
	util_le64_put(b + 72, parts);
	/* the whole-file readers are not for it */
	t_save("ph", b, len);
	{
		struct pfile_reader *rr;
		uint8_t *regions;

		CHECK(pfile_proofs_read(t_path("ph"), &res, &regions, t_err, sizeof t_err) == -EINVAL &&
		      strstr(t_err, "is a job proofs+H file, expected a job proofs file"), "proofs_read: %s", t_err);
		CHECK(pfile_result_open(t_path("ph"), &res, &rr, t_err, sizeof t_err) == -EINVAL &&
		      strstr(t_err, "is a job proofs+H file, expected a job result file"), "result_open: %s", t_err);
	}
	free(b);
	free(h);
}

static void t_proofs(void)
{
	uint8_t *b, proof[PFILE_PROOF_REGION];
	size_t len = t_assemble("p4", PFILE_KIND_PROOFS, 12, 2, &b);
	struct pfile_result res;
	struct pfile_proofs *r;
	uint32_t kind;

	CHECK(len == 80 + 2 * 408 + 32, "a proofs file's size");
	CHECK(pfile_proofs_open(t_path("p4"), &res, &kind, &r, t_err, sizeof t_err) == 0 && kind == PFILE_KIND_PROOFS,
	      "open: %s", t_err);
	CHECK(pfile_proofs_proof(r, 1, proof, t_err, sizeof t_err) == 0 && pfile_proofs_check(r, 1, t_err,
	      sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_proofs_h_read(r, 0, 0, proof, 32) == -EINVAL, "an H read from a proofs file");
	pfile_proofs_close(r);
	b[80 + 376 + 100] ^= 1;
	t_save("p4", b, len);
	CHECK(pfile_proofs_open(t_path("p4"), &res, &kind, &r, t_err, sizeof t_err) == 0, "open: %s", t_err);
	CHECK(pfile_proofs_proof(r, 1, proof, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition 1's proof does not match its digest"), "a flipped proof byte: %s", t_err);
	pfile_proofs_close(r);
	free(b);
	/* a result file is not a proofs file */
	t_assemble("r3", PFILE_KIND_RESULT, 4, 1, &b);
	free(b);
	t_refused("r3", "is a job result file, expected a job proofs file", "a result file");
	printf("ok: proofs files through the region reader\n");
}

static void t_cleanup(void)
{
	const char *names[] = { "ph", "ph1", "bad", "p4", "r3" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(t_path(names[i]));
	rmdir(t_dir);
}

int main(void)
{
	snprintf(t_dir, sizeof t_dir, "%s/provisor-proofs.XXXXXX", t_tmpdir());
	CHECK(mkdtemp(t_dir), "mkdtemp");
	atexit(t_cleanup);
	t_layout();
	t_proofs_h();
	t_proofs();
	printf("ok\n");
	return 0;
}
