/*
 * snap: take snapshots of the status segment (see snap.h).
 *
 * Every record goes through the latch readers (shm_read_*), which give up
 * after a bounded number of races instead of waiting: an unreadable record
 * is reported as such. Derived figures come from cumulative counters, so a
 * reader's own interval decides what it shows: utilization is the growth
 * of busy time between two snapshots over their distance, whatever
 * happened in between.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/snap.h"

int snap_reader_init(struct snap_reader *r, const char *name, char *err, size_t errlen)
{
	int rc;

	memset(r, 0, sizeof *r);
	if (!name)
		name = "default";
	if ((rc = shm_name_check(name, err, errlen)) < 0)
		return rc;
	snprintf(r->name, sizeof r->name, "%s", name);
	return 0;
}

static void forget_segment(struct snap_reader *r)
{
	if (r->open)
		shm_close(&r->seg);
	r->open = 0;
	free(r->prev_busy);
	free(r->prev_ok);
	r->prev_busy = NULL;
	r->prev_ok = NULL;
	r->prev_mono = 0;
	r->last_seq = 0;
	r->nhist = 0;
	r->rate_n = 0;
}

void snap_reader_close(struct snap_reader *r)
{
	forget_segment(r);
}

/* Adopt a freshly opened segment n: the per-slot memory starts over. */
static int adopt(struct snap_reader *r, struct shm_seg *n)
{
	uint32_t slots = shm_count(n, SHM_T_GPU) + shm_count(n, SHM_T_SYNTH);
	int again = r->open;

	forget_segment(r);
	r->prev_busy = calloc(slots, sizeof *r->prev_busy);
	r->prev_ok = calloc(slots, 1);
	if (!r->prev_busy || !r->prev_ok) {
		shm_close(n);
		return -ENOMEM;
	}
	r->seg = *n;
	r->open = 1;
	r->reattached += again;
	return 0;
}

/* Attach, or move to a newer segment under the same name. Keeps the old
 * mapping (the supervisor's last words) when there is nothing newer. */
static int attach(struct snap_reader *r, struct snap *s)
{
	struct shm_seg n;
	int rc;

	if (r->open) {
		s->health = shm_health(&r->seg, SNAP_STALE_NS, &s->hb_age_ns);
		if (s->health == SHM_HEALTH_RUNNING || s->health == SHM_HEALTH_NOT_RESPONDING)
			return 0;
	}
	rc = shm_open_ro(&n, r->name, s->err, sizeof s->err);
	if (rc < 0)
		return r->open ? 0 : rc;	/* old data stays, marked not running */
	if (r->open && n.ino == r->seg.ino && n.dev == r->seg.dev &&
	    !memcmp(shm_hdr(&n)->boot_id, shm_hdr(&r->seg)->boot_id, 16)) {
		shm_close(&n);	/* same segment: its supervisor is just gone */
		return 0;
	}
	if ((rc = adopt(r, &n)) < 0)
		return rc;
	s->health = shm_health(&r->seg, SNAP_STALE_NS, &s->hb_age_ns);
	return 0;
}

static int grow(void **p, uint32_t *cap, uint32_t want, size_t size)
{
	void *q;

	if (want <= *cap && *p)
		return 0;
	q = realloc(*p, (want ? want : 1) * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = want;
	return 0;
}

static void copy_identity(const struct snap_reader *r, struct snap *s)
{
	const struct shm_header *h = shm_hdr(&r->seg);

	memcpy(s->name, h->name, sizeof s->name - 1);
	s->name[sizeof s->name - 1] = '\0';
	memcpy(s->control_path, h->control_path, sizeof s->control_path - 1);
	s->control_path[sizeof s->control_path - 1] = '\0';
	s->sup_pid = h->supervisor_pid;
	memcpy(s->boot_id, h->boot_id, sizeof s->boot_id);
	s->start_mono_ns = h->start_mono_ns;
	s->start_wall_ns = h->start_wall_ns;
	s->hb_mono_ns = atomic_load_explicit(&h->heartbeat_mono_ns, memory_order_acquire);
	s->reattached = r->reattached;
}

/* Slots of table t into out; base indexes the reader's prev arrays. */
static void read_slots(struct snap_reader *r, struct snap *s, enum shm_table_id t,
		       struct snap_slot *out, uint32_t n, uint32_t base)
{
	uint64_t now = s->now_mono_ns, dt = r->prev_mono && now > r->prev_mono ? now - r->prev_mono : 0;
	uint64_t life = now > s->start_mono_ns ? now - s->start_mono_ns : 0;

	for (uint32_t i = 0; i < n; i++) {
		struct snap_slot *o = &out[i];
		const struct shm_slot *v = &o->v;

		o->ok = shm_read_slot(&r->seg, t, i, &o->v) == 0;
		o->util = -1;
		o->util_life = -1;
		if (!o->ok) {
			memset(&o->v, 0, sizeof o->v);
			o->busy_total_ns = 0;
			s->unreadable++;
			r->prev_ok[base + i] = 0;
			continue;
		}
		o->busy_total_ns = v->busy_ns;
		if (v->state == SHM_SLOT_BUSY && now > v->busy_since_ns)
			o->busy_total_ns += now - v->busy_since_ns;
		if (dt && r->prev_ok[base + i]) {
			uint64_t d = o->busy_total_ns > r->prev_busy[base + i] ?
				     o->busy_total_ns - r->prev_busy[base + i] : 0;
			o->util = d >= dt ? 1.0 : (double)d / (double)dt;
		}
		if (life)
			o->util_life = o->busy_total_ns >= life ? 1.0 :
				       (double)o->busy_total_ns / (double)life;
		r->prev_busy[base + i] = o->busy_total_ns;
		r->prev_ok[base + i] = 1;
	}
}

static void derive_job(struct snap_job *j, uint64_t now)
{
	const struct shm_job *v = &j->v;
	uint64_t t0 = v->start_mono_ns ? v->start_mono_ns : v->submit_mono_ns, t1 = now;
	uint32_t done;

	memset(j->count, 0, sizeof j->count);
	for (uint32_t p = 0; p < v->nparts; p++)
		if (v->part[p].state < SHM_PART_NSTATES)
			j->count[v->part[p].state]++;
	done = j->count[SHM_PART_DONE];
	j->progress = v->nparts ? (double)done / v->nparts : 0;
	if (v->state >= SHM_JOB_DONE && v->end_mono_ns)
		t1 = v->end_mono_ns;
	j->elapsed_ns = t0 && t1 > t0 ? t1 - t0 : 0;
	if (v->state >= SHM_JOB_DONE)
		j->eta_ns = v->state == SHM_JOB_DONE ? 0 : -1;
	else if (done && done < v->nparts && v->start_mono_ns)
		j->eta_ns = (int64_t)(j->elapsed_ns / done * (v->nparts - done));
	else
		j->eta_ns = -1;
}

static int read_jobs(struct snap_reader *r, struct snap *s, uint32_t *cap)
{
	uint32_t n = shm_count(&r->seg, SHM_T_JOB);

	if (grow((void **)&s->jobs, cap, n, sizeof *s->jobs) < 0)
		return -ENOMEM;
	s->njobs = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct snap_job *j = &s->jobs[s->njobs];

		if (shm_read_job(&r->seg, i, &j->v) < 0) {
			s->jobs_unreadable++;
			s->unreadable++;
			continue;
		}
		if (j->v.id == 0 || j->v.state == SHM_JOB_FREE)
			continue;
		if (j->v.nparts > VOCAB_MAX_PARTS)
			j->v.nparts = VOCAB_MAX_PARTS;
		j->v.reason[sizeof j->v.reason - 1] = '\0';
		j->index = i;
		derive_job(j, s->start_mono_ns + snap_uptime_ns(s));	/* now, or its last beat */
		if (snap_sup_gone(s) && j->v.state < SHM_JOB_DONE)
			j->eta_ns = -1;	/* nobody works on it */
		if (j->v.state < SHM_JOB_NSTATES)
			s->jobs_by_state[j->v.state]++;
		s->njobs++;
	}
	return 0;
}

static void keep_event(struct snap_reader *r, const struct shm_event *ev)
{
	if (r->nhist == SNAP_EVENTS_KEEP) {
		memmove(r->hist, r->hist + 1, (SNAP_EVENTS_KEEP - 1) * sizeof r->hist[0]);
		r->nhist--;
	}
	r->hist[r->nhist] = *ev;
	r->hist[r->nhist].msg[sizeof ev->msg - 1] = '\0';
	r->nhist++;
}

/* New events since the last snapshot, as docs/shm-layout.md reads the
 * ring; the first snapshot after attaching starts at the newest few. */
static void read_events(struct snap_reader *r, struct snap *s)
{
	uint64_t head = shm_event_head(&r->seg), cap = shm_count(&r->seg, SHM_T_EVENT);
	uint64_t first, q;
	struct shm_event ev;
	uint32_t fresh = 0;

	if (head < r->last_seq)	/* cannot happen in one segment; start over */
		r->last_seq = 0, r->nhist = 0;
	if (r->last_seq == 0)
		first = head > SNAP_EVENTS_KEEP ? head - SNAP_EVENTS_KEEP + 1 : 1;
	else {
		first = r->last_seq + 1;
		if (head >= cap && head - cap + 1 > first) {
			r->missed += head - cap + 1 - first;
			first = head - cap + 1;
		}
	}
	if (head >= first && head - first + 1 > SNAP_EVENTS_KEEP)
		first = head - SNAP_EVENTS_KEEP + 1;	/* read, but would not be kept */
	for (q = first; q <= head; q++) {
		if (shm_read_event(&r->seg, q, &ev) < 0) {
			r->missed++;
			continue;
		}
		keep_event(r, &ev);
		fresh++;
	}
	r->last_seq = head;
	memcpy(s->events, r->hist, r->nhist * sizeof r->hist[0]);
	s->nevents = r->nhist;
	s->new_events = fresh;
	s->event_head = head;
	s->events_missed = r->missed;
}

/* Partitions per minute over the last minute of samples; the lifetime
 * average until the samples span 5 s. */
static void rate(struct snap_reader *r, struct snap *s)
{
	uint64_t now = s->now_mono_ns, t0 = 0, v0 = 0;
	uint32_t last = (r->rate_head + SNAP_RATE_SAMPLES - 1) % SNAP_RATE_SAMPLES;

	s->parts_per_min = -1;
	if (!s->sup_ok || snap_sup_gone(s))
		return;	/* unknown; a gone supervisor proves nothing */
	if (!r->rate_n || now - r->rate_t[last] >= 1000000000ull) {
		r->rate_t[r->rate_head] = now;
		r->rate_v[r->rate_head] = s->sup.parts_done;
		r->rate_head = (r->rate_head + 1) % SNAP_RATE_SAMPLES;
		if (r->rate_n < SNAP_RATE_SAMPLES)
			r->rate_n++;
	}
	for (uint32_t k = r->rate_n; k > 0; k--) {	/* oldest first */
		uint32_t i = (r->rate_head + SNAP_RATE_SAMPLES - k) % SNAP_RATE_SAMPLES;
		if (now - r->rate_t[i] <= SNAP_RATE_WINDOW_NS) {
			t0 = r->rate_t[i];
			v0 = r->rate_v[i];
			break;
		}
	}
	if (t0 && now - t0 >= 5000000000ull && s->sup.parts_done >= v0)
		s->parts_per_min = (double)(s->sup.parts_done - v0) * 60e9 / (double)(now - t0);
	else if (now > s->start_mono_ns)
		s->parts_per_min = (double)s->sup.parts_done * 60e9 /
				   (double)(now - s->start_mono_ns);
}

int snap_take(struct snap_reader *r, struct snap *s)
{
	int rc;

	s->err[0] = '\0';
	s->now_mono_ns = shm_now_mono();
	s->now_wall_ns = shm_now_wall();
	s->health = SHM_HEALTH_NOT_RUNNING;
	s->hb_age_ns = 0;
	if ((rc = attach(r, s)) < 0 || !r->open) {
		s->attached = 0;
		return rc < 0 ? rc : -ENOENT;
	}
	s->attached = 1;
	copy_identity(r, s);
	s->interval_ns = r->prev_mono && s->now_mono_ns > r->prev_mono ? s->now_mono_ns - r->prev_mono : 0;
	s->unreadable = 0;
	s->jobs_unreadable = 0;
	memset(s->jobs_by_state, 0, sizeof s->jobs_by_state);

	s->sup_ok = shm_read_sup(&r->seg, &s->sup) == 0;
	if (!s->sup_ok) {
		memset(&s->sup, 0, sizeof s->sup);
		s->unreadable++;
	}
	s->sup.loop_slow_what[sizeof s->sup.loop_slow_what - 1] = '\0';	/* text: terminated */
	s->sup.loop_max_what[sizeof s->sup.loop_max_what - 1] = '\0';
	s->ngpu = shm_count(&r->seg, SHM_T_GPU);
	s->nsynth = shm_count(&r->seg, SHM_T_SYNTH);
	if (grow((void **)&s->gpu, &s->cap_gpu, s->ngpu, sizeof *s->gpu) < 0 ||
	    grow((void **)&s->synth, &s->cap_synth, s->nsynth, sizeof *s->synth) < 0)
		return -ENOMEM;
	read_slots(r, s, SHM_T_GPU, s->gpu, s->ngpu, 0);
	read_slots(r, s, SHM_T_SYNTH, s->synth, s->nsynth, s->ngpu);
	if (read_jobs(r, s, &s->cap_jobs) < 0)
		return -ENOMEM;
	read_events(r, s);
	rate(r, s);
	r->prev_mono = s->now_mono_ns;
	return 0;
}

void snap_free(struct snap *s)
{
	free(s->gpu);
	free(s->synth);
	free(s->jobs);
	s->gpu = s->synth = NULL;
	s->jobs = NULL;
	s->cap_gpu = s->cap_synth = s->cap_jobs = 0;
}

uint64_t snap_uptime_ns(const struct snap *s)
{
	uint64_t end = s->now_mono_ns;

	if (snap_sup_gone(s))
		end = s->hb_mono_ns > s->start_mono_ns ? s->hb_mono_ns : s->start_mono_ns;
	return end > s->start_mono_ns ? end - s->start_mono_ns : 0;
}

const char *snap_health_word(const struct snap *s)
{
	if (!s->attached)
		return "no segment";
	return shm_health_name(s->health);
}
