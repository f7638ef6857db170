/*
 * gpuworker: `gpuworker --instance NAME --slot I --gpu ORD --backend B`,
 * exec'd by the supervisor, one per GPU worker slot. It reads PART_DATA
 * frames on stdin, computes each partition's H-term on its backend, writes
 * H into the partition's region of the job's result file (STATE/jobs/JOB/
 * result.partial, whose fd the supervisor sends on the channel --files-fd
 * before the partition, proto/fdchan.h; format/pfile.h's version 2) and
 * fdatasyncs it, and answers H_DONE
 * with H's digest (or FAIL) on stdout: H never passes through the
 * supervisor. Log lines go to stderr, prefixed "gpuworker[I]: ".
 *
 * Design: the worker holds up to two partitions, one proving and one
 * received, so the device never waits for a transfer when work is queued.
 * Three threads hand work down a line, each hand-off one deep:
 *
 *   receiver  reads and checks a frame, decodes it as it comes (chunks
 *             of rows into a, b, c; every element canonical; checksum
 *             streamed, compared with the trailer); it reads the next
 *             frame only once the prover has taken the last, which is the
 *             back-pressure
 *   prover    shm_slot_begin(gen), the backend's prove (gpuworker/
 *             backend.h: H, and the proof when one is wanted), stores H
 *             or the proof (encode, digest, pwrite, fdatasync), hands
 *             the H_DONE frame to the sender and takes the next partition
 *   sender    writes the frame, and only then shm_slot_end(gen, ok)
 *
 * So the end of one partition is often published after the begin of the
 * next; the slot's generation rule keeps the slot busy through it. The
 * slot writer is not thread-safe: every shm_slot_* call (the heartbeat
 * thread's too) holds gw.shm_lock, and nothing else does.
 *
 * Exit status: 0 EOF on stdin (after sending what it held) or SIGTERM;
 * 1 bad arguments, no segment or slot, out of memory, or a pipe error
 * (EPIPE: the supervisor is gone); 2 a malformed frame from the supervisor
 * (one log line says what); 3 backend cuda asked for but no usable device;
 * 5 the backend lost its device while proving (a CUDA error: the context
 * may be poisoned), so the process ends and the supervisor restarts it;
 * 6 the backend's init found its device unusable; 7 the backend could not
 * be loaded or initialized (gpuworker/hterm.h says what the supervisor
 * does with each).
 *
 * Backends (gpuworker/backend.h): the built-in cpu and cuda, or
 * --backend plugin:PATH, a shared library dlopen'd after the user switch
 * and no_new_privs but before Landlock (which would forbid reading it),
 * and initialized only after Landlock: everything it runs, runs confined.
 * A FAIL's class (proto/frame.h) is the backend's status.
 *
 * Pre-emption (proto/frame.h, FRAME_ABANDON_SIGNAL): the main thread
 * takes the supervisor's queued real-time signal with a generation and records it
 * (the last GW_ABANDON_MAX). A received partition not yet begun is
 * answered FAIL FRAME_FAIL_PREEMPTED at once; one being received is read
 * to its end without decoding and answered so; the one being proved is
 * abandoned at the H-term's next safe point (hterm_set_stop), its slot
 * ended with shm_slot_preempt (neither done nor failed).
 *
 * Proofs (--params N: the resident params of the supervisor's kinds as
 * fds 4 .. 4 + N - 1, read-only): after HELLO the worker maps each (the
 * slot LOADING with its progress, then the load time published), and only
 * then takes work. A PART_DATA whose header names params (reserved = 1 +
 * index) comes right after a PART_ID frame with its seed; the prover
 * takes the witness from the rows (before the H-term overwrites them),
 * then H, then the MSMs (groth16_prove, on --threads threads, with the
 * same safe points as the H-term), and stores the 376-byte proof file
 * into the partition's region of a PFILE_KIND_PROOFS file; or, when the
 * header's FRAME_PARAMS_KEEP_H bit says the kind keeps H, the proof file
 * and then H (still in the rows' place) into its region of a
 * PFILE_KIND_PROOFS_H file, one digest over both. r and s come from
 * libsodium's CSPRNG.
 *
 * Fault points (fault/fault.h, tests only): start before HELLO (no thread
 * runs yet, so start:hang beats no heartbeat); before, shm, during and
 * after in the prover thread around one partition (after: the result
 * frame built, before it is handed to the sender, so the slot is still
 * busy); frame where the H_DONE is sealed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault/fault.h"
#include "curve/msm.h"
#include "format/pfile.h"
#include "groth16/groth16.h"
#include "gpuworker/backend.h"
#include "gpuworker/hterm.h"
#include "proto/confine.h"
#include "proto/fdchan.h"
#include "proto/frame.h"
#include "shm/shm.h"
#include "util/util.h"

#define GW_CHUNK (1u << 20)	/* bytes per read of a payload: 32768 elements */
#define GW_BEAT_NS 250000000L
#define GW_ABANDON_MAX 8	/* abandon requests remembered (it holds at most 3 partitions) */

/* A received partition: its PART_DATA header and a, b, c (3n elements). */
struct gw_part {
	struct frame_hdr hdr;
	fr_t *buf;		/* a, b, c; then, to prove, the witness z */
	size_t cap;		/* elements buf holds */
	int corrupt;		/* well framed, but the payload failed its checksum */
	struct synth_id id;	/* a proof's partition (its PART_ID) */
};

/* A frame for the sender, and what to do once it is written. */
struct gw_out {
	struct frame_hdr hdr;	/* sealed */
	uint8_t *payload;	/* malloc'd, freed by the sender */
	int end;		/* shm_slot_end(hdr.gen, ok) after writing */
	int preempt;		/* shm_slot_preempt(hdr.gen) after writing instead */
	int ok;
	int exit_after;		/* -1, or the status to exit with after it */
};

static struct {
	unsigned slot;
	int gpu;
	struct fdchan files;	/* the jobs' result files (--files-fd) */
	int seg_fd;		/* the status segment (--seg-fd); -1: open it by name */
	int have_user;		/* --user UID:GID: become it (proto/confine.h) */
	uid_t uid;
	gid_t gid;
	enum vocab_backend be;	/* cpu, cuda, or plugin (then plugin is its path) */
	const char *plugin;
	const struct provisor_backend *bk;	/* the backend, through its ABI only */
	void *bk_ctx;
	pthread_mutex_t lock;	/* the hand-offs below */
	pthread_cond_t cond;
	struct gw_part *ready;	/* received, not yet taken by the prover */
	struct gw_part *spare;	/* a proven partition's buffer, for reuse */
	struct gw_part *receiving;	/* the one being read, */
	struct gw_part *proving;	/* the one being proved: reachable at any exit */
	int eof;		/* the receiver saw EOF on stdin */
	struct gw_out out;	/* waiting for the sender when out_full */
	int out_full;
	pthread_mutex_t shm_lock;	/* every shm_slot_* call, and the trace */
	struct shm_slot_writer w;
	FILE *trace;		/* PROVISOR_TRACE_DIR: ground truth for tests */
	_Atomic uint64_t abandon[GW_ABANDON_MAX];	/* generations to abandon */
	unsigned nabandon;	/* main thread only: the next entry to write */
	_Atomic uint64_t proving_gen;	/* the H-term's partition, for the stop hook */
	unsigned nparams;	/* --params N */
	struct groth16_params params[VOCAB_NKINDS];	/* mapped from fds 4.. after HELLO */
	unsigned threads;	/* --threads: the MSMs' (0: every CPU) */
} gw = {
	.seg_fd = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.shm_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void gw_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof line, "gpuworker[%u]: ", gw.slot);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

/* End the process from any thread. Taking the slot lock first means no
 * record is left half-published (a reader would cope, but needn't). */
static _Noreturn void gw_exit(int status)
{
	pthread_mutex_lock(&gw.shm_lock);
	_exit(status);
}

/*
 * The trace (only when PROVISOR_TRACE_DIR is set) is what this worker
 * knows it did, with CLOCK_MONOTONIC times, for tests and benchmarks to
 * hold the status segment against:
 *   A gen job part t      a PART_DATA header read at t (its rows follow
 *                         as the synth makes them)
 *   W gen t               its payload whole and checked at t
 *   B gen job part t      begin published at t
 *   P gen t               the H-term finished computing at t
 *   E gen t0 t1           end published between t0 and t1
 * Called with shm_lock held.
 */
static void gw_trace(const char *fmt, ...)
{
	va_list ap;

	if (!gw.trace)
		return;
	va_start(ap, fmt);
	vfprintf(gw.trace, fmt, ap);
	va_end(ap);
	fflush(gw.trace);
}

/* A trace time must not run ahead of what readers can see: drain this
 * CPU's store buffer first (a locked RMW is a full barrier on x86-64, and
 * a seq_cst one everywhere), so the published record is visible to every
 * reader by the time the clock is read. */
static uint64_t gw_trace_now(void)
{
	static _Atomic uint64_t barrier;

	atomic_fetch_add_explicit(&barrier, 1, memory_order_seq_cst);
	return shm_now_mono();
}

static void gw_trace_open(void)
{
	const char *dir = secure_getenv("PROVISOR_TRACE_DIR");
	char path[512];

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof path, "%s/gpu.%u.%d", dir, gw.slot, (int)getpid());
	gw.trace = fopen(path, "we");
	if (!gw.trace)
		gw_log("trace %s: %s", path, strerror(errno));
}

static int gw_begin(uint64_t gen, const struct shm_assign *a)
{
	pthread_mutex_lock(&gw.shm_lock);
	int rc = shm_slot_begin(&gw.w, gen, a);
	if (rc == 0 && gw.trace)
		gw_trace("B %llu %llu %u %llu\n", (unsigned long long)gen,
			 (unsigned long long)a->job_id, a->partition,
			 (unsigned long long)gw_trace_now());
	pthread_mutex_unlock(&gw.shm_lock);
	return rc;
}

static void gw_end(uint64_t gen, int ok)
{
	pthread_mutex_lock(&gw.shm_lock);
	uint64_t t0 = shm_now_mono();
	shm_slot_end(&gw.w, gen, ok);
	if (gw.trace)
		gw_trace("E %llu %llu %llu\n", (unsigned long long)gen, (unsigned long long)t0,
			 (unsigned long long)gw_trace_now());
	pthread_mutex_unlock(&gw.shm_lock);
}

static void gw_proved(uint64_t gen)
{
	if (!gw.trace)
		return;
	pthread_mutex_lock(&gw.shm_lock);
	gw_trace("P %llu %llu\n", (unsigned long long)gen, (unsigned long long)shm_now_mono());
	pthread_mutex_unlock(&gw.shm_lock);
}

/* Did the supervisor ask for generation gen to be abandoned? */
static int gw_abandoned(uint64_t gen)
{
	for (unsigned i = 0; i < GW_ABANDON_MAX; i++)
		if (atomic_load(&gw.abandon[i]) == gen)
			return 1;
	return 0;
}

/* The H-term's safe points (hterm_set_stop). */
static int gw_stop_hook(void *arg)
{
	(void)arg;
	return gw_abandoned(atomic_load(&gw.proving_gen));
}

static void gw_preempted(uint64_t gen)
{
	pthread_mutex_lock(&gw.shm_lock);
	shm_slot_preempt(&gw.w, gen);
	if (gw.trace)
		gw_trace("X %llu %llu\n", (unsigned long long)gen, (unsigned long long)gw_trace_now());
	pthread_mutex_unlock(&gw.shm_lock);
}

static void gw_answer_preempted(const struct frame_hdr *h, int begun);

/* ---- receiver ---- */

/* A malformed frame from the supervisor: one line, exit 2. */
static _Noreturn void gw_bad_input(const struct frame_hdr *h, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (h)
		gw_log("malformed PART_DATA (job %llu partition %u) from the supervisor: %s",
		       (unsigned long long)h->job, h->partition, why);
	else
		gw_log("malformed frame from the supervisor: %s", why);
	gw_exit(2);
}

/* Read len payload bytes of h into dst, adding them to sum (when not
 * NULL); *got counts the payload bytes read so far. A short input is a
 * malformed frame. */
static void gw_read_payload(const struct frame_hdr *h, void *dst, size_t len, uint64_t *got,
			    struct frame_sum *sum)
{
	uint8_t *p = dst;

	for (size_t off = 0, l; off < len; off += l) {
		int rc;

		l = len - off < GW_CHUNK ? len - off : GW_CHUNK;
		rc = frame_read_full(STDIN_FILENO, p + off, l);
		if (rc == 1 || rc == -EPIPE)
			gw_bad_input(h, "input ended after %llu of %llu payload bytes",
				     (unsigned long long)*got, (unsigned long long)h->payload_len);
		if (rc) {
			gw_log("reading stdin failed: %s", strerror(-rc));
			gw_exit(1);
		}
		if (sum)
			frame_sum_update(sum, p + off, l);
		*got += l;
	}
}

/* Decode cnt elements of vector vec (0 a, 1 b, 2 c) from row first on,
 * read as bytes into v[first..] (v is that vector), in place: an encoding
 * and an element are both 32 bytes. at: their payload offset. */
static void gw_decode(const struct frame_hdr *h, fr_t *v, unsigned vec, size_t first, size_t cnt,
		      uint64_t at)
{
	for (size_t i = first; i < first + cnt; i++) {
		uint8_t enc[FR_BYTES];

		memcpy(enc, &v[i], FR_BYTES);
		if (fr_from_bytes(&v[i], enc))
			gw_bad_input(h, "element %c[%zu] at payload offset %llu is not canonical (>= r)",
				     "abc"[vec], i, (unsigned long long)(at + (i - first) * FR_BYTES));
	}
}

/* A PART_ID (its header in p->hdr): the seed into p->id, then the next
 * header, which must be its PART_DATA's, into p->hdr. */
static void gw_recv_id(struct gw_part *p)
{
	struct frame_hdr *h = &p->hdr, idh = *h;
	struct frame_synth_req req;
	char err[256];
	int rc = frame_read_full(STDIN_FILENO, &req, sizeof req);

	if (rc)
		gw_bad_input(NULL, "input ended in a PART_ID frame");
	if (frame_checksum(&req, sizeof req) != idh.checksum || req.seed_len < 1 ||
	    req.seed_len > SYNTH_SEED_MAX)
		gw_bad_input(NULL, "PART_ID payload checksum mismatch or seed length %u", req.seed_len);
	rc = frame_read_full(STDIN_FILENO, h, sizeof *h);
	if (rc)
		gw_bad_input(NULL, "input ended after a PART_ID frame");
	if (frame_check_hdr(h, VOCAB_LOG_MAX, err, sizeof err))
		gw_bad_input(NULL, "%s", err);
	if (h->type != FRAME_PART_DATA || h->job != idh.job || h->partition != idh.partition ||
	    h->gen != idh.gen || h->log_size != idh.log_size)
		gw_bad_input(NULL, "a PART_ID frame is not followed by its PART_DATA");
	memcpy(p->id.seed, req.seed, req.seed_len);
	p->id.seed_len = req.seed_len;
	p->id.partition = h->partition;
	p->id.k = h->log_size;
}

/* Read one PART_DATA into p (growing its buffer). 0, or 1 on clean EOF;
 * anything malformed ends the process. The payload comes as the synth
 * streams it (proto/frame.h): chunks of frame_part_chunk_rows rows, each
 * a, b, c of its rows, read straight into their places in p->buf (a at
 * [0, n), b at [n, 2n), c at [2n, 3n)), checksummed and decoded as they
 * come; then the 8-byte trailer, the checksum of it all. */
static int gw_recv(struct gw_part *p)
{
	struct frame_hdr *h = &p->hdr;
	struct frame_sum sum;
	uint8_t trailer[FRAME_TRAILER_BYTES];
	uint64_t got = 0;
	size_t n, rows;
	char err[256];
	int rc = frame_read_full(STDIN_FILENO, h, sizeof *h);

	if (rc == 1)
		return 1;
	if (rc == -EPIPE)
		gw_bad_input(NULL, "input ended in the middle of a frame header");
	if (rc) {
		gw_log("reading stdin failed: %s", strerror(-rc));
		gw_exit(1);
	}
	if (frame_check_hdr(h, VOCAB_LOG_MAX, err, sizeof err))
		gw_bad_input(NULL, "%s", err);
	memset(&p->id, 0, sizeof p->id);
	if (h->type == FRAME_PART_ID)
		gw_recv_id(p);	/* and the PART_DATA header after it */
	if (h->type != FRAME_PART_DATA)
		gw_bad_input(NULL, "unexpected %s frame (expected PART_DATA)", frame_type_name(h->type));
	uint32_t pi = FRAME_PARAMS_INDEX(h->reserved);
	if (h->reserved & ~(FRAME_PARAMS_KEEP_H | 0xffffu))
		gw_bad_input(h, "unknown bits in its params field %#x", h->reserved);
	if (h->reserved && (!pi || pi > gw.nparams || gw.params[pi - 1].k != h->log_size || !p->id.seed_len))
		gw_bad_input(h, "params %u for k = %u: %s", pi, h->log_size,
			     !pi ? "H kept, but no params to prove with"
			     : pi > gw.nparams ? "this worker has no such params"
			     : !p->id.seed_len ? "no PART_ID frame came before it" : "they are for another k");
	if (gw.trace) {
		pthread_mutex_lock(&gw.shm_lock);
		gw_trace("A %llu %llu %u %llu\n", (unsigned long long)h->gen,
			 (unsigned long long)h->job, h->partition, (unsigned long long)shm_now_mono());
		pthread_mutex_unlock(&gw.shm_lock);
	}
	n = (size_t)1 << h->log_size;
	rows = (size_t)frame_part_chunk_rows(h->log_size);
	size_t need = (h->reserved ? 4 : 3) * n;	/* a proof: room for the witness too */
	if (p->cap < need) {
		free(p->buf);
		p->cap = 0;
		p->buf = malloc(need * sizeof(fr_t));
		if (!p->buf || frame_sum_init(&sum)) {
			gw_log("out of memory for a partition of k = %u", h->log_size);
			gw_exit(1);
		}
		p->cap = need;
	} else if (frame_sum_init(&sum)) {
		gw_log("out of memory for a checksum state");
		gw_exit(1);
	}
	for (size_t first = 0; first < n; first += rows)
		for (unsigned vec = 0; vec < 3; vec++) {
			fr_t *v = p->buf + vec * n;
			uint64_t at = got;

			gw_read_payload(h, v + first, rows * FR_BYTES, &got, &sum);
			if (!gw_abandoned(h->gen))	/* else only read to its end */
				gw_decode(h, v, vec, first, rows, at);
		}
	gw_read_payload(h, trailer, sizeof trailer, &got, NULL);
	/* The stream is still framed (the header was sound): refuse this one
	 * partition with a FAIL and carry on. The supervisor pads a relay
	 * whose synth died mid-way with zeros, which lands here (zeros are
	 * canonical, and a zero trailer is not the checksum). */
	p->corrupt = frame_sum_final(&sum) != util_le64_get(trailer);
	if (gw.trace) {
		pthread_mutex_lock(&gw.shm_lock);
		gw_trace("W %llu %llu\n", (unsigned long long)h->gen, (unsigned long long)shm_now_mono());
		pthread_mutex_unlock(&gw.shm_lock);
	}
	return 0;
}

/* Receive until EOF, holding at most one received partition: the next
 * frame is read only after the prover took the last one. */
static void *gw_receiver(void *arg)
{
	(void)arg;
	for (;;) {
		struct gw_part *p;

		pthread_mutex_lock(&gw.lock);
		while (gw.ready)
			pthread_cond_wait(&gw.cond, &gw.lock);
		p = gw.spare;
		gw.spare = NULL;
		pthread_mutex_unlock(&gw.lock);
		if (!p && !(p = calloc(1, sizeof *p))) {
			gw_log("out of memory");
			gw_exit(1);
		}
		pthread_mutex_lock(&gw.lock);
		gw.receiving = p;
		pthread_mutex_unlock(&gw.lock);
		int eof = gw_recv(p);

		pthread_mutex_lock(&gw.lock);
		gw.receiving = NULL;
		/* revoked while it came (checked under the lock gw_abandon
		 * records requests under, so none falls between) */
		if (!eof && gw_abandoned(p->hdr.gen)) {
			pthread_mutex_unlock(&gw.lock);
			gw_answer_preempted(&p->hdr, 0);
			pthread_mutex_lock(&gw.lock);
			if (gw.spare) {
				free(p->buf);
				free(p);
			} else {
				gw.spare = p;
			}
			pthread_mutex_unlock(&gw.lock);
			continue;
		}
		if (eof) {
			if (gw.spare) {	/* the prover left one meanwhile: keep one */
				free(p->buf);
				free(p);
			} else {
				gw.spare = p;
			}
			gw.eof = 1;
		} else {
			gw.ready = p;
		}
		pthread_cond_broadcast(&gw.cond);
		pthread_mutex_unlock(&gw.lock);
		if (eof)
			return NULL;
	}
}

/* ---- prover ---- */

/* Queue o for the sender (one waiting at most). */
static void gw_hand(const struct gw_out *o)
{
	pthread_mutex_lock(&gw.lock);
	while (gw.out_full)
		pthread_cond_wait(&gw.cond, &gw.lock);
	gw.out = *o;
	gw.out_full = 1;
	pthread_cond_broadcast(&gw.cond);
	pthread_mutex_unlock(&gw.lock);
}

/* A FAIL frame for partition h with reason why, of class cls (enum
 * frame_fail_class). */
static void gw_fail_out(struct gw_out *o, const struct frame_hdr *h, uint32_t cls, const char *why)
{
	size_t len = strnlen(why, FRAME_FAIL_MAX);

	frame_init(&o->hdr, FRAME_FAIL, h->job, h->partition, h->kind, h->log_size, h->gen);
	o->hdr.reserved = cls;
	o->payload = malloc(len ? len : 1);
	if (!o->payload) {
		gw_log("out of memory");
		gw_exit(1);
	}
	memcpy(o->payload, why, len);
	frame_seal(&o->hdr, o->payload, len);
	/* Its result file came on the channel before it: taken off (and
	 * closed), so that a worker failing partition after partition never
	 * lets the channel fill up. */
	int fd = fdchan_get(&gw.files, h->job);
	if (fd >= 0)
		close(fd);
}

/* Answer FAIL FRAME_FAIL_PREEMPTED for h's partition; its slot is ended
 * (begun) or just counted by shm_slot_preempt once the frame is out. */
static void gw_answer_preempted(const struct frame_hdr *h, int begun)
{
	struct gw_out o = { .exit_after = -1, .preempt = 1 };

	gw_log("job %llu partition %u: abandoned on the supervisor's request%s",
	       (unsigned long long)h->job, h->partition, begun ? " (pre-empted while proving)" : "");
	gw_fail_out(&o, h, FRAME_FAIL_STOPPED, FRAME_FAIL_PREEMPTED);
	gw_hand(&o);
}

/* A piece of a partition's region, written in order after the one before. */
struct gw_piece {
	const uint8_t *bytes;
	size_t len;
};

/* H's n elements (Montgomery form) turned into their canonical encodings
 * in place: an element and its encoding are both 32 bytes. */
static uint8_t *gw_encode_h(const struct frame_hdr *h, fr_t *H)
{
	size_t n = (size_t)1 << h->log_size;
	uint8_t *bytes = (uint8_t *)H;

	static_assert(sizeof(fr_t) == FR_BYTES, "in-place encoding");
	for (size_t i = 0; i < n; i++) {
		fr_t t = H[i];
		fr_to_bytes(bytes + i * FR_BYTES, &t);
	}
	return bytes;
}

/* Store a partition's region into the job's result file,
 * STATE/jobs/JOB/result.partial, whose fd came on gw.files: the pieces
 * written one after another from off, fdatasync'd, and their digest in
 * d->digest: one BLAKE2b-256 over the whole region (a proof and its H: one
 * table entry covers both), hashed from the very buffers written. A
 * failure is the state directory's, not the partition's: d->err and d->op
 * say what failed, and the supervisor blocks the job instead of failing
 * the partition. what names the region in a log line. */
static void gw_store_region(const struct frame_hdr *h, const struct gw_piece *pc, unsigned npc, off_t off,
			    const char *what, struct frame_h_done *d)
{
	struct pfile_digest dg;
	int fd;

	memset(d, 0, sizeof *d);
	pfile_digest_init(&dg);
	for (unsigned i = 0; i < npc; i++)
		pfile_digest_update(&dg, pc[i].bytes, pc[i].len);
	pfile_digest_final(&dg, d->digest);
	fd = fdchan_get(&gw.files, h->job);
	if (fd < 0) {
		d->err = errno;
		d->op = FRAME_STORE_OPEN;
	}
	for (unsigned i = 0; fd >= 0 && !d->err && i < npc; off += (off_t)pc[i++].len)
		for (size_t done = 0; done < pc[i].len;) {
			ssize_t w = pwrite(fd, pc[i].bytes + done, pc[i].len - done, off + (off_t)done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				d->err = w < 0 ? errno : EIO;
				d->op = FRAME_STORE_WRITE;
				break;
			}
			done += (size_t)w;
		}
	if (fd >= 0 && !d->err && fdatasync(fd) < 0) {
		d->err = errno;
		d->op = FRAME_STORE_SYNC;
	}
	if (fd >= 0)
		close(fd);
	if (d->err) {
		memset(d->digest, 0, sizeof d->digest);
		gw_log("job %llu partition %u: storing %s in its result file failed: %s",
		       (unsigned long long)h->job, h->partition, what, strerror(d->err));
	}
}

/* Store h's partition's H (n elements in Montgomery form at H, encoded in
 * place) into its region of a result file. */
static void gw_store(const struct frame_hdr *h, fr_t *H, struct frame_h_done *d)
{
	struct gw_piece pc = { gw_encode_h(h, H), (size_t)FR_BYTES << h->log_size };

	gw_store_region(h, &pc, 1, (off_t)pfile_result2_part_off(h->log_size, h->partition), "H", d);
}

/* Store the proof file f into its region of a proofs file or, keep_h, the
 * proof file and then H (at H, encoded in place) into its region of a
 * proofs+H file (format/pfile.h). */
static void gw_store_proof(const struct frame_hdr *h, const struct groth16_proof_file *f, fr_t *H,
			   int keep_h, struct frame_h_done *d)
{
	uint8_t out[GROTH16_PROOF_BYTES];
	struct gw_piece pc[2] = { { out, sizeof out } };
	uint32_t kind = keep_h ? PFILE_KIND_PROOFS_H : PFILE_KIND_PROOFS;

	static_assert(GROTH16_PROOF_BYTES == PFILE_PROOF_REGION, "a proofs file's region starts with a proof file");
	groth16_proof_encode(out, f);
	if (keep_h) {
		pc[1].bytes = gw_encode_h(h, H);
		pc[1].len = (size_t)FR_BYTES << h->log_size;
	}
	gw_store_region(h, pc, keep_h ? 2 : 1, (off_t)pfile_res_part_off(kind, h->log_size, h->partition),
			keep_h ? "the proof and H" : "the proof", d);
}

/* The H_DONE frame of h's partition. Returns 1 when H was stored, or 0
 * (a storage error, or fault injection made it a FAIL frame instead). */
static int gw_done_out(struct gw_out *o, const struct frame_hdr *h, const struct frame_h_done *d,
		       uint64_t work_ns)
{
	frame_init(&o->hdr, FRAME_H_DONE, h->job, h->partition, h->kind, h->log_size, h->gen);
	o->hdr.work_ns = work_ns;
	o->payload = malloc(sizeof *d);
	if (!o->payload) {
		gw_log("out of memory");
		gw_exit(1);
	}
	memcpy(o->payload, d, sizeof *d);
	frame_seal(&o->hdr, o->payload, sizeof *d);
	switch (fault_frame()) {
	case FAULT_FRAME_OK:
		break;
	case FAULT_FRAME_CORRUPT:	/* after the seal: the receiver's check must catch it */
		o->payload[sizeof *d / 2] ^= 0xff;
		break;
	case FAULT_FRAME_HOSTILE:
		free(o->payload);
		gw_fail_out(o, h, FRAME_FAIL_PARTITION, FAULT_HOSTILE_REASON);
		return 0;
	}
	return !d->err;
}

/* The backend's status as a FAIL frame's class. */
static uint32_t gw_fail_class(int status)
{
	switch (status) {
	case PROVISOR_BE_NOMEM: return FRAME_FAIL_NOMEM;
	case PROVISOR_BE_DEVICE_LOST: return FRAME_FAIL_DEVICE_LOST;
	case PROVISOR_BE_BAD_INPUT: return FRAME_FAIL_BAD_INPUT;
	default: return FRAME_FAIL_INTERNAL;
	}
}

/* Run the backend on p: the witness first when a proof is wanted (from
 * the rows, before they are overwritten), r and s from the CSPRNG. The
 * backend's status, with err set when it is not OK; the proof file in f. */
static int gw_backend_prove(struct gw_part *p, struct groth16_proof_file *f, char *err, size_t errlen)
{
	const struct frame_hdr *h = &p->hdr;
	size_t n = (size_t)1 << h->log_size;
	const struct groth16_params *pp = h->reserved ? &gw.params[FRAME_PARAMS_INDEX(h->reserved) - 1] : NULL;
	fr_t r, s;
	struct provisor_be_part bp = {
		.k = h->log_size, .a = p->buf, .b = p->buf + n, .c = p->buf + 2 * n, .params = pp,
		.z = pp ? p->buf + 3 * n : NULL, .r = &r, .s = &s, .ticket = h->gen,
	};
	struct provisor_be_out bo = { .h = p->buf, .proof = &f->proof, .err = err, .err_len = errlen };
	int rc;

	if (pp) {
		synth_witness_from_rows(h->log_size, p->buf, p->buf + 2 * n, p->buf + 3 * n);
		groth16_randomness(&r, &s);
	}
	err[0] = '\0';
	rc = gw.bk->prove(gw.bk_ctx, &bp, &bo);
	sodium_memzero(&r, sizeof r);
	sodium_memzero(&s, sizeof s);
	if (rc < 0 || rc >= PROVISOR_BE_NSTATUS) {
		snprintf(err, errlen, "backend %s returned %d, not a status", gw.bk->name, rc);
		return PROVISOR_BE_INTERNAL;
	}
	if (rc != PROVISOR_BE_OK && rc != PROVISOR_BE_STOPPED && !err[0])
		snprintf(err, errlen, "backend %s: %s", gw.bk->name, provisor_be_status_name(rc));
	err[errlen - 1] = '\0';
	if (rc == PROVISOR_BE_OK && !pp && !hterm_check_top(p->buf, h->log_size)) {
		snprintf(err, errlen, "unsatisfied system: H's top coefficient is not zero "
			 "(a[i]*b[i] != c[i] for some row)");
		return PROVISOR_BE_BAD_INPUT;
	}
	if (rc == PROVISOR_BE_OK && pp) {
		memcpy(f->vk_digest, pp->vk_digest, sizeof f->vk_digest);
		f->x[0] = bp.z[1];
		f->x[1] = bp.z[2];
	}
	return rc;
}

/* Prove one partition through begin/end. Returns 0 to carry on, -1 when
 * the backend lost its device and nothing more may run in this process. */
static int gw_prove(struct gw_part *p)
{
	const struct frame_hdr *h = &p->hdr;
	struct shm_assign as = { h->job, h->partition, h->kind };
	struct gw_out o = { .exit_after = -1 };
	struct groth16_proof_file f = { .id = p->id };
	char err[256] = "", why[320];
	uint64_t t0;

	if (p->corrupt) {
		gw_log("job %llu partition %u: payload checksum mismatch: partition refused",
		       (unsigned long long)h->job, h->partition);
		gw_fail_out(&o, h, FRAME_FAIL_BAD_PAYLOAD, FRAME_FAIL_CHECKSUM);
		gw_hand(&o);
		return 0;
	}
	fault_point(FAULT_BEFORE);
	if (gw_abandoned(h->gen)) {
		gw_answer_preempted(h, 0);
		return 0;
	}
	fault_point(FAULT_SHM);	/* this thread's next status write is the begin */
	if (gw_begin(h->gen, &as)) {
		snprintf(why, sizeof why, "generation %llu is not newer than the slot's",
			 (unsigned long long)h->gen);
		gw_log("job %llu partition %u refused: %s", (unsigned long long)h->job,
		       h->partition, why);
		gw_fail_out(&o, h, FRAME_FAIL_PARTITION, why);
		gw_hand(&o);
		return 0;
	}
	o.end = 1;
	/* Published before the check, each side seq_cst (gw_abandon: the
	 * request, then proving_gen): a request is seen by one of them. */
	atomic_store(&gw.proving_gen, h->gen);
	if (gw_abandoned(h->gen))
		gw.bk->abandon(gw.bk_ctx, h->gen);
	fault_point(FAULT_DURING);
	t0 = shm_now_mono();
	int rc = gw_backend_prove(p, &f, err, sizeof err);
	gw_proved(h->gen);
	if (rc == PROVISOR_BE_STOPPED) {
		gw_answer_preempted(h, 1);
		return 0;
	}
	if (rc != PROVISOR_BE_OK) {
		snprintf(why, sizeof why, "%s", err);
		gw_log("job %llu partition %u: %s (%s)%s", (unsigned long long)h->job, h->partition, why,
		       provisor_be_status_name(rc),
		       rc == PROVISOR_BE_DEVICE_LOST ? "; exiting for a restart" : "");
		gw_fail_out(&o, h, gw_fail_class(rc), why);
		if (rc == PROVISOR_BE_DEVICE_LOST)
			o.exit_after = GPUWORKER_EXIT_DEVICE_LOST;
		gw_hand(&o);
		return rc == PROVISOR_BE_DEVICE_LOST ? -1 : 0;
	}
	struct frame_h_done d;
	int keep_h = (h->reserved & FRAME_PARAMS_KEEP_H) != 0;
	if (!h->reserved) {
		if (fault_store())	/* a faulty device: one bit of H[0] wrong */
			p->buf[0].l[0] ^= 1;
		gw_store(h, p->buf, &d);
	} else {
		/* A faulty device: with H kept, one bit of H[0] wrong, the proof
		 * sound (only the H check can tell); else A and C swapped, the
		 * points still valid (only the pairing can tell). */
		if (fault_store()) {
			if (keep_h) {
				p->buf[0].l[0] ^= 1;
			} else {
				g1_affine_t t = f.proof.a;
				f.proof.a = f.proof.c;
				f.proof.c = t;
			}
		}
		gw_store_proof(h, &f, p->buf, keep_h, &d);
	}
	o.ok = gw_done_out(&o, h, &d, shm_now_mono() - t0);
	fault_point(FAULT_AFTER);
	gw_hand(&o);
	return 0;
}

static void *gw_prover(void *arg)
{
	(void)arg;
	for (;;) {
		struct gw_part *p;

		pthread_mutex_lock(&gw.lock);
		while (!gw.ready && !gw.eof)
			pthread_cond_wait(&gw.cond, &gw.lock);
		p = gw.ready;
		gw.ready = NULL;
		gw.proving = p;
		pthread_cond_broadcast(&gw.cond);
		pthread_mutex_unlock(&gw.lock);
		if (!p) {	/* EOF and nothing left: the sender exits after the rest */
			gw_hand(&(struct gw_out){ .exit_after = 0 });
			return NULL;
		}
		int rc = gw_prove(p);

		pthread_mutex_lock(&gw.lock);
		if (gw.spare) {
			free(gw.spare->buf);
			free(gw.spare);
		}
		gw.spare = p;
		gw.proving = NULL;
		pthread_cond_broadcast(&gw.cond);
		pthread_mutex_unlock(&gw.lock);
		if (rc)
			return NULL;
	}
}

/* ---- sender and heartbeat ---- */

static void *gw_sender(void *arg)
{
	(void)arg;
	for (;;) {
		struct gw_out o;
		int rc = 0;

		pthread_mutex_lock(&gw.lock);
		while (!gw.out_full)
			pthread_cond_wait(&gw.cond, &gw.lock);
		o = gw.out;
		gw.out_full = 0;
		pthread_cond_broadcast(&gw.cond);
		pthread_mutex_unlock(&gw.lock);
		if (o.hdr.magic)	/* the EOF sentinel has no frame, only exit_after */
			rc = frame_send(STDOUT_FILENO, &o.hdr, o.payload);
		if (rc) {
			gw_log("write to the supervisor failed: %s; exiting", strerror(-rc));
			gw_exit(1);
		}
		if (o.end)
			gw_end(o.hdr.gen, o.ok);
		else if (o.preempt)
			gw_preempted(o.hdr.gen);
		free(o.payload);
		if (o.exit_after >= 0)
			gw_exit(o.exit_after);
	}
}

static void *gw_heartbeat(void *arg)
{
	struct timespec t = { 0, GW_BEAT_NS };

	(void)arg;
	while (nanosleep(&t, NULL) == 0 || errno == EINTR) {
		pthread_mutex_lock(&gw.shm_lock);
		shm_slot_heartbeat(&gw.w);
		pthread_mutex_unlock(&gw.shm_lock);
	}
	gw_log("heartbeat: nanosleep: %s", strerror(errno));
	return NULL;
}

/* The supervisor asks for generation gen to be abandoned (main thread):
 * remembered for the receiver, the prover and the H-term's safe points;
 * a received partition waiting for the prover is answered now. */
static void gw_abandon(uint64_t gen)
{
	struct gw_part *p = NULL;

	pthread_mutex_lock(&gw.lock);
	atomic_store(&gw.abandon[gw.nabandon++ % GW_ABANDON_MAX], gen);
	if (atomic_load(&gw.proving_gen) == gen)	/* the backend stops at its next safe point */
		gw.bk->abandon(gw.bk_ctx, gen);
	if (gw.ready && gw.ready->hdr.gen == gen) {
		p = gw.ready;
		gw.ready = NULL;
		pthread_cond_broadcast(&gw.cond);	/* the receiver may read the next */
	}
	pthread_mutex_unlock(&gw.lock);
	if (!p)
		return;		/* the others see it themselves */
	gw_answer_preempted(&p->hdr, 0);
	pthread_mutex_lock(&gw.lock);
	if (gw.spare) {
		free(p->buf);
		free(p);
	} else {
		gw.spare = p;
	}
	pthread_mutex_unlock(&gw.lock);
}

/* ---- start ---- */

static _Noreturn void gw_usage(void)
{
	fprintf(stderr, "usage: gpuworker --instance NAME --slot I [--gpu ORD] "
		"[--backend auto|cpu|cuda|plugin:PATH] [--files-fd FD] [--seg-fd FD] [--user UID:GID] [--quiet-backend] [--params N] [--threads N]\n");
	exit(1);
}

static unsigned gw_number(const char *s)
{
	uint64_t v;

	if (util_num(s, UTIL_NUM_DIGITS, 0, 65535, &v))
		gw_usage();
	return (unsigned)v;
}

static void gw_args(int argc, char **argv, const char **name)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'n' },
		{ "slot", required_argument, NULL, 's' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "backend", required_argument, NULL, 'b' },
		{ "files-fd", required_argument, NULL, 'j' },
		{ "seg-fd", required_argument, NULL, 'S' },
		{ "user", required_argument, NULL, 'u' },
		{ "quiet-backend", no_argument, NULL, 'q' },
		{ "params", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int have_slot = 0, c;

	gw.be = VOCAB_BACKEND_AUTO;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n')
			*name = optarg;
		else if (c == 's')
			gw.slot = gw_number(optarg), have_slot = 1;
		else if (c == 'g')
			gw.gpu = (int)gw_number(optarg);
		else if (c == 'j')
			fdchan_init(&gw.files, (int)gw_number(optarg));
		else if (c == 'S')
			gw.seg_fd = (int)gw_number(optarg);
		else if (c == 'u' && confine_parse_user(optarg, &gw.uid, &gw.gid) == 0)
			gw.have_user = 1;
		else if (c == 'q')
			hterm_backend_quiet = 1;
		else if (c == 'p' && (gw.nparams = gw_number(optarg)) <= VOCAB_NKINDS)
			continue;
		else if (c == 't')
			gw.threads = gw_number(optarg);
		else if (c == 'b' && !strncmp(optarg, "plugin:", 7) && optarg[7])
			gw.be = VOCAB_BACKEND_PLUGIN, gw.plugin = optarg + 7;
		else if (c == 'b' && vocab_backend_parse(optarg, &gw.be) == 0)
			continue;
		else
			gw_usage();
	}
	if (!*name || !have_slot || optind != argc)
		gw_usage();
}

static void gw_hello(void)
{
	struct frame_hello hello = {
		.pid = (uint32_t)getpid(), .backend = (uint32_t)gw.be, .gpu = (uint32_t)gw.gpu,
	};
	struct frame_hdr h;
	int rc;

	/* No CUDA call here: the device is described in the log once the
	 * backend is resolved, after HELLO. */
	snprintf(hello.desc, sizeof hello.desc, "gpuworker slot %u: backend %s%s%s", gw.slot,
		 vocab_backend_name(gw.be), gw.plugin ? " " : "", gw.plugin ? gw.bk->name : "");
	frame_init(&h, FRAME_HELLO, 0, 0, 0, 0, 0);
	frame_seal(&h, &hello, sizeof hello);
	rc = frame_send(STDOUT_FILENO, &h, &hello);
	if (rc) {
		gw_log("write to the supervisor failed: %s; exiting", strerror(-rc));
		exit(1);
	}
}

/* Take the slot: STARTING, with the GPU ordinal recorded. From the
 * segment fd the supervisor passed (--seg-fd: only this slot's page is
 * mapped writable, and the fd is closed), else by the instance's name (a
 * worker started by hand). */
static void gw_attach(const char *name, struct shm_seg *seg)
{
	char err[256];
	int rc;

	if (gw.seg_fd >= 0) {
		rc = shm_slot_attach_fd(&gw.w, gw.seg_fd, SHM_T_GPU, gw.slot, err, sizeof err);
		close(gw.seg_fd);
		gw.seg_fd = -1;
		if (rc) {
			gw_log("status segment: %s", err);
			exit(1);
		}
	} else {
		if (shm_open_rw(seg, name, err, sizeof err) < 0) {
			gw_log("status segment: %s", err);
			exit(1);
		}
		rc = shm_slot_attach(&gw.w, seg, SHM_T_GPU, gw.slot);
		if (rc) {
			gw_log("cannot take GPU slot %u: %s", gw.slot, strerror(-rc));
			exit(1);
		}
	}
	/* The ordinal is this process's own fact; ready publishes it. */
	gw.w.cur.gpu = (uint32_t)gw.gpu;
	gw_trace_open();
}

static void gw_load_progress(void *arg, uint64_t done, uint64_t total)
{
	const unsigned *i = arg;
	uint64_t permille = (*i * 1000 + done * 1000 / (total ? total : 1)) / gw.nparams;

	pthread_mutex_lock(&gw.shm_lock);
	shm_slot_loading(&gw.w, (uint32_t)permille, 0);
	pthread_mutex_unlock(&gw.shm_lock);
}

/* After HELLO, with the heartbeat running: map the params (fds 4..),
 * LOADING meanwhile, then IDLE with the load time published. */
static void gw_load(void)
{
	uint64_t t0 = shm_now_mono(), bytes = 0;
	char err[256];

	for (unsigned i = 0; i < gw.nparams; i++) {
		gw_load_progress(&i, 0, 1);
		if (groth16_resident_map(4 + (int)i, &gw.params[i], gw_load_progress, &i, err, sizeof err)) {
			gw_log("params fd %u: %s", 4 + i, err);
			gw_exit(1);
		}
		close(4 + (int)i);	/* the mapping stays */
		bytes += gw.params[i].map_len;
	}
	uint64_t ns = shm_now_mono() - t0;
	pthread_mutex_lock(&gw.shm_lock);
	shm_slot_loading(&gw.w, 1000, ns ? ns : 1);
	pthread_mutex_unlock(&gw.shm_lock);
	gw_log("params loaded: %u file(s), %.1f MiB in %.6f s", gw.nparams, (double)bytes / 1048576.0,
	       (double)ns / 1e9);
}

/* The backend's init, once the params are mapped: a device it cannot
 * use disables the slot (exit 6), any other failure but memory is the
 * backend's (exit 7). Then the slot is IDLE. */
static void gw_backend_init(void)
{
	char desc[200] = "";
	struct provisor_be_init in = {
		.size = sizeof in, .device = gw.gpu, .slot = gw.slot, .threads = gw.threads,
		.nparams = gw.nparams, .params = gw.params, .desc = desc, .desc_len = sizeof desc,
	};
	int rc = gw.bk->init(&in, &gw.bk_ctx);

	desc[sizeof desc - 1] = '\0';
	if (rc != PROVISOR_BE_OK) {
		gw_log("backend %s: init failed (%s)%s%s", gw.bk->name, provisor_be_status_name(rc),
		       desc[0] ? ": " : "", desc);
		gw_exit(rc == PROVISOR_BE_NOMEM ? 1 : rc == PROVISOR_BE_DEVICE_LOST ? GPUWORKER_EXIT_BAD_DEVICE
										     : GPUWORKER_EXIT_BAD_BACKEND);
	}
	if (gw.plugin)
		gw_log("backend plugin %s (%s)%s%s", gw.bk->name, gw.plugin, desc[0] ? ": " : "", desc);
	pthread_mutex_lock(&gw.shm_lock);
	shm_slot_ready(&gw.w, (uint32_t)gw.be);
	pthread_mutex_unlock(&gw.shm_lock);
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { gw_receiver, gw_prover, gw_sender };
	const char *name = NULL;
	enum vocab_backend want;
	struct shm_seg seg;
	char err[256];
	sigset_t set;
	pthread_t t;
	int sig, landlock;

	/* The supervisor's `--gpus auto` probe: it keeps CUDA out of its own
	 * process (a CUDA context does not survive fork) and asks here. One
	 * line: the count, and why when it is 0. */
	if (argc == 2 && !strcmp(argv[1], "--count-devices")) {
		int n = hterm_cuda_devices(err, sizeof err);
		printf("%d%s%s\n", n > 0 ? n : 0, n > 0 ? "" : " ", n > 0 ? "" : err);
		return 0;
	}
	fdchan_init(&gw.files, -1);
	gw_args(argc, argv, &name);
	fault_init("gpu", gw.slot);
	/* Everything that needs a path or a privilege first: the slot (and
	 * the trace), then the confinement, and only then any backend code.
	 * A plugin is read in between: after the user switch and
	 * no_new_privs (it is opened as the worker's user), before Landlock
	 * (which forbids reading it); its calls run only after Landlock. */
	gw_attach(name, &seg);
	if (confine_identity(gw.have_user, gw.uid, gw.gid, err, sizeof err) < 0) {
		gw_log("confinement failed: %s; exiting", err);
		return 1;
	}
	if (gw.plugin && backend_plugin_open(gw.plugin, &gw.bk, err, sizeof err)) {
		gw_log("%s", err);
		return GPUWORKER_EXIT_BAD_BACKEND;
	}
	if (confine_landlock(&landlock, err, sizeof err) < 0) {
		gw_log("confinement failed: %s; exiting", err);
		return 1;
	}
	want = gw.be;
	/* A gone supervisor shows as EPIPE on the next write, not a signal;
	 * SIGTERM and SIGINT are taken by sigwait below, in every thread. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, FRAME_ABANDON_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	fault_set_stop(gw_stop_hook, NULL);
	fault_point(FAULT_START);
	gw_hello();
	/* Detached: the process ends through gw_exit, never by joining. The
	 * heartbeat first: loading the params may take a while. */
	if ((errno = pthread_create(&t, NULL, gw_heartbeat, NULL)) != 0) {
		gw_log("pthread_create: %s", strerror(errno));
		gw_exit(1);
	}
	pthread_detach(t);
	/* CUDA starts only now, after HELLO and with the heartbeat running:
	 * without persistence mode, every worker of a rig initialising its
	 * device at once can take longer than HELLO's deadline. */
	if (!gw.plugin && hterm_backend_resolve(want, &gw.be, err, sizeof err)) {
		gw_log("%s", err);
		gw_exit(GPUWORKER_EXIT_NO_DEVICE);
	}
	if (!gw.plugin)
		gw.bk = backend_builtin(gw.be);
	if (gw.be == VOCAB_BACKEND_CUDA && !hterm_cuda_describe(gw.gpu, err, sizeof err))
		gw_log("%s", err);
	if (gw.nparams)
		gw_load();
	gw_backend_init();
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if ((errno = pthread_create(&t, NULL, fns[i], NULL)) != 0) {
			gw_log("pthread_create: %s", strerror(errno));
			gw_exit(1);
		}
		pthread_detach(t);
	}
	for (;;) {
		siginfo_t si;

		sig = sigwaitinfo(&set, &si);
		if (sig == FRAME_ABANDON_SIGNAL) {
			if (si.si_code == SI_QUEUE && si.si_pid == getppid())
				gw_abandon((uint64_t)(uintptr_t)si.si_value.sival_ptr);
			continue;
		}
		if (sig > 0)
			break;
	}
	gw_log("%s: exiting", strsignal(sig));
	gw_exit(0);
}
