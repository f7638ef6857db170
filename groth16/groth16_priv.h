/* groth16's internals shared by its files. */
#ifndef GROTH16_GROTH16_PRIV_H
#define GROTH16_GROTH16_PRIV_H

#include "groth16/groth16.h"

/* BLAKE2b-256 of the verifying key's bytes as the params file holds them. */
void groth16_vk_digest(const struct groth16_vk *vk, uint8_t out[GROTH16_DIGEST]);

/* Write len bytes as path: a temp file created O_EXCL | O_NOFOLLOW next to
 * it, fsynced, renamed over path, the directory fsynced. On failure
 * nothing is left behind. 0, or -errno with one line in err. */
int groth16_write_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen);

/* H2F of BLAKE2b-512 keyed with key over tag: fr_from_bytes_wide. */
void groth16_h2f(fr_t *out, const uint8_t key[32], const char *tag);

#endif
