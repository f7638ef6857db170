/*
 * vocab: the words every folder shares: job kinds, H-term backends, and
 * the limits on a job (its largest k, its partition count).
 *
 * The numbers are not free to change: a job kind's number is written in
 * result files, journal records, frames and the status segment, and a
 * backend's number in the status segment's worker slots. Arrays indexed by
 * kind are VOCAB_NKINDS + 1 long (index 0 unused), or VOCAB_NKINDS long
 * indexed by kind - 1 (the status segment's per-kind counters).
 *
 * A leaf: header-only and includes only libc headers, so that any library
 * (and the CUDA sources, compiled as C++) can use it without a link-time
 * dependency or an include cycle.
 */
#ifndef UTIL_VOCAB_H
#define UTIL_VOCAB_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Job kinds, 1..VOCAB_NKINDS (the design brief's table). */
enum vocab_kind {
	VOCAB_KIND_WINNING_POST = 1,
	VOCAB_KIND_WINDOW_POST = 2,
	VOCAB_KIND_SNAP_DEALS = 3,
	VOCAB_KIND_POREP = 4,
};
#define VOCAB_NKINDS 4

/* The smallest and largest k (a partition has 2^k constraints), the
 * limits every parser of k applies. The smallest circuit (synth/synth.h)
 * needs 8 rows: one round (3) and the public-input rows (3); the largest
 * is the NTT's largest domain. */
#define VOCAB_LOG_MIN 3
#define VOCAB_LOG_MAX 27
/* Partitions of one job (the status segment has room for this many). */
#define VOCAB_MAX_PARTS 64
/* A limit as a string literal, for messages:
 * VOCAB_STR(VOCAB_LOG_MIN) ".." VOCAB_STR(VOCAB_LOG_MAX). */
#define VOCAB_STR(x) VOCAB_STR_(x)
#define VOCAB_STR_(x) #x

/* "winning-post", ... or NULL for a number that is no kind. */
static inline const char *vocab_kind_name(uint32_t kind)
{
	switch (kind) {
	case VOCAB_KIND_WINNING_POST: return "winning-post";
	case VOCAB_KIND_WINDOW_POST: return "window-post";
	case VOCAB_KIND_SNAP_DEALS: return "snap-deals";
	case VOCAB_KIND_POREP: return "porep";
	default: return NULL;
	}
}

/* The kind named name: 0, or -EINVAL when it is none. */
static inline int vocab_kind_parse(const char *name, uint32_t *kind)
{
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++)
		if (!strcmp(name, vocab_kind_name(k))) {
			*kind = k;
			return 0;
		}
	return -EINVAL;
}

/* H-term backends. A worker slot in the status segment records the one it
 * resolved to (cpu or cuda; 0 there means not yet known). */
enum vocab_backend { VOCAB_BACKEND_AUTO = 0, VOCAB_BACKEND_CPU = 1, VOCAB_BACKEND_CUDA = 2,
		     VOCAB_BACKEND_PLUGIN = 3 /* plugin:PATH, gpuworker/backend.h; not parsed here */ };

/* "auto", "cpu", "cuda", "plugin", or NULL for a number that is none. */
static inline const char *vocab_backend_name(uint32_t be)
{
	switch (be) {
	case VOCAB_BACKEND_AUTO: return "auto";
	case VOCAB_BACKEND_CPU: return "cpu";
	case VOCAB_BACKEND_CUDA: return "cuda";
	case VOCAB_BACKEND_PLUGIN: return "plugin";
	default: return NULL;
	}
}

/* The backend named s (NULL is none): 0, or -1 when it is none. */
static inline int vocab_backend_parse(const char *s, enum vocab_backend *out)
{
	for (uint32_t be = VOCAB_BACKEND_AUTO; s && be <= VOCAB_BACKEND_CUDA; be++)
		if (!strcmp(s, vocab_backend_name(be))) {
			*out = (enum vocab_backend)be;
			return 0;
		}
	return -1;
}

#endif
