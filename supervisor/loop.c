/*
 * loop: see loop.h. Completions are drained in batches; each is handed to
 * the dispatcher, which may queue new SQEs, and after the batch the after
 * hook runs; what they queued goes to the kernel with the next wait, so one
 * io_uring_submit_and_wait per batch does all the system-call work.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/loop.h"

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
		unsigned n = io_uring_peek_batch_cqe(&l->ring, cqes, 64);
		for (unsigned i = 0; i < n; i++) {
			uint64_t ud = io_uring_cqe_get_data64(cqes[i]);
			int res = cqes[i]->res;
			io_uring_cqe_seen(&l->ring, cqes[i]);
			fn(ctx, ud, res);
		}
		if (l->after && !l->stop)
			l->after(ctx);
	}
	return 0;
}
