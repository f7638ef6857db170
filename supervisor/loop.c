/*
 * loop: see loop.h. Completions are drained in batches; each is handed to
 * the dispatcher, which may queue new SQEs, and after the batch the after
 * hook runs; what they queued goes to the kernel with the next wait, so one
 * io_uring_submit_and_wait per batch does all the system-call work.
 *
 * Timing: one clock read when the wait returns and one after each
 * dispatch and after the hook (vDSO, tens of nanoseconds each); the
 * difference of two reads is that step's time. The wait itself (and the
 * submission it does) is not part of an iteration. And the loop thread's
 * CPU clock at both ends of an iteration (a system call each, a few
 * hundred nanoseconds): an iteration's wall time counts whatever the
 * machine ran while the loop was descheduled, its CPU time only the
 * loop's own work, so the most CPU time one took bounds what the loop
 * makes anything wait where a core is free.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "supervisor/loop.h"

/* Names of what an iteration's time went to (loop.h: add one with a new
 * loop_what). */
static const char *const loop_names[] = {
	[LOOP_AFTER] = "schedule",
	[EV_SIGNAL] = "signal",
	[EV_TICK] = "tick",
	[EV_ACCEPT] = "accept",
	[EV_CONN_READ] = "control read",
	[EV_CONN_WRITE] = "control write",
	[EV_CONN_TIMEOUT] = "control timeout",
	[EV_CHILD_EXIT] = "child exit",
	[EV_CHILD_READ] = "child read",
	[EV_CHILD_WRITE] = "child write",
	[EV_CHILD_SPLICE] = "splice",
	[EV_STORE] = "result file",
	[EV_JOURNAL_SYNC] = "journal sync",
	[EV_IGNORE] = "ignored",
	[EV_FLEET] = "fleet database",
	[EV_FLEET_IO] = "fleet file",
	[EV_FLEET_TIMER] = "fleet timer",
};

const char *loop_what_name(uint32_t what, char *buf, size_t len)
{
	if (what < sizeof loop_names / sizeof loop_names[0] && loop_names[what])
		return loop_names[what];
	snprintf(buf, len, "op %u", what);
	return buf;
}

static uint64_t loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t loop_cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void loop_account_cpu(struct loop_stats *st, uint64_t cpu_ns, uint32_t what)
{
	if (cpu_ns <= st->cpu_max_ns)
		return;
	st->cpu_max_ns = cpu_ns;
	const char *name = loop_what_name(what, st->cpu_max_what, sizeof st->cpu_max_what);
	if (name != st->cpu_max_what)
		snprintf(st->cpu_max_what, sizeof st->cpu_max_what, "%s", name);
}

int loop_account(struct loop_stats *st, uint64_t ns, uint64_t start_ns, uint32_t what)
{
	unsigned b = 0;

	if (ns > st->hist.max_ns) {	/* a new longest: say what it did */
		const char *name = loop_what_name(what, st->max_what, sizeof st->max_what);
		if (name != st->max_what)
			snprintf(st->max_what, sizeof st->max_what, "%s", name);
	}
	lathist_add(&st->hist, ns);
	while (b < SHM_LOOP_NBUCKETS - 1 && ns > shm_loop_le_ns[b])
		b++;
	st->le[b]++;
	if (ns <= SHM_LOOP_SLOW_NS)
		return 0;
	st->slow_count++;
	st->slow_ns = ns;
	st->slow_mono_ns = start_ns;
	const char *name = loop_what_name(what, st->slow_what, sizeof st->slow_what);
	if (name != st->slow_what)
		snprintf(st->slow_what, sizeof st->slow_what, "%s", name);
	return 1;
}

int loop_init(struct loop *l, unsigned entries)
{
	memset(l, 0, sizeof *l);
	return io_uring_queue_init(entries, &l->ring, 0);
}

void loop_exit(struct loop *l)
{
	io_uring_queue_exit(&l->ring);
}

struct io_uring_sqe *loop_sqe(struct loop *l, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	while (!sqe) {
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

void loop_flush(struct loop *l)
{
	io_uring_submit(&l->ring);
}

int loop_run(struct loop *l, loop_fn fn, void *ctx)
{
	struct io_uring_cqe *cqes[64];

	while (!l->stop) {
		int rc = io_uring_submit_and_wait(&l->ring, 1);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
			fprintf(stderr, "provisor: io_uring_submit_and_wait: %s\n", strerror(-rc));
			return rc;
		}
		/* The iteration starts now; each step ends at the next clock read. */
		uint64_t start = loop_now(), t = start, longest = 0, now, cpu0 = loop_cpu_now();
		uint32_t what = LOOP_AFTER;
		unsigned n = io_uring_peek_batch_cqe(&l->ring, cqes, 64);
		for (unsigned i = 0; i < n; i++) {
			uint64_t ud = io_uring_cqe_get_data64(cqes[i]);
			int res = cqes[i]->res;
			io_uring_cqe_seen(&l->ring, cqes[i]);
			fn(ctx, ud, res);
			if ((now = loop_now()) - t > longest) {
				longest = now - t;
				what = loop_what(ud);
			}
			t = now;
		}
		if (l->after && !l->stop) {
			l->after(ctx);
			if ((now = loop_now()) - t > longest)
				what = LOOP_AFTER;
			t = now;
		}
		loop_account_cpu(&l->st, loop_cpu_now() - cpu0, what);
		if (loop_account(&l->st, t - start, start, what) && l->slow)
			l->slow(ctx, t - start, l->st.slow_what, n);
	}
	return 0;
}
