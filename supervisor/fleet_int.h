/*
 * fleet_int.h: inside the supervisor's fleet node only (fleet.c,
 * fleet_conn.c, fleet_report.c); the rest of the supervisor sees
 * supervisor/fleet.h.
 *
 *   fleet_conn.c    libpq's asynchronous API on the io_uring loop: one
 *                   connection, one statement in flight, a poll on its
 *                   socket, deadlines and reconnection with backoff
 *   fleet.c         the node: its held jobs, what to ask next, the
 *                   answers' dispatch, a local job's end
 *   fleet_claim.c   beats (registration, renewals, lost leases) and
 *                   claims (a claimed job becomes a local one)
 *   fleet_report.c  a local job's end told to the database: its result
 *                   read back (proofs), completed, or the lease released
 */
#ifndef SUPERVISOR_FLEET_INT_H
#define SUPERVISOR_FLEET_INT_H

#include <libpq-fe.h>
#include <liburing.h>
#include <stdint.h>

#include "conf/conf.h"
#include "fleet/fjournal.h"
#include "fleet/fleet.h"
#include "supervisor/fleet.h"
#include "util/lathist.h"

/* Fleet jobs a node can track at once: those it runs, and those whose
 * end it has still to report (the database may be gone for a while). */
#define FLEET_MAX_HELD (2 * CONF_MAX_JOBS)

/* The statement in flight. */
enum fleet_q { FQ_NONE, FQ_VERSION, FQ_BEAT, FQ_CLAIM, FQ_COMPLETE, FQ_RELEASE };

/* A fleet job the node holds, from its claim to the database's answer to
 * its report. */
enum fleet_hstate {
	FH_FREE,
	FH_RUNNING,	/* its local job is queued or running */
	FH_ENDED,	/* its local job is done: its result file is to be read (proofs, checksum) */
	FH_READING,	/* being read (fleet_report.c) */
	FH_READY,	/* its report is ready to send */
	FH_SENT,	/* its report is the statement in flight */
};

/* How a held job ended, for its report. */
enum fleet_outcome { FO_NONE, FO_DONE, FO_FAILED, FO_RELEASE };

struct fleet_held {
	struct fjournal_claim c;	/* local 0: it never became a local job */
	uint8_t state;		/* enum fleet_hstate */
	uint8_t outcome;	/* enum fleet_outcome */
	uint8_t lost;		/* the database did not renew it: its report will be refused */
	uint8_t in_beat;	/* in the ids of the beat in flight */
	uint8_t has_digest;	/* digest is known (else read back with the proofs) */
	uint8_t digest[32];	/* the result file's checksum (over its header and digest table) */
	uint8_t *proofs;	/* proofs output: each partition's proof file, in order (malloc'd) */
	size_t proofs_len;
	char why[160];		/* failed or released: why */
};

/* Connection states (fleet_conn.c). */
enum fleet_cstate { FC_DOWN, FC_CONNECTING, FC_UP };

struct fleet {
	/* fleet_conn.c */
	PGconn *pg;
	enum fleet_cstate cstate;
	uint16_t cepoch;	/* the connection's incarnation: its poll's who */
	int poll_armed;
	unsigned poll_mask;
	int flush_pending;	/* PQflush said more is to be written */
	enum fleet_q inflight;
	PGresult *res;		/* the statement's result, as it comes */
	uint64_t sent_ns;	/* the statement in flight went out */
	uint64_t connect_ns;	/* the connection attempt began */
	uint64_t up_ns;		/* the connection came up (0: it is not up) */
	uint64_t retry_ns;	/* the next attempt, while down */
	uint64_t backoff_ms;
	uint64_t down_since_ns;	/* first failure of this outage (0: none) */
	uint32_t attempts;	/* failed attempts in this outage */
	int down_logged;	/* this outage was logged */
	char err[240];		/* the last failure, for the log */

	/* fleet.c */
	char node[CONF_FLEET_NODE_MAX], host[128], boot_id[40];
	double started_s;	/* Unix time the supervisor started */
	uint64_t hb_ms, lease_ms, claim_ms, timeout_ms, backoff_max_ms;
	uint32_t max_jobs;
	int version_ok;		/* the schema is there, at our version */
	int registered;		/* the last beat was accepted */
	uint64_t beat_wall_ns, beat_mono_ns;	/* then (0: never) */
	int refused_logged;	/* the name is taken: said once */
	int stopping;
	uint64_t next_beat_ns, next_claim_ns, next_try_ns;
	uint32_t claim_room;	/* what the claim in flight asked for */
	struct fjournal *fj;
	struct fleet_held held[FLEET_MAX_HELD];
	int sending;		/* the held entry whose report is in flight, -1 = none */
	int reading;		/* the held entry being read, -1 = none */
	int io_fd;		/* its file, while open */
	uint8_t *io_buf;	/* what is read: the proofs, then the checksum */
	struct { uint64_t off; uint32_t len, at; } io_seg[VOCAB_MAX_PARTS + 1];	/* at: into io_buf */
	uint32_t io_nseg, io_cur, io_have;	/* segments, the one being read, its bytes so far */
	uint64_t io_len;	/* io_buf's size */
	char io_name[40];

	/* Every libpq call is watched (fleet_conn.c): its wall time, and
	 * whether the thread gave the CPU up during it (a voluntary context
	 * switch: it waited), which no call may do. */
	uint64_t pq_calls, pq_max_ns, pq_waits;
	const char *pq_max_what, *pq_wait_what;
	/* And every step on the loop (fleet.h): how many, the longest, the
	 * longest of those not descheduled, how many waited or were. */
	uint64_t st_steps, st_max_ns, st_calm_max_ns, st_waited, st_desched;
	int st_depth;		/* a step inside a step (a job's end in a report) counts once */
	uint64_t st_t0;
	long st_vol0, st_invol0;
	struct __kernel_timespec timer_ts;

	/* figures, logged at the end (and read by bench/fleet.sh) */
	uint64_t n_stmt, n_beat, n_claim, n_complete, n_release;
	uint64_t n_claimed, n_completed, n_repeat, n_refused, n_lost, n_put_back, n_connects;
	struct lathist claim_lat;
};

/* fleet_conn.c */
/* Start connecting, if down and due. */
void fconn_tick(struct sup *s, uint64_t now);
/* Send sql with n text params as statement q: 0, or -1 (the connection
 * is dropped and will be retried). */
int fconn_send(struct sup *s, enum fleet_q q, const char *sql, int n, const char *const *params);
void fconn_on_poll(struct sup *s, uint32_t who, int res);
/* Drop the connection (why: logged, once per outage). */
void fconn_drop(struct sup *s, const char *why);
/* Drop it without calling it an outage; a new one in ms. */
void fconn_retry(struct sup *s, uint64_t ms);
void fconn_close(struct sup *s);
int fconn_idle(const struct fleet *f);

/* The thread's voluntary and involuntary context switches so far. */
void fleet_csw(long *vol, long *invol);

/* fleet.c: what fleet_conn.c calls */
void fleet_on_up(struct sup *s);
void fleet_on_result(struct sup *s, enum fleet_q q, PGresult *r);
/* The statement q was lost with the connection. */
void fleet_on_lost(struct sup *s, enum fleet_q q);
/* Send the next statement due, if none is in flight. */
void fleet_kick(struct sup *s);
struct fleet_held *fleet_held_new(struct fleet *f);
void fleet_held_free(struct fleet_held *h);
struct fleet_held *fleet_find(struct fleet *f, uint64_t id, uint32_t epoch);
/* Held jobs whose local job runs (what max_jobs bounds). */
uint32_t fleet_running(const struct fleet *f);
/* The job table's entry of local job id, or -1. */
int fleet_job_index(const struct sup *s, uint64_t id);

/* fleet_claim.c */
void fleet_send_beat(struct sup *s);
void fleet_on_beat(struct sup *s, PGresult *r);
/* Claim up to room jobs. */
void fleet_send_claim(struct sup *s, uint32_t room);
void fleet_on_claim(struct sup *s, PGresult *r);

/* fleet_report.c */
/* Start reading the result of an FH_ENDED entry, if no read is under way. */
void freport_read_next(struct sup *s);
void freport_on_io(struct sup *s, uint32_t who, int res);
/* Send the report of an FH_READY entry: 1 if one went. */
int freport_send(struct sup *s);
void freport_on_result(struct sup *s, enum fleet_q q, PGresult *r);
/* Its statement was lost: it goes again. */
void freport_on_lost(struct sup *s);

#endif
