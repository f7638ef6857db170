/*
 * latch: publish a fixed-size record to readers in other processes without
 * locks, with a two-copy latch (Linux's seqcount_latch).
 *
 * A record is a sequence word followed by two copies of the payload. The
 * writer flips the sequence to odd (readers switch to copy 1), rewrites
 * copy 0, flips it to even (readers switch to copy 0), rewrites copy 1.
 * A reader reads the copy the sequence points at and accepts it only if
 * the sequence did not move meanwhile. So:
 *   - the writer never waits for anyone: a stopped reader costs it nothing;
 *   - a writer that dies at any instant leaves one complete copy, which is
 *     the one readers are pointed at, so readers keep returning the last
 *     consistent record instead of spinning;
 *   - a reader that keeps losing the race gives up after a bounded number
 *     of tries and reports the record unreadable.
 *
 * Every shared word is a C11 atomic. Stores are release and loads acquire
 * (plain moves on x86-64), which orders each payload word against the
 * sequence without fences, so ThreadSanitizer understands the protocol.
 * One writer per record at a time is the caller's invariant.
 */
#ifndef SHM_LATCH_H
#define SHM_LATCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct shm_latch {
	_Atomic uint64_t seq;
	_Atomic uint64_t w[];	/* copy 0: w[0..words), copy 1: w[words..2*words) */
};

/* Test-only fault point: when set, called halfway through a copy, with
 * where it is: SHM_FAULT_COPY0 or SHM_FAULT_COPY1 inside the write window,
 * SHM_FAULT_READ inside a read. Tests stop or kill the process there. */
enum { SHM_FAULT_COPY0 = 0, SHM_FAULT_COPY1 = 1, SHM_FAULT_READ = 2 };
extern void (*shm_latch_fault)(int where);

static inline void shm_latch_copy_out(struct shm_latch *l, size_t off,
				      const uint64_t *src, size_t words,
				      int copy)
{
	size_t i = 0, stop = shm_latch_fault ? words / 2 : words;

	for (;;) {
		for (; i < stop; i++)
			atomic_store_explicit(&l->w[off + i], src[i],
					      memory_order_release);
		if (stop == words)
			return;
		shm_latch_fault(copy);
		stop = words;
	}
}

/* Make both copies equal to the complete one after the writer died,
 * wherever it stopped. The caller must be the only writer now. */
static inline void shm_latch_repair(struct shm_latch *l, size_t words)
{
	uint64_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);
	size_t good = (seq & 1) * words, torn = words - good;

	for (size_t i = 0; i < words; i++)
		atomic_store_explicit(&l->w[torn + i],
			atomic_load_explicit(&l->w[good + i], memory_order_relaxed),
			memory_order_release);
	if (seq & 1)	/* copy 0 is whole again: point readers at it */
		atomic_store_explicit(&l->seq, seq + 1, memory_order_release);
}

/* Publish src (words 64-bit words). Only the record's one writer calls it. */
static inline void shm_latch_write(struct shm_latch *l, const void *src, size_t words)
{
	uint64_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);

	if (seq & 1) {		/* a dead writer's record nobody repaired */
		shm_latch_repair(l, words);
		seq++;
	}
	atomic_store_explicit(&l->seq, seq + 1, memory_order_release);
	shm_latch_copy_out(l, 0, src, words, 0);
	atomic_store_explicit(&l->seq, seq + 2, memory_order_release);
	shm_latch_copy_out(l, words, src, words, 1);
}

/* Copy the record into dst. Returns 0, or -1 when the writer moved on
 * during each of `tries` attempts (the record is then unreadable now). */
static inline int shm_latch_read(const struct shm_latch *l, void *dst,
				 size_t words, unsigned tries)
{
	uint64_t *d = dst;

	for (unsigned t = 0; t < tries; t++) {
		uint64_t s1 = atomic_load_explicit(&l->seq, memory_order_acquire);
		const _Atomic uint64_t *c = l->w + (s1 & 1) * words;

		for (size_t i = 0; i < words; i++) {
			if (shm_latch_fault && i == words / 2)
				shm_latch_fault(SHM_FAULT_READ);
			d[i] = atomic_load_explicit(&c[i], memory_order_acquire);
		}
		if (atomic_load_explicit(&l->seq, memory_order_relaxed) == s1)
			return 0;
	}
	return -1;
}

#endif
