/*
 * run: the supervisor, sup_main (supervisor/run.h). On the configuration
 * `provisor run` built (cli/cmd_run.c: defaults, then the file, then
 * flags): the status segment, the control socket and the children, then
 * one io_uring loop until stopped. Signals arrive through
 * a signalfd read on the ring; a 100 ms tick beats the heartbeat,
 * publishes totals and restarts children whose backoff passed. Work is
 * handed out once after every batch of completions (after_batch).
 *
 * Stopping (SIGTERM, SIGINT, `provisor stop`; a drain that finished does
 * not stop it):
 * no new work, children get EOF and SIGTERM, and those still alive after
 * the grace period get SIGKILL; the loop ends when every child is reaped.
 * Then the socket and the segment are removed: nothing is left behind.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "gpuworker/hterm.h"
#include "journal/journal.h"
#include "supervisor/fleet.h"
#include "supervisor/gpus.h"
#include "supervisor/run.h"
#include "supervisor/sup.h"

#define STOP_GRACE_NS (3ull * 1000000000u)

static struct signalfd_siginfo sigbuf;
static struct __kernel_timespec tick = { .tv_nsec = SUP_TICK_MS * 1000000 };

static void arm_signal(struct sup *s)
{
	io_uring_prep_read(loop_sqe(&s->loop, loop_ud(EV_SIGNAL, 0)), s->sigfd, &sigbuf,
			   sizeof sigbuf, (uint64_t)-1);
}

static void arm_tick(struct sup *s)
{
	io_uring_prep_timeout(loop_sqe(&s->loop, loop_ud(EV_TICK, 0)), &tick, 0, 0);
}

/* Stop, in two phases. Finishing: nothing new starts (no submit, no
 * synthesis), partitions in flight finish, for at most stop_timeout.
 * Ending: children get EOF and SIGTERM; those alive 3 s later, SIGKILL.
 * Jobs not finished stay in the journal for the next start. */
static void begin_stop(struct sup *s, const char *why)
{
	if (s->stopping)
		return;
	sup_log("stopping: %s; letting partitions in flight finish (up to %llu ms)", why,
		(unsigned long long)s->conf.stop_timeout_ms);
	s->stopping = 1;
	s->stop_deadline_ns = shm_now_mono() + s->conf.stop_timeout_ms * 1000000u;
	ctlsrv_close(s);
	fleet_stopping(s);
	sup_notify(s, "STOPPING=1");
	sched_publish(s);
}

static void end_children(struct sup *s, uint64_t grace_ns)
{
	if (s->stopping == 2)
		return;
	s->stopping = 2;
	s->stop_deadline_ns = shm_now_mono() + grace_ns;
	child_stop_all(s);
}

static int all_down(const struct sup *s)
{
	for (uint32_t i = 0; i < s->nchild; i++)
		if (s->child[i].pid > 0)
			return 0;
	return 1;
}

/* Slow iterations not logged yet, in one line: by the tick once a second
 * has passed since the last line (force: now, at the end). */
static void slow_flush(struct sup *s, uint64_t now, int force)
{
	if (!s->slow_quiet || (!force && now - s->slow_log_ns < 1000000000u))
		return;
	sup_log("%llu more slow loop iteration%s since the last such line, the longest %.1f ms, "
		"most of it in %s", (unsigned long long)s->slow_quiet, s->slow_quiet > 1 ? "s" : "",
		(double)s->slow_quiet_ns / 1e6, s->slow_quiet_what);
	s->slow_log_ns = now;
	s->slow_quiet = s->slow_quiet_ns = 0;
}

/* A slow iteration: one log line, at most one a second; the ones in
 * between are counted (and the longest kept) for slow_flush. Every one
 * is counted in the segment. */
static void on_slow(void *ctx, uint64_t ns, const char *what, unsigned ncqe)
{
	struct sup *s = ctx;
	uint64_t now = shm_now_mono();

	if (s->slow_log_ns && now - s->slow_log_ns < 1000000000u) {
		if (ns > s->slow_quiet_ns) {
			s->slow_quiet_ns = ns;
			snprintf(s->slow_quiet_what, sizeof s->slow_quiet_what, "%s", what);
		}
		s->slow_quiet++;
		return;
	}
	slow_flush(s, now, 1);
	sup_log("slow loop iteration: %.1f ms, most of it in %s (%u completions)", (double)ns / 1e6,
		what, ncqe);
	s->slow_log_ns = now;
}

static_assert(sizeof ((struct shm_sup *)0)->loop_slow_what == LOOP_WHAT_NAME, "slow_what size");

/* The loop's figures into the supervisor record (sched_publish writes it). */
static void loop_stats(struct sup *s, uint64_t now)
{
	const struct loop_stats *ls = &s->loop.st;
	struct shm_sup *st = &s->stats;

	slow_flush(s, now, 0);
	st->loop_iterations = ls->hist.n;
	st->loop_sum_ns = ls->hist.sum_ns;
	st->loop_max_ns = ls->hist.max_ns;
	st->loop_p50_ns = lathist_quantile(&ls->hist, 0.50);
	st->loop_p99_ns = lathist_quantile(&ls->hist, 0.99);
	st->loop_slow_count = ls->slow_count;
	st->loop_slow_ns = ls->slow_ns;
	st->loop_slow_mono_ns = ls->slow_mono_ns;
	memcpy(st->loop_slow_what, ls->slow_what, sizeof st->loop_slow_what);
	memcpy(st->loop_max_what, ls->max_what, sizeof st->loop_max_what);
	memcpy(st->loop_hist, ls->le, sizeof st->loop_hist);
}

static void on_tick(struct sup *s)
{
	uint64_t now = shm_now_mono();

	shm_heartbeat(&s->seg);
	sup_watchdog_ping(s, now);
	if (s->stop_requested)
		begin_stop(s, "asked to stop");
	/* A drain that finished keeps the supervisor up, taking no jobs, until
	 * `provisor resume` or `provisor stop`. */
	if (s->draining && !s->drained && sched_idle(s)) {
		s->drained = 1;
		sup_log("drained: every accepted job has ended; taking no jobs until provisor resume");
	}
	if (s->stopping == 1 && (!sched_inflight(s) || now > s->stop_deadline_ns)) {
		if (sched_inflight(s))
			sup_log("stop timeout: abandoning the partitions still in flight");
		end_children(s, STOP_GRACE_NS);
	}
	if (s->stopping == 2) {
		if (all_down(s)) {
			s->loop.stop = 1;
			return;
		}
		if (now > s->stop_deadline_ns)
			for (uint32_t i = 0; i < s->nchild; i++)
				if (s->child[i].pid > 0)
					child_kill(s, i, "still alive after the stop's grace period");
	}
	child_tick(s, now);
	if (s->stopping < 2)
		results_kick(s);	/* blocked jobs to retry, resumed ones to commit */
	loop_stats(s, now);
	sched_publish(s);
	arm_tick(s);
}

static void on_signal(struct sup *s, int res)
{
	if (res == (int)sizeof sigbuf) {
		loop_got(&sigbuf, res);
		int sig = (int)sigbuf.ssi_signo;
		if (s->stopping && (sig == SIGTERM || sig == SIGINT)) {
			sup_log("second %s: killing the workers now", strsignal(sig));
			end_children(s, 0);
			s->stop_deadline_ns = 0;
		} else if (sig == SIGTERM || sig == SIGINT) {
			begin_stop(s, strsignal(sig));
		} else if (sig == SIGCHLD) {
			child_on_sigchld(s);
		}
	}
	arm_signal(s);
}

/* After every batch of completions: hand out work once, seeing all of
 * the batch's changes (exits and signals included). */
static void after_batch(void *ctx)
{
	sched_run(ctx);
}

static void dispatch(void *ctx, uint64_t ud, int res)
{
	struct sup *s = ctx;
	uint32_t who = loop_who(ud);
	int ci;

	switch (loop_what(ud)) {
	case EV_SIGNAL: on_signal(s, res); return;
	case EV_TICK: on_tick(s); return;
	case EV_ACCEPT: ctlsrv_on_accept(s, res); return;
	case EV_CONN_READ: ctlsrv_on_read(s, who, res); return;
	case EV_CONN_WRITE: ctlsrv_on_write(s, who, res); return;
	case EV_STORE: results_on_cqe(s, who, res); return;
	case EV_JOURNAL_SYNC: ctlsrv_on_sync(s, who, res); return;
	case EV_FLEET: case EV_FLEET_IO: case EV_FLEET_TIMER: fleet_on_cqe(s, loop_what(ud), who, res); return;
	case EV_CONN_TIMEOUT: case EV_IGNORE: return;
	default: break;
	}
	if ((ci = child_of(s, who)) < 0)
		return;		/* an earlier incarnation's: settled at its exit */
	switch (loop_what(ud)) {
	case EV_CHILD_EXIT: child_on_exit(s, (uint32_t)ci); break;
	case EV_CHILD_READ: child_on_read(s, (uint32_t)ci, res); break;
	case EV_CHILD_WRITE: sched_on_write(s, (uint32_t)ci, res); break;
	case EV_CHILD_SPLICE: sched_on_splice(s, (uint32_t)ci, res); break;
	default: break;
	}
	if (s->stopping == 2 && all_down(s))
		s->loop.stop = 1;
}

/* Whether dir holds both worker programs, executable. */
static int has_workers(const char *dir)
{
	char p[PATH_MAX];

	return sup_path(p, sizeof p, "%s/gpuworker", dir) == 0 && access(p, X_OK) == 0 &&
	       sup_path(p, sizeof p, "%s/synth", dir) == 0 && access(p, X_OK) == 0;
}

/* Where the workers are exec'd from: the directory of this binary (the
 * build tree's bin/), or, as installed (`make install`, the .deb),
 * PREFIX/libexec/provisor for PREFIX/bin/provisor. s->bindir is that
 * directory. Neither holding both workers is an error now rather than a
 * crash loop of failed execs later. */
static int find_bindir(struct sup *s)
{
	char exe[PATH_MAX], up[PATH_MAX + 32], lib[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0) {
		fprintf(stderr, "provisor run: cannot find my own binary: %s\n", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	dir = dirname(exe);
	if (has_workers(dir))
		return sup_path(s->bindir, sizeof s->bindir, "%s", dir);
	snprintf(up, sizeof up, "%s/../libexec/provisor", dir);
	if (realpath(up, lib) && has_workers(lib))
		return sup_path(s->bindir, sizeof s->bindir, "%s", lib);
	fprintf(stderr, "provisor run: gpuworker and synth are neither in %s nor in %s/../libexec/provisor\n",
		dir, dir);
	return -1;
}

/* `--gpus auto`: `gpuworker --count-devices` asks the CUDA runtime (which
 * honours CUDA_VISIBLE_DEVICES); the supervisor itself never holds CUDA
 * state, and a CUDA context does not survive fork. Returns the count,
 * with why in `why` when it is 0; -1 when the probe itself failed
 * (no answer within 30 s, or garbage). */
static int probe_gpus(const struct sup *s, char *why, size_t len)
{
	char path[4200], line[512];
	int fd[2], st;
	size_t got = 0;
	pid_t pid;

	why[0] = '\0';
	if (sup_path(path, sizeof path, "%s/gpuworker", s->bindir) < 0 || pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (dup2(fd[1], 1) < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 2) < 0)
			_exit(127);
		execl(path, path, "--count-devices", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	/* The CUDA runtime's first start can take seconds; not forever. */
	uint64_t deadline = shm_now_mono() + 30000000000ull;
	while (got < sizeof line - 1 && !memchr(line, '\n', got)) {
		uint64_t now = shm_now_mono();
		struct pollfd p = { .fd = fd[0], .events = POLLIN };
		if (now >= deadline)
			break;
		int rc = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc < 0 && errno == EINTR)
			continue;
		ssize_t r = rc > 0 ? read(fd[0], line + got, sizeof line - 1 - got) : -1;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd[0]);
	kill(pid, SIGKILL);	/* done or hung: it has nothing more to say */
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	line[got] = '\0';
	char *end, *nl = strchr(line, '\n');
	long v = strtol(line, &end, 10);
	if (!nl || end == line || v < 0 || v > CONF_MAX_SLOTS || (*end != ' ' && *end != '\n'))
		return -1;
	*nl = '\0';
	snprintf(why, len, "%s", *end == ' ' ? end + 1 : "");
	return (int)v;
}

/* The fallback: the NVIDIA driver lists one directory per device; the
 * count is of those a gpuworker would see (CUDA_VISIBLE_DEVICES applies,
 * supervisor/gpus.h). */
static int count_gpus(void)
{
	return sup_gpus_procfs(SUP_GPUS_PROCFS, getenv("CUDA_VISIBLE_DEVICES"), getenv("CUDA_DEVICE_ORDER"));
}

/* Slots: gpus x workers_per_gpu GPU workers, then the synth pool. */
static int make_children(struct sup *s)
{
	struct conf *c = &s->conf;
	int gpus = c->gpus;

	s->backend = c->backend;
	if (find_bindir(s) < 0)
		return -1;
	if (gpus < 0) {
		char why[300];
		gpus = probe_gpus(s, why, sizeof why);
		if (gpus < 0) {
			gpus = count_gpus();
			sup_log("gpuworker --count-devices gave no answer; the NVIDIA driver lists %d GPU(s) CUDA would see",
				gpus);
		}
		if (gpus == 0) {
			sup_log("no GPU found%s%s: running %d CPU-backed GPU worker slot(s)", why[0] ? ": " : "",
				why, c->workers_per_gpu);
			if (s->backend == VOCAB_BACKEND_AUTO)
				s->backend = VOCAB_BACKEND_CPU;
		} else {
			sup_log("%d GPU(s) found by CUDA", gpus);
		}
	}
	s->ngpu = (uint32_t)((gpus ? gpus : 1) * c->workers_per_gpu);	/* no GPU: one CPU "GPU" */
	s->nsynth = (uint32_t)c->synth;
	s->nchild = s->ngpu + s->nsynth;
	if (c->gpus < 0) {	/* auto: the kinds' reserve and slots meet the count now */
		struct conf known = *c;
		char err[200];
		known.gpus = (int)s->ngpu / c->workers_per_gpu;
		if (conf_check_slots(&known, err, sizeof err) < 0) {
			fprintf(stderr, "provisor run: %s\n", err);
			return -1;
		}
	}
	if (s->nchild > CONF_MAX_SLOTS) {
		fprintf(stderr, "provisor run: %u worker slots is more than %d\n", s->nchild, CONF_MAX_SLOTS);
		return -1;
	}
	s->child = calloc(s->nchild, sizeof *s->child);
	if (!s->child)
		return -1;
	for (uint32_t i = 0; i < s->nchild; i++) {
		struct child *ch = &s->child[i];
		ch->kind = i < s->ngpu ? CHILD_GPU : CHILD_SYNTH;
		ch->slot = i < s->ngpu ? i : i - s->ngpu;
		ch->gpu = i < s->ngpu ? i / (uint32_t)c->workers_per_gpu : 0;
		ch->pid = 0;
		ch->pidfd = ch->in_fd = ch->out_fd = ch->files_fd = -1;
		ch->src_child = ch->relay_dst = ch->hdr_for = ch->relay_op_dst = -1;
		ch->state = CH_DOWN;	/* the initial state; child_event() changes it */
		ch->relay = RELAY_IDLE;
	}
	return 0;
}

/* Record each slot's identity before its worker first starts. */
static void init_slots(struct sup *s)
{
	for (uint32_t i = 0; i < s->nchild; i++) {
		struct child *ch = &s->child[i];
		struct shm_slot v = { .gpu = ch->gpu, .state = SHM_SLOT_EMPTY };
		shm_owner_write_slot(&s->seg, ch->kind == CHILD_GPU ? SHM_T_GPU : SHM_T_SYNTH, ch->slot, &v);
	}
}

static void resume_one(void *ctx, const struct journal_job *jj)
{
	sched_resume(ctx, jj);
}

static int setup(struct sup *s)
{
	char err[512], exe[PATH_MAX];
	sigset_t mask;

	if (strlen(s->conf.state_dir) > SUP_STATE_DIR_MAX) {
		fprintf(stderr, "provisor run: state directory path longer than %d bytes (the control "
			"socket lives there): %s\n", SUP_STATE_DIR_MAX, s->conf.state_dir);
		return -1;
	}
	if (s->conf.socket_group[0]) {	/* resolved once: no NSS lookup per accept */
		struct group *g = getgrnam(s->conf.socket_group);
		if (!g) {
			fprintf(stderr, "provisor run: socket_group '%s': no such group\n", s->conf.socket_group);
			return -1;
		}
		s->has_group = 1;
		s->group = g->gr_gid;
	}
	/* What exists of the state directory is checked before the name is
	 * claimed; nothing is created until the name is ours. */
	if (statedir_check(s->conf.state_dir, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	struct shm_config sc = { .name = s->conf.name, .mode = s->conf.shm_mode | (s->has_group ? 0040 : 0),
				 .gpu_slots = s->ngpu, .synth_slots = s->nsynth, .jobs = CONF_MAX_JOBS,
				 .control_path = s->sock_path, .has_group = s->has_group,
				 .group = s->group };
	sup_path(s->sock_path, sizeof s->sock_path, "%s/control.sock", s->conf.state_dir);
	if (shm_create(&s->seg, &sc, err, sizeof err) < 0 || contain_setup(s, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;	/* sup_main removes the segment */
	}
	if (statedir_open(s, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;	/* sup_main removes the segment */
	}
	if (sched_open(s, err, sizeof err) < 0 || params_prepare(s, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	int lrc = sup_log_open(s->state_fd);
	if (lrc < 0)	/* not fatal: stderr still has every line */
		sup_log("cannot write the log file %s/%s: %s; logging to stderr only", s->conf.state_dir,
			SUP_LOG_FILE, strerror(-lrc));
	s->njobs = shm_count(&s->seg, SHM_T_JOB);
	s->jobs = calloc(s->njobs, sizeof *s->jobs);
	s->nullfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!s->jobs || s->nullfd < 0)
		return -1;
	for (uint32_t i = 0; i < s->njobs; i++)
		s->jobs[i].store_fd = s->jobs[i].dir_fd = -1;
	init_slots(s);
	char warn[300];
	uint64_t next_id = 1;
	if (journal_open(&s->journal, s->conf.state_dir, resume_one, s, &next_id, warn, sizeof warn,
			 err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: journal: %s\n", err);
		return -1;
	}
	if (warn[0])
		sup_log("journal: %s", warn);
	s->next_job_id = next_id;
	const char *jmin = secure_getenv("PROVISOR_JOURNAL_COMPACT");	/* tests: compact early */
	s->journal_compact_min = jmin && atoll(jmin) > 0 ? (uint64_t)atoll(jmin) : JOURNAL_COMPACT_MIN;
	if (!s->resume_deferred)	/* (a job left in the journal keeps its directory) */
		results_sweep(s);
	const char *tdir = secure_getenv("PROVISOR_TRACE_DIR");
	if (tdir && *tdir && sup_path(exe, sizeof exe, "%s/sup.%d", tdir, (int)getpid()) == 0)
		s->trace = fopen(exe, "we");
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);	/* used only where pidfd_open is missing */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (s->sigfd < 0) {
		fprintf(stderr, "provisor run: signalfd: %s\n", strerror(errno));
		return -1;
	}
	int rc = loop_init(&s->loop, 512);	/* -errno; errno is not set */
	if (rc < 0) {
		fprintf(stderr, "provisor run: io_uring setup: %s\n", strerror(-rc));
		return -1;
	}
	s->loop.after = after_batch;
	s->loop.slow = on_slow;
	if (ctlsrv_open(s, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	return fleet_open(s);	/* after the journal and the loop (says why not) */
}

static void teardown(struct sup *s)
{
	char dir[PATH_MAX];

	ctlsrv_close(s);
	fleet_close(s);
	if (s->journal)
		journal_close(s->journal);	/* unfinished jobs stay in it */
	if (sup_path(dir, sizeof dir, "%s/jobs", s->conf.state_dir) == 0)
		rmdir(dir);
	contain_fini(s);
	shm_destroy(&s->seg);
	results_close_all(s);
	params_close(s);
	if (s->jobs_fd >= 0)
		close(s->jobs_fd);
	if (s->results_fd >= 0)
		close(s->results_fd);
	statedir_close(s);	/* last: the directory is free for the next one */
	loop_exit(&s->loop);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->nullfd >= 0)
		close(s->nullfd);
	if (s->trace)
		fclose(s->trace);
	free(s->child);
	free(s->jobs);
}

int sup_main(const struct conf *c)
{
	static struct sup sup;
	struct sup *s = &sup;
	char err[512];

	s->sigfd = s->sockfd = s->nullfd = s->state_fd = s->lock_fd = -1;
	s->jobs_fd = s->results_fd = s->seg_fd = -1;
	s->next_job_id = 1;
	s->conf = *c;
	/* Published as clients in any directory will find it. */
	if (statedir_absolute(s->conf.state_dir, sizeof s->conf.state_dir, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return 2;
	}
	if (make_children(s) < 0)
		return 2;
	if (setup(s) < 0) {
		ctlsrv_close(s);
		if (s->seg.base)
			shm_destroy(&s->seg);
		statedir_close(s);
		return 1;
	}
	sup_log("instance '%s': %u GPU worker slot(s), %u synth, state in %s", s->conf.name,
		s->ngpu, s->nsynth, s->conf.state_dir);
	/* Test hooks: said aloud, so that one left in a unit is noticed. */
	static const char *const hooks[] = { "PROVISOR_FAULT", "PROVISOR_WORKER_WRAP",
					     "PROVISOR_TRACE_DIR", "PROVISOR_HTERM_THREADS",
					     "PROVISOR_NO_PIDFD", "PROVISOR_CTL_IDLE_MS",
					     "PROVISOR_LOG_MAX", "PROVISOR_JOURNAL_COMPACT" };
	for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
		const char *v = secure_getenv(hooks[i]);
		if (v)
			sup_log("warning: test hook %s is set (%.60s): not for production", hooks[i], v);
	}
	for (uint32_t i = 0; i < s->nchild; i++)
		child_spawn(s, i);
	arm_signal(s);
	arm_tick(s);
	sched_publish(s);
	sup_notify(s, "READY=1");
	int rc = loop_run(&s->loop, dispatch, s);
	slow_flush(s, shm_now_mono(), 1);
	const struct loop_stats *ls = &s->loop.st;
	sup_log("loop: %" PRIu64 " iterations, the longest %.3f ms (%s), the most CPU time one took %.3f ms (%s)",
		ls->hist.n, ls->hist.max_ns / 1e6, ls->max_what[0] ? ls->max_what : "-", ls->cpu_max_ns / 1e6,
		ls->cpu_max_what[0] ? ls->cpu_max_what : "-");
	teardown(s);
	sup_log("stopped");
	sup_log_close();
	return rc < 0 ? 1 : 0;
}
