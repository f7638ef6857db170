/*
 * backend: the one ABI every prover sits behind in a gpuworker. The
 * built-in cpu and cuda backends (gpuworker/backend.c) and a plugin
 * loaded with `--backend plugin:/path/lib.so` (dlopen'd by the gpuworker,
 * which then calls it exactly as it calls a built-in one) are each a
 * `struct provisor_backend`: a version, a name and four calls. The
 * gpuworker owns everything around them: the frames, the status slot,
 * the witness, the randomness, storing the result and the sandbox; a
 * backend only computes. docs/backend-abi.md is the operator's guide.
 *
 * Threading: init, prove and fini are called from one thread at a time
 * (init and fini from the main thread, prove from the prover thread, one
 * partition at a time). abandon is the only call made concurrently: from
 * another thread, while prove may be running.
 *
 * Types: fr_t (field/fr.h) is an element of BLS12-381's Fr, four 64-bit
 * limbs, little-endian, in Montgomery form; struct groth16_params and
 * struct groth16_proof are groth16/groth16.h's. A plugin is compiled
 * against the headers of the provisor tree it runs with, at the same
 * abi_version.
 */
#ifndef GPUWORKER_BACKEND_H
#define GPUWORKER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "groth16/groth16.h"

/* The ABI described here. A backend whose abi_version differs is refused. */
#define PROVISOR_BACKEND_ABI 1
/* The one symbol a plugin exports: a function returning its table. */
#define PROVISOR_BACKEND_SYMBOL "provisor_backend_v1"

/* What a call returns. Anything else a backend returns is taken as
 * PROVISOR_BE_INTERNAL (a backend returning garbage is a broken backend). */
enum provisor_be_status {
	PROVISOR_BE_OK = 0,
	PROVISOR_BE_STOPPED = 1,	/* prove: abandoned at a safe point, on request */
	PROVISOR_BE_NOMEM = 2,		/* out of host or device memory: try again later */
	PROVISOR_BE_DEVICE_LOST = 3,	/* the device failed or is gone: this process must end */
	PROVISOR_BE_BAD_INPUT = 4,	/* the partition is not provable (e.g. unsatisfied) */
	PROVISOR_BE_INTERNAL = 5,	/* anything else: a bug in the backend */
	PROVISOR_BE_NSTATUS
};

/* "ok", "stopped", "out of memory", "device lost", "bad input", "internal". */
const char *provisor_be_status_name(int status);

/* What init is given. Pointers stay valid until fini. */
struct provisor_be_init {
	uint32_t size;		/* sizeof(struct provisor_be_init) of the caller */
	int device;		/* the GPU ordinal of this worker's slot */
	unsigned slot;		/* the worker slot's index (for log lines) */
	unsigned threads;	/* CPU threads it may use; 0: every CPU */
	unsigned nparams;	/* proving keys, mapped read-only and shared */
	const struct groth16_params *params;	/* nparams of them (may be 0) */
	char *desc;		/* out: one line about the device (may stay empty) */
	size_t desc_len;
};

/* One partition to prove. a, b, c are the R1CS evaluations on the domain
 * of 2^k rows (the backend may overwrite all three). With params (a proof
 * is wanted), z is the witness (params->nvars elements) and r, s the
 * proof's randomness; without, only H is wanted. */
struct provisor_be_part {
	unsigned k;
	fr_t *a, *b, *c;
	const struct groth16_params *params;	/* NULL: H only */
	const fr_t *z;
	const fr_t *r, *s;
	uint64_t ticket;	/* names this call for abandon (non-zero) */
};

/* Where prove puts its result. H only: H's 2^k coefficients into h
 * (which is a: the backend may compute in place). A proof: into *proof.
 * err: one line when prove fails (NUL-terminated, within err_len). */
struct provisor_be_out {
	fr_t *h;
	struct groth16_proof *proof;
	char *err;
	size_t err_len;
};

struct provisor_backend {
	uint32_t abi_version;	/* PROVISOR_BACKEND_ABI */
	const char *name;	/* "cpu", "cuda", or the plugin's own */
	/* Take the device and anything it needs for the worker's life. Runs
	 * once, confined (no file opens outside the system's directories).
	 * PROVISOR_BE_OK with *ctx set, or a status and one line in
	 * init->desc (DEVICE_LOST: the device is unusable; the slot is then
	 * disabled as "bad device"). */
	int (*init)(struct provisor_be_init *init, void **ctx);
	/* Prove one partition: a status (out->err says why when not OK). At
	 * its safe points (between stages, between MSM windows) it checks
	 * for an abandon of this call's ticket and returns STOPPED. */
	int (*prove)(void *ctx, const struct provisor_be_part *part, struct provisor_be_out *out);
	/* Ask the prove call with this ticket (running, or about to start)
	 * to stop at its next safe point; a ticket no call has is ignored.
	 * Called from another thread; must not block. */
	void (*abandon)(void *ctx, uint64_t ticket);
	/* Release everything init took. */
	void (*fini)(void *ctx);
};

/* The table a plugin exports (PROVISOR_BACKEND_SYMBOL). It is called
 * before the sandbox's file rules apply (gpuworker/main.c): it should
 * only return its table. */
typedef const struct provisor_backend *(*provisor_backend_fn)(void);

/* ---- the gpuworker's side (gpuworker/backend.c) ---- */

/* The built-in backend for a resolved vocab backend (cpu or cuda). */
const struct provisor_backend *backend_builtin(int vocab_backend);
/* dlopen path and take its table: 0, or -1 with one line in err (cannot
 * load, no symbol, wrong abi_version, an incomplete table). */
int backend_plugin_open(const char *path, const struct provisor_backend **be, char *err, size_t errlen);

#endif
