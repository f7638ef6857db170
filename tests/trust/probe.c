/*
 * tests/trust/probe.so: an exploited gpuworker, as tests/trust/worker.sh
 * puts it in front of one (LD_PRELOAD through PROVISOR_WORKER_WRAP).
 *
 * It takes over the worker's first fdatasync, the call that ends storing
 * a partition's result: the worker is then running as it does when a
 * backend (a CUDA stack, a prover library) could be made to misbehave,
 * after its start and its confinement. From there it tries what a probe
 * of the rig did (issue 21) and writes one line per attempt to stderr:
 * "probe: WHAT: refused (ERRNO)" or "probe: WHAT: SUCCEEDED". Then it
 * forks a helper that leaves the worker's process group and stays (its
 * pid in a line), and lets the real fdatasync run.
 *
 * PROBE_STATE is the state directory, PROBE_SEG the status segment's path.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void line(const char *what, int ok, int err)
{
	char buf[256];
	int n = ok ? snprintf(buf, sizeof buf, "probe: %s: SUCCEEDED\n", what)
		   : snprintf(buf, sizeof buf, "probe: %s: refused (%s)\n", what, strerror(err));

	if (n > 0)
		(void)!write(2, buf, (size_t)n);
}

/* An attempt that succeeded when rc >= 0 (an fd is closed again). */
static void attempt(const char *what, int rc, int is_fd)
{
	int e = errno;

	if (rc >= 0 && is_fd)
		close(rc);
	line(what, rc >= 0, e);
}

static void probe(void)
{
	const char *st = getenv("PROBE_STATE"), *seg = getenv("PROBE_SEG");
	char path[4096], maps[256];
	int found = -1, nwritable = 0;
	FILE *f;

	if (!st || !seg) {
		line("PROBE_STATE and PROBE_SEG set", 0, EINVAL);
		return;
	}
	snprintf(path, sizeof path, "probe: uid %u euid %u landlock %ld\n", (unsigned)getuid(),
		 (unsigned)geteuid(), syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL << 0));
	(void)!write(2, path, strlen(path));

	/* A directory among its descriptors, and ".." from it. */
	for (int i = 0; i < 256 && found < 0; i++) {
		int d = openat(i, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d >= 0) {
			found = i;
			close(d);
		}
	}
	errno = ENOTDIR;
	attempt("a directory fd to climb out of", found, 0);

	snprintf(path, sizeof path, "%s/journal", st);
	attempt("read the journal", open(path, O_RDONLY | O_CLOEXEC), 1);
	snprintf(path, sizeof path, "%s/results/job-777.result", st);
	attempt("create results/job-777.result", open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), 1);
	snprintf(path, sizeof path, "%s/results/job-778.result", st);
	attempt("symlink results/job-778.result to /etc/hostname", symlink("/etc/hostname", path), 0);
	snprintf(path, sizeof path, "%s/jobs/filler", st);
	attempt("create a file in jobs/", open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), 1);
	attempt("open the status segment read-write", open(seg, O_RDWR | O_CLOEXEC), 1);
	attempt("open the status segment read-only", open(seg, O_RDONLY | O_CLOEXEC), 1);
	snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
	attempt("open the supervisor's memory", open(path, O_RDONLY | O_CLOEXEC), 1);
	attempt("signal the supervisor", kill(getppid(), 0), 0);
	attempt("write in /tmp", open("/tmp", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600), 1);

	/* Its writable shared mappings of the segment: its own slot's page
	 * only (one mapping, one page). */
	if ((f = fopen("/proc/self/maps", "re")) != NULL) {
		unsigned long lo, hi;
		char perms[8];

		while (fgets(maps, sizeof maps, f))
			if (strstr(maps, ".status") && sscanf(maps, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
			    perms[1] == 'w')
				nwritable += (int)((hi - lo) / 4096);
		fclose(f);
	}
	snprintf(path, sizeof path, "probe: segment pages mapped writable: %d\n", nwritable);
	(void)!write(2, path, strlen(path));

	/* A helper that leaves the process group and stays behind. */
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		for (;;)
			pause();
	}
	snprintf(path, sizeof path, "probe: helper pid %d\n", (int)pid);
	(void)!write(2, path, strlen(path));
}

int fdatasync(int fd)
{
	static int done;
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");

	if (!done) {
		done = 1;
		probe();
	}
	return real ? real(fd) : -1;
}
