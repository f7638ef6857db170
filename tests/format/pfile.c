/*
 * The file formats: partition, H and result files round-trip bit for bit;
 * the header sits at the documented offsets; each corruption (truncated,
 * wrong magic, wrong version, wrong kind, non-canonical element, size
 * mismatch, k out of range, bad seed length or padding, checksum) is
 * refused with its own error; writers leave no temp file behind, on
 * success or failure. Files of format versions 1 and 2 (circuit v1) are
 * refused as such, whatever their kind, and never written.
 *
 * Result files (version 3, the digest-table layout): the refusals (length, header, table,
 * checksum, a partition against its digest, a non-canonical element
 * whose digest matches) each have their own error, also when the file
 * changes after open. The layout helpers agree with the streaming writer
 * byte for byte, and a file built from the helpers alone, partitions
 * written in any order as the supervisor and its gpuworkers will, reads
 * back whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pfile.h"
#include "synth/synth.h"
#include "tests/helpers.h"

static char t_dir[64];
static char t_err[512];

static char *t_path(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", t_dir, name);
	return buf[i];
}

static size_t t_load(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	long len;

	CHECK(f, "open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = malloc((size_t)len + 1);
	CHECK(*out && fread(*out, 1, (size_t)len, f) == (size_t)len, "read %s", path);
	fclose(f);
	return (size_t)len;
}

static void t_save(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0, "write %s", path);
}

/* Entries of t_dir (temp files would show up here). */
static int t_count_files(void)
{
	DIR *d = opendir(t_dir);
	struct dirent *e;
	int n = 0;

	CHECK(d, "opendir");
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static struct synth_id t_id(uint32_t k)
{
	struct synth_id id;

	memset(&id, 0, sizeof id);
	CHECK(synth_parse_seed(&id, "a1b2c3") == 0, "seed");
	id.partition = 5;
	id.k = k;
	return id;
}

static void t_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute a corrupted file's checksum so that only the corruption under
 * test is there to find. */
static void t_reseal(uint8_t *buf, size_t len)
{
	crypto_generichash(buf + len - PFILE_SUM_BYTES, PFILE_SUM_BYTES, buf,
			   len - PFILE_SUM_BYTES, NULL, 0);
}

static void t_roundtrip(void)
{
	struct synth_id id = t_id(5), back;
	size_t n = 32;
	fr_t a[32], b[32], c[32], *ra, *rb, *rc, *rh;
	uint8_t *raw;
	size_t len;
	enum pfile_kind kind;

	CHECK(synth_partition(&id, a, b, c) == 0, "synth");
	CHECK(pfile_write_partition(t_path("p"), &id, a, b, c, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(t_count_files() == 1, "temp file left behind");
	CHECK(pfile_read_partition(t_path("p"), &back, &ra, &rb, &rc, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(!memcmp(&back, &id, sizeof id), "identity changed");
	CHECK(!memcmp(ra, a, sizeof a) && !memcmp(rb, b, sizeof b) && !memcmp(rc, c, sizeof c), "a, b, c changed");
	free(ra);
	free(rb);
	free(rc);
	CHECK(pfile_probe(t_path("p"), &kind, t_err, sizeof t_err) == 0 && kind == PFILE_KIND_PARTITION, "probe");

	/* Byte layout (docs/formats.md). */
	len = t_load(t_path("p"), &raw);
	CHECK_EQ_U64(len, PFILE_HEADER_BYTES + 3 * n * FR_BYTES + PFILE_SUM_BYTES);
	CHECK(!memcmp(raw, "PROVISOR", 8), "magic");
	CHECK(raw[8] == 3 && raw[12] == PFILE_KIND_PARTITION && raw[16] == 5 && raw[20] == 3, "header words");
	CHECK(raw[24] == 0xa1 && raw[26] == 0xc3 && raw[27] == 0 && raw[56] == 5 && raw[72] == 3 * n, "header fields");
	{
		uint8_t e[FR_BYTES];
		fr_to_bytes(e, &b[1]);
		CHECK(!memcmp(raw + PFILE_HEADER_BYTES + (n + 1) * FR_BYTES, e, FR_BYTES), "b[1] position");
	}
	free(raw);

	/* An H file with the same identity. */
	CHECK(pfile_write_h(t_path("h"), &id, a, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_read_h(t_path("h"), &back, &rh, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(!memcmp(&back, &id, sizeof id) && !memcmp(rh, a, sizeof a), "H round trip");
	free(rh);
	/* Overwriting is atomic replacement, not an error. */
	CHECK(pfile_write_h(t_path("h"), &id, b, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(t_count_files() == 2, "temp file left behind");
}

static void t_result(void)
{
	struct pfile_result res = { .job_id = 0x1122334455667788ULL, .job_kind = VOCAB_KIND_SNAP_DEALS,
				    .partitions = 3, .id = t_id(4) }, back;
	struct pfile_writer *w;
	struct pfile_reader *r;
	fr_t h[3][16], got[16];
	uint8_t bytes[16 * FR_BYTES];
	uint32_t kind;
	enum pfile_kind pk;
	int files = t_count_files();

	res.id.partition = 0;
	for (int p = 0; p < 3; p++)
		for (int i = 0; i < 16; i++)
			fr_from_u64(&h[p][i], (uint64_t)(p * 1000 + i));
	CHECK(pfile_result_begin(t_path("r"), &res, &w, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[0], t_err, sizeof t_err) == 0, "%s", t_err);
	for (int i = 0; i < 16; i++)
		fr_to_bytes(bytes + i * FR_BYTES, &h[1][i]);
	/* A refused put (last element not canonical) writes nothing: the
	 * same partition, whole, goes in next and the digests still hold. */
	{
		uint8_t bad[16 * FR_BYTES];
		memcpy(bad, bytes, sizeof bad);
		memset(bad + 15 * FR_BYTES, 0xff, FR_BYTES);
		CHECK(pfile_result_put_bytes(w, bad, t_err, sizeof t_err) == -EINVAL &&
		      strstr(t_err, "element 15 given to the writer is not canonical"), "%s", t_err);
	}
	CHECK(pfile_result_put_bytes(w, bytes, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[2], t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[2], t_err, sizeof t_err) == -EINVAL, "a fourth partition accepted");
	CHECK(pfile_result_commit(w, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(t_count_files() == files + 1, "temp file left behind");

	CHECK(pfile_result_open(t_path("r"), &back, &r, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(back.job_id == res.job_id && back.job_kind == res.job_kind && back.partitions == 3 &&
	      !memcmp(&back.id, &res.id, sizeof res.id), "result header round trip");
	CHECK(back.version == PFILE_VERSION && PFILE_VERSION == 3, "version %u written, expected 3",
	      back.version);
	for (uint32_t p = 0; p < 3; p++) {
		CHECK(pfile_result_read(r, p, got, t_err, sizeof t_err) == 0, "%s", t_err);
		CHECK(!memcmp(got, h[p], sizeof got), "partition %u H", p);
	}
	CHECK(pfile_result_read(r, 3, got, t_err, sizeof t_err) == -EINVAL, "partition 3 of 3");
	pfile_result_close(r);
	{
		uint8_t *raw;
		size_t len = t_load(t_path("r"), &raw);
		CHECK_EQ_U64(len, pfile_result2_size(4, 3));
		CHECK_EQ_U64(len, 80 + 3 * 16 * 32 + 3 * 32 + 32);
		CHECK(raw[8] == 3 && raw[12] == PFILE_KIND_RESULT && raw[56] == 3 &&
		      raw[60] == VOCAB_KIND_SNAP_DEALS && raw[64] == 0x88 && raw[72] == 48,
		      "v3 header fields");
		free(raw);
	}
	CHECK(pfile_probe(t_path("r"), &pk, t_err, sizeof t_err) == 0 && pk == PFILE_KIND_RESULT,
	      "%s", t_err);

	/* Versions 1 and 2 (circuit v1) are never written. */
	for (uint32_t v = 1; v <= 2; v++) {
		res.version = v;
		CHECK(pfile_result_begin(t_path("r1"), &res, &w, t_err, sizeof t_err) == -EINVAL &&
		      strstr(t_err, "bad result"), "writer took version %u: %s", v, t_err);
	}
	res.version = 4;
	CHECK(pfile_result_begin(t_path("r3"), &res, &w, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "version 4"), "writer took version 4: %s", t_err);
	res.version = 0;
	CHECK(t_count_files() == files + 1, "a refused writer left a file");

	/* Too few partitions: commit fails and leaves nothing. */
	CHECK(pfile_result_begin(t_path("r2"), &res, &w, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[0], t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_commit(w, t_err, sizeof t_err) == -EINVAL && strstr(t_err, "missing"), "%s", t_err);
	/* A non-canonical encoding is refused; abort leaves nothing. */
	CHECK(pfile_result_begin(t_path("r3"), &res, &w, t_err, sizeof t_err) == 0, "%s", t_err);
	memset(bytes, 0xff, FR_BYTES);
	CHECK(pfile_result_put_bytes(w, bytes, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "not canonical"), "%s", t_err);
	pfile_result_abort(w);
	CHECK(t_count_files() == files + 1, "failed writers left files");

	/* Bad arguments, and a directory that does not exist. */
	res.job_kind = 99;
	CHECK(pfile_result_begin(t_path("r4"), &res, &w, t_err, sizeof t_err) == -EINVAL, "job kind 99");
	res.job_kind = VOCAB_KIND_POREP;
	res.partitions = 0;
	CHECK(pfile_result_begin(t_path("r4"), &res, &w, t_err, sizeof t_err) == -EINVAL, "0 partitions");
	res.partitions = 1;
	CHECK(pfile_result_begin("/nonexistent-dir/r", &res, &w, t_err, sizeof t_err) == -ENOENT &&
	      strstr(t_err, "/nonexistent-dir/r"), "%s", t_err);
	CHECK(vocab_kind_parse("porep", &kind) == 0 && kind == VOCAB_KIND_POREP, "parse porep");
	CHECK(vocab_kind_parse("nope", &kind) == -EINVAL, "parse nope");
	CHECK(!strcmp(vocab_kind_name(VOCAB_KIND_WINNING_POST), "winning-post"), "name");
}

/* Write buf as file "bad", read it as a partition file, and expect the
 * error to contain want. */
static void t_expect(const uint8_t *buf, size_t len, const char *want, const char *what)
{
	struct synth_id id;
	fr_t *a = NULL, *b = NULL, *c = NULL;
	int rc;

	t_save(t_path("bad"), buf, len);
	t_err[0] = '\0';
	rc = pfile_read_partition(t_path("bad"), &id, &a, &b, &c, t_err, sizeof t_err);
	CHECK(rc == -EINVAL, "%s: accepted (rc %d)", what, rc);
	CHECK(strstr(t_err, want) && strstr(t_err, t_path("bad")) && !strchr(t_err, '\n'),
	      "%s: error '%s' does not say '%s'", what, t_err, want);
	CHECK(!a && !b && !c, "%s: arrays handed out on failure", what);
	printf("  %-28s -> %s\n", what, t_err);
}

static void t_corrupt(void)
{
	uint8_t *good, *buf;
	size_t len = t_load(t_path("p"), &good), n = 32;
	size_t el = PFILE_HEADER_BYTES + (2 * n + 7) * FR_BYTES;	/* c[7] */
	struct synth_id id;
	fr_t *h;

	buf = malloc(len + 64);
	CHECK(buf, "malloc");
#define RESET() memcpy(buf, good, len)

	RESET();
	t_expect(buf, 0, "empty", "empty file");
	t_expect(buf, 40, "truncated", "cut inside the header");
	t_expect(buf, len - 1, "truncated", "last byte missing");
	t_expect(buf, len - 100, "truncated", "cut inside the payload");
	RESET();
	buf[len] = 0;
	t_expect(buf, len + 1, "size mismatch", "one trailing byte");

	RESET();
	buf[0] = 'X';
	t_expect(buf, len, "bad magic", "wrong magic");
	t_expect((const uint8_t *)"hello", 5, "bad magic", "short text file");
	/* Circuit v1's versions, checksum resealed or not: refused as old. */
	for (uint32_t v = 1; v <= 2; v++) {
		char want[128];
		snprintf(want, sizeof want, "format version %u (circuit v1) is no longer accepted: "
			 "re-synthesize with this provisor", v);
		RESET();
		t_put32(buf + 8, v);
		t_expect(buf, len, want, "circuit v1 version");
		t_reseal(buf, len);
		t_expect(buf, len, want, "circuit v1 version, resealed");
	}
	RESET();
	t_put32(buf + 8, 4);
	t_expect(buf, len, "unsupported format version 4 (this provisor reads version 3)",
		 "future version");
	RESET();
	t_put32(buf + 8, 0);
	t_expect(buf, len, "unsupported format version 0", "version 0");
	RESET();
	t_put32(buf + 12, PFILE_KIND_H);
	t_expect(buf, len, "is an H file, expected a partition file", "wrong kind");
	RESET();
	t_put32(buf + 12, 9);
	t_expect(buf, len, "unknown file kind 9", "unknown kind");

	RESET();
	t_put32(buf + 16, 28);
	t_reseal(buf, len);
	t_expect(buf, len, "k = 28 out of range 3..27", "k = 28");
	RESET();
	t_put32(buf + 16, 2);
	t_reseal(buf, len);
	t_expect(buf, len, "k = 2 out of range 3..27", "k = 2");
	RESET();
	t_put32(buf + 16, 0);
	t_reseal(buf, len);
	t_expect(buf, len, "k = 0 out of range", "k = 0");
	RESET();
	t_put32(buf + 16, 4);	/* k says 16 elements, count and length say 32 */
	t_reseal(buf, len);
	t_expect(buf, len, "size mismatch: header counts 96 elements, k = 4 implies 48", "k vs count");
	RESET();
	t_put32(buf + 72, 95);
	t_reseal(buf, len);
	t_expect(buf, len, "size mismatch", "element count");
	RESET();
	t_put32(buf + 20, 0);
	t_reseal(buf, len);
	t_expect(buf, len, "seed length 0 out of range", "seed length 0");
	RESET();
	t_put32(buf + 20, 33);
	t_expect(buf, len, "seed length 33", "seed length 33");
	RESET();
	buf[24 + 31] = 1;
	t_reseal(buf, len);
	t_expect(buf, len, "seed padding", "seed padding");
	RESET();
	buf[64] = 1;
	t_reseal(buf, len);
	t_expect(buf, len, "reserved header bytes", "reserved bytes");

	RESET();
	memset(buf + el, 0xff, FR_BYTES);
	t_reseal(buf, len);
	t_expect(buf, len, "element c[7] at offset", "all-ones element");
	RESET();
	/* r itself: the smallest non-canonical value. */
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			buf[el + 8 * i + j] = (uint8_t)(FR_MODULUS[i] >> (8 * j));
	t_expect(buf, len, "not canonical", "element = r (stale sum)");

	RESET();
	buf[el] ^= 1;	/* low bit: still canonical, so only the checksum sees it */
	t_expect(buf, len, "checksum mismatch", "flipped payload bit");
	RESET();
	buf[len - 1] ^= 0x80;
	t_expect(buf, len, "checksum mismatch", "flipped checksum bit");
	RESET();
	buf[56] ^= 1;	/* partition index: canonical header, stale sum */
	t_expect(buf, len, "checksum mismatch", "partition index changed");

	/* The H reader refuses a partition file. */
	CHECK(pfile_read_h(t_path("p"), &id, &h, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "is a partition file, expected an H file"), "%s", t_err);
	/* Missing file, directory. */
	CHECK(pfile_read_h(t_path("none"), &id, &h, t_err, sizeof t_err) == -ENOENT &&
	      strstr(t_err, "cannot open"), "%s", t_err);
	CHECK(pfile_read_h(t_dir, &id, &h, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "not a regular file"), "%s", t_err);
	free(buf);
	free(good);
#undef RESET
}

/*
 * Result files: the digest-table layout.
 */

/* Recompute a result file's digest table from its regions and its checksum
 * from header and table, with the layout helpers: only the corruption
 * under test is left to find. */
static void t_reseal2(uint8_t *buf, uint32_t k, uint32_t parts)
{
	uint64_t table = pfile_result2_table_off(k, parts);
	struct pfile_digest d;

	for (uint32_t p = 0; p < parts; p++) {
		pfile_digest_init(&d);
		pfile_digest_update(&d, buf + pfile_result2_part_off(k, p), (size_t)FR_BYTES << k);
		pfile_digest_final(&d, buf + table + (uint64_t)p * PFILE_SUM_BYTES);
	}
	pfile_result2_sum(buf, buf + table, parts, buf + table + (uint64_t)parts * PFILE_SUM_BYTES);
}

/* Write buf as "rbad", open it as a result file, expect an error with want. */
static void t_expect_result(const uint8_t *buf, size_t len, const char *want, const char *what)
{
	struct pfile_result res;
	struct pfile_reader *r = NULL;
	int rc;

	t_save(t_path("rbad"), buf, len);
	t_err[0] = '\0';
	rc = pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err);
	CHECK(rc == -EINVAL, "%s: accepted (rc %d)", what, rc);
	CHECK(strstr(t_err, want) && strstr(t_err, t_path("rbad")) && !strchr(t_err, '\n'),
	      "%s: error '%s' does not say '%s'", what, t_err, want);
	CHECK(!r, "%s: reader handed out on failure", what);
	printf("  %-28s -> %s\n", what, t_err);
}

/* "r" is t_result's: k = 4, 3 partitions, version 3. */
static void t_result2_corrupt(void)
{
	const uint32_t k = 4, parts = 3;
	uint64_t table = pfile_result2_table_off(k, parts), sum = table + parts * PFILE_SUM_BYTES;
	uint64_t el = pfile_result2_part_off(k, 2) + 3 * FR_BYTES;	/* partition 2, H[3] */
	struct pfile_result res;
	struct pfile_reader *r;
	uint8_t *good, *buf;
	size_t len = t_load(t_path("r"), &good);
	fr_t got[16];
	int fd;

	CHECK_EQ_U64(len, sum + PFILE_SUM_BYTES);
	buf = calloc(1, len + 64);
	CHECK(buf, "malloc");
#define RESET() memcpy(buf, good, len)
	/* A resealed copy is a good file: t_reseal2 seals what the writer does. */
	RESET();
	t_reseal2(buf, k, parts);
	CHECK(!memcmp(buf, good, len), "the writer's table or checksum differ from the helpers'");

	RESET();
	t_put32(buf + 8, 4);
	t_expect_result(buf, len, "unsupported format version 4", "version 4");
	RESET();
	t_put32(buf + 8, 0);
	t_expect_result(buf, len, "unsupported format version 0", "version 0");
	/* The result files older provisors wrote, in either layout. */
	RESET();
	t_put32(buf + 8, 2);
	t_reseal2(buf, k, parts);
	t_expect_result(buf, len, "format version 2 (circuit v1) is no longer accepted: run the job "
			"again with this provisor", "circuit v1 result (v2)");
	t_put32(buf + 8, 1);
	t_expect_result(buf, len - parts * PFILE_SUM_BYTES,
			"format version 1 (circuit v1) is no longer accepted", "circuit v1 result (v1)");
	RESET();
	t_expect_result(buf, len - 1, "truncated", "v2 last byte missing");
	t_expect_result(buf, table, "truncated", "v2 without table");
	t_expect_result(buf, 100, "truncated", "v2 cut in the payload");
	t_expect_result(buf, len + 1, "trailing bytes", "v2 one trailing byte");
	t_expect_result(buf, len + 32, "trailing bytes", "v2 one entry too many");

	RESET();
	buf[64] ^= 1;	/* job id */
	t_expect_result(buf, len, "checksum mismatch: the header or the digest table", "v2 header byte");
	RESET();
	buf[24] ^= 0x10;	/* seed: the identity changed */
	t_expect_result(buf, len, "checksum mismatch", "v2 seed byte");
	RESET();
	buf[table + PFILE_SUM_BYTES + 5] ^= 1;	/* partition 1's entry */
	t_expect_result(buf, len, "checksum mismatch", "v2 table byte");
	RESET();
	buf[len - 1] ^= 0x80;
	t_expect_result(buf, len, "checksum mismatch", "v2 checksum byte");
	RESET();
	buf[table + PFILE_SUM_BYTES + 5] ^= 1;	/* entry changed, checksum resealed */
	pfile_result2_sum(buf, buf + table, parts, buf + sum);
	t_expect_result(buf, len, "partition 1's H does not match its digest", "v2 stale entry");

	RESET();
	buf[el] ^= 1;	/* low bit: still canonical, only the digest sees it */
	t_expect_result(buf, len, "partition 2's H does not match its digest (table entry at offset 1680)",
			"v2 payload bit");
	RESET();
	buf[pfile_result2_part_off(k, 0)] ^= 1;
	t_expect_result(buf, len, "partition 0's H does not match", "v2 first payload byte");
	RESET();
	buf[table - 1] ^= 0x01;	/* the top byte of the last element */
	t_expect_result(buf, len, "partition 2's H does not match", "v2 last payload byte");
	RESET();
	memset(buf + el, 0xff, FR_BYTES);	/* digest and checksum match it */
	t_reseal2(buf, k, parts);
	t_expect_result(buf, len, "element partition 2 H[3] at offset 1200 is not canonical",
			"v2 non-canonical, sealed");
	RESET();
	memset(buf + el, 0xff, FR_BYTES);	/* stale digest: canonicity is named first */
	t_expect_result(buf, len, "is not canonical", "v2 non-canonical, stale");

	/* Header checks come before the checksum, as in v1. */
	RESET();
	t_put32(buf + 56, 0);
	t_expect_result(buf, len, "partition count 0", "v2 0 partitions");
	RESET();
	t_put32(buf + 16, 28);
	t_expect_result(buf, len, "k = 28 out of range", "v2 k = 28");
	RESET();
	t_put32(buf + 56, 2);	/* two partitions claimed, three stored */
	t_put32(buf + 72, 32);
	t_expect_result(buf, len, "trailing bytes", "v2 2 of 3 partitions");
	RESET();
	t_put32(buf + 60, 9);
	t_expect_result(buf, len, "unknown job kind 9", "v2 job kind 9");

	/* An H file of circuit v1 (version 1), resealed. */
	{
		uint8_t *h;
		size_t hl = t_load(t_path("h"), &h);
		struct synth_id id;
		fr_t *hv = NULL;
		t_put32(h + 8, 1);
		t_reseal(h, hl);
		t_save(t_path("hbad"), h, hl);
		CHECK(pfile_read_h(t_path("hbad"), &id, &hv, t_err, sizeof t_err) == -EINVAL &&
		      strstr(t_err, "format version 1 (circuit v1) is no longer accepted: re-synthesize"),
		      "%s", t_err);
		free(h);
	}

	/* The file changes after open: read checks that partition again. */
	RESET();
	t_save(t_path("rlive"), buf, len);
	CHECK(pfile_result_open(t_path("rlive"), &res, &r, t_err, sizeof t_err) == 0, "%s", t_err);
	fd = open(t_path("rlive"), O_WRONLY);
	CHECK(fd >= 0, "open rlive");
	buf[el] ^= 1;
	CHECK(pwrite(fd, buf + el, 1, (off_t)el) == 1, "pwrite");
	CHECK(pfile_result_read(r, 1, got, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_read(r, 2, got, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition 2's H does not match its digest") &&
	      strstr(t_err, "file changed after validation"), "%s", t_err);
	printf("  %-28s -> %s\n", "v2 changed after open", t_err);
	memset(buf + el, 0xff, FR_BYTES);
	CHECK(pwrite(fd, buf + el, FR_BYTES, (off_t)el) == FR_BYTES, "pwrite");
	CHECK(pfile_result_read(r, 2, got, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition 2 H[3]") && strstr(t_err, "not canonical") &&
	      strstr(t_err, "file changed after validation"), "%s", t_err);
	CHECK(ftruncate(fd, (off_t)pfile_result2_part_off(k, 2) + 8) == 0, "ftruncate");
	CHECK(pfile_result_read(r, 2, got, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "truncated"), "%s", t_err);
	close(fd);
	pfile_result_close(r);
	free(buf);
	free(good);
#undef RESET
}

static void t_fill(fr_t *h, uint64_t n, uint64_t *s)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t l[4] = { t_rand(s), t_rand(s), t_rand(s), t_rand(s) >> 4 };
		CHECK(fr_from_limbs(&h[i], l) == 0, "limbs");
	}
}

/*
 * The layout helpers agree with the streaming writer: its header is
 * pfile_result2_header's, each region sits at pfile_result2_part_off and
 * hashes to its table entry at pfile_result2_table_off, the checksum is
 * pfile_result2_sum's. Then partition 1 is replaced in place the way a
 * gpuworker will write it (pwrite at its offset, digest as it goes) and
 * the file resealed the way the supervisor will (entry, sum): read back.
 */
static void t_result2_layout(void)
{
	const uint32_t k = 5, parts = 4;
	const uint64_t n = 1u << k;
	struct pfile_result res = { .job_id = 42, .job_kind = VOCAB_KIND_POREP, .partitions = parts,
				    .id = t_id(k) }, back;
	uint8_t hdr[PFILE_HEADER_BYTES], dig[PFILE_SUM_BYTES], enc[32 * FR_BYTES];
	uint64_t table = pfile_result2_table_off(k, parts), seed = 7;
	struct pfile_writer *w;
	struct pfile_reader *r;
	struct pfile_digest d;
	fr_t h[4][32], got[32];
	uint8_t *raw;
	size_t len;
	int fd;

	res.id.partition = 0;
	CHECK_EQ_U64(pfile_result2_part_off(k, 0), 80);
	CHECK_EQ_U64(pfile_result2_part_off(k, 3), 80 + 3 * 32 * 32);
	CHECK_EQ_U64(table, 80 + 4 * 32 * 32);
	CHECK_EQ_U64(pfile_result2_size(k, parts), table + 4 * 32 + 32);
	CHECK_EQ_U64(pfile_result2_size(26, 1024), 80 + (1024ull << 31) + 1024 * 32 + 32);
	/* k = 27, a Filecoin partition: 4 GiB of H a partition, past 32 bits */
	CHECK_EQ_U64(pfile_result2_size(27, 1024), 80 + (1024ull << 32) + 1024 * 32 + 32);
	CHECK_EQ_U64(pfile_result2_size(27, 10), 80 + (10ull << 32) + 10 * 32 + 32);
	CHECK_EQ_U64(pfile_result2_table_off(27, 10), pfile_result2_part_off(27, 10));
	CHECK_EQ_U64(pfile_result2_table_off(26, 1024), pfile_result2_part_off(26, 1024));

	for (uint32_t p = 0; p < parts; p++)
		t_fill(h[p], n, &seed);
	CHECK(pfile_result_begin(t_path("rl"), &res, &w, t_err, sizeof t_err) == 0, "%s", t_err);
	for (uint32_t p = 0; p < parts; p++)
		CHECK(pfile_result_put(w, h[p], t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_commit(w, t_err, sizeof t_err) == 0, "%s", t_err);

	len = t_load(t_path("rl"), &raw);
	CHECK_EQ_U64(len, pfile_result2_size(k, parts));
	res.version = 1;	/* ignored by the helper: it always writes 3 */
	pfile_result2_header(&res, hdr);
	res.version = 0;
	CHECK(!memcmp(raw, hdr, sizeof hdr), "header differs from pfile_result2_header");
	for (uint32_t p = 0; p < parts; p++) {
		for (uint64_t i = 0; i < n; i++)
			fr_to_bytes(enc + i * FR_BYTES, &h[p][i]);
		CHECK(!memcmp(raw + pfile_result2_part_off(k, p), enc, n * FR_BYTES),
		      "partition %u not at pfile_result2_part_off", p);
		pfile_digest_init(&d);
		pfile_digest_update(&d, enc, n * FR_BYTES);
		pfile_digest_final(&d, dig);
		CHECK(!memcmp(raw + table + p * PFILE_SUM_BYTES, dig, sizeof dig),
		      "table entry %u is not the digest of its region", p);
	}
	pfile_result2_sum(hdr, raw + table, parts, dig);
	CHECK(!memcmp(raw + len - PFILE_SUM_BYTES, dig, sizeof dig), "checksum differs");
	free(raw);

	/* Replace partition 1 in place: region, entry, checksum. */
	t_fill(h[1], n, &seed);
	for (uint64_t i = 0; i < n; i++)
		fr_to_bytes(enc + i * FR_BYTES, &h[1][i]);
	fd = open(t_path("rl"), O_RDWR);
	CHECK(fd >= 0, "open rl");
	pfile_digest_init(&d);
	for (uint64_t off = 0; off < n * FR_BYTES; off += 96) {	/* any split */
		size_t m = n * FR_BYTES - off < 96 ? n * FR_BYTES - off : 96;
		CHECK(pwrite(fd, enc + off, m, (off_t)(pfile_result2_part_off(k, 1) + off)) == (ssize_t)m,
		      "pwrite region");
		pfile_digest_update(&d, enc + off, m);
	}
	pfile_digest_final(&d, dig);
	CHECK(pwrite(fd, dig, sizeof dig, (off_t)(table + PFILE_SUM_BYTES)) == sizeof dig, "pwrite entry");
	{
		uint8_t tab[4 * PFILE_SUM_BYTES], sum[PFILE_SUM_BYTES];
		CHECK(pread(fd, tab, sizeof tab, (off_t)table) == sizeof tab, "pread table");
		pfile_result2_sum(hdr, tab, parts, sum);
		CHECK(pwrite(fd, sum, sizeof sum, (off_t)(table + sizeof tab)) == sizeof sum, "pwrite sum");
	}
	close(fd);
	CHECK(pfile_result_open(t_path("rl"), &back, &r, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(back.version == 3 && back.job_id == 42 && back.partitions == parts, "header back");
	for (uint32_t p = 0; p < parts; p++) {
		CHECK(pfile_result_read(r, p, got, t_err, sizeof t_err) == 0, "%s", t_err);
		CHECK(!memcmp(got, h[p], n * sizeof(fr_t)), "partition %u after in-place rewrite", p);
	}
	pfile_result_close(r);
	unlink(t_path("rl"));
}

/*
 * The supervisor's path, with nothing but the helpers: the header from
 * pfile_result2_header, each partition's region written by "its worker"
 * with pwrite at its offset, in an order of their own (last first), its
 * digest from pfile_digest_*, then the table and the checksum. Sizes
 * cover many partitions per read buffer (k = 3, 1024 partitions), one
 * exactly (k = 12) and several buffers per partition (k = 13).
 */
static void t_result2_assemble(uint32_t k, uint32_t parts)
{
	const uint64_t n = (uint64_t)1 << k;
	struct pfile_result res = { .job_id = 1000 + k, .job_kind = VOCAB_KIND_WINDOW_POST,
				    .partitions = parts, .id = t_id(k) }, back;
	uint8_t hdr[PFILE_HEADER_BYTES], sum[PFILE_SUM_BYTES], *table, *enc;
	uint64_t seed = 99 + k;
	struct pfile_reader *r;
	fr_t *h, *got;
	int fd;

	res.id.partition = 0;
	h = malloc(sizeof(fr_t) * n * parts);
	got = malloc(sizeof(fr_t) * n);
	enc = malloc(n * FR_BYTES);
	table = malloc((size_t)parts * PFILE_SUM_BYTES);
	CHECK(h && got && enc && table, "malloc");
	t_fill(h, n * parts, &seed);

	fd = open(t_path("ra"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "create ra");
	pfile_result2_header(&res, hdr);
	CHECK(pwrite(fd, hdr, sizeof hdr, 0) == sizeof hdr, "pwrite header");
	for (uint32_t q = 0; q < parts; q++) {
		uint32_t p = parts - 1 - q;
		struct pfile_digest d;
		for (uint64_t i = 0; i < n; i++)
			fr_to_bytes(enc + i * FR_BYTES, &h[p * n + i]);
		CHECK(pwrite(fd, enc, n * FR_BYTES, (off_t)pfile_result2_part_off(k, p)) ==
		      (ssize_t)(n * FR_BYTES), "pwrite partition %u", p);
		pfile_digest_init(&d);
		pfile_digest_update(&d, enc, n * FR_BYTES);
		pfile_digest_final(&d, table + (size_t)p * PFILE_SUM_BYTES);
	}
	CHECK(pwrite(fd, table, (size_t)parts * PFILE_SUM_BYTES,
		     (off_t)pfile_result2_table_off(k, parts)) == (ssize_t)parts * PFILE_SUM_BYTES,
	      "pwrite table");
	pfile_result2_sum(hdr, table, parts, sum);
	CHECK(pwrite(fd, sum, sizeof sum, (off_t)(pfile_result2_table_off(k, parts) +
						    (uint64_t)parts * PFILE_SUM_BYTES)) == sizeof sum,
	      "pwrite sum");
	close(fd);

	CHECK(pfile_result_open(t_path("ra"), &back, &r, t_err, sizeof t_err) == 0, "k=%u P=%u: %s",
	      k, parts, t_err);
	CHECK(back.version == 3 && back.job_id == res.job_id && back.job_kind == res.job_kind &&
	      back.partitions == parts && !memcmp(&back.id, &res.id, sizeof res.id),
	      "k=%u P=%u: header back", k, parts);
	for (uint32_t p = 0; p < parts; p++) {
		CHECK(pfile_result_read(r, p, got, t_err, sizeof t_err) == 0, "%s", t_err);
		CHECK(!memcmp(got, h + (uint64_t)p * n, n * sizeof(fr_t)), "k=%u partition %u", k, p);
	}
	pfile_result_close(r);

	/* One flipped bit in the last partition's region: the right one is named. */
	{
		uint8_t *raw;
		size_t len = t_load(t_path("ra"), &raw);
		char want[64];
		raw[pfile_result2_part_off(k, parts - 1) + (n / 2) * FR_BYTES] ^= 1;
		snprintf(want, sizeof want, "partition %u's H does not match its digest", parts - 1);
		t_expect_result(raw, len, want, "assembled, last partition");
		free(raw);
	}
	unlink(t_path("ra"));
	free(h);
	free(got);
	free(enc);
	free(table);
}

static void t_cleanup(void)
{
	DIR *d = opendir(t_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlink(t_path(e->d_name));
	closedir(d);
	rmdir(t_dir);
}

int main(void)
{
	snprintf(t_dir, sizeof t_dir, "%s/provisor-pfile.XXXXXX", t_tmpdir());
	CHECK(mkdtemp(t_dir), "mkdtemp");
	atexit(t_cleanup);
	t_roundtrip();
	t_result();
	t_corrupt();
	t_result2_corrupt();
	t_result2_layout();
	t_result2_assemble(3, PFILE_RESULT_MAX_PARTITIONS);
	t_result2_assemble(12, 2);
	t_result2_assemble(13, 3);
	return 0;
}
