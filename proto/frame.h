/*
 * frame: the messages on the pipes between the supervisor and its workers.
 *
 * Every message is a 64-byte header followed by payload_len bytes. The
 * header carries its own check (hdr_check) so a garbage header is caught
 * before its length is believed; the payload carries an XXH3-64 checksum
 * that the receiver checks: in the header (checksum), except for PART_DATA,
 * which the synth streams as it makes the rows, so its checksum is an
 * 8-byte trailer after the rows and the header's field is 0. A child that
 * sends a malformed frame is faulty: the supervisor kills it, restarts it
 * and requeues its partition.
 *
 * Flow of one partition:
 *   supervisor -> synth      SYNTH_REQ  (seed in the payload)
 *   synth -> supervisor      PART_DATA  (rows in chunks of FRAME_PART_ROWS:
 *                                        a[chunk] || b[chunk] || c[chunk],
 *                                        canonical elements; then the
 *                                        XXH3-64 of all of it, LE)
 *   supervisor -> gpuworker  PART_DATA  (same payload, spliced; the header
 *                                        rewritten with the GPU generation)
 *   gpuworker                writes H (or the proof, or the proof and H)
 *                            into its region of the job's result file
 *                            (format/pfile.h, version 3), fsyncs it
 *   gpuworker -> supervisor  H_DONE     (H's digest, or why it could not
 *                                        be stored)
 * No partition's or result's bytes pass through the supervisor's memory.
 * Either worker may answer FAIL instead (payload: a reason, text; the
 * header's reserved field: its class, enum frame_fail_class).
 * Workers send HELLO once, when ready. EOF on a worker's input means stop.
 */
#ifndef PROTO_FRAME_H
#define PROTO_FRAME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "util/vocab.h"

#define FRAME_MAGIC 0x52465650u	/* "PVFR" little-endian */
#define FRAME_VERSION 2
#define FRAME_HDR_SIZE 64
#define FRAME_FAIL_MAX 256	/* bytes of reason text */
/* The FAIL reason a gpuworker gives for a PART_DATA whose payload failed
 * its checksum: the synth that produced it is to blame, not the partition. */
#define FRAME_FAIL_CHECKSUM "payload checksum mismatch"
/* The FAIL reason of a partition the gpuworker abandoned because the
 * supervisor asked it to (pre-emption): not the partition's fault.
 * The request is out of band, since the gpuworker's stdin may be in the
 * middle of a spliced payload: a real-time signal (so that requests queue
 * rather than merge), sent with sigqueue (si_code SI_QUEUE) by the parent,
 * with the assignment's generation in si_value.sival_ptr. A received partition not yet begun is answered
 * at once; one being proved at the H-term's next safe point. A request
 * for a generation the worker no longer holds is ignored. */
#define FRAME_FAIL_PREEMPTED "pre-empted on request"
#define FRAME_ABANDON_SIGNAL (SIGRTMIN + 2)

/* A FAIL frame's class, in its header's reserved field: what the
 * supervisor does with the partition follows from it, never from the
 * reason text (which is for people, and untrusted). The gpuworker's
 * backend statuses (gpuworker/backend.h) map onto it one to one. */
enum frame_fail_class {
	FRAME_FAIL_PARTITION = 0,	/* failed on this worker: an attempt counted */
	FRAME_FAIL_STOPPED = 1,		/* abandoned on request (FRAME_FAIL_PREEMPTED): requeued */
	FRAME_FAIL_BAD_PAYLOAD = 2,	/* its payload failed its checksum (FRAME_FAIL_CHECKSUM):
					 * the producing synth's fault: it is killed; counted */
	FRAME_FAIL_NOMEM = 3,		/* out of memory: requeued, no attempt counted */
	FRAME_FAIL_DEVICE_LOST = 4,	/* the device failed: requeued, no attempt counted; the
					 * worker exits (GPUWORKER_EXIT_DEVICE_LOST) */
	FRAME_FAIL_BAD_INPUT = 5,	/* the backend found the partition unprovable: counted */
	FRAME_FAIL_INTERNAL = 6,	/* the backend failed (a bug, garbage): counted */
	FRAME_FAIL_NCLASSES
};
/* "partition", "stopped", "bad payload", "out of memory", "device lost",
 * "bad input", "internal"; "unknown" for anything else. */
const char *frame_fail_class_name(uint32_t cls);

enum frame_type {
	FRAME_HELLO = 1,	/* worker ready; payload struct frame_hello */
	FRAME_SYNTH_REQ = 2,	/* payload struct frame_synth_req */
	FRAME_PART_DATA = 3,	/* payload rows by chunk, then the checksum: 3 * 2^k * 32 + 8 bytes */
	FRAME_H_DONE = 4,	/* payload struct frame_h_done */
	FRAME_FAIL = 5,		/* payload: reason, 1..FRAME_FAIL_MAX bytes; reserved: the class */
	FRAME_VERIFY_REQ = 6,	/* supervisor -> synth: struct frame_verify_req */
	FRAME_VERIFIED = 7,	/* synth -> supervisor: struct frame_verified */
	FRAME_PART_INFO = 8,	/* synth -> supervisor after each PART_DATA: struct frame_part_info */
	FRAME_PART_ID = 9,	/* supervisor -> gpuworker right before a PART_DATA it is to prove
				 * (reserved != 0): the seed, struct frame_synth_req */
	FRAME_NTYPES
};

struct frame_hdr {
	uint32_t magic;		/* 0 */
	uint16_t version;	/* 4 */
	uint16_t type;		/* 6 */
	uint64_t job;		/* 8 */
	uint32_t partition;	/* 16 */
	uint16_t kind;		/* 20: job kind (format/pfile.h) */
	uint16_t log_size;	/* 22: k */
	uint64_t gen;		/* 24: generation of this assignment */
	uint64_t payload_len;	/* 32 */
	uint64_t checksum;	/* 40: XXH3-64 of the payload */
	uint64_t work_ns;	/* 48: worker-measured compute time (results) */
	uint32_t reserved;	/* 56: PART_DATA to a gpuworker: which params (1 + the
				 * index of its --params fds) prove it, ORed with
				 * FRAME_PARAMS_KEEP_H when H is kept beside the
				 * proof; 0 = H output.
				 * FAIL: enum frame_fail_class */
	uint32_t hdr_check;	/* 60: low 32 bits of XXH3-64 of bytes 0..59 */
};

/* In a PART_DATA's reserved field, with the params index: store the proof
 * file and then H in the partition's region of a PFILE_KIND_PROOFS_H file
 * (format/pfile.h), one digest over both. The index is in the low bits. */
#define FRAME_PARAMS_KEEP_H 0x10000u
#define FRAME_PARAMS_INDEX(reserved) ((reserved) & 0xffffu)

/* Proofs (kinds with params): the public inputs of the partition a synth
 * just streamed, as its stream ended them, so that a proof can be checked
 * by the pairing without re-deriving x_out in O(n). Canonical encodings.
 * The supervisor keeps them with the partition and puts them in the
 * VERIFY_REQ of the proof; it never takes them from the gpuworker. */
struct frame_part_info {
	uint8_t x0[32];
	uint8_t xout[32];
};

struct frame_hello {
	uint32_t pid;
	uint32_t backend;	/* as asked: 0 auto (resolved after HELLO), 1 cpu, 2 cuda; 0 for a synth */
	uint32_t gpu;
	uint32_t reserved;
	char desc[112];		/* e.g. the backend's log line */
};

/* Rows per PART_DATA chunk: a chunk is a, then b, then c of its rows
 * (2^k rows when k < 16: one chunk). */
#define FRAME_PART_ROWS (1u << 16)
#define FRAME_TRAILER_BYTES 8

/* PART_DATA's layout, for whoever holds a whole payload in memory (tests,
 * tools); the synth writes it and the gpuworker reads it chunk by chunk.
 * The rows in each chunk of a partition of 2^k rows: */
static inline uint64_t frame_part_chunk_rows(uint16_t log_size)
{
	uint64_t n = (uint64_t)1 << log_size;

	return n < FRAME_PART_ROWS ? n : FRAME_PART_ROWS;
}
/* The byte offset of element row of vector vec (0 a, 1 b, 2 c) in the
 * payload of a partition of 2^k rows (row < 2^k). */
uint64_t frame_part_off(uint16_t log_size, unsigned vec, uint64_t row);
/* Write the trailer of a whole payload (frame_expected_len bytes, its rows
 * filled in): the XXH3-64 of the 3 * 2^k * 32 row bytes, little-endian. */
void frame_part_seal(uint8_t *payload, uint16_t log_size);
/* 1 when a whole payload in memory passes its check (PART_DATA: its
 * trailer; any other type: the header's checksum), else 0. */
int frame_payload_ok(const struct frame_hdr *h, const void *payload);

/* A gpuworker's partition is stored: its region of the job's result file
 * (pfile_res_part_off: H's n * 32 bytes, or the proof file, or the proof
 * file then H) is written and fdatasync'd; digest is the BLAKE2b-256 of
 * the whole region (pfile_digest_*). Or, with err
 * (a positive errno) set, they could not be: op says at which step, and
 * the digest is zero. A storage error is the state directory's, not the
 * partition's: the supervisor requeues it without counting an attempt. */
enum frame_store_op { FRAME_STORE_OK = 0, FRAME_STORE_OPEN, FRAME_STORE_WRITE, FRAME_STORE_SYNC };

struct frame_h_done {
	uint8_t digest[32];
	int32_t err;		/* 0, or the errno of op */
	uint32_t op;		/* enum frame_store_op */
};

struct frame_synth_req {
	uint32_t seed_len;	/* 1..32 */
	uint32_t reserved;
	uint8_t seed[32];
};

/* Verification of a stored partition (issue 14): the supervisor asks a
 * synth to check the H a gpuworker stored in partition `partition`'s
 * region of STATE/jobs/JOB/result.partial (the synth has STATE/jobs as
 * fd 3, --jobs-fd, like the gpuworker). The synth reads the region, checks
 * it hashes to digest (the one H_DONE reported: the bytes checked are the
 * bytes the commit will take), decodes it (every element canonical) and
 * runs verify_partition (verify/verify.h: re-synthesis and the
 * Schwartz-Zippel check at a Fiat-Shamir point, O(n)). It answers
 * FRAME_VERIFIED with the verdict. The supervisor never reads H itself. */
struct frame_verify_req {
	uint32_t seed_len;	/* 1..32 */
	uint32_t reserved;
	uint8_t seed[32];
	uint8_t digest[32];	/* H_DONE's BLAKE2b-256 of the region */
	/* Proofs: params is 1 + the index of the synth's --params fds whose vk
	 * checks it, and the region is the partition's proof file
	 * (PFILE_PROOF_REGION bytes of a PFILE_KIND_PROOFS file): decoded,
	 * its identity, vk digest and public inputs compared with the job's
	 * and x_out, then the pairing. 0: the region is H, as above. */
	uint32_t params;
	uint32_t flags;		/* FRAME_VERIFY_DERIVE_XOUT, FRAME_VERIFY_KEEP_H, or 0 */
	uint8_t xout[32];	/* the synth stream's x_out (PART_INFO); zero when derived */
};

/* A proof kept across a restart (the supervisor's resume) has no stream
 * that ended it: the synth runs the partition's chain itself to get x_out
 * (O(n), with heartbeats; against proving it again, little) and checks
 * the proof against that. */
#define FRAME_VERIFY_DERIVE_XOUT 1u
/* The region is a PFILE_KIND_PROOFS_H one: the proof file, then the
 * partition's H. The synth streams it once: the digest over both, the
 * proof's checks, and the H's (verify_partition_stream_after), in chunks,
 * whatever k is. With DERIVE_XOUT too for one kept across a restart. */
#define FRAME_VERIFY_KEEP_H 2u

enum frame_verdict {
	FRAME_VERDICT_OK = 0,	/* H is this partition's quotient */
	FRAME_VERDICT_WRONG = 1,	/* it is not (or not canonical, or not the digest's bytes) */
	FRAME_VERDICT_UNREAD = 2,	/* the region could not be read (err): no verdict */
};

struct frame_verified {
	uint32_t verdict;	/* enum frame_verdict */
	int32_t err;		/* UNREAD: the errno */
	char why[120];		/* WRONG / UNREAD: one line, NUL-terminated */
};

/* The payload length a well-formed frame of this type and k must have;
 * 0 for FAIL (variable). */
uint64_t frame_expected_len(uint16_t type, uint16_t log_size);

/* Fill a header; payload_len, checksum and hdr_check are left to seal. */
void frame_init(struct frame_hdr *h, uint16_t type, uint64_t job, uint32_t partition,
		uint16_t kind, uint16_t log_size, uint64_t gen);
/* Set payload_len and checksum from the payload, then hdr_check. (Not for
 * PART_DATA: set payload_len = frame_expected_len() and checksum = 0, then
 * frame_seal_hdr, and send the trailer after the rows.) */
void frame_seal(struct frame_hdr *h, const void *payload, uint64_t len);
/* Recompute hdr_check only (after changing gen or work_ns when relaying). */
void frame_seal_hdr(struct frame_hdr *h);
/* Validate a received header: magic, version, hdr_check, type, k in
 * 1..max_log, payload_len as frame_expected_len says (FAIL: 1..256).
 * 0, or -EBADMSG with one clear reason in err. */
int frame_check_hdr(const struct frame_hdr *h, unsigned max_log, char *err, size_t errlen);

/* XXH3-64, all at once or streamed. */
uint64_t frame_checksum(const void *p, size_t n);
struct frame_sum { void *state; };
int frame_sum_init(struct frame_sum *s);
void frame_sum_update(struct frame_sum *s, const void *p, size_t n);
uint64_t frame_sum_final(struct frame_sum *s);	/* also frees the state */

/* Blocking whole reads and writes for the workers (EINTR-safe).
 * read: 0 on success, 1 on clean EOF before the first byte, -errno or
 * -EPIPE (EOF in the middle) otherwise. write: 0 or -errno. */
int frame_read_full(int fd, void *buf, size_t n);
int frame_write_full(int fd, const void *buf, size_t n);

/* Additions for the workers (nothing above changed). */
/* "HELLO", "PART_DATA", ... or "unknown", for log lines. */
const char *frame_type_name(uint16_t type);
/* Write a sealed header, then its payload_len bytes of payload (which may
 * be NULL when payload_len is 0): 0 or -errno, as frame_write_full. */
int frame_send(int fd, const struct frame_hdr *h, const void *payload);

#endif
