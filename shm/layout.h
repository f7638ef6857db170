/*
 * layout: the byte layout of the status segment, ABI version 6. This file
 * and docs/shm-layout.md describe the same bytes; the static asserts at the
 * bottom pin every offset a reader in another language relies on.
 *
 * The segment is a header followed by tables of fixed-size records. Every
 * record is a latch (shm/latch.h): a sequence word and two copies of its
 * payload. Nothing in the segment is a pointer: tables are found through
 * (offset, count, record size, payload size) in the header, which a reader
 * checks against the size it mapped before touching anything.
 * All integers are little-endian (the machine's own; x86-64 and arm64).
 */
#ifndef SHM_LAYOUT_H
#define SHM_LAYOUT_H

#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/vocab.h"

#define SHM_MAGIC 0x5355544154535650ULL	/* "PVSTATUS" as little-endian bytes */
#define SHM_ABI_VERSION 6u	/* 2: the supervisor record's loop timing; a job's
				 * reason code, 256-byte reason, blocked state;
				 * 3: pre-emption, cancel and quarantine counters,
				 * the degraded state and its reason, a slot's
				 * disable reason and pre-emptions;
				 * 4: slot state loading, a slot's load progress
				 * and load time, a job's output;
				 * 5: a job's output 2, proofs+h;
				 * 6: the supervisor record's fleet block */
#define SHM_HEADER_SIZE 512u
#define SHM_ALIGN 64u
#define SHM_NAME_MAX 32		/* instance name: [A-Za-z0-9_.-]{1,32} */
#define SHM_MAX_TABLES 8

enum shm_table_id {
	SHM_T_SUP = 0,		/* 1 record: the supervisor's totals */
	SHM_T_GPU = 1,		/* one record per GPU worker slot */
	SHM_T_SYNTH = 2,	/* one record per synth slot */
	SHM_T_JOB = 3,		/* job table: active and recent jobs */
	SHM_T_EVENT = 4,	/* event ring */
	SHM_NTABLES = 5
};

struct shm_table {
	uint64_t offset;	/* from the segment start; multiple of 64 */
	uint32_t count;		/* records */
	uint32_t rec_size;	/* bytes per record, >= 8 + 2 * payload_size */
	uint32_t payload_size;	/* bytes per payload copy, multiple of 8 */
	uint32_t reserved;
};

struct shm_header {
	_Atomic uint64_t magic;		/* 0: SHM_MAGIC, stored last at creation */
	uint32_t abi_version;		/* 8 */
	uint32_t header_size;		/* 12 */
	uint64_t segment_size;		/* 16 */
	uint32_t supervisor_pid;	/* 24 */
	uint32_t ntables;		/* 28 */
	uint8_t boot_id[16];		/* 32: random, new at every supervisor start */
	uint64_t start_mono_ns;		/* 48: CLOCK_MONOTONIC at creation */
	uint64_t start_wall_ns;		/* 56: CLOCK_REALTIME at creation */
	_Atomic uint64_t heartbeat_mono_ns;	/* 64: supervisor's last beat */
	_Atomic uint64_t heartbeat_count;	/* 72 */
	_Atomic uint64_t event_seq;	/* 80: sequence of the newest event, 0 = none */
	uint64_t reserved0;		/* 88 */
	char name[64];			/* 96: instance name, NUL-terminated */
	struct shm_table tables[SHM_MAX_TABLES];	/* 160 .. 352 */
	char control_path[108];		/* 352: the control socket, for clients */
	uint8_t reserved[SHM_HEADER_SIZE - 460];
};

/* Worker slot states. The worker writes STARTING, LOADING, IDLE and BUSY; the
 * supervisor writes the others, and only after it has reaped the worker. */
enum shm_slot_state {
	SHM_SLOT_EMPTY = 0,	/* never started */
	SHM_SLOT_STARTING = 1,
	SHM_SLOT_IDLE = 2,
	SHM_SLOT_BUSY = 3,
	SHM_SLOT_CRASHED = 4,
	SHM_SLOT_BACKOFF = 5,
	SHM_SLOT_DISABLED = 6,
	SHM_SLOT_STOPPED = 7,
	SHM_SLOT_LOADING = 8,	/* a gpuworker mapping its params (after HELLO) */
	SHM_SLOT_NSTATES
};

enum shm_exit_kind {
	SHM_EXIT_NONE = 0,
	SHM_EXIT_CODE = 1,	/* exited; code = exit status */
	SHM_EXIT_SIGNAL = 2,	/* killed; code = signal number */
};

struct shm_slot {
	uint32_t state;			/* 0: enum shm_slot_state */
	uint32_t pid;			/* 4 */
	uint64_t gen;			/* 8: generation of the newest begin */
	uint64_t job_id;		/* 16: assignment of gen */
	uint32_t partition;		/* 24 */
	uint32_t kind;			/* 28: job kind of the assignment */
	uint64_t busy_since_ns;		/* 32: mono start of the current busy spell */
	uint64_t part_since_ns;		/* 40: mono start of the current partition */
	uint64_t busy_ns;		/* 48: busy time of finished spells */
	uint64_t done;			/* 56: partitions ended ok */
	uint64_t failed;		/* 64: partitions ended failed */
	uint64_t restarts;		/* 72 */
	uint64_t started_mono_ns;	/* 80: this process's start */
	uint64_t heartbeat_mono_ns;	/* 88 */
	uint64_t state_since_ns;	/* 96: mono time of the last state change */
	uint64_t last_exit_wall_ns;	/* 104 */
	uint32_t last_exit_kind;	/* 112: enum shm_exit_kind */
	int32_t last_exit_code;		/* 116 */
	uint32_t gpu;			/* 120: GPU ordinal (GPU slots) */
	uint32_t backend;		/* 124: 0 unknown, 1 cpu, 2 cuda, 3 plugin */
	uint64_t end_gen;		/* 128: generation of the newest end */
	uint32_t disable_reason;	/* 136: enum shm_disable_reason, while disabled */
	uint32_t load_permille;		/* 140: LOADING: how much of its params is read in (0..1000) */
	uint64_t preempted;		/* 144: partitions pre-empted on this slot (cumulative) */
	uint64_t load_ns;		/* 152: its last params load took this long (0: none) */
};

/* Why a slot is disabled (struct shm_slot's disable_reason). */
enum shm_disable_reason {
	SHM_DISABLE_NONE = 0,
	SHM_DISABLE_OPERATOR = 1,	/* provisor worker disable, or top */
	SHM_DISABLE_CRASHLOOP = 2,	/* it kept dying */
	SHM_DISABLE_NO_DEVICE = 3,	/* its backend has no device */
	SHM_DISABLE_WRONG_RESULT = 4,	/* quarantined: a result failed verification */
	SHM_DISABLE_DEVICE_LOST = 5,	/* its backend lost its device SUP_DEVICE_LOST_MAX times */
	SHM_DISABLE_BAD_DEVICE = 6,	/* its backend's init refused the device */
	SHM_DISABLE_BAD_BACKEND = 7,	/* its backend could not be loaded or initialized */
	SHM_DISABLE_NREASONS
};

/* Partition states in a job record. */
enum shm_part_state {
	SHM_PART_QUEUED = 0,
	SHM_PART_SYNTH = 1,
	SHM_PART_READY = 2,
	SHM_PART_PROVING = 3,
	SHM_PART_DONE = 4,
	SHM_PART_FAILED = 5,
	SHM_PART_CANCELLED = 6,	/* its job was cancelled before it was done */
	SHM_PART_NSTATES
};

struct shm_part {
	uint8_t state;			/* 0: enum shm_part_state */
	uint8_t attempts;		/* 1 */
	uint16_t synth_slot;		/* 2: 0xffff = none */
	uint16_t gpu_slot;		/* 4: 0xffff = none */
	uint16_t reserved;		/* 6 */
	uint64_t synth_ns;		/* 8 */
	uint64_t gpu_ns;		/* 16 */
};

enum shm_job_state {
	SHM_JOB_FREE = 0,
	SHM_JOB_QUEUED = 1,
	SHM_JOB_RUNNING = 2,
	SHM_JOB_DONE = 3,
	SHM_JOB_FAILED = 4,
	SHM_JOB_CANCELLED = 5,
	/* Waiting for the state directory: no space for its result, or an
	 * I/O error there. Its proven partitions are kept; it retries with
	 * backoff and goes on by itself once the cause is gone. */
	SHM_JOB_BLOCKED = 6,
	SHM_JOB_NSTATES
};

/* Why a job failed, was cancelled or is blocked: a code every reader can
 * name, beside the text (struct shm_job's reason, never cut inside a
 * word; top shows a shorter form cut at a word too). */
enum shm_reason {
	SHM_REASON_NONE = 0,
	SHM_REASON_CANCELLED = 1,	/* by an operator */
	SHM_REASON_POISON = 2,		/* a partition failed poison_attempts times */
	SHM_REASON_NO_SPACE = 3,	/* the state directory's file system is full */
	SHM_REASON_IO = 4,		/* an I/O error on the state directory */
	SHM_REASON_NREASONS
};

struct shm_job {
	uint64_t id;			/* 0: 0 = free entry */
	uint32_t kind;			/* 8 */
	uint32_t priority;		/* 12 */
	uint32_t state;			/* 16: enum shm_job_state */
	uint32_t log_size;		/* 20: k, 2^k constraints */
	uint32_t nparts;		/* 24: <= VOCAB_MAX_PARTS */
	uint32_t reason_code;		/* 28: enum shm_reason */
	uint8_t seed[32];		/* 32 */
	uint64_t submit_wall_ns;	/* 64 */
	uint64_t submit_mono_ns;	/* 72 */
	uint64_t start_mono_ns;		/* 80 */
	uint64_t end_mono_ns;		/* 88 */
	char reason[256];		/* 96: why it failed or is blocked, whole
					 * (a longer text is cut at a word, "..."),
					 * NUL-terminated */
	struct shm_part part[VOCAB_MAX_PARTS];	/* 352 */
	uint32_t output;		/* 352 + 24 * 64: enum shm_output */
	uint32_t reserved2;
};

/* What a job ends in (struct shm_job's output). */
enum shm_output {
	SHM_OUTPUT_H = 0,	/* its partitions' H polynomials (a kind without params) */
	SHM_OUTPUT_PROOFS = 1,	/* their Groth16 proofs */
	SHM_OUTPUT_PROOFS_H = 2,	/* their proofs, each with its H (keep_h) */
	SHM_OUTPUT_NOUTPUTS
};

enum shm_event_type {
	SHM_EV_NONE = 0,
	SHM_EV_START = 1,	/* a child started */
	SHM_EV_CRASH = 2,	/* a child died */
	SHM_EV_RESTART = 3,
	SHM_EV_DISABLE = 4,
	SHM_EV_ENABLE = 5,
	SHM_EV_JOB_DONE = 6,
	SHM_EV_JOB_FAILED = 7,
	SHM_EV_JOB_SUBMIT = 8,
	SHM_EV_INFO = 9,
	SHM_EV_PREEMPT = 10,	/* a partition was taken back from a slot */
	SHM_EV_QUARANTINE = 11,	/* a slot was disabled for a wrong result */
	SHM_EV_JOB_CANCELLED = 12,
	SHM_EV_NTYPES
};

struct shm_event {
	uint64_t seq;			/* 0: 1, 2, 3, ...; 0 = never written */
	uint64_t wall_ns;		/* 8 */
	uint64_t mono_ns;		/* 16 */
	uint32_t type;			/* 24: enum shm_event_type */
	uint32_t table;			/* 28: SHM_T_GPU, SHM_T_SYNTH or 0 */
	uint32_t slot;			/* 32 */
	int32_t code;			/* 36: exit code or signal */
	uint64_t job_id;		/* 40 */
	uint32_t partition;		/* 48 */
	uint32_t reserved;		/* 52 */
	char msg[80];			/* 56: NUL-terminated */
};

enum shm_sup_state {
	SHM_SUP_STARTING = 0,
	SHM_SUP_RUNNING = 1,
	SHM_SUP_DRAINING = 2,
	SHM_SUP_STOPPING = 3,
	SHM_SUP_DEGRADED = 4,	/* running, but short of what it was asked to
				 * run (sup's degraded_reason says what) */
	SHM_SUP_NSTATES
};

/* Loop iterations longer than this are slow: counted and logged. */
#define SHM_LOOP_SLOW_NS 50000000ull
/* The supervisor record's iteration histogram: loop_hist[i] counts the
 * iterations of at most shm_loop_le_ns[i] (and more than the bound
 * before it); the last bucket, those beyond 10 s. Prometheus' buckets. */
#define SHM_LOOP_NBUCKETS 20
static const uint64_t shm_loop_le_ns[SHM_LOOP_NBUCKETS - 1] = {
	10000, 25000, 50000, 100000, 250000, 500000,	/* 10 us .. 500 us */
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000,	/* 1 ms .. 50 ms */
	100000000, 250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000,	/* 100 ms .. 10 s */
};

/* A fleet node's own view of the fleet (docs/fleet.md), the supervisor
 * record's fleet block: db_state SHM_FLEET_NONE on a supervisor that is
 * not a node, every other field 0 then. What the node knows itself; the
 * fleet's view is the database's (status --fleet). */
enum shm_fleet_db {
	SHM_FLEET_NONE = 0,		/* not a fleet node */
	SHM_FLEET_CONNECTING = 1,	/* connecting: the first time, or again after a refusal (no schema) */
	SHM_FLEET_CONNECTED = 2,
	SHM_FLEET_UNREACHABLE = 3,	/* the connection was lost or never came: retrying with backoff */
	SHM_FLEET_NDB
};

struct shm_fleet {
	uint32_t db_state;		/* 0: enum shm_fleet_db */
	uint32_t registered;		/* 4: 1 while its last beat was accepted */
	uint32_t leases_held;		/* 8: fleet jobs it holds a lease on (running here,
					 * or ended here and not yet reported) */
	uint32_t unreported;		/* 12: of those, done here: a result kept locally,
					 * its completion not yet taken by the database */
	uint32_t max_jobs;		/* 16: fleet jobs it runs at most at once */
	uint32_t reserved0;		/* 20 */
	uint64_t reconnects;		/* 24: connections made after the first (cumulative) */
	uint64_t claimed;		/* 32: jobs claimed (cumulative) */
	uint64_t completed;		/* 40: completions the database took (cumulative) */
	uint64_t refused;		/* 48: completions refused, the lease lost: late (cumulative) */
	uint64_t leases_lost;		/* 56: leases the database did not renew (cumulative) */
	uint64_t beat_wall_ns;		/* 64: CLOCK_REALTIME of its last accepted heartbeat (0: none yet) */
	uint64_t beat_mono_ns;		/* 72: the same, CLOCK_MONOTONIC */
	uint64_t down_mono_ns;		/* 80: unreachable since, CLOCK_MONOTONIC (0: not) */
	uint64_t reserved1;		/* 88 */
	char node[64];			/* 96: its name in the fleet, NUL-terminated */
};

struct shm_sup {
	uint32_t state;			/* 0: enum shm_sup_state */
	uint32_t reserved0;		/* 4 */
	uint64_t jobs_queued;		/* 8 */
	uint64_t jobs_running;		/* 16 */
	uint64_t jobs_done;		/* 24 */
	uint64_t jobs_failed;		/* 32 */
	uint64_t parts_done;		/* 40 */
	uint64_t parts_failed;		/* 48 */
	uint64_t mem_budget;		/* 56: bytes */
	uint64_t mem_used;		/* 64: bytes */
	uint64_t jobs_done_kind[VOCAB_NKINDS];	/* 72: jobs_done by kind 1..VOCAB_NKINDS */
	/* The supervisor's loop: every iteration timed, from the wait's
	 * return to the end of the scheduler (supervisor/loop.c). */
	uint64_t loop_iterations;	/* 104 */
	uint64_t loop_sum_ns;		/* 112: of every iteration */
	uint64_t loop_max_ns;		/* 120 */
	uint64_t loop_p50_ns;		/* 128: since start, 12.5% resolution */
	uint64_t loop_p99_ns;		/* 136 */
	uint64_t loop_slow_count;	/* 144: iterations over SHM_LOOP_SLOW_NS */
	uint64_t loop_slow_ns;		/* 152: the last of them: its duration, */
	uint64_t loop_slow_mono_ns;	/* 160: its start (CLOCK_MONOTONIC), */
	char loop_slow_what[16];	/* 168: and its slowest step, e.g. "child read" */
	uint64_t loop_hist[SHM_LOOP_NBUCKETS];	/* 184: iterations per shm_loop_le_ns bucket */
	char loop_max_what[16];		/* 344: the longest iteration's slowest step */
	uint64_t preemptions;		/* 360: partitions pre-empted (cumulative) */
	uint64_t jobs_cancelled;	/* 368: jobs cancelled (cumulative) */
	uint64_t quarantines;		/* 376: slots quarantined (cumulative) */
	char degraded_reason[128];	/* 384: why the state is degraded, NUL-terminated */
	uint64_t parts_nomem;		/* 512: partitions a backend had no memory for: requeued */
	uint64_t device_lost;		/* 520: gpuworkers that ended for a lost device */
	uint64_t backend_errors;	/* 528: partitions a backend failed (bad input, internal) */
	uint64_t reserved[1];		/* 536 */
	struct shm_fleet fleet;		/* 544: a fleet node's view (ABI 6) */
};

/* What a reader relies on; a change here is a new ABI version. */
static_assert(sizeof(struct shm_header) == SHM_HEADER_SIZE, "header size");
static_assert(offsetof(struct shm_header, event_seq) == 80, "event_seq");
static_assert(offsetof(struct shm_header, name) == 96, "name");
static_assert(offsetof(struct shm_header, tables) == 160, "tables");
static_assert(offsetof(struct shm_header, control_path) == 352, "control_path");
static_assert(sizeof(struct shm_table) == 24, "table size");
static_assert(sizeof(struct shm_slot) == 160, "slot size");
static_assert(offsetof(struct shm_slot, end_gen) == 128, "slot end_gen");
static_assert(sizeof(struct shm_part) == 24, "part size");
static_assert(sizeof(struct shm_job) == 352 + 24 * VOCAB_MAX_PARTS + 8, "job size");
/* The layout has room for 4 kinds' counters and 64 partitions a job. */
static_assert(VOCAB_NKINDS == 4 && VOCAB_MAX_PARTS == 64, "ABI: kinds, partitions");
static_assert(sizeof(struct shm_event) == 136, "event size");
static_assert(sizeof(struct shm_sup) == 704, "sup size");
static_assert(offsetof(struct shm_sup, fleet) == 544, "sup fleet");
static_assert(sizeof(struct shm_fleet) == 160, "fleet block size");
static_assert(offsetof(struct shm_fleet, reconnects) == 24, "fleet reconnects");
static_assert(offsetof(struct shm_fleet, beat_wall_ns) == 64, "fleet beat_wall_ns");
static_assert(offsetof(struct shm_fleet, node) == 96, "fleet node");
static_assert(offsetof(struct shm_sup, preemptions) == 360, "sup preemptions");
static_assert(offsetof(struct shm_sup, degraded_reason) == 384, "sup degraded_reason");
static_assert(offsetof(struct shm_slot, disable_reason) == 136, "slot disable_reason");
static_assert(offsetof(struct shm_slot, preempted) == 144, "slot preempted");
static_assert(offsetof(struct shm_sup, jobs_done_kind) == 72, "sup jobs_done_kind");
static_assert(offsetof(struct shm_sup, loop_iterations) == 104, "sup loop_iterations");
static_assert(offsetof(struct shm_sup, loop_slow_what) == 168, "sup loop_slow_what");
static_assert(offsetof(struct shm_sup, loop_hist) == 184, "sup loop_hist");
static_assert(SHM_LOOP_NBUCKETS == 20, "ABI 2: 20 loop buckets");
static_assert(sizeof(_Atomic uint64_t) == 8, "atomic word");

#endif
