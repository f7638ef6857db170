/*
 * util: the small helpers every layer had its own copy of: the one-line
 * error string (util_fail), decimal numbers (util_num), hex (util_hex),
 * little-endian fields in byte buffers (util_le*) and opening a file that
 * must be a regular one (util_open_regular).
 *
 * Header-only and libc-only, like text.h and vocab.h: any library may use
 * it without a link-time dependency (ctl's fuzz target links nothing but
 * ctl.c). Code that links libsodium anyway decodes hex with
 * sodium_hex2bin; util_hex is for those that do not (ctl).
 */
#ifndef UTIL_UTIL_H
#define UTIL_UTIL_H

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The error convention of the libraries: a failing call writes one line
 * (no newline) into err, when err is given, and returns its code, so that
 * a failure path reads `return util_fail(err, errlen, -EINVAL, "...", ...)`.
 */
static inline int util_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int util_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/*
 * Decimal numbers: all of s, in [lo, hi], into *out; 0, or -1 when s is
 * not one. What "a number" is depends on who reads it, so it is an option:
 *
 *   UTIL_NUM_DIGITS     digits only: no sign, no space, leading zeros
 *                       allowed ("007"); the configuration file, the
 *                       workers' flags, PROVISOR_FAULT, provisor synth
 *   UTIL_NUM_CANONICAL  digits only and no leading zero ("0" alone): the
 *                       control protocol, where a request has exactly one
 *                       spelling (the fuzzer checks it reformats the same)
 *   UTIL_NUM_STRTOL     what strtol(3) takes whole: leading white space
 *                       and a sign allowed ("+5", " 5"); the operator's
 *                       command-line flags, as they always were. A
 *                       negative number is below every lo (lo >= 0).
 */
enum util_num_syntax { UTIL_NUM_DIGITS, UTIL_NUM_CANONICAL, UTIL_NUM_STRTOL };

static inline int util_num(const char *s, enum util_num_syntax syntax, uint64_t lo, uint64_t hi,
			   uint64_t *out)
{
	char *end;
	uint64_t v;

	if (syntax == UTIL_NUM_STRTOL) {
		long l;

		errno = 0;
		l = strtol(s, &end, 10);
		if (errno || !*s || *end || l < 0)
			return -1;
		v = (uint64_t)l;
	} else {
		if (*s < '0' || *s > '9' || (syntax == UTIL_NUM_CANONICAL && s[0] == '0' && s[1]))
			return -1;
		errno = 0;
		v = strtoull(s, &end, 10);
		if (errno || *end)
			return -1;
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Hex digit ch's value, or -1. */
static inline int util_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* All of s, an even number of hex digits (either case) for 1..max bytes,
 * into out; *len the byte count. 0, or -1 (out may be partly written). */
static inline int util_hex(const char *s, uint8_t *out, size_t max, uint32_t *len)
{
	size_t n = strlen(s);

	if (!n || n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int hi = util_hexval(s[i]), lo = util_hexval(s[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = (uint32_t)(n / 2);
	return 0;
}

/* Little-endian fields at any alignment in a byte buffer. */
static inline void util_le16_put(uint8_t *p, uint16_t v) { v = htole16(v); memcpy(p, &v, sizeof v); }
static inline void util_le32_put(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, sizeof v); }
static inline void util_le64_put(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, sizeof v); }
static inline uint16_t util_le16_get(const uint8_t *p) { uint16_t v; memcpy(&v, p, sizeof v); return le16toh(v); }
static inline uint32_t util_le32_get(const uint8_t *p) { uint32_t v; memcpy(&v, p, sizeof v); return le32toh(v); }
static inline uint64_t util_le64_get(const uint8_t *p) { uint64_t v; memcpy(&v, p, sizeof v); return le64toh(v); }

/*
 * A process's state letter and parent from /proc/PID/stat. Its name (in
 * parentheses) may hold anything, spaces and ')' included, so the fields
 * are read after the last ')'. 0, or -errno (-ENOENT: no such process, or
 * no /proc).
 */
static inline int util_proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid_v;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &ppid_v) != 2)
		return -EIO;
	*ppid = (pid_t)ppid_v;
	return 0;
}

/*
 * Open name (relative to dfd, or AT_FDCWD) for reading, but only when it is
 * a regular file, so that a FIFO, a device or a directory given where a
 * file belongs ends in one error line instead of a read that waits for a
 * writer forever or never ends (/dev/zero). O_NONBLOCK makes the open
 * itself return at once for a FIFO; it is cleared again for a regular
 * file, where it means nothing anyway. flags adds to O_RDONLY | O_CLOEXEC
 * (O_NOFOLLOW: a symbolic link is refused too). path is the name shown in
 * err. Returns the descriptor, or -errno with one line in err.
 */
static inline int util_openat_regular(int dfd, const char *name, const char *path, int flags, char *err,
				      size_t errlen)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags), rc;

	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP && (flags & O_NOFOLLOW))
			return util_fail(err, errlen, rc, "%s: is a symbolic link, not a regular file", path);
		return util_fail(err, errlen, rc, "%s: cannot open: %s", path, strerror(-rc));
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return util_fail(err, errlen, rc, "%s: cannot stat: %s", path, strerror(-rc));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return util_fail(err, errlen, -EINVAL, "%s: not a regular file (%s)", path,
				 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
				 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
				 S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The same for a path relative to the working directory. */
static inline int util_open_regular(const char *path, int flags, char *err, size_t errlen)
{
	return util_openat_regular(AT_FDCWD, path, path, flags, err, errlen);
}

#endif
