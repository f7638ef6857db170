/*
 * ctl: the control protocol's parser and formatter, and the client call.
 *
 * Design: the parser is the supervisor's first line of defence, so it is
 * strict and total. Every byte is checked before any word is looked at;
 * words are exact (one space between, none around); every number has one
 * spelling (no sign, no leading zero), so a request has exactly one line
 * and ctl_format(ctl_parse(line)) gives the line back. A request is built
 * in a local struct and copied out only when the whole line is good.
 *
 * The client (ctl_call) never blocks past its deadline: the socket is
 * non-blocking and every wait is a poll on the time left.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "shm/layout.h"
#include "util/util.h"

#define CTL_MAX_WORDS 8
#define CTL_SLOT_MAX 65535u	/* slot numbers fit the job table's uint16 */

/* Bytes: length, printable ASCII, one optional final '\n'. Returns the
 * length without the '\n', or -EINVAL. */
static int ctl_check_bytes(const char *line, size_t len, char *err, size_t errlen)
{
	if (len > CTL_MAX_LINE)
		return util_fail(err, errlen, -EINVAL, "request longer than %d bytes", CTL_MAX_LINE);
	if (len && line[len - 1] == '\n')
		len--;
	if (!len)
		return util_fail(err, errlen, -EINVAL, "empty request");
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)line[i];
		if (!ch)
			return util_fail(err, errlen, -EINVAL, "NUL byte at offset %zu", i);
		if (ch < 0x20 || ch > 0x7e)
			return util_fail(err, errlen, -EINVAL,
					"non-printable byte 0x%02x at offset %zu", ch, i);
	}
	return (int)len;
}

/* Split buf in place at single spaces; an empty word (leading, trailing
 * or doubled space) is an error. Returns the word count or -EINVAL. */
static int ctl_split(char *buf, char **w, char *err, size_t errlen)
{
	int n = 0;

	for (char *p = buf;; p++) {
		char *sp = strchr(p, ' ');
		if (!*p || p == sp)
			return util_fail(err, errlen, -EINVAL, "empty word (stray space)");
		if (n == CTL_MAX_WORDS)
			return util_fail(err, errlen, -EINVAL, "too many words");
		w[n++] = p;
		if (!sp)
			return n;
		*sp = '\0';
		p = sp;
	}
}

/* submit KIND [seed=HEX] [k=N] [partitions=N], options in any order,
 * each at most once. */
static int ctl_parse_submit(char **w, int n, struct ctl_req *r, char *err, size_t errlen)
{
	unsigned seen = 0;
	uint64_t v;

	if (n < 2)
		return util_fail(err, errlen, -EINVAL, "submit needs a kind");
	if (vocab_kind_parse(w[1], &r->kind))
		return util_fail(err, errlen, -EINVAL, "unknown kind '%s'", w[1]);
	for (int i = 2; i < n; i++) {
		char *val = strchr(w[i], '=');
		unsigned bit;

		if (!val)
			return util_fail(err, errlen, -EINVAL, "unexpected word '%s'", w[i]);
		*val++ = '\0';
		if (!strcmp(w[i], "seed")) {
			bit = 1;
			if (util_hex(val, r->seed, sizeof r->seed, &r->seed_len))
				return util_fail(err, errlen, -EINVAL, "seed is not hex of 1 to 32 bytes");
		} else if (!strcmp(w[i], "k")) {
			bit = 2;
			if (util_num(val, UTIL_NUM_CANONICAL, VOCAB_LOG_MIN, VOCAB_LOG_MAX, &v))
				return util_fail(err, errlen, -EINVAL,
						 "k must be " VOCAB_STR(VOCAB_LOG_MIN) ".." VOCAB_STR(VOCAB_LOG_MAX));
			r->log_size = (uint32_t)v;
		} else if (!strcmp(w[i], "partitions")) {
			bit = 4;
			if (util_num(val, UTIL_NUM_CANONICAL, 1, VOCAB_MAX_PARTS, &v))
				return util_fail(err, errlen, -EINVAL, "partitions must be 1..%d",
						VOCAB_MAX_PARTS);
			r->partitions = (uint32_t)v;
		} else {
			return util_fail(err, errlen, -EINVAL, "unknown option '%s'", w[i]);
		}
		if (seen & bit)
			return util_fail(err, errlen, -EINVAL, "duplicate option '%s'", w[i]);
		seen |= bit;
	}
	return 0;
}

/* worker enable|disable gpu.N|synth.N */
static int ctl_parse_worker(char **w, int n, struct ctl_req *r, char *err, size_t errlen)
{
	const char *num;
	uint64_t v;

	if (n != 3)
		return util_fail(err, errlen, -EINVAL, "usage: worker enable|disable gpu.N|synth.N");
	if (!strcmp(w[1], "enable"))
		r->op = CTL_WORKER_ENABLE;
	else if (!strcmp(w[1], "disable"))
		r->op = CTL_WORKER_DISABLE;
	else
		return util_fail(err, errlen, -EINVAL, "worker: '%s' is neither enable nor disable", w[1]);
	if (!strncmp(w[2], "gpu.", 4)) {
		r->slot_table = SHM_T_GPU;
		num = w[2] + 4;
	} else if (!strncmp(w[2], "synth.", 6)) {
		r->slot_table = SHM_T_SYNTH;
		num = w[2] + 6;
	} else {
		return util_fail(err, errlen, -EINVAL, "worker: slot '%s' is not gpu.N or synth.N", w[2]);
	}
	if (util_num(num, UTIL_NUM_CANONICAL, 0, CTL_SLOT_MAX, &v))
		return util_fail(err, errlen, -EINVAL, "worker: slot '%s' is not gpu.N or synth.N", w[2]);
	r->slot = (uint32_t)v;
	return 0;
}

int ctl_parse(const char *line, size_t len, struct ctl_req *req, char *err, size_t errlen)
{
	static const struct { const char *word; enum ctl_op op; } plain[] = {
		{ "ping", CTL_PING }, { "drain", CTL_DRAIN }, { "stop", CTL_STOP },
		{ "hello", CTL_HELLO }, { "resume", CTL_RESUME },
	};
	char buf[CTL_MAX_LINE + 1], *w[CTL_MAX_WORDS];
	struct ctl_req r = { .op = 0 };
	int n, rc;

	if ((n = ctl_check_bytes(line, len, err, errlen)) < 0)
		return n;
	memcpy(buf, line, (size_t)n);
	buf[n] = '\0';
	if ((n = ctl_split(buf, w, err, errlen)) < 0)
		return n;
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
		if (!strcmp(w[0], plain[i].word)) {
			if (n != 1)
				return util_fail(err, errlen, -EINVAL, "%s takes no arguments", w[0]);
			r.op = plain[i].op;
		}
	if (r.op) {
		rc = 0;
	} else if (!strcmp(w[0], "submit")) {
		r.op = CTL_SUBMIT;
		rc = ctl_parse_submit(w, n, &r, err, errlen);
	} else if (!strcmp(w[0], "cancel")) {
		r.op = CTL_CANCEL;
		rc = n != 2 ? util_fail(err, errlen, -EINVAL, "usage: cancel JOB") :
		     util_num(w[1], UTIL_NUM_CANONICAL, 1, UINT64_MAX, &r.job) ?
		     util_fail(err, errlen, -EINVAL, "cancel: '%s' is not a job id", w[1]) : 0;
	} else if (!strcmp(w[0], "retry")) {
		r.op = CTL_RETRY;
		rc = n != 2 ? util_fail(err, errlen, -EINVAL, "usage: retry JOB") :
		     util_num(w[1], UTIL_NUM_CANONICAL, 1, UINT64_MAX, &r.job) ?
		     util_fail(err, errlen, -EINVAL, "retry: '%s' is not a job id", w[1]) : 0;
	} else if (!strcmp(w[0], "worker")) {
		rc = ctl_parse_worker(w, n, &r, err, errlen);
	} else {
		rc = util_fail(err, errlen, -EINVAL, "unknown request '%.32s'", w[0]);
	}
	if (!rc)
		*req = r;
	return rc;
}

/* Appends to buf at *off; -1 once it no longer fits. */
static int ctl_put(char *buf, size_t buflen, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= buflen)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, buflen - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= buflen - *off)
		return -1;
	*off += (size_t)n;
	return 0;
}

static int ctl_format_submit(const struct ctl_req *r, char *buf, size_t buflen, size_t *off)
{
	const char *kind = vocab_kind_name(r->kind);

	if (!kind || r->seed_len > sizeof r->seed || ctl_put(buf, buflen, off, "submit %s", kind))
		return -1;
	if (r->seed_len) {
		if (ctl_put(buf, buflen, off, " seed="))
			return -1;
		for (uint32_t i = 0; i < r->seed_len; i++)
			if (ctl_put(buf, buflen, off, "%02x", r->seed[i]))
				return -1;
	}
	if (r->log_size && ctl_put(buf, buflen, off, " k=%u", r->log_size))
		return -1;
	if (r->partitions && ctl_put(buf, buflen, off, " partitions=%u", r->partitions))
		return -1;
	return 0;
}

int ctl_format(const struct ctl_req *req, char *buf, size_t buflen)
{
	size_t off = 0;
	int rc;

	switch (req->op) {
	case CTL_PING: rc = ctl_put(buf, buflen, &off, "ping"); break;
	case CTL_HELLO: rc = ctl_put(buf, buflen, &off, "hello"); break;
	case CTL_DRAIN: rc = ctl_put(buf, buflen, &off, "drain"); break;
	case CTL_RESUME: rc = ctl_put(buf, buflen, &off, "resume"); break;
	case CTL_STOP: rc = ctl_put(buf, buflen, &off, "stop"); break;
	case CTL_CANCEL:
		rc = ctl_put(buf, buflen, &off, "cancel %llu", (unsigned long long)req->job);
		break;
	case CTL_RETRY:
		rc = ctl_put(buf, buflen, &off, "retry %llu", (unsigned long long)req->job);
		break;
	case CTL_SUBMIT: rc = ctl_format_submit(req, buf, buflen, &off); break;
	case CTL_WORKER_ENABLE:
	case CTL_WORKER_DISABLE:
		if (req->slot_table != SHM_T_GPU && req->slot_table != SHM_T_SYNTH)
			return -1;
		rc = ctl_put(buf, buflen, &off, "worker %s %s.%u",
			     req->op == CTL_WORKER_ENABLE ? "enable" : "disable",
			     req->slot_table == SHM_T_GPU ? "gpu" : "synth", req->slot);
		break;
	default:
		return -1;
	}
	if (rc || ctl_put(buf, buflen, &off, "\n"))
		return -1;
	return (int)off;
}

static int64_t ctl_ms_left(const struct timespec *deadline)
{
	struct timespec now;

	int64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000000000 + (deadline->tv_nsec - now.tv_nsec);
	return ns <= 0 ? 0 : (ns + 999999) / 1000000;	/* round up: never give up early */
}

/* Wait for ev on fd until the deadline: 0, or -ETIMEDOUT / -errno. */
static int ctl_wait(int fd, short ev, const struct timespec *deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int64_t left;
	int n;

	for (;;) {
		left = ctl_ms_left(deadline);
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (n > 0)
			return 0;	/* ready, or an error the next call reports */
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* Non-blocking connect to path before the deadline. A Unix socket whose
 * listener's backlog is full says EAGAIN: retry, briefly, until then. */
static int ctl_connect(const char *path, const struct timespec *deadline,
		       char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(path) >= sizeof sa.sun_path)
		return util_fail(err, errlen, -ENAMETOOLONG, "socket path %s is too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return util_fail(err, errlen, -errno, "socket: %s", strerror(errno));
	while (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		rc = -errno;
		if (rc == -EAGAIN && ctl_ms_left(deadline) > 0) {
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
			continue;
		}
		close(fd);
		if (rc == -EAGAIN)
			return util_fail(err, errlen, -ETIMEDOUT, "%s: supervisor too busy to accept", path);
		if (rc == -ENOENT)
			return util_fail(err, errlen, rc, "no control socket at %s", path);
		if (rc == -ECONNREFUSED)
			return util_fail(err, errlen, rc, "nothing listens on %s (supervisor gone?)", path);
		return util_fail(err, errlen, rc, "connect %s: %s", path, strerror(-rc));
	}
	return fd;
}

static int ctl_send(int fd, const char *buf, size_t len, const struct timespec *deadline,
		    char *err, size_t errlen)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		int rc;

		if (n >= 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return util_fail(err, errlen, -errno, "send: %s", strerror(errno));
		if ((rc = ctl_wait(fd, POLLOUT, deadline)) < 0)
			return util_fail(err, errlen, rc, "request not accepted in time");
	}
	return 0;
}

/* One reply line into reply (NUL-terminated, without '\n'); at most
 * replylen - 1 bytes before the '\n', or it is refused as too long.
 * *extra: bytes that came after the '\n' (dropped). */
static int ctl_recv(int fd, char *reply, size_t replylen, const struct timespec *deadline,
		    size_t *extra, char *err, size_t errlen)
{
	size_t got = 0;
	char *nl;

	for (;;) {
		ssize_t n = recv(fd, reply + got, replylen - got, 0);
		int rc;

		if (n > 0) {
			got += (size_t)n;
			if ((nl = memchr(reply, '\n', got))) {
				*extra = got - (size_t)(nl + 1 - reply);
				*nl = '\0';
				return 0;
			}
			if (got == replylen)
				return util_fail(err, errlen, -EMSGSIZE, "reply longer than %zu bytes",
						replylen - 1);
			continue;
		}
		if (n == 0)
			return util_fail(err, errlen, -ECONNRESET, got ?
					"connection closed in the middle of the reply" :
					"connection closed without a reply");
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return util_fail(err, errlen, -errno, "recv: %s", strerror(errno));
		if ((rc = ctl_wait(fd, POLLIN, deadline)) < 0)
			return util_fail(err, errlen, rc, "no reply");
	}
}

/* "ok[ ...]" -> 0, "err[ ...]" -> 1, anything else -> -EPROTO. */
static int ctl_reply_kind(const char *r, char *err, size_t errlen)
{
	for (const char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return util_fail(err, errlen, -EPROTO, "reply holds a non-printable byte");
	if (!strncmp(r, "ok", 2) && (!r[2] || r[2] == ' '))
		return 0;
	if (!strncmp(r, "err", 3) && (!r[3] || r[3] == ' '))
		return 1;
	return util_fail(err, errlen, -EPROTO, "malformed reply '%.40s'", r);
}

/* Ask vet about whoever serves fd. */
static int ctl_vet_peer(int fd, ctl_vet_fn vet, void *arg, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return util_fail(err, errlen, -errno, "SO_PEERCRED: %s", strerror(errno));
	return vet(&(struct ctl_peer){ .pid = cred.pid, .uid = cred.uid }, arg, err, errlen);
}

static void ctl_deadline(struct timespec *deadline, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += timeout_ms / 1000;
	deadline->tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline->tv_nsec >= 1000000000) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000;
	}
}

int ctl_call(const char *path, const char *line, char *reply, size_t replylen,
	     int timeout_ms, char *err, size_t errlen)
{
	return ctl_call_vet(path, line, reply, replylen, timeout_ms, NULL, NULL, err, errlen);
}

/* Send one request line and read its reply line before the deadline:
 * 0, or -errno with err. *extra as ctl_recv's. */
static int ctl_exchange(int fd, const char *line, char *reply, size_t replylen,
			const struct timespec *deadline, size_t *extra, char *err, size_t errlen)
{
	size_t len = strlen(line);
	int rc;

	*extra = 0;
	/* the '\n' ends the request; add it when the caller left it off */
	rc = ctl_send(fd, line, len, deadline, err, errlen);
	if (!rc && (!len || line[len - 1] != '\n'))
		rc = ctl_send(fd, "\n", 1, deadline, err, errlen);
	/* A server that refuses a peer ("err busy", "err permission
	 * denied") replies and closes at once, maybe before our request went
	 * out: then the send fails, but the reply is waiting to be read. */
	if (!rc || rc == -EPIPE || rc == -ECONNRESET) {
		char serr[200] = "";
		int rrc = ctl_recv(fd, reply, replylen, deadline, extra, serr, sizeof serr);
		if (!rc || !rrc) {	/* else the send's own error stands */
			rc = rrc;
			if (err && errlen)
				snprintf(err, errlen, "%s", serr);
		}
	}
	return rc;
}

/* Connect by the deadline and vet the peer: the fd, or -errno and err. */
static int ctl_connect_vetted(const char *path, const struct timespec *deadline, ctl_vet_fn vet,
			      void *arg, char *err, size_t errlen)
{
	int fd, rc;

	if ((fd = ctl_connect(path, deadline, err, errlen)) < 0)
		return fd;
	if (vet && (rc = ctl_vet_peer(fd, vet, arg, err, errlen)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int ctl_call_vet(const char *path, const char *line, char *reply, size_t replylen,
		 int timeout_ms, ctl_vet_fn vet, void *arg, char *err, size_t errlen)
{
	struct timespec deadline;
	int fd, rc;

	if (replylen < 2)
		return util_fail(err, errlen, -EINVAL, "reply buffer too small");
	reply[0] = '\0';
	ctl_deadline(&deadline, timeout_ms);
	if ((fd = ctl_connect_vetted(path, &deadline, vet, arg, err, errlen)) < 0)
		return fd;
	size_t extra;
	rc = ctl_exchange(fd, line, reply, replylen, &deadline, &extra, err, errlen);
	close(fd);
	if (rc == -ETIMEDOUT)
		return util_fail(err, errlen, rc, "no reply from %s within %d ms", path, timeout_ms);
	if (rc < 0) {
		reply[0] = '\0';
		return rc;
	}
	return ctl_reply_kind(reply, err, errlen);
}

int ctl_open(struct ctl_conn *c, const char *path, int timeout_ms, ctl_vet_fn vet, void *arg,
	     char *err, size_t errlen)
{
	struct timespec deadline;
	int fd;

	c->fd = -1;
	ctl_deadline(&deadline, timeout_ms);
	if ((fd = ctl_connect_vetted(path, &deadline, vet, arg, err, errlen)) < 0)
		return fd;
	c->fd = fd;
	return 0;
}

/* The supervisor answers one request at a time, so the reply line is all
 * there is to read; anything after it would be taken for the next
 * request's reply, so it is a protocol error. */
int ctl_request(struct ctl_conn *c, const char *line, char *reply, size_t replylen,
		int timeout_ms, char *err, size_t errlen)
{
	struct timespec deadline;
	size_t extra;
	int rc;

	if (replylen < 2)
		return util_fail(err, errlen, -EINVAL, "reply buffer too small");
	reply[0] = '\0';
	if (c->fd < 0)
		return util_fail(err, errlen, -EBADF, "connection closed");
	ctl_deadline(&deadline, timeout_ms);
	rc = ctl_exchange(c->fd, line, reply, replylen, &deadline, &extra, err, errlen);
	if (!rc && extra)
		rc = util_fail(err, errlen, -EPROTO, "%zu unexpected bytes after the reply", extra);
	if (rc == -ETIMEDOUT)
		return util_fail(err, errlen, rc, "no reply within %d ms", timeout_ms);
	if (rc < 0) {
		reply[0] = '\0';
		return rc;
	}
	return ctl_reply_kind(reply, err, errlen);
}

void ctl_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
