/*
 * fuzz: libFuzzer targets for every parser of untrusted input (frames,
 * control requests, the config file, the journal, partition/H/result
 * files, the status segment, curve points, Groth16 params and proofs). `make fuzz` builds them with clang into
 * bin-fuzz/ and runs each; tests/fuzz/regress.c replays the stored inputs
 * (fuzz/corpus/NAME, fuzz/regress/NAME) through the same code in `make test`.
 *
 * Each fuzz/fuzz_NAME.c defines its entry with FUZZ_ENTRY(NAME). Under
 * libFuzzer that is LLVMFuzzerTestOneInput; compiled with -DFUZZ_REGRESS
 * it is fuzz_NAME_one, so one normal program can link every target.
 * A target returns 0, and aborts (FUZZ_ASSERT) when an invariant of the
 * parser's contract breaks: libFuzzer and the regression test both see
 * that as a crash.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef FUZZ_REGRESS
#define FUZZ_ENTRY(name) int fuzz_##name##_one(const uint8_t *data, size_t size)
#else
#define FUZZ_ENTRY(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif

int fuzz_frame_one(const uint8_t *data, size_t size);
int fuzz_ctl_one(const uint8_t *data, size_t size);
int fuzz_conf_one(const uint8_t *data, size_t size);
int fuzz_journal_one(const uint8_t *data, size_t size);
int fuzz_pfile_one(const uint8_t *data, size_t size);
int fuzz_shm_one(const uint8_t *data, size_t size);
int fuzz_point_one(const uint8_t *data, size_t size);
int fuzz_params_one(const uint8_t *data, size_t size);
int fuzz_proof_one(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",		\
			__FILE__, __LINE__, #cond);				\
		abort();							\
	}									\
} while (0)

/* A private directory for this process, created on first use (under
 * /dev/shm when it exists: the journal fsyncs) and removed with its
 * files at exit. Aborts when it cannot be made. */
const char *fuzz_tmpdir(void);
/* Replace the file at path with size bytes of data; aborts on failure. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);
/* Fill err with non-NUL bytes before a call; after a failed call, check
 * that the parser wrote one terminated, non-empty reason into it. */
void fuzz_err_fill(char *err, size_t errlen);
void fuzz_check_err(const char *err, size_t errlen);

#endif
