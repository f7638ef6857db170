/*
 * cmd_run: `provisor run`'s configuration: defaults, then the file
 * (--config), then the flags, checked as a whole; then the supervisor
 * (supervisor/run.c) runs on it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "conf/conf.h"
#include "shm/shm.h"
#include "supervisor/run.h"
#include "util/text.h"
#include "util/vocab.h"

static int cmd_run_count(const char *opt, const char *v, int lo, int hi, int *out)
{
	long n;

	if (cli_parse_int(v, lo, hi, &n) < 0) {
		fprintf(stderr, "provisor run: %s: '%s' is not a number in %d..%d\n", opt, v, lo, hi);
		return -1;
	}
	*out = (int)n;
	return 0;
}

static const struct option cmd_run_options[] = {
	{ "config", required_argument, NULL, 'c' }, { "name", required_argument, NULL, 'n' },
	{ "state-dir", required_argument, NULL, 'd' }, { "gpus", required_argument, NULL, 'g' },
	{ "workers-per-gpu", required_argument, NULL, 'w' },
	{ "synth", required_argument, NULL, 's' }, { "backend", required_argument, NULL, 'b' },
	{ "fleet", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

/* Defaults, then the file, then the flags. */
static int cmd_run_configure(struct conf *c, int argc, char **argv)
{
	const char *config = NULL;
	char err[512];
	int o;

	opterr = 0;	/* our own one-line messages, not getopt's */
	optind = 1;
	while ((o = cli_getopt(argc, argv)) != -1)
		if (o == 'c')
			config = optarg;
		else if (o == 'h')
			exit(cli_help("run"));
		else if (o == '?' || o == ':') {
			cli_bad_option(o, argv);
			return -1;
		}
	if (optind < argc) {
		cli_extra_arg(argv);
		return -1;
	}
	conf_defaults(c);
	if (config && conf_load(c, config, err, sizeof err) < 0) {
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	optind = 1;
	while ((o = cli_getopt(argc, argv)) != -1) {
		char shown[64];
		switch (o) {
		case 'n':
			if (shm_name_check(optarg, err, sizeof err) < 0) {
				fprintf(stderr, "provisor run: --name: %s\n", err);
				return -1;
			}
			snprintf(c->name, sizeof c->name, "%s", optarg);
			break;
		case 'd': snprintf(c->state_dir, sizeof c->state_dir, "%s", optarg); break;
		case 'g':
			if (!strcmp(optarg, "auto"))
				c->gpus = -1;
			else if (cmd_run_count("--gpus", optarg, 1, 256, &c->gpus) < 0)
				return -1;
			break;
		case 'w':
			if (cmd_run_count("--workers-per-gpu", optarg, 1, 16, &c->workers_per_gpu) < 0)
				return -1;
			break;
		case 's':
			if (cmd_run_count("--synth", optarg, 1, 128, &c->synth) < 0)
				return -1;
			break;
		case 'F':
			if (conf_fleet_set_dsn(c, optarg) < 0) {
				fprintf(stderr, "provisor run: --fleet: a DSN of 1 to %d bytes, not '%s'\n",
					CONF_FLEET_DSN_MAX - 1, util_clean(shown, sizeof shown, optarg));
				return -1;
			}
			break;
		case 'b':
			if (conf_parse_backend(c, optarg) < 0) {
				fprintf(stderr, "provisor run: --backend: '%s' is not auto, cuda, cpu or "
					"plugin:/absolute/path.so\n", util_clean(shown, sizeof shown, optarg));
				return -1;
			}
			break;
		}
	}
	if (conf_check(c, err, sizeof err) < 0) {	/* the flags may have broken it */
		fprintf(stderr, "provisor run: %s\n", err);
		return -1;
	}
	conf_finish(c);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct conf c;

	if (cmd_run_configure(&c, argc, argv) < 0)
		return 2;
	return sup_main(&c);
}

const struct cli_entry cli_cmd_run = {
	.name = "run",
	.usage = "run [--config FILE] [--name NAME] [--state-dir DIR] [--gpus N|auto] [--workers-per-gpu K] "
		  "[--synth N] [--backend auto|cuda|cpu|plugin:PATH] [--fleet DSN]",
	.help = "Run the supervisor in the foreground until provisor stop, SIGTERM or\n"
		"SIGINT. The configuration: built-in defaults, then --config FILE, then\n"
		"these options, each overriding the one before.\n"
		"  --config FILE           the configuration file, provisor.conf(5) (default: none)\n"
		"  --name NAME             the instance (default: default, or the file's name)\n"
		"  --state-dir DIR         the state directory (default: see below)\n"
		"  --gpus N|auto           GPUs to run workers for, 1 to 256, or auto (default):\n"
		"                          those CUDA sees; none: workers-per-gpu CPU slots\n"
		"  --workers-per-gpu K     GPU worker processes per GPU, 1 to 16 (default 2)\n"
		"  --synth N               synthesis workers, 1 to 128 (default 2)\n"
		"  --backend auto|cuda|cpu where GPU workers compute: cuda, cpu, or auto (default):\n"
		"                          the GPU where there is one. cuda without a device:\n"
		"                          the GPU slots are disabled and the state is degraded\n"
		"  --backend plugin:PATH   a backend library (docs/backend-abi.md), PATH absolute\n"
		"  --fleet DSN             also run as a node of the fleet whose queue is in the\n"
		"                          database DSN ([fleet] dsn; docs/fleet.md): claim its\n"
		"                          jobs, report their results (a password belongs in\n"
		"                          ~/.pgpass, not on a command line)\n"
		"It logs to standard error and, outside systemd's journal, to STATE/log\n"
		"(8 MiB, then STATE/log.1): provisor log prints it.\n"
		CLI_HELP_STATE,
	.options = cmd_run_options,
	.optstring = ":c:n:d:g:w:s:b:F:h",
	.exec = cmd_run,
};
