/*
 * The file formats: partition, H and result files round-trip bit for bit;
 * the header sits at the documented offsets; each corruption (truncated,
 * wrong magic, wrong version, wrong kind, non-canonical element, size
 * mismatch, k out of range, bad seed length or padding, checksum) is
 * refused with its own error; writers leave no temp file behind, on
 * success or failure.
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
	CHECK(raw[8] == 1 && raw[12] == PFILE_KIND_PARTITION && raw[16] == 5 && raw[20] == 3, "header words");
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
	int files = t_count_files();

	res.id.partition = 0;
	for (int p = 0; p < 3; p++)
		for (int i = 0; i < 16; i++)
			fr_from_u64(&h[p][i], (uint64_t)(p * 1000 + i));
	CHECK(pfile_result_begin(t_path("r"), &res, &w, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[0], t_err, sizeof t_err) == 0, "%s", t_err);
	for (int i = 0; i < 16; i++)
		fr_to_bytes(bytes + i * FR_BYTES, &h[1][i]);
	CHECK(pfile_result_put_bytes(w, bytes, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[2], t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(pfile_result_put(w, h[2], t_err, sizeof t_err) == -EINVAL, "a fourth partition accepted");
	CHECK(pfile_result_commit(w, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(t_count_files() == files + 1, "temp file left behind");

	CHECK(pfile_result_open(t_path("r"), &back, &r, t_err, sizeof t_err) == 0, "%s", t_err);
	CHECK(back.job_id == res.job_id && back.job_kind == res.job_kind && back.partitions == 3 &&
	      !memcmp(&back.id, &res.id, sizeof res.id), "result header round trip");
	for (uint32_t p = 0; p < 3; p++) {
		CHECK(pfile_result_read(r, p, got, t_err, sizeof t_err) == 0, "%s", t_err);
		CHECK(!memcmp(got, h[p], sizeof got), "partition %u H", p);
	}
	CHECK(pfile_result_read(r, 3, got, t_err, sizeof t_err) == -EINVAL, "partition 3 of 3");
	pfile_result_close(r);

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
	RESET();
	t_put32(buf + 8, 2);
	t_expect(buf, len, "version 2", "wrong version");
	RESET();
	t_put32(buf + 12, PFILE_KIND_H);
	t_expect(buf, len, "is an H file, expected a partition file", "wrong kind");
	RESET();
	t_put32(buf + 12, 9);
	t_expect(buf, len, "unknown file kind 9", "unknown kind");

	RESET();
	t_put32(buf + 16, 27);
	t_reseal(buf, len);
	t_expect(buf, len, "k = 27 out of range 1..26", "k = 27");
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

static void t_result_corrupt(void)
{
	struct pfile_result res;
	struct pfile_reader *r;
	uint8_t *buf;
	size_t len = t_load(t_path("r"), &buf);

	buf[PFILE_HEADER_BYTES + (2 * 16 + 3) * FR_BYTES] ^= 1;	/* partition 2, H[3] */
	t_save(t_path("rbad"), buf, len);
	CHECK(pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "checksum"), "%s", t_err);
	memset(buf + PFILE_HEADER_BYTES + (2 * 16 + 3) * FR_BYTES, 0xee, FR_BYTES);
	t_reseal(buf, len);
	t_save(t_path("rbad"), buf, len);
	CHECK(pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition 2 H[3]"), "%s", t_err);
	free(buf);
	len = t_load(t_path("r"), &buf);
	t_put32(buf + 56, 2);	/* two partitions claimed, three stored */
	t_put32(buf + 72, 32);
	t_reseal(buf, len);
	t_save(t_path("rbad"), buf, len);
	CHECK(pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "size mismatch"), "%s", t_err);
	t_put32(buf + 56, 0);
	t_reseal(buf, len);
	t_save(t_path("rbad"), buf, len);
	CHECK(pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "partition count 0"), "%s", t_err);
	t_put32(buf + 56, 3);
	t_put32(buf + 60, 7);
	t_reseal(buf, len);
	t_save(t_path("rbad"), buf, len);
	CHECK(pfile_result_open(t_path("rbad"), &res, &r, t_err, sizeof t_err) == -EINVAL &&
	      strstr(t_err, "unknown job kind 7"), "%s", t_err);
	free(buf);
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
	t_result_corrupt();
	return 0;
}
