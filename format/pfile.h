/*
 * pfile: the on-disk files of provisor, byte for byte as docs/formats.md
 * lays them out.
 *
 *   partition file  (PFILE_KIND_PARTITION)  what `provisor synth` writes:
 *                   a partition's identity, then a, b, c
 *   H file          (PFILE_KIND_H)          what `provisor prove` writes:
 *                   the same identity, then H's n coefficients
 *   result file     (PFILE_KIND_RESULT)     what the supervisor writes when
 *                   a job is done: job id, kind, seed, k, the partition
 *                   count, then every partition's H in partition order
 *   proofs file     (PFILE_KIND_PROOFS)     the same for a kind with params:
 *                   every partition's proof file instead of its H
 *   proofs+H file   (PFILE_KIND_PROOFS_H)   a kind with params and keep_h:
 *                   every partition's proof file followed by its H
 *
 * All of them share one 80-byte little-endian header; elements are
 * canonical 32-byte little-endian encodings of Fr. Every kind is format
 * version 3, the files of circuit v2 (docs/circuit.md). Partition and H
 * files end in a BLAKE2b-256 checksum over everything before it. Result
 * files keep the layout they had as version 2: after the payload comes a
 * table of one BLAKE2b-256 digest per partition's H, then a checksum over
 * header and table only. Each partition's region sits at a fixed offset,
 * so the process that computed it (the gpuworker) writes it and its
 * digest, and the supervisor assembles the file from the digests alone,
 * never reading or hashing a payload byte (docs/formats.md).
 *
 * Versions 1 and 2 hold rows or H of circuit v1, which no longer exists:
 * they are refused as such ("format version 1 (circuit v1) is no longer
 * accepted"), never read as if they were wrong.
 *
 * Design: readers trust nothing. They check magic, version, kind, every
 * header field, that the file length is exactly what the header implies,
 * that each element is canonical, and the checksum; the first problem is
 * returned as one error string that names the file and what was wrong.
 * Writers write a temp file in the destination's directory, fsync it,
 * rename it over the destination and fsync the directory, so a reader
 * sees the old file or the whole new one, never a part.
 *
 * Errors: every function returns 0 or a negative errno (-EINVAL for a bad
 * file or argument, else the failing call's errno) and, on failure, writes
 * one line (no newline) into err.
 */
#ifndef FORMAT_PFILE_H
#define FORMAT_PFILE_H

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "field/fr.h"
#include "synth/synth.h"
#include "util/vocab.h"

#define PFILE_MAGIC "PROVISOR"	/* 8 bytes, no terminator on disk */
#define PFILE_VERSION 3		/* every kind: circuit v2 */
#define PFILE_RESULT_VERSION PFILE_VERSION	/* result files, the digest-table layout */
#define PFILE_VERSION_CIRCUIT1 2	/* versions 1..2: circuit v1, refused */
#define PFILE_HEADER_BYTES 80
#define PFILE_SUM_BYTES 32
#define PFILE_RESULT_MAX_PARTITIONS 1024

enum pfile_kind {
	PFILE_KIND_PARTITION = 1,
	PFILE_KIND_H = 2,
	PFILE_KIND_RESULT = 3,
	PFILE_KIND_PROOFS = 4,	/* a job's result as proofs (kinds with params) */
	PFILE_KIND_PROOFS_H = 5,	/* proofs, each followed by its H (keep_h) */
};

/* A proofs file's region per partition: the partition's proof file
 * (groth16.h's GROTH16_PROOF_BYTES, docs/formats.md), byte for byte. */
#define PFILE_PROOF_REGION 376

/* A result file's header fields. seed/seed_len/k are those of the job;
 * partition p's identity is (seed, p, k). */
struct pfile_result {
	uint64_t job_id;
	uint32_t job_kind;	/* enum vocab_kind */
	uint32_t partitions;	/* 1..PFILE_RESULT_MAX_PARTITIONS */
	struct synth_id id;	/* id.partition unused (0) */
	/* The file's format version: the reader fills in PFILE_VERSION; a
	 * writer takes 0 or PFILE_VERSION and refuses anything else. */
	uint32_t version;
};

/*
 * The layout of a result file (the "result2" layout, introduced with
 * format version 2 and kept by version 3), for whoever writes one piece by
 * piece (the supervisor writes the header, table and checksum; each
 * gpuworker writes its partition's H at its offset and hands back that
 * region's digest). n = 2^k elements per partition:
 *
 *   0                              header (80 bytes, version 3)
 *   part_off(k, p) = 80 + p*n*32   partition p's H, n canonical elements
 *   table_off(k, P) = 80 + P*n*32  digest table: P entries of 32 bytes,
 *                                  entry p = BLAKE2b-256(partition p's bytes)
 *   table_off + P*32               checksum = BLAKE2b-256(header || table)
 *   size(k, P) = table_off + P*32 + 32
 *
 * These are pure arithmetic (no checks: k <= 27 and P <= 1024 keep every
 * value far below 2^63). The digests are libsodium's crypto_generichash,
 * unkeyed, 32-byte output.
 */
uint64_t pfile_result2_part_off(uint32_t k, uint32_t p);
uint64_t pfile_result2_table_off(uint32_t k, uint32_t parts);
uint64_t pfile_result2_size(uint32_t k, uint32_t parts);
/* The 80 header bytes of a result file for res (res->version is
 * ignored; res must be one pfile_result_begin accepts: a valid identity,
 * a known job kind, 1..PFILE_RESULT_MAX_PARTITIONS partitions). */
void pfile_result2_header(const struct pfile_result *res, uint8_t hdr[PFILE_HEADER_BYTES]);
/* The trailing checksum: BLAKE2b-256 over hdr || table (parts * 32 bytes). */
void pfile_result2_sum(const uint8_t hdr[PFILE_HEADER_BYTES], const uint8_t *table,
		       uint32_t parts, uint8_t sum[PFILE_SUM_BYTES]);
/* A partition's digest (its table entry), computed as the bytes go by:
 * init, update over the region's n*32 bytes in order (any split), final. */
struct pfile_digest {
	crypto_generichash_state st;
};
void pfile_digest_init(struct pfile_digest *d);
void pfile_digest_update(struct pfile_digest *d, const void *buf, size_t len);
void pfile_digest_final(struct pfile_digest *d, uint8_t out[PFILE_SUM_BYTES]);

/*
 * The same layout for every kind of job result, only the region per
 * partition differs: a result file (kind 3, n*32 bytes: its H), a proofs
 * file (kind 4, PFILE_PROOF_REGION bytes: its proof file) or a proofs+H
 * file (kind 5, PFILE_PROOF_REGION + n*32 bytes: its proof file, then its
 * H encoded as in a result file). In every kind the digest table's entry
 * p is the BLAKE2b-256 of region p whole. A proofs or proofs+H file's
 * header is a result file's with its kind and count = partitions (the
 * proofs; the H's size follows from k).
 */
uint64_t pfile_res_region(uint32_t kind, uint32_t k);
uint64_t pfile_res_part_off(uint32_t kind, uint32_t k, uint32_t p);
uint64_t pfile_res_table_off(uint32_t kind, uint32_t k, uint32_t parts);
uint64_t pfile_res_size(uint32_t kind, uint32_t k, uint32_t parts);
void pfile_res_header(uint32_t kind, const struct pfile_result *res, uint8_t hdr[PFILE_HEADER_BYTES]);

/* Is kind a job result of any layout (3, 4 or 5)? Does it hold proofs
 * (4 or 5)? */
int pfile_kind_is_job(uint32_t kind);
int pfile_kind_has_proofs(uint32_t kind);

/* A proofs file, read whole and checked (header, size, checksum, every
 * region against its digest): *regions is malloc'd, res->partitions
 * regions of PFILE_PROOF_REGION bytes, for groth16_proof_decode. The
 * proofs themselves are the caller's to check. Kind 4 only: a proofs+H
 * file is too big to read whole (4 GiB of H a partition at k = 27); it
 * is read region by region with pfile_proofs_open. */
int pfile_proofs_read(const char *path, struct pfile_result *res, uint8_t **regions, char *err, size_t errlen);

/*
 * A proofs or proofs+H file (kind 4 or 5), read region by region, so
 * that a file of any k is read with bounded memory. open checks the
 * header, the exact size and the checksum over header and digest table,
 * and reads nothing of the regions (at k = 27 a proofs+H region is 4 GiB);
 * *kind says which of the two it is. Then, per partition p:
 *   pfile_proofs_proof   its proof file's 376 bytes (a kind 4 region is
 *                        held to its digest here; a kind 5 one cannot be
 *                        without reading its H: the proof file's own
 *                        checksum still covers every byte returned)
 *   pfile_proofs_h_read  len bytes of its H from byte off (kind 5),
 *                        for a streaming reader such as
 *                        verify_partition_stream
 *   pfile_proofs_check   the whole region hashed in pieces of 1 MiB and
 *                        held to its table entry
 *   pfile_proofs_digest  its table entry, as open validated it
 */
struct pfile_proofs;
int pfile_proofs_open(const char *path, struct pfile_result *res, uint32_t *kind, struct pfile_proofs **r,
		      char *err, size_t errlen);
/* The same for name in directory dfd, opened O_NOFOLLOW (as
 * pfile_result_openat); path only names the file in errors. */
int pfile_proofs_openat(int dfd, const char *name, const char *path, struct pfile_result *res, uint32_t *kind,
			struct pfile_proofs **r, char *err, size_t errlen);
int pfile_proofs_proof(struct pfile_proofs *r, uint32_t p, uint8_t proof[PFILE_PROOF_REGION], char *err,
		       size_t errlen);
int pfile_proofs_h_read(struct pfile_proofs *r, uint32_t p, uint64_t off, void *buf, size_t len);
int pfile_proofs_check(struct pfile_proofs *r, uint32_t p, char *err, size_t errlen);
const uint8_t *pfile_proofs_digest(const struct pfile_proofs *r, uint32_t p);
void pfile_proofs_close(struct pfile_proofs *r);

/* Which kind of provisor file path is (header checks only: magic,
 * version, kind). */
int pfile_probe(const char *path, enum pfile_kind *kind, char *err, size_t errlen);

/* Partition file: id, then a, b, c (2^k elements each). */
int pfile_write_partition(const char *path, const struct synth_id *id,
			  const fr_t *a, const fr_t *b, const fr_t *c,
			  char *err, size_t errlen);
/* Reads and validates; on success *a, *b, *c are malloc'd arrays of 2^k
 * elements the caller frees. */
int pfile_read_partition(const char *path, struct synth_id *id,
			 fr_t **a, fr_t **b, fr_t **c, char *err, size_t errlen);

/* H file: id, then H (2^k coefficients). */
int pfile_write_h(const char *path, const struct synth_id *id, const fr_t *h,
		  char *err, size_t errlen);
int pfile_read_h(const char *path, struct synth_id *id, fr_t **h,
		 char *err, size_t errlen);

/*
 * Result file, written as a stream so the writer never holds all
 * partitions at once: begin, then exactly res->partitions puts (partition
 * order, 2^k coefficients each), then commit. Each put's digest is
 * computed as it is written, and commit writes the table and the
 * checksum. A put refused for a non-canonical element
 * has written nothing. commit or abort removes the temp file unless it
 * became the destination, and frees the writer.
 */
struct pfile_writer;
int pfile_result_begin(const char *path, const struct pfile_result *res,
		       struct pfile_writer **w, char *err, size_t errlen);
/* The same for name in directory dfd, which stays the file's directory to
 * the end (temp file, renameat, fsync: nothing is looked up by path again,
 * so no symbolic link swapped in meanwhile is followed). path only names
 * the file in errors. The writer keeps its own dup of dfd. */
int pfile_result_beginat(int dfd, const char *name, const char *path,
			 const struct pfile_result *res, struct pfile_writer **w,
			 char *err, size_t errlen);
int pfile_result_put(struct pfile_writer *w, const fr_t *h, char *err, size_t errlen);
/* The same from canonical 32-byte encodings (as they arrive on a pipe);
 * a non-canonical element is refused. */
int pfile_result_put_bytes(struct pfile_writer *w, const uint8_t *h, char *err, size_t errlen);
int pfile_result_commit(struct pfile_writer *w, char *err, size_t errlen);
void pfile_result_abort(struct pfile_writer *w);

/*
 * Result file reader: open validates the whole file without holding it:
 * header, exact length, the checksum over header and table and, in one
 * streaming pass, every element and each partition's digest against its
 * table entry. read then loads partition p's H (2^k elements) into h,
 * checking each element again and the partition's digest, in case the
 * file changed underneath.
 */
struct pfile_reader;
int pfile_result_open(const char *path, struct pfile_result *res,
		      struct pfile_reader **r, char *err, size_t errlen);
/* The same for name in directory dfd, opened O_NOFOLLOW: a symbolic link
 * there is refused ("PATH: is a symbolic link, not a regular file", -ELOOP),
 * never followed. path only names the file in errors. */
int pfile_result_openat(int dfd, const char *name, const char *path, struct pfile_result *res,
			struct pfile_reader **r, char *err, size_t errlen);
int pfile_result_read(struct pfile_reader *r, uint32_t p, fr_t *h, char *err, size_t errlen);
void pfile_result_close(struct pfile_reader *r);

#endif
