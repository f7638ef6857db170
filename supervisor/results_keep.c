/*
 * results_keep: what becomes of a job's files once it ends, and what a
 * restart finds of them (results.c builds them). A job that is done has
 * its temp file and directory removed; one that ended failed or
 * cancelled keeps STATE/jobs/ID/result.partial for provisor retry
 * (results_retry reopens it at the job's turn) until its entry is reused
 * (results_drop) or the next start (results_sweep, through a directory
 * opened O_NOFOLLOW). At resume, a kept file's partitions whose region
 * is whole, canonical and checks against the re-synthesized partition
 * are reused instead of proven again (results_reuse); a kept proof (with
 * its H, for keep_h) is reused once a synth has checked it. Also the state
 * directory's jobs/ and results/ at start (sched_open), and the free
 * space a job's result needs at submit (results_fits).
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

/* A kept file gives back the space of every partition a retry would
 * prove again (punched holes): only the header, the done partitions'
 * regions and the table stay allocated. The retry's allocation takes the
 * whole file again at its turn. */
static void release_undone(struct job *j)
{
	uint64_t region = pfile_res_region(j->file_kind, j->log_size);

	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].state != SHM_PART_DONE &&
		    fallocate(j->store_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)pfile_res_part_off(j->file_kind, j->log_size, p), (off_t)region) < 0)
			return;	/* no hole punching here: the retry or the removal frees it */
}

/* The job ended (done, failed, cancelled): close its file, remove what is
 * left of it (the temp file unless the commit renamed it, then the
 * directory), asynchronously; what it had in flight is ignored. A failed
 * or cancelled job with partitions done keeps its file for provisor
 * retry, less the space of the others (release_undone); one with none
 * done has nothing a retry would reuse, and gives all of it back now. */
void results_end(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct io_uring_sqe *sqe;
	int renamed = j->store == ST_DONE, done = 0;

	for (uint32_t p = 0; p < j->nparts; p++)
		done += j->part[p].state == SHM_PART_DONE;
	int keep = (j->state == SHM_JOB_FAILED || j->state == SHM_JOB_CANCELLED) &&
		   j->store_fd >= 0 && done > 0;

	j->store_epoch++;
	j->store_ops = 0;
	j->store = keep ? ST_KEPT : ST_CLEAN;
	results_close_dir(j);
	if (j->store_fd >= 0) {
		loop_flush(&s->loop);	/* what was submitted holds the file */
		if (keep)
			release_undone(j);
		close(j->store_fd);
		j->store_fd = -1;
	}
	if (keep)
		return;		/* for provisor retry: removed when the entry is reused */
	snprintf(j->path, sizeof j->path, "%llu/" STORE_FILE, (unsigned long long)j->id);
	results_job_name(j->id, j->path2, sizeof j->path2);
	if (!renamed) {
		sqe = results_store_sqe(s, ji, OP_UNLINK);
		io_uring_prep_unlinkat(sqe, s->jobs_fd, j->path, 0);
		sqe->flags |= IOSQE_IO_HARDLINK;	/* the directory after it, either way */
	}
	io_uring_prep_unlinkat(results_store_sqe(s, ji, OP_RMDIR), s->jobs_fd, j->path2, AT_REMOVEDIR);
}

/* A failed or cancelled job's kept files are removed: its table entry is
 * to take another job (or the supervisor starts, results_sweep). The
 * removal is submitted at once, its paths copied by the kernel then, and
 * its completions come back stale (the epoch is bumped), so the entry is
 * free for the new job now. */
void results_drop(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct io_uring_sqe *sqe;

	if (j->store != ST_KEPT)
		return;
	snprintf(j->path, sizeof j->path, "%llu/" STORE_FILE, (unsigned long long)j->id);
	results_job_name(j->id, j->path2, sizeof j->path2);
	sqe = loop_sqe(&s->loop, results_store_ud(s, ji, OP_UNLINK));
	io_uring_prep_unlinkat(sqe, s->jobs_fd, j->path, 0);
	sqe->flags |= IOSQE_IO_HARDLINK;
	io_uring_prep_unlinkat(loop_sqe(&s->loop, results_store_ud(s, ji, OP_RMDIR)), s->jobs_fd, j->path2,
			       AT_REMOVEDIR);
	j->store_epoch++;
	loop_flush(&s->loop);
	j->store = ST_NONE;
}

/* A retried job (provisor retry): its kept file, if it is still there,
 * is reopened at its turn (OP_MKDIR, OP_OPENDIR, OP_REOPEN), with the
 * partitions that were done; else it is made again. 0, or -ENOENT when
 * nothing was kept (all of it is proved again). */
int results_retry(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	int kept = j->store == ST_KEPT;

	j->store = ST_NONE;
	j->store_err = 0;
	j->store_tries = 0;
	j->reopen = (uint8_t)kept;
	if (!kept)
		results_lose_kept(s, ji);
	return kept ? 0 : -ENOENT;
}

/* At start, after the journal's jobs are resumed: the directories of
 * STATE/jobs that belong to no job in the table (a failed or cancelled
 * job's, kept for a retry that did not come before the stop) are
 * removed. Runs before the loop serves. */
void results_sweep(struct sup *s)
{
	int fd = openat(s->jobs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char *end;
		unsigned long long id = strtoull(e->d_name, &end, 10);
		int ours = 0, dfd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || !id)
			continue;
		for (uint32_t i = 0; i < s->njobs; i++)
			ours |= s->jobs[i].id == id && jobs_active(&s->jobs[i]);
		if (ours)
			continue;
		/* no link followed: the file is removed through the
		 * directory opened O_NOFOLLOW */
		dfd = openat(s->jobs_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd >= 0) {
			unlinkat(dfd, STORE_FILE, 0);
			close(dfd);
		}
		if (unlinkat(s->jobs_fd, e->d_name, AT_REMOVEDIR) < 0)
			sup_log("STATE/jobs/%s: no job of ours; not removed: %s", e->d_name, strerror(errno));
		else
			sup_log("STATE/jobs/%s: a failed or cancelled job's files; removed", e->d_name);
	}
	closedir(d);
}

/* May this table entry take a new job? Not while its files are being
 * removed (those operations use its paths). */
int results_entry_free(const struct job *j)
{
	return !(j->store == ST_CLEAN && j->store_ops);
}

/* At exit: close every file; unfinished jobs keep theirs for the next
 * start. An ended job's removal still in flight is finished here (the
 * ring goes away with whatever it had not done). */
void results_close_all(struct sup *s)
{
	for (uint32_t i = 0; s->jobs && i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (j->store_fd >= 0) {
			close(j->store_fd);
			j->store_fd = -1;
		}
		results_close_dir(j);
		if (j->store == ST_CLEAN && j->store_ops && s->jobs_fd >= 0) {
			unlinkat(s->jobs_fd, j->path, 0);
			unlinkat(s->jobs_fd, j->path2, AT_REMOVEDIR);
		}
	}
}


/* A proofs or proofs+H file named name, whole and for job id? Its
 * header, size and the checksum over header and table; a proofs file's
 * regions against their digests too (376 bytes each). A proofs+H file's
 * regions are not read here (4 GiB a partition at k = 27, at every
 * start): each was checked by a synth before the commit, and the file was
 * fsynced before its rename, so one that is there is whole. */
static int have_proofs(struct sup *s, const char *name, const char *path, uint64_t id)
{
	uint8_t proof[PFILE_PROOF_REGION];
	struct pfile_result res;
	struct pfile_proofs *r;
	uint32_t kind;
	char err[256];
	int ok;

	if (pfile_proofs_openat(s->results_fd, name, path, &res, &kind, &r, err, sizeof err))
		return 0;
	ok = res.job_id == id;
	for (uint32_t p = 0; ok && kind == PFILE_KIND_PROOFS && p < res.partitions; p++)
		ok = pfile_proofs_proof(r, p, proof, err, sizeof err) == 0;
	pfile_proofs_close(r);
	return ok;
}

/* Is job id's result file already there, whole and for that job? */
int results_have(struct sup *s, uint64_t id)
{
	struct pfile_result res;
	struct pfile_reader *r;
	char path[4200], name[48], err[256];
	int rc;

	sched_result_path(s, id, path, sizeof path);
	results_file_name(id, name, sizeof name);
	rc = pfile_result_openat(s->results_fd, name, path, &res, &r, err, sizeof err);
	if (rc == -ELOOP)	/* computed again; its rename replaces the link */
		sup_log("job %llu: %s; not followed", (unsigned long long)id, err);
	if (rc == -EINVAL)	/* not an H result: a kind with params ends in proofs */
		return have_proofs(s, name, path, id);
	if (rc != 0)
		return 0;
	pfile_result_close(r);
	return res.job_id == id;
}

/* Partition p's region of a kept temp file (fd), if it is sound: its
 * digest in the table is set, the bytes hash to it, every element is
 * canonical, and H checks against the re-synthesized partition (cheaper
 * than proving again). This runs at start, before the loop serves.
 * A proof is only held to its digest here (376 bytes): whoever stored it
 * could have written the table too, so it is kept pending a synth's check
 * (pairing, with x_out derived from the identity: results_reuse). A proof
 * with its H (keep_h) is not read here at all (its digest covers the H,
 * 4 GiB at k = 27): a set digest keeps it pending the same check, which
 * reads the region once for the digest, the proof and the H. */
static int part_reusable(const struct job *j, int fd, uint32_t p, uint8_t *raw, fr_t *h)
{
	static const uint8_t zero[32];
	struct synth_id id = { .seed_len = j->seed_len, .partition = p, .k = j->log_size };
	size_t n = (size_t)1 << j->log_size;
	const uint8_t *want = j->tail + (size_t)p * 32;
	struct pfile_digest d;
	uint8_t got[32];
	char why[200];
	int ok = 1;

	if (!memcmp(want, zero, 32))
		return 0;
	if (j->file_kind == PFILE_KIND_PROOFS_H)
		return 1;
	if (j->file_kind == PFILE_KIND_PROOFS) {
		if (pread(fd, raw, PFILE_PROOF_REGION, (off_t)pfile_res_part_off(PFILE_KIND_PROOFS, j->log_size, p)) !=
		    PFILE_PROOF_REGION)
			return 0;
		pfile_digest_init(&d);
		pfile_digest_update(&d, raw, PFILE_PROOF_REGION);
		pfile_digest_final(&d, got);
		return !memcmp(got, want, 32);
	}
	if (
	    pread(fd, raw, n * FR_BYTES, (off_t)pfile_result2_part_off(j->log_size, p)) !=
	    (ssize_t)(n * FR_BYTES))
		return 0;
	pfile_digest_init(&d);
	pfile_digest_update(&d, raw, n * FR_BYTES);
	pfile_digest_final(&d, got);
	if (memcmp(got, want, 32))
		return 0;
	memcpy(id.seed, j->seed, j->seed_len);
	for (size_t i = 0; ok && i < n; i++)
		ok = fr_from_bytes(&h[i], raw + i * FR_BYTES) == 0;
	return ok && verify_partition(&id, h, why, sizeof why) == 0;
}

/* A resumed job: its temp file, if one of the right size is there, keeps
 * the partitions whose region is sound (marked done); the rest are queued.
 * The allocation (results_kick) follows. Returns how many were kept. */
uint32_t results_reuse(struct sup *s, struct job *j)
{
	size_t n = (size_t)1 << j->log_size;
	uint32_t reused = 0;
	uint8_t *raw = NULL;
	fr_t *h = NULL;
	struct stat st;
	char dir[4200];
	int dfd, fd = -1;

	j->store_fd = -1;
	results_job_dir(s, j->id, dir, sizeof dir);
	if ((dfd = results_job_dir_open(s, j->id, 1)) < 0)
		sup_log("job %llu: %s: %s", (unsigned long long)j->id, dir,
			errno == ELOOP || errno == ENOTDIR ? "not a directory" : strerror(errno));
	if (dfd >= 0)
		fd = openat(dfd, STORE_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			(uint64_t)st.st_size != results_store_size(j) ||
			pread(fd, j->tail, (size_t)j->nparts * 32,
			      (off_t)pfile_res_table_off(j->file_kind, j->log_size, j->nparts)) !=
			(ssize_t)j->nparts * 32)) {
		close(fd);	/* not ours to reuse: made again */
		fd = -1;
		memset(j->tail, 0, sizeof j->tail);
	}
	if (fd >= 0 && pfile_kind_has_proofs(j->file_kind)) {	/* a proof, not an H */
		raw = malloc(PFILE_PROOF_REGION);
		h = malloc(sizeof *h);
	} else if (fd >= 0) {
		raw = malloc(n * FR_BYTES);
		h = malloc(n * sizeof *h);
	}
	for (uint32_t p = 0; p < j->nparts; p++) {
		int done = raw && h && part_reusable(j, fd, p, raw, h);
		if (!done)
			memset(j->tail + (size_t)p * 32, 0, 32);
		j->part[p] = (struct part){ .state = done ? SHM_PART_DONE : SHM_PART_QUEUED,
					    .synth_child = -1, .gpu_child = -1, .xout_from = -1 };
		if (done && pfile_kind_has_proofs(j->file_kind)) {	/* a synth checks it first */
			j->part[p].verify = PV_PENDING;
			j->part[p].derive_xout = 1;
		}
		reused += (uint32_t)done;
	}
	free(raw);
	free(h);
	j->store_fd = fd;
	if (dfd >= 0)
		close(dfd);
	return reused;
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
	if (e == ELOOP || (e == ENOTDIR && results_is_link(s->state_fd, name)))
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

/* Before a job is accepted: does its result fit in the free space, beside
 * the results of the jobs accepted before it whose files are not (wholly)
 * allocated yet? (An allocated file is in the free space already; one
 * being allocated, blocked, or to be reopened for a retry is counted
 * whole.) 0, or -ENOSPC with one line. */
int results_fits(struct sup *s, uint32_t file_kind, uint32_t k, uint32_t parts, char *err, size_t errlen)
{
	uint64_t need = pfile_res_size(file_kind, k, parts), avail, owed = 0;
	uint32_t n = 0;
	struct statvfs v;

	if (fstatvfs(s->state_fd, &v) < 0)
		return 0;	/* cannot tell: the allocation will */
	avail = (uint64_t)v.f_bavail * v.f_frsize;
	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (jobs_active(j) && (j->store == ST_NONE || j->store == ST_ALLOC || j->store == ST_BLOCKED)) {
			owed += results_store_size(j);
			n++;
		}
	}
	if (need + owed <= avail)
		return 0;
	if (!owed)
		snprintf(err, errlen, "no space for the result: it needs %.1f MiB and %s has %.1f MiB free",
			 need / 1048576.0, s->conf.state_dir, avail / 1048576.0);
	else
		snprintf(err, errlen, "no space for the result: it needs %.1f MiB and %s has %.1f MiB free, "
			 "%.1f MiB of it for %u accepted jobs whose results are not allocated yet",
			 need / 1048576.0, s->conf.state_dir, avail / 1048576.0, owed / 1048576.0, n);
	return -ENOSPC;
}
