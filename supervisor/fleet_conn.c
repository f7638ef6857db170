/*
 * fleet_conn: the fleet database's connection, driven from the io_uring
 * loop with libpq's asynchronous API, so that the loop never waits for
 * the database (architecture.md, invariant 2).
 *
 * One connection and at most one statement in flight. One poll on
 * PQsocket() is armed at a time (EV_FLEET, one-shot; who = the
 * connection's epoch, bumped when it is dropped, so that a completion of
 * an earlier connection's poll is ignored): while connecting, for what
 * PQconnectPoll asks; once up, for input always (a server that goes away
 * is noticed at once) and for output while PQflush has more to write.
 * Input is taken with PQconsumeInput and results with PQgetResult only
 * while PQisBusy says it will not block.
 *
 * Deadlines, on the supervisor's tick: a connection not up within the
 * statement timeout, or a statement without its answer within it, drops
 * the connection (a database that hangs is one that is gone). Attempts
 * then follow with a backoff of 100 ms doubling to backoff_max_ms (a
 * quarter of the lease, so that a node is back long before its leases
 * run out). An outage is logged once when it begins and once when it
 * ends.
 *
 * A dropped connection's poll is cancelled before PQfinish closes the
 * socket: an armed poll holds the file open, and the server would keep
 * the session until it ended.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/fleet_int.h"
#include "supervisor/sup.h"

#define FCONN_BACKOFF_MIN_MS 100

/* A libpq call being watched: when it began and the thread's voluntary
 * context switches then. */
struct fconn_watch {
	uint64_t t0;
	long csw0;
};

static long fconn_csw(void)
{
	long vol, invol;

	fleet_csw(&vol, &invol);
	return vol;
}

static void fconn_watch(struct fconn_watch *w)
{
	w->csw0 = fconn_csw();
	w->t0 = shm_now_mono();
}

/* The call what ended: its time kept if the longest, a wait counted and
 * said (the first of each outage of them: it must not happen). */
static void fconn_watched(struct fleet *f, const struct fconn_watch *w, const char *what)
{
	uint64_t ns = shm_now_mono() - w->t0;

	f->pq_calls++;
	if (ns > f->pq_max_ns) {
		f->pq_max_ns = ns;
		f->pq_max_what = what;
	}
	if (fconn_csw() != w->csw0) {
		if (!f->pq_waits)
			sup_log("fleet: warning: %s waited (%.2f ms): the loop stood still meanwhile", what, ns / 1e6);
		f->pq_waits++;
		f->pq_wait_what = what;
	}
}

static uint64_t fconn_ud(const struct fleet *f)
{
	return loop_ud(EV_FLEET, f->cepoch);
}

/* Arm the poll for mask, unless one is armed (then widen it to mask). */
static void fconn_arm(struct sup *s, unsigned mask)
{
	struct fleet *f = s->fleet;
	int fd = PQsocket(f->pg);

	if (fd < 0)
		return;
	if (f->poll_armed) {
		if ((f->poll_mask & mask) == mask)
			return;
		f->poll_mask |= mask;
		io_uring_prep_poll_update(loop_sqe(&s->loop, loop_ud(EV_IGNORE, 0)), fconn_ud(f), fconn_ud(f),
					  f->poll_mask, IORING_POLL_UPDATE_EVENTS);
		return;
	}
	f->poll_armed = 1;
	f->poll_mask = mask;
	io_uring_prep_poll_add(loop_sqe(&s->loop, fconn_ud(f)), fd, mask);
}

/* The poll an up connection needs: input, and output while flushing. */
static void fconn_arm_up(struct sup *s)
{
	fconn_arm(s, POLLIN | (s->fleet->flush_pending ? POLLOUT : 0));
}

int fconn_idle(const struct fleet *f)
{
	return f->cstate == FC_UP && f->inflight == FQ_NONE;
}

void fconn_drop(struct sup *s, const char *why)
{
	struct fleet *f = s->fleet;
	enum fleet_q q = f->inflight;
	uint64_t now = shm_now_mono();
	char w[sizeof f->err];

	if (!f->pg)
		return;
	snprintf(w, sizeof w, "%s", why);	/* why may be f->err itself */
	why = w;
	if (f->poll_armed) {	/* before the socket closes (see the top) */
		io_uring_prep_poll_remove(loop_sqe(&s->loop, loop_ud(EV_IGNORE, 0)), fconn_ud(f));
		loop_flush(&s->loop);
	}
	PQclear(f->res);
	f->res = NULL;
	struct fconn_watch fw;
	fconn_watch(&fw);
	PQfinish(f->pg);
	fconn_watched(f, &fw, "PQfinish");
	f->pg = NULL;
	f->cepoch++;
	f->poll_armed = f->flush_pending = 0;
	f->inflight = FQ_NONE;
	f->cstate = FC_DOWN;
	f->up_ns = 0;
	f->version_ok = f->registered = 0;
	snprintf(f->err, sizeof f->err, "%s", why);
	if (!f->down_since_ns)
		f->down_since_ns = now;
	f->attempts++;
	if (!f->down_logged) {
		sup_log("fleet: database unreachable: %s; retrying every %llu..%llu ms, finishing the jobs "
			"held meanwhile", why, (unsigned long long)FCONN_BACKOFF_MIN_MS,
			(unsigned long long)f->backoff_max_ms);
		f->down_logged = 1;
	}
	f->backoff_ms = f->backoff_ms ? f->backoff_ms * 2 : FCONN_BACKOFF_MIN_MS;
	if (f->backoff_ms > f->backoff_max_ms)
		f->backoff_ms = f->backoff_max_ms;
	f->retry_ns = now + f->backoff_ms * 1000000u;
	if (q != FQ_NONE)
		fleet_on_lost(s, q);
}

void fconn_retry(struct sup *s, uint64_t ms)
{
	struct fleet *f = s->fleet;
	int logged = f->down_logged;

	f->down_logged = 1;	/* said already, by the caller */
	fconn_drop(s, f->err);
	f->down_logged = logged;
	f->down_since_ns = 0;
	f->attempts = 0;
	f->backoff_ms = 0;
	f->retry_ns = shm_now_mono() + ms * 1000000u;
}

void fconn_close(struct sup *s)
{
	struct fleet *f = s->fleet;

	if (!f->pg)
		return;
	f->down_logged = 1;	/* not an outage: nothing to say */
	fconn_drop(s, "closed");
}

static void fconn_up(struct sup *s)
{
	struct fleet *f = s->fleet;
	uint64_t now = shm_now_mono();

	PQsetnonblocking(f->pg, 1);
	PQsetNoticeProcessor(f->pg, fleet_quiet, NULL);
	f->cstate = FC_UP;
	f->up_ns = now;
	f->n_connects++;
	if (f->down_logged && f->down_since_ns)
		sup_log("fleet: database reachable again (%s, database %s) after %.1f s and %u attempt%s",
			PQhost(f->pg), PQdb(f->pg), (double)(now - f->down_since_ns) / 1e9, f->attempts,
			f->attempts == 1 ? "" : "s");
	else if (f->n_connects == 1)
		sup_log("fleet: connected to %s, database %s, as node %s", PQhost(f->pg), PQdb(f->pg), f->node);
	f->down_since_ns = 0;
	f->attempts = 0;
	f->down_logged = 0;
	f->backoff_ms = 0;
	fconn_arm_up(s);
	fleet_on_up(s);
}

/* One step of the connection's start: PQconnectPoll says what to wait
 * for next (the socket may change between steps: another host). */
static void fconn_connect_step(struct sup *s)
{
	struct fleet *f = s->fleet;
	struct fconn_watch w;
	PostgresPollingStatusType st;
	char why[240];

	fconn_watch(&w);
	st = PQconnectPoll(f->pg);
	fconn_watched(f, &w, "PQconnectPoll");
	switch (st) {
	case PGRES_POLLING_READING:
		fconn_arm(s, POLLIN);
		return;
	case PGRES_POLLING_WRITING:
		fconn_arm(s, POLLOUT);
		return;
	case PGRES_POLLING_OK:
		fconn_up(s);
		return;
	default:
		fconn_drop(s, fleet_pg_error(NULL, f->pg, why, sizeof why));
		return;
	}
}

static void fconn_start(struct sup *s, uint64_t now)
{
	struct fleet *f = s->fleet;
	char why[240];

	struct fconn_watch w;

	f->connect_ns = now;
	fconn_watch(&w);
	f->pg = PQconnectStart(s->conf.fleet.dsn);
	fconn_watched(f, &w, "PQconnectStart");
	if (!f->pg || PQstatus(f->pg) == CONNECTION_BAD) {
		snprintf(why, sizeof why, "%s", f->pg ? PQerrorMessage(f->pg) : "out of memory");
		why[strcspn(why, "\n")] = '\0';
		if (!f->pg) {	/* nothing to drop: count the attempt here */
			f->retry_ns = now + f->backoff_max_ms * 1000000u;
			return;
		}
		fconn_drop(s, why);
		return;
	}
	f->cstate = FC_CONNECTING;
	fconn_arm(s, POLLOUT);	/* as if PQconnectPoll had said "writing" */
}

void fconn_tick(struct sup *s, uint64_t now)
{
	struct fleet *f = s->fleet;
	char why[96];

	if (f->cstate == FC_DOWN && now >= f->retry_ns) {
		fconn_start(s, now);
		return;
	}
	if (f->cstate == FC_CONNECTING && now - f->connect_ns > f->timeout_ms * 1000000u) {
		snprintf(why, sizeof why, "no connection within %llu ms", (unsigned long long)f->timeout_ms);
		fconn_drop(s, why);
		return;
	}
	if (f->cstate == FC_UP && f->inflight != FQ_NONE && now - f->sent_ns > f->timeout_ms * 1000000u) {
		snprintf(why, sizeof why, "no answer within %llu ms", (unsigned long long)f->timeout_ms);
		fconn_drop(s, why);
		return;
	}
	if (f->cstate == FC_UP && f->flush_pending) {	/* (the poll also says when it can write) */
		struct fconn_watch w;
		fconn_watch(&w);
		f->flush_pending = PQflush(f->pg) != 0;
		fconn_watched(f, &w, "PQflush");
	}
}

int fconn_send(struct sup *s, enum fleet_q q, const char *sql, int n, const char *const *params)
{
	struct fleet *f = s->fleet;
	char why[240];
	int rc;

	if (!fconn_idle(f))
		return -1;
	/* libpq copies the parameters into its buffer: they may go now */
	struct fconn_watch w;
	fconn_watch(&w);
	rc = PQsendQueryParams(f->pg, sql, n, NULL, params, NULL, NULL, 0) ? PQflush(f->pg) : -1;
	fconn_watched(f, &w, "PQsendQueryParams");
	if (rc < 0) {
		fconn_drop(s, fleet_pg_error(NULL, f->pg, why, sizeof why));
		return -1;
	}
	f->flush_pending = rc == 1;
	f->inflight = q;
	f->sent_ns = shm_now_mono();
	f->n_stmt++;
	fconn_arm_up(s);
	return 0;
}

/* Input came: take it, and every result that is whole. */
static int fconn_input(struct sup *s)
{
	struct fleet *f = s->fleet;
	struct fconn_watch w;
	char why[240];
	PGnotify *n;
	int ok;

	fconn_watch(&w);
	ok = PQconsumeInput(f->pg);
	fconn_watched(f, &w, "PQconsumeInput");
	if (!ok) {
		fconn_drop(s, fleet_pg_error(NULL, f->pg, why, sizeof why));
		return -1;
	}
	while ((n = PQnotifies(f->pg)))
		PQfreemem(n);
	while (f->inflight != FQ_NONE && !PQisBusy(f->pg)) {
		fconn_watch(&w);
		PGresult *r = PQgetResult(f->pg);
		fconn_watched(f, &w, "PQgetResult");
		if (r) {	/* one statement: keep its (first) result */
			if (f->res)
				PQclear(r);
			else
				f->res = r;
			continue;
		}
		enum fleet_q q = f->inflight;
		r = f->res;
		f->res = NULL;
		f->inflight = FQ_NONE;
		fleet_on_result(s, q, r);
		PQclear(r);
		if (!f->pg)
			return -1;	/* the handler dropped it */
	}
	if (PQstatus(f->pg) == CONNECTION_BAD) {
		fconn_drop(s, fleet_pg_error(NULL, f->pg, why, sizeof why));
		return -1;
	}
	return 0;
}

void fconn_on_poll(struct sup *s, uint32_t who, int res)
{
	struct fleet *f = s->fleet;

	if (!f || !f->pg || (uint16_t)who != f->cepoch)
		return;		/* an earlier connection's */
	f->poll_armed = 0;
	if (res < 0 && res != -ECANCELED) {
		char why[96];
		snprintf(why, sizeof why, "poll: %s", strerror(-res));
		fconn_drop(s, why);
		return;
	}
	if (f->cstate == FC_CONNECTING) {
		fconn_connect_step(s);
		return;
	}
	if (f->flush_pending && (res & POLLOUT)) {
		struct fconn_watch w;
		fconn_watch(&w);
		int rc = PQflush(f->pg);
		fconn_watched(f, &w, "PQflush");
		if (rc < 0) {
			char why[240];
			fconn_drop(s, fleet_pg_error(NULL, f->pg, why, sizeof why));
			return;
		}
		f->flush_pending = rc == 1;
	}
	if ((res & (POLLIN | POLLERR | POLLHUP)) && fconn_input(s) < 0)
		return;
	fconn_arm_up(s);
	fleet_kick(s);
}
