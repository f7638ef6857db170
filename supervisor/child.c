/*
 * child: the worker processes. Each is fork+exec'd (clean address space:
 * never a bare fork of this process; spawn.c), with its stdin and stdout
 * on pipes the loop drives, a pidfd polled for its exit, and SIGKILL as
 * its parent-death signal so a dead supervisor leaves no orphan on the
 * GPU. The tick's watchdog and restarts are watchdog.c's.
 *
 * A child's exit is an event: reap it, repair its status slot (it may have
 * died mid-write), requeue what it held, and start it again after a
 * backoff that grows with crashes in a row and resets after a stable run.
 * Frames it sends are checked; a malformed one makes it faulty: killed,
 * and the same path runs.
 *
 * Every change of a child's state goes through child_event(): the pure
 * table in child_fsm.c names the next state and the actions, performed
 * here (child_act). Handlers only decide which event happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuworker/hterm.h"
#include "supervisor/sup.h"
#include "util/text.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif




int child_alive(const struct child *c)
{
	return child_state_alive(c->state);
}

int child_serving(const struct child *c)
{
	return c->state == CH_READY;
}

int child_takes_work(const struct child *c)
{
	return child_serving(c) && !c->disabled && !c->wr_pending &&
	       (!c->rest_until_ns || shm_now_mono() >= c->rest_until_ns);
}

int child_idle(const struct child *c)
{
	return c->nhold == 0 && !relay_busy(c) && c->src_child < 0 && !c->wr_pending &&
	       c->rd == RD_HDR && !c->verifying;
}

void child_write(struct sup *s, uint32_t ci, const void *buf, size_t len)
{
	struct child *c = &s->child[ci];

	if (buf != c->wbuf)
		memcpy(c->wbuf, buf, len);
	io_uring_prep_write(loop_sqe(&s->loop, loop_ud(EV_CHILD_WRITE, child_who(s, ci))),
			    c->in_fd, c->wbuf, (unsigned)len, (uint64_t)-1);
	c->wr_pending = 1;
	c->in_ops++;
}

/* Write a slot record the supervisor owns (the worker is not running). */
static void show_slot(struct sup *s, const struct child *c, const struct shm_slot *v)
{
	int rc = shm_owner_write_slot(&s->seg, child_table(c), c->slot, v);

	if (rc < 0)
		sup_log("writing %s.%u's status slot: %s", child_kind_name(c), c->slot, strerror(-rc));
}

/* Read what the current state wants next from the child's stdout. */
void child_arm_read(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	void *dst;
	uint64_t len;

	if (c->rd_pending || c->out_fd < 0)
		return;
	switch (c->rd) {
	case RD_HDR:
		dst = (uint8_t *)&c->hdr + c->hdr_have;
		len = FRAME_HDR_SIZE - c->hdr_have;
		break;
	case RD_SMALL:
		dst = c->buf + c->buf_have;
		len = c->hdr.payload_len - c->buf_have;
		if (len > (1u << 20))
			len = 1u << 20;
		break;
	default:
		return;
	}
	io_uring_prep_read(loop_sqe(&s->loop, loop_ud(EV_CHILD_READ, child_who(s, ci))), c->out_fd, dst,
			   (unsigned)len, (uint64_t)-1);
	c->rd_pending = 1;
	c->out_ops++;
}

void child_kill(struct sup *s, uint32_t ci, const char *why)
{
	child_event(s, ci, CEV_KILL, why);
}

/* A whole header arrived: check it against what this child may send. */
static void on_header(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	char err[200];
	uint16_t t = c->hdr.type;

	if (frame_check_hdr(&c->hdr, s->conf.max_log_size, err, sizeof err) < 0) {
		child_kill(s, ci, err);
		return;
	}
	if (t == FRAME_HELLO || t == FRAME_FAIL || (t == FRAME_H_DONE && c->kind == CHILD_GPU) ||
	    ((t == FRAME_VERIFIED || t == FRAME_PART_INFO) && c->kind == CHILD_SYNTH)) {
		c->buf = malloc(c->hdr.payload_len);
		if (!c->buf) {
			child_kill(s, ci, "out of memory for its frame");
			return;
		}
		c->buf_have = 0;
		c->rd = RD_SMALL;
		child_arm_read(s, ci);
		return;
	}
	if (t == FRAME_PART_DATA && c->kind == CHILD_SYNTH) {
		c->rd = RD_HELD;	/* the payload stays in the pipe */
		sched_synth_ready(s, ci);
		return;
	}
	snprintf(err, sizeof err, "unexpected frame type %u from a %s worker", t, child_kind_name(c));
	child_kill(s, ci, err);
}

/* A whole payload arrived. */
static void on_payload(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	char reason[FRAME_FAIL_MAX * 4 + 1];

	if (frame_checksum(c->buf, c->buf_have) != c->hdr.checksum) {
		child_kill(s, ci, "payload checksum mismatch");
		return;
	}
	switch (c->hdr.type) {
	case FRAME_HELLO:
		child_event(s, ci, CEV_HELLO, NULL);
		break;
	case FRAME_FAIL:	/* untrusted text: shown safely wherever it goes */
		util_cleann(reason, sizeof reason, (const char *)c->buf, c->buf_have);
		sched_part_failed(s, ci, c->hdr.reserved, reason);
		break;
	case FRAME_H_DONE:
		sched_result(s, ci);
		break;
	case FRAME_VERIFIED:
		check_verified(s, ci);
		break;
	case FRAME_PART_INFO:
		check_part_info(s, ci);
		break;
	}
	free(c->buf);
	c->buf = NULL;
	c->rd = RD_HDR;
	c->hdr_have = 0;
}

void child_on_read(struct sup *s, uint32_t ci, int res)
{
	struct child *c = &s->child[ci];

	c->rd_pending = 0;
	if (!child_alive(c)) {	/* data from before its death: settled at its exit */
		free(c->buf);	/* the kernel is done writing into it now */
		c->buf = NULL;
		child_io_done(s, ci, 0, 1);	/* (may start the next incarnation) */
		return;
	}
	child_io_done(s, ci, 0, 1);
	if (res <= 0) {		/* EOF or error: it is exiting; the pidfd says when */
		if (res < 0 && res != -EPIPE && child_alive(c))
			sup_log("read from %s.%u: %s", child_kind_name(c), c->slot, strerror(-res));
		c->rd = RD_EOF;
		return;
	}
	if (c->rd == RD_HDR) {
		loop_got((uint8_t *)&c->hdr + c->hdr_have, res);
		c->hdr_have += (uint32_t)res;
		if (c->hdr_have == FRAME_HDR_SIZE)
			on_header(s, ci);
	} else {
		loop_got(c->buf + c->buf_have, res);
		c->buf_have += (uint64_t)res;
		if (c->buf_have == c->hdr.payload_len)
			on_payload(s, ci);
	}
	if (child_alive(c))
		child_arm_read(s, ci);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void release_fds(struct child *c)
{
	if (c->in_doomed && !c->in_ops) {
		close_fd(&c->in_fd);
		c->in_doomed = 0;
	}
	if (c->out_doomed && !c->out_ops) {
		close_fd(&c->out_fd);
		c->out_doomed = 0;
	}
}

void child_io_done(struct sup *s, uint32_t ci, int in, int out)
{
	struct child *c = &s->child[ci];

	c->in_ops -= in;
	c->out_ops -= out;
	release_fds(c);
	child_restart_due(s, ci);
}

void child_close_in(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];

	if (c->in_fd < 0)
		return;
	c->in_doomed = 1;
	release_fds(c);
}

static void child_reaped(struct sup *s, uint32_t ci, const siginfo_t *si);

/* The pidfd became readable: reap, repair, requeue, schedule a restart. */
void child_on_exit(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];
	siginfo_t si = { 0 };

	/* Not reaped at once: until it is, its pid names its group. */
	if (waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid) {
		contain_exited(s, c->pid);	/* its process group, and what escaped it */
		memset(&si, 0, sizeof si);
		if (waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG) == 0 && si.si_pid) {
			child_reaped(s, ci, &si);
			return;
		}
	}
	/* Not exited yet (spurious wakeup): poll again. */
	io_uring_prep_poll_add(loop_sqe(&s->loop, loop_ud(EV_CHILD_EXIT, child_who(s, ci))),
			       c->pidfd, POLLIN);
}

/* SIGCHLD arrived (signals coalesce: any number of children may have
 * exited). Only children watched without a pidfd are reaped here. */
void child_on_sigchld(struct sup *s)
{
	contain_on_sigchld(s);	/* a worker's orphaned descendant, reparented here */
	if (!s->no_pidfd)
		return;		/* every child has its pidfd */
	for (uint32_t ci = 0; ci < s->nchild; ci++) {
		struct child *c = &s->child[ci];
		siginfo_t si = { 0 };

		if (c->pid <= 0 || c->pidfd >= 0)
			continue;
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid != c->pid)
			continue;
		contain_exited(s, c->pid);
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG) == 0 && si.si_pid == c->pid)
			child_reaped(s, ci, &si);
	}
}

/* What an event brings with it: the reason of a kill, and at an exit the
 * repaired slot record and the exit (for the slot and the event). */
struct child_ctx {
	const char *why;
	struct shm_slot *v;
	int32_t code;
};

static void child_act(struct sup *s, uint32_t ci, enum child_event ev, const struct child_ctx *x);

void child_event(struct sup *s, uint32_t ci, enum child_event ev, const char *why)
{
	struct child_ctx x = { .why = why };

	child_act(s, ci, ev, &x);
}

/* The crash restarts after a backoff: the first at once, then 100 ms
 * doubling up to backoff_max. */
static void backoff(struct sup *s, uint32_t ci, const struct child_ctx *x)
{
	struct child *c = &s->child[ci];
	struct shm_slot *v = x->v;
	uint64_t delay_ms = c->crashes ? 100ull << (c->crashes - 1 < 20 ? c->crashes - 1 : 20) : 0;

	if (c->preempt_kill) {	/* killed to take its work back: no crash */
		c->preempt_kill = 0;
		c->restart_at_ns = shm_now_mono();
		v->state = SHM_SLOT_CRASHED;	/* restarts counts crashes' restarts only */
		show_slot(s, c, v);
		sup_log("%s.%u: replaced after a pre-emption kill", child_kind_name(c), c->slot);
		c->kill_why[0] = '\0';
		return;
	}
	if (delay_ms > s->conf.backoff_max_ms)
		delay_ms = s->conf.backoff_max_ms;
	c->crashes++;
	c->restart_at_ns = shm_now_mono() + delay_ms * 1000000u;
	v->state = delay_ms ? SHM_SLOT_BACKOFF : SHM_SLOT_CRASHED;
	v->restarts++;
	show_slot(s, c, v);
	sup_event(s, SHM_EV_CRASH, child_table(c), c->slot, x->code, 0, 0,
		  "%s.%u %s %d%s%s; restart in %llu ms", child_kind_name(c), c->slot,
		  v->last_exit_kind == SHM_EXIT_SIGNAL ? "killed by signal" : "exited with", x->code,
		  c->kill_why[0] ? ": " : "", c->kill_why, (unsigned long long)delay_ms);
	c->kill_why[0] = '\0';
}

/* Perform the transition child_fsm() names for ci's state and ev. */
static void child_act(struct sup *s, uint32_t ci, enum child_event ev, const struct child_ctx *x)
{
	struct child *c = &s->child[ci];
	struct child_step st = child_fsm(c->state, ev);
	struct shm_slot v;

	if (st.actions & CA_IMPOSSIBLE) {
		sup_log("%s.%u: event '%s' in state %s is %s; ignored%s%s", child_kind_name(c), c->slot,
			child_event_name(ev), child_state_name(c->state), st.what, x->why ? ": " : "",
			x->why ? x->why : "");
		return;
	}
	c->state = st.next;
	if (st.actions & CA_MARK_DISABLED)
		c->disabled = 1;
	if (st.actions & CA_CLEAR_DISABLED)
		c->disabled = 0;
	if (st.actions & CA_SIGKILL) {
		const char *why = x->why ? x->why : "asked to";
		sup_log("killing %s.%u (pid %d): %s", child_kind_name(c), c->slot, (int)c->pid, why);
		snprintf(c->kill_why, sizeof c->kill_why, "%s", why);
		if (c->pid > 0)	/* always, in a live state: never kill(0) */
			kill(c->pid, SIGKILL);
	}
	if (st.actions & CA_CLOSE_IN)
		child_close_in(s, ci);	/* EOF: it finishes and exits */
	if ((st.actions & CA_SIGTERM) && c->pid > 0)
		kill(c->pid, SIGTERM);
	if (st.actions & CA_RETRY_LATER)
		c->restart_at_ns = shm_now_mono() + 1000000000u;
	if (st.actions & CA_SHOW_STOPPED) {
		x->v->state = SHM_SLOT_STOPPED;
		show_slot(s, c, x->v);
	}
	if (st.actions & CA_SHOW_DISABLED) {
		if (!c->disable_reason)
			c->disable_reason = c->disabled ? SHM_DISABLE_OPERATOR : SHM_DISABLE_CRASHLOOP;
		if (x->v) {
			x->v->state = SHM_SLOT_DISABLED;
			x->v->disable_reason = c->disable_reason;
			show_slot(s, c, x->v);
			const char *why = x->why ? x->why
				: c->disable_reason == SHM_DISABLE_WRONG_RESULT ? "wrong result" : NULL;
			sup_event(s, SHM_EV_DISABLE, child_table(c), c->slot, x->code, 0, 0, "%s.%u disabled%s%s",
				  child_kind_name(c), c->slot, why ? ": " : "", why ? why : "");
		} else if (shm_read_slot(&s->seg, child_table(c), c->slot, &v) == 0) {
			v.state = SHM_SLOT_DISABLED;
			v.disable_reason = c->disable_reason;
			show_slot(s, c, &v);
		}
	}
	if (st.actions & CA_BACKOFF)
		backoff(s, ci, x);
	if (st.actions & CA_RESET) {
		c->disable_reason = SHM_DISABLE_NONE;
		c->restart_at_ns = shm_now_mono();
		c->crashes = 0;
		c->window_n = 0;
		c->device_losses = 0;
		sup_event(s, SHM_EV_ENABLE, child_table(c), c->slot, 0, 0, 0, "%s.%u enabled",
			  child_kind_name(c), c->slot);
	}
	if ((st.actions & CA_SPAWN) && child_spawn(s, ci) == 0 && c->crashes)
		sup_event(s, SHM_EV_RESTART, child_table(c), c->slot, 0, 0, 0, "%s.%u restarted",
			  child_kind_name(c), c->slot);
	if (st.actions & CA_BACKOFF)
		child_restart_due(s, ci);	/* the first restart is at once */
}

/* Repair ci's slot after its worker died (it may have died mid-write) and
 * count the partition it had begun as failed, as the slot's own counter
 * does (shm_slot_repair: failed + 1 when it was busy): the supervisor's
 * parts_failed then counts every lost attempt exactly once. A worker
 * killed to pre-empt it lost nothing: the slot counts no failure, and
 * its preempted counts the taken partitions, one each, begun or not
 * (taken: those child_reaped notes as pre-empted; a synth killed while
 * relaying holds none, and counts the one it had begun). */
static void repair_slot(struct sup *s, uint32_t ci, uint32_t kind, int32_t code, uint32_t taken,
			struct shm_slot *v)
{
	struct child *c = &s->child[ci];
	struct shm_slot pre;
	int have_pre = shm_read_slot(&s->seg, child_table(c), c->slot, &pre) == 0;
	int rc = shm_slot_repair(&s->seg, child_table(c), c->slot, kind, code, v);

	if (rc == 0) {
		if (have_pre && c->preempt_kill && (v->failed > pre.failed || taken)) {
			/* killed to pre-empt it: what it held was taken back,
			 * not lost */
			v->preempted += taken ? taken : v->failed - pre.failed;
			v->failed = pre.failed;
			shm_owner_write_slot(&s->seg, child_table(c), c->slot, v);
		} else if (have_pre && v->failed > pre.failed) {
			s->stats.parts_failed += v->failed - pre.failed;
		}
		return;
	}
	/* Not repaired: publish what is known, never an unset record. */
	sup_log("repairing %s.%u's status slot: %s", child_kind_name(c), c->slot, strerror(-rc));
	if (have_pre)
		*v = pre;
	else
		*v = (struct shm_slot){ .gpu = c->gpu };
	v->state = SHM_SLOT_CRASHED;
	v->last_exit_kind = kind;
	v->last_exit_code = code;
	v->last_exit_wall_ns = shm_now_wall();
}

static void child_reaped(struct sup *s, uint32_t ci, const siginfo_t *si)
{
	struct child *c = &s->child[ci];
	struct shm_slot v;
	uint32_t kind = SHM_EXIT_CODE;
	struct child_ctx x = { .v = &v };
	enum child_event ev;
	char why[160];
	uint64_t now = shm_now_mono();

	x.code = si->si_status;
	if (si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED)
		kind = SHM_EXIT_SIGNAL;
	close_fd(&c->pidfd);
	close_fd(&c->files_fd);
	c->in_doomed = c->out_doomed = 1;	/* closed once no operation uses them */
	release_fds(c);
	if (!c->rd_pending) {	/* else a read in flight still writes into it */
		free(c->buf);
		c->buf = NULL;
	}

	uint32_t taken = 0;
	if (c->preempt_kill)
		for (int h = 0; h < c->nhold; h++)
			taken += jobs_wanted(s, &c->hold[h]) &&
				 s->jobs[c->hold[h].job].part[c->hold[h].part].preempting;
	repair_slot(s, ci, kind, x.code, taken, &v);
	if (c->preempt_kill)
		for (int h = 0; h < c->nhold; h++)
			if (jobs_wanted(s, &c->hold[h]) && s->jobs[c->hold[h].job].part[c->hold[h].part].preempting)
				preempt_note(s, ci, &c->hold[h], "its worker killed");
	int lost = c->kind == CHILD_GPU && kind == SHM_EXIT_CODE && x.code == GPUWORKER_EXIT_DEVICE_LOST;
	sched_requeue(s, ci, lost, lost ? "device lost" : kind == SHM_EXIT_SIGNAL ? "worker killed" : "worker exited");
	c->pid = 0;
	if (c->disabled) {
		c->preempt_kill = 0;
		ev = CEV_EXIT_DISABLE;
		x.code = 0;
	} else if (s->stopping) {
		c->preempt_kill = 0;
		ev = CEV_EXIT_STOPPED;
	} else if (c->preempt_kill) {
		ev = CEV_EXIT_CRASH;	/* restarted at once, no crash counted (backoff) */
	} else if (c->kind == CHILD_GPU && kind == SHM_EXIT_CODE && x.code == GPUWORKER_EXIT_NO_DEVICE) {
		/* backend cuda and no device: restarting it cannot help */
		ev = CEV_EXIT_DISABLE;
		c->disable_reason = SHM_DISABLE_NO_DEVICE;
		x.why = "no CUDA device for backend cuda";
	} else if (c->kind == CHILD_GPU && kind == SHM_EXIT_CODE &&
		   (x.code == GPUWORKER_EXIT_BAD_DEVICE || x.code == GPUWORKER_EXIT_BAD_BACKEND)) {
		/* its backend's init refused the device, or the backend could
		 * not be loaded: the same at every restart; nothing was charged */
		ev = CEV_EXIT_DISABLE;
		c->disable_reason = x.code == GPUWORKER_EXIT_BAD_DEVICE ? SHM_DISABLE_BAD_DEVICE
									 : SHM_DISABLE_BAD_BACKEND;
		x.why = x.code == GPUWORKER_EXIT_BAD_DEVICE ? "bad device: its backend's init refused it"
							    : "bad backend: it could not be loaded or initialized";
	} else if (lost && ++c->device_losses >= SUP_DEVICE_LOST_MAX) {
		s->stats.device_lost++;
		ev = CEV_EXIT_DISABLE;
		c->disable_reason = SHM_DISABLE_DEVICE_LOST;
		snprintf(why, sizeof why, "device lost %u times", c->device_losses);
		x.why = why;
	} else if (lost) {	/* restarted after the backoff, as after a crash */
		s->stats.device_lost++;
		ev = CEV_EXIT_CRASH;
	} else {
		if (now - c->started_ns > s->conf.stable_run_ms * 1000000u)
			c->crashes = 0;
		/* Intensity: too many crashes within the period disable the slot. */
		if (!c->window_n || now - c->window_start_ns > s->conf.restart_period_ms * 1000000u) {
			c->window_start_ns = now;
			c->window_n = 0;
		}
		ev = ++c->window_n >= s->conf.restart_intensity ? CEV_EXIT_DISABLE : CEV_EXIT_CRASH;
		if (ev == CEV_EXIT_DISABLE) {
			snprintf(why, sizeof why, "%u crashes within %llu s (last: %s %d)", c->window_n,
				 (unsigned long long)(s->conf.restart_period_ms / 1000),
				 kind == SHM_EXIT_SIGNAL ? "signal" : "exit", x.code);
			x.why = why;
			c->disable_reason = SHM_DISABLE_CRASHLOOP;
		}
	}
	child_act(s, ci, ev, &x);
}
