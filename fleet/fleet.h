/*
 * fleet: many supervisors on one queue in a PostgreSQL-compatible
 * database (docs/fleet.md). This library holds what the supervisor and
 * the commands share: the schema and its migrations, the text of every
 * statement a node sends (so that one file says what the database is
 * asked), and the blocking operations of the commands (fleet init,
 * submit --fleet, result --fleet, status --fleet).
 *
 * Design: the database is the authority. A job row carries its owner, a
 * lease expiry and an epoch bumped at every claim; each statement a node
 * sends is one statement (one implicit transaction) whose conditions
 * name the epoch it holds, so that a node that lost its lease can neither
 * renew, release nor complete the job: the database refuses it, whatever
 * the node believes. Times are the database's (now()), never a node's
 * clock. Every parameter is sent as text, byte strings as hex.
 *
 * The supervisor's side, which drives libpq's asynchronous API from its
 * io_uring loop, is supervisor/fleet*.c; this library never blocks a
 * caller that did not ask for it (only fleet_admin_* and fleet_migrate
 * wait for the database, and only the commands call them).
 */
#ifndef FLEET_FLEET_H
#define FLEET_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

/* The schema version this build creates and needs (provisor_schema). */
#define FLEET_SCHEMA_VERSION 1

/* The statements a node sends, with their parameters ($n, all text):
 *
 * FLEET_SQL_BEAT: registration and heartbeat in one. Upserts the node's
 *   row (refused, no row back, while another live node holds the name
 *   from another host or state directory), renews the leases it holds
 *   ($20 ids, $21 epochs: arrays), and puts back in the queue any job
 *   the database says it owns that it does not hold (a claim whose answer
 *   was lost with the connection). Rows: (0, NULL, NULL) when registered,
 *   (1, id, epoch) per lease renewed, (2, id, epoch) per job put back.
 *   $1 name $2 host $3 state_dir $4 boot_id $5 pid $6 started (Unix
 *   seconds) $7 heartbeat_ms $8 lease_ms $9 backend $10 gpu_slots
 *   $11 gpu_busy $12 synth_slots $13 synth_busy $14 kinds $15 params
 *   $16 max_jobs $17 held $18 local_jobs $19 loop_max_us $20 ids
 *   $21 epochs $22 stopping
 * FLEET_SQL_CLAIM: up to $5 jobs this node can run (its kinds, each with
 *   its range of k and its output: a job that asks for proofs only where
 *   the kind has params), in priority, then deadline, then id order,
 *   SELECT ... FOR UPDATE SKIP LOCKED, queued ones and (when $6) ones
 *   whose lease expired; each gets owner $1, a lease of $7 ms, its epoch
 *   + 1 and a row in provisor_leases (the lease before it, if any, is
 *   ended there as expired). Rows: id, epoch, kind, log_size,
 *   partitions, seed (hex).
 *   $1 node $2 kinds (text[]) $3 kmin (int[]) $4 kmax (int[]) $5 limit
 *   $6 take expired leases (bool) $7 lease_ms $8 outputs (text[]:
 *   'proofs' or 'h' per kind)
 * FLEET_SQL_COMPLETE: the job done, its result stored and its lease
 *   ended, in one statement, only while ($1, $2) is still $3's lease.
 *   One row: (done, already): 1, 0 completed now; 0, 1 completed
 *   before by this very lease (a repeat: ok); 0, 0 refused (the lease
 *   was lost; its history row gets late_at).
 *   $1 id $2 epoch $3 node $4 output ('proofs' or 'h') $5 proofs (hex or
 *   NULL) $6 h_digest (hex or NULL) $7 location (or NULL)
 * FLEET_SQL_RELEASE: the lease given back: queued again, or failed once
 *   $4 (a failure) brings failures to max_failures. One row with the
 *   job's new state, or none (the lease was not $3's any more).
 *   $1 id $2 epoch $3 node $4 failed (bool) $5 why
 * FLEET_SQL_VERSION: one row, the schema version (0: none).
 */
extern const char FLEET_SQL_BEAT[];
extern const char FLEET_SQL_CLAIM[];
extern const char FLEET_SQL_COMPLETE[];
extern const char FLEET_SQL_RELEASE[];
extern const char FLEET_SQL_VERSION[];
#define FLEET_BEAT_NPARAMS 22
#define FLEET_CLAIM_NPARAMS 8
#define FLEET_COMPLETE_NPARAMS 7
#define FLEET_RELEASE_NPARAMS 5

/* The SQL an operator (or another program) runs to queue a job, the same
 * that submit --fleet sends: $1 kind $2 log_size $3 partitions $4 seed
 * (hex) $5 priority $6 seconds to its deadline (or NULL) $7 output
 * ('any', or 'proofs' or 'h': only a node whose kind ends so takes it).
 * One row: id. */
extern const char FLEET_SQL_SUBMIT[];

/* A notice processor that drops the server's notices ("relation ...
 * already exists, skipping"): libpq's default prints them on stderr. */
void fleet_quiet(void *arg, const char *message);
/* Connect, blocking (the commands): NULL with one line in err. */
PGconn *fleet_connect(const char *dsn, char *err, size_t errlen);

/* Bring the schema to FLEET_SCHEMA_VERSION, one migration per
 * transaction, each recorded in provisor_schema: *from and *to say what
 * was there and what is now. 0, or -1 with one line in err (a schema
 * newer than this build knows is refused, not touched). */
int fleet_migrate(PGconn *c, int *from, int *to, char *err, size_t errlen);
/* The schema version there (0: none): 0, or -1 with err. */
int fleet_schema_version(PGconn *c, int *version, char *err, size_t errlen);

/* One job to queue (submit --fleet). */
struct fleet_submit {
	uint32_t kind;		/* enum vocab_kind */
	uint32_t log_size, partitions, priority;
	uint8_t seed[32];
	uint32_t seed_len;
	int64_t deadline_s;	/* seconds from now; < 0: none */
	const char *output;	/* "any" (NULL), "proofs" or "h" */
};
int fleet_admin_submit(PGconn *c, const struct fleet_submit *j, uint64_t *id, char *err, size_t errlen);

/* A job and its result (result --fleet). Strings are NUL-terminated. */
struct fleet_result {
	char state[16];		/* queued, running, done, failed */
	char kind[16];
	uint32_t log_size, partitions, epoch;
	uint8_t seed[32];
	uint32_t seed_len;
	char why[256];
	char owner[64];		/* running: who holds it */
	char node[64];		/* done: who completed it */
	char output[8];		/* done: proofs or h */
	uint8_t h_digest[32];
	char location[512];	/* done, h: NODE:PATH of its result file */
	uint8_t *proofs;	/* done, proofs: the proofs file, malloc'd */
	size_t proofs_len;
};
/* 0, -ENOENT (no such job, err says so), or -1 with err. */
int fleet_admin_result(PGconn *c, uint64_t id, struct fleet_result *r, char *err, size_t errlen);
void fleet_result_free(struct fleet_result *r);

/* Every node's line, the queue per kind, and the jobs per node, as the
 * rows of status --fleet: see fleet_admin_status's callers. */
struct fleet_node_row {
	char name[64], host[128], backend[16], state[12];	/* alive, stale, dead or stopping */
	double age_s;		/* since its last heartbeat */
	int gpu_slots, gpu_busy, synth_slots, synth_busy, max_jobs, held, local_jobs;
	long long loop_max_us, running, done;
	char kinds[256];
};
struct fleet_kind_row {
	char kind[16];
	long long queued, running, done, failed;
};
struct fleet_status {
	struct fleet_node_row *nodes;
	size_t nnodes;
	struct fleet_kind_row kinds[8];
	size_t nkinds;
	long long expired;	/* running jobs whose lease has expired (a node died) */
};
int fleet_admin_status(PGconn *c, struct fleet_status *st, char *err, size_t errlen);
void fleet_status_free(struct fleet_status *st);

/* The two queries of a fleet's status, and what their rows become, for
 * status --fleet (fleet_admin_status, blocking) and top --fleet (the
 * same statements sent without waiting, fleet/watch.c): every node with
 * its state by the database's clock, its slots, the jobs it holds and
 * its results; the jobs per kind and state. Neither takes a parameter.
 * The rows' functions fill a zeroed st (free it with fleet_status_free):
 * 0, or -1 with err when the result is not those rows. */
extern const char FLEET_SQL_STATUS_NODES[];
extern const char FLEET_SQL_STATUS_QUEUE[];
int fleet_status_nodes_rows(const PGresult *r, struct fleet_status *st, char *err, size_t errlen);
int fleet_status_queue_rows(const PGresult *r, struct fleet_status *st, char *err, size_t errlen);
/* The queue as the views show it: every kind this build knows, in its
 * order (0 where the database has none of it), then any other kind the
 * database holds. At most max rows into out; returns how many. */
size_t fleet_status_by_kind(const struct fleet_status *st, struct fleet_kind_row *out, size_t max);

/* The same status read without waiting, for a view that must keep
 * answering its keys (top --fleet; fleet/watch.c says how). The caller
 * polls fleet_watch_pollfd's socket for its events (when it gives one)
 * beside whatever else it waits for, until the refresh's deadline, and
 * calls fleet_watch_step after each wait: ready when the socket fired. */
enum fleet_watch_phase { FLEET_WATCH_IDLE, FLEET_WATCH_CONNECTING, FLEET_WATCH_READING };
enum fleet_watch_rc { FLEET_WATCH_FAILED = -1, FLEET_WATCH_BUSY = 0, FLEET_WATCH_DONE = 1 };
struct fleet_watch {
	const char *dsn;	/* the caller's */
	char *sql;		/* "SET statement_timeout ...; nodes; queue" */
	uint64_t timeout_ms, deadline_ms;
	PGconn *pg;		/* kept between refreshes while it serves */
	int phase;		/* enum fleet_watch_phase */
	short events;		/* connecting: what PQconnectPoll asked for */
	int flushing;		/* PQflush has more to send */
	int nres, bad;		/* results read; one of them was an error */
	struct fleet_status st;	/* being filled */
	char err[300];		/* why the last refresh failed, one line */
};
/* Check dsn (a bad one: -EINVAL with one line in err) and get ready; a
 * refresh may take timeout_ms, on the database too (statement_timeout).
 * dsn must outlive w. */
int fleet_watch_init(struct fleet_watch *w, const char *dsn, uint64_t timeout_ms, char *err, size_t errlen);
/* Start a refresh at now_ms (monotonic): FLEET_WATCH_BUSY, or
 * FLEET_WATCH_FAILED with w->err (then nothing is in flight). */
int fleet_watch_begin(struct fleet_watch *w, uint64_t now_ms);
/* The socket to poll and its events, or -1: nothing in flight. */
int fleet_watch_pollfd(const struct fleet_watch *w, short *events);
/* One step, never waiting: FLEET_WATCH_BUSY (poll again, until the
 * deadline), FLEET_WATCH_DONE (*out holds the status: the caller frees
 * it with fleet_status_free), or FLEET_WATCH_FAILED (w->err says why;
 * past the deadline it is "no connection within" or "no answer within"). */
int fleet_watch_step(struct fleet_watch *w, uint64_t now_ms, int ready, struct fleet_status *out);
void fleet_watch_fini(struct fleet_watch *w);
/* Where dsn points, for showing: its dbname, host, hostaddr, port and
 * user, as key=value, and never anything else it holds (a password). */
void fleet_watch_where(const char *dsn, char *out, size_t len);

/* A node's state from its heartbeat's age: alive within two heartbeat
 * intervals, stale until its lease length, dead after. */
const char *fleet_node_state(double age_ms, double heartbeat_ms, double lease_ms);

/* Hex of n bytes into out (2n + 1 bytes): the text form of a bytea
 * parameter is "\x" then this (fleet_bytea_param). */
void fleet_hex(char *out, const uint8_t *b, size_t n);
/* "\x" + hex of b, malloc'd (NULL when out of memory). */
char *fleet_bytea_param(const uint8_t *b, size_t n);
/* Hex text (no prefix) into at most max bytes: 0 and *len, or -1. */
int fleet_unhex(const char *s, uint8_t *out, size_t max, size_t *len);

/* The error of a failed result in one line (libpq's has newlines). */
const char *fleet_pg_error(const PGresult *r, const PGconn *c, char *buf, size_t len);

#endif
