/*
 * Readers refuse segments they cannot trust, with a clear reason and no
 * crash: wrong magic, wrong ABI version, truncated (in memory and as a
 * real shared-memory object), and counts or offsets that overrun the
 * mapping. Random garbage is refused too (20000 rounds, 5000 under a
 * sanitizer).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tests/shm/common.h"

static uint8_t *img;
static size_t img_size;

static void expect_refused(const uint8_t *buf, size_t size, const char *needle)
{
	struct shm_seg v;
	char err[256] = "";
	int rc = shm_attach_buffer(&v, buf, size, err, sizeof err);

	CHECK(rc < 0, "a bad segment was accepted (wanted '%s')", needle);
	CHECK(strstr(err, needle) != NULL, "error '%s' does not say '%s'", err, needle);
	printf("info: refused: %s\n", err);
}

/* A copy of the good image with one header field changed. */
static uint8_t *mutated(void)
{
	uint8_t *b = malloc(img_size);
	CHECK(b, "malloc");
	memcpy(b, img, img_size);
	return b;
}

int main(void)
{
	struct shm_seg *s = t_seg_create("badseg", 2, 2);
	struct shm_header *h;
	struct shm_seg v;
	char err[256];
	uint8_t *b;

	img_size = s->size;
	img = malloc(img_size);
	CHECK(img, "malloc");
	memcpy(img, s->base, img_size);
	CHECK(shm_attach_buffer(&v, img, img_size, err, sizeof err) == 0, "good image: %s", err);

	b = mutated(); memset(b, 'x', 8);
	expect_refused(b, img_size, "not a provisor status segment"); free(b);

	b = mutated(); ((struct shm_header *)b)->abi_version = 99;
	expect_refused(b, img_size, "ABI version 99"); free(b);

	/* ABI 1 (before the loop timing): refused by name, not misread */
	b = mutated(); ((struct shm_header *)b)->abi_version = 1;
	char want[64];
	snprintf(want, sizeof want, "ABI version 1, this reader knows only %u", SHM_ABI_VERSION);
	expect_refused(b, img_size, want); free(b);

	expect_refused(img, 100, "truncated");
	expect_refused(img, img_size - 4096, "truncated");

	b = mutated(); h = (struct shm_header *)b; h->tables[SHM_T_JOB].count = 1u << 19;
	expect_refused(b, img_size, "overruns"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->tables[SHM_T_EVENT].offset = (uint64_t)-64;
	expect_refused(b, img_size, "event table"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->tables[SHM_T_GPU].rec_size = 8;
	expect_refused(b, img_size, "record size"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->tables[SHM_T_SYNTH].payload_size = 4096;
	expect_refused(b, img_size, "synth slot records carry 4096 bytes"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->tables[SHM_T_GPU].offset = h->tables[SHM_T_SYNTH].offset;
	expect_refused(b, img_size, "overlap"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->ntables = 200;
	expect_refused(b, img_size, "tables"); free(b);

	b = mutated(); h = (struct shm_header *)b; h->segment_size = img_size * 2;
	expect_refused(b, img_size, "truncated"); free(b);

	/* Garbage after a valid magic and version: refused or, if it happens
	 * to validate, every read stays in bounds (the mapping is exact).
	 * Fewer rounds under a sanitizer (every named case above runs in
	 * both). */
	uint64_t seed = 12345;
	b = mutated();
	for (int round = 0; round < T_SIZE(20000, 5000); round++) {
		memcpy(b, img, SHM_HEADER_SIZE);
		for (int k = 0; k < 4; k++)
			b[16 + t_rand(&seed) % (SHM_HEADER_SIZE - 16)] = (uint8_t)t_rand(&seed);
		if (shm_attach_buffer(&v, b, img_size, err, sizeof err) == 0) {
			struct shm_slot sl;
			struct shm_job j;
			for (uint32_t i = 0; i < shm_count(&v, SHM_T_GPU); i++)
				(void)shm_read_slot(&v, SHM_T_GPU, i, &sl);
			for (uint32_t i = 0; i < shm_count(&v, SHM_T_JOB); i++)
				(void)shm_read_job(&v, i, &j);
		} else {
			CHECK(err[0] != '\0', "refusal without a reason");
		}
	}
	free(b);

	/* A real shared-memory object: a truncated one is refused by name. */
	char name[64], path[4200];
	snprintf(name, sizeof name, "t-badseg-trunc-%d", (int)getpid());
	CHECK(shm_base_dir(geteuid(), path, sizeof path) == 0, "base dir");
	mkdir(path, 0755);
	CHECK(shm_path(name, path, sizeof path) == 0, "segment path");
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "create %s", path);
	CHECK(write(fd, img, 300) == 300, "write");
	CHECK(shm_open_ro(&v, name, err, sizeof err) < 0 && strstr(err, "truncated"),
	      "truncated object: '%s'", err);
	printf("info: refused: %s\n", err);
	CHECK(ftruncate(fd, (off_t)img_size) == 0, "ftruncate");
	CHECK(pwrite(fd, "NOTPROVI", 8, 0) == 8, "pwrite");
	CHECK(shm_open_ro(&v, name, err, sizeof err) < 0 && strstr(err, "magic"), "magic: '%s'", err);
	close(fd);
	unlink(path);

	CHECK(shm_open_ro(&v, "no-such-instance-here", err, sizeof err) == -ENOENT &&
	      strstr(err, "no provisor instance"), "missing instance: '%s'", err);
	CHECK(shm_open_ro(&v, "../etc", err, sizeof err) == -EINVAL, "bad name accepted");
	printf("info: refused: %s\n", err);
	free(img);
	return 0;
}
