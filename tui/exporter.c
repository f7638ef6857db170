/*
 * exporter: `provisor exporter --listen ADDR:PORT [--name NAME]` serves the
 * Prometheus text of `provisor status --prometheus` at /metrics over HTTP
 * (libmicrohttpd), 404 elsewhere. Each scrape takes a fresh snapshot of the
 * status segment, read-only like every other reader; nothing is cached.
 *
 * Design: libmicrohttpd's internal polling thread runs every request, one
 * at a time, so the one snapshot reader needs no lock. The main thread only
 * waits for SIGTERM/SIGINT (blocked, taken with sigwait) and then stops the
 * daemon: a clean exit 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/exporter.h"
#include "tui/snap.h"
#include "tui/status.h"
#include "util/text.h"

struct exporter {
	struct snap_reader r;
	struct snap s;
};

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
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version, (void)upload, (void)upload_size, (void)state;
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

/* ADDR:PORT, [V6]:PORT or :PORT (all addresses) into a socket address. */
static int parse_listen(const char *arg, struct sockaddr_storage *ss, int *v6)
{
	char host[256];
	const char *colon = strrchr(arg, ':');
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
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
	if (getaddrinfo(hl ? host : NULL, colon + 1, &hints, &ai))
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return 0;
}

int exporter_main(const char *listen, const char *name)
{
	struct sockaddr_storage ss;
	struct exporter e = { 0 };
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t set;
	char err[256];
	int v6 = 0, sig = 0;

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
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* the daemon's thread inherits it */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, on_request, &e,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "provisor exporter: cannot listen on %s: %s\n", listen, strerror(errno));
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("provisor exporter: instance %s, listening on %s (port %u), metrics at /metrics\n",
	       name, listen, info ? info->port : 0);
	fflush(stdout);
	while (sigwait(&set, &sig) == 0 && sig != SIGTERM && sig != SIGINT)
		;
	MHD_stop_daemon(d);
	snap_free(&e.s);
	snap_reader_close(&e.r);
	return 0;
}
