/*
 * contain: what a worker is given and what it leaves behind.
 *
 * A worker runs code provisor did not write, so it is handed only what
 * its work needs and nothing it could turn against the rig:
 *
 *   - its user (worker_user): a root supervisor runs every worker as an
 *     unprivileged user (default nobody), never as root; the worker
 *     switches to it (--user UID:GID) once it holds its descriptors and
 *     before any backend code runs, then confines itself further
 *     (proto/confine.h: no_new_privs, Landlock);
 *   - descriptors, not paths: its pipes, a files channel on fd 3 on
 *     which it is sent each job's result file as its partitions come
 *     (proto/fdchan.h: read-write to a gpuworker, read-only to a synth),
 *     its params, and the status segment (--seg-fd), of which it maps
 *     only its own slot's page writable before closing the fd;
 *   - a process group of its own, and this process a child subreaper:
 *     whatever the worker forks dies with it (its group is killed when
 *     it exits, before its reap frees the pid, and any descendant that
 *     left the group and was orphaned comes back to this process, which
 *     kills and reaps it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/fdchan.h"
#include "supervisor/sup.h"
#include "util/text.h"
#include "util/util.h"

/* worker_user: a name or a uid. Empty: nobody for a root supervisor,
 * else the supervisor's own user (an unprivileged process cannot give
 * its children another). */
int contain_setup(struct sup *s, char *err, size_t errlen)
{
	const char *want = s->conf.worker_user[0] ? s->conf.worker_user : geteuid() == 0 ? "nobody" : NULL;
	char shown[256];
	struct stat st;

	s->worker_setuid = 0;
	if (want) {
		struct passwd *pw = getpwnam(want);
		uint64_t v;

		if (!pw && util_num(want, UTIL_NUM_DIGITS, 0, 0xfffffffeu, &v) == 0)
			pw = getpwuid((uid_t)v);
		if (!pw)
			return util_fail(err, errlen, -1, "worker_user '%s': no such user%s",
					 util_clean(shown, sizeof shown, want),
					 s->conf.worker_user[0] ? "" : " (the default for a root supervisor; "
					 "set worker_user to an unprivileged user)");
		if (pw->pw_uid == 0)
			return util_fail(err, errlen, -1, "worker_user '%s' is root: workers run code "
					 "provisor did not write and must not run as root",
					 util_clean(shown, sizeof shown, want));
		if (geteuid() != 0 && pw->pw_uid != geteuid())
			return util_fail(err, errlen, -1, "worker_user '%s': this supervisor (uid %u) cannot "
					 "run its workers as another user; leave worker_user unset",
					 util_clean(shown, sizeof shown, want), (unsigned)geteuid());
		s->worker_uid = pw->pw_uid;
		s->worker_gid = pw->pw_gid;
		s->worker_setuid = geteuid() == 0;
	}
	/* Orphaned descendants of a worker come back here, to be killed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return util_fail(err, errlen, -1, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	/* The segment, read-write, for the workers to map their slots from. */
	/* (at 64 or above, as the params: spawn's dup2s to 3.. never meet it) */
	int fd = open(s->seg.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

	s->seg_fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 64);
	if (fd >= 0)
		close(fd);
	if (s->seg_fd < 0 || fstat(s->seg_fd, &st) < 0 || st.st_ino != s->seg.ino || st.st_dev != s->seg.dev)
		return util_fail(err, errlen, -1, "reopening the status segment %s for the workers: %s",
				 s->seg.path, s->seg_fd < 0 ? strerror(errno) : "it was replaced");
	return 0;
}

static unsigned contain_sweep(struct sup *s);

/* At the end, every worker reaped: a stray killed by the last sweeps may
 * not have died yet, and nothing would reap it once this process is gone
 * (it would outlive the stop, if only by moments). Wait for the strays,
 * a second at most: SIGKILL ends any process not stuck in the kernel. */
void contain_fini(struct sup *s)
{
	for (int i = 0; i < 100 && contain_sweep(s); i++)
		usleep(10000);
	if (s->seg_fd >= 0)
		close(s->seg_fd);
	s->seg_fd = -1;
}

/* In the forked child, before exec: a process group of its own, and no
 * privilege gained through exec. */
int contain_child(void)
{
	if (setpgid(0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return 0;
}

/* The arguments that tell the worker what it was given. */
int contain_argv(struct sup *s, char **argv, int n, char bufs[2][32], int seg_fd)
{
	snprintf(bufs[0], 32, "%d", seg_fd);
	argv[n++] = "--files-fd";
	argv[n++] = "3";
	argv[n++] = "--seg-fd";
	argv[n++] = bufs[0];
	if (s->worker_setuid) {
		snprintf(bufs[1], 32, "%u:%u", (unsigned)s->worker_uid, (unsigned)s->worker_gid);
		argv[n++] = "--user";
		argv[n++] = bufs[1];
	}
	return n;
}

/* Is pid one of the workers this process started (alive or not reaped)? */
static int contain_known(const struct sup *s, pid_t pid)
{
	for (uint32_t ci = 0; ci < s->nchild; ci++)
		if (s->child[ci].pid == pid)
			return 1;
	return 0;
}

/* A child of this process that is not one of its workers (a worker's
 * descendant, orphaned and reparented here) is killed, and reaped once
 * dead (a zombie stays listed, with this process as its parent, until it
 * is). Returns 1 if pid was such a child. */
static int contain_stray(struct sup *s, pid_t pid)
{
	if (pid <= 0 || pid == getpid() || contain_known(s, pid))
		return 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, WNOHANG);	/* reaped now if it was dead; else at its SIGCHLD */
	return 1;
}

/* Without /proc/PID/task/TID/children (a kernel without
 * CONFIG_PROC_CHILDREN): every process's parent, from /proc. */
static unsigned contain_sweep_all(struct sup *s)
{
	pid_t me = getpid(), ppid = 0;
	unsigned found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	char st;

	while (d && (e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 0 && util_proc_stat(pid, &st, &ppid) == 0 && ppid == me)
			found += (unsigned)contain_stray(s, pid);
	}
	if (d)
		closedir(d);
	return found;
}

/* This process's children that are not its workers, killed (and reaped
 * when dead). The kernel lists each thread's children; an orphan is
 * reparented to one of this process's threads. Returns how many. */
static unsigned contain_sweep(struct sup *s)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned found = 0;
	int listed = 0;

	while (d && (e = readdir(d)) != NULL) {
		char path[64];
		FILE *f;
		int pid, tid = atoi(e->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%d/children", tid);
		if (!(f = fopen(path, "re")))
			continue;
		listed = 1;
		while (fscanf(f, "%d", &pid) == 1)
			found += (unsigned)contain_stray(s, (pid_t)pid);
		fclose(f);
	}
	if (d)
		closedir(d);
	return listed ? found : contain_sweep_all(s);
}

/* A worker exited and is not reaped yet: while its zombie holds the pid,
 * that pid still names its process group, so the group is killed with no
 * chance of hitting another; then any descendant that left the group
 * (setsid) and was orphaned here (at the worker's exit, not its reap). */
void contain_exited(struct sup *s, pid_t pid)
{
	if (pid > 0)
		kill(-pid, SIGKILL);	/* its group: it made itself the leader */
	for (int pass = 0; pass < 8 && contain_sweep(s); pass++)
		;
	if (pid > 0)
		kill(-pid, SIGKILL);	/* whatever joined it meanwhile */
}

/* SIGCHLD: a reparented descendant may have died; reap it. */
void contain_on_sigchld(struct sup *s)
{
	contain_sweep(s);
}

/* Send job ji's result file to child ci before the frame that needs it:
 * read-write to a gpuworker, read-only (a fresh open of the same file) to
 * a synth. Nothing is sent when the file is not open; the worker then
 * fails to store or read it, which blocks the job as a missing file
 * would. */
void contain_send_file(struct sup *s, uint32_t ci, uint32_t ji)
{
	struct child *c = &s->child[ci];
	const struct job *j = &s->jobs[ji];
	int fd = j->store_fd, rc;

	if (c->files_fd < 0 || fd < 0)
		return;
	if (c->kind == CHILD_SYNTH) {
		char path[64];

		snprintf(path, sizeof path, "/proc/self/fd/%d", j->store_fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			sup_log("job %llu: a read-only open of its result file for %s.%u: %s",
				(unsigned long long)j->id, child_kind_name(c), c->slot, strerror(errno));
			return;
		}
	}
	rc = fdchan_send(c->files_fd, j->id, fd);
	if (rc < 0)
		sup_log("job %llu: sending its result file to %s.%u: %s", (unsigned long long)j->id,
			child_kind_name(c), c->slot, strerror(-rc));
	if (fd != j->store_fd)
		close(fd);
}
