/*
 * Harness for the pipeline tests: a real supervisor (bin/provisor run)
 * with its real children, driven through its control socket and watched
 * through its status segment, as an operator's tools would.
 *
 * The test process makes itself a child subreaper, so any worker the
 * supervisor leaves behind becomes the test's child and is found.
 */
#ifndef TESTS_PIPELINE_HARNESS_H
#define TESTS_PIPELINE_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "shm/shm.h"
#include "tests/helpers.h"

struct sv {
	pid_t pid;
	char name[40], dir[128], sock[200], log[200];
	struct shm_seg seg;
	int mapped;
};

static struct sv *sv_current;
/* Every supervisor this test started, for the cleanup at exit (their
 * structs must outlive main: static, not on the stack). */
static struct sv *sv_all[8];
static int sv_nall;

static inline const char *sv_bin(void)
{
	const char *b = getenv("BIN");
	return b && *b ? b : "bin";
}

static inline void sv_kill_all(void)
{
	for (int i = 0; i < sv_nall; i++)
		if (sv_all[i]->pid > 0) {
			kill(sv_all[i]->pid, SIGKILL);
			waitpid(sv_all[i]->pid, NULL, 0);
			sv_all[i]->pid = 0;
		}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Kill what is left and remove every segment, state directory and log
 * (KEEP_LOG=1 keeps the directories and logs, and names them). */
static inline void sv_atexit(void)
{
	char cmd[300];

	sv_kill_all();
	for (int i = 0; i < sv_nall; i++) {
		struct sv *v = sv_all[i];
		if (v->mapped)
			shm_close(&v->seg);
		v->mapped = 0;
		if (shm_path(v->name, cmd, sizeof cmd) == 0)
			unlink(cmd);
		if (getenv("KEEP_LOG")) {
			fprintf(stderr, "supervisor log: %s, state in %s\n", v->log, v->dir);
			continue;
		}
		unlink(v->log);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", v->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", v->dir);
	}
}

static inline void sv_dump_log(void)
{
	char line[512];
	FILE *f = fopen(sv_current->log, "r");

	if (!f)
		return;
	fprintf(stderr, "--- supervisor log (last lines) ---\n");
	while (fgets(line, sizeof line, f))
		fputs(line, stderr);
	fclose(f);
}

#define SV_FAIL(...) do { sv_dump_log(); T_FAIL(__VA_ARGS__); } while (0)

/* tests/run.sh's timeout ends a test with SIGTERM, and a test that hangs
 * would otherwise leave no trace: its stdout buffer is lost and the
 * supervisor's log is removed with its directory. This handler says so,
 * copies the last 6 KiB of the current supervisor's log and what
 * `provisor status` shows to stderr (open, read, write, fork, execv and
 * waitpid only, on paths made beforehand), then exits 124 through the
 * atexit cleanups (sv_atexit kills every supervisor the test started
 * and removes what they made). Those are not safe in a handler: should
 * one deadlock, run.sh's SIGKILL 5 s later ends it. */
static char sv_term_status[256];
static char *sv_term_argv[6];

static inline void sv_term_say(const char *m)
{
	size_t n = strlen(m);

	if (write(2, m, n) != (ssize_t)n) {
	}
}

static void sv_on_term(int sig)
{
	static char buf[6144];

	(void)sig;
	sv_term_say("\n--- SIGTERM (the run's timeout?) while the test waited ---\n");
	if (sv_current) {
		int fd = open(sv_current->log, O_RDONLY);
		if (fd >= 0) {
			off_t end = lseek(fd, 0, SEEK_END);
			lseek(fd, end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0, SEEK_SET);
			ssize_t n = read(fd, buf, sizeof buf);
			close(fd);
			sv_term_say("--- supervisor log (last lines) ---\n");
			if (n > 0 && write(2, buf, (size_t)n) != n) {
			}
		}
		pid_t p = fork();
		if (p == 0) {
			dup2(2, 1);
			execv(sv_term_status, sv_term_argv);
			_exit(127);
		}
		if (p > 0) {
			sv_term_say("--- provisor status ---\n");
			waitpid(p, NULL, 0);
		}
	}
	exit(124);
}

/* Start a supervisor with extra arguments (NULL-terminated). Waits until
 * every slot's worker is up (idle, or busy with resumed work). The same
 * tag in the same test process gives the same name and state directory. */
static inline void sv_start(struct sv *v, const char *tag, ...)
{
	char *argv[32], path[256], err[256];
	va_list ap;
	int n = 0;

	memset(v, 0, sizeof *v);
	sv_current = v;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	int known = 0;
	for (int i = 0; i < sv_nall; i++)
		known |= sv_all[i] == v;
	if (!known && sv_nall < (int)(sizeof sv_all / sizeof sv_all[0])) {
		if (!sv_nall)
			atexit(sv_atexit);
		sv_all[sv_nall++] = v;
	}
	snprintf(v->name, sizeof v->name, "t-%s-%d", tag, (int)getpid());
	snprintf(v->dir, sizeof v->dir, "%s/provisor-test-%s-%d", t_tmpdir(), tag, (int)getpid());
	snprintf(v->sock, sizeof v->sock, "%s/control.sock", v->dir);
	snprintf(v->log, sizeof v->log, "%s/provisor-test-%s-%d.log", t_tmpdir(), tag, (int)getpid());
	snprintf(path, sizeof path, "%s/provisor", sv_bin());
	snprintf(sv_term_status, sizeof sv_term_status, "%s", path);
	if (!sv_term_argv[0]) {
		static char a0[] = "provisor", a1[] = "status", a2[] = "--name";
		sv_term_argv[0] = a0, sv_term_argv[1] = a1, sv_term_argv[2] = a2;
		setvbuf(stdout, NULL, _IOLBF, 0);	/* info lines survive a kill */
		signal(SIGTERM, sv_on_term);
	}
	sv_term_argv[3] = v->name;
	argv[n++] = path;
	argv[n++] = "run";
	argv[n++] = "--name";
	argv[n++] = v->name;
	argv[n++] = "--state-dir";
	argv[n++] = v->dir;
	va_start(ap, tag);
	for (char *a; n < 30 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	v->pid = fork();
	CHECK(v->pid >= 0, "fork");
	if (v->pid == 0) {
		int fd = open(v->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		execv(path, argv);
		_exit(127);
	}
	for (unsigned i = 0; i < 1000 * t_slow(); i++) {
		int status;
		if (waitpid(v->pid, &status, WNOHANG) == v->pid)
			SV_FAIL("supervisor exited at start (status %d)", status);
		if (!v->mapped && shm_open_ro(&v->seg, v->name, err, sizeof err) == 0) {
			v->mapped = 1;
			if (shm_hdr(&v->seg)->supervisor_pid != (uint32_t)v->pid) {
				shm_close(&v->seg);	/* a dead predecessor's */
				v->mapped = 0;
			}
		}
		if (v->mapped) {
			int idle = 1;
			for (int t = SHM_T_GPU; t <= SHM_T_SYNTH; t++)
				for (uint32_t s = 0; s < shm_count(&v->seg, t); s++) {
					struct shm_slot sl;
					idle &= shm_read_slot(&v->seg, t, s, &sl) == 0 &&
						(sl.state == SHM_SLOT_IDLE || sl.state == SHM_SLOT_BUSY ||
						 sl.state == SHM_SLOT_DISABLED);
				}
			if (idle)
				return;
		}
		usleep(10000);
	}
	SV_FAIL("supervisor did not come up with idle workers in %u s", 10 * t_slow());
}

/* One request; returns 0 for "ok", 1 for "err", and the reply. The
 * reply's deadline only bounds a hang (a submit waits for the journal's
 * fdatasync): 5 s, times t_slow(). */
static inline int sv_req(struct sv *v, const char *line, char *reply, size_t len)
{
	char err[256];
	int rc = ctl_call(v->sock, line, reply, len, 5000 * (int)t_slow(), err, sizeof err);

	if (rc < 0)
		SV_FAIL("request '%s' failed: %s", line, err);
	return rc;
}

static inline uint64_t sv_submit(struct sv *v, const char *args)
{
	char line[256], reply[512];

	snprintf(line, sizeof line, "submit %s\n", args);
	if (sv_req(v, line, reply, sizeof reply) != 0)
		SV_FAIL("submit %s: %s", args, reply);
	return strtoull(reply + 3, NULL, 10);
}

/* Index of job id in the segment's job table, -1 when absent. */
static inline int sv_job(struct sv *v, uint64_t id, struct shm_job *j)
{
	for (uint32_t i = 0; i < shm_count(&v->seg, SHM_T_JOB); i++)
		if (shm_read_job(&v->seg, i, j) == 0 && j->id == id)
			return (int)i;
	return -1;
}

static inline int sv_job_over(const struct shm_job *j)
{
	return j->state == SHM_JOB_DONE || j->state == SHM_JOB_FAILED || j->state == SHM_JOB_CANCELLED;
}

/* Wait for a job to finish; fails the test after timeout_s, or at once
 * when the supervisor died meanwhile (its segment stays mapped but never
 * changes again: the job would only be waited for until the timeout). */
static inline void sv_wait(struct sv *v, uint64_t id, int timeout_s, struct shm_job *j)
{
	int status;

	for (int i = 0; i < timeout_s * 200; i++) {
		if (sv_job(v, id, j) >= 0 && sv_job_over(j))
			return;
		if (v->pid > 0 && waitpid(v->pid, &status, WNOHANG) == v->pid) {
			v->pid = 0;
			SV_FAIL("supervisor died while job %llu ran (%s %d)", (unsigned long long)id,
				WIFSIGNALED(status) ? "signal" : "exit status",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		}
		usleep(5000);
	}
	SV_FAIL("job %llu did not finish in %d s", (unsigned long long)id, timeout_s);
}

/* Wait until the supervisor has published its record (and the job,
 * slot and event tables' figures that go with it) at least once since
 * the call: its tick bumps heartbeat_count first and publishes last, so
 * once the count has grown by 2, a whole tick began and ended after the
 * call. No timing: a slow supervisor only takes longer (the bound,
 * 30 s times t_slow(), only catches a hang). */
static inline void sv_wait_tick(struct sv *v)
{
	const struct shm_header *h = shm_hdr(&v->seg);
	uint64_t c0 = atomic_load_explicit(&h->heartbeat_count, memory_order_acquire);

	for (unsigned i = 0; i < 30000u * t_slow(); i++) {
		if (atomic_load_explicit(&h->heartbeat_count, memory_order_acquire) >= c0 + 2)
			return;
		usleep(1000);
	}
	SV_FAIL("the supervisor's heartbeat did not move for %u s", 30 * t_slow());
}

/* Each line of every gpu slot's trace file in dir (PROVISOR_TRACE_DIR:
 * gpu.SLOT.PID, "B gen job part t" at a begin, "E gen t1 t2" at an end),
 * in file order, to fn with the slot (below 16) and the file's number
 * (0, 1, ...: a restarted worker has a file of its own); returns how many
 * files. */
static inline unsigned sv_trace_lines(const char *dir, void (*fn)(void *ctx, unsigned slot,
								   unsigned file, const char *line),
				      void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned files = 0;

	CHECK(d, "no trace directory %s", dir);
	while ((e = readdir(d))) {
		unsigned slot;
		char path[600], line[256];
		if (sscanf(e->d_name, "gpu.%u.", &slot) != 1 || slot >= 16)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		CHECK(f, "open %s", path);
		files++;
		while (fgets(line, sizeof line, f))
			fn(ctx, slot, files - 1, line);
		fclose(f);
	}
	closedir(d);
	return files;
}

/* provisor verify on a job's result file: 0 when it verifies. */
static inline int sv_verify(struct sv *v, uint64_t id)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "%s/provisor verify %s/results/job-%llu.result >/dev/null",
		 sv_bin(), v->dir, (unsigned long long)id);
	return system(cmd);
}

/* Processes whose parent is pid, in /proc's state letter state ('Z' a
 * zombie), or in any state when state is 0. */
static inline int sv_count_state(pid_t parent, char state)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], buf[512];
		int ppid;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof buf, f)) {
			char *p = strrchr(buf, ')'), st;
			if (p && sscanf(p + 2, "%c %d", &st, &ppid) == 2 && ppid == parent &&
			    (!state || st == state))
				n++;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* Processes whose parent is pid (or, once it is gone, us). */
static inline int sv_count_children(pid_t parent)
{
	return sv_count_state(parent, 0);
}

/* A raw connection to v's control socket (tests that speak the protocol
 * byte by byte). */
static inline int sv_connect(const struct sv *v)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path, v->sock, strlen(v->sock) + 1);
	CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s",
	      strerror(errno));
	return fd;
}

/* After the supervisor exited: nothing of it may remain. */
static inline void sv_check_clean(struct sv *v)
{
	char path[300];
	struct stat st;

	/* Orphans would have been reparented to us (subreaper); the dead
	 * ones (zombies) are reaped first: only the living count. */
	usleep(100000);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	CHECK(sv_count_children(getpid()) == 0, "a worker outlived the supervisor");
	CHECK(shm_path(v->name, path, sizeof path) == 0, "segment path");
	CHECK(stat(path, &st) < 0, "the status segment was left behind");
	CHECK(stat(v->sock, &st) < 0, "the control socket was left behind");
	/* Partial results of unfinished jobs stay (the journal resumes
	 * them), but no temporary file may. */
	snprintf(path, sizeof path, "find '%s' -name '*.tmp' | grep -q .", v->dir);
	CHECK(system(path) != 0, "temporary files were left behind in %s", v->dir);
}

/* Wait for the supervisor to exit; returns its wait status. */
static inline int sv_reap(struct sv *v, int timeout_s)
{
	int status;

	for (int i = 0; i < timeout_s * 100; i++) {
		if (waitpid(v->pid, &status, WNOHANG) == v->pid) {
			v->pid = 0;
			return status;
		}
		usleep(10000);
	}
	SV_FAIL("supervisor did not exit within %d s", timeout_s);
}

#endif
