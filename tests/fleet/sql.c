/*
 * fleet_sql DSN: the statements a node sends (fleet/sql.c), each against
 * a real PostgreSQL (tests/fleet/sql.sh starts one), with the conditions
 * that make the fleet safe:
 *   - fleet_migrate creates the schema once (a second run changes
 *     nothing) and refuses a newer one;
 *   - a beat registers a node; the same name from another host or state
 *     directory is refused while the first is alive; a beat renews the
 *     leases sent and puts back the ones the node owns but did not send;
 *   - a claim takes the most urgent jobs first (priority, then deadline),
 *     only the kinds and sizes asked for, and only queued ones unless
 *     expired leases are asked for too; each claim bumps the epoch;
 *   - completion counts once: again by the same lease is a repeat, by an
 *     older lease (expired and taken) it is refused and marked late;
 *   - a release queues the job again, and a job failed max_failures times
 *     stays failed;
 *   - the history shows no overlapping leases, and a running job without
 *     an owner and a lease is refused by the table itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "tests/helpers.h"

static PGconn *c;

/* Run sql with n text params; fail the test unless it returned rows. */
static PGresult *q(const char *sql, int n, const char *const *p)
{
	PGresult *r = PQexecParams(c, sql, n, NULL, p, NULL, NULL, 0);
	char why[300];

	CHECK(r && PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql, fleet_pg_error(r, c, why, sizeof why));
	return r;
}

/* One value of a plain query. */
static long long v(const char *sql)
{
	PGresult *r = q(sql, 0, NULL);
	long long x = PQntuples(r) ? atoll(PQgetvalue(r, 0, 0)) : -1;

	PQclear(r);
	return x;
}

static void exec_ok(const char *sql)
{
	PGresult *r = PQexec(c, sql);
	char why[300];

	CHECK(r && PQresultStatus(r) == PGRES_COMMAND_OK, "%s: %s", sql, fleet_pg_error(r, c, why, sizeof why));
	PQclear(r);
}

/* A beat of node name from host holding ids/epochs: registered (row 0),
 * and the counts of renewed and put back rows. */
static int beat(const char *name, const char *host, const char *ids, const char *epochs, int *renewed, int *back)
{
	const char *p[FLEET_BEAT_NPARAMS] = { name, host, "/state", "boot", "1", "1700000000", "1000", "3000",
					      "cpu", "1", "0", "1", "0", "all", "", "4", "0", "0", "0", ids, epochs, "f" };
	PGresult *r = q(FLEET_SQL_BEAT, FLEET_BEAT_NPARAMS, p);
	int reg = 0;

	*renewed = *back = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		int what = atoi(PQgetvalue(r, i, 0));
		reg += what == 0;
		*renewed += what == 1;
		*back += what == 2;
	}
	PQclear(r);
	return reg;
}

/* Claim up to limit jobs for node (k in 3..20, every kind): the ids in order. */
static int claim(const char *node, int limit, int expired, uint64_t *ids, uint32_t *epochs)
{
	char lim[8];
	snprintf(lim, sizeof lim, "%d", limit);
	const char *p[FLEET_CLAIM_NPARAMS] = { node, "{winning-post,window-post,snap-deals,porep}", "{3,3,3,3}",
					       "{20,20,20,20}", lim, expired ? "t" : "f", "3000",
					       "{h,h,h,h}" };
	PGresult *r = q(FLEET_SQL_CLAIM, FLEET_CLAIM_NPARAMS, p);
	int n = PQntuples(r);

	for (int i = 0; i < n; i++) {
		ids[i] = strtoull(PQgetvalue(r, i, 0), NULL, 10);
		epochs[i] = (uint32_t)atoi(PQgetvalue(r, i, 1));
	}
	PQclear(r);
	return n;
}

/* Complete (id, epoch) as node: 'd' done now, 'a' already, 'r' refused. */
static char complete(uint64_t id, uint32_t epoch, const char *node)
{
	char ids[24], ep[12];
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	snprintf(ep, sizeof ep, "%u", epoch);
	const char *p[FLEET_COMPLETE_NPARAMS] = { ids, ep, node, "h", NULL,
		"\\x0101010101010101010101010101010101010101010101010101010101010101", "node:/path" };
	PGresult *r = q(FLEET_SQL_COMPLETE, FLEET_COMPLETE_NPARAMS, p);
	char o = atoi(PQgetvalue(r, 0, 0)) == 1 ? 'd' : atoi(PQgetvalue(r, 0, 1)) > 0 ? 'a' : 'r';

	PQclear(r);
	return o;
}

/* Release (id, epoch) as node: the job's new state, or "" (not ours). */
static const char *release(uint64_t id, uint32_t epoch, const char *node, int failed)
{
	static char state[16];
	char ids[24], ep[12];
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	snprintf(ep, sizeof ep, "%u", epoch);
	const char *p[FLEET_RELEASE_NPARAMS] = { ids, ep, node, failed ? "t" : "f", "test" };
	PGresult *r = q(FLEET_SQL_RELEASE, FLEET_RELEASE_NPARAMS, p);

	snprintf(state, sizeof state, "%s", PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return state;
}

static uint64_t submit(uint32_t kind, uint32_t prio, int64_t deadline)
{
	struct fleet_submit j = { .kind = kind, .log_size = 3, .partitions = 1, .priority = prio,
				  .seed = { 1 }, .seed_len = 1, .deadline_s = deadline };
	char err[300];
	uint64_t id;

	CHECK(fleet_admin_submit(c, &j, &id, err, sizeof err) == 0, "submit: %s", err);
	return id;
}

static void schema(void)
{
	char err[300];
	int from, to;

	CHECK(fleet_migrate(c, &from, &to, err, sizeof err) == 0 && from == 0 && to == FLEET_SCHEMA_VERSION,
	      "migrate: %s (%d -> %d)", err, from, to);
	CHECK(fleet_migrate(c, &from, &to, err, sizeof err) == 0 && from == to && to == FLEET_SCHEMA_VERSION,
	      "migrate again: %s (%d -> %d)", err, from, to);
	exec_ok("INSERT INTO provisor_schema (version, what) VALUES (99, 'from the future')");
	CHECK(fleet_migrate(c, &from, &to, err, sizeof err) < 0 && strstr(err, "newer"), "a newer schema: %s", err);
	exec_ok("DELETE FROM provisor_schema WHERE version = 99");
}

static void registration(void)
{
	int ren, back;

	CHECK(beat("a", "h1", "{}", "{}", &ren, &back) == 1, "node a registers");
	CHECK(beat("a", "h1", "{}", "{}", &ren, &back) == 1, "node a beats");
	CHECK(beat("a", "h2", "{}", "{}", &ren, &back) == 0, "node a from another host, a alive: refused");
	CHECK(beat("b", "h2", "{}", "{}", &ren, &back) == 1, "node b registers");
	exec_ok("UPDATE provisor_nodes SET last_seen = now() - interval '10 seconds' WHERE name = 'b'");
	CHECK(beat("b", "h3", "{}", "{}", &ren, &back) == 1, "node b dead: its name is free");
	exec_ok("UPDATE provisor_nodes SET host = 'h2' WHERE name = 'b'");
}

int main(int argc, char **argv)
{
	uint64_t ids[8];
	uint32_t ep[8];
	char err[300], buf[200];
	int ren, back;

	if (argc != 2)
		T_SKIP("usage: fleet_sql DSN (tests/fleet/sql.sh runs it)");
	CHECK((c = fleet_connect(argv[1], err, sizeof err)) != NULL, "%s", err);
	schema();
	registration();

	/* Claims: priority, then deadline, then id; kinds and sizes asked for. */
	uint64_t j_low = submit(4, 2, -1), j_top = submit(1, 0, -1), j_mid_late = submit(2, 1, 3600),
		 j_mid_soon = submit(2, 1, 60);
	CHECK(claim("a", 3, 0, ids, ep) == 3 && ids[0] == j_top && ids[1] == j_mid_soon && ids[2] == j_mid_late &&
	      ep[0] == 1, "claim order: %llu %llu %llu", (unsigned long long)ids[0], (unsigned long long)ids[1],
	      (unsigned long long)ids[2]);
	const char *p[FLEET_CLAIM_NPARAMS] = { "b", "{porep}", "{3}", "{2}", "8", "f", "3000", "{proofs}" };
	PGresult *r = q(FLEET_SQL_CLAIM, FLEET_CLAIM_NPARAMS, p);
	CHECK(PQntuples(r) == 0, "a k=3 porep job claimed for k <= 2");
	PQclear(r);
	/* A job that asks for proofs goes only where its kind has params. */
	exec_ok("UPDATE provisor_jobs SET output = 'proofs' WHERE kind = 'porep'");
	const char *h[FLEET_CLAIM_NPARAMS] = { "b", "{porep}", "{3}", "{20}", "8", "f", "3000", "{h}" };
	r = q(FLEET_SQL_CLAIM, FLEET_CLAIM_NPARAMS, h);
	CHECK(PQntuples(r) == 0, "a proofs job claimed by a node that ends in H");
	PQclear(r);
	exec_ok("UPDATE provisor_jobs SET output = 'any' WHERE kind = 'porep'");

	/* A beat renews what it sends, puts back what it owns and did not send. */
	snprintf(buf, sizeof buf, "{%llu,%llu}", (unsigned long long)j_top, (unsigned long long)j_mid_soon);
	CHECK(beat("a", "h1", buf, "{1,1}", &ren, &back) == 1 && ren == 2 && back == 1,
	      "beat: %d renewed, %d put back", ren, back);
	CHECK(v("SELECT count(*) FROM provisor_jobs WHERE state = 'queued'") == 2, "put back: queued");

	/* Completion: once; a repeat by the same lease; a wrong epoch refused. */
	CHECK(complete(j_top, 1, "a") == 'd', "completed");
	CHECK(complete(j_top, 1, "a") == 'a', "a repeat is 'already'");
	CHECK(complete(j_mid_soon, 7, "a") == 'r', "a wrong epoch is refused");
	CHECK(complete(j_mid_soon, 1, "b") == 'r', "another node's lease is refused");
	CHECK(v("SELECT count(*) FROM provisor_results") == 1, "one result");

	/* Expiry: b takes a's expired lease only when it asks for expired ones. */
	/* (time passes: a's lease runs out, in the job and in its history) */
	exec_ok("UPDATE provisor_jobs SET lease_until = now() - interval '1 second' WHERE owner = 'a'");
	exec_ok("UPDATE provisor_leases SET expires_at = now() - interval '1 second' WHERE node = 'a' AND ended_at IS NULL");
	CHECK(claim("b", 1, 0, ids, ep) == 1 && ids[0] == j_mid_late, "queued first: %llu", (unsigned long long)ids[0]);
	uint32_t late_epoch = ep[0];
	CHECK(claim("b", 1, 1, ids, ep) == 1 && ids[0] == j_mid_soon && ep[0] == 2, "expired taken: %llu epoch %u",
	      (unsigned long long)ids[0], ep[0]);
	CHECK(complete(j_mid_soon, 1, "a") == 'r', "the late completion is refused");
	CHECK(v("SELECT count(*) FROM provisor_leases WHERE node = 'a' AND outcome = 'expired' AND late_at IS NOT NULL") == 1,
	      "the late lease is marked");
	CHECK(complete(j_mid_soon, 2, "b") == 'd', "the new lease completes");
	snprintf(buf, sizeof buf, "{%llu}", (unsigned long long)j_mid_soon);
	CHECK(beat("a", "h1", buf, "{1}", &ren, &back) == 1 && ren == 0, "a lost lease is not renewed");

	/* Release: queued again; failed for good at max_failures (3). */
	CHECK(!strcmp(release(j_mid_late, late_epoch, "b", 0), "queued"), "released");
	CHECK(!strcmp(release(j_mid_late, late_epoch, "b", 0), ""), "released twice");
	for (int i = 0; i < 3; i++) {
		CHECK(claim("b", 1, 0, ids, ep) == 1, "claim to fail %d", i);
		CHECK(!strcmp(release(ids[0], ep[0], "b", 1), i < 2 ? "queued" : "failed"), "failure %d", i);
	}
	CHECK(v("SELECT count(*) FROM provisor_jobs WHERE state = 'failed'") == 1, "failed for good");
	CHECK(claim("b", 8, 1, ids, ep) == 1 && ids[0] == j_low, "the last one");

	/* The history: no two leases of a job overlap. */
	CHECK(v("SELECT count(*) FROM provisor_leases a JOIN provisor_leases b ON a.job_id = b.job_id AND a.epoch < b.epoch"
		" WHERE b.claimed_at < least(coalesce(a.ended_at, 'infinity'), a.expires_at)") == 0, "overlap");
	/* The table refuses a running job without owner and lease. */
	PGresult *bad = PQexec(c, "UPDATE provisor_jobs SET owner = NULL WHERE state = 'running'");
	CHECK(PQresultStatus(bad) == PGRES_FATAL_ERROR, "a running job without an owner was accepted");
	PQclear(bad);
	PQfinish(c);
	printf("ok\n");
	return 0;
}
