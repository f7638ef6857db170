/*
 * journal: the file side of the job journal (docs/journal.md); record.c
 * judges the bytes.
 *
 * Design: journal_open reads the whole file and has every record judged
 * before it changes anything, so a refusal leaves the file exactly as it
 * was for the operator to inspect. It then compacts (temp file, fsync,
 * rename, fsync dir) to a HIGHWATER record plus the unfinished SUBMITs,
 * and keeps the new file open for O_APPEND writes, one write() per
 * record, so a crash can tear at most the last record. A running owner
 * compacts again the same way (journal_compact) once the file has grown
 * well past what the last compaction left, so that churn (submit, cancel,
 * submit, ...) cannot grow it until the next start.
 *
 * Nothing in DIR is followed if it is a symbolic link: DIR is opened
 * O_NOFOLLOW, the journal O_NOFOLLOW and refused unless it is a regular
 * file with one link, and the temp file is created O_EXCL | O_NOFOLLOW
 * after a stale one (or a link planted under its name) is unlinked.
 *
 * Not thread-safe: the supervisor's single loop owns a journal.
 */
#include "journal/journal.h"
#include "journal/record.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JR_NAME		"journal"
#define JR_TMP		"journal.tmp"

struct journal {
	int fd;			/* DIR/journal, O_RDWR | O_APPEND */
	int dfd;		/* DIR, for the compactions while running */
	char *dir;		/* its name, for messages */
	off_t size;		/* end of the last whole record we wrote */
	off_t compacted;	/* the size the last compaction left */
	uint64_t next_id;	/* ids below this were used: submit refuses them */
	int broken;		/* -errno once the file's tail is in doubt */
};

/* What a file that should be a regular file is instead, or NULL. */
static const char *jr_not_regular(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG: return st->st_nlink > 1 ? "a hard link to a file that has other names" : NULL;
	case S_IFLNK: return "a symbolic link, not a regular file";
	case S_IFDIR: return "a directory, not a regular file";
	case S_IFIFO: return "a FIFO, not a regular file";
	case S_IFSOCK: return "a socket, not a regular file";
	case S_IFCHR: case S_IFBLK: return "a device, not a regular file";
	default: return "not a regular file";
	}
}

/* Read all of fd into a malloc'd *buf (never NULL on success). */
static int jr_read_all(int fd, uint8_t **buf, size_t *size)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		n = pread(fd, *buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;	/* shrank under us: judge what is there */
		got += (size_t)n;
	}
	*size = got;
	return 0;
}

static int jr_write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Replace DIR/journal with its compacted form: temp file, fsync, rename,
 * fsync dir, so a crash leaves either the old file or the new one whole.
 * The temp file is opened O_APPEND and, once renamed, is the journal we
 * append to: *fdp and *sizep describe it. */
static int jr_compact(int dfd, const char *dir, const struct journal_replay *rp, int *fdp,
		      off_t *sizep, char *err, size_t errlen)
{
	const char *what = "write";
	size_t len;
	uint8_t *buf = journal_rec_compact(rp, &len);
	int fd = -1, rc;

	if (!buf)
		return util_fail(err, errlen, -ENOMEM, "out of memory compacting the journal");
	/* A stale temp file is ours to remove; so is anything planted under
	 * its name (unlinkat removes a symbolic link, never its target). Then
	 * O_EXCL | O_NOFOLLOW: whatever appears there meanwhile is refused,
	 * not opened. */
	if (unlinkat(dfd, JR_TMP, 0) < 0 && errno != ENOENT) {
		rc = -errno;
		what = "remove stale";
		goto fail;
	}
	fd = openat(dfd, JR_TMP, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		rc = -errno;
		what = "open";
		goto fail;
	}
	if ((rc = jr_write_all(fd, buf, len)))
		goto fail_unlink;
	what = "fsync";
	if (fsync(fd) < 0) {
		rc = -errno;
		goto fail_unlink;
	}
	what = "rename";
	if (renameat(dfd, JR_TMP, dfd, JR_NAME) < 0) {
		rc = -errno;
		goto fail_unlink;
	}
	if (fsync(dfd) < 0) {
		rc = util_fail(err, errlen, -errno, "fsync %s: %s", dir, strerror(errno));
		goto fail_close;
	}
	free(buf);
	*fdp = fd;
	*sizep = (off_t)len;
	return 0;
fail_unlink:
	unlinkat(dfd, JR_TMP, 0);
fail:
	util_fail(err, errlen, rc, "%s %s/%s: %s", what, dir, JR_TMP, strerror(-rc));
fail_close:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* Read and judge DIR/journal (absent counts as empty) into rp. A torn
 * tail is cut off the old file too, so that it is clean even if the
 * compaction after this fails. Changes nothing unless it returns 0. */
static int jr_load(int dfd, const char *dir, struct journal_replay *rp, char *warn, size_t warnlen,
		   char *err, size_t errlen)
{
	char why[320];
	uint8_t *buf = NULL;
	size_t size = 0, good = 0;
	struct stat st;
	const char *bad;
	int fd, rc;

	/* Looked at before it is opened, as opening a FIFO or a device can
	 * block or act; then opened O_NOFOLLOW | O_NONBLOCK and looked at
	 * again, in case it was swapped between the two. */
	if (fstatat(dfd, JR_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return util_fail(err, errlen, -errno, "stat %s/%s: %s", dir, JR_NAME, strerror(errno));
	}
	fd = -1;
	if (!(bad = jr_not_regular(&st))) {
		fd = openat(dfd, JR_NAME, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0 && errno != ELOOP)
			return util_fail(err, errlen, -errno, "open %s/%s: %s", dir, JR_NAME,
					   strerror(errno));
		if (fd >= 0 && fstat(fd, &st) < 0) {
			rc = util_fail(err, errlen, -errno, "stat %s/%s: %s", dir, JR_NAME,
					 strerror(errno));
			close(fd);
			return rc;
		}
		bad = fd < 0 ? "a symbolic link, not a regular file" : jr_not_regular(&st);
	}
	if (bad) {
		rc = util_fail(err, errlen, -EINVAL, "%s/%s is %s; remove it",
				 dir, JR_NAME, bad);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if ((rc = jr_read_all(fd, &buf, &size))) {
		util_fail(err, errlen, rc, "read %s/%s: %s", dir, JR_NAME, strerror(-rc));
		goto out;
	}
	why[0] = '\0';
	if ((rc = journal_replay(rp, buf, size, &good, warn, warnlen, why, sizeof(why)))) {
		util_fail(err, errlen, rc, "%s/%s: %s", dir, JR_NAME, why);
		goto out;
	}
	if (good < size && (ftruncate(fd, (off_t)good) < 0 || fsync(fd) < 0)) {
		rc = util_fail(err, errlen, -errno, "cutting the torn tail of %s/%s: %s", dir,
			    JR_NAME, strerror(errno));
		goto out;
	}
out:
	free(buf);
	close(fd);
	return rc;
}

int journal_open(struct journal **jp, const char *dir, journal_job_fn fn, void *ctx,
		 uint64_t *next_id, char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct journal_replay rp = { 0 };
	struct journal *j = NULL;
	struct stat st;
	int dfd, rc;

	*jp = NULL;
	util_fail(warn, warnlen, 0, "%s", "");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* On a symbolic link O_DIRECTORY | O_NOFOLLOW fails with ENOTDIR. */
	if (dfd < 0 && (errno == ELOOP || (errno == ENOTDIR && lstat(dir, &st) == 0 &&
					    S_ISLNK(st.st_mode))))
		return util_fail(err, errlen, -ELOOP, "%s is a symbolic link, not a directory; "
				   "give the directory itself", dir);
	if (dfd < 0)
		return util_fail(err, errlen, -errno, "open %s: %s", dir, strerror(errno));
	if ((rc = jr_load(dfd, dir, &rp, warn, warnlen, err, errlen)))
		goto fail;
	if (!(j = calloc(1, sizeof(*j)))) {
		rc = util_fail(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	j->fd = -1;
	if (!(j->dir = strdup(dir))) {
		rc = util_fail(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = jr_compact(dfd, dir, &rp, &j->fd, &j->size, err, errlen)))
		goto fail;
	j->compacted = j->size;
	j->dfd = dfd;
	dfd = -1;
	j->next_id = rp.highest + 1;
	/* After compaction, so that jobs are handed out only by an open
	 * that succeeds. */
	for (size_t i = 0; fn && i < rp.n; i++)
		if (!rp.jobs[i].ended)
			fn(ctx, &rp.jobs[i].job);
	*next_id = j->next_id;
	*jp = j;
	j = NULL;
fail:
	if (j)
		free(j->dir);
	free(j);
	journal_replay_free(&rp);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

int journal_compact_due(const struct journal *j, uint64_t min)
{
	return !j->broken && (uint64_t)j->size >= min && j->size >= 4 * j->compacted;
}

int journal_compact(struct journal *j, uint64_t *before, uint64_t *after, char *err, size_t errlen)
{
	struct journal_replay rp = { 0 };
	char warn[200], why[320];
	uint8_t *buf = NULL;
	size_t size = 0, good = 0;
	struct stat mine, named;
	off_t nsize;
	int fd, rc;

	*before = (uint64_t)j->size;
	if (j->broken)
		return util_fail(err, errlen, j->broken, "journal unusable since an earlier failure");
	if ((rc = jr_read_all(j->fd, &buf, &size))) {
		free(buf);
		return util_fail(err, errlen, rc, "read %s/%s: %s", j->dir, JR_NAME, strerror(-rc));
	}
	why[0] = '\0';
	rc = journal_replay(&rp, buf, size, &good, warn, sizeof warn, why, sizeof why);
	free(buf);
	if (rc) {
		util_fail(err, errlen, rc, "%s/%s: %s", j->dir, JR_NAME, why);
		goto out;
	}
	if (rp.highest + 1 < j->next_id)
		rp.highest = j->next_id - 1;	/* ids stay unique whatever was read */
	if ((rc = jr_compact(j->dfd, j->dir, &rp, &fd, &nsize, err, errlen))) {
		/* Renamed but not synced, the name is the new file's now: what
		 * we append to is gone, so nothing more is appended. */
		if (fstat(j->fd, &mine) < 0 || fstatat(j->dfd, JR_NAME, &named, AT_SYMLINK_NOFOLLOW) < 0 ||
		    mine.st_ino != named.st_ino || mine.st_dev != named.st_dev)
			j->broken = rc;
		goto out;
	}
	close(j->fd);
	j->fd = fd;
	j->size = j->compacted = nsize;
	*after = (uint64_t)nsize;
out:
	journal_replay_free(&rp);
	return rc;
}

/* Append one record with one write(). A partial record must not stay in
 * the file: the next append would put valid data after it and turn a
 * harmless torn tail into corruption. So a short write is cut back off,
 * and when that fails (or fsync failed, after which Linux may have
 * dropped the dirty pages and report success next time) the journal
 * refuses every later append. */
static int jr_append(struct journal *j, const uint8_t *rec, size_t len, bool sync,
		     char *err, size_t errlen)
{
	ssize_t n;
	int rc;

	if (j->broken)
		return util_fail(err, errlen, j->broken, "journal unusable since an earlier failure "
			      "(%s); restart the supervisor", strerror(-j->broken));
	n = write(j->fd, rec, len);
	if (n < 0)
		return util_fail(err, errlen, -errno, "write journal: %s", strerror(errno));
	if ((size_t)n != len) {
		if (ftruncate(j->fd, j->size) < 0)
			j->broken = -EIO;
		return util_fail(err, errlen, -EIO, "short write to the journal (%zd of %zu bytes)",
			      n, len);
	}
	j->size += (off_t)len;
	/* fdatasync: the file's size is data for this purpose; only the
	 * timestamps are skipped. */
	if (sync && fdatasync(j->fd) < 0) {
		rc = -errno;
		j->broken = rc;
		j->size -= (off_t)len;
		(void)!ftruncate(j->fd, j->size);	/* best effort: unacknowledged */
		return util_fail(err, errlen, rc, "fsync journal: %s", strerror(-rc));
	}
	return 0;
}

static int jr_submit(struct journal *j, const struct journal_job *job, bool sync, char *err,
		     size_t errlen)
{
	uint8_t rec[JOURNAL_REC_SUBMIT];
	const char *bad = journal_job_invalid(job);
	int rc;

	if (bad)
		return util_fail(err, errlen, -EINVAL, "job %llu: %s", (unsigned long long)job->id, bad);
	/* A reused id would be a second SUBMIT at the next replay. */
	if (job->id < j->next_id)
		return util_fail(err, errlen, -EINVAL, "job id %llu was already used (next free is "
			      "%llu)", (unsigned long long)job->id, (unsigned long long)j->next_id);
	journal_rec_submit(rec, job);
	if ((rc = jr_append(j, rec, sizeof(rec), sync, err, errlen)))
		return rc;
	j->next_id = job->id + 1;
	return 0;
}

int journal_submit(struct journal *j, const struct journal_job *job, char *err, size_t errlen)
{
	return jr_submit(j, job, true, err, errlen);
}

int journal_submit_nosync(struct journal *j, const struct journal_job *job, char *err,
			  size_t errlen)
{
	return jr_submit(j, job, false, err, errlen);
}

int journal_resubmit_nosync(struct journal *j, const struct journal_job *job, char *err, size_t errlen)
{
	uint8_t rec[JOURNAL_REC_SUBMIT];
	const char *bad = journal_job_invalid(job);

	if (bad)
		return util_fail(err, errlen, -EINVAL, "job %llu: %s", (unsigned long long)job->id, bad);
	if (job->id >= j->next_id)
		return util_fail(err, errlen, -EINVAL, "job id %llu was never used", (unsigned long long)job->id);
	journal_rec_submit(rec, job);
	return jr_append(j, rec, sizeof(rec), false, err, errlen);
}

int journal_fd(const struct journal *j)
{
	return j->fd;
}

void journal_synced(struct journal *j, int res)
{
	if (res < 0 && !j->broken)
		j->broken = res;
}

int journal_end(struct journal *j, uint64_t id, uint32_t state, char *err, size_t errlen)
{
	uint8_t rec[JOURNAL_REC_END];

	journal_rec_end(rec, id, state);
	return jr_append(j, rec, sizeof(rec), false, err, errlen);
}

int journal_retry_nosync(struct journal *j, uint64_t id, char *err, size_t errlen)
{
	uint8_t rec[JOURNAL_REC_RETRY];

	journal_rec_retry(rec, id);
	return jr_append(j, rec, sizeof(rec), false, err, errlen);
}

/* Close, syncing first so that the END records of a graceful stop are on
 * disk and the next start does not look at those jobs again. */
void journal_close(struct journal *j)
{
	if (!j)
		return;
	if (!j->broken)
		(void)fdatasync(j->fd);
	close(j->fd);
	close(j->dfd);
	free(j->dir);
	free(j);
}
