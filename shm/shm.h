/*
 * shm: the status segment. One file per instance on a memory filesystem,
 * /run/provisor/NAME.status for root (shm_base_dir for other users; a
 * directory only the owner can create files in, so a name cannot be
 * squatted), created by the supervisor, opened read-write by each
 * worker for its own slot and read-only by every reader (top, status,
 * exporter). The layout is in shm/layout.h and docs/shm-layout.md.
 *
 * Writers: a worker owns its slot (shm_slot_*); the supervisor owns the
 * header, the supervisor record, the job table and the event ring, and a
 * worker's slot only after reaping that worker (shm_slot_repair,
 * shm_owner_write_slot). Readers: shm_read_* copy one record out through
 * the latch, retrying a bounded number of times; they never block anyone.
 *
 * Calls return 0 or -errno; the ones that open or validate a segment also
 * write one human-readable reason into err.
 */
#ifndef SHM_SHM_H
#define SHM_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/latch.h"
#include "shm/layout.h"

#define SHM_READ_TRIES 1000	/* a read gives up after this many races */

struct shm_seg {
	uint8_t *base;
	size_t size;
	int writable;
	int owner;		/* created it: shm_destroy unlinks it */
	int mapped;		/* ours to munmap (not a caller's buffer) */
	struct shm_table tab[SHM_NTABLES];	/* validated copies of the header's */
	dev_t dev;		/* identity of the object, to notice a restart */
	ino_t ino;
	uid_t uid;		/* the file's owner: the supervisor's uid */
	char path[4096];
};

struct shm_config {
	const char *name;	/* instance name, default "default" */
	mode_t mode;		/* default 0640 */
	uint32_t gpu_slots;
	uint32_t synth_slots;
	uint32_t jobs;		/* job table entries, default 256 */
	uint32_t events;	/* event ring entries, default 1024 */
	const char *control_path;	/* published for clients; may be NULL */
	int has_group;		/* give the segment to group (socket_group) */
	gid_t group;
};

#define SHM_SYSTEM_DIR "/run/provisor"	/* root's segments, or a service user's */
#define SHM_SUFFIX ".status"

/* The owner of SHM_SYSTEM_DIR when root made it (0 otherwise), see seg.c. */
uid_t shm_system_owner(void);
/* The directory that holds uid's segments (see seg.c): 0 or -ENAMETOOLONG. */
int shm_base_dir(uid_t uid, char *buf, size_t len);
/* The path of this process's instance NAME's segment. */
int shm_path(const char *name, char *buf, size_t len);

/* Instance name check: 0, or -EINVAL with the reason in err. */
int shm_name_check(const char *name, char *err, size_t errlen);

/* Supervisor: create and initialize the segment (mode applied exactly,
 * whatever the umask). A stale segment whose supervisor is gone is
 * replaced; a live one gives -EEXIST. */
int shm_create(struct shm_seg *s, const struct shm_config *c, char *err, size_t errlen);
/* Supervisor: unmap and unlink. */
void shm_destroy(struct shm_seg *s);

/* Worker (read-write) and reader (PROT_READ) opens, validated: this
 * user's instance NAME, else root's. The file and its directory must be
 * owned by that uid and writable by nobody else; s->uid says which. */
int shm_open_rw(struct shm_seg *s, const char *name, char *err, size_t errlen);
int shm_open_ro(struct shm_seg *s, const char *name, char *err, size_t errlen);
/* Validate bytes that are already in memory (tests, fuzzing, files). */
int shm_attach_buffer(struct shm_seg *s, const void *buf, size_t size, char *err, size_t errlen);
/* Unmap (does not unlink). */
void shm_close(struct shm_seg *s);

/* Check a mapping: magic, version, sizes, every table inside size. */
int shm_validate(const void *base, size_t size, char *err, size_t errlen);

static inline const struct shm_header *shm_hdr(const struct shm_seg *s)
{
	return (const struct shm_header *)s->base;
}
static inline uint32_t shm_count(const struct shm_seg *s, enum shm_table_id t)
{
	return s->tab[t].count;
}

/* Readers: 0, -EAGAIN when the record stayed unreadable for
 * SHM_READ_TRIES tries, -ERANGE for an index past the table. */
int shm_read_slot(const struct shm_seg *s, enum shm_table_id t, uint32_t i, struct shm_slot *out);
int shm_read_job(const struct shm_seg *s, uint32_t i, struct shm_job *out);
int shm_read_sup(const struct shm_seg *s, struct shm_sup *out);
/* The event with sequence number seq: 0, -ENOENT when it was overwritten
 * or not yet written, -EAGAIN when unreadable. */
int shm_read_event(const struct shm_seg *s, uint64_t seq, struct shm_event *out);
uint64_t shm_event_head(const struct shm_seg *s);

/* Supervisor health as a reader sees it. */
enum shm_health {
	SHM_HEALTH_RUNNING,
	SHM_HEALTH_NOT_RESPONDING,	/* heartbeat older than the limit */
	SHM_HEALTH_NOT_RUNNING,		/* pid gone or segment removed */
	SHM_HEALTH_RESTARTED,		/* the name now holds a newer segment */
};
enum shm_health shm_health(const struct shm_seg *s, uint64_t stale_ns, uint64_t *age_ns);
const char *shm_health_name(enum shm_health h);

/* A worker's handle on its own slot. It keeps the slot's current value so
 * each change publishes one whole record. */
struct shm_slot_writer {
	struct shm_latch *rec;
	struct shm_slot cur;
	size_t map_len;		/* shm_slot_attach_fd's own mapping of rec; 0: none */
};

struct shm_assign {
	uint64_t job_id;
	uint32_t partition;
	uint32_t kind;
};

/* Take slot i of table t (SHM_T_GPU or SHM_T_SYNTH) for the calling
 * process: reads what is there (counters and generations carry over a
 * restart), records pid and start time, state STARTING. */
int shm_slot_attach(struct shm_slot_writer *w, struct shm_seg *s,
		    enum shm_table_id t, uint32_t i);
/* The same for a worker given the segment as fd (opened read-write by the
 * supervisor): only slot i's record, alone on its page(s), is mapped
 * writable; nothing else of the segment stays mapped. The caller closes
 * fd afterwards, and then holds no way to write another record. 0, or
 * -errno with err set. shm_slot_detach unmaps it. */
int shm_slot_attach_fd(struct shm_slot_writer *w, int fd, enum shm_table_id t, uint32_t i,
		       char *err, size_t errlen);
void shm_slot_detach(struct shm_slot_writer *w);
/* (internal: take the record at r; shm_slot_attach and _fd use it) */
int shm_slot_take(struct shm_slot_writer *w, struct shm_latch *r);
/* Mark busy with assignment a under generation gen, which must be newer
 * than every generation the slot has seen: -ESTALE otherwise. */
int shm_slot_begin(struct shm_slot_writer *w, uint64_t gen, const struct shm_assign *a);
/* Count the partition of generation gen as done (ok) or failed, and clear
 * busy only if gen is still the slot's current generation. Returns 1 when
 * the slot went idle, 0 when a newer begin keeps it busy, -EINVAL for a
 * generation that never began. */
int shm_slot_end(struct shm_slot_writer *w, uint64_t gen, int ok);
/* As shm_slot_end, but the partition was abandoned on the supervisor's
 * request (pre-empted): counted in preempted, neither done nor failed.
 * A generation newer than the slot's (abandoned before its begin) is
 * only counted. */
int shm_slot_preempt(struct shm_slot_writer *w, uint64_t gen);
/* STARTING -> IDLE once the worker is ready; records the backend. */
void shm_slot_ready(struct shm_slot_writer *w, uint32_t backend);
/* A gpuworker loading its params: LOADING (from STARTING) with
 * permille done; load_ns, when not 0, is the finished load's time. Then
 * shm_slot_ready makes it IDLE. */
void shm_slot_loading(struct shm_slot_writer *w, uint32_t permille, uint64_t load_ns);
void shm_slot_heartbeat(struct shm_slot_writer *w);

/* Supervisor, after reaping the slot's writer: make the record whole
 * again (whatever instant the writer died at), close a busy spell as one
 * failed partition, and mark it CRASHED with the exit. out gets the
 * repaired record. */
int shm_slot_repair(struct shm_seg *s, enum shm_table_id t, uint32_t i,
		    uint32_t exit_kind, int32_t exit_code, struct shm_slot *out);
/* Supervisor, while the slot has no live writer: publish a whole record
 * (backoff, disabled, restarts, ...). */
int shm_owner_write_slot(struct shm_seg *s, enum shm_table_id t, uint32_t i,
			 const struct shm_slot *v);

/* Supervisor records. */
void shm_heartbeat(struct shm_seg *s);
void shm_write_sup(struct shm_seg *s, const struct shm_sup *v);
int shm_write_job(struct shm_seg *s, uint32_t i, const struct shm_job *v);
/* Append to the event ring; fills seq and times. Returns the sequence. */
uint64_t shm_post_event(struct shm_seg *s, struct shm_event *ev);

uint64_t shm_now_mono(void);
uint64_t shm_now_wall(void);
const char *shm_slot_state_name(uint32_t state);

#endif
