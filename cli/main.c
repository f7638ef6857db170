/*
 * provisor: one binary, one subcommand per operator task. The table below
 * is the whole dispatch; each entry (cli/cmd_*.c) parses its own arguments
 * with the helpers here, so that every usage and error line has one form.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/text.h"
#include "util/util.h"

#define PROVISOR_VERSION "0.1.0"

static const struct cli_entry *const cli_table[] = {
	&cli_cmd_run, &cli_cmd_synth, &cli_cmd_setup, &cli_cmd_prove, &cli_cmd_verify,
	&cli_cmd_submit, &cli_cmd_cancel, &cli_cmd_retry, &cli_cmd_drain, &cli_cmd_resume, &cli_cmd_stop,
	&cli_cmd_worker, &cli_cmd_ping, &cli_cmd_status, &cli_cmd_jobs, &cli_cmd_result, &cli_cmd_log,
	&cli_cmd_top, &cli_cmd_exporter, &cli_cmd_params, &cli_cmd_fleet,
};
#define CLI_NCMDS (sizeof cli_table / sizeof cli_table[0])

static const struct cli_entry *cli_find(const char *name)
{
	for (size_t i = 0; i < CLI_NCMDS; i++)
		if (!strcmp(name, cli_table[i]->name))
			return cli_table[i];
	return NULL;
}

static const char *usage_of(const char *cmd)
{
	const struct cli_entry *e = cli_find(cmd);

	return e ? e->usage : cmd;
}

int cli_getopt(int argc, char **argv)
{
	const struct cli_entry *e = cli_find(argv[0]);

	return e ? getopt_long(argc, argv, e->optstring, e->options, NULL) : -1;
}

int cli_help(const char *cmd)
{
	const struct cli_entry *e = cli_find(cmd);

	printf("usage: provisor %s\n", usage_of(cmd));
	if (e && e->help)
		printf("\n%s", e->help);
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[512], shown[600];
	va_list ap;

	/* the message quotes what the operator typed: cleaned (util/text.h) */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "provisor %s: %s (usage: provisor %s)\n", cmd, util_clean(shown, sizeof shown, msg),
		usage_of(cmd));
	return 2;
}

int cli_bad_option(int opt, char **argv)
{
	const struct cli_entry *e = cli_find(argv[0]);
	const struct option *opts = e ? e->options : NULL;
	const char *word = argv[optind - 1];

	if (opt == ':')		/* only at the end of argv: word is the option */
		return cli_usage_error(argv[0], "option %s needs a value", word);
	/* "--name=VALUE" for an option without one: getopt_long gives '?' with
	 * optopt set to that option's value */
	size_t len = strcspn(word, "=");
	for (const struct option *o = opts; opts && optopt && o->name; o++)
		if (o->val == optopt && word[len] && !strncmp(word, "--", 2) &&
		    !strncmp(word + 2, o->name, len - 2))
			return cli_usage_error(argv[0], "option --%s takes no value", o->name);
	/* an unknown short option may be inside a cluster ("-xq"): not word */
	if (optopt)
		return cli_usage_error(argv[0], "unknown option '-%c'", optopt);
	return cli_usage_error(argv[0], "unknown option '%s'", word);
}

int cli_extra_arg(char **argv)
{
	return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
}

int cli_parse_int(const char *s, long lo, long hi, long *n)
{
	uint64_t v;

	if (util_num(s, UTIL_NUM_STRTOL, (uint64_t)lo, (uint64_t)hi, &v))
		return -1;
	*n = (long)v;
	return 0;
}

static void cli_usage(FILE *f)
{
	fprintf(f, "usage: provisor COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < CLI_NCMDS; i++)
		fprintf(f, "  provisor %s\n", cli_table[i]->usage);
	fprintf(f, "  provisor version\n\n'provisor COMMAND --help' says what a command does, with its options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		cli_usage(stdout);
		return 0;
	}
	if (!strcmp(name, "version") || !strcmp(name, "--version")) {
		printf("provisor %s\n", PROVISOR_VERSION);
		return 0;
	}
	const struct cli_entry *e = cli_find(name);
	if (e)
		return e->exec(argc - 1, argv + 1);
	fprintf(stderr, "provisor: unknown command '%s' (try provisor --help)\n", name);
	return 2;
}
