/*
 * synth worker: `synth --instance NAME --slot I`, exec'd by the supervisor,
 * one per synth slot. It reads SYNTH_REQ frames on stdin, synthesizes the
 * partition each one names and answers a PART_DATA frame on stdout
 * (proto/frame.h: the rows in chunks of FRAME_PART_ROWS, each chunk a, b,
 * c as canonical 32-byte elements, then the XXH3-64 of them all as an
 * 8-byte trailer). Log lines go to stderr, prefixed "synth[I]: ".
 *
 * Design: rows are streamed. The PART_DATA header goes out first; then
 * each chunk is synthesized (synth_stream_rows) into one buffer of
 * 3 * FRAME_PART_ROWS elements in Montgomery form, encoded in place (an
 * element and its encoding are both 32 bytes), added to the running
 * checksum and written; then the trailer. So the synth holds one chunk
 * (6 MiB) whatever k is, and no partition is ever whole in its memory.
 * A write blocks until the supervisor relays the stream to a gpuworker,
 * which may be busy proving for minutes: that is the pipeline's
 * back-pressure. The slot is busy from the begin until the trailer is
 * written (shm_slot_end), heartbeat included: stdout is non-blocking
 * and a full pipe is waited for in poll, 250 ms at a time, beating the
 * heartbeat between polls, so a synth blocked on its reader is not taken
 * for a hung one. Every request goes through shm_slot_begin/shm_slot_end.
 *
 * The PART_DATA header's work_ns is 0: it leaves before any row is made.
 *
 * It also verifies partitions a gpuworker stored (VERIFY_REQ -> VERIFIED,
 * sw_verify): the supervisor is the control plane and never reads H; a
 * synth has the circuit, so re-synthesis for the check is its work. For
 * that the supervisor sends it the job's result file, read-only, on the
 * files channel (--files-fd, proto/fdchan.h) before the request: it has
 * no path into the state directory.
 *
 * Proofs (kinds with params, --params N: the resident params as fds 4..):
 * after each PART_DATA's trailer comes a PART_INFO with the partition's
 * public inputs as the stream ended them (x_0 and x_out: the a-values of
 * rows 3R+1 and 3R+2), and a VERIFY_REQ with params set asks for a
 * proof's check (sw_verify_proof): the 376-byte region decoded, its
 * identity, vk digest and public inputs held to the job's and to the x_out
 * the request carries, then the pairing; a proof kept with its H
 * (FRAME_VERIFY_KEEP_H) has its H checked too, streamed. The synth reads
 * only the verifying keys from those fds (the resident header) and
 * closes them.
 *
 * Exit status: 0 EOF on stdin; 1 bad arguments, no segment or slot, no
 * memory for the chunk buffer, or a pipe error (EPIPE: the supervisor is
 * gone); 2 a malformed frame from the supervisor (one log line says what).
 *
 * Fault points (fault/fault.h, tests only) sit in sw_serve and main in the
 * order a partition meets them: before, shm (the begin), during (begun,
 * nothing written yet), frame (hostile: a FAIL instead of the PART_DATA;
 * corrupt: one byte of the middle chunk flipped after it went into the
 * checksum), after (every row written, not the trailer: the frame is left
 * 8 bytes short). There is one thread, so a hang stops the heartbeat too;
 * after comes before the end is published (slot busy).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault/fault.h"
#include "groth16/groth16.h"
#include "format/pfile.h"
#include "proto/confine.h"
#include "proto/fdchan.h"
#include "proto/frame.h"
#include "shm/shm.h"
#include "synth/synth.h"
#include "util/util.h"
#include "verify/verify.h"

#define SW_BEAT_NS 250000000ull
#define SW_BEAT_MS 250

static unsigned sw_slot;
static struct shm_slot_writer *sw_w;	/* for the heartbeat; NULL before attach */
static uint64_t sw_beat_ns;		/* the last heartbeat */
static struct fdchan sw_files;		/* the jobs' result files (--files-fd) */
static int sw_seg_fd = -1;		/* the status segment (--seg-fd); -1: by name */
static int sw_have_user;		/* --user UID:GID (proto/confine.h) */
static uid_t sw_uid;
static gid_t sw_gid;
static unsigned sw_nparams;		/* --params N: fds 4 .. 4 + N - 1 */
static struct groth16_params sw_vk[VOCAB_NKINDS];	/* their verifying keys */

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

/* Beat the slot's heartbeat if the last beat is SW_BEAT_NS old. */
static void sw_beat(void)
{
	uint64_t now = shm_now_mono();

	if (sw_w && now - sw_beat_ns >= SW_BEAT_NS) {
		shm_slot_heartbeat(sw_w);
		sw_beat_ns = now;
	}
}

/* A failed write on stdout: the supervisor is gone or closed our pipe. */
static _Noreturn void sw_write_failed(int rc)
{
	sw_log("write to the supervisor failed: %s; exiting", strerror(-rc));
	exit(1);
}

/* Write all of buf to stdout. A full pipe (EAGAIN: stdout is made
 * non-blocking in main) is waited for in poll, at most until the next
 * heartbeat is due, beating between polls: blocked on a slow reader for
 * minutes, the slot still beats. A write error ends the process. */
static void sw_write(const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t r = write(STDOUT_FILENO, p, n);

		if (r > 0) {
			p += r;
			n -= (size_t)r;
			continue;
		}
		if (r == 0)
			sw_write_failed(-EIO);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			sw_write_failed(-errno);
		struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };
		uint64_t since = shm_now_mono() - sw_beat_ns;
		int ms = since >= SW_BEAT_NS ? 0 : (int)((SW_BEAT_NS - since) / 1000000) + 1;

		if (poll(&pfd, 1, ms > SW_BEAT_MS ? SW_BEAT_MS : ms) < 0 && errno != EINTR)
			sw_write_failed(-errno);
		sw_beat();
	}
}

/* Make stdout non-blocking when it is a pipe or a socket (the supervisor
 * gives a pipe; a terminal's flags would outlive us in the shell). */
static void sw_stdout_nonblock(void)
{
	struct stat st;
	int fl;

	if (fstat(STDOUT_FILENO, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return;
	fl = fcntl(STDOUT_FILENO, F_GETFL);
	if (fl >= 0)
		fcntl(STDOUT_FILENO, F_SETFL, fl | O_NONBLOCK);
}

static void sw_send(const struct frame_hdr *h, const void *payload)
{
	sw_write(h, sizeof *h);
	if (h->payload_len)
		sw_write(payload, h->payload_len);
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

/* A request's payload: SYNTH_REQ or VERIFY_REQ (their seeds first). */
union sw_req {
	struct frame_synth_req synth;
	struct frame_verify_req verify;
};

/* Read one request's header and payload. 0, 1 on a clean EOF, -EBADMSG
 * with the reason in err, or -errno of the failed read. */
static int sw_read_frame(struct frame_hdr *h, union sw_req *req, char *err, size_t errlen)
{
	int rc = frame_read_full(STDIN_FILENO, h, sizeof *h);
	uint32_t seed_len, reserved;

	if (rc)
		return rc;
	if (frame_check_hdr(h, VOCAB_LOG_MAX, err, errlen))
		return -EBADMSG;
	if (h->type != FRAME_SYNTH_REQ && h->type != FRAME_VERIFY_REQ) {
		snprintf(err, errlen, "unexpected %s frame (expected SYNTH_REQ or VERIFY_REQ)",
			 frame_type_name(h->type));
		return -EBADMSG;
	}
	rc = frame_read_full(STDIN_FILENO, req, h->payload_len);	/* checked: one of the two */
	if (rc)
		return rc == 1 ? -EPIPE : rc;
	if (frame_checksum(req, h->payload_len) != h->checksum) {
		snprintf(err, errlen, "%s payload checksum mismatch", frame_type_name(h->type));
		return -EBADMSG;
	}
	seed_len = h->type == FRAME_SYNTH_REQ ? req->synth.seed_len : req->verify.seed_len;
	reserved = h->type == FRAME_SYNTH_REQ ? req->synth.reserved : req->verify.reserved;
	if (seed_len < 1 || seed_len > SYNTH_SEED_MAX || reserved) {
		snprintf(err, errlen, "%s seed length %u out of range 1..%d",
			 frame_type_name(h->type), seed_len, SYNTH_SEED_MAX);
		return -EBADMSG;
	}
	return 0;
}

/* Read and check one request into id (and req). Returns 0, or 1 on a
 * clean EOF; a malformed or truncated frame ends the process with status
 * 2, a read error with status 1. */
static int sw_read_req(struct frame_hdr *h, struct synth_id *id, union sw_req *req)
{
	char err[256];
	int rc = sw_read_frame(h, req, err, sizeof err);

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
	if (h->type == FRAME_SYNTH_REQ) {
		memcpy(id->seed, req->synth.seed, req->synth.seed_len);
		id->seed_len = req->synth.seed_len;
	} else {
		memcpy(id->seed, req->verify.seed, req->verify.seed_len);
		id->seed_len = req->verify.seed_len;
	}
	id->partition = h->partition;
	id->k = h->log_size;
	return 0;
}

/* Stream id's rows chunk by chunk through buf (3 * FRAME_PART_ROWS
 * elements): synthesize, encode in place, add to sum, write. corrupt:
 * flip one byte of the middle chunk once it is in the checksum (an
 * element's low byte, so it stays canonical: the checksum must catch it). */
static void sw_stream(const struct synth_id *id, fr_t *buf, struct frame_sum *sum, int corrupt,
		      struct frame_part_info *pi)
{
	size_t n = (size_t)1 << id->k, rows = frame_part_chunk_rows((uint16_t)id->k);
	size_t in = 3 * synth_rounds(id->k) + 1;	/* rows of x_0 and x_out: a = the input */
	size_t bad = n / rows / 2 * rows;	/* first row of the middle chunk */
	struct synth_stream st;

	synth_stream_init(&st, id);	/* id was checked by the caller */
	for (size_t off = 0; off < n; off += rows) {
		uint8_t *bytes = (uint8_t *)buf;

		synth_stream_rows(&st, buf, buf + rows, buf + 2 * rows, rows);
		for (size_t i = 0; i < 3 * rows; i++) {
			fr_t t = buf[i];

			fr_to_bytes(bytes + i * FR_BYTES, &t);
		}
		frame_sum_update(sum, bytes, 3 * rows * FR_BYTES);
		for (size_t r = in; r <= in + 1; r++)
			if (r >= off && r < off + rows)
				memcpy(r == in ? pi->x0 : pi->xout, bytes + (r - off) * FR_BYTES, FR_BYTES);
		if (corrupt && off == bad)
			bytes[3 * rows / 2 * FR_BYTES] ^= 0xff;
		sw_beat();
		sw_write(bytes, 3 * rows * FR_BYTES);
	}
}

/* One request: begin, then the PART_DATA streamed, then end. */
static void sw_serve(struct shm_slot_writer *w, const struct frame_hdr *req,
		     const struct synth_id *id, fr_t *buf)
{
	struct shm_assign as = { req->job, req->partition, req->kind };
	struct frame_part_info pi;
	struct frame_sum sum;
	struct frame_hdr h;
	uint8_t trailer[FRAME_TRAILER_BYTES];
	char why[160];
	int corrupt = 0, rc;

	memset(&pi, 0, sizeof pi);
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
	sw_beat_ns = shm_now_mono();	/* the begin beat */
	fault_point(FAULT_DURING);
	switch (fault_frame()) {
	case FAULT_FRAME_OK:
		break;
	case FAULT_FRAME_CORRUPT:
		corrupt = 1;
		break;
	case FAULT_FRAME_HOSTILE:
		shm_slot_end(w, req->gen, 0);
		sw_send_fail(req, FAULT_HOSTILE_REASON);
		return;
	}
	if (frame_sum_init(&sum)) {
		snprintf(why, sizeof why, "out of memory for a checksum state");
		sw_log("job %llu partition %u: %s", (unsigned long long)req->job, req->partition, why);
		shm_slot_end(w, req->gen, 0);
		sw_send_fail(req, why);
		return;
	}
	frame_init(&h, FRAME_PART_DATA, req->job, req->partition, req->kind, req->log_size, req->gen);
	h.payload_len = frame_expected_len(FRAME_PART_DATA, req->log_size);
	frame_seal_hdr(&h);
	sw_write(&h, sizeof h);
	sw_stream(id, buf, &sum, corrupt, &pi);
	fault_point(FAULT_AFTER);
	util_le64_put(trailer, frame_sum_final(&sum));
	sw_write(trailer, sizeof trailer);
	frame_init(&h, FRAME_PART_INFO, req->job, req->partition, req->kind, req->log_size, req->gen);
	frame_seal(&h, &pi, sizeof pi);
	sw_send(&h, &pi);
	shm_slot_end(w, req->gen, 1);
}

/* A region of a job's result.partial, read in place (verify_partition_stream's
 * reader, and the proof check's). */
struct sw_region {
	int fd;
	uint64_t base;
};

static int sw_region_read(void *arg, uint64_t off, void *buf, size_t len)
{
	const struct sw_region *rg = arg;
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(rg->fd, (uint8_t *)buf + done, len - done, (off_t)(rg->base + off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -EIO : -errno;
		done += (size_t)r;
		sw_beat();
	}
	return 0;
}

/* STATE/jobs/JOB/result.partial, read-only, as the supervisor sent it
 * (its name, for messages, into name): a new fd,
 * or -1 with errno. */
static int sw_open_partial(uint64_t job, char *name, size_t len)
{
	snprintf(name, len, "%llu/result.partial", (unsigned long long)job);
	return fdchan_get(&sw_files, job);
}

/* x_out of partition id, by running its chain to the input rows in
 * chunks, beating between them (a kept proof at resume: no stream ended
 * it). At k = 27 that is some 45 million rounds: seconds, never a silent
 * slot. */
static void sw_derive_xout(const struct synth_id *id, fr_t *xout)
{
	enum { CHUNK = 1024 };
	static fr_t a[CHUNK], b[CHUNK], c[CHUNK];
	uint64_t row = 3 * (uint64_t)synth_rounds(id->k) + 2;	/* x_out's input row */
	struct synth_stream st;

	synth_stream_init(&st, id);	/* the id was checked when the request was read */
	for (; row >= CHUNK; row -= CHUNK) {
		synth_stream_rows(&st, a, b, c, CHUNK);
		sw_beat();
	}
	synth_stream_rows(&st, a, b, c, row + 1);
	*xout = a[row];
}

/* A proofs+H region's H (keep_h), rg at the region's start: streamed
 * once, after the proof bytes raw, for both the digest of the whole
 * region (held to want, the one H_DONE reported) and the H's check
 * (verify_partition_stream_after: canonical, top coefficient zero,
 * Schwartz-Zippel), a chunk at a time whatever k is. The verdict into v,
 * left as it is when H holds and the digest matches. */
static void sw_verify_kept_h(const struct frame_hdr *req, const struct synth_id *id, struct sw_region *rg,
			     const uint8_t raw[PFILE_PROOF_REGION], const uint8_t want[32], struct frame_verified *v)
{
	char why[sizeof v->why - 8];
	uint8_t got[32];
	int rc;

	rg->base += PFILE_PROOF_REGION;
	rc = verify_partition_stream_after(id, raw, PFILE_PROOF_REGION, sw_region_read, rg, got, why, sizeof why);
	if (rc != -EBADMSG && rc < 0 && rc != -EINVAL && rc != -ENOMEM) {	/* a read failed */
		v->verdict = FRAME_VERDICT_UNREAD;
		v->err = -rc;
		snprintf(v->why, sizeof v->why, "reading job %llu's H: %s", (unsigned long long)req->job,
			 strerror(-rc));
	} else if (memcmp(got, want, 32)) {
		v->verdict = FRAME_VERDICT_WRONG;
		snprintf(v->why, sizeof v->why, "the stored proof and H do not hash to the digest reported");
	} else if (rc == -EBADMSG) {
		v->verdict = FRAME_VERDICT_WRONG;
		snprintf(v->why, sizeof v->why, "its H: %s", why);
	} else if (rc) {
		v->verdict = FRAME_VERDICT_UNREAD;
		v->err = -rc;
		snprintf(v->why, sizeof v->why, "%s", why);
	}
}

/* Check the proof stored in partition id's region of a proofs job's
 * result.partial (proto/frame.h, struct frame_verify_req with params):
 * digest, decoding (canonical, on the curve, in the subgroup), identity,
 * vk digest, x_0 (from the identity, O(1)), x_out (the synth stream's, in
 * the request, or derived here for a proof kept across a restart), then
 * e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta). With
 * FRAME_VERIFY_KEEP_H the region is the proof and then the partition's H
 * (a proofs+H file): the H is checked too, first, in the same pass over
 * the region that computes its digest (sw_verify_kept_h), so a wrong H
 * beside a sound proof is as wrong as a wrong proof. */
static void sw_verify_proof(struct shm_slot_writer *w, const struct frame_hdr *req, const struct synth_id *id,
			    const struct frame_verify_req *vr)
{
	struct shm_assign as = { req->job, req->partition, req->kind };
	struct frame_verified v = { .verdict = FRAME_VERDICT_WRONG };
	uint8_t raw[PFILE_PROOF_REGION], got[32];
	int keep_h = (vr->flags & FRAME_VERIFY_KEEP_H) != 0;
	struct sw_region rg = { .fd = -1 };
	struct groth16_proof_file f;
	const struct groth16_params *p;
	struct synth_stream st;
	struct pfile_digest dg;
	struct frame_hdr h;
	char name[48];
	fr_t xout;
	int e;

	if (shm_slot_begin(w, req->gen, &as)) {
		sw_send_fail(req, "generation not newer than the slot's");
		return;
	}
	sw_beat_ns = shm_now_mono();
	if (vr->params > sw_nparams) {
		snprintf(v.why, sizeof v.why, "asked to check with params %u of %u", vr->params, sw_nparams);
		goto out;
	}
	if (vr->flags & ~(FRAME_VERIFY_DERIVE_XOUT | FRAME_VERIFY_KEEP_H)) {	/* no verdict on the proof */
		v.verdict = FRAME_VERDICT_UNREAD;
		snprintf(v.why, sizeof v.why, "asked to check with unknown flags %#x", vr->flags);
		goto out;
	}
	p = &sw_vk[vr->params - 1];
	rg.base = pfile_res_part_off(keep_h ? PFILE_KIND_PROOFS_H : PFILE_KIND_PROOFS, id->k, id->partition);
	rg.fd = sw_open_partial(req->job, name, sizeof name);
	e = rg.fd < 0 ? errno : -sw_region_read(&rg, 0, raw, sizeof raw);
	if (e) {
		v.verdict = FRAME_VERDICT_UNREAD;
		v.err = e;
		snprintf(v.why, sizeof v.why, "reading job %llu's proof: %s", (unsigned long long)req->job,
			 strerror(e));
		goto out;
	}
	if (keep_h) {
		v.verdict = FRAME_VERDICT_OK;
		sw_verify_kept_h(req, id, &rg, raw, vr->digest, &v);
		if (v.verdict != FRAME_VERDICT_OK)
			goto out;
		v.verdict = FRAME_VERDICT_WRONG;	/* until the proof holds */
	} else {
		pfile_digest_init(&dg);
		pfile_digest_update(&dg, raw, sizeof raw);
		pfile_digest_final(&dg, got);
		if (memcmp(got, vr->digest, 32)) {
			snprintf(v.why, sizeof v.why, "the stored proof does not hash to the digest reported");
			goto out;
		}
	}
	if (groth16_proof_decode(&f, raw, sizeof raw, v.why, sizeof v.why))
		goto out;
	synth_stream_init(&st, id);	/* x_0: keyed hashing of the identity, no chain */
	if (f.id.seed_len != id->seed_len || memcmp(f.id.seed, id->seed, id->seed_len) ||
	    f.id.partition != id->partition || f.id.k != id->k) {
		snprintf(v.why, sizeof v.why, "the proof names another partition");
		goto out;
	}
	if (memcmp(f.vk_digest, p->vk_digest, sizeof f.vk_digest)) {
		snprintf(v.why, sizeof v.why, "the proof was made with other params");
		goto out;
	}
	if (vr->flags & FRAME_VERIFY_DERIVE_XOUT)
		sw_derive_xout(id, &xout);
	else if (fr_from_bytes(&xout, vr->xout)) {
		snprintf(v.why, sizeof v.why, "the stream's x_out is not a canonical field element");
		goto out;
	}
	if (!fr_equal(&f.x[0], &st.x0) || !fr_equal(&f.x[1], &xout)) {
		snprintf(v.why, sizeof v.why, "the proof's public inputs are not the partition's");
		goto out;
	}
	if (!groth16_verify(&p->vk, f.x, &f.proof)) {
		snprintf(v.why, sizeof v.why, "the proof fails the pairing check");
		goto out;
	}
	v.verdict = FRAME_VERDICT_OK;
out:
	if (v.verdict != FRAME_VERDICT_OK)
		sw_log("job %llu partition %u: %s", (unsigned long long)req->job, req->partition, v.why);
	if (rg.fd >= 0)
		close(rg.fd);
	frame_init(&h, FRAME_VERIFIED, req->job, req->partition, req->kind, req->log_size, req->gen);
	frame_seal(&h, &v, sizeof v);
	sw_send(&h, &v);
	shm_slot_end(w, req->gen, 1);
}

/* Check the H stored in partition id's region of STATE/jobs/JOB/
 * result.partial (proto/frame.h, struct frame_verify_req): streamed
 * (verify_partition_stream), its digest held to the one the gpuworker
 * reported, every element canonical, then the Schwartz-Zippel check. The
 * slot is busy meanwhile (begin/end, like a synthesis). Holds one chunk of
 * H (VERIFY_STREAM_CHUNK) and the re-synthesis's rows, not H: a few MiB at
 * any k. */
static void sw_verify(struct shm_slot_writer *w, const struct frame_hdr *req,
		      const struct synth_id *id, const uint8_t want[32])
{
	struct shm_assign as = { req->job, req->partition, req->kind };
	struct frame_verified v = { .verdict = FRAME_VERDICT_OK };
	struct sw_region rg = { .fd = -1, .base = pfile_result2_part_off(id->k, id->partition) };
	struct frame_hdr h;
	uint8_t got[32];
	char name[48];
	int rc;

	if (shm_slot_begin(w, req->gen, &as)) {
		sw_send_fail(req, "generation not newer than the slot's");
		return;
	}
	sw_beat_ns = shm_now_mono();
	rg.fd = sw_open_partial(req->job, name, sizeof name);
	if (rg.fd < 0) {
		v.verdict = FRAME_VERDICT_UNREAD;
		v.err = errno;
		goto out;
	}
	rc = verify_partition_stream(id, sw_region_read, &rg, got, v.why, sizeof v.why);
	if (rc != -EBADMSG && rc < 0 && rc != -EINVAL && rc != -ENOMEM) {	/* a read failed */
		v.verdict = FRAME_VERDICT_UNREAD;
		v.err = -rc;
	} else if (memcmp(got, want, 32)) {
		v.verdict = FRAME_VERDICT_WRONG;
		snprintf(v.why, sizeof v.why, "the stored H does not hash to the digest reported");
	} else if (rc == -EBADMSG) {
		v.verdict = FRAME_VERDICT_WRONG;
	} else if (rc) {
		v.verdict = FRAME_VERDICT_UNREAD;
		v.err = -rc;
	}
out:
	if (v.verdict == FRAME_VERDICT_UNREAD && !v.why[0])
		snprintf(v.why, sizeof v.why, "reading %s: %s", name, strerror(v.err));
	if (v.verdict != FRAME_VERDICT_OK)
		sw_log("job %llu partition %u: %s", (unsigned long long)req->job, req->partition, v.why);
	if (rg.fd >= 0)
		close(rg.fd);
	frame_init(&h, FRAME_VERIFIED, req->job, req->partition, req->kind, req->log_size, req->gen);
	frame_seal(&h, &v, sizeof v);
	sw_send(&h, &v);
	shm_slot_end(w, req->gen, 1);
}

static void sw_usage(void)
{
	fprintf(stderr, "usage: synth --instance NAME --slot I [--files-fd FD] [--seg-fd FD] "
		"[--user UID:GID] [--params N]\n");
	exit(1);
}

static void sw_args(int argc, char **argv, const char **name)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'n' },
		{ "slot", required_argument, NULL, 's' },
		{ "files-fd", required_argument, NULL, 'j' },
		{ "seg-fd", required_argument, NULL, 'S' },
		{ "user", required_argument, NULL, 'u' },
		{ "params", required_argument, NULL, 'p' },
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
		} else if (c == 'j') {
			uint64_t v;

			if (util_num(optarg, UTIL_NUM_DIGITS, 0, 65535, &v))
				sw_usage();
			fdchan_init(&sw_files, (int)v);
		} else if (c == 'S') {
			uint64_t v;

			if (util_num(optarg, UTIL_NUM_DIGITS, 0, 65535, &v))
				sw_usage();
			sw_seg_fd = (int)v;
		} else if (c == 'u') {
			if (confine_parse_user(optarg, &sw_uid, &sw_gid))
				sw_usage();
			sw_have_user = 1;
		} else if (c == 'p') {
			uint64_t v;

			if (util_num(optarg, UTIL_NUM_DIGITS, 0, VOCAB_NKINDS, &v))
				sw_usage();
			sw_nparams = (unsigned)v;
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
	union sw_req rq;
	struct synth_id id;
	fr_t *buf;
	char err[256];
	int rc;

	fdchan_init(&sw_files, -1);
	sw_args(argc, argv, &name);
	fault_init("synth", sw_slot);
	for (unsigned i = 0; i < sw_nparams; i++) {	/* the vks; the keys stay unmapped */
		if (groth16_resident_header(4 + (int)i, &sw_vk[i], NULL, err, sizeof err)) {
			sw_log("params fd %u: %s", 4 + i, err);
			return 1;
		}
		close(4 + (int)i);
	}
	/* A gone supervisor shows as EPIPE on the next write, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0) {
		sw_log("sodium_init failed");
		return 1;
	}
	/* One chunk, whatever k: the pages of a small k's chunk are never
	 * touched beyond its rows. */
	buf = malloc(3 * (size_t)FRAME_PART_ROWS * sizeof(fr_t));
	if (!buf) {
		sw_log("out of memory for a chunk of %u rows", FRAME_PART_ROWS);
		return 1;
	}
	/* The slot: only its page, from the fd the supervisor passed, or by
	 * the instance's name (a synth started by hand). */
	memset(&seg, 0, sizeof seg);
	if (sw_seg_fd >= 0) {
		rc = shm_slot_attach_fd(&w, sw_seg_fd, SHM_T_SYNTH, sw_slot, err, sizeof err);
		close(sw_seg_fd);
		if (rc) {
			sw_log("status segment: %s", err);
			return 1;
		}
	} else {
		if (shm_open_rw(&seg, name, err, sizeof err) < 0) {
			sw_log("status segment: %s", err);
			return 1;
		}
		rc = shm_slot_attach(&w, &seg, SHM_T_SYNTH, sw_slot);
		if (rc) {
			sw_log("cannot take synth slot %u: %s", sw_slot, strerror(-rc));
			return 1;
		}
	}
	if (confine_worker(sw_have_user, sw_uid, sw_gid, &rc, err, sizeof err) < 0) {
		sw_log("confinement failed: %s; exiting", err);
		return 1;
	}
	shm_slot_ready(&w, 0);
	sw_w = &w;
	verify_set_progress(sw_beat);	/* a long check still beats the heartbeat */
	sw_beat_ns = shm_now_mono();
	sw_stdout_nonblock();
	fault_point(FAULT_START);
	sw_hello();
	while (sw_read_req(&req, &id, &rq) == 0) {
		if (req.type == FRAME_VERIFY_REQ && rq.verify.params)
			sw_verify_proof(&w, &req, &id, &rq.verify);
		else if (req.type == FRAME_VERIFY_REQ)
			sw_verify(&w, &req, &id, rq.verify.digest);
		else
			sw_serve(&w, &req, &id, buf);
	}
	free(buf);
	shm_close(&seg);
	return 0;
}
