/*
 * fake: the animated stand-in writer (see fake.h). It follows the rules the
 * real supervisor must: a slot's busy state only through begin/end with
 * growing generations, cumulative counters, the job table and the event
 * ring written by the one "supervisor", and a crashed slot repaired with
 * shm_slot_repair before it is attached again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vocab.h"
#include "tests/tui/fake.h"

static uint64_t rnd(struct fake *f)
{
	uint64_t x = f->rng;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	f->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t work_ns(struct fake *f)
{
	uint32_t span = f->max_ms > f->min_ms ? f->max_ms - f->min_ms : 1;
	return (f->min_ms + rnd(f) % span) * 1000000ull;
}

static void event(struct fake *f, uint32_t type, uint32_t table, uint32_t slot,
		  uint64_t job, uint32_t part, int32_t code, const char *msg)
{
	struct shm_event ev = { .type = type, .table = table, .slot = slot, .job_id = job,
				.partition = part, .code = code };

	snprintf(ev.msg, sizeof ev.msg, "%s", msg);
	shm_post_event(&f->seg, &ev);
}

static void submit(struct fake *f)
{
	static const uint32_t kinds[] = { VOCAB_KIND_SNAP_DEALS, VOCAB_KIND_POREP,
					  VOCAB_KIND_WINNING_POST, VOCAB_KIND_POREP,
					  VOCAB_KIND_WINDOW_POST, VOCAB_KIND_SNAP_DEALS };
	static const uint32_t parts[] = { 0, 1, 1, 16, 10 };
	uint32_t e = f->next_entry, kind = kinds[rnd(f) % 6];
	struct shm_job *j;

	for (uint32_t k = 0; k < FAKE_TABLE_JOBS; k++, e = (e + 1) % FAKE_TABLE_JOBS)
		if (f->job[e].state != SHM_JOB_QUEUED && f->job[e].state != SHM_JOB_RUNNING)
			break;
	j = &f->job[e];
	f->next_entry = (e + 1) % FAKE_TABLE_JOBS;
	memset(j, 0, sizeof *j);
	j->id = f->next_id++;
	j->kind = kind;
	j->priority = kind <= VOCAB_KIND_WINDOW_POST ? 3 - kind : 0;
	j->state = SHM_JOB_QUEUED;
	j->log_size = 16;
	j->nparts = parts[kind];
	for (uint32_t i = 0; i < 32; i++)
		j->seed[i] = (uint8_t)rnd(f);
	j->submit_wall_ns = shm_now_wall();
	j->submit_mono_ns = shm_now_mono();
	for (uint32_t p = 0; p < j->nparts; p++)
		j->part[p] = (struct shm_part){ .synth_slot = 0xffff, .gpu_slot = 0xffff };
	shm_write_job(&f->seg, e, j);
	event(f, SHM_EV_JOB_SUBMIT, 0, 0, j->id, 0, 0, vocab_kind_name(kind));
}

int fake_create(struct fake *f, const char *name, uint32_t ngpu, uint32_t nsynth,
		char *err, size_t errlen)
{
	struct shm_config c = { .name = name, .gpu_slots = ngpu, .synth_slots = nsynth,
				.jobs = FAKE_TABLE_JOBS, .events = 256,
				.control_path = "/run/provisor/fake.sock" };
	int rc;

	memset(f, 0, sizeof *f);
	if ((rc = shm_create(&f->seg, &c, err, errlen)) < 0)
		return rc;
	f->ngpu = ngpu;
	f->nsynth = nsynth;
	f->gpu = calloc(ngpu, sizeof *f->gpu);
	f->synth = calloc(nsynth, sizeof *f->synth);
	if (!f->gpu || !f->synth) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->next_id = 1;
	f->rng = shm_now_wall() | 1;
	f->active = 4 + (ngpu + nsynth) / 4;
	f->min_ms = 150;
	f->max_ms = 700;
	for (uint32_t i = 0; i < ngpu + nsynth; i++) {
		int gpu = i < ngpu;
		struct fake_slot *s = gpu ? &f->gpu[i] : &f->synth[i - ngpu];
		uint32_t idx = gpu ? i : i - ngpu;

		if ((rc = shm_slot_attach(&s->w, &f->seg, gpu ? SHM_T_GPU : SHM_T_SYNTH, idx)) < 0) {
			snprintf(err, errlen, "attach slot %u: %s", idx, strerror(-rc));
			return rc;
		}
		s->w.cur.gpu = gpu ? idx / 2 : 0;
		shm_slot_ready(&s->w, 1);
		event(f, SHM_EV_START, gpu ? SHM_T_GPU : SHM_T_SYNTH, idx, 0, 0, 0, "worker started");
	}
	f->sup.state = SHM_SUP_RUNNING;
	f->sup.mem_budget = 8ull << 30;
	shm_write_sup(&f->seg, &f->sup);
	return 0;
}

void fake_destroy(struct fake *f)
{
	shm_destroy(&f->seg);
	free(f->gpu);
	free(f->synth);
}

static void write_job(struct fake *f, uint32_t e)
{
	shm_write_job(&f->seg, e, &f->job[e]);
}

/* A piece of work ended on slot s (synth or GPU); ok = 0 fails it. */
static void finish(struct fake *f, struct fake_slot *s, int gpu, uint32_t idx, int ok, uint64_t now)
{
	struct shm_job *j = &f->job[s->job];
	struct shm_part *p = &j->part[s->part];

	shm_slot_end(&s->w, s->w.cur.gen, ok);
	s->until = 0;
	if (!ok) {
		p->state = SHM_PART_QUEUED;
		f->sup.parts_failed++;
		event(f, SHM_EV_INFO, gpu ? SHM_T_GPU : SHM_T_SYNTH, idx, j->id, s->part, 1,
		      "partition failed, requeued");
	} else if (!gpu) {
		p->state = SHM_PART_READY;
		p->synth_ns = now - s->started;
	} else {
		p->state = SHM_PART_DONE;
		p->gpu_ns = now - s->started;
		f->sup.parts_done++;
	}
	write_job(f, s->job);
}

static void start(struct fake *f, struct fake_slot *s, int gpu, uint32_t e, uint32_t part, uint64_t now)
{
	struct shm_job *j = &f->job[e];
	struct shm_assign a = { .job_id = j->id, .partition = part, .kind = j->kind };

	shm_slot_begin(&s->w, ++f->gen, &a);
	s->job = e;
	s->part = part;
	s->started = now;
	s->until = now + work_ns(f) / (gpu ? 1 : 2);
	j->part[part].state = gpu ? SHM_PART_PROVING : SHM_PART_SYNTH;
	if (gpu)
		j->part[part].gpu_slot = (uint16_t)(s - f->gpu);
	else {
		j->part[part].synth_slot = (uint16_t)(s - f->synth);
		j->part[part].attempts++;
	}
	if (j->state == SHM_JOB_QUEUED) {
		j->state = SHM_JOB_RUNNING;
		j->start_mono_ns = now;
	}
	write_job(f, e);
}

/* The next partition in state want, oldest job first (lowest id). */
static int pick(struct fake *f, uint8_t want, uint32_t *e, uint32_t *part)
{
	uint64_t best = UINT64_MAX;

	for (uint32_t i = 0; i < FAKE_TABLE_JOBS; i++) {
		struct shm_job *j = &f->job[i];
		if ((j->state != SHM_JOB_QUEUED && j->state != SHM_JOB_RUNNING) || j->id >= best)
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			if (j->part[p].state == want) {
				best = j->id;
				*e = i;
				*part = p;
				break;
			}
	}
	return best != UINT64_MAX;
}

static void crash_one(struct fake *f, uint64_t now)
{
	uint32_t i = (uint32_t)(rnd(f) % f->ngpu);
	struct fake_slot *s = &f->gpu[i];
	struct shm_slot v;

	if (s->back_at)
		return;
	if (s->until) {	/* its partition is lost: requeue it */
		f->job[s->job].part[s->part].state = SHM_PART_QUEUED;
		f->sup.parts_failed++;
		write_job(f, s->job);
		s->until = 0;
	}
	shm_slot_repair(&f->seg, SHM_T_GPU, i, SHM_EXIT_SIGNAL, 9, &v);
	event(f, SHM_EV_CRASH, SHM_T_GPU, i, 0, 0, 9, "gpuworker killed by SIGKILL");
	s->back_at = now + 1000000000ull;
}

static void revive(struct fake *f, struct fake_slot *s, uint32_t i)
{
	struct shm_slot v;

	shm_read_slot(&f->seg, SHM_T_GPU, i, &v);
	v.restarts++;
	v.state = SHM_SLOT_BACKOFF;
	shm_owner_write_slot(&f->seg, SHM_T_GPU, i, &v);
	shm_slot_attach(&s->w, &f->seg, SHM_T_GPU, i);
	shm_slot_ready(&s->w, 1);
	event(f, SHM_EV_RESTART, SHM_T_GPU, i, 0, 0, 0, "gpuworker restarted");
	s->back_at = 0;
}

static void settle_jobs(struct fake *f, uint64_t now)
{
	uint32_t live = 0;

	f->sup.jobs_queued = f->sup.jobs_running = 0;
	for (uint32_t e = 0; e < FAKE_TABLE_JOBS; e++) {
		struct shm_job *j = &f->job[e];
		uint32_t done = 0;

		if (j->state != SHM_JOB_RUNNING && j->state != SHM_JOB_QUEUED)
			continue;
		for (uint32_t p = 0; p < j->nparts; p++)
			done += j->part[p].state == SHM_PART_DONE;
		if (done == j->nparts) {
			j->state = SHM_JOB_DONE;
			j->end_mono_ns = now;
			f->sup.jobs_done++;
			if (j->kind >= 1 && j->kind <= VOCAB_NKINDS)
				f->sup.jobs_done_kind[j->kind - 1]++;
			write_job(f, e);
			event(f, SHM_EV_JOB_DONE, 0, 0, j->id, 0, 0, "job done");
			continue;
		}
		live++;
		if (j->state == SHM_JOB_QUEUED)
			f->sup.jobs_queued++;
		else
			f->sup.jobs_running++;
	}
	for (; live < f->active; live++) {
		submit(f);
		f->sup.jobs_queued++;
	}
}

/* The supervisor loop's figures, as supervisor/loop.c keeps them: one
 * iteration per tick of 20..400 us, and every 100th one a slow 60 ms
 * "in child read". */
static void loop_tick(struct fake *f, uint64_t now)
{
	uint64_t ns = (f->loop.n + 1) % 100 == 0 ? 60000000 : 20000 + rnd(f) % 380000;
	unsigned b = 0;

	lathist_add(&f->loop, ns);
	while (b < SHM_LOOP_NBUCKETS - 1 && ns > shm_loop_le_ns[b])
		b++;
	f->sup.loop_hist[b]++;
	f->sup.loop_iterations = f->loop.n;
	f->sup.loop_sum_ns = f->loop.sum_ns;
	f->sup.loop_max_ns = f->loop.max_ns;
	f->sup.loop_p50_ns = lathist_quantile(&f->loop, 0.5);
	f->sup.loop_p99_ns = lathist_quantile(&f->loop, 0.99);
	if (ns > SHM_LOOP_SLOW_NS) {
		f->sup.loop_slow_count++;
		f->sup.loop_slow_ns = ns;
		f->sup.loop_slow_mono_ns = now;
		snprintf(f->sup.loop_slow_what, sizeof f->sup.loop_slow_what, "child read");
	}
}

void fake_tick(struct fake *f)
{
	uint64_t now = shm_now_mono();
	uint32_t e, p, ready = 0;

	for (uint32_t i = 0; i < f->nsynth; i++)
		if (f->synth[i].until && now >= f->synth[i].until)
			finish(f, &f->synth[i], 0, i, rnd(f) % 1000 >= f->fail_permille, now);
	for (uint32_t i = 0; i < f->ngpu; i++) {
		if (f->gpu[i].back_at && now >= f->gpu[i].back_at)
			revive(f, &f->gpu[i], i);
		if (f->gpu[i].until && now >= f->gpu[i].until)
			finish(f, &f->gpu[i], 1, i, rnd(f) % 1000 >= f->fail_permille, now);
	}
	if (f->crash_every_ns && now >= f->next_crash) {
		if (f->next_crash)
			crash_one(f, now);
		f->next_crash = now + f->crash_every_ns;
	}
	settle_jobs(f, now);
	for (uint32_t i = 0; i < f->ngpu; i++)
		if (!f->gpu[i].until && !f->gpu[i].back_at && pick(f, SHM_PART_READY, &e, &p))
			start(f, &f->gpu[i], 1, e, p, now);
	for (uint32_t i = 0; i < f->nsynth; i++)
		if (!f->synth[i].until && pick(f, SHM_PART_QUEUED, &e, &p))
			start(f, &f->synth[i], 0, e, p, now);
	for (uint32_t i = 0; i < FAKE_TABLE_JOBS; i++)
		for (uint32_t q = 0; q < f->job[i].nparts; q++)
			ready += f->job[i].part[q].state == SHM_PART_READY;
	f->sup.mem_used = (uint64_t)ready << 26;
	loop_tick(f, now);
	shm_write_sup(&f->seg, &f->sup);
	shm_heartbeat(&f->seg);
}
