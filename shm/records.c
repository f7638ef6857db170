/*
 * records: reading and writing the segment's records through the latch.
 *
 * The busy state of a worker slot changes only through shm_slot_begin and
 * shm_slot_end, under the generation rule: begin(gen) needs a generation
 * newer than any the slot has seen; end(gen) counts its partition but
 * clears busy only while gen is still current. So an end that arrives
 * after the next partition began (the worker holds two) cannot make a busy
 * worker look idle, and the busy spell's time counts both partitions.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "shm/shm.h"

#define WORDS(type) (sizeof(type) / 8)

static struct shm_latch *rec(const struct shm_seg *s, enum shm_table_id t, uint32_t i)
{
	return (struct shm_latch *)(s->base + s->tab[t].offset + (uint64_t)i * s->tab[t].rec_size);
}

static int is_slot_table(enum shm_table_id t)
{
	return t == SHM_T_GPU || t == SHM_T_SYNTH;
}

static int read_rec(const struct shm_seg *s, enum shm_table_id t, uint32_t i,
		    void *out, size_t words)
{
	if (i >= s->tab[t].count)
		return -ERANGE;
	return shm_latch_read(rec(s, t, i), out, words, SHM_READ_TRIES) ? -EAGAIN : 0;
}

int shm_read_slot(const struct shm_seg *s, enum shm_table_id t, uint32_t i, struct shm_slot *out)
{
	if (!is_slot_table(t))
		return -EINVAL;
	return read_rec(s, t, i, out, WORDS(*out));
}

int shm_read_job(const struct shm_seg *s, uint32_t i, struct shm_job *out)
{
	return read_rec(s, SHM_T_JOB, i, out, WORDS(*out));
}

int shm_read_sup(const struct shm_seg *s, struct shm_sup *out)
{
	return read_rec(s, SHM_T_SUP, 0, out, WORDS(*out));
}

uint64_t shm_event_head(const struct shm_seg *s)
{
	return atomic_load_explicit(&shm_hdr(s)->event_seq, memory_order_acquire);
}

int shm_read_event(const struct shm_seg *s, uint64_t seq, struct shm_event *out)
{
	uint64_t head = shm_event_head(s), cap = s->tab[SHM_T_EVENT].count;
	int rc;

	if (seq == 0 || seq > head || head - seq >= cap)
		return -ENOENT;
	rc = read_rec(s, SHM_T_EVENT, (uint32_t)((seq - 1) % cap), out, WORDS(*out));
	if (rc == 0 && out->seq != seq)
		return -ENOENT;	/* overwritten while we looked */
	return rc;
}

/* --- a worker's own slot --- */

static void slot_publish(struct shm_slot_writer *w)
{
	shm_latch_write(w->rec, &w->cur, WORDS(w->cur));
}

static void slot_set_state(struct shm_slot *v, uint32_t state, uint64_t now)
{
	if (v->state != state) {
		v->state = state;
		v->state_since_ns = now;
	}
}

/* Take the slot record at r: repaired from its previous writer's death,
 * read, and published STARTING under this process. */
int shm_slot_take(struct shm_slot_writer *w, struct shm_latch *r)
{
	uint64_t now = shm_now_mono();

	w->rec = r;
	/* The previous writer, if any, is dead and its slot repaired. */
	shm_latch_repair(w->rec, WORDS(w->cur));
	if (shm_latch_read(w->rec, &w->cur, WORDS(w->cur), SHM_READ_TRIES))
		return -EAGAIN;
	w->cur.pid = (uint32_t)getpid();
	w->cur.started_mono_ns = now;
	w->cur.heartbeat_mono_ns = now;
	slot_set_state(&w->cur, SHM_SLOT_STARTING, now);
	slot_publish(w);
	return 0;
}

int shm_slot_attach(struct shm_slot_writer *w, struct shm_seg *s,
		    enum shm_table_id t, uint32_t i)
{
	if (!is_slot_table(t) || !s->writable)
		return -EINVAL;
	if (i >= s->tab[t].count)
		return -ERANGE;
	return shm_slot_take(w, rec(s, t, i));
}

void shm_slot_ready(struct shm_slot_writer *w, uint32_t backend)
{
	uint64_t now = shm_now_mono();

	w->cur.backend = backend;
	w->cur.heartbeat_mono_ns = now;
	if (w->cur.state == SHM_SLOT_STARTING || w->cur.state == SHM_SLOT_LOADING)
		slot_set_state(&w->cur, SHM_SLOT_IDLE, now);
	slot_publish(w);
}

void shm_slot_loading(struct shm_slot_writer *w, uint32_t permille, uint64_t load_ns)
{
	uint64_t now = shm_now_mono();

	w->cur.heartbeat_mono_ns = now;
	w->cur.load_permille = permille > 1000 ? 1000 : permille;
	if (load_ns)
		w->cur.load_ns = load_ns;
	if (w->cur.state == SHM_SLOT_STARTING)
		slot_set_state(&w->cur, SHM_SLOT_LOADING, now);
	slot_publish(w);
}

void shm_slot_heartbeat(struct shm_slot_writer *w)
{
	w->cur.heartbeat_mono_ns = shm_now_mono();
	slot_publish(w);
}

int shm_slot_begin(struct shm_slot_writer *w, uint64_t gen, const struct shm_assign *a)
{
	struct shm_slot *v = &w->cur;
	uint64_t now;

	if (gen <= v->gen)
		return -ESTALE;
	now = shm_now_mono();
	if (v->state != SHM_SLOT_BUSY)
		v->busy_since_ns = now;
	slot_set_state(v, SHM_SLOT_BUSY, now);
	v->gen = gen;
	v->job_id = a->job_id;
	v->partition = a->partition;
	v->kind = a->kind;
	v->part_since_ns = now;
	v->heartbeat_mono_ns = now;
	slot_publish(w);
	return 0;
}

int shm_slot_end(struct shm_slot_writer *w, uint64_t gen, int ok)
{
	struct shm_slot *v = &w->cur;
	uint64_t now;
	int idle = 0;

	if (gen == 0 || gen > v->gen)
		return -EINVAL;
	now = shm_now_mono();
	if (ok)
		v->done++;
	else
		v->failed++;
	if (gen > v->end_gen)
		v->end_gen = gen;
	if (gen == v->gen && v->state == SHM_SLOT_BUSY) {
		v->busy_ns += now - v->busy_since_ns;
		slot_set_state(v, SHM_SLOT_IDLE, now);
		idle = 1;
	}
	v->heartbeat_mono_ns = now;
	slot_publish(w);
	return idle;
}

int shm_slot_preempt(struct shm_slot_writer *w, uint64_t gen)
{
	struct shm_slot *v = &w->cur;
	uint64_t now;
	int idle = 0;

	if (gen == 0)
		return -EINVAL;
	now = shm_now_mono();
	v->preempted++;
	if (gen <= v->gen && gen > v->end_gen)
		v->end_gen = gen;
	if (gen == v->gen && v->state == SHM_SLOT_BUSY) {
		v->busy_ns += now - v->busy_since_ns;
		slot_set_state(v, SHM_SLOT_IDLE, now);
		idle = 1;
	}
	v->heartbeat_mono_ns = now;
	slot_publish(w);
	return idle;
}

/* --- the supervisor's records --- */

int shm_slot_repair(struct shm_seg *s, enum shm_table_id t, uint32_t i,
		    uint32_t exit_kind, int32_t exit_code, struct shm_slot *out)
{
	struct shm_latch *l;
	struct shm_slot v;
	uint64_t now = shm_now_mono();

	if (!is_slot_table(t) || !s->writable)
		return -EINVAL;
	if (i >= s->tab[t].count)
		return -ERANGE;
	l = rec(s, t, i);
	shm_latch_repair(l, WORDS(v));
	if (shm_latch_read(l, &v, WORDS(v), 1))
		return -EAGAIN;	/* a writer is alive: not ours to repair */
	if (v.state == SHM_SLOT_BUSY) {	/* the partition it held is lost */
		v.busy_ns += now - v.busy_since_ns;
		v.failed++;
	}
	slot_set_state(&v, SHM_SLOT_CRASHED, now);
	v.last_exit_kind = exit_kind;
	v.last_exit_code = exit_code;
	v.last_exit_wall_ns = shm_now_wall();
	shm_latch_write(l, &v, WORDS(v));
	if (out)
		*out = v;
	return 0;
}

int shm_owner_write_slot(struct shm_seg *s, enum shm_table_id t, uint32_t i,
			 const struct shm_slot *v)
{
	if (!is_slot_table(t) || !s->writable)
		return -EINVAL;
	if (i >= s->tab[t].count)
		return -ERANGE;
	shm_latch_write(rec(s, t, i), v, WORDS(*v));
	return 0;
}

void shm_heartbeat(struct shm_seg *s)
{
	struct shm_header *h = (struct shm_header *)s->base;

	atomic_store_explicit(&h->heartbeat_mono_ns, shm_now_mono(), memory_order_release);
	atomic_fetch_add_explicit(&h->heartbeat_count, 1, memory_order_release);
}

void shm_write_sup(struct shm_seg *s, const struct shm_sup *v)
{
	shm_latch_write(rec(s, SHM_T_SUP, 0), v, WORDS(*v));
}

int shm_write_job(struct shm_seg *s, uint32_t i, const struct shm_job *v)
{
	if (i >= s->tab[SHM_T_JOB].count)
		return -ERANGE;
	shm_latch_write(rec(s, SHM_T_JOB, i), v, WORDS(*v));
	return 0;
}

uint64_t shm_post_event(struct shm_seg *s, struct shm_event *ev)
{
	struct shm_header *h = (struct shm_header *)s->base;
	uint64_t seq = atomic_load_explicit(&h->event_seq, memory_order_relaxed) + 1;
	uint32_t cap = s->tab[SHM_T_EVENT].count;

	ev->seq = seq;
	ev->mono_ns = shm_now_mono();
	ev->wall_ns = shm_now_wall();
	ev->msg[sizeof ev->msg - 1] = '\0';
	shm_latch_write(rec(s, SHM_T_EVENT, (uint32_t)((seq - 1) % cap)), ev, WORDS(*ev));
	atomic_store_explicit(&h->event_seq, seq, memory_order_release);
	return seq;
}

const char *shm_slot_state_name(uint32_t state)
{
	static const char *const names[SHM_SLOT_NSTATES] = {
		"empty", "starting", "idle", "busy", "crashed", "backoff", "disabled", "stopped",
		"loading",
	};
	return state < SHM_SLOT_NSTATES ? names[state] : "invalid";
}

void (*shm_latch_fault)(int where);
