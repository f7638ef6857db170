/*
 * fleet: the supervisor as a node of a fleet (docs/fleet.md). What it
 * asks the database, one statement at a time, in this order of need:
 *
 *   1. the schema's version, once per connection (a database without the
 *      schema, or with a newer one, is waited on, logged once);
 *   2. a beat, when due and first on every connection: the node's row
 *      (registration and heartbeat in one), its leases renewed, and what
 *      the database says it owns but it does not hold put back;
 *   3. reports: how each held job's local job ended (fleet_report.c);
 *   4. a claim, while it holds fewer than max_jobs, not draining or
 *      stopping: a job claimed is submitted as a local job (sched_submit:
 *      journaled, as a socket submit is) and its claim recorded in the
 *      claim journal (fleet/fjournal.h).
 *
 * A lease the beat did not renew was lost (the node was away longer than
 * its lease and another node took the job): a job still running here is
 * cancelled; one already ended is still reported, and the database
 * refuses it. Expired leases of other nodes are taken only once this
 * connection has been up for a lease's length: after an outage of the
 * database every node's lease looks expired, and each must first have
 * had the time to renew its own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "format/pfile.h"
#include "journal/journal.h"
#include "supervisor/fleet_int.h"
#include "supervisor/sup.h"

void fleet_csw(long *vol, long *invol)
{
	struct rusage ru;

	*vol = *invol = 0;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		*vol = ru.ru_nvcsw;
		*invol = ru.ru_nivcsw;
	}
}

/* A step of the fleet on the loop begins (fleet.h: every one is watched). */
static void fleet_step(struct fleet *f)
{
	if (f->st_depth++)
		return;
	fleet_csw(&f->st_vol0, &f->st_invol0);
	f->st_t0 = shm_now_mono();
}

static void fleet_step_end(struct fleet *f)
{
	long vol, invol;
	uint64_t ns;

	if (--f->st_depth)
		return;
	ns = shm_now_mono() - f->st_t0;
	fleet_csw(&vol, &invol);
	f->st_steps++;
	f->st_waited += vol != f->st_vol0;
	f->st_desched += invol != f->st_invol0;
	if (ns > f->st_max_ns)
		f->st_max_ns = ns;
	if (vol == f->st_vol0 && invol == f->st_invol0 && ns > f->st_calm_max_ns)
		f->st_calm_max_ns = ns;
}

struct fleet_held *fleet_held_new(struct fleet *f)
{
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		if (f->held[i].state == FH_FREE) {
			memset(&f->held[i], 0, sizeof f->held[i]);
			return &f->held[i];
		}
	return NULL;
}

void fleet_held_free(struct fleet_held *h)
{
	free(h->proofs);
	memset(h, 0, sizeof *h);
}

static struct fleet_held *fleet_find_local(struct fleet *f, uint64_t local)
{
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		if (f->held[i].state != FH_FREE && f->held[i].c.local == local && local)
			return &f->held[i];
	return NULL;
}

struct fleet_held *fleet_find(struct fleet *f, uint64_t id, uint32_t epoch)
{
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		if (f->held[i].state != FH_FREE && f->held[i].c.fleet == id && f->held[i].c.epoch == epoch)
			return &f->held[i];
	return NULL;
}

uint32_t fleet_running(const struct fleet *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		n += f->held[i].state == FH_RUNNING;
	return n;
}

int fleet_job_index(const struct sup *s, uint64_t id)
{
	for (uint32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == id)
			return (int)i;
	return -1;
}

/* A claim from the claim journal at start: still running here, done (its
 * result file is there: reported), or ended otherwise (given back). */
static void fleet_resume_one(void *ctx, const struct fjournal_claim *c)
{
	struct sup *s = ctx;
	struct fleet_held *h = fleet_held_new(s->fleet);
	int ji = fleet_job_index(s, c->local);

	if (!h) {
		sup_log("fleet: job %" PRIu64 " (local %" PRIu64 "): more unreported claims than %d; its lease "
			"will expire", c->fleet, c->local, FLEET_MAX_HELD);
		return;
	}
	h->c = *c;
	if (ji >= 0 && jobs_active(&s->jobs[ji])) {
		h->state = FH_RUNNING;
	} else if (results_have(s, c->local)) {
		h->state = FH_ENDED;
		h->outcome = FO_DONE;
	} else {
		h->state = FH_READY;
		h->outcome = FO_RELEASE;
		snprintf(h->why, sizeof h->why, "its local job %" PRIu64 " ended on node %s without a result",
			 c->local, s->fleet->node);
	}
}

/* The node's name by default: HOST.INSTANCE, with what a name may not
 * hold replaced. */
static void fleet_default_node(struct sup *s, struct fleet *f)
{
	char host[64] = "localhost";

	gethostname(host, sizeof host - 1);
	snprintf(f->node, sizeof f->node, "%.30s.%s", host, s->conf.name);
	for (char *p = f->node; *p; p++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-", *p))
			*p = '-';
}

/* A host that libpq would look up by name blocks PQconnectPoll (DNS is
 * synchronous there): said once at start, with the way around it. */
static int fleet_check_dsn(const char *dsn, char *err, size_t errlen)
{
	char *perr = NULL;
	PQconninfoOption *o = PQconninfoParse(dsn, &perr);
	const char *host = NULL, *hostaddr = NULL;

	if (!o) {
		snprintf(err, errlen, "fleet dsn: %s", perr ? perr : "out of memory");
		err[strcspn(err, "\n")] = '\0';
		PQfreemem(perr);
		return -1;
	}
	for (PQconninfoOption *p = o; p->keyword; p++) {
		if (!strcmp(p->keyword, "host") && p->val && *p->val)
			host = p->val;
		if (!strcmp(p->keyword, "hostaddr") && p->val && *p->val)
			hostaddr = p->val;
	}
	if (host && !hostaddr && host[0] != '/' && host[0] != '@') {
		unsigned char a[16];
		if (inet_pton(AF_INET, host, a) != 1 && inet_pton(AF_INET6, host, a) != 1)
			sup_log("fleet: warning: the database host '%.60s' is a name: libpq resolves it inside "
				"the loop, which waits for DNS; give hostaddr= (its address) as well", host);
	}
	PQconninfoFree(o);
	return 0;
}

static void fleet_boot_id(struct fleet *f)
{
	FILE *b = fopen("/proc/sys/kernel/random/boot_id", "re");

	snprintf(f->boot_id, sizeof f->boot_id, "unknown");
	if (b) {
		if (fgets(f->boot_id, sizeof f->boot_id, b))
			f->boot_id[strcspn(f->boot_id, "\n")] = '\0';
		fclose(b);
	}
}

static void fleet_arm_timer(struct sup *s)
{
	struct fleet *f = s->fleet;

	f->timer_ts.tv_sec = 0;
	f->timer_ts.tv_nsec = SUP_TICK_MS * 1000000;
	io_uring_prep_timeout(loop_sqe(&s->loop, loop_ud(EV_FLEET_TIMER, 0)), &f->timer_ts, 0, 0);
}

int fleet_open(struct sup *s)
{
	const struct conf_fleet *cf = &s->conf.fleet;
	char warn[200], err[400];
	struct fleet *f;
	struct timespec ts;

	if (!cf->dsn[0])
		return 0;
	if (fleet_check_dsn(cf->dsn, err, sizeof err) < 0 ||
	    (!(f = s->fleet = calloc(1, sizeof *f)) && snprintf(err, sizeof err, "out of memory"))) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	f->reading = f->sending = f->io_fd = -1;
	if (cf->node[0])
		snprintf(f->node, sizeof f->node, "%s", cf->node);
	else
		fleet_default_node(s, f);
	gethostname(f->host, sizeof f->host - 1);
	fleet_boot_id(f);
	clock_gettime(CLOCK_REALTIME, &ts);
	f->started_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	f->hb_ms = cf->heartbeat_ms;
	/* two and a half heartbeats: a live node misses two before it loses
	 * a lease, and a dead one's jobs are taken within three (the claim
	 * that takes them comes within claim_interval of the expiry) */
	f->lease_ms = cf->lease_ms ? cf->lease_ms : 5 * cf->heartbeat_ms / 2;
	f->claim_ms = cf->claim_interval_ms;
	/* a statement or a connection that takes half a lease is a database gone */
	f->timeout_ms = f->lease_ms / 2 > 1000 ? f->lease_ms / 2 : 1000;
	f->backoff_max_ms = f->lease_ms / 4 > 250 ? f->lease_ms / 4 : 250;
	f->max_jobs = cf->max_jobs ? cf->max_jobs : 2 * s->ngpu;
	if (f->max_jobs > s->conf.max_jobs)
		f->max_jobs = s->conf.max_jobs;
	if (fjournal_open(&f->fj, s->state_fd, s->conf.state_dir, fleet_resume_one, s, warn, sizeof warn,
			  err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: fleet: %s\n", err);
		free(f);
		s->fleet = NULL;
		return -1;
	}
	if (warn[0])
		sup_log("fleet: %s", warn);
	sup_log("fleet: node %s: heartbeat %llu ms, lease %llu ms, up to %u fleet jobs at once", f->node,
		(unsigned long long)f->hb_ms, (unsigned long long)f->lease_ms, f->max_jobs);
	fleet_arm_timer(s);
	return 0;
}

void fleet_close(struct sup *s)
{
	struct fleet *f = s->fleet;

	if (!f)
		return;
	fconn_close(s);
	sup_log("fleet: %" PRIu64 " statements (%" PRIu64 " beats, %" PRIu64 " claims, %" PRIu64 " completions, %"
		PRIu64 " releases) on %" PRIu64 " connections; %" PRIu64 " jobs claimed, %" PRIu64 " completed, %"
		PRIu64 " repeated, %" PRIu64 " refused, %" PRIu64 " leases lost, %" PRIu64 " put back; claim "
		"latency p50 %.2f ms p99 %.2f ms", f->n_stmt, f->n_beat, f->n_claim, f->n_complete, f->n_release,
		f->n_connects, f->n_claimed, f->n_completed, f->n_repeat, f->n_refused, f->n_lost, f->n_put_back,
		lathist_quantile(&f->claim_lat, 0.5) / 1e6, lathist_quantile(&f->claim_lat, 0.99) / 1e6);
	sup_log("fleet: %" PRIu64 " libpq calls, the longest %.3f ms (%s), %" PRIu64 " waited%s%s", f->pq_calls,
		f->pq_max_ns / 1e6, f->pq_max_what ? f->pq_max_what : "none", f->pq_waits,
		f->pq_waits ? ", the last in " : "", f->pq_waits ? f->pq_wait_what : "");
	sup_log("fleet: %" PRIu64 " steps on the loop, the longest %.3f ms, the longest not descheduled %.3f ms; %"
		PRIu64 " waited, %" PRIu64 " descheduled", f->st_steps, f->st_max_ns / 1e6, f->st_calm_max_ns / 1e6,
		f->st_waited, f->st_desched);
	if (f->io_fd >= 0)
		close(f->io_fd);
	free(f->io_buf);
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		free(f->held[i].proofs);
	fjournal_close(f->fj);
	free(f);
	s->fleet = NULL;
}

void fleet_publish(const struct sup *s, struct shm_fleet *out)
{
	const struct fleet *f = s->fleet;

	memset(out, 0, sizeof *out);
	if (!f)
		return;
	out->db_state = f->cstate == FC_UP ? SHM_FLEET_CONNECTED : f->down_since_ns ? SHM_FLEET_UNREACHABLE :
			SHM_FLEET_CONNECTING;
	out->registered = (uint32_t)f->registered;
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++) {
		const struct fleet_held *h = &f->held[i];
		if (h->state == FH_FREE || h->lost)
			continue;
		out->leases_held++;
		out->unreported += h->state != FH_RUNNING && h->outcome == FO_DONE;
	}
	out->max_jobs = f->max_jobs;
	out->reconnects = f->n_connects ? f->n_connects - 1 : 0;
	out->claimed = f->n_claimed;
	/* a repeat is a completion whose first answer was lost: the
	 * database took it once, and it is counted once */
	out->completed = f->n_completed + f->n_repeat;
	out->refused = f->n_refused;
	out->leases_lost = f->n_lost;
	out->beat_wall_ns = f->beat_wall_ns;
	out->beat_mono_ns = f->beat_mono_ns;
	out->down_mono_ns = f->cstate == FC_UP ? 0 : f->down_since_ns;
	snprintf(out->node, sizeof out->node, "%s", f->node);
}

void fleet_stopping(struct sup *s)
{
	if (!s->fleet)
		return;
	s->fleet->stopping = 1;
	s->fleet->next_beat_ns = 0;	/* the fleet hears it at once */
}

void fleet_on_up(struct sup *s)
{
	static const char *const none[1];

	s->fleet->next_beat_ns = 0;	/* registration first */
	s->fleet->next_try_ns = 0;
	fconn_send(s, FQ_VERSION, FLEET_SQL_VERSION, 0, none);
}

void fleet_on_lost(struct sup *s, enum fleet_q q)
{
	if (q == FQ_COMPLETE || q == FQ_RELEASE)
		freport_on_lost(s);
	for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
		s->fleet->held[i].in_beat = 0;
}

void fleet_kick(struct sup *s)
{
	struct fleet *f = s->fleet;
	uint64_t now = shm_now_mono();
	uint32_t running;

	if (!f)
		return;
	freport_read_next(s);	/* a file read goes on beside the statements */
	if (!fconn_idle(f) || !f->version_ok || now < f->next_try_ns)
		return;
	if (now >= f->next_beat_ns) {	/* first on every connection */
		fleet_send_beat(s);
		return;
	}
	if (freport_send(s))	/* a report needs the lease, not the registration */
		return;
	running = fleet_running(f);
	if (!f->registered || f->stopping || s->draining || s->stopping || running >= f->max_jobs ||
	    now < f->next_claim_ns)
		return;
	fleet_send_claim(s, f->max_jobs - running);
}


/* The fleet's periodic work: deadlines, reconnection, what is due. */
static void fleet_timer(struct sup *s)
{
	struct fleet *f = s->fleet;
	uint64_t now = shm_now_mono();

	fleet_arm_timer(s);
	fconn_tick(s, now);
	if (fjournal_compact_due(f->fj, FLEET_MAX_HELD)) {
		struct fjournal_claim live[FLEET_MAX_HELD];
		uint32_t n = 0;
		char err[256];
		for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
			if (f->held[i].state != FH_FREE && f->held[i].c.local)
				live[n++] = f->held[i].c;
		loop_flush(&s->loop);	/* a sync queued on the old fd is handed over first */
		if (fjournal_compact(f->fj, live, n, err, sizeof err) < 0)
			sup_log("fleet: %s", err);
	}
	fleet_kick(s);
}

/* The statement failed: a serialization failure or deadlock is simply
 * tried again; anything else is logged and tried again after a beat. */
static void fleet_failed(struct sup *s, enum fleet_q q, PGresult *r)
{
	struct fleet *f = s->fleet;
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	char why[240];

	if (st && (!strcmp(st, "40001") || !strcmp(st, "40P01")))
		return;
	fleet_pg_error(r, f->pg, why, sizeof why);
	if (q == FQ_VERSION) {	/* no schema at all: a fresh connection asks again */
		if (strcmp(why, f->err))
			sup_log("fleet: schema check: %s (provisor fleet init DSN); asking again every heartbeat", why);
		snprintf(f->err, sizeof f->err, "%s", why);
		fconn_retry(s, f->hb_ms);
		return;
	}
	if (strcmp(why, f->err)) {	/* the same failure again is not logged again */
		sup_log("fleet: %s: %s", q == FQ_BEAT ? "heartbeat" : q == FQ_CLAIM ? "claim" :
			q == FQ_VERSION ? "schema check" : "report", why);
		snprintf(f->err, sizeof f->err, "%s", why);
	}
	f->next_try_ns = shm_now_mono() + f->hb_ms * 1000000u;
}

static void fleet_on_version(struct sup *s, PGresult *r)
{
	struct fleet *f = s->fleet;
	int v = atoi(PQgetvalue(r, 0, 0));

	if (v == FLEET_SCHEMA_VERSION) {
		f->version_ok = 1;
		f->err[0] = '\0';
		return;
	}
	char why[160];
	snprintf(why, sizeof why, "the database's fleet schema is version %d, this node needs %d%s", v,
		 FLEET_SCHEMA_VERSION, v < FLEET_SCHEMA_VERSION ? " (provisor fleet init DSN)" : "");
	if (strcmp(why, f->err))
		sup_log("fleet: %s; asking again every heartbeat", why);
	snprintf(f->err, sizeof f->err, "%s", why);
	fconn_retry(s, f->hb_ms);	/* a fresh connection asks again */
}

void fleet_on_result(struct sup *s, enum fleet_q q, PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	if (st != PGRES_TUPLES_OK || (q == FQ_VERSION && PQntuples(r) != 1)) {
		if (q == FQ_COMPLETE || q == FQ_RELEASE)
			freport_on_lost(s);	/* sent again after the pause */
		fleet_failed(s, q, r);
		if (q == FQ_BEAT)
			for (uint32_t i = 0; i < FLEET_MAX_HELD; i++)
				s->fleet->held[i].in_beat = 0;
		return;
	}
	switch (q) {
	case FQ_VERSION: fleet_on_version(s, r); break;
	case FQ_BEAT: fleet_on_beat(s, r); break;
	case FQ_CLAIM: fleet_on_claim(s, r); break;
	case FQ_COMPLETE: case FQ_RELEASE: freport_on_result(s, q, r); break;
	case FQ_NONE: break;
	}
}

/* A file operation of the fleet completed (EV_FLEET_IO). */
static void fleet_on_io(struct sup *s, uint32_t who, int res)
{
	struct fleet *f = s->fleet;
	uint32_t op = who & 0xff, i = who >> 8;

	if (op == 1) {	/* the job journal's sync for a claimed job */
		journal_synced(s->journal, res);
		if (res < 0 && i < FLEET_MAX_HELD && f->held[i].c.local) {
			char why[160];
			snprintf(why, sizeof why, "not accepted: fsync journal: %s", strerror(-res));
			sched_withdraw(s, f->held[i].c.local, why);
		}
		return;
	}
	if (op == 2) {
		if (res < 0)
			sup_log("fleet: fsync %s/%s: %s", s->conf.state_dir, FJOURNAL_NAME, strerror(-res));
		return;
	}
	freport_on_io(s, who, res);
}

void fleet_on_cqe(struct sup *s, uint32_t what, uint32_t who, int res)
{
	struct fleet *f = s->fleet;

	if (!f)
		return;
	fleet_step(f);
	if (what == EV_FLEET)
		fconn_on_poll(s, who, res);
	else if (what == EV_FLEET_TIMER)
		fleet_timer(s);
	else
		fleet_on_io(s, who, res);
	if (s->fleet)	/* (never freed here: fleet_close is teardown's) */
		fleet_step_end(f);
}

void fleet_job_ended(struct sup *s, int ji, uint32_t state)
{
	struct fleet *f = s->fleet;
	const struct job *j = &s->jobs[ji];
	struct fleet_held *h = f ? fleet_find_local(f, j->id) : NULL;

	if (!h || h->state != FH_RUNNING)
		return;
	fleet_step(f);
	if (state == SHM_JOB_DONE) {
		memcpy(h->digest, j->tail + (size_t)j->nparts * 32, 32);	/* its checksum, just written */
		h->has_digest = 1;
		/* H: nothing more to say; proofs: read back first */
		h->state = j->file_kind == PFILE_KIND_RESULT ? FH_READY : FH_ENDED;
		h->outcome = FO_DONE;
	} else {
		h->state = FH_READY;
		h->outcome = state == SHM_JOB_FAILED ? FO_FAILED : FO_RELEASE;
		snprintf(h->why, sizeof h->why, "%s on node %.63s%s%.70s", state == SHM_JOB_FAILED ? "failed" :
			 "cancelled", f->node, j->why[0] ? ": " : "", j->why);
	}
	fleet_kick(s);
	fleet_step_end(f);
}
