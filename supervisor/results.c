/*
 * results: the files of jobs and partitions in the state directory.
 *
 * A partition's H is kept in STATE/jobs/ID/pN.h (written whole, then
 * renamed) so that a supervisor started again reuses it after checking it
 * against the re-synthesized partition; a finished job's result is
 * STATE/results/job-ID.result, assembled from those files atomically
 * (temp, fsync, rename, fsync dir: format/pfile).
 *
 * Nothing in the state directory is followed as a symbolic link: all of it
 * is reached through directory fds opened O_DIRECTORY | O_NOFOLLOW
 * (sched_open, job_dir_open) and *at() calls. Temp files are created
 * O_EXCL | O_NOFOLLOW after a stale one (or a link planted under that
 * name) is unlinked; H and result files are read O_NOFOLLOW and must be
 * regular files. What is planted is removed (the link itself), never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pfile.h"
#include "supervisor/sup.h"
#include "verify/verify.h"

/* The state directory is at most SUP_STATE_DIR_MAX bytes: these fit. */
void sched_result_path(const struct sup *s, uint64_t id, char *buf, size_t len)
{
	sup_path(buf, len, "%s/results/job-%llu.result", s->conf.state_dir, (unsigned long long)id);
}

static void part_path(const struct sup *s, uint64_t id, uint32_t p, char *buf, size_t len)
{
	sup_path(buf, len, "%s/jobs/%llu/p%u.h", s->conf.state_dir, (unsigned long long)id, p);
}

static void job_dir(const struct sup *s, uint64_t id, char *buf, size_t len)
{
	sup_path(buf, len, "%s/jobs/%llu", s->conf.state_dir, (unsigned long long)id);
}

/* Names relative to jobs_fd, a job directory and results_fd. */
static void job_name(uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)id);
}

static void part_name(uint32_t p, int tmp, char *buf, size_t len)
{
	snprintf(buf, len, "p%u.h%s", p, tmp ? ".tmp" : "");
}

static void result_name(uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "job-%llu.result", (unsigned long long)id);
}

/* Is name in dfd a symbolic link? (O_DIRECTORY | O_NOFOLLOW on one fails
 * with ENOTDIR, not ELOOP.) */
static int is_link(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* Open (mkdirat first) STATE/NAME, a directory, relative to state_fd. */
static int open_sub(struct sup *s, const char *name, int *fdp, char *err, size_t errlen)
{
	int e;

	if (mkdirat(s->state_fd, name, 0750) < 0 && errno != EEXIST) {
		e = errno;
		snprintf(err, errlen, "mkdir %s/%s: %s", s->conf.state_dir, name, strerror(e));
		return -1;
	}
	*fdp = openat(s->state_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fdp >= 0) {
		struct stat st;
		if (fstat(*fdp, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 022))
			return 0;
		snprintf(err, errlen, "%s/%s is not a directory of this supervisor's uid that only it "
			 "can write; remove it", s->conf.state_dir, name);
		return -1;
	}
	e = errno;
	if (e == ELOOP || (e == ENOTDIR && is_link(s->state_fd, name)))
		snprintf(err, errlen, "%s/%s is a symbolic link, not a directory; remove it",
			 s->conf.state_dir, name);
	else if (e == ENOTDIR)
		snprintf(err, errlen, "%s/%s is not a directory; remove it", s->conf.state_dir, name);
	else
		snprintf(err, errlen, "open %s/%s: %s", s->conf.state_dir, name, strerror(e));
	return -1;
}

int sched_open(struct sup *s, char *err, size_t errlen)
{
	if (open_sub(s, "jobs", &s->jobs_fd, err, errlen) < 0 ||
	    open_sub(s, "results", &s->results_fd, err, errlen) < 0)
		return -1;
	return 0;
}

/* Open job id's directory, STATE/jobs/ID, without following a symbolic
 * link. With create (a job being submitted or resumed: the directory is
 * ours) it is made first, and a symbolic link planted under its name is
 * removed (the link itself) and replaced by a directory. -1 with errno. */
static int job_dir_open(struct sup *s, uint64_t id, int create)
{
	char name[24];
	int fd;

	job_name(id, name, sizeof name);
	if (create && mkdirat(s->jobs_fd, name, 0750) < 0 && errno != EEXIST)
		return -1;
	fd = openat(s->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && create && (errno == ELOOP || errno == ENOTDIR) && is_link(s->jobs_fd, name)) {
		sup_log("%s/jobs/%s was a symbolic link; removed it (not followed)",
			s->conf.state_dir, name);
		if (unlinkat(s->jobs_fd, name, 0) < 0 ||
		    (mkdirat(s->jobs_fd, name, 0750) < 0 && errno != EEXIST))
			return -1;
		fd = openat(s->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/* Remove STATE/jobs/ID: a directory, or whatever was planted there. */
static void job_dir_remove(struct sup *s, uint64_t id)
{
	char name[24];

	job_name(id, name, sizeof name);
	if (unlinkat(s->jobs_fd, name, AT_REMOVEDIR) < 0 && errno == ENOTDIR)
		unlinkat(s->jobs_fd, name, 0);
}

/* Open a partition's H file in job directory dfd for reading: O_NOFOLLOW,
 * and only a regular file. -1 with errno (ELOOP for a symbolic link,
 * EINVAL for anything else that is not a regular file). */
static int part_open(int dfd, uint32_t p)
{
	char name[32];
	struct stat st;
	int fd;

	part_name(p, 0, name, sizeof name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static void remove_parts(struct sup *s, const struct job *j)
{
	char name[32];
	int dfd = job_dir_open(s, j->id, 0);

	for (uint32_t p = 0; dfd >= 0 && p < j->nparts; p++) {
		part_name(p, 0, name, sizeof name);
		unlinkat(dfd, name, 0);
		part_name(p, 1, name, sizeof name);
		unlinkat(dfd, name, 0);
	}
	if (dfd >= 0)
		close(dfd);
	job_dir_remove(s, j->id);
}

/* A partition's H kept from an earlier run (in job directory dfd), if it
 * is sound: a regular file, read, every element canonical, and H checked
 * against the re-synthesized partition (cheaper than proving again). What
 * is not is removed (a symbolic link itself, never its target), and the
 * partition proved again. */
static int part_reusable(const struct sup *s, const struct job *j, int dfd, uint32_t p)
{
	struct synth_id id = { .seed_len = j->seed_len, .partition = p, .k = j->log_size };
	size_t n = (size_t)1 << j->log_size;
	char path[4200], why[200];
	uint8_t *raw = malloc(n * FR_BYTES);
	fr_t *h = malloc(n * sizeof *h);
	int ok = 0, fd;

	memcpy(id.seed, j->seed, j->seed_len);
	part_path(s, j->id, p, path, sizeof path);
	fd = dfd < 0 ? -1 : part_open(dfd, p);
	if (fd < 0 && dfd >= 0 && errno != ENOENT) {
		char name[32];
		sup_log("%s is %s; removed it (not followed), the partition is proved again", path,
			errno == ELOOP ? "a symbolic link, not a regular file" : "not a regular file");
		part_name(p, 0, name, sizeof name);
		unlinkat(dfd, name, 0);
	}
	if (raw && h && fd >= 0 && pread(fd, raw, n * FR_BYTES, 0) == (ssize_t)(n * FR_BYTES)) {
		ok = 1;
		for (size_t i = 0; ok && i < n; i++)
			ok = fr_from_bytes(&h[i], raw + i * FR_BYTES) == 0;
		ok = ok && verify_partition(&id, h, why, sizeof why) == 0;
	}
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && !ok) {
		char name[32];
		part_name(p, 0, name, sizeof name);
		unlinkat(dfd, name, 0);
	}
	free(raw);
	free(h);
	return ok;
}

/* Make job id's directory for a job being submitted: 0, or -errno with
 * one line in err. */
int results_job_dir_make(struct sup *s, uint64_t id, char *err, size_t errlen)
{
	char dir[4200];
	int dfd, e;

	job_dir(s, id, dir, sizeof dir);
	if ((dfd = job_dir_open(s, id, 1)) < 0) {
		e = errno;
		if (e == ELOOP || e == ENOTDIR)
			snprintf(err, errlen, "%s is not a directory; remove it", dir);
		else
			snprintf(err, errlen, "mkdir %s: %s", dir, strerror(e));
		return -e;
	}
	close(dfd);
	return 0;
}

void results_job_dir_remove(struct sup *s, uint64_t id)
{
	job_dir_remove(s, id);
}

void results_job_remove(struct sup *s, const struct job *j)
{
	remove_parts(s, j);
}

/* Is job id's result file already there, whole and for that job? */
int results_have(struct sup *s, uint64_t id)
{
	struct pfile_result res;
	struct pfile_reader *r;
	char path[4200], name[48], err[256];
	int rc;

	sched_result_path(s, id, path, sizeof path);
	result_name(id, name, sizeof name);
	rc = pfile_result_openat(s->results_fd, name, path, &res, &r, err, sizeof err);
	if (rc == -ELOOP)	/* computed again; its rename replaces the link */
		sup_log("job %llu: %s; not followed", (unsigned long long)id, err);
	if (rc != 0)
		return 0;
	pfile_result_close(r);
	return res.job_id == id;
}

/* A resumed job: make its directory, and mark the partitions whose kept
 * H is sound as done. Returns how many were. */
uint32_t results_reuse(struct sup *s, struct job *j)
{
	char dir[4200];
	uint32_t reused = 0;
	int dfd;

	job_dir(s, j->id, dir, sizeof dir);
	if ((dfd = job_dir_open(s, j->id, 1)) < 0)
		sup_log("job %llu: %s: %s", (unsigned long long)j->id, dir,
			errno == ELOOP || errno == ENOTDIR ? "not a directory" : strerror(errno));
	for (uint32_t p = 0; p < j->nparts; p++) {
		int done = part_reusable(s, j, dfd, p);
		j->part[p] = (struct part){ .state = done ? SHM_PART_DONE : SHM_PART_QUEUED,
					    .synth_child = -1, .gpu_child = -1 };
		reused += (uint32_t)done;
	}
	if (dfd >= 0)
		close(dfd);
	return reused;
}

/* Assemble the result file from the partition files, atomically: 0, or
 * -errno with one line in err. */
int results_assemble(struct sup *s, const struct job *j, char *err, size_t errlen)
{
	struct pfile_result res = { .job_id = j->id, .job_kind = j->kind, .partitions = j->nparts };
	struct pfile_writer *w;
	char path[4200], name[48];
	size_t n = 32ull << j->log_size;
	uint8_t *buf = malloc(n);
	int rc = buf ? 0 : -ENOMEM;
	int dfd = job_dir_open(s, j->id, 0);

	if (rc)
		snprintf(err, errlen, "out of memory");
	res.id.seed_len = j->seed_len;
	memcpy(res.id.seed, j->seed, j->seed_len);
	res.id.k = j->log_size;
	sched_result_path(s, j->id, path, sizeof path);
	result_name(j->id, name, sizeof name);
	if (rc == 0)
		rc = pfile_result_beginat(s->results_fd, name, path, &res, &w, err, errlen);
	for (uint32_t p = 0; rc == 0 && p < j->nparts; p++) {
		int fd = dfd < 0 ? -1 : part_open(dfd, p);
		ssize_t got = fd < 0 ? -1 : pread(fd, buf, n, 0);
		if (fd >= 0)
			close(fd);
		if (got != (ssize_t)n) {
			snprintf(err, errlen, "partition %u's H is missing", p);
			pfile_result_abort(w);
			rc = -EIO;
			break;
		}
		rc = pfile_result_put_bytes(w, buf, err, errlen);
	}
	if (rc == 0)
		rc = pfile_result_commit(w, err, errlen);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	return rc;
}

/* Keep partition p's H (len bytes at buf) across a restart: written whole,
 * then renamed. The temp name is ours: a stale file or a link planted there
 * is unlinked (never followed), then it is created O_EXCL | O_NOFOLLOW.
 * 0, or an errno value (logged). */
int results_store_h(struct sup *s, uint64_t id, uint32_t p, const void *buf, size_t len)
{
	char path[4200], tmp[32], name[32];
	int dfd = job_dir_open(s, id, 0), fd = -1, e = 0;
	ssize_t put = -1;

	part_path(s, id, p, path, sizeof path);
	part_name(p, 1, tmp, sizeof tmp);
	part_name(p, 0, name, sizeof name);
	if (dfd < 0 || (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT))
		e = errno;
	else if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0640)) < 0)
		e = errno;
	else if ((put = write(fd, buf, len)) < 0)
		e = errno;
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno;
	if (!e && put != (ssize_t)len)
		e = EIO;
	if (!e && renameat(dfd, tmp, dfd, name) < 0)
		e = errno;
	if (e && fd >= 0)
		unlinkat(dfd, tmp, 0);
	if (dfd >= 0)
		close(dfd);
	if (e)
		sup_log("job %llu: cannot store partition %u at %s: %s", (unsigned long long)id, p, path,
			strerror(e));
	return e;
}
