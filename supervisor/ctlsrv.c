/*
 * ctlsrv: the control socket. A connection carries requests, one line
 * each, answered in order with one reply line each; after a reply the
 * next request is read (a client that sends one request and closes sees
 * what it always saw). Everything is bounded: connections (SUP_MAX_CONNS,
 * at most SUP_MAX_CONNS_PER_UID from one uid, the last SUP_CONNS_RESERVED
 * for the supervisor's uid and root), line length (CTL_MAX_LINE), and
 * time: a whole request must arrive within 5 s of its first byte (the
 * first request: of accept; each read's linked timeout is what is left
 * of that), a reply must be taken within 5 s, and an open connection
 * waits at most ctl_idle_ns (60 s) for its next request. So a client that
 * sends garbage, too much, nothing, or a byte at a time costs a slot for
 * 5 s at most per request, never locks out `stop`, and never disturbs the
 * loop. A uid at its connection limit that opens one more gets the slot
 * of its own connection that has waited longest between requests (that
 * one is closed), so idle open connections of the supervisor's own uid
 * never keep its `stop` out either; a uid whose connections are all in
 * the middle of a request is refused, as before.
 * Peers are checked with SO_PEERCRED: same uid as the supervisor, or root,
 * or (with socket_group set) a member of that group, by the peer's gid or
 * its supplementary groups (SO_PEERGROUPS). The socket file then belongs
 * to that group with group read/write, so members can connect at all
 * (the state directory and the segment are given to it too: statedir.c,
 * run.c).
 * Anyone else gets "err permission denied" and the connection is closed.
 *
 * A connection's operations carry its slot and epoch in their user_data
 * ("who"); freeing the slot bumps the epoch, so the completion of an
 * operation on a connection that was closed meanwhile is ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "journal/journal.h"
#include "supervisor/sup.h"
#include "util/util.h"

#define CONN_DEADLINE_NS (5ull * 1000000000u)	/* a whole request, from its first byte */
#define CONN_IDLE_NS (60ull * 1000000000u)	/* between requests */
#define CONN_IDLE_MAX_MS 3600000ull	/* PROVISOR_CTL_IDLE_MS at most (1 h) */

static uint32_t conn_who(const struct sup *s, uint32_t ci)
{
	return ci | (uint32_t)s->conn[ci].epoch << 16;
}

/* The open connection a completion is for, or -1 (closed meanwhile). */
static int conn_of(const struct sup *s, uint32_t who)
{
	uint32_t ci = who & 0xffff;

	return ci < SUP_MAX_CONNS && s->conn[ci].fd >= 0 && s->conn[ci].epoch == (who >> 16) ?
	       (int)ci : -1;
}

/* Free the slot. An operation still in flight on it (an evicted
 * connection's read) ends when its socket is shut down, and its
 * completion is then ignored (the epoch moved on). One still queued is
 * handed to the kernel first (loop_flush), so that it holds the socket
 * and its timeout is read before the number or the slot is reused. */
static void close_conn(struct sup *s, uint32_t ci)
{
	loop_flush(&s->loop);
	shutdown(s->conn[ci].fd, SHUT_RDWR);
	close(s->conn[ci].fd);
	s->conn[ci].fd = -1;
	s->conn[ci].epoch++;
}

static void arm_accept(struct sup *s)
{
	io_uring_prep_accept(loop_sqe(&s->loop, loop_ud(EV_ACCEPT, 0)), s->sockfd, NULL, NULL,
			     SOCK_CLOEXEC);
}

int ctlsrv_open(struct sup *s, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = snprintf(s->sock_path, sizeof s->sock_path, "%s/control.sock", s->conf.state_dir);
	mode_t mode = s->conf.socket_mode | (s->has_group ? 0060 : 0), old;
	int rc;

	if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
		snprintf(err, errlen, "control socket path too long (state dir %s)", s->conf.state_dir);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, s->sock_path, (size_t)n + 1);
	for (int i = 0; i < SUP_MAX_CONNS; i++)
		s->conn[i].fd = -1;
	/* Test hook (the tests' idle timeout): ignored in secure-execution
	 * mode, like every PROVISOR_* hook, and announced by run.c. */
	const char *idle = secure_getenv("PROVISOR_CTL_IDLE_MS");
	uint64_t ms;
	s->ctl_idle_ns = CONN_IDLE_NS;
	if (idle && util_num(idle, UTIL_NUM_DIGITS, 1, CONN_IDLE_MAX_MS, &ms) == 0)
		s->ctl_idle_ns = ms * 1000000u;
	s->sockfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->sockfd < 0)
		goto fail;
	/* The state directory's lock proved that no live instance owns it. */
	unlinkat(s->state_fd, "control.sock", 0);
	/* Created with no access beyond the final mode, even for a moment. */
	old = umask(0777 & ~mode);
	rc = bind(s->sockfd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc < 0 || (s->has_group && chown(s->sock_path, (uid_t)-1, s->group) < 0) ||
	    chmod(s->sock_path, mode) < 0 || listen(s->sockfd, 64) < 0)
		goto fail;
	arm_accept(s);
	return 0;
fail:
	snprintf(err, errlen, "control socket %s: %s", s->sock_path, strerror(errno));
	if (s->sockfd >= 0)
		close(s->sockfd);
	s->sockfd = -1;
	return -errno;
}

void ctlsrv_close(struct sup *s)
{
	if (s->sockfd < 0)
		return;
	close(s->sockfd);
	s->sockfd = -1;
	unlink(s->sock_path);
	for (int i = 0; i < SUP_MAX_CONNS; i++)
		if (s->conn[i].fd >= 0)
			close_conn(s, (uint32_t)i);	/* its client sees EOF now */
}

/* Link a timeout of what is left until deadline to the SQE just queued
 * (which gets IOSQE_IO_LINK): the operation is cancelled then. */
static void link_deadline(struct sup *s, uint32_t ci, struct io_uring_sqe *sqe, uint64_t deadline)
{
	struct conn *c = &s->conn[ci];
	uint64_t now = shm_now_mono(), left = deadline > now ? deadline - now : 1;

	c->timeout.tv_sec = (long long)(left / 1000000000u);
	c->timeout.tv_nsec = (long long)(left % 1000000000u);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_link_timeout(loop_sqe(&s->loop, loop_ud(EV_CONN_TIMEOUT, conn_who(s, ci))),
				   &c->timeout, 0);
}

/* Each read's timeout is what is left of the connection's deadline, so a
 * client that drips a byte at a time still has the whole request cut at
 * CONN_DEADLINE_NS. */
static void arm_read(struct sup *s, uint32_t ci)
{
	struct conn *c = &s->conn[ci];
	struct io_uring_sqe *sqe = loop_sqe(&s->loop, loop_ud(EV_CONN_READ, conn_who(s, ci)));

	io_uring_prep_recv(sqe, c->fd, c->buf + c->have, sizeof c->buf - c->have, 0);
	link_deadline(s, ci, sqe, c->deadline_ns);
}

static void reply(struct sup *s, uint32_t ci, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reply(struct sup *s, uint32_t ci, const char *fmt, ...)
{
	struct conn *c = &s->conn[ci];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->reply, sizeof c->reply - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n > sizeof c->reply - 2)
		n = (int)sizeof c->reply - 2;
	c->reply[n++] = '\n';
	struct io_uring_sqe *sqe = loop_sqe(&s->loop, loop_ud(EV_CONN_WRITE, conn_who(s, ci)));
	io_uring_prep_send(sqe, c->fd, c->reply, (size_t)n, MSG_NOSIGNAL);
	/* a client that does not read its replies holds the slot 5 s at most */
	link_deadline(s, ci, sqe, shm_now_mono() + CONN_DEADLINE_NS);
}

/* May this peer use the socket? Its uid is ours or root's, or
 * socket_group is set and the peer is in it (primary or supplementary).
 * *owner says it is ours or root's. */
static int peer_allowed(const struct sup *s, int fd, uid_t *uid, pid_t *pid, int *owner)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	gid_t groups[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	*uid = cred.uid;
	*pid = cred.pid;
	*owner = cred.uid == getuid() || cred.uid == 0;
	if (*owner)
		return 1;
	if (!s->has_group)
		return 0;
	if (cred.gid == s->group)
		return 1;
	len = sizeof groups;	/* more than 256 groups: ERANGE, refused */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return 0;
	for (size_t i = 0; i < len / sizeof groups[0]; i++)
		if (groups[i] == s->group)
			return 1;
	return 0;
}

/* A free connection slot for this peer, or -1 with why. Any one uid holds
 * at most SUP_MAX_CONNS_PER_UID; the last SUP_CONNS_RESERVED slots are
 * kept for the supervisor's own uid and root, so that `stop` and
 * `cancel` get through whatever group members do. */
static int conn_slot(struct sup *s, uid_t uid, int owner, const char **why)
{
	int used = 0, mine = 0, free_ci = -1, idle_ci = -1;

	for (int i = 0; i < SUP_MAX_CONNS; i++) {
		const struct conn *c = &s->conn[i];
		if (c->fd < 0) {
			if (free_ci < 0 && !c->sync_pending)	/* a left client's submit syncing */
				free_ci = i;
			continue;
		}
		used++;
		if (c->uid != uid)
			continue;
		mine++;
		if (c->idle_since_ns && (idle_ci < 0 || c->idle_since_ns < s->conn[idle_ci].idle_since_ns))
			idle_ci = i;
	}
	if (mine >= SUP_MAX_CONNS_PER_UID && idle_ci >= 0) {
		/* its own longest-idle connection makes room: the counts stay */
		close_conn(s, (uint32_t)idle_ci);
		return idle_ci;
	}
	*why = "err busy\n";
	if (free_ci < 0)
		return -1;
	if (mine >= SUP_MAX_CONNS_PER_UID) {
		*why = "err busy: too many connections from this uid\n";
		return -1;
	}
	if (!owner && used >= SUP_MAX_CONNS - SUP_CONNS_RESERVED)
		return -1;
	return free_ci;
}

void ctlsrv_on_accept(struct sup *s, int res)
{
	const char *why;
	uid_t uid = (uid_t)-1;
	pid_t pid = 0;
	int ci, owner = 0;

	if (s->sockfd < 0) {
		if (res >= 0)
			close(res);
		return;
	}
	arm_accept(s);
	if (res < 0) {
		if (res != -EINTR && res != -ECONNABORTED)
			sup_log("accept on the control socket: %s", strerror(-res));
		return;
	}
	if (!peer_allowed(s, res, &uid, &pid, &owner)) {
		/* not ours to serve; say so, as "err busy" does (a fresh
		 * socket's buffer always takes a short line) */
		(void)!write(res, "err permission denied: uid not allowed on this socket\n", 54);
		close(res);
		return;
	}
	if ((ci = conn_slot(s, uid, owner, &why)) < 0) {	/* refuse at once rather than queue */
		(void)!write(res, why, strlen(why));
		close(res);
		return;
	}
	struct conn *c = &s->conn[ci];
	c->fd = res;
	c->uid = uid;
	c->pid = pid;
	c->have = 0;
	c->closing = 0;
	c->idle_since_ns = 0;
	c->deadline_ns = shm_now_mono() + CONN_DEADLINE_NS;	/* the first request, from accept */
	arm_read(s, (uint32_t)ci);
}

static void handle_op(struct sup *s, uint32_t ci, const char *line, size_t len)
{
	struct ctl_req rq;
	char err[200], path[4200];
	uint64_t id;

	if (ctl_parse(line, len, &rq, err, sizeof err) < 0) {
		reply(s, ci, "err %s", err);
		return;
	}
	switch (rq.op) {
	case CTL_PING:
		reply(s, ci, "ok pong");
		return;
	case CTL_HELLO:
		reply(s, ci, "ok %s %d", s->conf.name, (int)getpid());
		return;
	case CTL_SUBMIT:
		if (sched_submit(s, s->conn[ci].uid, rq.kind, rq.seed, rq.seed_len, rq.log_size, rq.partitions, &id,
				 err, sizeof err) < 0) {
			reply(s, ci, "err %s", err);
			return;
		}
		if (s->journal) {
			/* Durable before acknowledged, without the loop waiting
			 * for the disk: the journal's fdatasync is an io_uring
			 * operation, and the reply waits for it (ctlsrv_on_sync). */
			s->conn[ci].sync_pending = 1;
			s->conn[ci].sync_job = id;
			io_uring_prep_fsync(loop_sqe(&s->loop, loop_ud(EV_JOURNAL_SYNC, ci)),
					    journal_fd(s->journal), IORING_FSYNC_DATASYNC);
			return;
		}
		sched_result_path(s, id, path, sizeof path);
		reply(s, ci, "ok %llu %s", (unsigned long long)id, path);
		return;
	case CTL_RETRY:
		if (sched_retry(s, s->conn[ci].uid, rq.job, err, sizeof err) < 0) {
			reply(s, ci, "err %s", err);
			return;
		}
		id = rq.job;
		if (s->journal) {	/* durable before acknowledged, as a submit */
			s->conn[ci].sync_pending = 1;
			s->conn[ci].sync_job = id;
			io_uring_prep_fsync(loop_sqe(&s->loop, loop_ud(EV_JOURNAL_SYNC, ci)),
					    journal_fd(s->journal), IORING_FSYNC_DATASYNC);
			return;
		}
		sched_result_path(s, id, path, sizeof path);
		reply(s, ci, "ok %llu %s", (unsigned long long)id, path);
		return;
	case CTL_CANCEL:
		if (sched_cancel(s, rq.job, err, sizeof err) < 0)
			reply(s, ci, "err %s", err);
		else
			reply(s, ci, "ok");
		return;
	case CTL_DRAIN:
		if (!s->draining)
			sup_log("draining: no new jobs; the accepted ones go on (provisor resume "
				"takes jobs again)");
		s->draining = 1;
		reply(s, ci, "ok");
		return;
	case CTL_RESUME:
		if (s->stop_requested || s->stopping) {
			reply(s, ci, "err stopping: cannot resume");
			return;
		}
		if (s->draining)
			sup_log("resumed: taking jobs again");
		s->draining = s->drained = 0;
		sched_publish(s);
		reply(s, ci, "ok");
		return;
	case CTL_STOP:
		s->stop_requested = 1;
		reply(s, ci, "ok");
		return;
	case CTL_WORKER_ENABLE:
	case CTL_WORKER_DISABLE:
		if (child_set_enabled(s, rq.slot_table, rq.slot, rq.op == CTL_WORKER_ENABLE,
				      err, sizeof err) < 0)
			reply(s, ci, "err %s", err);
		else
			reply(s, ci, "ok");
		return;
	}
	reply(s, ci, "err unknown request");
}

/* One request, answered, and logged with who asked (SO_PEERCRED at
 * accept) and what came of it, unless it only asked (ping, hello). A
 * submit or retry waiting for the journal's sync is logged as accepted
 * now; a failed sync is logged when it comes (ctlsrv_on_sync). */
static void handle(struct sup *s, uint32_t ci, const char *line, size_t len)
{
	const struct conn *c = &s->conn[ci];
	int n = (int)(len > 120 ? 120 : len - 1);	/* the line, without its '\n' */

	handle_op(s, ci, line, len);
	if (!strncmp(line, "ping", 4) || !strncmp(line, "hello", 5))
		return;
	if (c->sync_pending)
		sup_log("control: uid %u pid %d: %.*s: ok %llu (journaling)", (unsigned)c->uid, (int)c->pid, n,
			line, (unsigned long long)c->sync_job);
	else
		sup_log("control: uid %u pid %d: %.*s: %.*s", (unsigned)c->uid, (int)c->pid, n, line,
			(int)strcspn(c->reply, "\n"), c->reply);
}

/* Answer the request at the start of the buffer if it is whole, else
 * read more. One reply is in flight at a time: what follows the request
 * waits in the buffer (or in the socket) until it has been written. */
static void serve(struct sup *s, uint32_t ci)
{
	struct conn *c = &s->conn[ci];
	char *nl = memchr(c->buf, '\n', c->have);

	if (nl) {
		uint32_t len = (uint32_t)(nl - c->buf) + 1;
		handle(s, ci, c->buf, len);	/* the reply is formatted: the line may go */
		c->have -= len;
		memmove(c->buf, c->buf + len, c->have);
		return;
	}
	if (c->have >= sizeof c->buf) {
		reply(s, ci, "err request longer than %d bytes", CTL_MAX_LINE);
		c->closing = 1;		/* no line end to start the next one from */
		return;
	}
	arm_read(s, ci);
}

void ctlsrv_on_read(struct sup *s, uint32_t who, int res)
{
	int i = conn_of(s, who);
	struct conn *c;

	if (i < 0)
		return;
	c = &s->conn[i];
	if (res <= 0) {		/* closed, error, or timed out */
		close_conn(s, (uint32_t)i);
		return;
	}
	loop_got(c->buf + c->have, res);
	c->got_ns = shm_now_mono();
	if (c->idle_since_ns) {	/* the first byte of a next request: 5 s for the rest */
		c->idle_since_ns = 0;
		c->deadline_ns = c->got_ns + CONN_DEADLINE_NS;
	}
	c->have += (uint32_t)res;
	serve(s, (uint32_t)i);
}

void ctlsrv_on_sync(struct sup *s, uint32_t ci, int res)
{
	struct conn *c;
	char path[4200], why[200];

	if (ci >= SUP_MAX_CONNS || !s->conn[ci].sync_pending)
		return;
	c = &s->conn[ci];
	c->sync_pending = 0;
	journal_synced(s->journal, res);
	if (res < 0) {
		snprintf(why, sizeof why, "not accepted: fsync journal: %s", strerror(-res));
		sup_log("job %llu %s", (unsigned long long)c->sync_job, why);
		sched_withdraw(s, c->sync_job, why);
	}
	if (c->fd < 0)
		return;		/* the client left: its job stands (or was withdrawn) */
	if (res < 0) {
		reply(s, ci, "err %s", why);
		return;
	}
	sched_result_path(s, c->sync_job, path, sizeof path);
	reply(s, ci, "ok %llu %s", (unsigned long long)c->sync_job, path);
}

/* A reply went out: on to the next request, which may be here already. */
void ctlsrv_on_write(struct sup *s, uint32_t who, int res)
{
	int i = conn_of(s, who);
	struct conn *c;

	if (i < 0)
		return;
	c = &s->conn[i];
	if (res <= 0 || c->closing) {	/* error, timed out, or nothing more to read */
		close_conn(s, (uint32_t)i);
		return;
	}
	if (c->have) {		/* its first bytes came with the last read */
		c->deadline_ns = c->got_ns + CONN_DEADLINE_NS;
		serve(s, (uint32_t)i);
		return;
	}
	c->idle_since_ns = shm_now_mono();
	c->deadline_ns = c->idle_since_ns + s->ctl_idle_ns;
	arm_read(s, (uint32_t)i);
}
