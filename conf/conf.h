/*
 * conf: the supervisor's configuration. Built-in defaults, then an INI
 * file (parsed with inih), then command-line flags, each overriding the
 * one before. An unknown section or key, or a bad value, is refused with
 * "FILE:LINE: reason".
 *
 * File format (every key optional):
 *   [supervisor]
 *   name = default            ; instance name
 *   state_dir = /var/lib/provisor/default
 *   gpus = auto               ; or a number; auto with no GPU = 2 CPU slots
 *   workers_per_gpu = 2
 *   synth = 2                 ; synth pool size
 *   backend = auto            ; auto | cuda | cpu
 *   mem_budget = 1GiB         ; bytes of synthesized partitions in flight
 *   shm_mode = 0640
 *   socket_mode = 0600
 *   socket_group = NAME       ; optional group allowed on the socket
 *   worker_user = NAME        ; the workers' user (default nobody when run as root)
 *   max_jobs = 256            ; jobs queued or running at once (1..256)
 *   max_jobs_per_uid = 64     ; of them, from one socket_group member's uid
 *   restart_intensity = 5     ; crashes within restart_period disable a slot
 *   restart_period = 60s
 *   backoff_max = 10s         ; restart delay: 0, 100ms, 200ms, ... up to this
 *   stable_run = 10s          ; a run this long resets the backoff
 *   poison_attempts = 3       ; a partition whose worker died this often fails
 *   verify_sample = 1         ; verify 1 in N results of each gpu slot (0 never)
 *   heartbeat_timeout = 5s    ; a worker silent this long is killed as hung
 *   stop_timeout = 10s        ; graceful stop: in-flight work finishes within
 *   preempt_after = 100ms     ; pre-empt a running lower-priority partition after; 0 = never
 *   preempt_grace = 100ms     ; a worker asked to abandon that has not is killed after
 *   max_log_size = 20         ; largest k accepted (config and submit)
 *   [fleet]                   ; one node of a fleet (docs/fleet.md)
 *   dsn = host=db dbname=prov ; libpq connection string or URI; none = no fleet
 *   node = NAME               ; the node's name in the fleet (default HOST.NAME)
 *   heartbeat = 2s            ; registration and lease renewal interval
 *   lease = 5s                ; a claim's lease (default 2.5 x heartbeat)
 *   max_jobs = 4              ; fleet jobs held at once (default 2 x GPU slots)
 *   claim_interval = 500ms    ; an empty queue is asked again after this
 *   [kind.porep]              ; also kind.snap-deals, kind.window-post,
 *   log_size = 16             ;      kind.winning-post
 *   partitions = 10
 *   priority = 2              ; lower runs first
 *   deadline = 60s            ; per partition, for the watchdog
 *   reserve = 0               ; GPU slots kept free of other kinds for this kind
 *   slots = gpu.0,gpu.1       ; the GPU slots this kind runs on (default: any)
 *   params = /path/k16.params ; its jobs end in proofs (default: in H)
 *   keep_h = no               ; with params: keep each partition's H beside its proof
 */
#ifndef CONF_CONF_H
#define CONF_CONF_H

/* The job table's entries (the status segment's job table): max_jobs and
 * max_jobs_per_uid are at most this. */
#define CONF_MAX_JOBS 256

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/vocab.h"

#define CONF_MAX_SLOTS 256

struct conf_kind {
	uint32_t log_size;	/* k: 2^k constraints per partition */
	uint32_t partitions;	/* default partitions per job (1..64) */
	uint32_t priority;	/* 0 = first */
	uint64_t deadline_ms;	/* per partition; 0 = derive from measurements */
	uint32_t reserve;	/* GPU slots kept free of other kinds for this one (0 = none) */
	uint64_t slot_mask[CONF_MAX_SLOTS / 64];	/* the GPU slots it may run on; none set = any */
	char params[256];	/* Groth16 params: its jobs end in proofs; "" = H output */
	uint32_t keep_h;	/* with params: each proof's H kept beside it (a proofs+H file) */
};

/* [fleet]: this supervisor as one node of a fleet sharing a queue in a
 * PostgreSQL-compatible database (docs/fleet.md). dsn "" = not a node. */
#define CONF_FLEET_DSN_MAX 512
#define CONF_FLEET_NODE_MAX 64
struct conf_fleet {
	char dsn[CONF_FLEET_DSN_MAX];	/* libpq conninfo or URI: may hold a password, never logged */
	char node[CONF_FLEET_NODE_MAX];	/* "" = HOSTNAME.NAME */
	uint64_t heartbeat_ms;	/* registration and lease renewal every */
	uint64_t lease_ms;	/* a claim's lease; 0 = 2.5 x heartbeat_ms */
	uint64_t claim_interval_ms;	/* an empty queue is asked again after */
	uint32_t max_jobs;	/* fleet jobs held at once; 0 = 2 x GPU slots */
};

struct conf {
	char name[33];
	char state_dir[PATH_MAX];
	int gpus;		/* -1 = auto */
	int workers_per_gpu;
	int synth;
	int backend;		/* enum vocab_backend */
	char backend_plugin[256];	/* backend plugin: its library's absolute path */
	uint64_t mem_budget;	/* bytes */
	mode_t shm_mode;
	mode_t socket_mode;
	char socket_group[64];	/* "" = none */
	char worker_user[64];	/* "" = nobody for a root supervisor, else its own user */
	char params_dir[256];	/* params found by k for kinds without their own; "" = none */
	uint32_t max_jobs;
	uint32_t max_jobs_per_uid;	/* for uids other than root and the supervisor's */
	uint32_t max_log_size;	/* largest k accepted from submit */
	/* Crash handling (systemd's RestartSec/RestartMaxDelaySec and OTP's
	 * intensity/period are the models). */
	uint32_t restart_intensity;	/* this many crashes ... */
	uint64_t restart_period_ms;	/* ... within this period disable a slot */
	uint64_t backoff_max_ms;	/* restart delays double up to this */
	uint64_t stable_run_ms;		/* a run this long resets the backoff */
	uint32_t poison_attempts;	/* a partition that killed this many workers fails its job */
	uint32_t verify_sample;		/* verify 1 in N stored results per gpu slot; 1 all, 0 none */
	uint64_t heartbeat_timeout_ms;	/* a worker silent this long is hung */
	uint64_t stop_timeout_ms;	/* graceful stop: in-flight partitions finish within */
	uint64_t preempt_after_ms;	/* a running lower-priority partition is pre-empted once a
					 * higher one has waited this long; 0 = never (prefetched
					 * ones are still revoked) */
	uint64_t preempt_grace_ms;	/* asked to abandon and not answered this long: killed */
	struct conf_kind kind[VOCAB_NKINDS + 1];
	struct conf_fleet fleet;
};

/* The [fleet] node name's syntax (1..63 of [A-Za-z0-9_.-]): 0 or -1. */
int conf_fleet_node_check(const char *v);
/* The DSN of `run --fleet DSN`: 0, or -1 (empty or too long). */
int conf_fleet_set_dsn(struct conf *c, const char *v);

/* Built-in defaults; partitions of the defaults take well under a second
 * on one CPU core (k = 14..16). state_dir is left "" (not set
 * explicitly); conf_finish derives it. */
void conf_defaults(struct conf *c);
/* Apply an INI file. 0, or -1 with "FILE:LINE: reason" (or "FILE:
 * reason" for a missing file or a whole-file check) in err. A refused file
 * leaves *c exactly as it was; an accepted one has passed conf_check. */
int conf_load(struct conf *c, const char *path, char *err, size_t errlen);
/* The whole configuration's ranges and cross-field rules (slot total,
 * every kind's k <= max_log_size, one partition fits mem_budget). Call it
 * again after command-line flags: 0, or -1 with the reason in err. */
int conf_check(const struct conf *c, char *err, size_t errlen);
/* The kinds' reserve and slots against gpus x workers_per_gpu GPU slots
 * (conf_check calls it; the supervisor again once gpus = auto is
 * counted): 0, or -1 with the reason in err. */
int conf_check_slots(const struct conf *c, char *err, size_t errlen);
/* When state_dir is still "": /var/lib/provisor/NAME for root, else
 * $XDG_STATE_HOME (or ~/.local/state)/provisor/NAME. Call it after the
 * file and the flags, so a name from either counts. */
void conf_finish(struct conf *c);
/* Parse one size ("64MiB", "1G", "4096"), duration ("30s", "500ms",
 * "2m") or mode ("0640"): 0 or -1. */
int conf_parse_size(const char *s, uint64_t *out);
/* A backend: auto, cuda, cpu, or plugin:/ABSOLUTE/PATH.so (the path into
 * c->backend_plugin). 0, or -1 for anything else. */
int conf_parse_backend(struct conf *c, const char *v);
int conf_parse_duration_ms(const char *s, uint64_t *out);
int conf_parse_mode(const char *s, mode_t *out);

#endif
