/*
 * fdchan: job files over SCM_RIGHTS (see fdchan.h).
 */
#include "proto/fdchan.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fdchan_send(int sock, uint64_t job, int fd)
{
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct iovec iov = { .iov_base = &job, .iov_len = sizeof job };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof u.buf };
	struct cmsghdr *cm;

	memset(&u, 0, sizeof u);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof job ? 0 : -errno;
}

void fdchan_init(struct fdchan *c, int sock)
{
	memset(c, 0, sizeof *c);
	c->sock = sock;
	pthread_mutex_init(&c->lock, NULL);
	for (unsigned i = 0; i < FDCHAN_SLOTS; i++)
		c->e[i].fd = -1;
}

/* Keep job's new file: over its old one, else in a free entry, else over
 * the oldest. */
static void fdchan_keep(struct fdchan *c, uint64_t job, int fd)
{
	unsigned i;

	for (i = 0; i < c->n && c->e[i].job != job; i++)
		;
	if (i == c->n && c->n < FDCHAN_SLOTS) {
		c->n++;
	} else if (i == c->n) {
		i = c->next;
		c->next = (c->next + 1) % FDCHAN_SLOTS;
	}
	if (c->e[i].fd >= 0)
		close(c->e[i].fd);
	c->e[i].job = job;
	c->e[i].fd = fd;
}

/* Read every message waiting on the socket into the table. Anything that
 * is not one job id with one fd is dropped (its fds closed). */
static void fdchan_drain(struct fdchan *c)
{
	for (;;) {
		union { struct cmsghdr h; char buf[CMSG_SPACE(4 * sizeof(int))]; } u;
		uint64_t job;
		struct iovec iov = { .iov_base = &job, .iov_len = sizeof job };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				    .msg_controllen = sizeof u.buf };
		int fds[4], nfd = 0;
		ssize_t r = recvmsg(c->sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
				for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfd < 4; k++)
					memcpy(&fds[nfd++], CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
		if (r == (ssize_t)sizeof job && nfd == 1 && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			fdchan_keep(c, job, fds[0]);
			continue;
		}
		for (int k = 0; k < nfd; k++)
			close(fds[k]);
	}
}

int fdchan_get(struct fdchan *c, uint64_t job)
{
	int fd = -1, found = 0;

	if (c->sock < 0) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&c->lock);
	fdchan_drain(c);
	for (unsigned i = 0; i < c->n && !found; i++)
		if (c->e[i].job == job) {
			found = 1;
			fd = fcntl(c->e[i].fd, F_DUPFD_CLOEXEC, 0);
		}
	pthread_mutex_unlock(&c->lock);
	if (!found)
		errno = ENOENT;
	return fd;
}

void fdchan_close(struct fdchan *c)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->e[i].fd >= 0)
			close(c->e[i].fd);
	c->n = 0;
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
}
