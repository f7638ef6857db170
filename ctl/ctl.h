/*
 * ctl: the control socket's protocol, for the supervisor (parse requests,
 * format replies) and for the CLI (connect, send, read the reply).
 *
 * A request is one line of at most CTL_MAX_LINE bytes including the '\n',
 * words separated by single spaces, printable ASCII only:
 *   ping
 *   hello                             (reply: ok NAME PID)
 *   submit KIND [seed=HEX] [k=N] [partitions=N]
 *   cancel JOB
 *   retry JOB                         (reply: ok JOB RESULT-PATH)
 *   drain                             (take no new jobs; stay up)
 *   resume                            (take jobs again after a drain)
 *   stop
 *   worker enable|disable SLOT        (SLOT: gpu.N or synth.N)
 * A reply is one line: "ok[ VALUE...]" or "err REASON". A malformed,
 * oversized or unknown request gets "err ..." and changes nothing.
 * A connection may carry several requests, answered in order; the
 * supervisor closes it after an oversized request, 5 s into a request
 * that has not arrived whole, and after 60 s without a request
 * (docs/security.md). ctl_call sends one and closes; ctl_open,
 * ctl_request and ctl_close keep one connection for many.
 */
#ifndef CTL_CTL_H
#define CTL_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/vocab.h"

#define CTL_MAX_LINE 512

enum ctl_op {
	CTL_PING = 1,
	CTL_SUBMIT,
	CTL_CANCEL,
	CTL_DRAIN,
	CTL_STOP,
	CTL_WORKER_ENABLE,
	CTL_WORKER_DISABLE,
	CTL_HELLO,
	CTL_RESUME,
	CTL_RETRY,
};

struct ctl_req {
	enum ctl_op op;
	/* submit: 0 for a field means "not given: use the kind's default" */
	uint32_t kind;		/* enum vocab_kind */
	uint32_t seed_len;	/* 0 = none given: the supervisor picks one */
	uint8_t seed[32];
	uint32_t log_size;
	uint32_t partitions;
	/* cancel, retry */
	uint64_t job;
	/* worker enable/disable */
	uint32_t slot_table;	/* SHM_T_GPU or SHM_T_SYNTH */
	uint32_t slot;
};

/* Parse one request line (without or with its trailing '\n'; len excludes
 * any NUL). 0, or -EINVAL with one reason in err. Checks syntax and ranges
 * it can know (kind names, hex, k in 3..27, partitions in 1..64); the
 * supervisor checks its own limits. */
int ctl_parse(const char *line, size_t len, struct ctl_req *req, char *err, size_t errlen);
/* Format a request as its line (with '\n'); returns its length or -1. */
int ctl_format(const struct ctl_req *req, char *buf, size_t buflen);

/* Client: connect to the socket at path, send line, read one reply line
 * into reply (without '\n'), waiting at most timeout_ms. 0 when the reply
 * starts with "ok", 1 when with "err", -errno on failure (err says why). */
int ctl_call(const char *path, const char *line, char *reply, size_t replylen,
	     int timeout_ms, char *err, size_t errlen);

/* One connection kept open for several requests, one at a time. */
struct ctl_conn {
	int fd;			/* -1 = closed */
};

/* Who serves the socket a client reached (SO_PEERCRED). */
struct ctl_peer {
	pid_t pid;
	uid_t uid;
};
/* A client's judgment of that peer, made after connect and before a byte
 * is sent: 0 to go on, or -errno with one line in err. */
typedef int (*ctl_vet_fn)(const struct ctl_peer *peer, void *arg, char *err, size_t errlen);
/* ctl_call, with vet (may be NULL) asked about the peer first. */
int ctl_call_vet(const char *path, const char *line, char *reply, size_t replylen,
		 int timeout_ms, ctl_vet_fn vet, void *arg, char *err, size_t errlen);

/* Connect within timeout_ms, vet (may be NULL) asked about the peer
 * first: 0, or -errno with err. */
int ctl_open(struct ctl_conn *c, const char *path, int timeout_ms, ctl_vet_fn vet, void *arg,
	     char *err, size_t errlen);
/* One request on an open connection and its reply, within timeout_ms:
 * as ctl_call (0 ok, 1 err, -errno). After a failure (< 0) the
 * connection is of no further use: close it. */
int ctl_request(struct ctl_conn *c, const char *line, char *reply, size_t replylen,
		int timeout_ms, char *err, size_t errlen);
void ctl_close(struct ctl_conn *c);

#endif
