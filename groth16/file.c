/*
 * file: the one way groth16 writes a file (params and proofs): built whole
 * in memory, written to a temp file in the destination's directory, made
 * durable, then renamed into place, so a reader sees the old file or the
 * new one and a crash leaves no half file under the destination's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16_priv.h"
#include "util/util.h"

void groth16_h2f(fr_t *out, const uint8_t key[32], const char *tag)
{
	uint8_t wide[64];

	crypto_generichash(wide, sizeof wide, (const uint8_t *)tag, strlen(tag), key, 32);
	fr_from_bytes_wide(out, wide);
	sodium_memzero(wide, sizeof wide);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int groth16_write_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[4096], tmp[512];
	uint8_t rnd[6];
	int dfd, fd = -1, rc;

	if (!*name || strlen(name) > 200)
		return util_fail(err, errlen, -EINVAL, "%s: not a file name", path);
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return util_fail(err, errlen, -errno, "%s: cannot open directory %s: %s", path, dir,
				 strerror(errno));
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		randombytes_buf(rnd, sizeof rnd);
		snprintf(tmp, sizeof tmp, ".%s.tmp.%02x%02x%02x%02x%02x%02x", name, rnd[0], rnd[1], rnd[2],
			 rnd[3], rnd[4], rnd[5]);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = -errno;
		close(dfd);
		return util_fail(err, errlen, rc, "%s: cannot create a file in %s: %s", path, dir, strerror(-rc));
	}
	rc = write_all(fd, buf, len);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc) {
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return util_fail(err, errlen, rc, "%s: write failed: %s", path, strerror(-rc));
	}
	fsync(dfd);
	close(dfd);
	return 0;
}
