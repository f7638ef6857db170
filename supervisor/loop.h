/*
 * loop: the supervisor's one event loop, a thin layer over io_uring.
 *
 * Every operation the supervisor starts is an SQE whose user_data names
 * what it was for: a small typed tag (what) and the index of the object it
 * belongs to (who), packed by loop_ud() and unpacked by loop_what() /
 * loop_who(). loop_run() waits for completions and hands each to the one
 * dispatch function the supervisor gives it, then, once the batch is
 * dispatched, calls the after hook (the scheduler: one decision per
 * iteration, seeing every change of it). Submission never fails for want
 * of SQEs: a full queue is flushed first.
 */
#ifndef SUPERVISOR_LOOP_H
#define SUPERVISOR_LOOP_H

#include <liburing.h>
#include <stdint.h>

/* The kernel fills a read's buffer when the operation completes, out of
 * memcheck's sight: a completion handler marks the bytes it got as
 * defined, so that valgrind checks the supervisor without false reports.
 * Natively this is a few no-op instructions. */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define loop_got(buf, n) ((void)VALGRIND_MAKE_MEM_DEFINED((buf), (n)))
#endif
#endif
#ifndef loop_got
#define loop_got(buf, n) ((void)(buf), (void)(n))
#endif

enum loop_what {
	EV_SIGNAL = 1,		/* read on the signalfd */
	EV_TICK,		/* the periodic timeout */
	EV_ACCEPT,		/* accept on the control socket */
	EV_CONN_READ,		/* who = connection */
	EV_CONN_WRITE,
	EV_CONN_TIMEOUT,	/* linked timeout of a connection read */
	EV_CHILD_EXIT,		/* poll on a child's pidfd; who = child */
	EV_CHILD_READ,		/* read from a child's stdout */
	EV_CHILD_WRITE,		/* write to a child's stdin */
	EV_CHILD_SPLICE,	/* relay splice; who = the source synth */
	EV_STORE,		/* a job's result file (results.c); who = job, epoch, op */
	EV_IGNORE,		/* cancellations and the like */
};

static inline uint64_t loop_ud(enum loop_what what, uint32_t who)
{
	return (uint64_t)what << 32 | who;
}
static inline enum loop_what loop_what(uint64_t ud) { return (enum loop_what)(ud >> 32); }
static inline uint32_t loop_who(uint64_t ud) { return (uint32_t)ud; }

typedef void (*loop_fn)(void *ctx, uint64_t ud, int res);
typedef void (*loop_after_fn)(void *ctx);

struct loop {
	struct io_uring ring;
	int stop;
	loop_after_fn after;	/* set after loop_init; NULL = none */
};

int loop_init(struct loop *l, unsigned entries);
void loop_exit(struct loop *l);
/* An SQE to fill, never NULL (flushes the queue when it is full). */
struct io_uring_sqe *loop_sqe(struct loop *l, uint64_t ud);
/* Hand the queued SQEs to the kernel now. Call it before closing an fd
 * that queued SQEs may name: once submitted they hold the file, but an
 * unsubmitted one would find the number closed (EBADF) or, worse, reused. */
void loop_flush(struct loop *l);
/* Run until l->stop is set, calling fn for every completion and then
 * l->after (unless stopping) once per batch. Returns 0 or -errno when
 * waiting itself failed. */
int loop_run(struct loop *l, loop_fn fn, void *ctx);

#endif
