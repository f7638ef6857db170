/*
 * status_prom: a snapshot in the Prometheus text exposition format 0.0.4
 * (docs/metrics.md). Counters are the segment's own cumulative counters,
 * so Prometheus' rate() gives utilization and throughput over any window;
 * nothing here is averaged. A record that was unreadable is left out (a
 * missing sample, never a wrong one) and counted in
 * provisor_status_unreadable_records.
 *
 * The one label value that comes from the segment as text (the instance
 * name) goes through util_clean (util/text.h: \xNN for every byte
 * outside printable ASCII) and is then escaped as the format wants (\\,
 * \", \n), so no control byte and no stray quote reaches a scrape.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "shm/shm.h"
#include "tui/fmt.h"
#include "tui/status.h"
#include "util/text.h"

const char *status_prom_label(char *buf, size_t len, const char *raw)
{
	char clean[4 * 128 + 8];	/* a fleet node's name, 4 bytes a character at worst */
	size_t o = 0;

	util_clean(clean, sizeof clean, raw);
	for (const char *p = clean; *p && o + 3 <= len; p++) {
		if (*p == '\\' || *p == '"')
			buf[o++] = '\\';
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample per slot of both tables for the metric name, from get(). */
typedef double (*slot_value)(const struct snap_slot *o);

static void slot_labels(char *buf, size_t len, uint32_t t, uint32_t i, const struct snap_slot *o)
{
	char slot[24];

	fmt_slot(slot, sizeof slot, t, i);
	if (t == SHM_T_GPU)
		snprintf(buf, len, "slot=\"%s\",gpu=\"%u\"", slot, o->v.gpu);
	else
		snprintf(buf, len, "slot=\"%s\"", slot);
}

static void per_slot(FILE *f, const struct snap *s, const char *name, const char *type,
		     const char *help, slot_value get, int busy_only)
{
	char lab[64];

	head(f, name, type, help);
	for (uint32_t t = SHM_T_GPU; t <= SHM_T_SYNTH; t++) {
		uint32_t n;
		const struct snap_slot *sl = snap_slots(s, t, &n);
		for (uint32_t i = 0; i < n; i++) {
			if (!sl[i].ok || (busy_only && sl[i].v.state != SHM_SLOT_BUSY))
				continue;
			slot_labels(lab, sizeof lab, t, i, &sl[i]);
			fprintf(f, "%s{%s} %.17g\n", name, lab, get(&sl[i]));
		}
	}
}

static double v_busy_s(const struct snap_slot *o) { return (double)o->busy_total_ns / 1e9; }
static double v_done(const struct snap_slot *o) { return (double)o->v.done; }
static double v_failed(const struct snap_slot *o) { return (double)o->v.failed; }
static double v_preempted(const struct snap_slot *o) { return (double)o->v.preempted; }
static double v_load_s(const struct snap_slot *o) { return (double)o->v.load_ns / 1e9; }
static double v_restarts(const struct snap_slot *o) { return (double)o->v.restarts; }
static double v_gen(const struct snap_slot *o) { return (double)o->v.gen; }
static double v_wrong(const struct snap_slot *o)
{
	return o->v.state == SHM_SLOT_DISABLED && o->v.disable_reason == SHM_DISABLE_WRONG_RESULT;
}
static double v_job(const struct snap_slot *o) { return (double)o->v.job_id; }
static double v_part(const struct snap_slot *o) { return (double)o->v.partition; }
static double v_busy(const struct snap_slot *o) { return o->v.state == SHM_SLOT_BUSY; }

static void slot_states(FILE *f, const struct snap *s)
{
	char lab[64];

	head(f, "provisor_worker_state", "gauge",
	     "1 for the state the worker slot is in, 0 for the others.");
	for (uint32_t t = SHM_T_GPU; t <= SHM_T_SYNTH; t++) {
		uint32_t n;
		const struct snap_slot *sl = snap_slots(s, t, &n);
		for (uint32_t i = 0; i < n; i++) {
			if (!sl[i].ok)
				continue;
			slot_labels(lab, sizeof lab, t, i, &sl[i]);
			for (uint32_t st = 0; st < SHM_SLOT_NSTATES; st++)
				fprintf(f, "provisor_worker_state{%s,state=\"%s\"} %d\n", lab,
					shm_slot_state_name(st), sl[i].v.state == st);
		}
	}
}

/* The supervisor loop's iterations: a histogram in the segment's own
 * buckets (cumulative here, as the format wants), the maximum, and the
 * slow ones (over 50 ms) with the last of them. */
static void loop(FILE *f, const struct snap *s)
{
	const struct shm_sup *v = &s->sup;
	char what[4 * sizeof v->loop_slow_what + 8];
	uint64_t cum = 0;

	head(f, "provisor_loop_iteration_seconds", "histogram",
	     "Duration of the supervisor's loop iterations (completions dispatched and the scheduler run).");
	for (unsigned b = 0; b < SHM_LOOP_NBUCKETS; b++) {
		cum += v->loop_hist[b];
		if (b < SHM_LOOP_NBUCKETS - 1)
			fprintf(f, "provisor_loop_iteration_seconds_bucket{le=\"%g\"} %llu\n",
				(double)shm_loop_le_ns[b] / 1e9, (unsigned long long)cum);
		else
			fprintf(f, "provisor_loop_iteration_seconds_bucket{le=\"+Inf\"} %llu\n",
				(unsigned long long)cum);
	}
	/* _count is the +Inf bucket, so that the family is consistent even if
	 * a damaged segment's iteration count disagrees with its buckets */
	fprintf(f, "provisor_loop_iteration_seconds_sum %.9f\nprovisor_loop_iteration_seconds_count %llu\n",
		(double)v->loop_sum_ns / 1e9, (unsigned long long)cum);
	head(f, "provisor_loop_iteration_max_seconds", "gauge",
	     "Longest supervisor loop iteration since the supervisor started.");
	fprintf(f, "provisor_loop_iteration_max_seconds %.9f\n", (double)v->loop_max_ns / 1e9);
	head(f, "provisor_loop_slow_iterations_total", "counter",
	     "Supervisor loop iterations longer than 50 ms.");
	fprintf(f, "provisor_loop_slow_iterations_total %llu\n", (unsigned long long)v->loop_slow_count);
	if (!v->loop_slow_count)
		return;
	head(f, "provisor_loop_last_slow_iteration_seconds", "gauge",
	     "Duration of the last iteration over 50 ms; label what: the step that took longest.");
	fprintf(f, "provisor_loop_last_slow_iteration_seconds{what=\"%s\"} %.9f\n",
		status_prom_label(what, sizeof what, v->loop_slow_what), (double)v->loop_slow_ns / 1e9);
	if (v->loop_slow_mono_ns < s->start_mono_ns)
		return;		/* not a time of this segment's supervisor */
	head(f, "provisor_loop_last_slow_iteration_timestamp_seconds", "gauge",
	     "Unix time the last iteration over 50 ms started.");
	fprintf(f, "provisor_loop_last_slow_iteration_timestamp_seconds %.3f\n",
		(double)(s->start_wall_ns + (v->loop_slow_mono_ns - s->start_mono_ns)) / 1e9);
}

static void supervisor(FILE *f, const struct snap *s)
{
	char boot[33], name[8 * SHM_NAME_MAX + 16];

	fmt_hex(boot, s->boot_id, sizeof s->boot_id);
	head(f, "provisor_supervisor_info", "gauge",
	     "Identity of the supervisor that owns the status segment (value 1).");
	fprintf(f, "provisor_supervisor_info{name=\"%s\",pid=\"%u\",boot_id=\"%s\",state=\"%s\"} 1\n",
		status_prom_label(name, sizeof name, s->name), s->sup_pid, boot, s->sup_ok ? fmt_sup_state(s->sup.state) : "unknown");
	head(f, "provisor_supervisor_heartbeat_age_seconds", "gauge",
	     "Seconds since the supervisor's last heartbeat.");
	fprintf(f, "provisor_supervisor_heartbeat_age_seconds %.3f\n", (double)s->hb_age_ns / 1e9);
	head(f, "provisor_supervisor_start_time_seconds", "gauge",
	     "Unix time the supervisor created the segment.");
	fprintf(f, "provisor_supervisor_start_time_seconds %.3f\n", (double)s->start_wall_ns / 1e9);
	if (!s->sup_ok)
		return;
	head(f, "provisor_jobs", "gauge", "Jobs the supervisor holds, by state.");
	fprintf(f, "provisor_jobs{state=\"queued\"} %llu\nprovisor_jobs{state=\"running\"} %llu\n"
		"provisor_jobs{state=\"blocked\"} %u\n",
		(unsigned long long)s->sup.jobs_queued, (unsigned long long)s->sup.jobs_running,
		s->jobs_by_state[SHM_JOB_BLOCKED]);
#define COUNTER(name, help, v) \
	head(f, name, "counter", help); \
	fprintf(f, name " %llu\n", (unsigned long long)(v))
	COUNTER("provisor_jobs_done_total", "Jobs completed with every partition proven.", s->sup.jobs_done);
	COUNTER("provisor_jobs_failed_total", "Jobs that failed (not those cancelled).",
		s->sup.jobs_failed);
	COUNTER("provisor_jobs_cancelled_total", "Jobs cancelled by an operator.", s->sup.jobs_cancelled);
	head(f, "provisor_kind_jobs_done_total", "counter", "Jobs completed, by kind.");
	char kb[24];
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++)
		fprintf(f, "provisor_kind_jobs_done_total{kind=\"%s\"} %llu\n", fmt_kind(k, kb, sizeof kb),
			(unsigned long long)s->sup.jobs_done_kind[k - 1]);
	COUNTER("provisor_partitions_done_total", "Partitions proven.", s->sup.parts_done);
	COUNTER("provisor_partitions_failed_total",
		"Partition attempts that failed (retried or not): FAIL answers, and workers that died busy.",
		s->sup.parts_failed);
	COUNTER("provisor_preemptions_total",
		"Partitions taken back from a worker for more urgent work (requeued, not failed).",
		s->sup.preemptions);
	COUNTER("provisor_quarantines_total",
		"Worker slots quarantined (disabled: a result failed verification).", s->sup.quarantines);
	COUNTER("provisor_backend_out_of_memory_total",
		"Partitions a GPU backend had no memory for (requeued, no attempt counted).", s->sup.parts_nomem);
	COUNTER("provisor_backend_device_lost_total",
		"GPU workers that ended because their backend lost its device.", s->sup.device_lost);
	COUNTER("provisor_backend_errors_total",
		"Partitions a GPU backend failed as bad input or an internal error (an attempt counted).",
		s->sup.backend_errors);
	head(f, "provisor_memory_budget_bytes", "gauge", "Bytes of synthesized partitions allowed in flight.");
	fprintf(f, "provisor_memory_budget_bytes %llu\n", (unsigned long long)s->sup.mem_budget);
	head(f, "provisor_memory_used_bytes", "gauge", "Bytes of synthesized partitions held now.");
	fprintf(f, "provisor_memory_used_bytes %llu\n", (unsigned long long)s->sup.mem_used);
	loop(f, s);
#undef COUNTER
}

/* A fleet node's own view of the fleet (docs/metrics.md, "A fleet
 * node"): nothing on a supervisor that is not a node. */
static void fleet(FILE *f, const struct snap *s)
{
	const struct shm_fleet *v = &s->sup.fleet;
	char node[4 * sizeof v->node + 8], raw[sizeof v->node + 1];

	if (v->db_state == SHM_FLEET_NONE)
		return;
	snprintf(raw, sizeof raw, "%.*s", (int)sizeof v->node, v->node);
	head(f, "provisor_fleet_info", "gauge", "The node's name in its fleet (value 1); only on a fleet node.");
	fprintf(f, "provisor_fleet_info{node=\"%s\"} 1\n", status_prom_label(node, sizeof node, raw));
	head(f, "provisor_fleet_database_state", "gauge",
	     "1 for the state of the node's connection to the fleet's database (connecting, connected, "
	     "unreachable), 0 for the others.");
	for (uint32_t st = SHM_FLEET_CONNECTING; st < SHM_FLEET_NDB; st++)
		fprintf(f, "provisor_fleet_database_state{state=\"%s\"} %d\n", fmt_fleet_db(st), v->db_state == st);
#define GAUGE(name, help, val) \
	head(f, name, "gauge", help); \
	fprintf(f, name " %llu\n", (unsigned long long)(val))
#define COUNTER(name, help, val) \
	head(f, name, "counter", help); \
	fprintf(f, name " %llu\n", (unsigned long long)(val))
	GAUGE("provisor_fleet_registered", "1 while the database accepted the node's last heartbeat.",
	      v->registered);
	GAUGE("provisor_fleet_leases_held",
	      "Fleet jobs the node holds a lease on: running here, or ended here and not yet reported.",
	      v->leases_held);
	GAUGE("provisor_fleet_max_jobs", "Fleet jobs the node runs at most at once.", v->max_jobs);
	GAUGE("provisor_fleet_results_unreported",
	      "Fleet jobs done here whose result waits, kept locally, for the database to take its completion.",
	      v->unreported);
	COUNTER("provisor_fleet_reconnects_total", "Connections to the fleet's database after the first.",
		v->reconnects);
	COUNTER("provisor_fleet_jobs_claimed_total", "Fleet jobs the node claimed.", v->claimed);
	COUNTER("provisor_fleet_completions_total", "Completions of fleet jobs the database took from the node.",
		v->completed);
	COUNTER("provisor_fleet_completions_refused_total",
		"Completions the database refused: the lease was lost meanwhile (late; the work was wasted).",
		v->refused);
	COUNTER("provisor_fleet_leases_lost_total", "Leases the database did not renew (another node took the job).",
		v->leases_lost);
#undef GAUGE
#undef COUNTER
	if (!v->beat_wall_ns)
		return;
	head(f, "provisor_fleet_last_heartbeat_timestamp_seconds", "gauge",
	     "Unix time of the node's last heartbeat the database accepted.");
	fprintf(f, "provisor_fleet_last_heartbeat_timestamp_seconds %.3f\n", (double)v->beat_wall_ns / 1e9);
	if (v->beat_mono_ns && s->now_mono_ns >= v->beat_mono_ns) {
		head(f, "provisor_fleet_last_heartbeat_age_seconds", "gauge",
		     "Seconds since the node's last heartbeat the database accepted.");
		fprintf(f, "provisor_fleet_last_heartbeat_age_seconds %.3f\n",
			(double)(s->now_mono_ns - v->beat_mono_ns) / 1e9);
	}
}

/* Degraded: the supervisor runs short of what it was asked to run
 * (docs/metrics.md), and the slots it disabled itself, with why. */
static void degraded(FILE *f, const struct snap *s)
{
	char why[4 * sizeof s->sup.degraded_reason + 8], lab[64];
	int deg = s->sup.state == SHM_SUP_DEGRADED;

	head(f, "provisor_supervisor_degraded", "gauge",
	     "1 while the supervisor runs short of what it was asked to run (reason: why), else 0.");
	snprintf(why, sizeof why, "%.*s", (int)sizeof s->sup.degraded_reason, s->sup.degraded_reason);
	fprintf(f, "provisor_supervisor_degraded{reason=\"%s\"} %d\n",
		deg ? status_prom_label(why, sizeof why, why) : "", deg);
	head(f, "provisor_worker_disabled", "gauge",
	     "1 for a disabled worker slot, by why it is disabled (operator, crash-loop, no-device, wrong-result).");
	for (uint32_t t = SHM_T_GPU; t <= SHM_T_SYNTH; t++) {
		uint32_t n;
		const struct snap_slot *sl = snap_slots(s, t, &n);
		for (uint32_t i = 0; i < n; i++)
			if (sl[i].ok && sl[i].v.state == SHM_SLOT_DISABLED) {
				slot_labels(lab, sizeof lab, t, i, &sl[i]);
				fprintf(f, "provisor_worker_disabled{%s,reason=\"%s\"} 1\n", lab,
					fmt_disable_reason(sl[i].v.disable_reason));
			}
	}
}

static void job_table(FILE *f, const struct snap *s)
{
	uint32_t n[SHM_JOB_NSTATES][8] = { { 0 } };
	char kb[16];

	for (uint32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].v.state < SHM_JOB_NSTATES && s->jobs[i].v.kind < 8)
			n[s->jobs[i].v.state][s->jobs[i].v.kind]++;
	head(f, "provisor_job_table_entries", "gauge",
	     "Jobs in the status segment's job table (active and recent), by state and kind.");
	for (uint32_t st = SHM_JOB_QUEUED; st < SHM_JOB_NSTATES; st++)
		for (uint32_t k = 1; k < 8; k++)
			if (n[st][k] || k <= VOCAB_NKINDS)
				fprintf(f, "provisor_job_table_entries{state=\"%s\",kind=\"%s\"} %u\n",
					fmt_job_state(st), fmt_kind(k, kb, sizeof kb), n[st][k]);
}

int status_prom(FILE *f, const struct snap *s)
{
	int up = s->attached && s->health == SHM_HEALTH_RUNNING;

	head(f, "provisor_supervisor_up", "gauge",
	     "1 when the supervisor is running and its heartbeat is fresh, else 0.");
	fprintf(f, "provisor_supervisor_up %d\n", up);
	if (s->attached) {
		supervisor(f, s);
		per_slot(f, s, "provisor_worker_busy", "gauge", "1 while the worker proves or synthesizes a partition.", v_busy, 0);
		slot_states(f, s);
		per_slot(f, s, "provisor_worker_busy_seconds_total", "counter",
			 "Cumulative seconds the worker slot was busy (across restarts).", v_busy_s, 0);
		per_slot(f, s, "provisor_worker_partitions_done_total", "counter",
			 "Partitions the worker slot finished.", v_done, 0);
		per_slot(f, s, "provisor_worker_partitions_failed_total", "counter",
			 "Partitions that failed on the worker slot or were lost in a crash.", v_failed, 0);
		per_slot(f, s, "provisor_worker_restarts_total", "counter",
			 "Restarts of the worker slot's process.", v_restarts, 0);
		per_slot(f, s, "provisor_worker_preempted_total", "counter",
			 "Partitions taken back from the worker slot for more urgent work.", v_preempted, 0);
		per_slot(f, s, "provisor_worker_params_load_seconds", "gauge",
			 "How long the worker's last params load took (0: none, or still loading).", v_load_s, 0);
		per_slot(f, s, "provisor_worker_quarantined", "gauge",
			 "1 while the slot is disabled for a wrong result (quarantined).", v_wrong, 0);
		per_slot(f, s, "provisor_worker_generation", "gauge",
			 "Generation of the slot's newest assignment.", v_gen, 0);
		per_slot(f, s, "provisor_worker_job_id", "gauge",
			 "Job the busy worker works on.", v_job, 1);
		per_slot(f, s, "provisor_worker_partition", "gauge",
			 "Partition the busy worker works on.", v_part, 1);
		job_table(f, s);
		if (s->sup_ok) {
			degraded(f, s);
			fleet(f, s);
		}
		head(f, "provisor_events_total", "counter", "Events the supervisor posted.");
		fprintf(f, "provisor_events_total %llu\n", (unsigned long long)s->event_head);
	}
	head(f, "provisor_status_unreadable_records", "gauge",
	     "Records left out of this scrape because they stayed unreadable.");
	fprintf(f, "provisor_status_unreadable_records %u\n", s->attached ? s->unreadable : 0);
	return ferror(f) ? -EIO : 0;
}
