/*
 * sup: the supervisor's state, shared by its files (one thread, one loop).
 *
 *   run.c        sup_main: start, the loop, stop
 *   loop.c       the io_uring loop: completions in batches, then a hook
 *   child.c      spawning, reaping and restarting workers; reading frames
 *   child_fsm.c  the workers' lifecycle: the state x event table (pure)
 *   jobs.c       the job table: submit, cancel, resume, requeue, publish
 *   policy.c     which partition goes where (sched_run), the memory budget
 *   preempt.c    taking work back for more urgent work; slot reservation
 *                and affinity
 *   relay.c      moving a partition synth -> gpuworker by splice
 *   relay_fsm.c  the relay's mode x event table (pure)
 *   results.c    H files and result files in the state directory
 *   ctlsrv.c     the control socket
 *   statedir.c   the state directory: path, ownership checks, the lock
 *   notify.c     systemd readiness and watchdog
 *   fleet*.c     one node of a fleet on a shared database (fleet.h)
 *
 * Ownership: the supervisor owns every job and partition; a child only
 * ever holds references (job index, partition) to what it works on, so a
 * child's death is settled by walking its references.
 */
#ifndef SUPERVISOR_SUP_H
#define SUPERVISOR_SUP_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/openat2.h>

#include "conf/conf.h"
#include "groth16/groth16.h"
#include "ctl/ctl.h"
#include "proto/frame.h"
#include "shm/shm.h"
#include "supervisor/child_fsm.h"
#include "supervisor/loop.h"
#include "supervisor/part_fsm.h"
#include "supervisor/relay_fsm.h"

#define SUP_MAX_CONNS 32
#define SUP_MAX_CONNS_PER_UID 8
#define SUP_CONNS_RESERVED 8	/* for the supervisor's own uid and root */
#define SUP_GPU_DEPTH 2		/* partitions a gpuworker holds: proving + received */
#define SUP_TICK_MS 100
/* A gpu slot whose backend lost its device this many times (since it was
 * last enabled) is disabled as "device lost": a device that keeps failing
 * is the operator's to look at, not the restart loop's. */
#define SUP_DEVICE_LOST_MAX 3
/* A gpu slot whose backend failed a partition (out of memory, bad input,
 * internal) gets no new one for this long: memory may come back (another
 * process's), and a backend that fails at once must not take every
 * partition (and its attempts) while the other slots are busy. */
#define SUP_FAIL_REST_MS 1000
#define SUP_PIPE_SIZE (1 << 20)	/* children's pipes: fewer, larger transfers */
#define SUP_RELAY_CHUNK (1u << 20)	/* bytes per relay splice */
#define SUP_STATE_DIR_MAX 90	/* + "/control.sock" must fit a sun_path */
/* Workers run this much nicer than the supervisor: on a rig whose cores
 * they keep busy, the loop (and a client asking it) is scheduled first.
 * Among themselves nothing changes. */
#define SUP_WORKER_NICE 5
#define SUP_HDR_BYTES 80	/* a result file's header (format/pfile.h) */
#define SUP_REASON_MAX 256	/* a reason's full text */
#define CHECK_RECENT 16		/* a gpu slot's last unsampled results, remembered (check.c) */

enum child_kind { CHILD_GPU, CHILD_SYNTH };

enum rd_state {
	RD_HDR,		/* reading a frame header */
	RD_SMALL,	/* reading a HELLO, FAIL or H_DONE payload */
	RD_HELD,	/* a PART_DATA payload is for the relay: the synth streams
			 * it into the pipe as it makes the rows (blocked while
			 * the pipe is full); nothing of it is read here */
	RD_EOF,
};

/* A partition a child holds: job table index and partition number. */
struct part_ref {
	uint64_t id;	/* the job's id: its table entry may be reused */
	pid_t from;	/* gpu holds: the synth process that produced it */
	int from_child;
	int job;	/* job table index */
	uint32_t part;
	uint64_t gen;
	uint64_t abandon_ns;	/* gpu holds: when it was asked to abandon it (preempt.c); 0 = not */
};

struct child {
	enum child_kind kind;
	uint32_t slot;		/* index in its shm table */
	uint32_t gpu;
	enum child_state state;	/* changed only by child_event() (child_fsm.h) */
	pid_t pid;
	int pidfd, in_fd, out_fd;
	int files_fd;		/* our end of its files channel (contain.c); -1 = none */
	/* io_uring operations in flight on in_fd / out_fd (its own, and relays
	 * that splice from or write into them). An fd is closed only when it
	 * is doomed and none are left: an operation punted to a kernel worker
	 * looks its fd up late, and a number closed early could even be
	 * reused by the next child's pipe. */
	int in_ops, out_ops, in_doomed, out_doomed;
	uint64_t started_ns, restart_at_ns;
	uint32_t crashes;	/* in a row, for the backoff */
	uint32_t window_n;	/* crashes since window_start_ns, for the intensity */
	uint32_t device_losses;	/* exits for a lost device (GPUWORKER_EXIT_DEVICE_LOST) since enabled */
	uint64_t rest_until_ns;	/* its backend failed a partition: no new work before (jobs.c) */
	uint64_t window_start_ns;
	char kill_why[96];	/* why the supervisor killed it, for the event */
	int disabled;		/* by an operator: drained, then kept down (CA_MARK_DISABLED) */
	int preempt_kill;	/* killed to pre-empt its work: no crash, restarted at once */
	int claimed;		/* gpu: being cleared for a partition of priority claim_prio */
	uint32_t claim_prio;	/* (preempt.c): nothing less urgent is relayed to it */
	uint32_t disable_reason;	/* enum shm_disable_reason of the last disable (published while disabled) */

	/* Reading frames from its stdout. */
	enum rd_state rd;
	struct frame_hdr hdr;
	uint32_t hdr_have;
	uint8_t *buf;		/* RD_SMALL payload */
	uint64_t buf_have;
	int rd_pending;

	/* synth: the one partition it synthesizes or holds. gpu: up to
	 * SUP_GPU_DEPTH partitions sent or being sent to it. */
	struct part_ref hold[SUP_GPU_DEPTH];
	int nhold;

	/* Writing to its stdin: a SYNTH_REQ (synth) or a relayed PART_DATA
	 * header (gpu), one at a time. */
	int wr_pending;
	uint8_t wbuf[2 * FRAME_HDR_SIZE + sizeof(struct frame_verify_req)];	/* >= PART_ID + PART_DATA's header */

	/* synth: the stored partition it verifies (check.c), instead of a
	 * synthesis; gpu: results stored (the sample's count) and its last
	 * unverified results (why it is disabled is disable_reason above) */
	int verifying;
	struct part_ref vref;
	uint32_t results_n;
	struct { uint64_t id; uint32_t part; } unverified[CHECK_RECENT];
	uint32_t unverified_n;

	/* synth: relaying its held PART_DATA payload, spliced from its stdout
	 * to relay_dst's stdin (relay.c; its modes are relay_fsm.h's). */
	enum relay_mode relay;	/* changed only by relay.c's relay_apply() */
	int relay_dst;		/* gpu child, -1 = none */
	uint64_t relay_left;
	int relay_pending;	/* its header write, splice or pad write in flight */
	int relay_op;		/* what the operation in flight does (relay.c) */
	int relay_op_dst;	/* and the gpu child whose stdin it writes, -1 = none */
	uint64_t relay_start_ns;	/* when the relay began (the watchdog's clock) */
	struct part_ref relay_ref;	/* the partition relayed (its synth time) */
	/* gpu: the synth relaying to it, -1 = none; and the synth whose relay
	 * header is being written to it (kept even if the gpu dies, so the
	 * write's completion can settle that synth's relay), -1 = none */
	int src_child, hdr_for;
	uint32_t hdr_len;	/* the bytes of hdr_for's write (a PART_ID may precede the header) */
	uint16_t epoch;		/* bumped at each spawn: stale completions are ignored */
};

/* A stored partition's verification (check.c): not stored, not in the
 * sample, to verify, at a synth, verified. */
enum check_state { PV_NONE, PV_SKIPPED, PV_PENDING, PV_INFLIGHT, PV_OK };

struct part {
	uint8_t state;		/* enum shm_part_state */
	uint8_t attempts;
	int16_t synth_child, gpu_child;
	uint64_t synth_ns, gpu_ns;
	uint64_t ready_ns;	/* when it became READY (dispatch latency) */
	uint64_t synth_start_ns;	/* its SYNTH_REQ went out */
	uint8_t preempting;	/* being taken back: its requeue counts no attempt */
	uint8_t verify;		/* enum check_state (check.c) */
	int16_t stored_by;	/* the gpu child that stored it, + 1 (0 = none) */
	uint8_t has_xout;	/* proofs: its synth reported the public inputs */
	uint8_t derive_xout;	/* proofs: kept across a restart; its checker derives x_out */
	int16_t xout_from;	/* the synth child that owes them (-1 = none) */
	uint8_t xout[32];	/* x_out as the synth's stream ended it (canonical bytes) */
};

struct job {
	uint64_t id;		/* 0 = free */
	uid_t uid;		/* who submitted (or retried) it; resumed: the supervisor's */
	uint32_t kind, priority, log_size, nparts, seed_len;
	uint8_t seed[32];
	uint32_t state;		/* enum shm_job_state */
	uint32_t done, failed;
	uint64_t submit_wall_ns, submit_mono_ns, start_mono_ns, end_mono_ns;
	uint32_t reason_code;	/* enum shm_reason */
	char why[SUP_REASON_MAX];	/* the reason's full text (the segment has a short form) */
	struct part part[VOCAB_MAX_PARTS];
	uint8_t params;		/* proofs with s->params[params - 1]; 0 = H output */
	uint8_t file_kind;	/* PFILE_KIND_RESULT, PFILE_KIND_PROOFS or PFILE_KIND_PROOFS_H (keep_h) */

	/* Its result file (results.c): STATE/jobs/ID/result.partial, built in
	 * place by the gpuworkers, renamed into STATE/results at the commit. */
	int store_fd;		/* -1 = not open */
	uint8_t store;		/* results.c's enum store_state */
	uint8_t store_step;	/* BLOCKED: the operation to start again */
	uint8_t store_epoch;	/* bumped when the job ends: later completions are stale */
	uint8_t store_err_op;
	int store_ops;		/* EV_STORE operations in flight */
	int store_err;		/* the first error among them (errno) */
	uint32_t store_tries;	/* failed in a row: the backoff */
	uint64_t store_gen_floor;	/* H_DONE of a generation below this went to a file since removed */
	int dir_fd;		/* STATE/jobs/ID while the file is being created; -1 = none */
	struct open_how how;	/* the openat2 in flight's */
	uint8_t repaired;	/* a link planted at STATE/jobs/ID was removed once */
	uint8_t reopen;		/* retried: its kept file is reopened, not made anew */
	uint8_t unjournaled;	/* ended, and its records compacted away since (jobs_journal.c) */
	uint64_t retry_at_ns;
	char path[48], path2[48];	/* names the operations in flight use */
	uint8_t hdr[SUP_HDR_BYTES];
	uint8_t tail[(VOCAB_MAX_PARTS + 1) * 32];	/* the digests, then the checksum */
};

/* A control connection (ctlsrv.c): requests one line each, answered in
 * order, one operation in flight at a time (a read or a reply's write). */
struct conn {
	int fd;			/* -1 = free */
	uid_t uid;		/* the peer's */
	pid_t pid;		/* the peer's, when it connected (SO_PEERCRED) */
	uint16_t epoch;		/* bumped when the slot is freed: late completions are ignored */
	int closing;		/* close once the reply is written */
	uint64_t deadline_ns;	/* the read in flight gives up then */
	uint64_t idle_since_ns;	/* answered, and waiting for a next request since; 0 = in one */
	uint64_t got_ns;	/* when the last read completed */
	struct __kernel_timespec timeout;	/* the operation in flight's */
	char buf[CTL_MAX_LINE];	/* the request being read, and what came after it */
	uint32_t have;
	char reply[256];
	/* A submit waiting for the journal's fdatasync before its reply
	 * (the slot is not reused meanwhile, even if the client left). */
	int sync_pending;
	uint64_t sync_job;
};

/* A kind's params, resident (params.c). Children get fd as 4 + index. */
#define SUP_PARAMS_FD_MIN 64
struct sup_params {
	int fd;			/* the resident file, read-only */
	struct groth16_params vk;	/* counts, digests and the vk; no proving key */
	uint64_t bytes;		/* the resident file's size: counted in the budget once */
	char name[64];		/* STATE/params/NAME */
	char path[256];		/* the source, for logs */
};

struct sup {
	struct conf conf;
	struct sup_params params[VOCAB_NKINDS];
	uint32_t nparams;
	uint8_t kind_params[VOCAB_NKINDS + 1];	/* kind -> params index + 1; 0 = H output */
	struct loop loop;
	struct shm_seg seg;
	int sigfd, sockfd, nullfd;
	int state_fd, lock_fd;	/* the state directory, and its lock (statedir.c) */
	int jobs_fd, results_fd;	/* STATE/jobs and STATE/results, O_NOFOLLOW (sched_open) */
	int has_group;		/* socket_group is set: its gid */
	gid_t group;
	int no_pidfd;		/* pidfd_open missing: exits come by SIGCHLD */
	int seg_fd;		/* the segment, read-write, for the workers' slots (contain.c) */
	int worker_setuid;	/* workers run as worker_uid:worker_gid (--user) */
	uid_t worker_uid;
	gid_t worker_gid;
	char sock_path[108];
	char bindir[4096];
	int backend;
	char backend_arg[264];	/* "plugin:PATH", a gpuworker's --backend */

	struct child *child;	/* gpus first, then synths */
	uint32_t nchild, ngpu, nsynth;
	struct job *jobs;	/* indexed like the shm job table */
	uint32_t njobs;
	struct conn conn[SUP_MAX_CONNS];

	uint64_t next_job_id, next_gen;
	int resume_deferred;	/* a journaled job found the table full at start */
	int draining, stop_requested;
	int drained;		/* draining, and the last accepted job ended (logged once) */
	int backend_logged;	/* a gpuworker was started that logs its backend: the others don't */
	int stopping;		/* 1 finishing in-flight work, 2 ending children */
	uint64_t stop_deadline_ns;
	struct shm_sup stats;

	/* PROVISOR_TRACE_DIR: "R job part t" when a partition becomes ready
	 * (bench/pipeline measures dispatch latency from it). */
	struct journal *journal;
	uint64_t journal_compact_min;	/* JOURNAL_COMPACT_MIN, or the test hook PROVISOR_JOURNAL_COMPACT */
	FILE *trace;
	uint64_t longest_ns[VOCAB_NKINDS + 1];	/* longest H-term seen per kind (watchdog) */
	uint64_t watchdog_ns, watchdog_last_ns;	/* systemd WatchdogSec / 2, last ping */
	/* Slow loop iterations are logged at most once a second (run.c):
	 * when the last line went out, how many were not logged since, and
	 * the longest of those with its slowest step. */
	uint64_t slow_log_ns;
	uint64_t slow_quiet, slow_quiet_ns;
	char slow_quiet_what[LOOP_WHAT_NAME];
	uint64_t ctl_idle_ns;	/* an open connection's wait for its next request (ctlsrv.c) */
	/* preempt.c: a timeout armed for its next deadline (an iteration, so
	 * sched_run, then), and when it fires; 0 = none armed */
	uint64_t preempt_wake_ns;
	struct __kernel_timespec preempt_ts;
	struct fleet *fleet;	/* a fleet node's state (fleet.c); NULL = not a node */
};

/* user_data "who" of a child's operations: index and incarnation. */
static inline uint32_t child_who(const struct sup *s, uint32_t ci);

/* child.c, spawn.c (child_spawn), watchdog.c (child_tick,
 * child_stop_all, child_restart_due, child_set_enabled) */
/* Fork and exec ci (DOWN): raises CEV_SPAWNED, or CEV_SPAWN_FAILED and -1. */
int child_spawn(struct sup *s, uint32_t ci);
/* contain.c: a worker's user, descriptors and leftovers */
int contain_setup(struct sup *s, char *err, size_t errlen);
void contain_fini(struct sup *s);
int contain_child(void);
int contain_argv(struct sup *s, char **argv, int n, char bufs[2][32], int seg_fd);
void contain_exited(struct sup *s, pid_t pid);	/* before its reap */
void contain_on_sigchld(struct sup *s);
void contain_send_file(struct sup *s, uint32_t ci, uint32_t ji);
/* The one way a child's state changes: the transition child_fsm() names
 * for its state and ev, and its actions. why: the reason of a kill. */
void child_event(struct sup *s, uint32_t ci, enum child_event ev, const char *why);
void child_on_exit(struct sup *s, uint32_t ci);
void child_on_sigchld(struct sup *s);
void child_on_read(struct sup *s, uint32_t ci, int res);
void child_arm_read(struct sup *s, uint32_t ci);
void child_kill(struct sup *s, uint32_t ci, const char *why);
void child_tick(struct sup *s, uint64_t now);
void child_stop_all(struct sup *s);
void child_restart_due(struct sup *s, uint32_t ci);
/* An operation on ci's stdin (in) or stdout (out) completed. */
void child_io_done(struct sup *s, uint32_t ci, int in, int out);
/* Close ci's stdin (EOF for the worker) once nothing uses it. */
void child_close_in(struct sup *s, uint32_t ci);
int child_set_enabled(struct sup *s, uint32_t table, uint32_t slot, int enable,
		      char *err, size_t errlen);
int child_alive(const struct child *c);
/* READY: its frames are read and it may hold work. */
int child_serving(const struct child *c);
/* Serving, not disabled, and its stdin free: it may be given work. */
int child_takes_work(const struct child *c);
/* Holds nothing, relays nothing, writes nothing, reads a header. */
int child_idle(const struct child *c);
/* Write a frame (at most sizeof wbuf) to ci's stdin: EV_CHILD_WRITE. */
void child_write(struct sup *s, uint32_t ci, const void *buf, size_t len);

/* The scheduler: jobs.c, policy.c, relay.c and results.c. Its entry
 * points for the rest of the supervisor keep the sched_ prefix; what
 * these files share among themselves has their own. */

/* jobs.c */
int sched_submit(struct sup *s, uid_t uid, uint32_t kind, const uint8_t *seed, uint32_t seed_len,
		 uint32_t k, uint32_t parts, uint64_t *id, char *err, size_t errlen);
int sched_cancel(struct sup *s, uint64_t id, char *err, size_t errlen);
/* provisor retry: a failed or cancelled job queued again, its done
 * partitions kept (and journaled: the caller makes that durable). */
int sched_retry(struct sup *s, uid_t uid, uint64_t id, char *err, size_t errlen);
void sched_withdraw(struct sup *s, uint64_t id, const char *why);
void sched_synth_ready(struct sup *s, uint32_t ci);
void sched_result(struct sup *s, uint32_t ci);
/* cls: the FAIL's class (enum frame_fail_class) */
void sched_part_failed(struct sup *s, uint32_t ci, uint32_t cls, const char *why);
/* unrun: what it held is requeued with no attempt counted (its device
 * was lost: not the partitions' fault) */
void sched_requeue(struct sup *s, uint32_t ci, int unrun, const char *why);
void sched_publish(struct sup *s);
struct journal_job;
void sched_resume(struct sup *s, const struct journal_job *jj);
int sched_idle(const struct sup *s);
void jobs_publish(struct sup *s, int ji);
/* The job ends: done, failed (code, why) or cancelled. */
void jobs_finish(struct sup *s, int ji, uint32_t state, uint32_t code, const char *why);
/* Set the reason: the full text kept (and logged by the caller), a short
 * form cut at a word published. */
void jobs_set_reason(struct sup *s, int ji, uint32_t code, const char *why);
void jobs_check_done(struct sup *s, int ji);
int jobs_active(const struct job *j);
/* Does job j keep each partition's H beside its proof (a proofs+H file)? */
int jobs_keep_h(const struct job *j);
/* Is the partition still wanted (same job, active, not done)? */
int jobs_wanted(const struct sup *s, const struct part_ref *r);

/* jobs_journal.c */
/* Compact the journal while running when it is due (journal.h). */
void jobs_journal_trim(struct sup *s);
/* Journal ended job ji's retry: a RETRY record, or its SUBMIT again when
 * a compaction dropped its records. Not synced. 0, or -errno and err. */
int jobs_journal_retry(struct sup *s, int ji, char *err, size_t errlen);

/* policy.c */
/* Hand out work: called once after every loop iteration's completions. */
void sched_run(struct sup *s);
int sched_inflight(const struct sup *s);
uint64_t sched_mem_used(const struct sup *s);
/* May uid have one more job queued or running (a submit or a retry)? 0,
 * or -ENOSPC with one line. */
int jobs_admit(const struct sup *s, uid_t uid, char *err, size_t errlen);

/* preempt.c */
/* Take work back from lower-priority partitions for the most urgent one
 * that waits (sched_run's last step). */
void preempt_run(struct sup *s);
/* May a partition of job j be relayed to gpuworker gi: its kind's slots,
 * the other kinds' reservations, and (pre-emption on) nothing of lower
 * priority held there that it would wait behind. */
int preempt_gpu_ok(const struct sup *s, const struct job *j, uint32_t gi);
/* A partition was taken back from child ci (its FAIL FRAME_FAIL_PREEMPTED,
 * or its death after a pre-emption kill): counter and event. */
void preempt_note(struct sup *s, uint32_t ci, const struct part_ref *r, const char *how);
/* Job ji was cancelled: every gpuworker holding a partition of it is
 * asked to give it up (at its next safe point; killed after
 * preempt_grace when it does not), and a synth synthesizing one is
 * stopped (no crash, as for a pre-emption). */
void preempt_cancel(struct sup *s, int ji);
/* The most urgent job with a verification waiting for a synth
 * (check.c's PV_PENDING), or -1. */
int preempt_verify_job(const struct sup *s);
/* Kill child ci to take its work back: no crash counted, restarted at
 * once, its partitions requeued without an attempt. */
void preempt_kill(struct sup *s, uint32_t ci, const char *why);

/* relay.c */
void sched_on_write(struct sup *s, uint32_t ci, int res);
void sched_on_splice(struct sup *s, uint32_t ci, int res);
void relay_start(struct sup *s, uint32_t si, uint32_t gi);
/* Throw synth si's held payload (relay_left bytes) away. */
void relay_discard(struct sup *s, uint32_t si);
/* Synth si / gpuworker gi died: settle the relay it was part of. */
void relay_on_src_exit(struct sup *s, uint32_t si);
void relay_on_dst_exit(struct sup *s, uint32_t gi);
/* A relay is under way, or its last operation is still in flight. */
int relay_busy(const struct child *c);

/* results.c */
/* Open STATE/jobs and STATE/results relative to state_fd (statedir.c
 * opened and checked it): real directories of ours, writable by nobody
 * else, so nothing in the state directory is looked up through a symbolic
 * link afterwards. -1 and one line in err. */
int sched_open(struct sup *s, char *err, size_t errlen);
void sched_result_path(const struct sup *s, uint64_t id, char *buf, size_t len);
/* Does a result of 2^k x parts fit in the free space? 0 or -ENOSPC, err. */
int results_fits(struct sup *s, uint32_t file_kind, uint32_t k, uint32_t parts, char *err, size_t errlen);
int results_have(struct sup *s, uint64_t id);
uint32_t results_reuse(struct sup *s, struct job *j);
/* Start what is due (the tick): retries of blocked jobs, and the
 * allocation of resumed jobs with nothing left to prove. */
void results_kick(struct sup *s);
/* Partitions of j may be handed out (its file is allocated). */
int results_ready(const struct job *j);
/* j waits for the state directory (BLOCKED): passed over until its retry. */
int results_blocked(const struct job *j);
/* j's turn came and its file is not allocated: start that. */
void results_alloc(struct sup *s, int ji);
/* Every partition is in and nothing is in flight: commit may start. */
int results_commit_due(const struct job *j);
void results_commit(struct sup *s, int ji);
void results_on_cqe(struct sup *s, uint32_t who, int res);
/* A failed or cancelled job's kept files go: its entry takes another job. */
void results_drop(struct sup *s, int ji);
/* A retried job's file is reopened at its turn; -ENOENT: none was kept. */
int results_retry(struct sup *s, int ji);
/* At start: remove STATE/jobs directories of no job in the table. */
void results_sweep(struct sup *s);
void results_part_stored(struct sup *s, int ji, uint32_t p, const uint8_t digest[32]);
void results_part_failed(struct sup *s, int ji, int e, const char *what);
/* The job ended: its file closed and removed (unless committed). */
void results_end(struct sup *s, int ji);
int results_entry_free(const struct job *j);
void results_close_all(struct sup *s);

/* notify.c: systemd readiness and watchdog (no-ops outside systemd) */
void sup_notify(struct sup *s, const char *state);
void sup_watchdog_ping(struct sup *s, uint64_t now);

/* ctlsrv.c */
int ctlsrv_open(struct sup *s, char *err, size_t errlen);
void ctlsrv_close(struct sup *s);
void ctlsrv_on_accept(struct sup *s, int res);
/* who: the user_data's, a connection's slot and epoch */
void ctlsrv_on_read(struct sup *s, uint32_t who, int res);
void ctlsrv_on_write(struct sup *s, uint32_t who, int res);
/* The journal's fdatasync for connection slot ci's submit finished. */
void ctlsrv_on_sync(struct sup *s, uint32_t ci, int res);

/* check.c: verification of stored partitions by the synths, quarantine */
/* gpu child gi stored partition p of job ji: sample it for verification. */
/* 1 when the partition is to be made again instead (a proof whose synth
 * died before it reported x_out): the caller leaves it queued. */
int check_stored(struct sup *s, int ji, uint32_t p, uint32_t gi);
/* A synth's PART_INFO: x_out of the partition it last streamed. */
void check_part_info(struct sup *s, uint32_t ci);
/* Give synth si a pending verification: 1 if it got one. */
int check_dispatch(struct sup *s, uint32_t si);
/* A VERIFIED frame from synth ci (its payload checked). */
void check_verified(struct sup *s, uint32_t ci);
/* Synth ci is gone: its verification goes back to pending. */
void check_on_exit(struct sup *s, uint32_t ci);
/* No partition of j waits for, or is in, verification: it may commit. */
int check_settled(const struct job *j);
/* Bytes the verifying synths hold (the memory budget). */
uint64_t check_mem(const struct sup *s);

/* part.c: partition p of job ji meets ev (why: the reason a poisoned
 * partition's job fails with). The only writer of a partition's state,
 * attempts and pre-emption flag after its creation; it does not publish.
 * Returns the state it is in after. */
unsigned part_event(struct sup *s, int ji, uint32_t p, enum part_event ev, const char *why);
/* The only writers of a child's holds (hold[], nhold): take r, drop entry
 * i, drop all. */
void part_hold(struct sup *s, uint32_t ci, const struct part_ref *r);
void part_unhold(struct sup *s, uint32_t ci, int i);
void part_unhold_all(struct sup *s, uint32_t ci);

/* params.c: the kinds' params made resident at start (before any child),
 * their memory, and closing them at the end. */
int params_prepare(struct sup *s, char *err, size_t errlen);
uint64_t params_mem(const struct sup *s);
void params_close(struct sup *s);
/* What a job of kind at k ends in: proofs with *params (index + 1) and a
 * PFILE_KIND_PROOFS file (PFILE_KIND_PROOFS_H when the kind keeps H), or
 * H (0, PFILE_KIND_RESULT). A kind with params
 * proves only at their k: another k is -EINVAL with one line (a resumed
 * job passes err NULL and gets H output instead). */
int params_job_output(const struct sup *s, uint32_t kind, uint32_t k, uint8_t *params, uint8_t *file_kind,
		      char *err, size_t errlen);

/* statedir.c */
/* Check the parts of the state directory's path that exist (creates
 * nothing): 0, or -errno with one line in err. */
int statedir_check(const char *dir, char *err, size_t errlen);
/* Create what is missing, check it all, take the lock: s->state_fd and
 * s->lock_fd. 0, or -errno (-EBUSY: another instance holds it). */
int statedir_open(struct sup *s, char *err, size_t errlen);
/* Release the lock (removing the lock file) and close. */
void statedir_close(struct sup *s);

/* log.c */
void sup_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Start writing STATE/log beside stderr (dirfd: the state directory; a
 * copy is kept for the rotation), unless stderr is the journal: 0, or
 * -errno. sup_log_close stops it. */
int sup_log_open(int dirfd);
void sup_log_close(void);
/* snprintf that says when the path did not fit: 0, or -1 (ENAMETOOLONG). */
int sup_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sup_event(struct sup *s, uint32_t type, int table, uint32_t slot, int32_t code,
	       uint64_t job, uint32_t part, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

static inline const char *child_kind_name(const struct child *c)
{
	return c->kind == CHILD_GPU ? "gpu" : "synth";
}

static inline enum shm_table_id child_table(const struct child *c)
{
	return c->kind == CHILD_GPU ? SHM_T_GPU : SHM_T_SYNTH;
}

static inline uint32_t child_who(const struct sup *s, uint32_t ci)
{
	return ci | (uint32_t)s->child[ci].epoch << 16;
}

/* The child a completion is for, or -1 when it belongs to an earlier
 * incarnation (that process is gone and settled). */
static inline int child_of(const struct sup *s, uint32_t who)
{
	uint32_t ci = who & 0xffff;

	return ci < s->nchild && s->child[ci].epoch == (who >> 16) ? (int)ci : -1;
}

#endif
