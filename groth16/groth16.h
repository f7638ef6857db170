/*
 * groth16: Groth16 proofs over BLS12-381 for provisor's circuit (the v2
 * hash chain of synth/synth.h: one R1CS per k, public inputs one, x_0 and
 * x_out).
 *
 * Setup derives the toxic waste (tau, alpha, beta, gamma, delta) from a
 * seed: deterministic for tests and demos and NOT SECURE, since anyone with
 * the seed can forge proofs. The params format (docs/formats.md) is the
 * layout of bellperson's Parameters::write behind a header, so that a real
 * ceremony's output can be converted into it.
 *
 *   A = alpha + sum_v z_v A_v(tau) + r delta                      (G1)
 *   B = beta  + sum_v z_v B_v(tau) + s delta                      (G2)
 *   C = sum_{v private} z_v L_v + sum_i h_i H_i + s A + r B_1 - r s delta  (G1)
 *   verify: e(A, B) = e(alpha, beta) e(sum_i x_i IC_i, gamma) e(C, delta)
 *
 * with L_v = (beta A_v(tau) + alpha B_v(tau) + C_v(tau)) / delta,
 * IC_i the same over gamma, H_i = tau^i Z(tau) / delta, and h the
 * coefficients of the H-term (gpuworker/hterm.h), exactly as bellperson.
 */
#ifndef GROTH16_GROTH16_H
#define GROTH16_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"
#include "field/fr.h"
#include "synth/synth.h"

#define GROTH16_NPUB 3			/* one, x_0, x_out */
#define GROTH16_PARAMS_VERSION 1
#define GROTH16_PARAMS_HEADER 128
#define GROTH16_FLAG_SEEDED 1u		/* toxic waste derived from a seed */
#define GROTH16_PROOF_VERSION 1
#define GROTH16_PROOF_BYTES 376
#define GROTH16_DIGEST 32

struct groth16_vk {
	g1_affine_t alpha_g1, beta_g1, delta_g1;
	g2_affine_t beta_g2, gamma_g2, delta_g2;
	g1_affine_t ic[GROTH16_NPUB];
};

struct groth16_params {
	uint32_t k, nvars, npub, flags;
	uint8_t vk_digest[GROTH16_DIGEST];	/* BLAKE2b-256 of the vk's bytes */
	uint8_t circuit[GROTH16_DIGEST];	/* groth16_circuit_digest(k) */
	struct groth16_vk vk;
	/* The proving key; NULL after groth16_params_read(..., vk_only). */
	size_t nh;				/* n - 1 */
	g1_affine_t *h;				/* nh */
	g1_affine_t *l;				/* nvars - npub */
	g1_affine_t *a, *b_g1;			/* nvars each */
	g2_affine_t *b_g2;			/* nvars */
	/* Set when the key lives in a resident map (groth16_resident_map):
	 * the arrays point into it, and groth16_params_free unmaps it. */
	void *map;
	size_t map_len;
};

struct groth16_proof {
	g1_affine_t a, c;
	g2_affine_t b;
};

/* A proof file: the proof, what it proves, and which params made it. */
struct groth16_proof_file {
	struct synth_id id;
	uint8_t vk_digest[GROTH16_DIGEST];
	fr_t x[GROTH16_NPUB - 1];		/* x_0, x_out */
	struct groth16_proof proof;
};

/* BLAKE2b-256("provisor/groth16/circuit/v2" || LE32(k)): names the circuit
 * a params file was made for. */
void groth16_circuit_digest(unsigned k, uint8_t out[GROTH16_DIGEST]);

/* The seed-derived setup for the k circuit (threads 0: every CPU). 0, or
 * -1 with one line in err. */
int groth16_setup(struct groth16_params *out, const uint8_t *seed, size_t seed_len, unsigned k,
		  unsigned threads, char *err, size_t errlen);
void groth16_params_free(struct groth16_params *p);

/* Write atomically (a temporary in the same directory, then rename). */
int groth16_params_write(const char *path, const struct groth16_params *p, char *err, size_t errlen);
/* Read and check: header, digests, every point on its curve; the vk's
 * points also in their subgroups (the proving key's are covered by the
 * file's digest and checked on the curve only). vk_only reads the header
 * and the vk alone. 0, or -1 with one line in err naming what is wrong. */
int groth16_params_read(const char *path, struct groth16_params *p, int vk_only, char *err, size_t errlen);
/* The same from memory (fuzzing); the whole file must be in buf. */
int groth16_params_parse(const uint8_t *buf, size_t len, struct groth16_params *p, int vk_only,
			 char *err, size_t errlen);

/*
 * The resident form (groth16/resident.c, docs/formats.md): a params file
 * validated once (groth16_params_read, every point) and written out as the
 * prover's own arrays, so that every later load is a read-only shared mmap
 * with no re-check. It is host-local (the arrays' in-memory layout) and
 * bound to its source by size, mtime, inode, device and the source's
 * trailer digest. The supervisor builds it in its state directory; workers
 * get only a read-only descriptor of it.
 */
#define GROTH16_RESIDENT_VERSION 1
struct groth16_source {		/* what binds a resident file to its params file */
	uint64_t size, mtime_ns, ino, dev;
	uint8_t trailer[GROTH16_DIGEST];	/* the params file's last 32 bytes */
};
/* The binding of the params file open as fd. 0 or -errno. */
int groth16_source_of(int fd, struct groth16_source *src);
/* Validate the params file at src_path in full and write its resident form
 * as name in directory dfd (temp, fsync, rename, fsync dir). The vk and
 * counts come back in *vk_out (no proving key). 0, or -1 with one line. */
int groth16_resident_build(const char *src_path, int dfd, const char *name, struct groth16_params *vk_out,
			   char *err, size_t errlen);
/* The header of the resident file open as fd: counts, digests and vk into
 * *p (no proving key), its source binding into *src. 0, or -1 with one
 * line (not a resident file, another layout, a bad checksum, a wrong size). */
int groth16_resident_header(int fd, struct groth16_params *p, struct groth16_source *src, char *err, size_t errlen);
/* The same, and the source's path as it was when the file was built. */
int groth16_resident_info(int fd, struct groth16_params *p, struct groth16_source *src, char *path, size_t plen,
			  char *err, size_t errlen);
/* Is name in dfd the resident form of the params file at src_path (whose
 * header and vk the caller read into *vk) as it is now: its header sound,
 * bound to this very file, the same vk? 1 yes; 0 no, why says why ("none
 * yet", a damaged file, another version); -1 the params file cannot be
 * read (why: one line). */
int groth16_resident_fresh(int dfd, const char *name, const char *src_path, const struct groth16_params *vk,
			   char *why, size_t whylen);
/* Map the resident file fd read-only and shared, and point p's arrays into
 * it; its pages are read in (madvise, then a touch per page), progress(arg,
 * done, total) called now and then (may be NULL). 0, or -1 with one line. */
int groth16_resident_map(int fd, struct groth16_params *p, void (*progress)(void *arg, uint64_t done, uint64_t total),
			 void *arg, char *err, size_t errlen);
/* The name of the resident form of params with this vk digest and k:
 * "k<K>-<16 hex digits of the vk digest>.resident". */
void groth16_resident_name(const struct groth16_params *p, char *buf, size_t len);

/* Where a proof's time went, in ns (for prove's report and the bench). */
struct groth16_times {
	uint64_t msm_a, msm_b, msm_l, msm_h, total;
};

/* The proof of the assignment z (synth_nvars(k) elements) with H-term
 * coefficients h (2^k elements, the last zero) and randomness r, s. 0,
 * -1 when memory ran out, or GROTH16_STOPPED when the MSMs' stop hook
 * (msm_set_stop) asked them to stop. */
#define GROTH16_STOPPED (-2)
int groth16_prove(struct groth16_proof *out, const struct groth16_params *p, const fr_t *z,
		  const fr_t *h, const fr_t *r, const fr_t *s, unsigned threads, struct groth16_times *t);

/* A proof's r and s from libsodium's CSPRNG (what prove --params and the
 * gpuworker use). */
void groth16_randomness(fr_t *r, fr_t *s);

/* 1 when the proof holds for the public inputs x (x_0, x_out), else 0. */
int groth16_verify(const struct groth16_vk *vk, const fr_t x[GROTH16_NPUB - 1], const struct groth16_proof *pr);

/* Proof files (GROTH16_PROOF_BYTES, docs/formats.md). */
void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const struct groth16_proof_file *f);
/* 0, or -1 with one line in err (bad magic, version, checksum, a point
 * that is not canonical, not on its curve or not in its subgroup). */
int groth16_proof_decode(struct groth16_proof_file *f, const uint8_t *in, size_t len, char *err, size_t errlen);
int groth16_proof_write(const char *path, const struct groth16_proof_file *f, char *err, size_t errlen);
int groth16_proof_read(const char *path, struct groth16_proof_file *f, char *err, size_t errlen);

#endif
