/*
 * schema: the fleet's tables and their versioned migrations
 * (provisor fleet init; docs/fleet.md has the tables with every column).
 *
 * Design: provisor_schema holds one row per migration applied. Each
 * migration runs in its own transaction with the row that records it,
 * so a migration is applied whole or not at all, and two inits racing
 * on one database cannot both apply one: the second's insert of the same
 * version fails on the primary key, rolls its transaction back, and it
 * reads the version again. A database whose schema is newer than this
 * build knows is left alone and refused.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "util/util.h"

struct fleet_migration {
	int version;
	const char *what;
	const char *sql;
};

/* Version 1: nodes, jobs, results and the lease history. */
static const char fleet_v1[] =
	"CREATE TABLE provisor_nodes ("
	" name text PRIMARY KEY,"
	" host text NOT NULL,"
	" state_dir text NOT NULL,"
	" boot_id text NOT NULL,"
	" pid integer NOT NULL,"
	" started_at timestamptz NOT NULL,"
	" last_seen timestamptz NOT NULL,"
	" heartbeat_ms integer NOT NULL,"
	" lease_ms integer NOT NULL,"
	" backend text NOT NULL,"
	" gpu_slots integer NOT NULL,"
	" gpu_busy integer NOT NULL,"
	" synth_slots integer NOT NULL,"
	" synth_busy integer NOT NULL,"
	" kinds text NOT NULL,"
	" params text NOT NULL,"
	" max_jobs integer NOT NULL,"
	" held integer NOT NULL,"
	" free integer NOT NULL,"
	" local_jobs integer NOT NULL,"
	" loop_max_us bigint NOT NULL,"
	" stopping boolean NOT NULL DEFAULT false);"
	"CREATE TABLE provisor_jobs ("
	" id bigserial PRIMARY KEY,"
	" kind text NOT NULL CHECK (kind IN ('winning-post', 'window-post', 'snap-deals', 'porep')),"
	" log_size integer NOT NULL CHECK (log_size BETWEEN 3 AND 27),"
	" partitions integer NOT NULL CHECK (partitions BETWEEN 1 AND 64),"
	" seed bytea NOT NULL CHECK (length(seed) BETWEEN 1 AND 32),"
	" priority integer NOT NULL DEFAULT 2,"
	" deadline timestamptz,"
	" output text NOT NULL DEFAULT 'any' CHECK (output IN ('any', 'proofs', 'h')),"
	" state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),"
	" owner text,"
	" lease_until timestamptz,"
	" epoch integer NOT NULL DEFAULT 0,"
	" claims integer NOT NULL DEFAULT 0,"
	" failures integer NOT NULL DEFAULT 0,"
	" max_failures integer NOT NULL DEFAULT 3 CHECK (max_failures >= 1),"
	" submitted_at timestamptz NOT NULL DEFAULT now(),"
	" finished_at timestamptz,"
	" why text,"
	" CHECK ((state = 'running') = (owner IS NOT NULL AND lease_until IS NOT NULL)));"
	"CREATE INDEX provisor_jobs_queue ON provisor_jobs (priority, deadline, id)"
	" WHERE state IN ('queued', 'running');"
	"CREATE INDEX provisor_jobs_owner ON provisor_jobs (owner) WHERE state = 'running';"
	"CREATE TABLE provisor_results ("
	" job_id bigint PRIMARY KEY REFERENCES provisor_jobs (id),"
	" epoch integer NOT NULL,"
	" node text NOT NULL,"
	" output text NOT NULL CHECK (output IN ('proofs', 'h')),"
	" proofs bytea,"
	" h_digest bytea,"
	" location text,"
	" completed_at timestamptz NOT NULL DEFAULT now(),"
	" CHECK ((output = 'proofs') = (proofs IS NOT NULL)),"
	" CHECK (output = 'proofs' OR (length(h_digest) = 32 AND location IS NOT NULL)));"
	"CREATE TABLE provisor_leases ("
	" job_id bigint NOT NULL REFERENCES provisor_jobs (id),"
	" epoch integer NOT NULL,"
	" node text NOT NULL,"
	" claimed_at timestamptz NOT NULL,"
	" expires_at timestamptz NOT NULL,"
	" ended_at timestamptz,"
	" outcome text CHECK (outcome IN ('done', 'failed', 'released', 'expired')),"
	" late_at timestamptz,"
	" PRIMARY KEY (job_id, epoch));";

static const struct fleet_migration fleet_migrations[] = {
	{ 1, "nodes, jobs, results, lease history", fleet_v1 },
};
#define FLEET_NMIGRATIONS (sizeof fleet_migrations / sizeof fleet_migrations[0])
static_assert(FLEET_NMIGRATIONS == FLEET_SCHEMA_VERSION, "one migration per version");

const char *fleet_pg_error(const PGresult *r, const PGconn *c, char *buf, size_t len)
{
	const char *m = r ? PQresultErrorMessage(r) : NULL;
	size_t n;

	if (!m || !*m)
		m = c ? PQerrorMessage(c) : "no answer";
	snprintf(buf, len, "%s", *m ? m : "unknown error");
	/* one line: libpq's messages end in a newline and may hold more */
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return buf;
}

void fleet_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

PGconn *fleet_connect(const char *dsn, char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(dsn);
	char why[300];

	if (!c) {
		util_fail(err, errlen, -1, "out of memory");
		return NULL;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		util_fail(err, errlen, -1, "cannot connect to the database: %s",
			  fleet_pg_error(NULL, c, why, sizeof why));
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, fleet_quiet, NULL);
	return c;
}

/* Run sql (no parameters, no rows wanted): 0, or -1 with err; *state
 * gets the SQLSTATE of a failure ("" when none came). */
static int fleet_exec(PGconn *c, const char *sql, char state[6], char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	char why[300];
	int ok = r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);

	state[0] = '\0';
	if (!ok) {
		const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
		snprintf(state, 6, "%s", s ? s : "");
		util_fail(err, errlen, -1, "%s", fleet_pg_error(r, c, why, sizeof why));
	}
	PQclear(r);
	return ok ? 0 : -1;
}

int fleet_schema_version(PGconn *c, int *version, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, "SELECT to_regclass('provisor_schema') IS NOT NULL");
	char why[300];
	int there;

	if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		util_fail(err, errlen, -1, "%s", fleet_pg_error(r, c, why, sizeof why));
		PQclear(r);
		return -1;
	}
	there = PQgetvalue(r, 0, 0)[0] == 't';
	PQclear(r);
	*version = 0;
	if (!there)
		return 0;
	r = PQexec(c, FLEET_SQL_VERSION);
	if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		util_fail(err, errlen, -1, "%s", fleet_pg_error(r, c, why, sizeof why));
		PQclear(r);
		return -1;
	}
	*version = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}

/* Apply migration m in one transaction with its record. 0, 1 when
 * another init applied it first (the caller reads the version again),
 * or -1 with err. */
static int fleet_apply(PGconn *c, const struct fleet_migration *m, char *err, size_t errlen)
{
	char state[6], rec[200], why[300], ignore[6];

	snprintf(rec, sizeof rec, "INSERT INTO provisor_schema (version, what) VALUES (%d, '%s')",
		 m->version, m->what);
	if (fleet_exec(c, "BEGIN", state, err, errlen) < 0)
		return -1;
	if (fleet_exec(c, rec, state, why, sizeof why) < 0 || fleet_exec(c, m->sql, state, why, sizeof why) < 0 ||
	    fleet_exec(c, "COMMIT", state, why, sizeof why) < 0) {
		fleet_exec(c, "ROLLBACK", ignore, NULL, 0);
		if (!strcmp(state, "23505"))	/* unique_violation: it was applied meanwhile */
			return 1;
		return util_fail(err, errlen, -1, "migration %d (%s): %s", m->version, m->what, why);
	}
	return 0;
}

int fleet_migrate(PGconn *c, int *from, int *to, char *err, size_t errlen)
{
	char state[6];
	int v, rc;

	if (fleet_exec(c, "CREATE TABLE IF NOT EXISTS provisor_schema ("
			  " version integer PRIMARY KEY,"
			  " applied_at timestamptz NOT NULL DEFAULT now(),"
			  " what text NOT NULL)", state, err, errlen) < 0 ||
	    fleet_schema_version(c, &v, err, errlen) < 0)
		return -1;
	*from = *to = v;
	if (v > FLEET_SCHEMA_VERSION)
		return util_fail(err, errlen, -1, "the database's fleet schema is version %d, newer than "
				 "this provisor knows (%d): left as it is", v, FLEET_SCHEMA_VERSION);
	for (size_t i = 0; i < FLEET_NMIGRATIONS; i++) {
		const struct fleet_migration *m = &fleet_migrations[i];
		if (m->version <= v)
			continue;
		if ((rc = fleet_apply(c, m, err, errlen)) < 0)
			return -1;
		v = m->version;
	}
	if (fleet_schema_version(c, to, err, errlen) < 0)
		return -1;
	return 0;
}
