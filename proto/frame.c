/*
 * frame: the pipe protocol's codec (see frame.h for the message flow).
 *
 * Design: a receiver believes nothing in a header until the header has
 * vouched for itself. frame_check_hdr checks the fixed fields first, then
 * hdr_check (so a shifted or garbage header is caught before its length is
 * used), then that payload_len is exactly what the type and k imply, so a
 * reader never allocates or reads more than a well-formed frame holds. The
 * payload's checksum is XXH3-64; the streaming form lets a worker check a
 * 1.5 GiB partition while it decodes it in chunks.
 */
#include "proto/frame.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "util/util.h"

/* The header is sent as its in-memory bytes: pin every offset. */
static_assert(sizeof(struct frame_hdr) == FRAME_HDR_SIZE, "frame header size");
static_assert(offsetof(struct frame_hdr, job) == 8, "job");
static_assert(offsetof(struct frame_hdr, partition) == 16, "partition");
static_assert(offsetof(struct frame_hdr, kind) == 20, "kind");
static_assert(offsetof(struct frame_hdr, log_size) == 22, "log_size");
static_assert(offsetof(struct frame_hdr, gen) == 24, "gen");
static_assert(offsetof(struct frame_hdr, payload_len) == 32, "payload_len");
static_assert(offsetof(struct frame_hdr, checksum) == 40, "checksum");
static_assert(offsetof(struct frame_hdr, work_ns) == 48, "work_ns");
static_assert(offsetof(struct frame_hdr, hdr_check) == 60, "hdr_check");
static_assert(sizeof(struct frame_hello) == 128, "hello size");
static_assert(sizeof(struct frame_synth_req) == 40, "synth_req size");

#define FRAME_ELEM_BYTES 32u

const char *frame_type_name(uint16_t type)
{
	static const char *const names[FRAME_NTYPES] = {
		[FRAME_HELLO] = "HELLO", [FRAME_SYNTH_REQ] = "SYNTH_REQ",
		[FRAME_PART_DATA] = "PART_DATA", [FRAME_H_DONE] = "H_DONE",
		[FRAME_FAIL] = "FAIL", [FRAME_VERIFY_REQ] = "VERIFY_REQ",
		[FRAME_VERIFIED] = "VERIFIED", [FRAME_PART_INFO] = "PART_INFO", [FRAME_PART_ID] = "PART_ID",
	};

	return type > 0 && type < FRAME_NTYPES ? names[type] : "unknown";
}

uint64_t frame_expected_len(uint16_t type, uint16_t log_size)
{
	uint64_t n = log_size <= VOCAB_LOG_MAX ? (uint64_t)1 << log_size : 0;

	switch (type) {
	case FRAME_HELLO:
		return sizeof(struct frame_hello);
	case FRAME_SYNTH_REQ:
	case FRAME_PART_ID:
		return sizeof(struct frame_synth_req);
	case FRAME_PART_DATA:
		return n ? 3 * n * FRAME_ELEM_BYTES + FRAME_TRAILER_BYTES : 0;
	case FRAME_H_DONE:
		return sizeof(struct frame_h_done);
	case FRAME_VERIFY_REQ:
		return sizeof(struct frame_verify_req);
	case FRAME_VERIFIED:
		return sizeof(struct frame_verified);
	case FRAME_PART_INFO:
		return sizeof(struct frame_part_info);
	default:
		return 0;
	}
}

void frame_init(struct frame_hdr *h, uint16_t type, uint64_t job, uint32_t partition,
		uint16_t kind, uint16_t log_size, uint64_t gen)
{
	memset(h, 0, sizeof(*h));
	h->magic = FRAME_MAGIC;
	h->version = FRAME_VERSION;
	h->type = type;
	h->job = job;
	h->partition = partition;
	h->kind = kind;
	h->log_size = log_size;
	h->gen = gen;
}

static uint32_t frame_hdr_sum(const struct frame_hdr *h)
{
	return (uint32_t)XXH3_64bits(h, offsetof(struct frame_hdr, hdr_check));
}

void frame_seal_hdr(struct frame_hdr *h)
{
	h->hdr_check = frame_hdr_sum(h);
}

void frame_seal(struct frame_hdr *h, const void *payload, uint64_t len)
{
	h->payload_len = len;
	h->checksum = frame_checksum(payload, len);
	frame_seal_hdr(h);
}

/* Types whose frames describe one partition of size 2^k, so k must be a
 * size we prove; HELLO and FAIL may carry k = 0 (no partition). */
static int frame_needs_k(uint16_t type)
{
	return type == FRAME_SYNTH_REQ || type == FRAME_PART_DATA || type == FRAME_H_DONE ||
	       type == FRAME_VERIFY_REQ || type == FRAME_VERIFIED || type == FRAME_PART_INFO ||
	       type == FRAME_PART_ID;
}

int frame_check_hdr(const struct frame_hdr *h, unsigned max_log, char *err, size_t errlen)
{
	unsigned lo;
	uint64_t want;

	if (max_log > VOCAB_LOG_MAX)
		max_log = VOCAB_LOG_MAX;
	if (h->magic != FRAME_MAGIC) {
		snprintf(err, errlen, "bad frame magic 0x%08x (expected 0x%08x)",
			 h->magic, FRAME_MAGIC);
		return -EBADMSG;
	}
	if (h->version != FRAME_VERSION) {
		snprintf(err, errlen, "unsupported frame version %u (expected %u)",
			 h->version, FRAME_VERSION);
		return -EBADMSG;
	}
	if (h->hdr_check != frame_hdr_sum(h)) {
		snprintf(err, errlen, "frame header check mismatch: the header is corrupt");
		return -EBADMSG;
	}
	if (h->type == 0 || h->type >= FRAME_NTYPES) {
		snprintf(err, errlen, "unknown frame type %u", h->type);
		return -EBADMSG;
	}
	lo = frame_needs_k(h->type) ? VOCAB_LOG_MIN : 0;
	if (h->log_size < lo || h->log_size > max_log) {
		snprintf(err, errlen, "%s frame: log size k = %u out of range %u..%u",
			 frame_type_name(h->type), h->log_size, lo, max_log);
		return -EBADMSG;
	}
	if (h->type == FRAME_FAIL) {
		if (h->payload_len < 1 || h->payload_len > FRAME_FAIL_MAX) {
			snprintf(err, errlen, "FAIL frame: reason of %llu bytes, expected 1..%d",
				 (unsigned long long)h->payload_len, FRAME_FAIL_MAX);
			return -EBADMSG;
		}
		if (h->reserved >= FRAME_FAIL_NCLASSES) {
			snprintf(err, errlen, "FAIL frame: unknown class %u", h->reserved);
			return -EBADMSG;
		}
		return 0;
	}
	want = frame_expected_len(h->type, h->log_size);
	if (h->payload_len != want) {
		snprintf(err, errlen, "%s frame: payload of %llu bytes, expected %llu for k = %u",
			 frame_type_name(h->type), (unsigned long long)h->payload_len,
			 (unsigned long long)want, h->log_size);
		return -EBADMSG;
	}
	return 0;
}

uint64_t frame_checksum(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

int frame_sum_init(struct frame_sum *s)
{
	XXH3_state_t *st = XXH3_createState();

	if (!st)
		return -ENOMEM;
	XXH3_64bits_reset(st);
	s->state = st;
	return 0;
}

void frame_sum_update(struct frame_sum *s, const void *p, size_t n)
{
	XXH3_64bits_update(s->state, p, n);
}

uint64_t frame_sum_final(struct frame_sum *s)
{
	uint64_t v = XXH3_64bits_digest(s->state);

	XXH3_freeState(s->state);
	s->state = NULL;
	return v;
}

uint64_t frame_part_off(uint16_t log_size, unsigned vec, uint64_t row)
{
	uint64_t rows = frame_part_chunk_rows(log_size);
	uint64_t first = row - row % rows;	/* the chunk's first row */

	return (3 * first + vec * rows + row % rows) * FRAME_ELEM_BYTES;
}

void frame_part_seal(uint8_t *payload, uint16_t log_size)
{
	uint64_t len = frame_expected_len(FRAME_PART_DATA, log_size) - FRAME_TRAILER_BYTES;

	util_le64_put(payload + len, frame_checksum(payload, len));
}

int frame_payload_ok(const struct frame_hdr *h, const void *payload)
{
	uint64_t len = h->payload_len;

	if (h->type != FRAME_PART_DATA)
		return frame_checksum(payload, len) == h->checksum;
	if (len < FRAME_TRAILER_BYTES)
		return 0;
	len -= FRAME_TRAILER_BYTES;
	return frame_checksum(payload, len) == util_le64_get((const uint8_t *)payload + len);
}

int frame_read_full(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r > 0)
			got += (size_t)r;
		else if (r == 0)
			return got == 0 ? 1 : -EPIPE;
		else if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int frame_write_full(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t r = write(fd, p, n);

		if (r >= 0) {
			p += r;
			n -= (size_t)r;
		} else if (errno != EINTR) {
			return -errno;
		}
	}
	return 0;
}

int frame_send(int fd, const struct frame_hdr *h, const void *payload)
{
	int rc = frame_write_full(fd, h, sizeof(*h));

	if (rc == 0 && h->payload_len)
		rc = frame_write_full(fd, payload, h->payload_len);
	return rc;
}

const char *frame_fail_class_name(uint32_t cls)
{
	static const char *const n[FRAME_FAIL_NCLASSES] = {
		[FRAME_FAIL_PARTITION] = "partition", [FRAME_FAIL_STOPPED] = "stopped",
		[FRAME_FAIL_BAD_PAYLOAD] = "bad payload", [FRAME_FAIL_NOMEM] = "out of memory",
		[FRAME_FAIL_DEVICE_LOST] = "device lost", [FRAME_FAIL_BAD_INPUT] = "bad input",
		[FRAME_FAIL_INTERNAL] = "internal",
	};
	return cls < FRAME_FAIL_NCLASSES ? n[cls] : "unknown";
}
