/*
 * pfile_priv: internals shared by pfile.c, pfile_write.c and pfile_read.c;
 * not part of the module's interface (that is pfile.h).
 */
#ifndef FORMAT_PFILE_PRIV_H
#define FORMAT_PFILE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "format/pfile.h"
#include "util/util.h"

#define PFILE_BUF_ELEMS 4096	/* 128 KiB of encodings per read or write */

/* The header, decoded. Which fields count depends on the kind. */
struct pfile_hdr {
	uint32_t version, kind, k, seed_len, word56, job_kind;
	uint64_t job_id, count;
	uint8_t seed[SYNTH_SEED_MAX];
	uint8_t raw[PFILE_HEADER_BYTES];	/* as read: what the checksum covers */
};

extern const char *const pfile_kind_names[];

/* sodium_init, whose result is not needed (see pfile.c). */
void pfile_sodium_init(void);

void pfile_hdr_encode(uint8_t out[PFILE_HEADER_BYTES], const struct pfile_hdr *h);
void pfile_hdr_decode(struct pfile_hdr *h, const uint8_t in[PFILE_HEADER_BYTES]);
/* The header of a result file for res in the given version (res is not
 * checked here; pfile_result_beginat does that). */
void pfile_result_hdr(struct pfile_hdr *h, const struct pfile_result *res, uint32_t version);
/* Sections of 2^k elements in the payload: 3, 1 or the partition count. */
uint64_t pfile_sections(const struct pfile_hdr *h);
/* The readers' header check (pfile_read.c): magic, version, kind (== want,
 * or any when 0) and, unless header_only, every field and the exact size. */
int pfile_read_hdr(int fd, const char *path, uint32_t want, int header_only,
		   struct pfile_hdr *h, char *err, size_t errlen);
/* A result or proofs file's digest table into table, and its checksum. */
int pfile_table2(int fd, const char *path, const struct pfile_hdr *h, uint8_t *table,
		 char *err, size_t errlen);
/* Exactly len bytes: 0, -errno, or (read) -ENODATA at end of file. */
int pfile_read_full(int fd, void *buf, size_t len);
int pfile_write_full(int fd, const void *buf, size_t len);

#endif
