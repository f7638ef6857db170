/*
 * watch: a fleet's status read without ever waiting for the database,
 * for a view that must keep answering its keys (top --fleet). The
 * commands' fleet_admin_status blocks; this sends the same statements
 * (FLEET_SQL_STATUS_NODES, FLEET_SQL_STATUS_QUEUE) with libpq's
 * asynchronous API, driven by its caller's poll.
 *
 * One refresh is a small state machine: connect (PQconnectStart, then
 * PQconnectPoll whenever the socket is ready for what it asked), send
 * "SET statement_timeout; nodes; queue" in one round trip (PQsendQuery,
 * PQflush), and read the three results as they come (PQconsumeInput,
 * PQisBusy, PQgetResult). The caller polls fleet_watch_pollfd beside its
 * terminal and calls fleet_watch_step when the socket is ready or the
 * refresh's deadline has come; no step waits. A refresh not done by its
 * deadline (a database that hangs, or a host that never answers) fails
 * and its connection is dropped; the server side is bounded too, by the
 * statement_timeout sent with it. A connection that served a refresh is
 * kept for the next; a statement error (no schema) keeps it, anything
 * else drops it.
 *
 * Two things libpq does synchronously are the operator's to avoid, as
 * for a node (docs/fleet.md): resolving a host *name* (give hostaddr=),
 * and reading a password or service file.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "util/util.h"

int fleet_watch_init(struct fleet_watch *w, const char *dsn, uint64_t timeout_ms, char *err, size_t errlen)
{
	char *perr = NULL;
	PQconninfoOption *o = PQconninfoParse(dsn, &perr);
	size_t n;

	memset(w, 0, sizeof *w);
	if (!o) {
		util_fail(err, errlen, -EINVAL, "bad DSN: %s", perr ? perr : "out of memory");
		err[strcspn(err, "\n")] = '\0';
		PQfreemem(perr);
		return -EINVAL;
	}
	PQconninfoFree(o);
	n = strlen(FLEET_SQL_STATUS_NODES) + strlen(FLEET_SQL_STATUS_QUEUE) + 64;
	if (!(w->sql = malloc(n)))
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	snprintf(w->sql, n, "SET statement_timeout = %" PRIu64 "; %s; %s", timeout_ms, FLEET_SQL_STATUS_NODES,
		 FLEET_SQL_STATUS_QUEUE);
	w->dsn = dsn;
	w->timeout_ms = timeout_ms;
	return 0;
}

void fleet_watch_where(const char *dsn, char *out, size_t len)
{
	static const char *const keys[] = { "dbname", "host", "hostaddr", "port", "user" };
	PQconninfoOption *o = PQconninfoParse(dsn, NULL);
	size_t n = 0;

	out[0] = '\0';
	/* only these keys, by name: whatever else the DSN holds (a
	 * password) is never shown */
	for (size_t k = 0; o && k < sizeof keys / sizeof keys[0]; k++)
		for (PQconninfoOption *p = o; p->keyword; p++)
			if (!strcmp(p->keyword, keys[k]) && p->val && *p->val && n < len)
				n += (size_t)snprintf(out + n, len - n, "%s%s=%s", n ? " " : "", keys[k], p->val);
	if (!out[0])
		snprintf(out, len, "(libpq's defaults)");
	PQconninfoFree(o);
}

/* Drop the connection (after a failure the next refresh makes a new one). */
static void fleet_watch_drop(struct fleet_watch *w)
{
	if (w->pg)
		PQfinish(w->pg);
	w->pg = NULL;
	w->phase = FLEET_WATCH_IDLE;
}

/* The refresh failed: why in err (msg may not be w->err itself). */
static int fleet_watch_fail(struct fleet_watch *w, int drop, const char *msg)
{
	snprintf(w->err, sizeof w->err, "%s", msg);
	w->err[strcspn(w->err, "\n")] = '\0';
	if (drop)
		fleet_watch_drop(w);
	w->phase = FLEET_WATCH_IDLE;
	fleet_status_free(&w->st);
	return FLEET_WATCH_FAILED;
}

static int fleet_watch_pgfail(struct fleet_watch *w, const char *step)
{
	char why[240], line[300];

	snprintf(line, sizeof line, "%s: %s", step, fleet_pg_error(NULL, w->pg, why, sizeof why));
	return fleet_watch_fail(w, 1, line);
}

/* Connected: the statements go. */
static int fleet_watch_send(struct fleet_watch *w)
{
	int rc;

	if (!PQsendQuery(w->pg, w->sql) || (rc = PQflush(w->pg)) < 0)
		return fleet_watch_pgfail(w, "sending the status queries");
	memset(&w->st, 0, sizeof w->st);
	w->nres = 0;
	w->bad = 0;
	w->phase = FLEET_WATCH_READING;
	w->flushing = rc == 1;
	return FLEET_WATCH_BUSY;
}

int fleet_watch_begin(struct fleet_watch *w, uint64_t now_ms)
{
	w->err[0] = '\0';
	w->deadline_ms = now_ms + w->timeout_ms;
	if (w->pg && PQstatus(w->pg) == CONNECTION_OK)
		return fleet_watch_send(w);
	fleet_watch_drop(w);
	w->pg = PQconnectStart(w->dsn);
	if (!w->pg)
		return fleet_watch_fail(w, 0, "out of memory");
	if (PQstatus(w->pg) == CONNECTION_BAD)
		return fleet_watch_pgfail(w, "connecting");
	PQsetNoticeProcessor(w->pg, fleet_quiet, NULL);
	w->phase = FLEET_WATCH_CONNECTING;
	w->events = POLLOUT;	/* as if PQconnectPoll had said "writing" */
	return FLEET_WATCH_BUSY;
}

int fleet_watch_pollfd(const struct fleet_watch *w, short *events)
{
	if (w->phase == FLEET_WATCH_IDLE || !w->pg)
		return -1;
	*events = w->phase == FLEET_WATCH_CONNECTING ? w->events : (short)(POLLIN | (w->flushing ? POLLOUT : 0));
	return PQsocket(w->pg);
}

/* A whole result: the SET, the nodes, the queue, in that order. */
static void fleet_watch_result(struct fleet_watch *w, PGresult *r)
{
	char why[240];
	int i = w->nres++;

	if (w->bad)
		return;
	if (PQresultStatus(r) != (i == 0 ? PGRES_COMMAND_OK : PGRES_TUPLES_OK)) {
		snprintf(w->err, sizeof w->err, "%s", fleet_pg_error(r, w->pg, why, sizeof why));
		w->bad = 1;
	} else if (i == 1 && fleet_status_nodes_rows(r, &w->st, w->err, sizeof w->err) < 0) {
		w->bad = 1;
	} else if (i == 2 && fleet_status_queue_rows(r, &w->st, w->err, sizeof w->err) < 0) {
		w->bad = 1;
	} else if (i > 2) {
		snprintf(w->err, sizeof w->err, "the database answered more than was asked");
		w->bad = 1;
	}
}

static int fleet_watch_read(struct fleet_watch *w, struct fleet_status *out)
{
	PGresult *r;

	if (w->flushing) {
		int rc = PQflush(w->pg);
		if (rc < 0)
			return fleet_watch_pgfail(w, "sending the status queries");
		w->flushing = rc == 1;
	}
	if (!PQconsumeInput(w->pg))
		return fleet_watch_pgfail(w, "reading the status");
	while (!PQisBusy(w->pg)) {
		if ((r = PQgetResult(w->pg))) {
			fleet_watch_result(w, r);
			PQclear(r);
			continue;
		}
		/* every result is in: the connection is free for the next refresh */
		w->phase = FLEET_WATCH_IDLE;
		if (!w->bad && w->nres != 3)
			return fleet_watch_fail(w, 1, "the database's answer to the status queries was cut short");
		if (w->bad) {
			char e[sizeof w->err];
			memcpy(e, w->err, sizeof e);
			return fleet_watch_fail(w, 0, e);	/* a statement's error: the connection is fine */
		}
		*out = w->st;
		memset(&w->st, 0, sizeof w->st);
		return FLEET_WATCH_DONE;
	}
	if (PQstatus(w->pg) == CONNECTION_BAD)
		return fleet_watch_pgfail(w, "reading the status");
	return FLEET_WATCH_BUSY;
}

int fleet_watch_step(struct fleet_watch *w, uint64_t now_ms, int ready, struct fleet_status *out)
{
	char t[80];

	if (w->phase == FLEET_WATCH_IDLE)
		return w->err[0] ? FLEET_WATCH_FAILED : FLEET_WATCH_BUSY;
	if (now_ms >= w->deadline_ms) {
		snprintf(t, sizeof t, "no %s within %.1f s", w->phase == FLEET_WATCH_CONNECTING ? "connection" :
			 "answer", (double)w->timeout_ms / 1000);
		return fleet_watch_fail(w, 1, t);
	}
	if (!ready)	/* (PQconnectPoll is for a socket that is ready) */
		return FLEET_WATCH_BUSY;
	if (w->phase == FLEET_WATCH_READING)
		return fleet_watch_read(w, out);
	switch (PQconnectPoll(w->pg)) {
	case PGRES_POLLING_READING:
		w->events = POLLIN;
		return FLEET_WATCH_BUSY;
	case PGRES_POLLING_WRITING:
		w->events = POLLOUT;
		return FLEET_WATCH_BUSY;
	case PGRES_POLLING_OK:
		if (PQsetnonblocking(w->pg, 1) < 0)
			return fleet_watch_pgfail(w, "connecting");
		return fleet_watch_send(w);
	default:
		return fleet_watch_pgfail(w, "connecting");
	}
}

void fleet_watch_fini(struct fleet_watch *w)
{
	fleet_watch_drop(w);
	fleet_status_free(&w->st);
	free(w->sql);
	w->sql = NULL;
}
