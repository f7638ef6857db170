/*
 * status_json: a snapshot as one JSON document (docs/status-json.md),
 * built with json-c. Unknown or unreadable values are null, never a
 * made-up number; times are seconds as doubles, identities are integers.
 */
#include <errno.h>
#include <json-c/json.h>

#include "shm/shm.h"
#include "tui/fmt.h"
#include "tui/status.h"

#define J_ADD(o, k, v) json_object_object_add((o), (k), (v))

static json_object *j_u64(uint64_t v) { return json_object_new_uint64(v); }
static json_object *j_sec(uint64_t ns) { return json_object_new_double((double)ns / 1e9); }
static json_object *j_str(const char *s) { return json_object_new_string(s); }

static json_object *j_frac(double v)
{
	return v < 0 ? NULL : json_object_new_double(v);
}

static json_object *slot_json(const struct snap *s, uint32_t t, uint32_t i, const struct snap_slot *o)
{
	json_object *j = json_object_new_object(), *ex;
	const struct shm_slot *v = &o->v;
	char name[24], kb[16], why[40];
	int busy = v->state == SHM_SLOT_BUSY;

	fmt_slot(name, sizeof name, t, i);
	J_ADD(j, "slot", j_str(name));
	J_ADD(j, "index", j_u64(i));
	J_ADD(j, "readable", json_object_new_boolean(o->ok));
	if (!o->ok)
		return j;
	if (t == SHM_T_GPU)
		J_ADD(j, "gpu", j_u64(v->gpu));
	J_ADD(j, "state", j_str(shm_slot_state_name(v->state)));
	J_ADD(j, "disable_reason", v->state == SHM_SLOT_DISABLED && v->disable_reason ?
			j_str(fmt_disable_reason(v->disable_reason)) : NULL);
	J_ADD(j, "state_seconds", v->state_since_ns && s->now_mono_ns > v->state_since_ns ?
			j_sec(s->now_mono_ns - v->state_since_ns) : NULL);
	J_ADD(j, "pid", v->pid ? j_u64(v->pid) : NULL);
	J_ADD(j, "backend", j_str(fmt_backend(v->backend)));
	J_ADD(j, "generation", j_u64(v->gen));
	J_ADD(j, "end_generation", j_u64(v->end_gen));
	J_ADD(j, "job", busy ? j_u64(v->job_id) : NULL);
	J_ADD(j, "kind", busy ? j_str(fmt_kind(v->kind, kb, sizeof kb)) : NULL);
	J_ADD(j, "partition", busy ? j_u64(v->partition) : NULL);
	J_ADD(j, "partition_seconds", busy && s->now_mono_ns > v->part_since_ns ?
			j_sec(s->now_mono_ns - v->part_since_ns) : NULL);
	J_ADD(j, "busy_seconds", j_sec(o->busy_total_ns));
	J_ADD(j, "utilization", j_frac(o->util_life));
	J_ADD(j, "done", j_u64(v->done));
	J_ADD(j, "failed", j_u64(v->failed));
	J_ADD(j, "restarts", j_u64(v->restarts));
	J_ADD(j, "preempted", j_u64(v->preempted));
	J_ADD(j, "load_permille", v->state == SHM_SLOT_LOADING ? j_u64(v->load_permille) : NULL);
	J_ADD(j, "load_seconds", v->load_ns ? j_sec(v->load_ns) : NULL);
	J_ADD(j, "heartbeat_age_seconds", v->heartbeat_mono_ns && s->now_mono_ns > v->heartbeat_mono_ns ?
			j_sec(s->now_mono_ns - v->heartbeat_mono_ns) : NULL);
	ex = NULL;
	if (v->last_exit_kind != SHM_EXIT_NONE) {
		ex = json_object_new_object();
		fmt_exit(why, sizeof why, v->last_exit_kind, v->last_exit_code);
		J_ADD(ex, "kind", j_str(v->last_exit_kind == SHM_EXIT_SIGNAL ? "signal" : "exit"));
		J_ADD(ex, "code", json_object_new_int(v->last_exit_code));
		J_ADD(ex, "text", j_str(why));
		J_ADD(ex, "wall_seconds", j_sec(v->last_exit_wall_ns));
	}
	J_ADD(j, "last_exit", ex);
	return j;
}

static json_object *slots_json(const struct snap *s, uint32_t t)
{
	json_object *a = json_object_new_array();
	uint32_t n;
	const struct snap_slot *sl = snap_slots(s, t, &n);

	for (uint32_t i = 0; i < n; i++)
		json_object_array_add(a, slot_json(s, t, i, &sl[i]));
	return a;
}

static json_object *part_json(const struct shm_part *p, uint32_t i)
{
	json_object *j = json_object_new_object();

	J_ADD(j, "index", j_u64(i));
	J_ADD(j, "state", j_str(fmt_part_state(p->state)));
	J_ADD(j, "attempts", j_u64(p->attempts));
	J_ADD(j, "synth_slot", p->synth_slot != 0xffff ? j_u64(p->synth_slot) : NULL);
	J_ADD(j, "gpu_slot", p->gpu_slot != 0xffff ? j_u64(p->gpu_slot) : NULL);
	J_ADD(j, "synth_seconds", j_sec(p->synth_ns));
	J_ADD(j, "gpu_seconds", j_sec(p->gpu_ns));
	return j;
}

static json_object *job_json(const struct snap *s, const struct snap_job *jb)
{
	json_object *j = json_object_new_object(), *parts = json_object_new_array();
	const struct shm_job *v = &jb->v;
	char kb[16], seed[65], res[160];

	J_ADD(j, "id", j_u64(v->id));
	J_ADD(j, "kind", j_str(fmt_kind(v->kind, kb, sizeof kb)));
	J_ADD(j, "state", j_str(fmt_job_state(v->state)));
	J_ADD(j, "priority", j_u64(v->priority));
	J_ADD(j, "log_size", j_u64(v->log_size));
	fmt_hex(seed, v->seed, sizeof v->seed);
	J_ADD(j, "seed", j_str(seed));
	J_ADD(j, "partitions", j_u64(v->nparts));
	J_ADD(j, "output", j_str(fmt_output(v->output)));
	J_ADD(j, "partitions_done", j_u64(jb->count[SHM_PART_DONE]));
	J_ADD(j, "partitions_failed", j_u64(jb->count[SHM_PART_FAILED]));
	J_ADD(j, "partitions_cancelled", j_u64(jb->count[SHM_PART_CANCELLED]));
	J_ADD(j, "progress", json_object_new_double(jb->progress));
	J_ADD(j, "submit_wall_seconds", j_sec(v->submit_wall_ns));
	J_ADD(j, "elapsed_seconds", j_sec(jb->elapsed_ns));
	J_ADD(j, "eta_seconds", jb->eta_ns >= 0 && !status_job_ended(v->state) ?
			j_sec((uint64_t)jb->eta_ns) : NULL);
	J_ADD(j, "result_path", v->state == SHM_JOB_DONE && !status_result_path(s, v->id, res, sizeof res) ?
			j_str(res) : NULL);
	J_ADD(j, "reason", v->reason[0] ? j_str(v->reason) : NULL);
	J_ADD(j, "reason_code", v->reason_code ? j_str(fmt_reason(v->reason_code)) : NULL);
	for (uint32_t p = 0; p < v->nparts; p++)
		json_object_array_add(parts, part_json(&v->part[p], p));
	J_ADD(j, "parts", parts);
	return j;
}

static json_object *event_json(const struct shm_event *e)
{
	json_object *j = json_object_new_object();
	char slot[24];

	J_ADD(j, "seq", j_u64(e->seq));
	J_ADD(j, "wall_seconds", j_sec(e->wall_ns));
	J_ADD(j, "type", j_str(fmt_event_type(e->type)));
	if (e->table == SHM_T_GPU || e->table == SHM_T_SYNTH) {
		fmt_slot(slot, sizeof slot, e->table, e->slot);
		J_ADD(j, "slot", j_str(slot));
	} else
		J_ADD(j, "slot", NULL);
	J_ADD(j, "code", json_object_new_int(e->code));
	J_ADD(j, "job", e->job_id ? j_u64(e->job_id) : NULL);
	J_ADD(j, "partition", e->job_id ? j_u64(e->partition) : NULL);
	J_ADD(j, "message", j_str(e->msg));
	return j;
}

/* The supervisor loop's iteration times (docs/status-json.md). */
static json_object *loop_json(const struct snap *s)
{
	json_object *j = json_object_new_object(), *last = NULL;
	const struct shm_sup *v = &s->sup;

	J_ADD(j, "iterations", j_u64(v->loop_iterations));
	J_ADD(j, "p50_seconds", j_sec(v->loop_p50_ns));
	J_ADD(j, "p99_seconds", j_sec(v->loop_p99_ns));
	J_ADD(j, "max_seconds", j_sec(v->loop_max_ns));
	J_ADD(j, "max_what", v->loop_max_what[0] ? j_str(v->loop_max_what) : NULL);
	J_ADD(j, "total_seconds", j_sec(v->loop_sum_ns));
	J_ADD(j, "slow_threshold_seconds", j_sec(SHM_LOOP_SLOW_NS));
	J_ADD(j, "slow_iterations", j_u64(v->loop_slow_count));
	if (v->loop_slow_count) {
		last = json_object_new_object();
		J_ADD(last, "seconds", j_sec(v->loop_slow_ns));
		J_ADD(last, "what", j_str(v->loop_slow_what));
		J_ADD(last, "ago_seconds", s->now_mono_ns >= v->loop_slow_mono_ns ?
				j_sec(s->now_mono_ns - v->loop_slow_mono_ns) : NULL);
	}
	J_ADD(j, "last_slow", last);
	return j;
}

/* A fleet node's own view (docs/status-json.md, "fleet"). */
static json_object *fleet_json(const struct snap *s)
{
	const struct shm_fleet *v = &s->sup.fleet;
	json_object *j = json_object_new_object();
	char node[sizeof v->node + 1];
	int beat = v->beat_mono_ns && s->now_mono_ns >= v->beat_mono_ns;

	snprintf(node, sizeof node, "%.*s", (int)sizeof v->node, v->node);
	J_ADD(j, "node", j_str(node));
	J_ADD(j, "database", j_str(fmt_fleet_db(v->db_state)));
	J_ADD(j, "unreachable_seconds", v->db_state == SHM_FLEET_UNREACHABLE && v->down_mono_ns &&
			s->now_mono_ns >= v->down_mono_ns ? j_sec(s->now_mono_ns - v->down_mono_ns) : NULL);
	J_ADD(j, "registered", json_object_new_boolean(v->registered));
	J_ADD(j, "last_heartbeat_wall_seconds", v->beat_wall_ns ? j_sec(v->beat_wall_ns) : NULL);
	J_ADD(j, "last_heartbeat_age_seconds", beat ? j_sec(s->now_mono_ns - v->beat_mono_ns) : NULL);
	J_ADD(j, "leases_held", j_u64(v->leases_held));
	J_ADD(j, "max_jobs", j_u64(v->max_jobs));
	J_ADD(j, "results_unreported", j_u64(v->unreported));
	J_ADD(j, "jobs_claimed", j_u64(v->claimed));
	J_ADD(j, "completions", j_u64(v->completed));
	J_ADD(j, "completions_refused", j_u64(v->refused));
	J_ADD(j, "leases_lost", j_u64(v->leases_lost));
	J_ADD(j, "reconnects", j_u64(v->reconnects));
	return j;
}

static json_object *sup_json(const struct snap *s)
{
	json_object *j = json_object_new_object();
	char boot[33];

	fmt_hex(boot, s->boot_id, sizeof s->boot_id);
	J_ADD(j, "pid", j_u64(s->sup_pid));
	J_ADD(j, "health", j_str(snap_health_word(s)));
	J_ADD(j, "heartbeat_age_seconds", j_sec(s->hb_age_ns));
	J_ADD(j, "boot_id", j_str(boot));
	J_ADD(j, "start_wall_seconds", j_sec(s->start_wall_ns));
	J_ADD(j, "uptime_seconds", j_sec(snap_uptime_ns(s)));
	J_ADD(j, "control_socket", s->control_path[0] ? j_str(s->control_path) : NULL);
	J_ADD(j, "readable", json_object_new_boolean(s->sup_ok));
	if (!s->sup_ok)
		return j;
	J_ADD(j, "state", j_str(fmt_sup_state(s->sup.state)));
	J_ADD(j, "degraded_reason", s->sup.state == SHM_SUP_DEGRADED ?
			j_str(s->sup.degraded_reason) : NULL);
	J_ADD(j, "jobs_queued", j_u64(s->sup.jobs_queued));
	J_ADD(j, "jobs_running", j_u64(s->sup.jobs_running));
	J_ADD(j, "jobs_blocked", j_u64(s->jobs_by_state[SHM_JOB_BLOCKED]));
	J_ADD(j, "jobs_done", j_u64(s->sup.jobs_done));
	J_ADD(j, "jobs_failed", j_u64(s->sup.jobs_failed));
	J_ADD(j, "jobs_cancelled", j_u64(s->sup.jobs_cancelled));
	json_object *bk = json_object_new_object();
	char kb[24];
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++)
		json_object_object_add(bk, fmt_kind(k, kb, sizeof kb), j_u64(s->sup.jobs_done_kind[k - 1]));
	J_ADD(j, "jobs_done_by_kind", bk);
	J_ADD(j, "partitions_done", j_u64(s->sup.parts_done));
	J_ADD(j, "partitions_failed", j_u64(s->sup.parts_failed));
	J_ADD(j, "quarantines", j_u64(s->sup.quarantines));
	J_ADD(j, "backend_out_of_memory", j_u64(s->sup.parts_nomem));
	J_ADD(j, "backend_device_lost", j_u64(s->sup.device_lost));
	J_ADD(j, "backend_errors", j_u64(s->sup.backend_errors));
	J_ADD(j, "partitions_per_minute", j_frac(s->parts_per_min));
	J_ADD(j, "preemptions", j_u64(s->sup.preemptions));
	J_ADD(j, "memory_budget_bytes", j_u64(s->sup.mem_budget));
	J_ADD(j, "memory_used_bytes", j_u64(s->sup.mem_used));
	J_ADD(j, "loop", loop_json(s));
	return j;
}

int status_json(FILE *f, const struct snap *s)
{
	json_object *root = json_object_new_object(), *a;
	const char *txt;
	int rc;

	if (!root)
		return -ENOMEM;
	/* Microseconds are enough for every figure; "%.17g" noise is not. */
	json_c_set_serialization_double_format("%.6f", JSON_C_OPTION_GLOBAL);
	J_ADD(root, "version", j_u64(STATUS_JSON_VERSION));
	J_ADD(root, "name", j_str(s->name));
	J_ADD(root, "attached", json_object_new_boolean(s->attached));
	J_ADD(root, "now_wall_seconds", j_sec(s->now_wall_ns));
	if (s->attached) {
		J_ADD(root, "supervisor", sup_json(s));
		if (s->sup_ok && s->sup.fleet.db_state != SHM_FLEET_NONE)	/* a fleet node only */
			J_ADD(root, "fleet", fleet_json(s));
		J_ADD(root, "gpu_slots", slots_json(s, SHM_T_GPU));
		J_ADD(root, "synth_slots", slots_json(s, SHM_T_SYNTH));
		a = json_object_new_array();
		for (uint32_t i = 0; i < s->njobs; i++)
			json_object_array_add(a, job_json(s, &s->jobs[i]));
		J_ADD(root, "jobs", a);
		a = json_object_new_array();
		for (uint32_t i = 0; i < s->nevents; i++)
			json_object_array_add(a, event_json(&s->events[i]));
		J_ADD(root, "events", a);
		J_ADD(root, "events_total", j_u64(s->event_head));
		J_ADD(root, "unreadable_records", j_u64(s->unreadable));
	} else
		J_ADD(root, "error", j_str(s->err));
	txt = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	rc = txt && fprintf(f, "%s\n", txt) >= 0 && !ferror(f) ? 0 : -EIO;
	json_object_put(root);
	return rc;
}
