/*
 * provisor: one binary, one subcommand per operator task. The table below
 * is the whole dispatch; each command parses its own arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
	{ "top", cmd_top, "top [--name NAME] [-d TENTHS] [--once] [--width N] [--no-color] [--ascii]" },
	{ "exporter", cmd_exporter, "exporter --listen ADDR:PORT [--name NAME]" },
};

static const char *usage_of(const char *cmd)
{
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(cmd, cmds[i].name))
			return cmds[i].usage;
	return cmd;
}

int cmd_help(const char *cmd)
{
	printf("usage: provisor %s\n", usage_of(cmd));
	return 0;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "provisor %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (usage: provisor %s)\n", usage_of(cmd));
	return 2;
}

int cmd_bad_option(int opt, char **argv, const struct option *opts)
{
	const char *word = argv[optind - 1];

	if (opt == ':')		/* only at the end of argv: word is the option */
		return cmd_usage_error(argv[0], "option %s needs a value", word);
	/* "--name=VALUE" for an option without one: getopt_long gives '?' with
	 * optopt set to that option's value */
	size_t len = strcspn(word, "=");
	for (const struct option *o = opts; optopt && o->name; o++)
		if (o->val == optopt && word[len] && !strncmp(word, "--", 2) &&
		    !strncmp(word + 2, o->name, len - 2))
			return cmd_usage_error(argv[0], "option --%s takes no value", o->name);
	/* an unknown short option may be inside a cluster ("-xq"): not word */
	if (optopt)
		return cmd_usage_error(argv[0], "unknown option '-%c'", optopt);
	return cmd_usage_error(argv[0], "unknown option '%s'", word);
}

int cmd_extra_arg(char **argv)
{
	return cmd_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
}

int cmd_parse_int(const char *s, long lo, long hi, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	return errno || !*s || *end || *n < lo || *n > hi ? -1 : 0;
}

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
