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
 *
 * Every iteration is timed (CLOCK_MONOTONIC, from the wait's return to the
 * end of the after hook) and so is each completion's dispatch, so that an
 * iteration knows what took it longest: struct loop_stats keeps the
 * histogram, the slow ones (over SHM_LOOP_SLOW_NS) and the last of them,
 * and the slow hook hears of each slow iteration as it ends.
 */
#ifndef SUPERVISOR_LOOP_H
#define SUPERVISOR_LOOP_H

#include <liburing.h>
#include <stddef.h>
#include <stdint.h>

#include "shm/layout.h"
#include "util/lathist.h"

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

/* What an operation was for. A new value needs a short name in loop.c's
 * loop_names (what a slow iteration is blamed on); one without a name is
 * shown as "op N". 0 is not an operation: LOOP_AFTER. */
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
	EV_JOURNAL_SYNC,	/* a submit's journal fdatasync; who = connection slot */
	EV_IGNORE,		/* cancellations and the like */
	EV_FLEET,		/* poll on the fleet database's socket; who = its connection's epoch */
	EV_FLEET_IO,		/* a fleet node's file operation (fleet_report.c); who = op */
	EV_FLEET_TIMER,		/* the fleet node's periodic work (fleet.c) */
};

static inline uint64_t loop_ud(enum loop_what what, uint32_t who)
{
	return (uint64_t)what << 32 | who;
}
static inline enum loop_what loop_what(uint64_t ud) { return (enum loop_what)(ud >> 32); }
static inline uint32_t loop_who(uint64_t ud) { return (uint32_t)ud; }

#define LOOP_AFTER 0u	/* a "what" for the after hook: named "schedule" */
#define LOOP_WHAT_NAME 16	/* room for a name, NUL included */

typedef void (*loop_fn)(void *ctx, uint64_t ud, int res);
typedef void (*loop_after_fn)(void *ctx);
/* A slow iteration just ended: ns long, its slowest step what (a name),
 * ncqe completions dispatched. */
typedef void (*loop_slow_fn)(void *ctx, uint64_t ns, const char *what, unsigned ncqe);

/* Since loop_init. */
struct loop_stats {
	struct lathist hist;	/* every iteration's duration: count, sum, max, p50, p99 */
	uint64_t le[SHM_LOOP_NBUCKETS];	/* the same in the segment's buckets (shm_loop_le_ns) */
	uint64_t slow_count;	/* iterations over SHM_LOOP_SLOW_NS */
	uint64_t slow_ns;	/* the last of them: duration, */
	uint64_t slow_mono_ns;	/* start (CLOCK_MONOTONIC), */
	char slow_what[LOOP_WHAT_NAME];	/* and its slowest step */
	char max_what[LOOP_WHAT_NAME];	/* the longest iteration's slowest step */
	uint64_t cpu_max_ns;	/* the most CPU time (the loop thread's) one iteration took: */
	char cpu_max_what[LOOP_WHAT_NAME];	/* its slowest step; wall time less any descheduling */
};

struct loop {
	struct io_uring ring;
	int stop;
	loop_after_fn after;	/* set after loop_init; NULL = none */
	loop_slow_fn slow;	/* likewise */
	struct loop_stats st;
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
/* The short name of a loop_what ("child read"), "schedule" for
 * LOOP_AFTER, "op N" for a value without a name (written into buf). */
const char *loop_what_name(uint32_t what, char *buf, size_t len);
/* Count one iteration of ns that started at start_ns, whose slowest
 * step was what (loop_run does; exposed for tests). 1 when it was slow. */
int loop_account(struct loop_stats *st, uint64_t ns, uint64_t start_ns, uint32_t what);
/* An iteration took cpu_ns of the loop thread's CPU time, its slowest
 * step what: kept when it is the most yet. */
void loop_account_cpu(struct loop_stats *st, uint64_t cpu_ns, uint32_t what);

#endif
