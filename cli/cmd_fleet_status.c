/*
 * cmd_fleet_status: `provisor status --fleet DSN [--json]`, every node of
 * a fleet and its queue per kind, from the database (fleet_admin_status:
 * the statements top --fleet sends too). Text for people, JSON for
 * programs. Text the database holds is cleaned (text) or escaped (JSON):
 * any program with SQL access could have written it.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fleet/fleet.h"
#include "util/text.h"

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

int cmd_fleet_status(const char *dsn, int json)
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
	if (json)
		cmd_fleet_status_json(&st);
	else
		cmd_fleet_status_text(&st);
	fleet_status_free(&st);
	return fflush(stdout) ? 1 : 0;
}
