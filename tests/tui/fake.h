/*
 * fake: a stand-in for the supervisor and its workers, for testing the
 * readers of the status segment (top, status, exporter) before and apart
 * from the real pipeline. One process creates the segment, attaches every
 * slot as its worker would (shm_slot_attach/begin/end), and animates jobs
 * through the partition states with the same records the supervisor
 * writes: supervisor totals, job table, event ring, crashes and repairs.
 * Time-driven: each fake_tick moves everything whose time has come.
 */
#ifndef TESTS_TUI_FAKE_H
#define TESTS_TUI_FAKE_H

#include <stdint.h>

#include "shm/shm.h"
#include "util/lathist.h"

#define FAKE_TABLE_JOBS 64

struct fake_slot {
	struct shm_slot_writer w;
	uint64_t until;		/* mono end of the current piece of work; 0 idle */
	uint32_t job, part;	/* job table index and partition it works on */
	uint64_t started;	/* mono start of that piece */
	uint64_t back_at;	/* crashed: when it comes back */
};

struct fake {
	struct shm_seg seg;
	uint32_t ngpu, nsynth, active;
	struct fake_slot *gpu, *synth;
	struct shm_job job[FAKE_TABLE_JOBS];
	struct shm_sup sup;
	uint64_t next_id, gen, rng;
	uint32_t next_entry;
	uint32_t fail_permille;	/* partitions that fail, per 1000 */
	uint64_t crash_every_ns;	/* 0: never crash a worker */
	uint64_t next_crash;
	uint32_t min_ms, max_ms;	/* work time per piece */
	struct lathist loop;	/* the supervisor loop: one iteration per tick */
};

/* Create segment name with the given slots; every slot attached and idle,
 * a few jobs submitted. 0 or -errno with err set. */
int fake_create(struct fake *f, const char *name, uint32_t ngpu, uint32_t nsynth,
		char *err, size_t errlen);
/* Advance: finish due work, start what can start, submit new jobs, beat. */
void fake_tick(struct fake *f);
/* Unlink the segment. */
void fake_destroy(struct fake *f);

#endif
