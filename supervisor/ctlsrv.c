/*
 * ctlsrv: the control socket. One request line per connection, one reply
 * line, then close. Everything is bounded: connections (SUP_MAX_CONNS, at
 * most SUP_MAX_CONNS_PER_UID from one uid, the last SUP_CONNS_RESERVED
 * for the supervisor's uid and root), line length (CTL_MAX_LINE), and
 * time (a whole request must arrive within 5 s of accept: each read's
 * linked timeout is what is left of that), so a client that sends
 * garbage, too much, nothing, or a byte at a time costs a slot for 5 s at
 * most, never locks out `stop`, and never disturbs the loop.
 * Peers are checked with SO_PEERCRED: same uid as the supervisor, or root,
 * or (with socket_group set) a member of that group, by the peer's gid or
 * its supplementary groups (SO_PEERGROUPS). The socket file then belongs
 * to that group with group read/write, so members can connect at all
 * (the state directory and the segment are given to it too: statedir.c,
 * run.c).
 * Anyone else gets "err permission denied" and the connection is closed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/sup.h"

#define CONN_DEADLINE_NS (5ull * 1000000000u)	/* a whole request, from accept */

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
		if (s->conn[i].fd >= 0) {
			close(s->conn[i].fd);
			s->conn[i].fd = -1;
		}
}

/* Each read's timeout is what is left of the connection's deadline, so a
 * client that drips a byte at a time still has the whole request cut at
 * CONN_DEADLINE_NS. */
static void arm_read(struct sup *s, uint32_t ci)
{
	struct conn *c = &s->conn[ci];
	struct io_uring_sqe *sqe = loop_sqe(&s->loop, loop_ud(EV_CONN_READ, ci));
	uint64_t now = shm_now_mono(), left = c->deadline_ns > now ? c->deadline_ns - now : 1;

	c->timeout.tv_sec = (long long)(left / 1000000000u);
	c->timeout.tv_nsec = (long long)(left % 1000000000u);
	io_uring_prep_recv(sqe, c->fd, c->buf + c->have, sizeof c->buf - c->have, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_link_timeout(loop_sqe(&s->loop, loop_ud(EV_CONN_TIMEOUT, ci)), &c->timeout, 0);
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
	io_uring_prep_send(loop_sqe(&s->loop, loop_ud(EV_CONN_WRITE, ci)), c->fd, c->reply,
			   (size_t)n, MSG_NOSIGNAL);
}

static void close_conn(struct sup *s, uint32_t ci)
{
	close(s->conn[ci].fd);
	s->conn[ci].fd = -1;
}

/* May this peer use the socket? Its uid is ours or root's, or
 * socket_group is set and the peer is in it (primary or supplementary).
 * *owner says it is ours or root's. */
static int peer_allowed(const struct sup *s, int fd, uid_t *uid, int *owner)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	gid_t groups[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	*uid = cred.uid;
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
static int conn_slot(const struct sup *s, uid_t uid, int owner, const char **why)
{
	int used = 0, mine = 0, free_ci = -1;

	for (int i = 0; i < SUP_MAX_CONNS; i++) {
		if (s->conn[i].fd < 0) {
			if (free_ci < 0)
				free_ci = i;
			continue;
		}
		used++;
		mine += s->conn[i].uid == uid;
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
	if (!peer_allowed(s, res, &uid, &owner)) {
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
	s->conn[ci].fd = res;
	s->conn[ci].uid = uid;
	s->conn[ci].have = 0;
	s->conn[ci].deadline_ns = shm_now_mono() + CONN_DEADLINE_NS;
	arm_read(s, (uint32_t)ci);
}

static void handle(struct sup *s, uint32_t ci, const char *line, size_t len)
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
		if (sched_submit(s, rq.kind, rq.seed, rq.seed_len, rq.log_size, rq.partitions, &id,
				 err, sizeof err) < 0) {
			reply(s, ci, "err %s", err);
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
		s->draining = 1;
		sup_log("draining: no new jobs; stopping when the accepted ones are done");
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

void ctlsrv_on_read(struct sup *s, uint32_t ci, int res)
{
	struct conn *c = &s->conn[ci];
	char *nl;

	if (c->fd < 0)
		return;
	if (res <= 0) {		/* closed, error, or timed out */
		close_conn(s, ci);
		return;
	}
	loop_got(c->buf + c->have, res);
	c->have += (uint32_t)res;
	nl = memchr(c->buf, '\n', c->have);
	if (nl) {
		handle(s, ci, c->buf, (size_t)(nl - c->buf) + 1);
		return;
	}
	if (c->have >= sizeof c->buf) {
		reply(s, ci, "err request longer than %d bytes", CTL_MAX_LINE);
		return;
	}
	arm_read(s, ci);
}

void ctlsrv_on_write(struct sup *s, uint32_t ci, int res)
{
	(void)res;
	if (s->conn[ci].fd >= 0)
		close_conn(s, ci);
}
