/*
 * exporter: `provisor exporter --listen ADDR:PORT [--name NAME]` serves the
 * Prometheus text of `provisor status --prometheus` at /metrics over HTTP
 * (libmicrohttpd), 404 elsewhere. Each scrape takes a fresh snapshot of the
 * status segment, read-only like every other reader; nothing is cached.
 *
 * Design: one thread. libmicrohttpd runs on its epoll descriptor without a
 * thread of its own; the main loop polls that descriptor and a signalfd
 * for SIGTERM/SIGINT (a clean exit 0), calls MHD_run, and then applies the
 * limits that keep a scrape answered while other clients misbehave:
 *
 * - a whole-request deadline: a connection that has not sent a complete
 *   request within the deadline of its accept (or of its previous answer)
 *   is shut down, however many bytes it dribbles in meanwhile
 *   (libmicrohttpd's own timeout is an idle one: each byte restarts it);
 * - a connection cap: when a new connection makes more than
 *   EXPORTER_MAX_CONNS, the oldest one still waiting for its request is
 *   shut down, so that a scraper, whose request comes at once, finds room
 *   however many slow clients hold connections;
 * - a per-address cap (libmicrohttpd refuses the next connection from an
 *   address that has EXPORTER_MAX_PER_ADDR), so that one address cannot
 *   take every slot by itself.
 * Each connection is tracked in a list (oldest first) from
 * libmicrohttpd's connection notifications; since everything runs on the
 * one thread, a descriptor in the list is always still the connection's
 * when it is shut down.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tui/exporter.h"
#include "tui/snap.h"
#include "tui/status.h"
#include "util/text.h"

/* libmicrohttpd's own limit is higher by EXPORTER_SLACK: a connection shut
 * down here counts there until its next MHD_run closes it. */
#define EXPORTER_SLACK 64
#define EXPORTER_IDLE_S 10	/* libmicrohttpd's idle timeout */

struct exporter_conn {
	struct exporter_conn *prev, *next;
	int fd;
	int waiting;		/* for a complete request (its headers) */
	int cut;		/* shut down here; libmicrohttpd has yet to close it */
	uint64_t since_ns;	/* the accept, or the previous answer's end */
};

struct exporter {
	struct snap_reader r;
	struct snap s;
	struct exporter_conn *head, *tail;	/* by since_ns, oldest first */
	unsigned live;				/* in the list and not cut */
	uint64_t deadline_ns;
	uint64_t log_at_ns;			/* exporter_log's last line */
	unsigned long log_left_out;
};

static uint64_t exporter_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* libmicrohttpd's messages (a refused connection is one each), at most
 * one a second, cleaned (a message may quote what a client sent), and how
 * many were left out in between. */
static void exporter_log(void *cls, const char *fmt, va_list ap)
{
	struct exporter *e = cls;
	uint64_t now = exporter_now_ns();
	char msg[256], shown[300];
	size_t len;

	if (e->log_at_ns && now - e->log_at_ns < 1000000000u) {
		e->log_left_out++;
		return;
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	len = strlen(msg);
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		msg[--len] = '\0';
	if (e->log_left_out)
		fprintf(stderr, "provisor exporter: (%lu more libmicrohttpd messages left out)\n", e->log_left_out);
	fprintf(stderr, "provisor exporter: %s\n", util_clean(shown, sizeof shown, msg));
	e->log_at_ns = now;
	e->log_left_out = 0;
}

static void exporter_unlink(struct exporter *e, struct exporter_conn *k)
{
	*(k->prev ? &k->prev->next : &e->head) = k->next;
	*(k->next ? &k->next->prev : &e->tail) = k->prev;
	k->prev = k->next = NULL;
}

static void exporter_append(struct exporter *e, struct exporter_conn *k)
{
	k->prev = e->tail;
	k->next = NULL;
	*(e->tail ? &e->tail->next : &e->head) = k;
	e->tail = k;
}

/* End k's connection: its read sees end of file at the next MHD_run, which
 * closes it and says so (exporter_notify's CLOSED). */
static void exporter_cut(struct exporter *e, struct exporter_conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->cut = 1;
	e->live--;
}

/* Over the cap: the oldest connection still waiting for its request goes
 * (else the oldest of all), never the one just accepted. */
static void exporter_make_room(struct exporter *e, struct exporter_conn *keep)
{
	while (e->live > EXPORTER_MAX_CONNS) {
		struct exporter_conn *victim = NULL, *k;

		for (k = e->head; k && !victim; k = k->next)
			if (!k->cut && k->waiting && k != keep)
				victim = k;
		for (k = e->head; k && !victim; k = k->next)
			if (!k->cut && k != keep)
				victim = k;
		if (!victim)
			return;
		exporter_cut(e, victim);
	}
}

/* Shut down every connection past its deadline; returns the milliseconds
 * until the next one's, or -1 when none is waiting. */
static int exporter_sweep(struct exporter *e)
{
	uint64_t now = exporter_now_ns(), next = UINT64_MAX;

	for (struct exporter_conn *k = e->head; k; k = k->next) {
		if (k->cut || !k->waiting)
			continue;
		if (now - k->since_ns >= e->deadline_ns)
			exporter_cut(e, k);
		else if (k->since_ns + e->deadline_ns - now < next)
			next = k->since_ns + e->deadline_ns - now;
	}
	return next == UINT64_MAX ? -1 : (int)(next / 1000000u + 1);
}

static struct exporter_conn *exporter_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

static void exporter_notify(void *cls, struct MHD_Connection *c, void **ctx,
			    enum MHD_ConnectionNotificationCode toe)
{
	struct exporter *e = cls;
	struct exporter_conn *k = *ctx;
	const union MHD_ConnectionInfo *i;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k) {
			exporter_unlink(e, k);
			if (!k->cut)
				e->live--;
			free(k);
			*ctx = NULL;
		}
		return;
	}
	i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!i || !(k = calloc(1, sizeof *k)))
		return;		/* untracked: libmicrohttpd's own limits still hold */
	k->fd = i->connect_fd;
	k->waiting = 1;
	k->since_ns = exporter_now_ns();
	exporter_append(e, k);
	e->live++;
	*ctx = k;
	exporter_make_room(e, k);
}

/* An answer ended: the connection (kept alive) waits for its next request,
 * with a deadline of its own. */
static void exporter_completed(void *cls, struct MHD_Connection *c, void **req,
			       enum MHD_RequestTerminationCode toe)
{
	struct exporter *e = cls;
	struct exporter_conn *k = exporter_conn_of(c);

	(void)req, (void)toe;
	if (!k)
		return;
	k->waiting = 1;
	k->since_ns = exporter_now_ns();
	exporter_unlink(e, k);
	exporter_append(e, k);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, char *body, size_t len,
			     const char *type)
{
	struct MHD_Response *rsp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	if (!rsp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(rsp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, code, rsp);
	MHD_destroy_response(rsp);
	return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned code, const char *msg)
{
	char *b = strdup(msg);
	return b ? reply(c, code, b, strlen(b), "text/plain; charset=utf-8") : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct exporter *e = cls;
	struct exporter_conn *k = exporter_conn_of(c);
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version, (void)upload, (void)upload_size, (void)state;
	if (k)
		k->waiting = 0;	/* the whole request is in: its deadline is met */
	if (strcmp(url, "/metrics"))
		return text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!(f = open_memstream(&body, &len)))
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	if (snap_take(&e->r, &e->s) == -ENOMEM || status_prom(f, &e->s) < 0) {
		fclose(f);
		free(body);
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "could not read the status segment\n");
	}
	if (fclose(f)) {
		free(body);
		return MHD_NO;
	}
	return reply(c, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

/* ADDR:PORT, [V6]:PORT or :PORT (the IPv4 loopback, 127.0.0.1) into a
 * socket address. Every interface must be asked for: 0.0.0.0:PORT or
 * [::]:PORT. */
static int parse_listen(const char *arg, struct sockaddr_storage *ss, int *v6)
{
	char host[256];
	const char *colon = strrchr(arg, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *ai;
	size_t hl;

	if (!colon || !colon[1])
		return -EINVAL;
	hl = (size_t)(colon - arg);
	if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']')
		arg++, hl -= 2;
	if (hl >= sizeof host)
		return -EINVAL;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (getaddrinfo(hl ? host : "127.0.0.1", colon + 1, &hints, &ai))
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return 0;
}

/* Until SIGTERM or SIGINT arrives on sfd: 0, or -1 when polling fails. */
static int exporter_loop(struct exporter *e, struct MHD_Daemon *d, int sfd)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd p[2] = { { .fd = info ? info->epoll_fd : -1, .events = POLLIN },
			       { .fd = sfd, .events = POLLIN } };

	if (!info) {
		fprintf(stderr, "provisor exporter: libmicrohttpd gave no epoll descriptor\n");
		return -1;
	}
	for (;;) {
		MHD_UNSIGNED_LONG_LONG mhd_ms;
		int wait = exporter_sweep(e);

		if (MHD_get_timeout(d, &mhd_ms) == MHD_YES && (wait < 0 || mhd_ms < (unsigned)wait))
			wait = mhd_ms > 60000 ? 60000 : (int)mhd_ms;
		if (poll(p, 2, wait) < 0 && errno != EINTR) {
			fprintf(stderr, "provisor exporter: poll: %s\n", strerror(errno));
			return -1;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si)
				return 0;
		}
		MHD_run(d);
	}
}

int exporter_main(const char *listen, const char *name, unsigned deadline_s)
{
	struct sockaddr_storage ss;
	struct exporter e = { .deadline_ns = (uint64_t)deadline_s * 1000000000u };
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t set;
	char err[256], addr[INET6_ADDRSTRLEN];
	int v6 = 0, sfd, rc;

	if (parse_listen(listen, &ss, &v6) < 0) {
		char shown[256];
		fprintf(stderr, "provisor exporter: bad --listen '%s': want ADDR:PORT, [ADDR]:PORT or :PORT\n",
			util_clean(shown, sizeof shown, listen));
		return 2;
	}
	if (snap_reader_init(&e.r, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor exporter: %s\n", err);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "provisor exporter: signalfd: %s\n", strerror(errno));
		snap_reader_close(&e.r);
		return 1;
	}
	d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, on_request, &e,
			     MHD_OPTION_EXTERNAL_LOGGER, exporter_log, &e,	/* first: it logs the rest */
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORTER_IDLE_S,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)(EXPORTER_MAX_CONNS + EXPORTER_SLACK),
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)EXPORTER_MAX_PER_ADDR,
			     MHD_OPTION_NOTIFY_CONNECTION, exporter_notify, &e,
			     MHD_OPTION_NOTIFY_COMPLETED, exporter_completed, &e,
			     MHD_OPTION_END);
	if (!d) {
		char shown[256];
		fprintf(stderr, "provisor exporter: cannot listen on %s: %s\n",
			util_clean(shown, sizeof shown, listen), strerror(errno));
		close(sfd);
		snap_reader_close(&e.r);
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (!inet_ntop(ss.ss_family, v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
			(void *)&((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof addr))
		strcpy(addr, "?");
	printf("provisor exporter: instance %s, listening on %s%s%s (port %u), metrics at /metrics\n",
	       util_clean(err, sizeof err, name), v6 ? "[" : "", addr, v6 ? "]" : "", info ? info->port : 0);
	fflush(stdout);
	rc = exporter_loop(&e, d, sfd);
	MHD_stop_daemon(d);
	close(sfd);
	snap_free(&e.s);
	snap_reader_close(&e.r);
	return rc < 0 ? 1 : 0;
}
