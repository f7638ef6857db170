/*
 * Test helpers shared by every test program. A test is one program: it
 * exits 0 when every check held, 1 on the first failed check, and 77 to
 * skip (printing why as its last line). Lines that start with "info:" are
 * echoed by tests/run.sh even when the test passes, for measured figures.
 */
#ifndef TESTS_HELPERS_H
#define TESTS_HELPERS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T_FAIL(...) do { \
	fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); \
} while (0)

/* CHECK(cond, fmt, ...): fail the test with a message unless cond holds. */
#define CHECK(cond, ...) do { \
	if (!(cond)) { fprintf(stderr, "check failed: %s\n  ", #cond); T_FAIL(__VA_ARGS__); } \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b); \
	if (_a != _b) T_FAIL("%s == %llu, expected %s == %llu", #a, \
			     (unsigned long long)_a, #b, (unsigned long long)_b); \
} while (0)

#define T_SKIP(...) do { printf(__VA_ARGS__); putchar('\n'); exit(77); } while (0)

static inline uint64_t t_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Under a sanitizer, T_SANITIZER is 1 (AddressSanitizer) or 2
 * (ThreadSanitizer), else 0. */
#if defined(__SANITIZE_THREAD__)
#define T_SANITIZER 2
#elif defined(__SANITIZE_ADDRESS__)
#define T_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_SANITIZER 2
#elif __has_feature(address_sanitizer)
#define T_SANITIZER 1
#endif
#endif
#ifndef T_SANITIZER
#define T_SANITIZER 0
#endif

/* How many times slower than the plain build this one may run, for
 * deadlines that only bound a hang or a wait: PROVISOR_TEST_SLOW when set
 * (1..100), else 3 under ASan, 5 under TSan, 1 plain. A deadline that is
 * the behaviour under test is tied to its configured value instead. */
static inline unsigned t_slow(void)
{
	const char *e = getenv("PROVISOR_TEST_SLOW");
	long v = e ? strtol(e, NULL, 10) : 0;

	if (v >= 1 && v <= 100)
		return (unsigned)v;
	return T_SANITIZER == 2 ? 5 : T_SANITIZER == 1 ? 3 : 1;
}

/* A size or round count: plain in the plain build, san under a
 * sanitizer, for claims that do not depend on size (every edge case runs
 * in both; only the random rounds and repetitions shrink). */
#define T_SIZE(plain, san) (T_SANITIZER ? (san) : (plain))

/* Where a test puts its temp files: $TMPDIR when it is an absolute path
 * (tests/run.sh gives every test a fresh one of its own and counts what
 * is left in it against the test), else /tmp. */
static inline const char *t_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

/* xorshift64*: a fast deterministic generator for test data. */
static inline uint64_t t_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Run a shell command made from fmt; its exit status (128 if it did not
 * exit). */
static inline int t_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc >= 0 && (rc & 0x7f) == 0 ? (rc >> 8) & 0xff : 128;
}

/* Flip the low bit of the byte at off in path: 0, or -1. Always a change,
 * unlike writing a fixed byte, which is no change where the file already
 * had it (1 in 256 for random data such as a proof's). */
static inline int t_flip(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c = -1;

	if (f && fseek(f, off, SEEK_SET) == 0 && (c = fgetc(f)) != EOF && fseek(f, off, SEEK_SET) == 0 &&
	    fputc(c ^ 1, f) != EOF)
		c = 0;
	else
		c = -1;
	if (f && fclose(f) != 0)
		c = -1;
	return c;
}

/* Run a shell command; its stdout into a malloc'd string (NUL-terminated),
 * its exit status (128 if it did not exit) in *rc. */
static inline char *t_capture(const char *cmd, int *rc)
{
	char *out = NULL, buf[4096];
	size_t len = 0, n;
	FILE *p = popen(cmd, "r"), *m = open_memstream(&out, &len);

	CHECK(p && m, "popen %s", cmd);
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		fwrite(buf, 1, n, m);
	int st = pclose(p);
	*rc = st >= 0 && (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128;
	fclose(m);
	return out;
}

#endif
