/*
 * results: each job's result file, from its allocation to its commit,
 * without a byte of payload passing through the supervisor.
 *
 * A job's result is built in place as STATE/jobs/ID/result.partial, a result
 * file of format version 3 (format/pfile.h): the header, each partition's
 * H in its own region, the partitions' digests, a checksum over header and
 * digests. The supervisor allocates the whole file (fallocate) and writes
 * the header; every gpuworker writes its partition's H into its region,
 * fdatasyncs it and reports only the digest (H_DONE); the supervisor
 * writes the digest into the table (so a restart knows which regions are
 * written), and when every partition is in, the commit: the table and the
 * checksum, fsync, rename to STATE/results/job-ID.result, fsync of the
 * directory. Every one of those is an io_uring operation (EV_STORE): the
 * loop never waits for the disk, and never reads or hashes H.
 *
 * The space a job needs is taken when its first partition's turn comes
 * (policy.c), before any of its partitions is synthesized, so a full disk
 * is met at the allocation, never after work was done: the job is then BLOCKED ("no space on DIR, need N MiB"), none
 * of its partitions is handed out, and the step that failed (allocation or
 * a commit step) is tried again with backoff (1 s doubling to 30 s) until
 * it works; then the job goes on by itself. An I/O error blocks the same
 * way. Nothing proven is thrown away: the regions already written stay.
 *
 * A job's store moves NONE -> ALLOC -> READY -> COMMIT -> DONE, with
 * BLOCKED from ALLOC, READY (a gpuworker could not store its H) or COMMIT
 * back to the step that failed, and CLEAN (its files being removed) when
 * it ends otherwise; KEPT when it ends failed or cancelled: its files
 * stay for provisor retry (results_retry: the allocation reopens the
 * file, OP_REOPEN, instead of making it) until the entry is reused
 * (results_drop) or the next start (results_sweep; those three and the
 * reuse of kept partitions at resume are results_keep.c's). Completions
 * carry the job's table index, the entry's
 * epoch (bumped when a job ends, so that what an earlier job left in
 * flight is ignored) and the operation.
 *
 * Nothing in the state directory is followed as a symbolic link: it is all
 * reached through directory fds opened O_DIRECTORY | O_NOFOLLOW
 * (sched_open, job_dir_open) and *at() calls; the temp file is created
 * O_EXCL | O_NOFOLLOW after a stale one (or a link planted under that
 * name) is unlinked, and reopened O_NOFOLLOW as a regular file only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "format/pfile.h"
#include "supervisor/results_int.h"
#include "supervisor/sup.h"
#include "util/text.h"
#include "verify/verify.h"

static_assert(SUP_HDR_BYTES == PFILE_HEADER_BYTES, "result header");


/* The state directory is at most SUP_STATE_DIR_MAX bytes: these fit. */
void sched_result_path(const struct sup *s, uint64_t id, char *buf, size_t len)
{
	sup_path(buf, len, "%s/results/job-%llu.result", s->conf.state_dir, (unsigned long long)id);
}

void results_job_dir(const struct sup *s, uint64_t id, char *buf, size_t len)
{
	sup_path(buf, len, "%s/jobs/%llu", s->conf.state_dir, (unsigned long long)id);
}

void results_job_name(uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)id);
}

void results_file_name(uint64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "job-%llu.result", (unsigned long long)id);
}

uint64_t results_store_size(const struct job *j)
{
	return pfile_res_size(j->file_kind, j->log_size, j->nparts);
}

/* Is name in dfd a symbolic link? (O_DIRECTORY | O_NOFOLLOW on one fails
 * with ENOTDIR, not ELOOP.) */
int results_is_link(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* Open job id's directory, STATE/jobs/ID, without following a symbolic
 * link. With create (a job being submitted or resumed: the directory is
 * ours) it is made first, and a symbolic link planted under its name is
 * removed (the link itself) and replaced by a directory. -1 with errno. */
int results_job_dir_open(struct sup *s, uint64_t id, int create)
{
	char name[24];
	int fd;

	results_job_name(id, name, sizeof name);
	if (create && mkdirat(s->jobs_fd, name, 0750) < 0 && errno != EEXIST)
		return -1;
	fd = openat(s->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && create && (errno == ELOOP || errno == ENOTDIR) && results_is_link(s->jobs_fd, name)) {
		sup_log("%s/jobs/%s was a symbolic link; removed it (not followed)",
			s->conf.state_dir, name);
		if (unlinkat(s->jobs_fd, name, 0) < 0 ||
		    (mkdirat(s->jobs_fd, name, 0750) < 0 && errno != EEXIST))
			return -1;
		fd = openat(s->jobs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/* ---- operations ---- */

uint64_t results_store_ud(const struct sup *s, int ji, enum store_op op)
{
	return loop_ud(EV_STORE, (uint32_t)ji | (uint32_t)s->jobs[ji].store_epoch << 16 |
			(uint32_t)op << 24);
}

struct io_uring_sqe *results_store_sqe(struct sup *s, int ji, enum store_op op)
{
	s->jobs[ji].store_ops++;
	return loop_sqe(&s->loop, results_store_ud(s, ji, op));
}

static void set_state(struct sup *s, int ji, uint32_t state)
{
	struct job *j = &s->jobs[ji];

	if (j->state != state) {
		j->state = state;
		jobs_publish(s, ji);
	}
}

/* The state a job not blocked has: running once a partition was handed out. */
static uint32_t live_state(const struct job *j)
{
	return j->start_mono_ns ? SHM_JOB_RUNNING : SHM_JOB_QUEUED;
}

/* The job's store step failed with errno e: BLOCKED, retried later. The
 * step (OP_ALLOC or a commit step) is where the retry starts. */
static void blocked(struct sup *s, int ji, enum store_op step, int e, const char *what)
{
	struct job *j = &s->jobs[ji];
	uint64_t wait = RETRY_MIN_NS << (j->store_tries < 5 ? j->store_tries : 5);
	char why[sizeof j->why];
	uint32_t code;

	if (wait > RETRY_MAX_NS)
		wait = RETRY_MAX_NS;
	j->store = ST_BLOCKED;
	j->store_step = (uint8_t)step;
	j->store_tries++;
	j->retry_at_ns = shm_now_mono() + wait;
	if (e == ENOSPC || e == EDQUOT) {
		code = SHM_REASON_NO_SPACE;
		snprintf(why, sizeof why, "no space on %.100s, need %.1f MiB (%s)", s->conf.state_dir,
			 results_store_size(j) / 1048576.0, what);
	} else {
		code = SHM_REASON_IO;
		snprintf(why, sizeof why, "I/O error on %.100s: %s: %s", s->conf.state_dir, what,
			 strerror(e));
	}
	/* One line and one event per cause, not one per retry. */
	if (j->state != SHM_JOB_BLOCKED || strcmp(why, j->why)) {
		sup_log("job %llu blocked: %s; retrying every %llu s or less, nothing proven is lost",
			(unsigned long long)j->id, why, (unsigned long long)(RETRY_MAX_NS / 1000000000));
		sup_event(s, SHM_EV_INFO, 0, 0, 0, j->id, 0, "job %llu blocked: %s",
			  (unsigned long long)j->id, why);
	}
	jobs_set_reason(s, ji, code, why);
	j->state = SHM_JOB_BLOCKED;
	jobs_publish(s, ji);
}

static void unblocked(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];

	if (j->state == SHM_JOB_BLOCKED) {
		sup_log("job %llu goes on: %s is usable again", (unsigned long long)j->id,
			s->conf.state_dir);
		sup_event(s, SHM_EV_INFO, 0, 0, 0, j->id, 0, "job %llu goes on", (unsigned long long)j->id);
		jobs_set_reason(s, ji, SHM_REASON_NONE, "");
		set_state(s, ji, live_state(j));
	}
	j->store_tries = 0;
}

/* Creating the file, one io_uring operation after another (a file
 * system busy flushing gigabytes can hold a metadata operation for tens of
 * milliseconds; the loop does not wait for it): make STATE/jobs/ID
 * (OP_MKDIR), open it with no symbolic link followed anywhere (OP_OPENDIR:
 * openat2, RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH), unlink a stale file or
 * a link planted under the file's name (OP_UNLINK: the link itself, never
 * its target), create the file O_EXCL | O_NOFOLLOW (OP_CREATE); then the
 * allocation. */
static void create_step(struct sup *s, int ji, enum store_op step)
{
	struct job *j = &s->jobs[ji];
	struct io_uring_sqe *sqe;

	j->store = ST_ALLOC;
	j->store_step = (uint8_t)step;
	j->store_err = 0;
	switch (step) {
	case OP_MKDIR:
		results_job_name(j->id, j->path2, sizeof j->path2);
		io_uring_prep_mkdirat(results_store_sqe(s, ji, OP_MKDIR), s->jobs_fd, j->path2, 0750);
		break;
	case OP_OPENDIR:
		j->how = (struct open_how){ .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
					    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
		io_uring_prep_openat2(results_store_sqe(s, ji, OP_OPENDIR), s->jobs_fd, j->path2, &j->how);
		break;
	case OP_UNLINK_STALE:
		io_uring_prep_unlinkat(results_store_sqe(s, ji, OP_UNLINK_STALE), j->dir_fd, STORE_FILE, 0);
		break;
	case OP_REOPEN:
		io_uring_prep_openat(results_store_sqe(s, ji, OP_REOPEN), j->dir_fd, STORE_FILE,
				     O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
		break;
	case OP_CREATE:
		sqe = results_store_sqe(s, ji, OP_CREATE);
		io_uring_prep_openat(sqe, j->dir_fd, STORE_FILE,
				     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
		break;
	default:
		break;
	}
}

/* A retried job's kept file, reopened: a regular file of its size. (An
 * fstat of an open file: no path is looked up, nothing waits for I/O.) */
static int reopen_ok(const struct job *j, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	       (uint64_t)st.st_size == results_store_size(j);
}

/* A retried job's kept file is gone: what it had is proved again. */
void results_lose_kept(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	uint32_t lost = 0;

	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].state == SHM_PART_DONE) {
			part_event(s, ji, p, PEV_LOST, NULL);
			lost++;
		}
	memset(j->tail, 0, sizeof j->tail);
	if (lost)
		sup_log("job %llu: its kept result file is gone; %u partitions to prove again",
			(unsigned long long)j->id, lost);
	jobs_publish(s, ji);
}

void results_close_dir(struct job *j)
{
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	j->dir_fd = -1;
}

/* Allocation: make sure the file is there (made when missing; a removed
 * one is made again, and what it held is proved again), then fallocate all
 * of it and write the header, both in flight at once. */
static void start_alloc(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct pfile_result res = { .job_id = j->id, .job_kind = j->kind, .partitions = j->nparts };
	struct stat st;

	if (j->store_fd >= 0 && (fstat(j->store_fd, &st) < 0 || st.st_nlink == 0)) {
		uint32_t lost = 0;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].state == SHM_PART_DONE) {
				part_event(s, ji, p, PEV_LOST, NULL);
				lost++;
			}
		sup_log("job %llu: its result file was removed; making it again (%u partitions to "
			"prove again)", (unsigned long long)j->id, lost);
		memset(j->tail, 0, sizeof j->tail);
		/* what gpuworkers are proving now lands in the removed file */
		j->store_gen_floor = s->next_gen + 1;
		loop_flush(&s->loop);	/* submitted operations hold the file, not the number */
		close(j->store_fd);
		j->store_fd = -1;
	}
	if (j->store_fd < 0) {
		create_step(s, ji, OP_MKDIR);
		return;		/* OP_CREATE's completion comes back here */
	}
	res.id.seed_len = j->seed_len;
	memcpy(res.id.seed, j->seed, j->seed_len);
	res.id.k = j->log_size;
	pfile_res_header(j->file_kind, &res, j->hdr);
	j->store = ST_ALLOC;
	j->store_err = 0;
	io_uring_prep_fallocate(results_store_sqe(s, ji, OP_ALLOC), j->store_fd, 0, 0, (off_t)results_store_size(j));
	io_uring_prep_write(results_store_sqe(s, ji, OP_HDR), j->store_fd, j->hdr, SUP_HDR_BYTES, 0);
}

/* Commit, one step at a time from step. */
static void commit_step(struct sup *s, int ji, enum store_op step)
{
	struct job *j = &s->jobs[ji];
	struct io_uring_sqe *sqe;
	uint32_t P = j->nparts;

	j->store = ST_COMMIT;
	j->store_step = (uint8_t)step;
	j->store_err = 0;
	switch (step) {
	case OP_TAIL:
		pfile_result2_sum(j->hdr, j->tail, P, j->tail + (size_t)P * 32);
		io_uring_prep_write(results_store_sqe(s, ji, OP_TAIL), j->store_fd, j->tail, (P + 1) * 32,
				    pfile_res_table_off(j->file_kind, j->log_size, P));
		break;
	case OP_FSYNC:
		io_uring_prep_fsync(results_store_sqe(s, ji, OP_FSYNC), j->store_fd, 0);
		break;
	case OP_RENAME:
		snprintf(j->path, sizeof j->path, "%llu/" STORE_FILE, (unsigned long long)j->id);
		results_file_name(j->id, j->path2, sizeof j->path2);
		sqe = results_store_sqe(s, ji, OP_RENAME);
		io_uring_prep_renameat(sqe, s->jobs_fd, j->path, s->results_fd, j->path2, 0);
		break;
	case OP_DIRSYNC:
		io_uring_prep_fsync(results_store_sqe(s, ji, OP_DIRSYNC), s->results_fd, 0);
		break;
	default:
		break;
	}
}

int results_commit_due(const struct job *j)
{
	return j->store == ST_READY && j->store_ops == 0;
}

void results_commit(struct sup *s, int ji)
{
	commit_step(s, ji, OP_TAIL);
}

static const char *op_what(enum store_op op)
{
	switch (op) {
	case OP_MKDIR: return "making the job's directory";
	case OP_OPENDIR: return "opening the job's directory";
	case OP_UNLINK_STALE: return "removing a stale result file";
	case OP_CREATE: return "creating the result file";
	case OP_ALLOC: return "allocating the result file";
	case OP_HDR: return "writing the result's header";
	case OP_DIGEST: return "writing a partition's digest";
	case OP_TAIL: return "writing the result's digests";
	case OP_FSYNC: return "syncing the result file";
	case OP_RENAME: return "renaming the result into results/";
	case OP_DIRSYNC: return "syncing results/";
	default: return "removing an ended job's files";
	}
}

/* A creation step completed (create_step). */
static void on_create(struct sup *s, int ji, enum store_op op, int res)
{
	struct job *j = &s->jobs[ji];

	switch (op) {
	case OP_MKDIR:
		if (res < 0 && res != -EEXIST)
			break;
		create_step(s, ji, OP_OPENDIR);
		return;
	case OP_OPENDIR:
		if ((res == -ELOOP || res == -ENOTDIR || res == -EXDEV) && !j->repaired) {
			/* Not a directory of ours: a link (or a file) planted
			 * under its name. The link itself is removed and a
			 * directory made (job_dir_open), once; not a path of
			 * normal operation, so done here and now. */
			int fd = results_job_dir_open(s, j->id, 1);
			j->repaired = 1;
			if (fd >= 0) {
				close(fd);
				create_step(s, ji, OP_OPENDIR);
				return;
			}
		}
		if (res < 0)
			break;
		j->dir_fd = res;
		create_step(s, ji, j->reopen ? OP_REOPEN : OP_UNLINK_STALE);
		return;
	case OP_REOPEN:
		j->reopen = 0;
		if (res >= 0 && reopen_ok(j, res)) {
			results_close_dir(j);
			j->store_fd = res;
			start_alloc(s, ji);	/* fallocate (no-op) and header again */
			return;
		}
		if (res >= 0)
			close(res);
		results_lose_kept(s, ji);	/* gone or not ours: made again, all proved again */
		create_step(s, ji, OP_UNLINK_STALE);
		return;
	case OP_UNLINK_STALE:
		if (res < 0 && res != -ENOENT)
			break;
		create_step(s, ji, OP_CREATE);
		return;
	case OP_CREATE:
		results_close_dir(j);
		if (res < 0)
			break;
		j->store_fd = res;
		start_alloc(s, ji);	/* the file is there: fallocate and header */
		return;
	default:
		return;
	}
	results_close_dir(j);
	blocked(s, ji, OP_ALLOC, -res, op_what(op));
}

void results_on_cqe(struct sup *s, uint32_t who, int res)
{
	uint32_t ji = who & 0xffff;
	enum store_op op = (enum store_op)(who >> 24);
	struct job *j;

	if (ji >= s->njobs || s->jobs[ji].store_epoch != ((who >> 16) & 0xff)) {
		/* For a job that has ended since: settled then; only an fd
		 * it was opening is left to close. */
		if ((op == OP_OPENDIR || op == OP_CREATE || op == OP_REOPEN) && res >= 0)
			close(res);
		return;
	}
	j = &s->jobs[ji];
	j->store_ops--;
	if ((op >= OP_MKDIR && op <= OP_CREATE) || op == OP_REOPEN) {
		on_create(s, (int)ji, op, res);
		return;
	}
	if (op == OP_UNLINK || op == OP_RMDIR) {
		if (res < 0 && res != -ENOENT && res != -ECANCELED)
			sup_log("job %llu: %s: %s", (unsigned long long)j->id, op_what(op),
				strerror(-res));
		return;
	}
	/* A short write of the header or the tail is an error too. */
	if (res >= 0 && ((op == OP_HDR && res != SUP_HDR_BYTES) ||
			 (op == OP_TAIL && res != (int)((j->nparts + 1) * 32)) ||
			 (op == OP_DIGEST && res != 32)))
		res = -EIO;
	if (res == -EOPNOTSUPP && op == OP_ALLOC) {
		/* A file system without fallocate: a sparse file, no space held. */
		res = ftruncate(j->store_fd, (off_t)results_store_size(j)) < 0 ? -errno : 0;
	}
	if (res < 0 && !j->store_err) {
		j->store_err = -res;
		j->store_err_op = (uint8_t)op;
	}
	if (op == OP_DIGEST) {
		/* Only a restart reads the table before the commit rewrites it
		 * whole: a failed digest costs that partition a re-proof then. */
		if (res < 0)
			sup_log("job %llu: %s: %s", (unsigned long long)j->id, op_what(op),
				strerror(-res));
		if (j->store_ops == 0 && j->store == ST_READY)
			jobs_check_done(s, (int)ji);
		j->store_err = 0;
		return;
	}
	if (j->store_ops)
		return;		/* the other of the allocation's two */
	if (j->store_err) {
		blocked(s, (int)ji, j->store == ST_ALLOC ? OP_ALLOC : op, j->store_err,
			op_what((enum store_op)j->store_err_op));
		return;
	}
	switch (op) {
	case OP_ALLOC:
	case OP_HDR:
		j->store = ST_READY;
		unblocked(s, (int)ji);
		jobs_check_done(s, (int)ji);	/* a resumed job may be whole already */
		break;
	case OP_TAIL:
	case OP_FSYNC:
	case OP_RENAME:
		commit_step(s, (int)ji, op + 1);
		break;
	case OP_DIRSYNC:
		j->store = ST_DONE;
		unblocked(s, (int)ji);
		jobs_finish(s, (int)ji, SHM_JOB_DONE, SHM_REASON_NONE, NULL);
		break;
	default:
		break;
	}
}

/* Start what is due: the retries of blocked jobs, and the allocation of
 * resumed jobs with nothing left to prove (no turn comes for them: they
 * only need their commit). Called by the 100 ms tick, not after every
 * loop iteration: the retries are seconds apart, and it walks the whole
 * job table. */
void results_kick(struct sup *s)
{
	uint64_t now = 0;

	for (uint32_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (!j->id || !jobs_active(j) || j->store_ops)
			continue;
		if (j->store == ST_NONE) {
			uint32_t p = 0;
			while (p < j->nparts && j->part[p].state == SHM_PART_DONE)
				p++;
			if (p == j->nparts)
				start_alloc(s, (int)i);
		} else if (j->store == ST_BLOCKED) {
			if (!now)
				now = shm_now_mono();
			if (now < j->retry_at_ns)
				continue;
			if (j->store_step == OP_ALLOC)
				start_alloc(s, (int)i);
			else
				commit_step(s, (int)i, (enum store_op)j->store_step);
		}
	}
}

/* May partitions of this job be handed out? Only into an allocated file. */
int results_ready(const struct job *j)
{
	return j->store == ST_READY;
}

int results_blocked(const struct job *j)
{
	return j->store == ST_BLOCKED;
}

/* Its turn came: allocate its file (nothing while that is under way). */
void results_alloc(struct sup *s, int ji)
{
	if (s->jobs[ji].store == ST_NONE)
		start_alloc(s, ji);
}

/* A gpuworker stored partition p of job ji: its digest goes into the
 * table, so that a restart knows the region is written. */
void results_part_stored(struct sup *s, int ji, uint32_t p, const uint8_t digest[32])
{
	struct job *j = &s->jobs[ji];

	memcpy(j->tail + (size_t)p * 32, digest, 32);
	io_uring_prep_write(results_store_sqe(s, ji, OP_DIGEST), j->store_fd, j->tail + (size_t)p * 32, 32,
			    pfile_res_table_off(j->file_kind, j->log_size, j->nparts) + (uint64_t)p * 32);
}

/* A gpuworker could not store its H (errno e at step op): the job blocks
 * until the allocation works again. */
void results_part_failed(struct sup *s, int ji, int e, const char *what)
{
	if (s->jobs[ji].store == ST_READY)
		blocked(s, ji, OP_ALLOC, e, what);
}
