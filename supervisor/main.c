/*
 * provisor: one binary, one subcommand per operator task. The table below
 * is the whole dispatch; each command parses its own arguments.
 */
#include <stdio.h>
#include <string.h>

#include "supervisor/cmds.h"

#define PROVISOR_VERSION "0.1.0"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct cmd cmds[] = {
	{ "run", cmd_run, "run [--config FILE] [--name NAME] [--state-dir DIR] [--gpus N|auto] [--workers-per-gpu K] [--synth N] [--backend auto|cuda|cpu]" },
	{ "synth", cmd_synth, "synth --seed HEX --partition I --log-size K -o FILE" },
	{ "prove", cmd_prove, "prove -i FILE -o FILE [--backend auto|cuda|cpu] [--device N]" },
	{ "verify", cmd_verify, "verify FILE..." },
	{ "submit", cmd_submit, "submit --kind KIND [--seed HEX] [--log-size K] [--partitions N] [--wait] "
				"[--name NAME] [--socket PATH]" },
	{ "cancel", cmd_cancel, "cancel JOB [--name NAME] [--socket PATH]" },
	{ "drain", cmd_drain, "drain [--name NAME] [--socket PATH]" },
	{ "stop", cmd_stop, "stop [--name NAME] [--socket PATH]" },
	{ "worker", cmd_worker, "worker enable|disable gpu.N|synth.N [--name NAME] [--socket PATH]" },
	{ "ping", cmd_ping, "ping [--name NAME] [--socket PATH]" },
	{ "status", cmd_status, "status [--name NAME] [--json] [--prometheus]" },
	{ "top", cmd_top, "top [--name NAME] [-d TENTHS] [--once] [--no-color] [--ascii]" },
	{ "exporter", cmd_exporter, "exporter --listen ADDR:PORT [--name NAME]" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: provisor COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(f, "  provisor %s\n", cmds[i].usage);
	fprintf(f, "  provisor version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "version") || !strcmp(name, "--version")) {
		printf("provisor %s\n", PROVISOR_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "provisor: unknown command '%s' (try provisor --help)\n", name);
	return 2;
}
