/*
 * synth worker: `synth --instance NAME --slot I`, exec'd by the supervisor,
 * one per synth slot. It reads SYNTH_REQ frames on stdin, synthesizes the
 * partition each one names and answers a PART_DATA frame on stdout (a, b,
 * c as canonical 32-byte elements, docs/formats.md's partition payload).
 * Log lines go to stderr, prefixed "synth[I]: ".
 *
 * Design: one partition at a time, one buffer of 3 * 2^k elements. The
 * rows are synthesized into it in Montgomery form and then encoded in
 * place (an element and its encoding are both 32 bytes), so the buffer is
 * the payload: no second copy, one checksum pass, one write. The write may
 * block until the supervisor relays it; that is the pipeline's
 * back-pressure, and the slot is idle meanwhile (its work is done).
 * Every request goes through shm_slot_begin/shm_slot_end, so the slot
 * shows busy with that job and partition while it synthesizes.
 *
 * Exit status: 0 EOF on stdin; 1 bad arguments, no segment or slot, or a
 * pipe error (EPIPE: the supervisor is gone); 2 a malformed frame from the
 * supervisor (one log line says what).
 *
 * Fault points (fault/fault.h, tests only) sit in sw_serve and main in the
 * order a partition meets them. There is one thread, so a hang stops the
 * heartbeat too; after comes before the end is published (slot busy).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault/fault.h"
#include "proto/frame.h"
#include "shm/shm.h"
#include "synth/synth.h"
#include "util/util.h"

/* Rows per synthesis step: a heartbeat between steps keeps the slot's
 * heartbeat fresh during a long partition. */
#define SW_STEP_ROWS (1u << 16)
#define SW_BEAT_NS 250000000ull

static unsigned sw_slot;

static void sw_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof line, "synth[%u]: ", sw_slot);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

/* A failed write on stdout: the supervisor is gone or closed our pipe. */
static void sw_write_failed(int rc)
{
	sw_log("write to the supervisor failed: %s; exiting", strerror(-rc));
	exit(1);
}

static void sw_send(const struct frame_hdr *h, const void *payload)
{
	int rc = frame_send(STDOUT_FILENO, h, payload);

	if (rc)
		sw_write_failed(rc);
}

static void sw_send_fail(const struct frame_hdr *req, const char *reason)
{
	struct frame_hdr h;

	frame_init(&h, FRAME_FAIL, req->job, req->partition, req->kind, req->log_size, req->gen);
	frame_seal(&h, reason, strlen(reason));
	sw_send(&h, reason);
}

static void sw_hello(void)
{
	struct frame_hello hello = { .pid = (uint32_t)getpid() };
	struct frame_hdr h;

	snprintf(hello.desc, sizeof hello.desc, "synth slot %u, fr %s", sw_slot, fr_impl_name());
	frame_init(&h, FRAME_HELLO, 0, 0, 0, 0, 0);
	frame_seal(&h, &hello, sizeof hello);
	sw_send(&h, &hello);
}

/* Read one request's header and payload. 0, 1 on a clean EOF, -EBADMSG
 * with the reason in err, or -errno of the failed read. */
static int sw_read_frame(struct frame_hdr *h, struct frame_synth_req *req,
			 char *err, size_t errlen)
{
	int rc = frame_read_full(STDIN_FILENO, h, sizeof *h);

	if (rc)
		return rc;
	if (frame_check_hdr(h, VOCAB_LOG_MAX, err, errlen))
		return -EBADMSG;
	if (h->type != FRAME_SYNTH_REQ) {
		snprintf(err, errlen, "unexpected %s frame (expected SYNTH_REQ)",
			 frame_type_name(h->type));
		return -EBADMSG;
	}
	rc = frame_read_full(STDIN_FILENO, req, sizeof *req);
	if (rc)
		return rc == 1 ? -EPIPE : rc;
	if (frame_checksum(req, sizeof *req) != h->checksum) {
		snprintf(err, errlen, "SYNTH_REQ payload checksum mismatch");
		return -EBADMSG;
	}
	if (req->seed_len < 1 || req->seed_len > SYNTH_SEED_MAX || req->reserved) {
		snprintf(err, errlen, "SYNTH_REQ seed length %u out of range 1..%d",
			 req->seed_len, SYNTH_SEED_MAX);
		return -EBADMSG;
	}
	return 0;
}

/* Read and check one SYNTH_REQ into id. Returns 0, or 1 on a clean EOF;
 * a malformed or truncated frame ends the process with status 2, a read
 * error with status 1. */
static int sw_read_req(struct frame_hdr *h, struct synth_id *id)
{
	struct frame_synth_req req;
	char err[256];
	int rc = sw_read_frame(h, &req, err, sizeof err);

	if (rc == 1)
		return 1;
	if (rc == -EPIPE)
		snprintf(err, sizeof err, "input ended in the middle of a frame");
	if (rc == -EBADMSG || rc == -EPIPE) {
		sw_log("malformed frame from the supervisor: %s", err);
		exit(2);
	}
	if (rc) {
		sw_log("reading a request failed: %s", strerror(-rc));
		exit(1);
	}
	memset(id, 0, sizeof *id);
	memcpy(id->seed, req.seed, req.seed_len);
	id->seed_len = req.seed_len;
	id->partition = h->partition;
	id->k = h->log_size;
	return 0;
}

/* Synthesize id's rows into buf (3n elements: a, b, c), beating the
 * heartbeat between steps, then encode every element in place. */
static void sw_synthesize(struct shm_slot_writer *w, const struct synth_id *id, fr_t *buf)
{
	size_t n = (size_t)1 << id->k;
	struct synth_stream st;
	uint64_t beat = shm_now_mono();

	synth_stream_init(&st, id);	/* id was checked by the caller */
	for (size_t off = 0; off < n; off += SW_STEP_ROWS) {
		size_t cnt = n - off < SW_STEP_ROWS ? n - off : SW_STEP_ROWS;

		synth_stream_rows(&st, buf + off, buf + n + off, buf + 2 * n + off, cnt);
		if (shm_now_mono() - beat > SW_BEAT_NS) {
			shm_slot_heartbeat(w);
			beat = shm_now_mono();
		}
	}
	for (size_t i = 0; i < 3 * n; i++) {
		fr_t t = buf[i];

		fr_to_bytes((uint8_t *)&buf[i], &t);
	}
}

/* One request: begin, synthesize, end, answer. */
static void sw_serve(struct shm_slot_writer *w, const struct frame_hdr *req,
		     const struct synth_id *id, fr_t **buf, size_t *cap)
{
	struct shm_assign as = { req->job, req->partition, req->kind };
	size_t n = (size_t)1 << id->k;
	struct frame_hdr h;
	char why[160];
	uint64_t t0;
	int rc;

	fault_point(FAULT_BEFORE);
	fault_point(FAULT_SHM);	/* the next status write is this begin */
	rc = shm_slot_begin(w, req->gen, &as);
	if (rc) {
		snprintf(why, sizeof why, "generation %llu is not newer than the slot's %llu",
			 (unsigned long long)req->gen, (unsigned long long)w->cur.gen);
		sw_log("job %llu partition %u refused: %s", (unsigned long long)req->job,
		       req->partition, why);
		sw_send_fail(req, why);
		return;
	}
	fault_point(FAULT_DURING);
	if (*cap < 3 * n) {
		free(*buf);
		*cap = 0;
		*buf = malloc(3 * n * sizeof(fr_t));
		if (!*buf) {
			snprintf(why, sizeof why, "out of memory for k = %u", id->k);
			sw_log("job %llu partition %u: %s", (unsigned long long)req->job,
			       req->partition, why);
			shm_slot_end(w, req->gen, 0);
			sw_send_fail(req, why);
			return;
		}
		*cap = 3 * n;
	}
	t0 = shm_now_mono();
	sw_synthesize(w, id, *buf);
	fault_point(FAULT_AFTER);
	frame_init(&h, FRAME_PART_DATA, req->job, req->partition, req->kind, req->log_size, req->gen);
	h.work_ns = shm_now_mono() - t0;
	frame_seal(&h, *buf, 3 * n * FR_BYTES);
	switch (fault_frame()) {
	case FAULT_FRAME_OK:
		break;
	case FAULT_FRAME_CORRUPT:	/* after the seal: the receiver's check must catch it */
		((uint8_t *)*buf)[3 * n * FR_BYTES / 2] ^= 0xff;
		break;
	case FAULT_FRAME_HOSTILE:
		shm_slot_end(w, req->gen, 0);
		sw_send_fail(req, FAULT_HOSTILE_REASON);
		return;
	}
	shm_slot_end(w, req->gen, 1);
	sw_send(&h, *buf);
}

static void sw_usage(void)
{
	fprintf(stderr, "usage: synth --instance NAME --slot I\n");
	exit(1);
}

static void sw_args(int argc, char **argv, const char **name)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'n' },
		{ "slot", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int have_slot = 0, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'n') {
			*name = optarg;
		} else if (c == 's') {
			uint64_t v;

			if (util_num(optarg, UTIL_NUM_DIGITS, 0, 65535, &v))
				sw_usage();
			sw_slot = (unsigned)v;
			have_slot = 1;
		} else {
			sw_usage();
		}
	}
	if (!*name || !have_slot || optind != argc)
		sw_usage();
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	struct shm_slot_writer w;
	struct shm_seg seg;
	struct frame_hdr req;
	struct synth_id id;
	fr_t *buf = NULL;
	size_t cap = 0;
	char err[256];
	int rc;

	sw_args(argc, argv, &name);
	fault_init("synth", sw_slot);
	/* A gone supervisor shows as EPIPE on the next write, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0) {
		sw_log("sodium_init failed");
		return 1;
	}
	if (shm_open_rw(&seg, name, err, sizeof err) < 0) {
		sw_log("status segment: %s", err);
		return 1;
	}
	rc = shm_slot_attach(&w, &seg, SHM_T_SYNTH, sw_slot);
	if (rc) {
		sw_log("cannot take synth slot %u: %s", sw_slot, strerror(-rc));
		return 1;
	}
	shm_slot_ready(&w, 0);
	fault_point(FAULT_START);
	sw_hello();
	while (sw_read_req(&req, &id) == 0)
		sw_serve(&w, &req, &id, &buf, &cap);
	free(buf);
	shm_close(&seg);
	return 0;
}
