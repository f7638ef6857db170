/*
 * fdchan: the file descriptors a worker needs, handed to it one job at a
 * time instead of a directory of the state directory.
 *
 * Each worker gets one end of a SOCK_SEQPACKET socketpair (fd 3); the
 * supervisor sends on the other, with SCM_RIGHTS, the job's result file
 * (read-write for a gpuworker, which stores its partition's H or proof in
 * it; read-only for a synth, which verifies it) before it sends the frame
 * that needs it. The frame then finds its file already queued: the
 * worker drains what is there into a small table by job id (the newest
 * file of a job wins) and takes its job's entry. A worker can therefore
 * reach only the result files of the jobs it was given partitions of,
 * and no path in the state directory at all.
 */
#ifndef PROTO_FDCHAN_H
#define PROTO_FDCHAN_H

#include <pthread.h>
#include <stdint.h>

#define FDCHAN_FD 3		/* a worker's end */
#define FDCHAN_SLOTS 8		/* files a worker keeps: a few jobs in flight */

/* Supervisor: send job's file fd on sock without blocking. 0, or -errno
 * (-EAGAIN: the worker is not draining; the frame that needs the file
 * then fails to store, as a missing file would). */
int fdchan_send(int sock, uint64_t job, int fd);

struct fdchan {
	int sock;		/* -1: none (the worker was started by hand) */
	pthread_mutex_t lock;
	struct { uint64_t job; int fd; } e[FDCHAN_SLOTS];
	unsigned n, next;	/* used entries; the next one to replace */
};

void fdchan_init(struct fdchan *c, int sock);
/* Worker: a new fd (the caller's to close) for job's file, drained from
 * the socket if need be: -1 with errno ENOENT when the supervisor sent
 * none for job, EBADF when there is no channel, EMFILE and the like. */
int fdchan_get(struct fdchan *c, uint64_t job);
void fdchan_close(struct fdchan *c);

#endif
