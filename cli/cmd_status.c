/*
 * cmd_status: `provisor status [--name NAME] [--json|--prometheus]
 * [--jobs|--job N]`, or with --fleet DSN every node of a fleet from its
 * database (cli/cmd_fleet_status.c). One snapshot of the status segment, printed (the
 * text: one line per job; --jobs adds every partition, --job N shows
 * one job with its partitions); it never talks to the
 * supervisor, so it answers while the supervisor is hung. Exit 0 when the
 * supervisor is running, 3 when the segment shows it not running or not
 * responding (the data printed is its last), 1 when there is no segment.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/snap.h"
#include "tui/status.h"
#include "util/text.h"

static const struct option cmd_status_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "prometheus", no_argument, NULL, 'p' },
	{ "jobs", no_argument, NULL, 'J' },
	{ "job", required_argument, NULL, 'N' },
	{ "fleet", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_status(int argc, char **argv)
{
	const char *name = "default", *fleet = NULL;
	int json = 0, prom = 0, rc, opt;
	struct status_opts so = { 0 };
	long id;
	struct snap_reader r;
	struct snap s = { 0 };
	char err[256];

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'j': json = 1; break;
		case 'p': prom = 1; break;
		case 'J': so.parts = 1; break;
		case 'N':
			if (cli_parse_int(optarg, 1, INT64_MAX, &id) < 0)
				return cli_usage_error("status", "--job '%s' is not a job id", optarg);
			so.job = (uint64_t)id;
			break;
		case 'F': fleet = optarg; break;
		case 'h': return cli_help("status");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (json && prom)
		return cli_usage_error("status", "--json and --prometheus are two formats: choose one");
	if (fleet && (so.parts || so.job))
		return cli_usage_error("status", "--fleet shows every node: --jobs and --job are for one instance");
	if (fleet)	/* every node, from the fleet's database: cli/cmd_fleet_status.c */
		return cmd_fleet_status(fleet, json ? CMD_FLEET_JSON : prom ? CMD_FLEET_PROM : CMD_FLEET_TEXT);
	if ((json || prom) && (so.parts || so.job))
		return cli_usage_error("status", "--jobs and --job are for the text: %s has every job",
				       json ? "--json" : "--prometheus");
	if (snap_reader_init(&r, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor status: %s\n", err);
		return 2;
	}
	rc = snap_take(&r, &s);
	if (!s.attached)
		snprintf(s.name, sizeof s.name, "%s", name);
	if (rc < 0 && !json && !prom) {
		fprintf(stderr, "provisor status: %s\n", rc == -ENOMEM ? "out of memory" :
			util_clean(err, sizeof err, s.err));
		snap_reader_close(&r);
		return 1;
	}
	rc = json ? status_json(stdout, &s) : prom ? status_prom(stdout, &s) : status_text_opts(stdout, &s, &so);
	if (fflush(stdout) || rc < 0) {
		fprintf(stderr, "provisor status: writing the output: %s\n", strerror(errno));
		rc = 1;
	} else if (!s.attached)
		rc = 1;
	else
		rc = s.health == SHM_HEALTH_RUNNING ? 0 : 3;
	snap_free(&s);
	snap_reader_close(&r);
	return rc;
}

const struct cli_entry cli_cmd_status = {
	.name = "status",
	.usage = "status [--name NAME] [--json|--prometheus] [--jobs|--job N] [--fleet DSN]",
	.help = "Print one snapshot of the instance's status segment: the supervisor,\n"
		"its slots, one line per job, and the recent events. It never talks to\n"
		"the supervisor, so it answers while that is busy or hung.\n"
		"  --json         as JSON (docs/status-json.md), every job with its partitions\n"
		"  --prometheus   as Prometheus text (docs/metrics.md)\n"
		"  --jobs         the text with every job's partitions, one line each\n"
		"  --job N        the text with only job N, with its partitions\n"
		CLI_HELP_NAME CLI_HELP_FLEET
		"                 (every node: alive, stale or dead, slots busy of total,\n"
		"                 its jobs; the queue per kind; --json as one object,\n"
		"                 --prometheus as the fleet's gauges)\n"
		"Exit status: 0 running, 1 no such instance, 2 a bad argument, 3 the\n"
		"supervisor is not running or not responding (its last state is shown).\n",
	.options = cmd_status_options,
	.optstring = ":h",
	.exec = cmd_status,
};
