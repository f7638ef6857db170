/*
 * provisor status --json, status --prometheus and top --once, each parsed
 * and checked against the records the fake writer wrote and against each
 * other, from one frozen moment: the writer animates jobs (with failures,
 * crashes and restarts) in this process until it has made over 100 loop
 * iterations with a slow one, a done job and a failed partition, and a
 * worker has been restarted (however long that takes), then stops and only
 * beats (a child process beats the heartbeat every 20 ms, so that no
 * command, however slow, finds the writer silent), and the three
 * commands read the same records. Also: exit codes for a running instance
 * and for no instance; the fleet block, absent while the writer is not a
 * fleet node and then the same, field by field, in all three views.
 */
#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "tests/tui/fake.h"
#include "util/vocab.h"

static struct fake f;
static char name[40], prov[512];
static pid_t beater;	/* the child that beats the frozen writer's heartbeat */

static void stop_beater(void)
{
	if (beater > 0) {
		kill(beater, SIGKILL);
		waitpid(beater, NULL, 0);
		beater = 0;
	}
}

static void cleanup(void)
{
	stop_beater();
	if (f.seg.base)
		fake_destroy(&f);
}

/* Far enough: what the checks below need from the animation. */
static int animated(void)
{
	int restarted = 0;

	for (uint32_t i = 0; i < f.ngpu && !restarted; i++) {
		struct shm_slot v;

		restarted = shm_read_slot(&f.seg, SHM_T_GPU, i, &v) == 0 && v.restarts > 0;
	}
	return f.sup.loop_iterations > 200 && f.sup.loop_slow_count > 0 && f.sup.parts_done > 0 &&
	       f.sup.parts_failed > 0 && f.sup.jobs_done > 0 && restarted;
}

/* Run provisor with args; its stdout into a malloc'd string; exit code in *rc. */
static char *run(const char *args, int *rc)
{
	char cmd[1024];

	if (f.seg.base)
		shm_heartbeat(&f.seg);
	snprintf(cmd, sizeof cmd, "%s %s", prov, args);
	return t_capture(cmd, rc);
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;
	CHECK(json_object_object_get_ex(o, k, &v), "no key %s", k);
	return v;
}

/* The value of one Prometheus sample "name{labels} value" (labels exact). */
static double prom(const char *text, const char *series)
{
	size_t n = strlen(series);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	T_FAIL("no sample %s", series);
}

static void check_slot(json_object *js, const char *promtxt, const char *once, uint32_t t, uint32_t i)
{
	struct shm_slot v;
	char slot[24], series[160], lab[64];
	int busy;

	CHECK(shm_read_slot(&f.seg, t, i, &v) == 0, "read slot");
	busy = v.state == SHM_SLOT_BUSY;
	snprintf(slot, sizeof slot, "%s.%u", t == SHM_T_GPU ? "gpu" : "synth", i);
	if (t == SHM_T_GPU)
		snprintf(lab, sizeof lab, "slot=\"%s\",gpu=\"%u\"", slot, v.gpu);
	else
		snprintf(lab, sizeof lab, "slot=\"%s\"", slot);
	/* JSON */
	CHECK(!strcmp(json_object_get_string(get(js, "slot")), slot), "slot name");
	CHECK(!strcmp(json_object_get_string(get(js, "state")), shm_slot_state_name(v.state)),
	      "%s state %s, wrote %s", slot, json_object_get_string(get(js, "state")), shm_slot_state_name(v.state));
	CHECK_EQ_U64(json_object_get_uint64(get(js, "generation")), v.gen);
	CHECK_EQ_U64(json_object_get_uint64(get(js, "done")), v.done);
	CHECK_EQ_U64(json_object_get_uint64(get(js, "failed")), v.failed);
	CHECK_EQ_U64(json_object_get_uint64(get(js, "restarts")), v.restarts);
	if (busy) {
		CHECK_EQ_U64(json_object_get_uint64(get(js, "job")), v.job_id);
		CHECK_EQ_U64(json_object_get_uint64(get(js, "partition")), v.partition);
	} else
		CHECK(get(js, "job") == NULL, "%s idle but has a job", slot);
	/* Prometheus */
	snprintf(series, sizeof series, "provisor_worker_partitions_done_total{%s}", lab);
	CHECK_EQ_U64(prom(promtxt, series), v.done);
	snprintf(series, sizeof series, "provisor_worker_restarts_total{%s}", lab);
	CHECK_EQ_U64(prom(promtxt, series), v.restarts);
	snprintf(series, sizeof series, "provisor_worker_state{%s,state=\"%s\"}", lab, shm_slot_state_name(v.state));
	CHECK(prom(promtxt, series) == 1, "%s not one-hot", series);
	snprintf(series, sizeof series, "provisor_worker_busy_seconds_total{%s}", lab);
	double ps = prom(promtxt, series), js_s = json_object_get_double(get(js, "busy_seconds"));
	CHECK(busy ? fabs(ps - js_s) < 5 : fabs(ps - js_s) < 1e-5, "%s busy seconds %f vs %f", slot, ps, js_s);
	if (busy) {
		snprintf(series, sizeof series, "provisor_worker_job_id{%s}", lab);
		CHECK_EQ_U64(prom(promtxt, series), v.job_id);
	}
	/* top --once: "SLOT GPU# PID STATE JOB KIND PART TIME UTIL DONE FAIL RST GEN EXIT" */
	char pat[32], st[16], job[24], kind[24], part[16], tm[16], util[16], pid[16], gpu[16];
	unsigned long long done, failed, rst, gen;
	snprintf(pat, sizeof pat, "\n%s ", slot);
	const char *row = strstr(once, pat);
	CHECK(row, "top --once has no row for %s", slot);
	if (t == SHM_T_GPU)
		CHECK(sscanf(row + 1, "%*s %15s %15s %15s %23s %23s %15s %15s %15s %llu %llu %llu %llu",
			     gpu, pid, st, job, kind, part, tm, util, &done, &failed, &rst, &gen) == 12,
		      "cannot parse top row of %s", slot);
	else
		CHECK(sscanf(row + 1, "%*s %15s %15s %23s %23s %15s %15s %15s %llu %llu %llu %llu",
			     pid, st, job, kind, part, tm, util, &done, &failed, &rst, &gen) == 11,
		      "cannot parse top row of %s", slot);
	CHECK(!strcmp(st, shm_slot_state_name(v.state)), "top: %s state %s", slot, st);
	CHECK_EQ_U64(done, v.done);
	CHECK_EQ_U64(failed, v.failed);
	CHECK_EQ_U64(rst, v.restarts);
	CHECK_EQ_U64(gen, v.gen);
	if (busy) {
		CHECK_EQ_U64(strtoull(job, NULL, 10), v.job_id);
		CHECK_EQ_U64(strtoull(part, NULL, 10), v.partition);
	} else
		CHECK(!strcmp(job, "-") && !strcmp(part, "-"), "top: idle %s shows job %s", slot, job);
}

static void check_jobs(json_object *root)
{
	json_object *jobs = get(root, "jobs");
	size_t n = 0, k = json_object_array_length(jobs);

	for (uint32_t e = 0; e < FAKE_TABLE_JOBS; e++)
		n += f.job[e].id != 0;
	CHECK_EQ_U64(k, n);
	for (size_t i = 0; i < k; i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *parts = get(j, "parts");
		uint64_t id = json_object_get_uint64(get(j, "id"));
		const struct shm_job *w = NULL;
		for (uint32_t e = 0; e < FAKE_TABLE_JOBS; e++)
			if (f.job[e].id == id)
				w = &f.job[e];
		CHECK(w, "job %llu not written", (unsigned long long)id);
		CHECK_EQ_U64(json_object_array_length(parts), w->nparts);
		for (uint32_t p = 0; p < w->nparts; p++) {
			json_object *pj = json_object_array_get_idx(parts, p);
			static const char *const names[] = { "queued", "synthesizing", "ready", "proving", "done", "failed" };
			CHECK(!strcmp(json_object_get_string(get(pj, "state")), names[w->part[p].state]),
			      "job %llu part %u", (unsigned long long)id, p);
			CHECK_EQ_U64(json_object_get_uint64(get(pj, "attempts")), w->part[p].attempts);
		}
	}
}

/* The supervisor loop's figures, the same in the four views. */
static void check_loop(json_object *sup, const char *pr, const char *once, const char *txt)
{
	const struct shm_sup *v = &f.sup;
	json_object *lp = get(sup, "loop"), *last = get(lp, "last_slow");
	double cum = 0;
	char want[160];

	CHECK(v->loop_iterations > 100 && v->loop_slow_count > 0, "the writer made %llu iterations",
	      (unsigned long long)v->loop_iterations);
	CHECK_EQ_U64(json_object_get_uint64(get(lp, "iterations")), v->loop_iterations);
	CHECK_EQ_U64(json_object_get_uint64(get(lp, "slow_iterations")), v->loop_slow_count);
	CHECK(fabs(json_object_get_double(get(lp, "p99_seconds")) - v->loop_p99_ns / 1e9) < 1e-6, "p99");
	CHECK(fabs(json_object_get_double(get(lp, "p50_seconds")) - v->loop_p50_ns / 1e9) < 1e-6, "p50");
	CHECK(fabs(json_object_get_double(get(lp, "max_seconds")) - 0.06) < 1e-6, "max");
	CHECK(last && !strcmp(json_object_get_string(get(last, "what")), "child read") &&
	      fabs(json_object_get_double(get(last, "seconds")) - 0.06) < 1e-6, "last_slow");
	CHECK(json_object_get_double(get(last, "ago_seconds")) >= 0, "ago");
	/* Prometheus: cumulative buckets that end at the count */
	for (unsigned b = 0; b < SHM_LOOP_NBUCKETS - 1; b++) {
		char series[96];
		snprintf(series, sizeof series, "provisor_loop_iteration_seconds_bucket{le=\"%g\"}",
			 shm_loop_le_ns[b] / 1e9);
		cum += v->loop_hist[b];
		CHECK(prom(pr, series) == cum, "%s %f, wanted %f", series, prom(pr, series), cum);
	}
	CHECK_EQ_U64(prom(pr, "provisor_loop_iteration_seconds_bucket{le=\"+Inf\"}"), v->loop_iterations);
	CHECK_EQ_U64(prom(pr, "provisor_loop_iteration_seconds_count"), v->loop_iterations);
	CHECK(fabs(prom(pr, "provisor_loop_iteration_seconds_sum") - v->loop_sum_ns / 1e9) < 1e-6, "sum");
	CHECK(prom(pr, "provisor_loop_iteration_max_seconds") == 0.06, "max");
	CHECK_EQ_U64(prom(pr, "provisor_loop_slow_iterations_total"), v->loop_slow_count);
	CHECK(prom(pr, "provisor_loop_last_slow_iteration_seconds{what=\"child read\"}") == 0.06, "last");
	CHECK(strstr(pr, "# TYPE provisor_loop_iteration_seconds histogram\n"), "TYPE histogram");
	/* top's header and status' line */
	CHECK(strstr(once, "loop p99 ") && strstr(once, " max 60ms"), "top --once has no loop:\n%s", once);
	snprintf(want, sizeof want, "loop: %llu iterations, p50 ", (unsigned long long)v->loop_iterations);
	CHECK(strstr(txt, want) && strstr(txt, "max 60ms; ") && strstr(txt, " over 50ms, the last 60ms in child read "),
	      "status has no loop line:\n%s", txt);
}

/* The fleet block: absent from all three views while the writer is not
 * a fleet node (as it is at first), then, once it publishes one, the
 * same figures in all three, to the unit. */
static void check_fleet(const char *js, const char *pr, const char *txt)
{
	json_object *root = json_tokener_parse(js), *v;
	char args[128], *j2, *p2, *t2;
	int rc;

	CHECK(root && !json_object_object_get_ex(root, "fleet", &v), "not a fleet node, and --json has fleet");
	json_object_put(root);
	CHECK(!strstr(pr, "provisor_fleet_"), "not a fleet node, and --prometheus has provisor_fleet_");
	CHECK(!strstr(txt, "\nfleet: "), "not a fleet node, and the text has a fleet line");

	f.sup.fleet = (struct shm_fleet){ .db_state = SHM_FLEET_UNREACHABLE, .registered = 1, .leases_held = 3,
					  .unreported = 2, .max_jobs = 4, .reconnects = 5, .claimed = 17, .completed = 11,
					  .refused = 1, .leases_lost = 2, .beat_wall_ns = 1700000000123000000ull,
					  .beat_mono_ns = t_now_ns() - 4000000000ull,
					  .down_mono_ns = t_now_ns() - 3000000000ull };
	snprintf(f.sup.fleet.node, sizeof f.sup.fleet.node, "rig7.\x1b[2Jnode");
	shm_write_sup(&f.seg, &f.sup);
	snprintf(args, sizeof args, "status --name %s --json", name);
	j2 = run(args, &rc);
	snprintf(args, sizeof args, "status --name %s --prometheus", name);
	p2 = run(args, &rc);
	snprintf(args, sizeof args, "status --name %s", name);
	t2 = run(args, &rc);
	root = json_tokener_parse(j2);
	CHECK(root, "status --json is not JSON:\n%s", j2);
	json_object *fl = get(root, "fleet");
	CHECK(!strcmp(json_object_get_string(get(fl, "node")), "rig7.\x1b[2Jnode"), "fleet.node");
	CHECK(!strcmp(json_object_get_string(get(fl, "database")), "unreachable"), "fleet.database");
	CHECK(json_object_get_boolean(get(fl, "registered")), "fleet.registered");
	double down = json_object_get_double(get(fl, "unreachable_seconds"));
	double age = json_object_get_double(get(fl, "last_heartbeat_age_seconds"));
	CHECK(down >= 3 && down < 3 + 60.0 * t_slow() && age >= 4 && age < 4 + 60.0 * t_slow(),
	      "fleet: unreachable for %g s, heartbeat %g s ago", down, age);
	CHECK(fabs(json_object_get_double(get(fl, "last_heartbeat_wall_seconds")) - 1700000000.123) < 1e-3,
	      "fleet.last_heartbeat_wall_seconds");
	static const struct { const char *json, *prom; uint64_t want; } n[] = {
		{ "leases_held", "provisor_fleet_leases_held", 3 },
		{ "results_unreported", "provisor_fleet_results_unreported", 2 },
		{ "max_jobs", "provisor_fleet_max_jobs", 4 },
		{ "reconnects", "provisor_fleet_reconnects_total", 5 },
		{ "jobs_claimed", "provisor_fleet_jobs_claimed_total", 17 },
		{ "completions", "provisor_fleet_completions_total", 11 },
		{ "completions_refused", "provisor_fleet_completions_refused_total", 1 },
		{ "leases_lost", "provisor_fleet_leases_lost_total", 2 },
	};
	for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
		CHECK_EQ_U64(json_object_get_uint64(get(fl, n[i].json)), n[i].want);
		CHECK_EQ_U64(prom(p2, n[i].prom), n[i].want);
	}
	CHECK(prom(p2, "provisor_fleet_info{node=\"rig7.\\\\x1b[2Jnode\"}") == 1, "provisor_fleet_info");
	CHECK(prom(p2, "provisor_fleet_database_state{state=\"unreachable\"}") == 1 &&
	      prom(p2, "provisor_fleet_database_state{state=\"connected\"}") == 0, "provisor_fleet_database_state");
	CHECK(prom(p2, "provisor_fleet_registered") == 1, "provisor_fleet_registered");
	CHECK(fabs(prom(p2, "provisor_fleet_last_heartbeat_timestamp_seconds") - 1700000000.123) < 1e-3, "timestamp");
	CHECK(strstr(t2, "\nfleet: node rig7.\\x1b[2Jnode, database unreachable for ") &&
	      strstr(t2, ", registered, last heartbeat ") &&
	      strstr(t2, "; 3 leases held of 4, 2 results awaiting report; 17 claimed, 11 completed, 1 refused (late), "
			 "2 leases lost; 5 reconnects\n"), "the text's fleet line:\n%s", t2);
	json_object_put(root);
	free(j2), free(p2), free(t2);
}

int main(void)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin";
	char err[256], args[128];
	int rc;

	snprintf(prov, sizeof prov, "%s/provisor", bin);
	if (access(prov, X_OK))
		T_SKIP("no %s: build it first", prov);
	snprintf(name, sizeof name, "t-status-%d", (int)getpid());
	CHECK(fake_create(&f, name, 4, 3, err, sizeof err) == 0, "fake_create: %s", err);
	atexit(cleanup);
	f.fail_permille = 50;
	f.crash_every_ns = 300000000;
	f.min_ms = 20, f.max_ms = 120;
	/* Until far enough, at least 1.5 s (a crash every 300 ms, a restart
	 * 1 s after it); the bound of 60 s (scaled) only stops a hang. */
	uint64_t t0 = t_now_ns();
	while (!animated() || t_now_ns() - t0 < 1500000000ull) {
		CHECK(t_now_ns() - t0 < 60000000000ull * t_slow(),
		      "the writer did not get far enough in %u s: %llu iterations, %llu done, "
		      "%llu failed, %llu jobs done", 60 * t_slow(),
		      (unsigned long long)f.sup.loop_iterations, (unsigned long long)f.sup.parts_done,
		      (unsigned long long)f.sup.parts_failed, (unsigned long long)f.sup.jobs_done);
		fake_tick(&f);
		usleep(5000);
	}
	/* Frozen from here on: only the heartbeat moves, beaten by a child
	 * (the segment is shared) while the commands run. */
	beater = fork();
	CHECK(beater >= 0, "fork");
	if (beater == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			shm_heartbeat(&f.seg);
			usleep(20000);
		}
	}
	snprintf(args, sizeof args, "status --name %s --json", name);
	char *js = run(args, &rc);
	CHECK(rc == 0, "status --json exit %d", rc);
	snprintf(args, sizeof args, "status --name %s --prometheus", name);
	char *pr = run(args, &rc);
	CHECK(rc == 0, "status --prometheus exit %d", rc);
	snprintf(args, sizeof args, "top --name %s --once --width 150 -d 1", name);
	char *once = run(args, &rc);
	CHECK(rc == 0, "top --once exit %d", rc);
	snprintf(args, sizeof args, "status --name %s", name);
	char *txt = run(args, &rc);
	CHECK(rc == 0 && strstr(txt, "running"), "status exit %d: %s", rc, txt);

	json_object *root = json_tokener_parse(js);
	CHECK(root, "status --json is not JSON:\n%s", js);
	json_object *sup = get(root, "supervisor");
	CHECK_EQ_U64(json_object_get_uint64(get(sup, "pid")), getpid());
	CHECK(!strcmp(json_object_get_string(get(sup, "health")), "running"), "health");
	CHECK_EQ_U64(json_object_get_uint64(get(sup, "partitions_done")), f.sup.parts_done);
	CHECK_EQ_U64(json_object_get_uint64(get(sup, "partitions_failed")), f.sup.parts_failed);
	CHECK_EQ_U64(json_object_get_uint64(get(sup, "jobs_done")), f.sup.jobs_done);
	CHECK_EQ_U64(prom(pr, "provisor_partitions_done_total"), f.sup.parts_done);
	CHECK_EQ_U64(prom(pr, "provisor_jobs_done_total"), f.sup.jobs_done);
	CHECK_EQ_U64(prom(pr, "provisor_jobs{state=\"running\"}"), f.sup.jobs_running);
	/* Done jobs by kind: the same in all three views, and they add up. */
	uint64_t by_kind = 0;
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		char key[80], shown[40];
		const char *kb = vocab_kind_name(k);
		uint64_t n = f.sup.jobs_done_kind[k - 1];
		CHECK_EQ_U64(json_object_get_uint64(get(get(sup, "jobs_done_by_kind"), kb)), n);
		snprintf(key, sizeof key, "provisor_kind_jobs_done_total{kind=\"%s\"}", kb);
		CHECK_EQ_U64(prom(pr, key), n);
		snprintf(shown, sizeof shown, "%s:%llu", kb, (unsigned long long)n);
		const char *at = strstr(once, shown);
		CHECK(!n || (at && !isdigit((unsigned char)at[strlen(shown)])),
		      "top --once lacks '%s':\n%s", shown, once);
		by_kind += n;
	}
	CHECK(by_kind == f.sup.jobs_done && by_kind > 0, "done by kind add up to %llu, jobs_done %llu",
	      (unsigned long long)by_kind, (unsigned long long)f.sup.jobs_done);
	check_loop(sup, pr, once, txt);
	CHECK(prom(pr, "provisor_supervisor_up") == 1, "up");
	CHECK(strstr(pr, "# TYPE provisor_worker_busy_seconds_total counter\n"), "TYPE line");
	CHECK(f.sup.parts_done > 0 && f.sup.parts_failed > 0, "the writer did not get far enough");
	for (uint32_t i = 0; i < 4; i++)
		check_slot(json_object_array_get_idx(get(root, "gpu_slots"), i), pr, once, SHM_T_GPU, i);
	for (uint32_t i = 0; i < 3; i++)
		check_slot(json_object_array_get_idx(get(root, "synth_slots"), i), pr, once, SHM_T_SYNTH, i);
	check_jobs(root);
	check_fleet(js, pr, txt);
	CHECK_EQ_U64(json_object_get_uint64(get(root, "events_total")), shm_event_head(&f.seg));
	CHECK_EQ_U64(prom(pr, "provisor_events_total"), shm_event_head(&f.seg));
	printf("info: %llu partitions done, %llu failed, %llu events, all three views agree\n",
	       (unsigned long long)f.sup.parts_done, (unsigned long long)f.sup.parts_failed,
	       (unsigned long long)shm_event_head(&f.seg));
	json_object_put(root);
	free(js), free(pr), free(once), free(txt);

	stop_beater();
	fake_destroy(&f);
	f.seg.base = NULL;
	snprintf(args, sizeof args, "status --name %s 2>/dev/null", name);
	free(run(args, &rc));
	CHECK(rc == 1, "status of a missing instance: exit %d", rc);
	snprintf(args, sizeof args, "status --name %s --prometheus 2>/dev/null", name);
	char *down = run(args, &rc);
	CHECK(prom(down, "provisor_supervisor_up") == 0, "up for a missing instance");
	free(down);
	return 0;
}
