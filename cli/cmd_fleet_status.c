/*
 * cmd_fleet_status: `provisor status --fleet DSN [--json|--prometheus]`,
 * every node of a fleet and its queue per kind, from the database
 * (fleet_admin_status: the statements top --fleet sends too). Text for
 * people, JSON for programs, gauges in the Prometheus text format for a
 * scraper (a textfile collector, a cron job). Text the database holds is
 * cleaned (text), escaped (JSON) or both (a label): any program with SQL
 * access could have written it.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fleet/fleet.h"
#include "tui/status.h"
#include "util/text.h"
#include "util/vocab.h"

static void cmd_fleet_status_json(const struct fleet_status *st)
{
	printf("{\"nodes\":[");
	for (size_t i = 0; i < st->nnodes; i++) {
		const struct fleet_node_row *n = &st->nodes[i];
		printf("%s{\"name\":", i ? "," : "");
		cmd_fleet_jstr(n->name);
		printf(",\"host\":");
		cmd_fleet_jstr(n->host);
		printf(",\"state\":\"%s\",\"seen_s\":%.3f,\"backend\":", n->state, n->age_s);
		cmd_fleet_jstr(n->backend);
		printf(",\"gpu\":{\"busy\":%d,\"total\":%d},\"synth\":{\"busy\":%d,\"total\":%d},\"held\":%d,"
		       "\"max_jobs\":%d,\"running\":%lld,\"local_jobs\":%d,\"done\":%lld,\"loop_max_us\":%lld,"
		       "\"kinds\":", n->gpu_busy, n->gpu_slots, n->synth_busy, n->synth_slots, n->held, n->max_jobs,
		       n->running, n->local_jobs, n->done, n->loop_max_us);
		cmd_fleet_jstr(n->kinds);
		printf("}");
	}
	printf("],\"queue\":[");
	for (size_t i = 0; i < st->nkinds; i++) {
		printf("%s{\"kind\":", i ? "," : "");
		cmd_fleet_jstr(st->kinds[i].kind);
		printf(",\"queued\":%lld,\"running\":%lld,\"done\":%lld,\"failed\":%lld}", st->kinds[i].queued,
		       st->kinds[i].running, st->kinds[i].done, st->kinds[i].failed);
	}
	printf("],\"expired\":%lld}\n", st->expired);
}

static void cmd_fleet_status_text(const struct fleet_status *st)
{
	long long q = 0, r = 0, d = 0, f = 0;
	size_t alive = 0;

	for (size_t i = 0; i < st->nkinds; i++) {
		q += st->kinds[i].queued;
		r += st->kinds[i].running;
		d += st->kinds[i].done;
		f += st->kinds[i].failed;
	}
	for (size_t i = 0; i < st->nnodes; i++)
		alive += !strcmp(st->nodes[i].state, "alive");
	printf("fleet: %zu node%s (%zu alive); jobs: %lld queued, %lld running (%lld of them on an expired "
	       "lease), %lld done, %lld failed\n", st->nnodes, st->nnodes == 1 ? "" : "s", alive, q, r, st->expired,
	       d, f);
	printf("%-24s %-8s %7s %6s %6s %8s %6s %7s %9s\n", "node", "state", "seen", "gpu", "synth", "jobs", "local",
	       "done", "loop max");
	for (size_t i = 0; i < st->nnodes; i++) {
		const struct fleet_node_row *n = &st->nodes[i];
		char gpu[16], synth[16], jobs[24];
		snprintf(gpu, sizeof gpu, "%d/%d", n->gpu_busy, n->gpu_slots);
		snprintf(synth, sizeof synth, "%d/%d", n->synth_busy, n->synth_slots);
		snprintf(jobs, sizeof jobs, "%lld/%d", n->running, n->max_jobs);
		char name[64];
		printf("%-24s %-8s %6.1fs %6s %6s %8s %6d %7lld %7.1fms\n", util_clean(name, sizeof name, n->name),
		       n->state, n->age_s, gpu, synth, jobs, n->local_jobs, n->done, (double)n->loop_max_us / 1000);
	}
	for (size_t i = 0; i < st->nkinds; i++)
		printf("queue %-13s %lld queued, %lld running, %lld done, %lld failed\n", st->kinds[i].kind,
		       st->kinds[i].queued, st->kinds[i].running, st->kinds[i].done, st->kinds[i].failed);
}

static void cmd_fleet_head(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* One gauge per node: what get() says of it. */
static void cmd_fleet_per_node(const struct fleet_status *st, const char *name, const char *help,
			       double (*get)(const struct fleet_node_row *))
{
	char lab[4 * 128 + 8];

	cmd_fleet_head(name, help);
	for (size_t i = 0; i < st->nnodes; i++)
		printf("%s{node=\"%s\"} %.17g\n", name, status_prom_label(lab, sizeof lab, st->nodes[i].name),
		       get(&st->nodes[i]));
}

static double cmd_fleet_age(const struct fleet_node_row *n) { return n->age_s; }
static double cmd_fleet_gpu(const struct fleet_node_row *n) { return n->gpu_slots; }
static double cmd_fleet_gpu_busy(const struct fleet_node_row *n) { return n->gpu_busy; }
static double cmd_fleet_synth(const struct fleet_node_row *n) { return n->synth_slots; }
static double cmd_fleet_synth_busy(const struct fleet_node_row *n) { return n->synth_busy; }
static double cmd_fleet_held(const struct fleet_node_row *n) { return (double)n->running; }
static double cmd_fleet_max(const struct fleet_node_row *n) { return n->max_jobs; }
static double cmd_fleet_local(const struct fleet_node_row *n) { return n->local_jobs; }
static double cmd_fleet_done(const struct fleet_node_row *n) { return (double)n->done; }

/* The fleet's gauges (docs/metrics.md, "A fleet"): every figure is the
 * database's now, so all are gauges (a node's results stored could go
 * down if rows were deleted by hand). */
static void cmd_fleet_status_prom(const struct fleet_status *st)
{
	static const char *const states[] = { "alive", "stale", "dead", "stopping" };
	struct fleet_kind_row k[VOCAB_NKINDS + 8];
	size_t nk = fleet_status_by_kind(st, k, sizeof k / sizeof k[0]);
	char lab[4 * 128 + 8];

	cmd_fleet_head("provisor_fleet_nodes",
		       "Nodes of the fleet by state: alive (a heartbeat within two intervals), stale (within its "
		       "lease), dead, stopping; by the database's clock.");
	for (size_t s = 0; s < 4; s++) {
		int n = 0;
		for (size_t i = 0; i < st->nnodes; i++)
			n += !strcmp(st->nodes[i].state, states[s]);
		printf("provisor_fleet_nodes{state=\"%s\"} %d\n", states[s], n);
	}
	cmd_fleet_head("provisor_fleet_node_state", "1 for the state the node is in, 0 for the others.");
	for (size_t i = 0; i < st->nnodes; i++)
		for (size_t s = 0; s < 4; s++)
			printf("provisor_fleet_node_state{node=\"%s\",state=\"%s\"} %d\n",
			       status_prom_label(lab, sizeof lab, st->nodes[i].name), states[s],
			       !strcmp(st->nodes[i].state, states[s]));
	cmd_fleet_per_node(st, "provisor_fleet_node_heartbeat_age_seconds",
			   "Seconds since the node's last heartbeat, by the database's clock.", cmd_fleet_age);
	cmd_fleet_per_node(st, "provisor_fleet_node_gpu_slots", "GPU worker slots of the node.", cmd_fleet_gpu);
	cmd_fleet_per_node(st, "provisor_fleet_node_gpu_slots_busy", "GPU worker slots busy, at its last heartbeat.",
			   cmd_fleet_gpu_busy);
	cmd_fleet_per_node(st, "provisor_fleet_node_synth_slots", "Synth slots of the node.", cmd_fleet_synth);
	cmd_fleet_per_node(st, "provisor_fleet_node_synth_slots_busy", "Synth slots busy, at its last heartbeat.",
			   cmd_fleet_synth_busy);
	cmd_fleet_per_node(st, "provisor_fleet_node_jobs_held",
			   "Fleet jobs the node holds a lease on (running, owned by it in the database).", cmd_fleet_held);
	cmd_fleet_per_node(st, "provisor_fleet_node_max_jobs", "Fleet jobs the node holds at most at once.",
			   cmd_fleet_max);
	cmd_fleet_per_node(st, "provisor_fleet_node_local_jobs",
			   "Jobs active in the node's own queue (fleet jobs and local ones), at its last heartbeat.",
			   cmd_fleet_local);
	cmd_fleet_per_node(st, "provisor_fleet_node_jobs_completed",
			   "Jobs the node completed: the results the database holds from it.", cmd_fleet_done);
	cmd_fleet_head("provisor_fleet_queue_depth", "Jobs queued (waiting for a node to claim them), by kind.");
	for (size_t i = 0; i < nk; i++)
		printf("provisor_fleet_queue_depth{kind=\"%s\"} %lld\n", status_prom_label(lab, sizeof lab, k[i].kind),
		       k[i].queued);
	cmd_fleet_head("provisor_fleet_jobs", "Jobs in the fleet's queue by kind and state (queued, running, done, "
		       "failed).");
	for (size_t i = 0; i < nk; i++) {
		const long long v[4] = { k[i].queued, k[i].running, k[i].done, k[i].failed };
		static const char *const js[4] = { "queued", "running", "done", "failed" };
		status_prom_label(lab, sizeof lab, k[i].kind);
		for (int s = 0; s < 4; s++)
			printf("provisor_fleet_jobs{kind=\"%s\",state=\"%s\"} %lld\n", lab, js[s], v[s]);
	}
	cmd_fleet_head("provisor_fleet_jobs_lease_expired",
		       "Running jobs whose lease has expired (their node died or was cut off): another node takes them.");
	printf("provisor_fleet_jobs_lease_expired %lld\n", st->expired);
}

int cmd_fleet_status(const char *dsn, int format)
{
	struct fleet_status st;
	char err[400], shown[400];
	PGconn *c;

	if (!(c = cmd_fleet_connect("status", dsn)))
		return 1;
	if (fleet_admin_status(c, &st, err, sizeof err) < 0) {
		fprintf(stderr, "provisor status: %s\n", util_clean(shown, sizeof shown, err));
		PQfinish(c);
		return 1;
	}
	PQfinish(c);
	if (format == CMD_FLEET_JSON)
		cmd_fleet_status_json(&st);
	else if (format == CMD_FLEET_PROM)
		cmd_fleet_status_prom(&st);
	else
		cmd_fleet_status_text(&st);
	fleet_status_free(&st);
	return fflush(stdout) ? 1 : 0;
}
