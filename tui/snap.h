/*
 * snap: one snapshot of a provisor instance's status segment, as every
 * view needs it (top, status, exporter), plus the figures a single record
 * cannot give: utilization over the interval between two snapshots,
 * partitions per minute, job progress and ETA.
 *
 * Design: a snap_reader owns the mapping and the memory of the previous
 * snapshot. snap_take copies every record out through the latch, one
 * record at a time: each record is consistent, the whole is "consistent
 * enough" (taken within microseconds). A record that stays unreadable is
 * marked (ok = 0) and shown as unknown, never as a wrong value. The reader
 * re-attaches by itself when the name holds a new segment (supervisor
 * restarted) and keeps the last data, marked stale, when the supervisor is
 * gone: then the clocks of that data (uptime, job elapsed) stop at its last
 * heartbeat, and what only a live supervisor makes (ETA, rate) is unknown.
 */
#ifndef TUI_SNAP_H
#define TUI_SNAP_H

#include <stdint.h>

#include "shm/shm.h"

#define SNAP_STALE_NS (3000000000ull)	/* heartbeat older: not responding */
#define SNAP_EVENTS_KEEP 64		/* recent events a snapshot carries */
#define SNAP_RATE_WINDOW_NS (60000000000ull)	/* partitions/min window */
#define SNAP_RATE_SAMPLES 256

struct snap_slot {
	int ok;			/* 0: unreadable this time; v is zeroed */
	struct shm_slot v;
	uint64_t busy_total_ns;	/* busy_ns + the open spell, at now_mono */
	double util;		/* 0..1 over the interval; < 0: not known yet */
	double util_life;	/* busy_total / time since the segment started */
};

struct snap_job {
	uint32_t index;		/* entry in the job table */
	struct shm_job v;	/* nparts clamped to VOCAB_MAX_PARTS */
	uint32_t count[SHM_PART_NSTATES];	/* partitions per state */
	double progress;	/* done / nparts */
	uint64_t elapsed_ns;	/* since start (or submit), to end or now */
	int64_t eta_ns;		/* < 0: unknown */
};

struct snap {
	/* Identity and health. attached = 0: no segment ever read; err says why. */
	int attached;
	enum shm_health health;
	uint64_t hb_age_ns;
	char err[256];
	char name[SHM_NAME_MAX + 1];
	char control_path[109];
	uint32_t sup_pid;
	uint8_t boot_id[16];
	uint64_t start_mono_ns, start_wall_ns;
	uint64_t hb_mono_ns;	/* the supervisor's last heartbeat (0: none yet) */
	uint64_t now_mono_ns, now_wall_ns;
	uint64_t interval_ns;	/* since the previous snapshot; 0 for the first */
	uint32_t reattached;	/* times the reader switched to a new segment */

	int sup_ok;
	struct shm_sup sup;

	uint32_t ngpu, nsynth;
	struct snap_slot *gpu, *synth;

	uint32_t njobs;		/* non-free entries, table order */
	struct snap_job *jobs;
	uint32_t jobs_unreadable;
	uint32_t jobs_by_state[SHM_JOB_NSTATES];	/* in the table */

	/* Recent events, oldest first (up to SNAP_EVENTS_KEEP); the last
	 * new_events of them arrived since the previous snapshot. */
	struct shm_event events[SNAP_EVENTS_KEEP];
	uint32_t nevents, new_events;
	uint64_t event_head;
	uint64_t events_missed;	/* cumulative: overwritten before we read them */

	double parts_per_min;	/* < 0: not known yet */
	uint32_t unreadable;	/* records that stayed unreadable, all tables */

	uint32_t cap_gpu, cap_synth, cap_jobs;	/* (internal) array sizes */
};

struct snap_reader {
	char name[SHM_NAME_MAX + 1];
	struct shm_seg seg;
	int open;
	uint64_t last_seq;	/* newest event read */
	uint64_t prev_mono;
	uint32_t prev_ngpu, prev_nsynth;
	uint64_t *prev_busy;	/* gpu then synth, busy_total at prev_mono */
	uint8_t *prev_ok;
	struct shm_event hist[SNAP_EVENTS_KEEP];
	uint32_t nhist;
	uint64_t missed;
	uint32_t reattached;
	/* (mono, parts_done) samples for the partitions-per-minute window */
	uint64_t rate_t[SNAP_RATE_SAMPLES], rate_v[SNAP_RATE_SAMPLES];
	uint32_t rate_n, rate_head;
};

/* Prepare a reader for instance name (default "default"); it attaches on
 * the first snap_take. 0 or -EINVAL (bad name, message in err). */
int snap_reader_init(struct snap_reader *r, const char *name, char *err, size_t errlen);
void snap_reader_close(struct snap_reader *r);

/* Take a snapshot into s (whose arrays it reuses; zero-initialize s before
 * the first call). Returns 0 when s holds segment data (possibly stale:
 * see s->health), -ENOENT / -EAGAIN / -EPROTO ... when nothing could be
 * attached (s->err says why), -ENOMEM. */
int snap_take(struct snap_reader *r, struct snap *s);
void snap_free(struct snap *s);

/* The slot array of table t (SHM_T_GPU or SHM_T_SYNTH) and its length. */
static inline struct snap_slot *snap_slots(const struct snap *s, uint32_t t, uint32_t *n)
{
	*n = t == SHM_T_GPU ? s->ngpu : s->nsynth;
	return t == SHM_T_GPU ? s->gpu : s->synth;
}

/* Is the supervisor gone (not running, or the name holds a newer segment
 * that could not be opened)? Then the slots' records are its last words,
 * not what the workers do: views show them as unknown. */
static inline int snap_sup_gone(const struct snap *s)
{
	return s->attached && (s->health == SHM_HEALTH_NOT_RUNNING || s->health == SHM_HEALTH_RESTARTED);
}

/* The supervisor's uptime: to now while it runs (or hangs), frozen at its
 * last heartbeat once it is gone. */
uint64_t snap_uptime_ns(const struct snap *s);

/* A one-word summary of the supervisor's health for headers:
 * "running", "not responding", "not running", "restarted", "no segment". */
const char *snap_health_word(const struct snap *s);

#endif
