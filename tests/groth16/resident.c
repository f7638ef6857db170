/*
 * The resident form of a params file (groth16/resident.c): built from a
 * validated source, it maps to the same proving key point for point, and
 * a proof made with the mapping equals one made with the file read in the
 * usual way (same r and s). Its header binds it to its source (size,
 * mtime, inode, device, trailer). A damaged resident file (a flipped
 * header byte, a truncation, a foreign file) is refused with a line that
 * says so, and a damaged source builds nothing and leaves nothing.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16.h"
#include "synth/synth.h"
#include "tests/helpers.h"

static char dir[256];

static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
}

static int same_g1(const g1_affine_t *a, const g1_affine_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].inf != b[i].inf || (!a[i].inf && (memcmp(&a[i].x, &b[i].x, sizeof a[i].x) ||
							    memcmp(&a[i].y, &b[i].y, sizeof a[i].y))))
			return 0;
	return 1;
}

static int same_g2(const g2_affine_t *a, const g2_affine_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].inf != b[i].inf || (!a[i].inf && (memcmp(&a[i].x, &b[i].x, sizeof a[i].x) ||
							    memcmp(&a[i].y, &b[i].y, sizeof a[i].y))))
			return 0;
	return 1;
}

/* The resident file at path, damaged by fn, must be refused with want. */
static void refused(const char *path, const char *want, const char *what)
{
	struct groth16_params p;
	char err[256] = "";
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0, "open %s", path);
	CHECK(groth16_resident_map(fd, &p, NULL, NULL, err, sizeof err) != 0, "%s: mapped", what);
	CHECK(strstr(err, want), "%s: refused with '%s', expected '%s'", what, err, want);
	close(fd);
	printf("ok: resident %s -> %s\n", what, err);
}

static void copy_damaged(const char *from, const char *to, long off, long truncate_to)
{
	char cmd[800];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	CHECK(system(cmd) == 0, "cp");
	int fd = open(to, O_RDWR);
	CHECK(fd >= 0, "open %s", to);
	if (off >= 0) {
		uint8_t b;
		CHECK(pread(fd, &b, 1, off) == 1, "pread");
		b ^= 1;
		CHECK(pwrite(fd, &b, 1, off) == 1, "pwrite");
	}
	if (truncate_to >= 0)
		CHECK(ftruncate(fd, truncate_to) == 0, "ftruncate");
	close(fd);
}

int main(void)
{
	const unsigned k = 8;
	struct groth16_params gen, rd, mp, vk;
	struct groth16_source src, bound;
	struct groth16_proof pr_rd, pr_mp;
	char src_path[300], name[64], res_path[400], bad[400], err[256];
	fr_t *z, *h, r, s;
	int dfd, fd;

	snprintf(dir, sizeof dir, "%s/provisor-test-resident-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir");
	atexit(cleanup);
	snprintf(src_path, sizeof src_path, "%s/params", dir);
	CHECK(groth16_setup(&gen, (const uint8_t *)"\x5e\xed", 2, k, 1, err, sizeof err) == 0, "setup: %s", err);
	CHECK(groth16_params_write(src_path, &gen, err, sizeof err) == 0, "write: %s", err);
	groth16_params_free(&gen);
	CHECK(groth16_params_read(src_path, &rd, 0, err, sizeof err) == 0, "read: %s", err);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0, "open dir");
	groth16_resident_name(&rd, name, sizeof name);
	CHECK(!strncmp(name, "k8-", 3) && strstr(name, ".resident"), "name %s", name);
	CHECK(groth16_resident_build(src_path, dfd, name, &vk, err, sizeof err) == 0, "build: %s", err);
	CHECK(!memcmp(vk.vk_digest, rd.vk_digest, 32) && vk.k == k && !vk.h, "build's vk");

	snprintf(res_path, sizeof res_path, "%s/%s", dir, name);
	fd = open(res_path, O_RDONLY);
	CHECK(fd >= 0, "open %s", res_path);
	CHECK(groth16_resident_header(fd, &vk, &bound, err, sizeof err) == 0, "header: %s", err);
	int sfd = open(src_path, O_RDONLY);
	CHECK(sfd >= 0 && groth16_source_of(sfd, &src) == 0, "source");
	close(sfd);
	CHECK(!memcmp(&src, &bound, sizeof src), "the resident file is not bound to its source");
	CHECK(groth16_resident_map(fd, &mp, NULL, NULL, err, sizeof err) == 0, "map: %s", err);
	close(fd);
	size_t m = rd.nvars;
	CHECK(mp.k == rd.k && mp.nvars == rd.nvars && mp.nh == rd.nh && mp.map, "counts");
	CHECK(same_g1(mp.h, rd.h, rd.nh) && same_g1(mp.l, rd.l, m - rd.npub) && same_g1(mp.a, rd.a, m) &&
	      same_g1(mp.b_g1, rd.b_g1, m) && same_g2(mp.b_g2, rd.b_g2, m), "the mapped key differs");
	CHECK(!memcmp(mp.vk_digest, rd.vk_digest, 32) && same_g2(&mp.vk.delta_g2, &rd.vk.delta_g2, 1) &&
	      same_g1(mp.vk.ic, rd.vk.ic, GROTH16_NPUB), "the mapped vk differs");

	/* one partition proved with each: the same proof */
	struct synth_id id = { .seed = { 1, 2 }, .seed_len = 2, .partition = 3, .k = k };
	size_t n = (size_t)1 << k;
	fr_t *abc = malloc(3 * n * sizeof *abc);
	z = malloc(synth_nvars(k) * sizeof *z);
	CHECK(abc && z, "malloc");
	CHECK(synth_partition(&id, abc, abc + n, abc + 2 * n) == 0, "synth");
	synth_witness_from_rows(k, abc, abc + 2 * n, z);
	h = abc;	/* any coefficients do: both proofs take the same */
	fr_from_bytes_wide(&r, (const uint8_t[64]){ 7 });
	fr_from_bytes_wide(&s, (const uint8_t[64]){ 9 });
	CHECK(groth16_prove(&pr_rd, &rd, z, h, &r, &s, 1, NULL) == 0, "prove with the read key");
	CHECK(groth16_prove(&pr_mp, &mp, z, h, &r, &s, 1, NULL) == 0, "prove with the mapped key");
	CHECK(same_g1(&pr_rd.a, &pr_mp.a, 1) && same_g1(&pr_rd.c, &pr_mp.c, 1) && same_g2(&pr_rd.b, &pr_mp.b, 1),
	      "the proofs differ");
	groth16_params_free(&mp);
	CHECK(!mp.map && !mp.h, "free of a mapped key");

	/* damaged resident files */
	snprintf(bad, sizeof bad, "%s/bad.resident", dir);
	copy_damaged(res_path, bad, 20, -1);
	refused(bad, "checksum mismatch", "a flipped header byte");
	copy_damaged(res_path, bad, -1, 8192);
	refused(bad, "not the", "truncated");
	copy_damaged(src_path, bad, -1, -1);
	refused(bad, "bad magic", "a params file given as resident");

	/* a damaged source builds nothing */
	copy_damaged(src_path, bad, 4000, -1);
	CHECK(groth16_resident_build(bad, dfd, "x.resident", &vk, err, sizeof err) != 0, "a damaged source built");
	printf("ok: a damaged source -> %s\n", err);
	CHECK(faccessat(dfd, "x.resident", F_OK, 0) != 0, "a damaged source left a resident file");
	char cmd[400];
	snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q tmp", dir);
	CHECK(system(cmd) != 0, "a temporary file was left");
	close(dfd);
	groth16_params_free(&rd);
	free(abc);
	free(z);
	printf("ok\n");
	return 0;
}
