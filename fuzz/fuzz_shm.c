/*
 * fuzz_shm: the status-segment reader (shm/shm.h) fed arbitrary segment
 * bytes, as a reader must survive a garbage or hostile segment. The input
 * is copied into a buffer of exactly its size (malloc: 16-byte aligned,
 * as a mapping is page aligned), attached, and, when accepted, every
 * record is read: the supervisor record, every worker slot, every job and
 * every event the ring can hold. AddressSanitizer catches any read
 * outside the buffer; each read must answer one of its documented codes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "shm/shm.h"

static void fuzz_shm_rc(int rc)
{
	FUZZ_ASSERT(rc == 0 || rc == -EAGAIN || rc == -ENOENT);
}

static void fuzz_shm_read_all(const struct shm_seg *s)
{
	static const enum shm_table_id slots[] = { SHM_T_GPU, SHM_T_SYNTH };
	struct shm_sup sup;
	struct shm_slot slot;
	struct shm_job job;
	struct shm_event ev;
	uint64_t head = shm_event_head(s), cap = shm_count(s, SHM_T_EVENT);

	fuzz_shm_rc(shm_read_sup(s, &sup));
	for (size_t t = 0; t < sizeof slots / sizeof slots[0]; t++) {
		uint32_t n = shm_count(s, slots[t]);

		for (uint32_t i = 0; i < n; i++)
			fuzz_shm_rc(shm_read_slot(s, slots[t], i, &slot));
		FUZZ_ASSERT(shm_read_slot(s, slots[t], n, &slot) == -ERANGE);
	}
	FUZZ_ASSERT(shm_read_slot(s, SHM_T_JOB, 0, &slot) == -EINVAL);
	for (uint32_t i = 0; i < shm_count(s, SHM_T_JOB); i++)
		fuzz_shm_rc(shm_read_job(s, i, &job));
	FUZZ_ASSERT(shm_read_job(s, shm_count(s, SHM_T_JOB), &job) == -ERANGE);
	/* The ring's window and what lies just outside it. */
	for (uint64_t k = 0; k <= cap && k < head; k++)
		fuzz_shm_rc(shm_read_event(s, head - k, &ev));
	FUZZ_ASSERT(shm_read_event(s, 0, &ev) == -ENOENT);
	if (head < UINT64_MAX)
		FUZZ_ASSERT(shm_read_event(s, head + 1, &ev) == -ENOENT);
}

FUZZ_ENTRY(shm)
{
	struct shm_seg s;
	char err[256];
	void *buf = malloc(size ? size : 1);
	int rc;

	FUZZ_ASSERT(buf);
	memcpy(buf, data, size);
	fuzz_err_fill(err, sizeof err);
	rc = shm_attach_buffer(&s, buf, size, err, sizeof err);
	if (rc) {
		FUZZ_ASSERT(rc == -EBADMSG || rc == -EAGAIN || rc == -EPROTO);
		fuzz_check_err(err, sizeof err);
	} else {
		FUZZ_ASSERT(shm_validate(buf, size, err, sizeof err) == 0);
		fuzz_shm_read_all(&s);
		shm_close(&s);
	}
	free(buf);
	return 0;
}
