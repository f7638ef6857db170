/*
 * spawn: a worker process is started. fork, then in the child: its pipes
 * on stdin and stdout, its files channel on fd 3, its params on 4.. and
 * the status segment after them (contain.c says why descriptors and not
 * paths), SIGKILL as its parent-death signal (a dead supervisor leaves no
 * orphan on the GPU), a lower priority, the signal mask cleared, a
 * process group of its own and no_new_privs, and exec of bin/gpuworker or
 * bin/synth (or a wrapper the tests name) with its slot, instance,
 * backend and user as arguments; in the
 * supervisor: a pidfd polled for its exit and the first read armed. A
 * failure is the child's start failing: an event (child_event), as a
 * crash is.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuworker/hterm.h"
#include "supervisor/sup.h"
#include "util/text.h"

static void set_pipe_size(int fd)
{
	(void)fcntl(fd, F_SETPIPE_SZ, SUP_PIPE_SIZE);	/* best effort: fewer wakeups */
}

/* Argument vector of a child; strings live in bufs. */
static void child_argv(struct sup *s, const struct child *c, char *path, size_t plen,
		       char bufs[4][16], char cbufs[2][32], char **argv)
{
	int n = 0;

	snprintf(path, plen, "%s/%s", s->bindir, c->kind == CHILD_GPU ? "gpuworker" : "synth");
	snprintf(bufs[0], 16, "%u", c->slot);
	snprintf(bufs[1], 16, "%u", c->gpu);
	argv[n++] = path;
	argv[n++] = "--instance";
	argv[n++] = s->conf.name;
	argv[n++] = "--slot";
	argv[n++] = bufs[0];
	if (c->kind == CHILD_GPU) {
		argv[n++] = "--gpu";
		argv[n++] = bufs[1];
		argv[n++] = "--backend";
		if (s->backend == VOCAB_BACKEND_PLUGIN) {	/* plugin:PATH */
			snprintf(s->backend_arg, sizeof s->backend_arg, "plugin:%s", s->conf.backend_plugin);
			argv[n++] = s->backend_arg;
		} else {
			argv[n++] = (char *)vocab_backend_name((uint32_t)s->backend);
		}
		/* Its backend line once per supervisor: every worker resolves
		 * the same backend on the same machine. */
		if (s->backend_logged)
			argv[n++] = "--quiet-backend";
		s->backend_logged = 1;
	}
	n = contain_argv(s, argv, n, cbufs, 4 + (int)s->nparams);
	if (s->nparams) {	/* the resident params as fds 4.. (gpu: the keys; synth: the vks) */
		snprintf(bufs[2], 16, "%u", s->nparams);
		argv[n++] = "--params";
		argv[n++] = bufs[2];
	}
	if (c->kind == CHILD_GPU) {	/* its share of the cores: H-term and MSMs */
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		long t = cpus > 0 ? cpus / (long)s->ngpu : 1;

		snprintf(bufs[3], 16, "%u", (unsigned)(t < 1 ? 1 : t > 1024 ? 1024 : t));
		argv[n++] = "--threads";
		argv[n++] = bufs[3];
	}
	argv[n] = NULL;
}

/*
 * exec the worker. Tests can put a tool in front of it with
 * PROVISOR_WORKER_WRAP (e.g. "/usr/bin/valgrind -q --error-exitcode=99"):
 * its words, split on spaces (no shell), come before the worker's argv.
 * Runs in the forked child, just before exec.
 */
static void exec_wrapped(char *path, char **argv)
{
	const char *wrap = secure_getenv("PROVISOR_WORKER_WRAP");
	char *words, *tok, *save, *full[48];
	int n = 0;

	if (wrap && *wrap && (words = strdup(wrap))) {
		for (tok = strtok_r(words, " ", &save); tok && n < 32; tok = strtok_r(NULL, " ", &save))
			full[n++] = tok;
		for (int i = 0; argv[i] && n < 47; i++)
			full[n++] = argv[i];
		full[n] = NULL;
		execv(full[0], full);
		fprintf(stderr, "provisor: exec %s: %s\n", full[0], strerror(errno));
		_exit(127);
	}
	execv(path, argv);
}

/* pidfd_open(2); or, with the test hook PROVISOR_NO_PIDFD set, ENOSYS as
 * on a kernel before 5.3, so that the tests run the SIGCHLD path too. */
static int child_pidfd_open(pid_t pid)
{
	if (secure_getenv("PROVISOR_NO_PIDFD")) {
		errno = ENOSYS;
		return -1;
	}
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int child_spawn(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	char path[4200], bufs[4][16], cbufs[2][32], *argv[28];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, files[2] = { -1, -1 };
	pid_t parent = getpid(), pid;

	child_argv(s, c, path, sizeof path, bufs, cbufs, argv);
	if (c->state != CH_DOWN) {
		sup_log("%s.%u: spawn asked in state %s; ignored", child_kind_name(c), c->slot,
			child_state_name(c->state));
		return -1;
	}
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, files) < 0) {
		sup_log("pipe2 failed while spawning %s.%u: %s", child_kind_name(c), c->slot, strerror(errno));
		goto fail;
	}
	set_pipe_size(in[1]);
	set_pipe_size(out[0]);
	pid = fork();
	if (pid < 0) {
		sup_log("fork failed while spawning %s.%u: %s", child_kind_name(c), c->slot, strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);	/* signalfd blocked them */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nice(SUP_WORKER_NICE) == -1 && errno)
			_exit(127);
		if (getppid() != parent)
			_exit(127);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || contain_child() < 0)
			_exit(127);
		/* Its files channel as fd 3 (dup2 clears close-on-exec; on fd
		 * 3 itself it does nothing, so clear it there), the params
		 * (from fds >= 64: no overlap) and the segment after them. */
		if ((files[1] == 3 ? fcntl(3, F_SETFD, 0) : dup2(files[1], 3)) < 0)
			_exit(127);
		for (uint32_t i = 0; i < s->nparams; i++)
			if (dup2(s->params[i].fd, 4 + (int)i) < 0)
				_exit(127);
		if (dup2(s->seg_fd, 4 + (int)s->nparams) < 0)
			_exit(127);
		exec_wrapped(path, argv);
		fprintf(stderr, "provisor: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(files[1]);
	c->files_fd = files[0];
	c->pid = pid;
	c->in_fd = in[1];
	c->out_fd = out[0];
	c->pidfd = child_pidfd_open(pid);
	if (c->pidfd < 0 && errno == ENOSYS) {
		/* A kernel before 5.3, or a tool (valgrind) that lacks the
		 * call: the exit is seen through SIGCHLD on the signalfd. */
		if (!s->no_pidfd)
			sup_log("pidfd_open: %s; watching child exits through SIGCHLD", strerror(errno));
		s->no_pidfd = 1;
	} else if (c->pidfd < 0) {	/* cannot watch it: do not run it */
		sup_log("pidfd_open(%d): %s", (int)pid, strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(c->in_fd);
		close(c->out_fd);
		close(c->files_fd);
		c->in_fd = c->out_fd = c->files_fd = -1;
		child_event(s, ci, CEV_SPAWN_FAILED, NULL);
		return -1;
	}
	child_event(s, ci, CEV_SPAWNED, NULL);
	c->started_ns = shm_now_mono();
	c->kill_why[0] = '\0';
	c->rd = RD_HDR;
	c->hdr_have = 0;
	part_unhold_all(s, ci);
	c->src_child = c->hdr_for = c->relay_op_dst = -1;
	c->epoch++;
	c->rd_pending = c->wr_pending = 0;
	c->in_ops = c->out_ops = c->in_doomed = c->out_doomed = 0;
	c->relay = RELAY_IDLE;
	c->relay_dst = -1;
	c->relay_left = 0;
	c->relay_pending = c->relay_op = 0;
	if (c->pidfd >= 0)
		io_uring_prep_poll_add(loop_sqe(&s->loop, loop_ud(EV_CHILD_EXIT, child_who(s, ci))),
				       c->pidfd, POLLIN);
	child_arm_read(s, ci);
	sup_event(s, SHM_EV_START, child_table(c), c->slot, pid, 0, 0, "%s.%u started (pid %d)",
		  child_kind_name(c), c->slot, (int)pid);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (files[i] >= 0)
			close(files[i]);
	}
	child_event(s, ci, CEV_SPAWN_FAILED, NULL);
	return -1;
}
