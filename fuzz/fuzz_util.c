/*
 * fuzz_util: what several targets share: one scratch directory per
 * process (made once: creating a directory per input would dominate the
 * run time) and writing an input to a file for the path-taking readers.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

static char fuzz_dir[256];

static void fuzz_tmpdir_remove(void)
{
	DIR *d = opendir(fuzz_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(fuzz_dir);
}

const char *fuzz_tmpdir(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	if (fuzz_dir[0])
		return fuzz_dir;
	snprintf(fuzz_dir, sizeof fuzz_dir, "%s/provisor-fuzz.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(fuzz_dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_tmpdir_remove);
	return fuzz_dir;
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0) {
		perror("fuzz: open");
		abort();
	}
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0) {
			perror("fuzz: write");
			abort();
		}
		off += (size_t)n;
	}
	close(fd);
}

void fuzz_err_fill(char *err, size_t errlen)
{
	memset(err, 'x', errlen);
}

void fuzz_check_err(const char *err, size_t errlen)
{
	FUZZ_ASSERT(memchr(err, '\0', errlen) != NULL);
	FUZZ_ASSERT(err[0] != '\0');
}
