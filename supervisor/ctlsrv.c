/*
 * ctlsrv: the control socket. One request line per connection, one reply
 * line, then close. Everything is bounded: connections (SUP_MAX_CONNS),
 * line length (CTL_MAX_LINE), and time (a read gets a linked timeout), so
 * a client that sends garbage, too much, or nothing at all costs a slot
 * for a few seconds at most and never disturbs the loop.
 * Peers are checked with SO_PEERCRED: same uid as the supervisor, or root,
 * or (with socket_group set) a member of that group, by the peer's gid or
 * its supplementary groups (SO_PEERGROUPS). The socket file then belongs
 * to that group with group read/write, so members can connect at all.
 * Anyone else gets "err permission denied" and the connection is closed.
 */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/sup.h"

#define CONN_TIMEOUT_S 5

static struct __kernel_timespec conn_timeout = { .tv_sec = CONN_TIMEOUT_S };
/* socket_group's gid, resolved once at open: no NSS lookup per accept. */
static gid_t ctl_gid = (gid_t)-1;

static void arm_accept(struct sup *s)
{
	io_uring_prep_accept(loop_sqe(&s->loop, loop_ud(EV_ACCEPT, 0)), s->sockfd, NULL, NULL,
			     SOCK_CLOEXEC);
}

int ctlsrv_open(struct sup *s, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = snprintf(s->sock_path, sizeof s->sock_path, "%s/control.sock", s->conf.state_dir);

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
	unlink(s->sock_path);	/* the segment proved no live instance owns it */
	ctl_gid = (gid_t)-1;
	if (s->conf.socket_group[0]) {
		struct group *g = getgrnam(s->conf.socket_group);
		if (!g) {
			snprintf(err, errlen, "socket_group '%s': no such group", s->conf.socket_group);
			close(s->sockfd);
			s->sockfd = -1;
			return -ENOENT;
		}
		ctl_gid = g->gr_gid;
	}
	if (bind(s->sockfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    (ctl_gid != (gid_t)-1 && chown(s->sock_path, (uid_t)-1, ctl_gid) < 0) ||
	    chmod(s->sock_path, s->conf.socket_mode | (ctl_gid != (gid_t)-1 ? 0060 : 0)) < 0 ||
	    listen(s->sockfd, 64) < 0)
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

static void arm_read(struct sup *s, uint32_t ci)
{
	struct conn *c = &s->conn[ci];
	struct io_uring_sqe *sqe = loop_sqe(&s->loop, loop_ud(EV_CONN_READ, ci));

	io_uring_prep_recv(sqe, c->fd, c->buf + c->have, sizeof c->buf - c->have, 0);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_prep_link_timeout(loop_sqe(&s->loop, loop_ud(EV_CONN_TIMEOUT, ci)), &conn_timeout, 0);
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
 * socket_group is set and the peer is in it (primary or supplementary). */
static int peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	gid_t groups[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	if (cred.uid == getuid() || cred.uid == 0)
		return 1;
	if (ctl_gid == (gid_t)-1)
		return 0;
	if (cred.gid == ctl_gid)
		return 1;
	len = sizeof groups;	/* more than 256 groups: ERANGE, refused */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return 0;
	for (size_t i = 0; i < len / sizeof groups[0]; i++)
		if (groups[i] == ctl_gid)
			return 1;
	return 0;
}

void ctlsrv_on_accept(struct sup *s, int res)
{
	int ci = -1;

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
	if (!peer_allowed(res)) {
		/* not ours to serve; say so, as "err busy" does (a fresh
		 * socket's buffer always takes a short line) */
		(void)!write(res, "err permission denied: uid not allowed on this socket\n", 54);
		close(res);
		return;
	}
	for (int i = 0; i < SUP_MAX_CONNS; i++)
		if (s->conn[i].fd < 0) {
			ci = i;
			break;
		}
	if (ci < 0) {		/* full: refuse at once rather than queue */
		(void)!write(res, "err busy\n", 9);
		close(res);
		return;
	}
	s->conn[ci].fd = res;
	s->conn[ci].have = 0;
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
	case CTL_SUBMIT:
		if (sched_submit(s, rq.kind, rq.seed, rq.seed_len, rq.log_size, rq.partitions, &id,
				 err, sizeof err) < 0) {
			reply(s, ci, "err %s", err);
			return;
		}
		sched_result_path(s, id, path, sizeof path);
		reply(s, ci, "ok %llu %s", (unsigned long long)id, path);
		sched_run(s);
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
