/*
 * admin: what the commands ask the database (submit --fleet, result
 * --fleet, status --fleet), blocking, with libpq's synchronous calls:
 * a command has nothing else to do while it waits. Parameters go as
 * text, byte strings as hex; every failure is one line in err. The
 * status queries and their rows' parsing are shared with top --fleet,
 * which sends the same statements without waiting (fleet/watch.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "util/util.h"
#include "util/vocab.h"

void fleet_hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

char *fleet_bytea_param(const uint8_t *b, size_t n)
{
	char *p = malloc(2 * n + 3);

	if (!p)
		return NULL;
	p[0] = '\\';
	p[1] = 'x';
	fleet_hex(p + 2, b, n);
	return p;
}

int fleet_unhex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = util_hexval(s[2 * i]), lo = util_hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

const char *fleet_node_state(double age_ms, double heartbeat_ms, double lease_ms)
{
	if (age_ms <= 2 * heartbeat_ms)
		return "alive";
	return age_ms <= lease_ms ? "stale" : "dead";
}

/* A query with text parameters that must return rows: the result, or
 * NULL with err. */
static PGresult *fleet_rows(PGconn *c, const char *sql, int n, const char *const *params, char *err,
			    size_t errlen)
{
	PGresult *r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
	char why[300];

	if (r && PQresultStatus(r) == PGRES_TUPLES_OK)
		return r;
	util_fail(err, errlen, -1, "%s", fleet_pg_error(r, c, why, sizeof why));
	PQclear(r);
	return NULL;
}

int fleet_admin_submit(PGconn *c, const struct fleet_submit *j, uint64_t *id, char *err, size_t errlen)
{
	char k[12], parts[12], prio[12], dl[24], seed[65];
	const char *p[7] = { vocab_kind_name(j->kind), k, parts, seed, prio, j->deadline_s >= 0 ? dl : NULL,
			     j->output ? j->output : "any" };
	PGresult *r;

	if (!p[0])
		return util_fail(err, errlen, -EINVAL, "unknown job kind %u", j->kind);
	snprintf(k, sizeof k, "%u", j->log_size);
	snprintf(parts, sizeof parts, "%u", j->partitions);
	snprintf(prio, sizeof prio, "%u", j->priority);
	snprintf(dl, sizeof dl, "%lld", (long long)j->deadline_s);
	fleet_hex(seed, j->seed, j->seed_len);
	if (!(r = fleet_rows(c, FLEET_SQL_SUBMIT, 7, p, err, errlen)))
		return -1;
	*id = PQntuples(r) == 1 ? strtoull(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	PQclear(r);
	return *id ? 0 : util_fail(err, errlen, -1, "the database returned no job id");
}

/* A text column into a fixed buffer ("" for NULL). */
static void fleet_col(const PGresult *r, int row, int col, char *out, size_t len)
{
	snprintf(out, len, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

int fleet_admin_result(PGconn *c, uint64_t id, struct fleet_result *res, char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT j.state, j.kind, j.log_size, j.partitions, encode(j.seed, 'hex'), j.why, j.owner,"
		" r.node, r.output, r.proofs, encode(r.h_digest, 'hex'), r.location, j.epoch"
		" FROM provisor_jobs j LEFT JOIN provisor_results r ON r.job_id = j.id WHERE j.id = $1::bigint";
	char ids[24], hex[80];
	const char *p[1] = { ids };
	PGresult *r;
	size_t n;

	memset(res, 0, sizeof *res);
	snprintf(ids, sizeof ids, "%llu", (unsigned long long)id);
	if (!(r = fleet_rows(c, sql, 1, p, err, errlen)))
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return util_fail(err, errlen, -ENOENT, "no job %llu in the fleet's queue", (unsigned long long)id);
	}
	fleet_col(r, 0, 0, res->state, sizeof res->state);
	fleet_col(r, 0, 1, res->kind, sizeof res->kind);
	res->log_size = (uint32_t)atoi(PQgetvalue(r, 0, 2));
	res->partitions = (uint32_t)atoi(PQgetvalue(r, 0, 3));
	if (fleet_unhex(PQgetvalue(r, 0, 4), res->seed, sizeof res->seed, &n) == 0)
		res->seed_len = (uint32_t)n;
	fleet_col(r, 0, 5, res->why, sizeof res->why);
	fleet_col(r, 0, 6, res->owner, sizeof res->owner);
	fleet_col(r, 0, 7, res->node, sizeof res->node);
	fleet_col(r, 0, 8, res->output, sizeof res->output);
	if (!PQgetisnull(r, 0, 9)) {
		unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 9), &n);
		if (!b || !(res->proofs = malloc(n ? n : 1))) {
			PQfreemem(b);
			PQclear(r);
			return util_fail(err, errlen, -ENOMEM, "out of memory reading the proofs");
		}
		memcpy(res->proofs, b, n);
		res->proofs_len = n;
		PQfreemem(b);
	}
	fleet_col(r, 0, 10, hex, sizeof hex);
	if (hex[0])
		fleet_unhex(hex, res->h_digest, sizeof res->h_digest, &n);
	fleet_col(r, 0, 11, res->location, sizeof res->location);
	res->epoch = (uint32_t)atoi(PQgetvalue(r, 0, 12));
	PQclear(r);
	return 0;
}

void fleet_result_free(struct fleet_result *r)
{
	free(r->proofs);
	r->proofs = NULL;
}

const char FLEET_SQL_STATUS_NODES[] =
	"SELECT n.name, n.host, n.backend, extract(epoch FROM now() - n.last_seen) * 1000,"
	" n.heartbeat_ms, n.lease_ms, n.gpu_slots, n.gpu_busy, n.synth_slots, n.synth_busy,"
	" n.max_jobs, n.held, n.local_jobs, n.loop_max_us, n.kinds,"
	" (SELECT count(*) FROM provisor_jobs j WHERE j.state = 'running' AND j.owner = n.name),"
	" (SELECT count(*) FROM provisor_results r WHERE r.node = n.name), n.stopping"
	" FROM provisor_nodes n ORDER BY n.name";

const char FLEET_SQL_STATUS_QUEUE[] =
	"SELECT kind, sum(CASE WHEN state = 'queued' THEN 1 ELSE 0 END),"
	" sum(CASE WHEN state = 'running' THEN 1 ELSE 0 END),"
	" sum(CASE WHEN state = 'done' THEN 1 ELSE 0 END),"
	" sum(CASE WHEN state = 'failed' THEN 1 ELSE 0 END),"
	" sum(CASE WHEN state = 'running' AND lease_until < now() THEN 1 ELSE 0 END)"
	" FROM provisor_jobs GROUP BY kind ORDER BY kind";

int fleet_status_nodes_rows(const PGresult *r, struct fleet_status *st, char *err, size_t errlen)
{
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 18)
		return util_fail(err, errlen, -EPROTO, "the database's node rows are not what was asked for");
	st->nnodes = (size_t)PQntuples(r);
	st->nodes = calloc(st->nnodes ? st->nnodes : 1, sizeof *st->nodes);
	if (!st->nodes) {
		st->nnodes = 0;
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < st->nnodes; i++) {
		struct fleet_node_row *n = &st->nodes[i];
		int row = (int)i;
		fleet_col(r, row, 0, n->name, sizeof n->name);
		fleet_col(r, row, 1, n->host, sizeof n->host);
		fleet_col(r, row, 2, n->backend, sizeof n->backend);
		double age = atof(PQgetvalue(r, row, 3));
		n->age_s = age / 1000;
		snprintf(n->state, sizeof n->state, "%s", PQgetvalue(r, row, 17)[0] == 't' && age <= atof(PQgetvalue(r, row, 5)) ?
			 "stopping" : fleet_node_state(age, atof(PQgetvalue(r, row, 4)), atof(PQgetvalue(r, row, 5))));
		n->gpu_slots = atoi(PQgetvalue(r, row, 6));
		n->gpu_busy = atoi(PQgetvalue(r, row, 7));
		n->synth_slots = atoi(PQgetvalue(r, row, 8));
		n->synth_busy = atoi(PQgetvalue(r, row, 9));
		n->max_jobs = atoi(PQgetvalue(r, row, 10));
		n->held = atoi(PQgetvalue(r, row, 11));
		n->local_jobs = atoi(PQgetvalue(r, row, 12));
		n->loop_max_us = atoll(PQgetvalue(r, row, 13));
		fleet_col(r, row, 14, n->kinds, sizeof n->kinds);
		n->running = atoll(PQgetvalue(r, row, 15));
		n->done = atoll(PQgetvalue(r, row, 16));
	}
	return 0;
}

int fleet_status_queue_rows(const PGresult *r, struct fleet_status *st, char *err, size_t errlen)
{
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 6)
		return util_fail(err, errlen, -EPROTO, "the database's queue rows are not what was asked for");
	for (int row = 0; row < PQntuples(r) && st->nkinds < sizeof st->kinds / sizeof st->kinds[0]; row++) {
		struct fleet_kind_row *k = &st->kinds[st->nkinds++];
		fleet_col(r, row, 0, k->kind, sizeof k->kind);
		k->queued = atoll(PQgetvalue(r, row, 1));
		k->running = atoll(PQgetvalue(r, row, 2));
		k->done = atoll(PQgetvalue(r, row, 3));
		k->failed = atoll(PQgetvalue(r, row, 4));
		st->expired += atoll(PQgetvalue(r, row, 5));
	}
	return 0;
}

size_t fleet_status_by_kind(const struct fleet_status *st, struct fleet_kind_row *out, size_t max)
{
	size_t n = 0;
	uint32_t k;

	for (k = 1; k <= VOCAB_NKINDS && n < max; k++, n++) {
		memset(&out[n], 0, sizeof out[n]);
		snprintf(out[n].kind, sizeof out[n].kind, "%s", vocab_kind_name(k));
		for (size_t i = 0; i < st->nkinds; i++)
			if (!strcmp(st->kinds[i].kind, out[n].kind))
				out[n] = st->kinds[i];
	}
	for (size_t i = 0; i < st->nkinds && n < max; i++)
		if (vocab_kind_parse(st->kinds[i].kind, &k) < 0)
			out[n++] = st->kinds[i];
	return n;
}

/* One of the two status queries, its rows into st by rows(). */
static int fleet_status_one(PGconn *c, const char *sql,
			    int (*rows)(const PGresult *, struct fleet_status *, char *, size_t),
			    struct fleet_status *st, char *err, size_t errlen)
{
	PGresult *r = fleet_rows(c, sql, 0, NULL, err, errlen);
	int rc;

	if (!r)
		return -1;
	rc = rows(r, st, err, errlen);
	PQclear(r);
	return rc;
}

int fleet_admin_status(PGconn *c, struct fleet_status *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	if (fleet_status_one(c, FLEET_SQL_STATUS_NODES, fleet_status_nodes_rows, st, err, errlen) < 0 ||
	    fleet_status_one(c, FLEET_SQL_STATUS_QUEUE, fleet_status_queue_rows, st, err, errlen) < 0) {
		fleet_status_free(st);
		return -1;
	}
	return 0;
}

void fleet_status_free(struct fleet_status *st)
{
	free(st->nodes);
	st->nodes = NULL;
	st->nnodes = 0;
}
