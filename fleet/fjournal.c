/*
 * fjournal: see fjournal.h. Text lines, each ending in the FNV-1a hash of
 * the text before it, appended with one write() each, so that a crash
 * tears at most the last one. Nothing is followed as a symbolic link: the
 * file is opened O_NOFOLLOW relative to the state directory's fd and
 * must be a regular file with one link; the temp file of a compaction is
 * created O_EXCL after whatever had its name is unlinked.
 *
 * Not thread-safe: the supervisor's loop owns it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/fjournal.h"
#include "util/util.h"

#define FJ_TMP FJOURNAL_NAME ".tmp"
#define FJ_LINE 128
#define FJ_COMPACT_MIN (1u << 20)

struct fjournal {
	int fd, dfd;
	char dir[256];
	uint64_t size;		/* bytes appended to the file */
};

static uint32_t fj_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* "TEXT HASH\n" from the text already in buf (n bytes). */
static size_t fj_seal(char *buf, size_t len, int n)
{
	if (n < 0 || (size_t)n + 11 > len)
		return 0;
	return (size_t)n + (size_t)snprintf(buf + n, len - (size_t)n, " %08" PRIx32 "\n", fj_hash(buf, (size_t)n));
}

size_t fjournal_line_claim(char *buf, size_t len, const struct fjournal_claim *c)
{
	return fj_seal(buf, len, snprintf(buf, len, "C %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32
					   " %" PRIu32, c->local, c->fleet, c->epoch, c->file_kind, c->k, c->parts));
}

size_t fjournal_line_reported(char *buf, size_t len, uint64_t local)
{
	return fj_seal(buf, len, snprintf(buf, len, "R %" PRIu64, local));
}

int fjournal_parse(const char *line, struct fjournal_claim *c)
{
	const char *sp = strrchr(line, ' ');
	char tail[16];
	int used = 0;

	if (!sp || strlen(sp + 1) != 8)
		return 0;
	snprintf(tail, sizeof tail, "%08" PRIx32, fj_hash(line, (size_t)(sp - line)));
	if (strcmp(tail, sp + 1))
		return 0;
	memset(c, 0, sizeof *c);
	if (line[0] == 'C' && sscanf(line, "C %" SCNu64 " %" SCNu64 " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32 "%n",
				     &c->local, &c->fleet, &c->epoch, &c->file_kind, &c->k, &c->parts, &used) == 6 &&
	    line + used == sp)
		return 'C';
	if (line[0] == 'R' && sscanf(line, "R %" SCNu64 "%n", &c->local, &used) == 1 && line + used == sp)
		return 'R';
	return 0;
}

static int fj_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The claims in buf not reported since, into *out (malloc'd); the lines
 * that did not check are counted in *bad. */
static int fj_replay(char *buf, size_t size, struct fjournal_claim **out, uint32_t *n, uint32_t *bad)
{
	struct fjournal_claim *v = NULL, c;
	uint32_t cap = 0;
	char *line = buf, *end = buf + size;

	*n = *bad = 0;
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl) {	/* a torn last line */
			(*bad)++;
			break;
		}
		*nl = '\0';
		int t = fjournal_parse(line, &c);
		line = nl + 1;
		if (t == 'C') {
			uint32_t i = 0;
			while (i < *n && v[i].local != c.local)
				i++;
			if (i < *n) {	/* claimed again under a new epoch: that one holds */
				v[i] = c;
				continue;
			}
			if (*n == cap) {
				cap = cap ? 2 * cap : 64;
				struct fjournal_claim *nv = realloc(v, cap * sizeof *v);
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[(*n)++] = c;
		} else if (t == 'R') {
			for (uint32_t i = 0; i < *n; i++)
				if (v[i].local == c.local) {
					memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof *v);
					(*n)--;
					break;
				}
		} else {
			(*bad)++;
		}
	}
	*out = v;
	return 0;
}

/* Write the claims to a temp file and put it in place: the new fd. */
static int fj_rewrite(struct fjournal *f, const struct fjournal_claim *v, uint32_t n, char *err, size_t errlen)
{
	char line[FJ_LINE];
	uint64_t size = 0;
	int fd, rc = 0;

	if (unlinkat(f->dfd, FJ_TMP, 0) < 0 && errno != ENOENT)
		return util_fail(err, errlen, -errno, "remove %s/%s: %s", f->dir, FJ_TMP, strerror(errno));
	fd = openat(f->dfd, FJ_TMP, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return util_fail(err, errlen, -errno, "create %s/%s: %s", f->dir, FJ_TMP, strerror(errno));
	for (uint32_t i = 0; i < n && !rc; i++) {
		size_t len = fjournal_line_claim(line, sizeof line, &v[i]);
		rc = fj_write_all(fd, line, len);
		size += len;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (!rc && renameat(f->dfd, FJ_TMP, f->dfd, FJOURNAL_NAME) < 0)
		rc = -errno;
	if (rc) {
		unlinkat(f->dfd, FJ_TMP, 0);
		close(fd);
		return util_fail(err, errlen, rc, "rewrite %s/%s: %s", f->dir, FJOURNAL_NAME, strerror(-rc));
	}
	if (fsync(f->dfd) < 0)
		rc = util_fail(err, errlen, -errno, "fsync %s: %s", f->dir, strerror(errno));
	if (f->fd >= 0)
		close(f->fd);
	f->fd = fd;
	f->size = size;
	return rc;
}

/* Read the whole file (absent: empty) into *buf. */
static int fj_load(struct fjournal *f, char **buf, size_t *size, char *err, size_t errlen)
{
	char path[300];
	struct stat st;
	size_t got = 0;
	int fd;

	*buf = NULL;
	*size = 0;
	snprintf(path, sizeof path, "%s/%s", f->dir, FJOURNAL_NAME);
	fd = util_openat_regular(f->dfd, FJOURNAL_NAME, path, O_NOFOLLOW, err, errlen);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_nlink != 1 || !(*buf = malloc((size_t)st.st_size + 1))) {
		int rc = st.st_nlink != 1 ? -EMLINK : -ENOMEM;
		close(fd);
		return util_fail(err, errlen, rc, "%s: %s", path, rc == -EMLINK ?
				 "a hard link to a file that has other names" : "cannot read");
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*size = got;
	return 0;
}

int fjournal_open(struct fjournal **fp, int dirfd, const char *dir, fjournal_fn fn, void *ctx, char *warn,
		  size_t warnlen, char *err, size_t errlen)
{
	struct fjournal *f = calloc(1, sizeof *f);
	struct fjournal_claim *v = NULL;
	uint32_t n = 0, bad = 0;
	char *buf = NULL;
	size_t size;
	int rc;

	warn[0] = '\0';
	if (!f)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	f->fd = -1;
	f->dfd = dirfd;
	snprintf(f->dir, sizeof f->dir, "%s", dir);
	if ((rc = fj_load(f, &buf, &size, err, errlen)) < 0 ||
	    (buf && (rc = fj_replay(buf, size, &v, &n, &bad)) < 0) ||
	    (rc = fj_rewrite(f, v, n, err, errlen)) < 0) {
		if (rc == -ENOMEM)
			util_fail(err, errlen, rc, "out of memory reading %s/%s", dir, FJOURNAL_NAME);
		free(buf);
		free(v);
		fjournal_close(f);
		return rc;
	}
	if (bad)
		snprintf(warn, warnlen, "%s/%s: %u line%s that did not check dropped", dir, FJOURNAL_NAME, bad,
			 bad > 1 ? "s" : "");
	for (uint32_t i = 0; i < n; i++)
		fn(ctx, &v[i]);
	free(buf);
	free(v);
	*fp = f;
	return 0;
}

static int fj_append(struct fjournal *f, const char *line, size_t len, char *err, size_t errlen)
{
	int rc = len ? fj_write_all(f->fd, line, len) : -EINVAL;

	if (rc < 0)
		return util_fail(err, errlen, rc, "append to %s/%s: %s", f->dir, FJOURNAL_NAME, strerror(-rc));
	f->size += len;
	return 0;
}

int fjournal_claim(struct fjournal *f, const struct fjournal_claim *c, char *err, size_t errlen)
{
	char line[FJ_LINE];

	return fj_append(f, line, fjournal_line_claim(line, sizeof line, c), err, errlen);
}

int fjournal_reported(struct fjournal *f, uint64_t local, char *err, size_t errlen)
{
	char line[FJ_LINE];

	return fj_append(f, line, fjournal_line_reported(line, sizeof line, local), err, errlen);
}

int fjournal_fd(const struct fjournal *f)
{
	return f->fd;
}

int fjournal_compact_due(const struct fjournal *f, uint32_t live)
{
	return f->size >= FJ_COMPACT_MIN && f->size >= 4ull * live * 64;
}

int fjournal_compact(struct fjournal *f, const struct fjournal_claim *live, uint32_t n, char *err, size_t errlen)
{
	return fj_rewrite(f, live, n, err, errlen);
}

void fjournal_close(struct fjournal *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}
