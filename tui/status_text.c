/*
 * status_text: a snapshot as plain text for people (`provisor status`):
 * the supervisor, one line per worker slot, every job with one line per
 * partition, and the recent events. Columns are whitespace-separated words
 * ("-" for none, "?" for unreadable) so that awk can read them too.
 *
 * Every string that comes from the segment (instance name, event messages,
 * job reasons, the reason it could not be read) goes through util_clean
 * (util/text.h) on its way out: a byte outside printable ASCII shows as
 * \xNN, so no escape sequence in a record reaches the terminal. When the
 * supervisor is gone, each slot's state is "unknown (supervisor gone)",
 * not its last published state, and the uptime stops at its last
 * heartbeat. A fleet node adds one line of its view of the fleet.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "shm/shm.h"
#include "tui/fmt.h"
#include "tui/status.h"
#include "util/text.h"

static void gib(char *buf, size_t len, uint64_t bytes)
{
	snprintf(buf, len, "%.1fGiB", (double)bytes / (1ull << 30));
}

/* "loop: 81234 iterations, p50 40us, p99 2.1ms, max 12ms; 1 over 50ms,
 * the last 61ms in child read 12.3s ago" */
static void loop_line(FILE *f, const struct snap *s)
{
	const struct shm_sup *v = &s->sup;
	char p50[16], p99[16], max[16], slow[16], ago[16], what[4 * sizeof v->loop_slow_what];

	fmt_lat(p50, sizeof p50, v->loop_p50_ns);
	fmt_lat(p99, sizeof p99, v->loop_p99_ns);
	fmt_lat(max, sizeof max, v->loop_max_ns);
	char mwhat[4 * sizeof v->loop_max_what];
	fprintf(f, "loop: %" PRIu64 " iterations, p50 %s, p99 %s, max %s%s%s; %" PRIu64 " over 50ms",
		v->loop_iterations, p50, p99, max, v->loop_max_what[0] ? " in " : "",
		util_cleann(mwhat, sizeof mwhat, v->loop_max_what, sizeof v->loop_max_what),
		v->loop_slow_count);
	if (v->loop_slow_count) {
		fmt_lat(slow, sizeof slow, v->loop_slow_ns);
		fmt_dur(ago, sizeof ago, s->now_mono_ns > v->loop_slow_mono_ns ?
			s->now_mono_ns - v->loop_slow_mono_ns : 0);
		fprintf(f, ", the last %s in %s %s ago", slow,
			util_clean(what, sizeof what, v->loop_slow_what), ago);
	}
	fprintf(f, "\n");
}

/* A fleet node's own view (the supervisor record's fleet block), one
 * line; nothing on a supervisor that is not a node:
 * "fleet: node N, database connected, registered, last heartbeat 0.3s
 * ago; 2 leases held of 2, 0 results awaiting report; 12 claimed, 10
 * completed, 0 refused (late), 0 leases lost; 1 reconnect" */
static void fleet_line(FILE *f, const struct snap *s)
{
	const struct shm_fleet *v = &s->sup.fleet;
	char node[4 * sizeof v->node], down[16], age[16];

	if (v->db_state == SHM_FLEET_NONE)
		return;
	fprintf(f, "fleet: node %s, database %s", util_cleann(node, sizeof node, v->node, sizeof v->node),
		fmt_fleet_db(v->db_state));
	if (v->db_state == SHM_FLEET_UNREACHABLE && v->down_mono_ns && s->now_mono_ns > v->down_mono_ns) {
		fmt_dur(down, sizeof down, s->now_mono_ns - v->down_mono_ns);
		fprintf(f, " for %s", down);
	}
	fprintf(f, ", %s", v->registered ? "registered" : "not registered");
	if (v->beat_mono_ns && s->now_mono_ns >= v->beat_mono_ns) {
		fmt_dur(age, sizeof age, s->now_mono_ns - v->beat_mono_ns);
		fprintf(f, ", last heartbeat %s ago", age);
	} else {
		fprintf(f, ", no heartbeat yet");
	}
	fprintf(f, "; %u leases held of %u, %u results awaiting report; %" PRIu64 " claimed, %" PRIu64
		" completed, %" PRIu64 " refused (late), %" PRIu64 " leases lost; %" PRIu64 " reconnect%s\n",
		v->leases_held, v->max_jobs, v->unreported, v->claimed, v->completed, v->refused, v->leases_lost,
		v->reconnects, v->reconnects == 1 ? "" : "s");
}

static void header(FILE *f, const struct snap *s)
{
	char up[16], age[16], used[16], budget[16], name[4 * sizeof s->name];

	fmt_dur(up, sizeof up, snap_uptime_ns(s));
	fmt_dur(age, sizeof age, s->hb_age_ns);
	fprintf(f, "instance %s: supervisor pid %u, %s (heartbeat %s ago), up %s",
		util_clean(name, sizeof name, s->name), s->sup_pid, snap_health_word(s), age, up);
	if (!s->sup_ok) {
		fprintf(f, "\nsupervisor record unreadable\n");
		return;
	}
	gib(used, sizeof used, s->sup.mem_used);
	gib(budget, sizeof budget, s->sup.mem_budget);
	fprintf(f, ", state %s", fmt_sup_state(s->sup.state));
	if (s->sup.state == SHM_SUP_DEGRADED) {
		char why[4 * sizeof s->sup.degraded_reason];
		fprintf(f, " (%s)", util_cleann(why, sizeof why, s->sup.degraded_reason,
						sizeof s->sup.degraded_reason));
	} else if (s->sup.state == SHM_SUP_DRAINING && !s->sup.jobs_queued && !s->sup.jobs_running &&
		   !s->jobs_by_state[SHM_JOB_BLOCKED]) {
		fprintf(f, " (drained: taking no jobs until provisor resume)");
	}
	fprintf(f, "\njobs: %" PRIu64 " queued, %" PRIu64 " running, %u blocked, %" PRIu64 " done, %"
		PRIu64 " failed, %" PRIu64 " cancelled; partitions: %" PRIu64 " done, %" PRIu64 " failed",
		s->sup.jobs_queued, s->sup.jobs_running, s->jobs_by_state[SHM_JOB_BLOCKED],
		s->sup.jobs_done, s->sup.jobs_failed, s->sup.jobs_cancelled, s->sup.parts_done,
		s->sup.parts_failed);
	if (s->parts_per_min >= 0)
		fprintf(f, ", %.1f/min", s->parts_per_min);
	if (s->sup.quarantines)
		fprintf(f, "; %" PRIu64 " slot(s) quarantined (wrong result)", s->sup.quarantines);
	if (s->sup.parts_nomem || s->sup.device_lost || s->sup.backend_errors)
		fprintf(f, "; backends: %" PRIu64 " out of memory, %" PRIu64 " device lost, %" PRIu64
			" errors", s->sup.parts_nomem, s->sup.device_lost, s->sup.backend_errors);
	fprintf(f, "; memory %s of %s\n", used, budget);
	loop_line(f, s);
	fprintf(f, "pre-emptions: %" PRIu64 " partitions taken back for more urgent work\n",
		s->sup.preemptions);
	fleet_line(f, s);
}

static void slots(FILE *f, const struct snap *s, uint32_t t)
{
	uint32_t n;
	const struct snap_slot *sl = snap_slots(s, t, &n);
	char name[24], kb[16], tm[16], ex[40];

	fprintf(f, "\n%-9s %-4s %-8s %-9s %-8s %-7s %-12s %-5s %-7s %-5s %-6s %-5s %-4s %s\n",
		"SLOT", "GPU", "PID", "STATE", "GEN", "JOB", "KIND", "PART", "TIME", "UTIL",
		"DONE", "FAIL", "RST", "LAST-EXIT");
	for (uint32_t i = 0; i < n; i++) {
		const struct shm_slot *v = &sl[i].v;
		int busy = v->state == SHM_SLOT_BUSY;

		fmt_slot(name, sizeof name, t, i);
		if (!sl[i].ok) {
			fprintf(f, "%-9s ? unreadable\n", name);
			continue;
		}
		fmt_exit(ex, sizeof ex, v->last_exit_kind, v->last_exit_code);
		fprintf(f, "%-9s ", name);
		if (t == SHM_T_GPU)
			fprintf(f, "%-4u ", v->gpu);
		else
			fprintf(f, "%-4s ", "-");
		if (snap_sup_gone(s)) {	/* its last words are not what runs now */
			fprintf(f, "%-8s %-9s %-8" PRIu64 " %-7s %-12s %-5s %-7s %5s %-6" PRIu64 " %-5" PRIu64
				" %-4" PRIu64 " %s (supervisor gone)\n", "-", "unknown", v->gen, "-", "-", "-",
				"-", "-", v->done, v->failed, v->restarts, ex);
			continue;
		}
		fmt_dur(tm, sizeof tm, busy ? s->now_mono_ns - v->part_since_ns : 0);
		fprintf(f, "%-8u %-9s %-8" PRIu64 " ", v->pid, shm_slot_state_name(v->state), v->gen);
		if (busy)
			fprintf(f, "%-7" PRIu64 " %-12s %-5u %-7s ", v->job_id,
				fmt_kind(v->kind, kb, sizeof kb), v->partition, tm);
		else
			fprintf(f, "%-7s %-12s %-5s %-7s ", "-", "-", "-", "-");
		const char *dr = v->state == SHM_SLOT_DISABLED ? fmt_disable_why(v->disable_reason) : NULL;
		char ld[48] = "";
		if (v->state == SHM_SLOT_LOADING)
			snprintf(ld, sizeof ld, " (loading params: %u%%)", v->load_permille / 10);
		else if (v->load_ns)
			snprintf(ld, sizeof ld, " (params loaded in %.2f s)", v->load_ns / 1e9);
		fprintf(f, "%4.0f%% %-6" PRIu64 " %-5" PRIu64 " %-4" PRIu64 " %s%s%s%s%s\n",
			sl[i].util_life >= 0 ? sl[i].util_life * 100 : 0, v->done, v->failed,
			v->restarts, ex, dr ? " (disabled: " : "", dr ? dr : "", dr ? ")" : "", ld);
	}
}

static void slot_ref(char *buf, size_t len, uint32_t t, uint16_t i)
{
	if (i == 0xffff)
		snprintf(buf, len, "-");
	else
		fmt_slot(buf, len, t, i);
}

/* "[no-space]": the code beside the text, for scripts. */
static const char *fmt_reason_tag(uint32_t code)
{
	static char buf[24];

	snprintf(buf, sizeof buf, "[%s]", fmt_reason(code));
	return buf;
}

int status_job_ended(uint32_t state)
{
	return state == SHM_JOB_DONE || state == SHM_JOB_FAILED || state == SHM_JOB_CANCELLED;
}

int status_result_path(const struct snap *s, uint64_t id, char *buf, size_t len)
{
	const char *slash = strrchr(s->control_path, '/');
	int n;

	if (!slash || slash == s->control_path)
		return -1;
	n = snprintf(buf, len, "%.*s/results/job-%" PRIu64 ".result", (int)(slash - s->control_path),
		     s->control_path, id);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void job(FILE *f, const struct snap_job *j, int parts)
{
	const struct shm_job *v = &j->v;
	char kb[16], el[16], eta[16], a[24], b[24], st[16], gt[16], why[4 * sizeof v->reason];

	fmt_dur(el, sizeof el, j->elapsed_ns);
	if (j->eta_ns >= 0 && !status_job_ended(v->state))
		fmt_dur(eta, sizeof eta, (uint64_t)j->eta_ns);
	else
		snprintf(eta, sizeof eta, "-");
	fprintf(f, "job %" PRIu64 " %s %s: %u/%u partitions done, output %s, %.0f%%, elapsed %s, eta %s%s%s%s%s\n",
		v->id, fmt_kind(v->kind, kb, sizeof kb), fmt_job_state(v->state),
		j->count[SHM_PART_DONE], v->nparts, fmt_output(v->output), j->progress * 100, el, eta,
		v->reason[0] ? ", reason: " : "", util_clean(why, sizeof why, v->reason),
		v->reason_code ? " " : "", v->reason_code ? fmt_reason_tag(v->reason_code) : "");
	for (uint32_t p = 0; parts && p < v->nparts; p++) {
		const struct shm_part *pp = &v->part[p];
		slot_ref(a, sizeof a, SHM_T_SYNTH, pp->synth_slot);
		slot_ref(b, sizeof b, SHM_T_GPU, pp->gpu_slot);
		fmt_dur(st, sizeof st, pp->synth_ns);
		fmt_dur(gt, sizeof gt, pp->gpu_ns);
		fprintf(f, "  part %-3u %-12s attempts %-2u synth %-9s %-8s gpu %-7s %s\n", p,
			fmt_part_state(pp->state), pp->attempts, a, st, b, gt);
	}
}

static void events(FILE *f, const struct snap *s)
{
	char clk[16], slot[24], msg[4 * sizeof s->events[0].msg];

	if (!s->nevents)
		return;
	fprintf(f, "\nevents (newest last):\n");
	for (uint32_t i = 0; i < s->nevents; i++) {
		const struct shm_event *e = &s->events[i];
		fmt_clock(clk, sizeof clk, e->wall_ns);
		if (e->table == SHM_T_GPU || e->table == SHM_T_SYNTH)
			fmt_slot(slot, sizeof slot, e->table, e->slot);
		else
			snprintf(slot, sizeof slot, "-");
		fprintf(f, "  %s #%" PRIu64 " %-10s %-8s job %" PRIu64 " %s\n", clk, e->seq,
			fmt_event_type(e->type), slot, e->job_id, util_clean(msg, sizeof msg, e->msg));
	}
}

int status_text(FILE *f, const struct snap *s)
{
	static const struct status_opts dflt;

	return status_text_opts(f, s, &dflt);
}

int status_text_opts(FILE *f, const struct snap *s, const struct status_opts *o)
{
	char name[4 * sizeof s->name], err[4 * sizeof s->err];
	uint32_t shown = 0;

	if (!s->attached) {
		fprintf(f, "instance %s: not running (%s)\n", util_clean(name, sizeof name, s->name),
			util_clean(err, sizeof err, s->err));
		return ferror(f) ? -EIO : 0;
	}
	header(f, s);
	slots(f, s, SHM_T_GPU);
	slots(f, s, SHM_T_SYNTH);
	fprintf(f, "\n");
	if (!s->njobs)
		fprintf(f, "no jobs in the job table\n");
	for (uint32_t i = 0; i < s->njobs; i++)
		if (!o->job || s->jobs[i].v.id == o->job) {
			job(f, &s->jobs[i], o->parts || o->job);
			shown++;
		}
	if (o->job && !shown)
		fprintf(f, "no job %" PRIu64 " in the job table\n", o->job);
	else if (!o->parts && !o->job && s->njobs)
		fprintf(f, "(one line per job: --jobs shows every partition, --job N one job's)\n");
	if (s->jobs_unreadable)
		fprintf(f, "%u job records unreadable\n", s->jobs_unreadable);
	events(f, s);
	return ferror(f) ? -EIO : 0;
}
