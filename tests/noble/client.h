/*
 * noble client: drives tests/noble/oracle.mjs (@noble/curves under node)
 * from a C test, one request line out, one answer line back. The protocol
 * and its operations are described at the top of oracle.mjs.
 *
 * The oracle is a child process on two pipes; noble_stop() (also run at
 * exit for every client still open) closes its stdin, which ends it, and
 * reaps it, so no process outlives the test. SIGPIPE is ignored from
 * noble_start() on, so that an oracle that died reads as an error here.
 */
#ifndef TESTS_NOBLE_CLIENT_H
#define TESTS_NOBLE_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct noble {
	pid_t pid;
	int to, from;		/* the oracle's stdin and stdout */
	char *buf;		/* read buffer: the answer, then what follows */
	size_t cap, len;
	size_t line_len;	/* the last answer's length, its '\n' included */
	char version[128];	/* "@noble/curves X node vY", from the handshake */
	struct noble *next;	/* the clients still open, for the exit hook */
};

#define NOBLE_SKIP_REASON "noble not installed: run make deps"

/* Starts the oracle and checks it answers. The oracle's folder is
 * $PROVISOR_NOBLE_DIR, else tests/noble beside the test binary's
 * bin/tests/.., else tests/noble under the current directory.
 * Returns 0; -ENOENT when node or the oracle's node_modules is missing
 * (the caller skips: NOBLE_SKIP_REASON); another -errno otherwise. A
 * reason goes to why either way. */
int noble_start(struct noble *n, char *why, size_t whylen);

/* Sends one request (printf format; no newline) and returns the answer
 * without its newline, valid until the next call. NULL when the oracle
 * could not be reached or did not answer (a reason on stderr). */
const char *noble_call(struct noble *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ends the oracle and reaps it; its exit status as waitpid gives it, or
 * -1. Safe to call twice. */
int noble_stop(struct noble *n);

/* Lower-case hex of b[0..len) into out (2 len + 1 bytes); returns out. */
char *noble_hex(char *out, const uint8_t *b, size_t len);
/* Exactly len bytes from the hex string s: 0, or -1 (wrong length, not hex). */
int noble_unhex(uint8_t *out, size_t len, const char *s);

#endif
