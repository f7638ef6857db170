/*
 * sched: jobs and partitions, from submit to result file.
 *
 * A partition moves queued -> synthesizing (a synth child) -> ready (its
 * payload waits in that synth's stdout pipe) -> proving (relayed to a
 * gpuworker, which holds up to SUP_GPU_DEPTH) -> done | failed. Choices
 * are made in sched_run after every event:
 *   - an idle synth gets the queued partition that comes first by
 *     (kind priority, job id, partition), if the memory budget allows;
 *   - a ready partition (again first by that order) is relayed to the
 *     gpuworker with the fewest partitions, if one has room: the header
 *     is written, then the payload is spliced pipe to pipe, never copied
 *     through this process.
 * The memory budget counts 3 * 2^k * 32 bytes for each partition from its
 * SYNTH_REQ until its H arrives (or it is requeued): synthesis is
 * throttled instead of filling memory. One partition is always allowed so
 * an oversized one cannot stall everything.
 *
 * Files: everything under STATE/jobs and STATE/results is reached through
 * directory fds opened O_DIRECTORY | O_NOFOLLOW (sched_open, job_dir_open)
 * and *at() calls, so no symbolic link inside the state directory is
 * followed. Temp files are created O_EXCL | O_NOFOLLOW after a stale one
 * (or a link planted under that name) is unlinked; H and result files are
 * read O_NOFOLLOW and must be regular files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pfile.h"
#include "journal/journal.h"
#include "supervisor/sup.h"
#include "util/text.h"
#include "verify/verify.h"


static uint64_t part_bytes(const struct job *j)
{
	return 3ull << j->log_size << 5;
}

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

static void publish_job(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct shm_job v = { 0 };

	v.id = j->id;
	v.kind = j->kind;
	v.priority = j->priority;
	v.state = j->state;
	v.log_size = j->log_size;
	v.nparts = j->nparts;
	memcpy(v.seed, j->seed, j->seed_len);
	v.submit_wall_ns = j->submit_wall_ns;
	v.submit_mono_ns = j->submit_mono_ns;
	v.start_mono_ns = j->start_mono_ns;
	v.end_mono_ns = j->end_mono_ns;
	memcpy(v.reason, j->reason, sizeof v.reason);
	for (uint32_t p = 0; p < j->nparts; p++) {
		const struct part *pt = &j->part[p];
		v.part[p].state = pt->state;
		v.part[p].attempts = pt->attempts;
		v.part[p].synth_slot = pt->synth_child < 0 ? 0xffff
			: (uint16_t)s->child[pt->synth_child].slot;
		v.part[p].gpu_slot = pt->gpu_child < 0 ? 0xffff
			: (uint16_t)s->child[pt->gpu_child].slot;
		v.part[p].synth_ns = pt->synth_ns;
		v.part[p].gpu_ns = pt->gpu_ns;
	}
	shm_write_job(&s->seg, (uint32_t)ji, &v);
}

/* Totals for the supervisor record. */
void sched_publish(struct sup *s)
{
	struct shm_sup *st = &s->stats;

	st->state = s->stopping ? SHM_SUP_STOPPING : s->draining ? SHM_SUP_DRAINING : SHM_SUP_RUNNING;
	st->jobs_queued = st->jobs_running = 0;
	for (uint32_t i = 0; i < s->njobs; i++) {
		st->jobs_queued += s->jobs[i].id && s->jobs[i].state == SHM_JOB_QUEUED;
		st->jobs_running += s->jobs[i].id && s->jobs[i].state == SHM_JOB_RUNNING;
	}
	st->mem_budget = s->conf.mem_budget;
	st->mem_used = sched_mem_used(s);
	shm_write_sup(&s->seg, st);
}

static int job_active(const struct job *j)
{
	return j->id && (j->state == SHM_JOB_QUEUED || j->state == SHM_JOB_RUNNING);
}

int sched_idle(const struct sup *s)
{
	for (uint32_t i = 0; i < s->njobs; i++)
		if (job_active(&s->jobs[i]))
			return 0;
	return 1;
}

/* A free table entry, else the one that finished longest ago. */
static int job_slot(struct sup *s)
{
	int best = -1;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!j->id)
			return (int)i;
		if (!job_active(j) && (best < 0 || j->end_mono_ns < s->jobs[best].end_mono_ns))
			best = (int)i;
	}
	return best;
}

int sched_submit(struct sup *s, uint32_t kind, const uint8_t *seed, uint32_t seed_len,
		 uint32_t k, uint32_t parts, uint64_t *id, char *err, size_t errlen)
{
	const struct conf_kind *kc;
	uint32_t active = 0;
	int ji;

	if (s->draining || s->stopping) {
		snprintf(err, errlen, "draining: not accepting jobs");
		return -EBUSY;
	}
	if (kind < 1 || kind > VOCAB_NKINDS) {
		snprintf(err, errlen, "unknown job kind %u", kind);
		return -EINVAL;
	}
	kc = &s->conf.kind[kind];
	k = k ? k : kc->log_size;
	parts = parts ? parts : kc->partitions;
	if (k < 1 || k > s->conf.max_log_size) {
		snprintf(err, errlen, "log size %u is outside 1..%u (max_log_size)", k, s->conf.max_log_size);
		return -EINVAL;
	}
	if (parts < 1 || parts > VOCAB_MAX_PARTS) {
		snprintf(err, errlen, "partitions %u is outside 1..%d", parts, VOCAB_MAX_PARTS);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < s->njobs; i++)
		active += job_active(&s->jobs[i]);
	ji = job_slot(s);
	if (active >= s->conf.max_jobs) {
		snprintf(err, errlen, "job limit reached: max_jobs (%u) jobs queued or running",
			 s->conf.max_jobs);
		return -ENOSPC;
	}
	if (ji < 0) {
		snprintf(err, errlen, "job limit reached: the job table's %u entries are all queued or running",
			 s->njobs);
		return -ENOSPC;
	}
	struct job *j = &s->jobs[ji];
	char dir[4200];
	int dfd, e;

	memset(j, 0, sizeof *j);
	j->id = s->next_job_id++;
	job_dir(s, j->id, dir, sizeof dir);
	if ((dfd = job_dir_open(s, j->id, 1)) < 0) {
		e = errno;
		if (e == ELOOP || e == ENOTDIR)
			snprintf(err, errlen, "%s is not a directory; remove it", dir);
		else
			snprintf(err, errlen, "mkdir %s: %s", dir, strerror(e));
		j->id = 0;
		return -e;
	}
	close(dfd);
	j->kind = kind;
	j->priority = kc->priority;
	j->log_size = k;
	j->nparts = parts;
	if (seed_len) {
		memcpy(j->seed, seed, seed_len);
		j->seed_len = seed_len;
	} else {
		if (getrandom(j->seed, 16, 0) != 16)
			memcpy(j->seed, &j->id, 8);
		j->seed_len = 16;
	}
	j->state = SHM_JOB_QUEUED;
	j->submit_wall_ns = shm_now_wall();
	j->submit_mono_ns = shm_now_mono();
	for (uint32_t p = 0; p < parts; p++)
		j->part[p] = (struct part){ .state = SHM_PART_QUEUED, .synth_child = -1, .gpu_child = -1 };
	/* Durable before acknowledged. */
	struct journal_job jj = { .id = j->id, .kind = kind, .priority = j->priority, .log_size = k,
				  .nparts = parts, .seed_len = j->seed_len,
				  .submit_wall_ns = j->submit_wall_ns };
	memcpy(jj.seed, j->seed, j->seed_len);
	char jerr[200];
	if (s->journal && journal_submit(s->journal, &jj, jerr, sizeof jerr) < 0) {
		snprintf(err, errlen, "not accepted: %s", jerr);
		sup_log("job %llu %s", (unsigned long long)j->id, err);
		job_dir_remove(s, j->id);
		j->id = 0;
		return -EIO;
	}
	publish_job(s, ji);
	sup_event(s, SHM_EV_JOB_SUBMIT, 0, 0, 0, j->id, 0, "job %llu submitted: %s, %u x 2^%u",
		  (unsigned long long)j->id, vocab_kind_name(kind), parts, k);
	*id = j->id;
	return 0;
}

static int find_job(const struct sup *s, uint64_t id)
{
	for (uint32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == id)
			return (int)i;
	return -1;
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

/* The job ends: done, failed or cancelled. Nothing of it stays queued;
 * partitions still out with workers are ignored when they come back. */
static void job_finish(struct sup *s, int ji, uint32_t state, const char *reason)
{
	struct job *j = &s->jobs[ji];

	j->state = state;
	j->end_mono_ns = shm_now_mono();
	if (reason)
		snprintf(j->reason, sizeof j->reason, "%s", reason);
	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].state == SHM_PART_QUEUED && state != SHM_JOB_DONE)
			j->part[p].state = SHM_PART_FAILED;
	remove_parts(s, j);
	if (s->journal) {
		char jerr[200];
		if (journal_end(s->journal, j->id, state, jerr, sizeof jerr) < 0)
			sup_log("job %llu: %s", (unsigned long long)j->id, jerr);
	}
	if (state == SHM_JOB_DONE) {
		s->stats.jobs_done++;
		if (j->kind >= 1 && j->kind <= VOCAB_NKINDS)
			s->stats.jobs_done_kind[j->kind - 1]++;
	} else
		s->stats.jobs_failed++;
	publish_job(s, ji);
	/* The totals at once, not at the next tick: a reader that sees the
	 * job end must not see counters that do not yet include it. */
	sched_publish(s);
	sup_event(s, state == SHM_JOB_DONE ? SHM_EV_JOB_DONE : SHM_EV_JOB_FAILED, 0, 0, 0, j->id, 0,
		  "job %llu %s%s%s", (unsigned long long)j->id,
		  state == SHM_JOB_DONE ? "done" : state == SHM_JOB_CANCELLED ? "cancelled" : "failed",
		  reason ? ": " : "", reason ? reason : "");
}

static void check_job_done(struct sup *s, int ji);

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

/* A job from the journal that had not finished: done already if its
 * result file is there and sound; else back in the table, with the
 * partitions whose H survived counted as done. */
void sched_resume(struct sup *s, const struct journal_job *jj)
{
	struct pfile_result res;
	struct pfile_reader *r;
	char path[4200], name[48], err[256];
	int ji, rc;

	sched_result_path(s, jj->id, path, sizeof path);
	result_name(jj->id, name, sizeof name);
	rc = pfile_result_openat(s->results_fd, name, path, &res, &r, err, sizeof err);
	if (rc == -ELOOP)	/* computed again; its rename replaces the link */
		sup_log("job %llu: %s; not followed", (unsigned long long)jj->id, err);
	if (rc == 0) {
		pfile_result_close(r);
		if (res.job_id == jj->id) {
			sup_log("job %llu: its result is already there; not recomputed",
				(unsigned long long)jj->id);
			journal_end(s->journal, jj->id, SHM_JOB_DONE, err, sizeof err);
			return;
		}
	}
	if ((ji = job_slot(s)) < 0) {
		sup_log("job %llu: the job table is full; it stays in the journal for later",
			(unsigned long long)jj->id);
		return;
	}
	struct job *j = &s->jobs[ji];
	char dir[4200];
	uint32_t reused = 0;
	int dfd;

	memset(j, 0, sizeof *j);
	j->id = jj->id;
	j->kind = jj->kind;
	j->priority = jj->priority;
	j->log_size = jj->log_size;
	j->nparts = jj->nparts;
	j->seed_len = jj->seed_len;
	memcpy(j->seed, jj->seed, jj->seed_len);
	j->state = SHM_JOB_QUEUED;
	j->submit_wall_ns = jj->submit_wall_ns;
	j->submit_mono_ns = shm_now_mono();
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
	sup_log("job %llu resumed from the journal (%u of %u partitions already proved)",
		(unsigned long long)j->id, reused, j->nparts);
	publish_job(s, ji);
	check_job_done(s, ji);
}

int sched_cancel(struct sup *s, uint64_t id, char *err, size_t errlen)
{
	int ji = find_job(s, id);

	if (ji < 0) {
		snprintf(err, errlen, "no job %llu", (unsigned long long)id);
		return -ENOENT;
	}
	if (!job_active(&s->jobs[ji])) {
		snprintf(err, errlen, "job %llu already finished", (unsigned long long)id);
		return -EALREADY;
	}
	job_finish(s, ji, SHM_JOB_CANCELLED, "cancelled");
	return 0;
}

/* Assemble the result file from the partition files, atomically. */
static void job_complete(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];
	struct pfile_result res = { .job_id = j->id, .job_kind = j->kind, .partitions = j->nparts };
	struct pfile_writer *w;
	char path[4200], name[48], err[256];
	size_t n = 32ull << j->log_size;
	uint8_t *buf = malloc(n);
	int rc = buf ? 0 : -ENOMEM;
	int dfd = job_dir_open(s, j->id, 0);

	res.id.seed_len = j->seed_len;
	memcpy(res.id.seed, j->seed, j->seed_len);
	res.id.k = j->log_size;
	sched_result_path(s, j->id, path, sizeof path);
	result_name(j->id, name, sizeof name);
	if (rc == 0)
		rc = pfile_result_beginat(s->results_fd, name, path, &res, &w, err, sizeof err);
	for (uint32_t p = 0; rc == 0 && p < j->nparts; p++) {
		int fd = dfd < 0 ? -1 : part_open(dfd, p);
		ssize_t got = fd < 0 ? -1 : pread(fd, buf, n, 0);
		if (fd >= 0)
			close(fd);
		if (got != (ssize_t)n) {
			snprintf(err, sizeof err, "partition %u's H is missing", p);
			pfile_result_abort(w);
			rc = -EIO;
			break;
		}
		rc = pfile_result_put_bytes(w, buf, err, sizeof err);
	}
	if (rc == 0)
		rc = pfile_result_commit(w, err, sizeof err);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	if (rc < 0) {
		sup_log("job %llu: result file: %s", (unsigned long long)j->id, err);
		job_finish(s, ji, SHM_JOB_FAILED, err);
		return;
	}
	job_finish(s, ji, SHM_JOB_DONE, NULL);
}

/* Is the partition still wanted (same job, active, not done)? */
static int wanted(const struct sup *s, const struct part_ref *r)
{
	const struct job *j = &s->jobs[r->job];

	return j->id == r->id && job_active(j) && j->part[r->part].state != SHM_PART_DONE;
}

/* Bytes of synthesized partitions in flight: what the children hold. */
uint64_t sched_mem_used(const struct sup *s)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nchild; i++)
		for (int h = 0; h < s->child[i].nhold; h++) {
			const struct part_ref *r = &s->child[i].hold[h];
			if (s->jobs[r->job].id == r->id)
				sum += part_bytes(&s->jobs[r->job]);
		}
	return sum;
}

/* Put a partition back in the queue after its worker died, or fail its
 * job when it has now failed conf.poison_attempts times. */
static void requeue_one(struct sup *s, const struct part_ref *r, const char *why)
{
	struct job *j;
	struct part *pt;

	if (!wanted(s, r))
		return;
	j = &s->jobs[r->job];
	pt = &j->part[r->part];
	pt->synth_child = pt->gpu_child = -1;
	if (++pt->attempts >= s->conf.poison_attempts) {
		char reason[64];
		pt->state = SHM_PART_FAILED;
		snprintf(reason, sizeof reason, "partition %u: %s %u times", r->part, why, pt->attempts);
		job_finish(s, r->job, SHM_JOB_FAILED, reason);
		return;
	}
	pt->state = SHM_PART_QUEUED;
	publish_job(s, r->job);
}

static void relay_step(struct sup *s, uint32_t si);
static void relay_drain(struct sup *s, uint32_t si);

/* Child ci is gone: settle every partition it held and any relay it was
 * part of. */
void sched_requeue(struct sup *s, uint32_t ci, const char *why)
{
	struct child *c = &s->child[ci];

	for (int i = 0; i < c->nhold; i++)
		requeue_one(s, &c->hold[i], why);
	c->nhold = 0;
	if (c->kind == CHILD_SYNTH && c->relay_on) {
		/* The rest of its payload is gone: pad the gpuworker's frame,
		 * or, if that is gone too, nothing is left to do. */
		c->relay_pad = c->relay_dst >= 0;
		c->relay_drain = 0;
		if (!c->relay_pad)
			c->relay_left = 0;
		relay_step(s, ci);
	}
	if (c->kind == CHILD_GPU && c->src_child >= 0) {
		struct child *src = &s->child[c->src_child];
		src->relay_dst = -1;
		if (src->relay_pad)	/* both ends gone */
			src->relay_left = 0;
		else
			src->relay_drain = 1;	/* throw the rest of the payload away */
		src->relay_pad = 0;
		c->src_child = -1;
		relay_step(s, (uint32_t)(src - s->child));
	}
}

static int part_cmp(const struct sup *s, int ja, uint32_t pa, int jb, uint32_t pb)
{
	const struct job *a = &s->jobs[ja], *b = &s->jobs[jb];

	if (a->priority != b->priority)
		return a->priority < b->priority ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return pa < pb ? -1 : pa > pb;
}

/* The first queued partition by priority; -1 when none. */
static int next_queued(const struct sup *s, uint32_t *part)
{
	int best = -1;
	uint32_t bp = 0;

	for (uint32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!job_active(j))
			continue;
		if (best >= 0 && part_cmp(s, (int)i, 0, best, bp) > 0)
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].state == SHM_PART_QUEUED) {
				if (best < 0 || part_cmp(s, (int)i, p, best, bp) < 0) {
					best = (int)i;
					bp = p;
				}
				break;
			}
	}
	*part = bp;
	return best;
}

static void write_frame(struct sup *s, uint32_t ci, const void *buf, size_t len)
{
	struct child *c = &s->child[ci];

	if (buf != c->wbuf)
		memcpy(c->wbuf, buf, len);
	io_uring_prep_write(loop_sqe(&s->loop, loop_ud(EV_CHILD_WRITE, child_who(s, ci))),
			    c->in_fd, c->wbuf, (unsigned)len, (uint64_t)-1);
	c->wr_pending = 1;
	c->in_ops++;
}

static int synth_free(const struct child *c)
{
	return c->state == CH_READY && !c->disabled && c->nhold == 0 && !c->wr_pending &&
	       !c->relay_on && c->rd == RD_HDR;
}

static void dispatch_synth(struct sup *s, uint32_t ci, int ji, uint32_t p)
{
	struct job *j = &s->jobs[ji];
	struct child *c = &s->child[ci];
	struct frame_synth_req req = { .seed_len = j->seed_len };
	uint8_t buf[FRAME_HDR_SIZE + sizeof req];
	struct frame_hdr h;

	memcpy(req.seed, j->seed, j->seed_len);
	c->hold[0] = (struct part_ref){ .id = j->id, .job = ji, .part = p, .gen = ++s->next_gen };
	c->nhold = 1;
	frame_init(&h, FRAME_SYNTH_REQ, j->id, p, (uint16_t)j->kind, (uint16_t)j->log_size,
		   c->hold[0].gen);
	frame_seal(&h, &req, sizeof req);
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, &req, sizeof req);
	write_frame(s, ci, buf, sizeof buf);
	j->part[p].state = SHM_PART_SYNTH;
	j->part[p].synth_child = (int16_t)ci;
	if (j->state == SHM_JOB_QUEUED) {
		j->state = SHM_JOB_RUNNING;
		j->start_mono_ns = shm_now_mono();
	}
	publish_job(s, ji);
}

/* A synth has a PART_DATA header: its partition is ready for a GPU. */
void sched_synth_ready(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct part_ref *r = &c->hold[0];

	if (c->nhold != 1 || c->hdr.gen != r->gen || c->hdr.job != r->id ||
	    c->hdr.partition != r->part) {
		child_kill(s, ci, "sent a partition it was not asked for");
		return;
	}
	if (!wanted(s, r)) {	/* cancelled meanwhile: throw it away */
		c->nhold = 0;
		c->relay_left = c->hdr.payload_len;
		relay_drain(s, ci);
		return;
	}
	struct part *pt = &s->jobs[r->job].part[r->part];
	pt->state = SHM_PART_READY;
	pt->synth_ns = c->hdr.work_ns;
	pt->ready_ns = shm_now_mono();
	if (s->trace)
		fprintf(s->trace, "R %llu %u %llu\n", (unsigned long long)r->id, r->part,
			(unsigned long long)pt->ready_ns);
	c->relay_left = c->hdr.payload_len;
	publish_job(s, r->job);
}

/*
 * The relay of synth si's payload, one operation in flight at a time:
 *   header written to the gpuworker (relay_start), then splices from the
 *   synth's stdout to the gpuworker's stdin until relay_left is 0;
 *   destination dead: splices to /dev/null instead (relay_drain);
 *   source dead: zeros written instead (relay_pad), so the gpuworker's
 *   stream stays framed and it refuses that one partition by checksum;
 *   both dead, or nothing left: done.
 * Each completion lands in sched_on_splice (or sched_on_write for the
 * header), which calls relay_step again.
 */
static const uint8_t zeros[64 << 10];

/* What a relay operation in flight does: its completion is read by it,
 * not by the mode the relay may have switched to meanwhile. */
enum { RELAY_TO_GPU = 1, RELAY_TO_NULL, RELAY_PAD };

static void relay_done(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];

	if (c->relay_dst >= 0)
		s->child[c->relay_dst].src_child = -1;
	c->relay_dst = -1;
	c->relay_on = c->relay_drain = c->relay_pad = 0;
	c->relay_left = 0;
	if (child_alive(c) && c->state != CH_STOPPING) {
		c->rd = RD_HDR;
		c->hdr_have = 0;
		child_arm_read(s, si);
	}
	child_restart_due(s, si);	/* a dead source waited for this */
	sched_run(s);
}

static void relay_step(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];
	uint64_t ud = loop_ud(EV_CHILD_SPLICE, child_who(s, si));
	unsigned len = c->relay_left > SUP_RELAY_CHUNK ? SUP_RELAY_CHUNK : (unsigned)c->relay_left;

	if (c->relay_pending)
		return;		/* its completion calls us again */
	if (!c->relay_left || (c->relay_dst < 0 && !c->relay_drain) ||
	    (c->relay_drain && !child_alive(c))) {
		relay_done(s, si);
		return;
	}
	if (c->relay_pad) {
		if (len > sizeof zeros)
			len = sizeof zeros;
		io_uring_prep_write(loop_sqe(&s->loop, ud), s->child[c->relay_dst].in_fd, zeros, len,
				    (uint64_t)-1);
		c->relay_op = RELAY_PAD;
		c->relay_op_dst = c->relay_dst;
		s->child[c->relay_dst].in_ops++;
	} else {
		int dst = c->relay_drain ? s->nullfd : s->child[c->relay_dst].in_fd;
		io_uring_prep_splice(loop_sqe(&s->loop, ud), c->out_fd, -1, dst, -1, len,
				     SPLICE_F_MOVE);
		c->relay_op = c->relay_drain ? RELAY_TO_NULL : RELAY_TO_GPU;
		c->relay_op_dst = c->relay_drain ? -1 : c->relay_dst;
		c->out_ops++;
		if (!c->relay_drain)
			s->child[c->relay_dst].in_ops++;
	}
	c->relay_pending = 1;
}

/* Throw synth si's held payload away (its partition is no longer wanted). */
static void relay_drain(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];

	c->relay_on = c->relay_drain = 1;
	relay_step(s, si);
}

/* Start relaying synth si's ready partition to gpuworker gi. */
static void relay_start(struct sup *s, uint32_t si, uint32_t gi)
{
	struct child *c = &s->child[si], *g = &s->child[gi];
	struct part_ref r = c->hold[0];
	struct job *j = &s->jobs[r.job];
	struct part *pt = &j->part[r.part];
	struct frame_hdr h = c->hdr;

	r.gen = ++s->next_gen;
	r.from = c->pid;
	r.from_child = (int)si;
	g->hold[g->nhold++] = r;
	c->nhold = 0;
	c->relay_dst = (int)gi;
	c->relay_on = 1;
	c->relay_pending = 1;	/* the header write below */
	g->src_child = (int)si;
	g->hdr_for = (int)si;
	h.gen = r.gen;
	frame_seal_hdr(&h);
	write_frame(s, gi, &h, sizeof h);
	pt->state = SHM_PART_PROVING;
	pt->gpu_child = (int16_t)gi;
	publish_job(s, r.job);
}

/* A relay splice, drain or pad write of synth si finished. */
void sched_on_splice(struct sup *s, uint32_t si, int res)
{
	struct child *c = &s->child[si];
	int op = c->relay_op, op_dst = c->relay_op_dst;

	c->relay_pending = 0;
	c->relay_op = 0;
	c->relay_op_dst = -1;
	if (res > 0) {
		c->relay_left -= (uint64_t)res;
	} else if (res == 0 && op != RELAY_PAD) {
		/* The source ended early: it is dying. Pad the gpuworker's
		 * frame if it still has one, else nothing is left to do. */
		c->relay_pad = c->relay_dst >= 0;
		c->relay_drain = 0;
		if (!c->relay_pad)
			c->relay_left = 0;
	} else if (res < 0 && op == RELAY_TO_NULL) {
		c->relay_left = 0;	/* cannot even drain it: the source is broken */
	} else if (res < 0 && c->relay_dst >= 0) {
		/* The destination broke (EPIPE): it is dying, and its exit
		 * requeues the partition. Drain the rest (or, padding, stop). */
		char why[80];
		snprintf(why, sizeof why, "relay into it failed: %s", strerror(-res));
		s->child[c->relay_dst].src_child = -1;
		child_kill(s, (uint32_t)c->relay_dst, why);
		c->relay_dst = -1;
		if (c->relay_pad)
			c->relay_left = 0;
		c->relay_drain = !c->relay_pad;
		c->relay_pad = 0;
	}
	/* res < 0 on the way to a gpuworker whose death is already settled:
	 * the mode switched meanwhile, nothing moved; just go on. */
	relay_step(s, si);
	/* Last: settling a dead child's fds may start its next incarnation,
	 * which must not meet this relay's state. */
	if (op_dst >= 0)
		child_io_done(s, (uint32_t)op_dst, 1, 0);
	if (op != RELAY_PAD)
		child_io_done(s, si, 0, 1);
}

/* A write to child ci's stdin finished: a SYNTH_REQ, or a relay header. */
void sched_on_write(struct sup *s, uint32_t ci, int res)
{
	struct child *c = &s->child[ci];

	c->wr_pending = 0;
	if (c->kind == CHILD_GPU && c->hdr_for >= 0) {	/* a relay's header */
		uint32_t si = (uint32_t)c->hdr_for;
		struct child *src = &s->child[si];
		c->hdr_for = -1;
		src->relay_pending = 0;
		if (res != FRAME_HDR_SIZE && src->relay_dst == (int)ci) {
			c->src_child = -1;
			src->relay_dst = -1;
			src->relay_drain = !src->relay_pad;
			if (src->relay_pad)
				src->relay_left = 0;
			child_kill(s, ci, "relay header write failed");
		}
		/* last: settling its fds may start its next incarnation */
		child_io_done(s, ci, 1, 0);
		relay_step(s, si);
		return;
	}
	int alive = child_alive(c);
	child_io_done(s, ci, 1, 0);	/* dead: may start its next incarnation */
	if (!alive)
		return;
	if (res < 0)
		child_kill(s, ci, "write to its stdin failed");
	if (s->stopping && c->state == CH_STOPPING)
		child_close_in(s, ci);
	sched_run(s);
}

/* Find the hold entry of gpu child ci that the current header is for. */
static int take_hold(struct sup *s, uint32_t ci, struct part_ref *out)
{
	struct child *c = &s->child[ci];

	for (int i = 0; i < c->nhold; i++) {
		struct part_ref *r = &c->hold[i];
		if (r->gen == c->hdr.gen && r->id == c->hdr.job && r->part == c->hdr.partition) {
			*out = *r;
			memmove(&c->hold[i], &c->hold[i + 1], (size_t)(c->nhold - i - 1) * sizeof *r);
			c->nhold--;
			return 0;
		}
	}
	return -1;
}

static void check_job_done(struct sup *s, int ji)
{
	struct job *j = &s->jobs[ji];

	for (uint32_t p = 0; p < j->nparts; p++)
		if (j->part[p].state != SHM_PART_DONE)
			return;
	job_complete(s, ji);
}

/* An H_RESULT payload arrived from gpu child ci (checksum checked). */
void sched_result(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	struct part_ref r;
	char path[4200];

	if (take_hold(s, ci, &r) < 0) {
		child_kill(s, ci, "sent a result it was not asked for");
		return;
	}
	if (!wanted(s, &r))
		return;		/* cancelled meanwhile */
	struct job *j = &s->jobs[r.job];
	struct part *pt = &j->part[r.part];
	/* Kept across a restart (sched_resume): written whole, then renamed.
	 * The temp name is ours: a stale file or a link planted there is
	 * unlinked (never followed), then it is created O_EXCL | O_NOFOLLOW. */
	char tmp[32], name[32];
	int dfd = job_dir_open(s, j->id, 0), fd = -1, e = 0;
	ssize_t put = -1;
	part_path(s, j->id, r.part, path, sizeof path);
	part_name(r.part, 1, tmp, sizeof tmp);
	part_name(r.part, 0, name, sizeof name);
	if (dfd < 0 || (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT))
		e = errno;
	else if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0640)) < 0)
		e = errno;
	else if ((put = write(fd, c->buf, c->buf_have)) < 0)
		e = errno;
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno;
	if (!e && put != (ssize_t)c->buf_have)
		e = EIO;
	if (!e && renameat(dfd, tmp, dfd, name) < 0)
		e = errno;
	if (e && fd >= 0)
		unlinkat(dfd, tmp, 0);
	if (dfd >= 0)
		close(dfd);
	if (e) {
		sup_log("job %llu: cannot store partition %u at %s: %s", (unsigned long long)j->id,
			r.part, path, strerror(e));
		job_finish(s, r.job, SHM_JOB_FAILED, "cannot store a partition's result");
		return;
	}
	pt->state = SHM_PART_DONE;
	pt->gpu_ns = c->hdr.work_ns;
	if (pt->gpu_ns > s->longest_ns[j->kind])
		s->longest_ns[j->kind] = pt->gpu_ns;
	s->stats.parts_done++;
	publish_job(s, r.job);
	check_job_done(s, r.job);
}

/* A worker answered FAIL for the partition of the current header. */
void sched_part_failed(struct sup *s, uint32_t ci, const char *why)
{
	struct child *c = &s->child[ci];
	struct part_ref r;
	char reason[80];

	if (c->kind == CHILD_SYNTH) {
		if (c->nhold != 1 || c->hold[0].gen != c->hdr.gen) {
			child_kill(s, ci, "reported a failure for a partition it does not hold");
			return;
		}
		r = c->hold[0];
		c->nhold = 0;
	} else if (take_hold(s, ci, &r) < 0) {
		child_kill(s, ci, "reported a failure for a partition it does not hold");
		return;
	}
	/* A worker's failure (its backend failed, or it found the system
	 * unsatisfied) counts as an attempt, like a crash: retried until the
	 * partition has failed poison_attempts times, then its job fails. A
	 * payload that failed its checksum was the producing synth's fault. */
	if (c->kind == CHILD_GPU && !strcmp(why, FRAME_FAIL_CHECKSUM) && r.from_child >= 0 &&
	    s->child[r.from_child].pid == r.from)
		child_kill(s, (uint32_t)r.from_child, "sent a partition that failed its checksum");
	s->stats.parts_failed++;
	/* why is the worker's text, made safe by child.c; cut at a whole
	 * character (never half of a \xNN) to fit an event and a reason */
	char shown[40];
	util_clean(shown, sizeof shown, why);
	sup_event(s, SHM_EV_INFO, c->kind == CHILD_GPU ? SHM_T_GPU : SHM_T_SYNTH, c->slot, 0, r.id,
		  r.part, "%s.%u: job %llu partition %u failed: %s", c->kind == CHILD_GPU ? "gpu" : "synth",
		  c->slot, (unsigned long long)r.id, r.part, shown);
	snprintf(reason, sizeof reason, "failed (%s)", shown);
	requeue_one(s, &r, reason);
}

static int gpu_pick(struct sup *s)
{
	int best = -1;

	for (uint32_t i = 0; i < s->ngpu; i++) {
		struct child *g = &s->child[i];
		if (g->state != CH_READY || g->disabled || g->nhold >= SUP_GPU_DEPTH || g->src_child >= 0 ||
		    g->wr_pending)
			continue;
		if (best < 0 || g->nhold < s->child[best].nhold)
			best = (int)i;
	}
	return best;
}

/* The synth holding the first ready partition by priority; -1 if none. */
static int ready_pick(struct sup *s)
{
	int best = -1;

	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		struct child *c = &s->child[i];
		if (c->state != CH_READY || c->rd != RD_HELD || c->nhold != 1 || c->relay_on)
			continue;
		if (best < 0 || part_cmp(s, c->hold[0].job, c->hold[0].part,
					 s->child[best].hold[0].job, s->child[best].hold[0].part) < 0)
			best = (int)i;
	}
	return best;
}

/* Partitions out with children: synthesizing, ready, relayed, proving. */
int sched_inflight(const struct sup *s)
{
	for (uint32_t i = 0; i < s->nchild; i++) {
		const struct child *c = &s->child[i];
		if (child_alive(c) && (c->nhold || c->relay_on))
			return 1;
	}
	return 0;
}

void sched_run(struct sup *s)
{
	int si, gi, ji;
	uint32_t p;

	if (s->stopping > 1)
		return;
	/* Ready partitions to GPUs with room, most urgent first. */
	while ((si = ready_pick(s)) >= 0 && (gi = gpu_pick(s)) >= 0)
		relay_start(s, (uint32_t)si, (uint32_t)gi);
	if (s->stopping)
		return;		/* finishing: nothing new is synthesized */
	/* Queued partitions to free synths, within the memory budget. */
	uint64_t used = sched_mem_used(s);
	for (uint32_t i = s->ngpu; i < s->nchild; i++) {
		if (!synth_free(&s->child[i]))
			continue;
		if ((ji = next_queued(s, &p)) < 0)
			break;
		if (used && used + part_bytes(&s->jobs[ji]) > s->conf.mem_budget)
			break;
		dispatch_synth(s, i, ji, p);
		used += part_bytes(&s->jobs[ji]);
	}
}
