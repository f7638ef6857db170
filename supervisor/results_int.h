/*
 * results_int: what results.c (a job's result file, allocation to
 * commit) and results_keep.c (ended jobs' files: removed, kept for a
 * retry, swept at start; partitions reused at resume) share. Nothing
 * outside those two includes it.
 */
#ifndef SUPERVISOR_RESULTS_INT_H
#define SUPERVISOR_RESULTS_INT_H

#include "supervisor/sup.h"

#define STORE_FILE "result.partial"
#define RETRY_MIN_NS 1000000000ull
#define RETRY_MAX_NS 30000000000ull

/* What an EV_STORE completion was for. */
enum store_op {
	OP_MKDIR = 1,	/* create: STATE/jobs/ID */
	OP_OPENDIR,	/* create: open it, no link followed */
	OP_UNLINK_STALE,	/* create: a stale file or link under the file's name */
	OP_CREATE,	/* create: the file, O_EXCL */
	OP_ALLOC,	/* fallocate the whole file */
	OP_HDR,		/* write the header */
	OP_DIGEST,	/* write one partition's digest into the table */
	OP_TAIL,	/* commit: the table and the checksum */
	OP_FSYNC,	/* commit: fsync the file */
	OP_RENAME,	/* commit: rename it into STATE/results */
	OP_DIRSYNC,	/* commit: fsync STATE/results */
	OP_UNLINK,	/* an ended job: its temp file */
	OP_RMDIR,	/* an ended job: its directory */
	OP_REOPEN,	/* a retried job: its kept file (after OP_MKDIR, OP_OPENDIR) */
};

enum store_state { ST_NONE, ST_ALLOC, ST_READY, ST_BLOCKED, ST_COMMIT, ST_DONE, ST_CLEAN, ST_KEPT };

/* STATE/jobs/ID as a path, ID as a name in STATE/jobs, job-ID.result as a
 * name in STATE/results. */
void results_job_dir(const struct sup *s, uint64_t id, char *buf, size_t len);
void results_job_name(uint64_t id, char *buf, size_t len);
void results_file_name(uint64_t id, char *buf, size_t len);
/* Is name in dfd a symbolic link? (O_DIRECTORY | O_NOFOLLOW on one fails
 * with ENOTDIR, not ELOOP.) */
int results_is_link(int dfd, const char *name);
/* The whole result file's size, header to checksum. */
uint64_t results_store_size(const struct job *j);
/* Open STATE/jobs/ID (made first when create), no link followed: an fd,
 * or -errno. */
int results_job_dir_open(struct sup *s, uint64_t id, int create);
/* A completion's user_data for job ji's operation op, and an SQE with it. */
uint64_t results_store_ud(const struct sup *s, int ji, enum store_op op);
struct io_uring_sqe *results_store_sqe(struct sup *s, int ji, enum store_op op);
/* A kept file that cannot be reused: forgotten, its partitions redone. */
void results_lose_kept(struct sup *s, int ji);
/* Close job j's directory fd and its file's. */
void results_close_dir(struct job *j);

#endif
