/*
 * cli: the provisor binary's commands. Each cli/cmd_*.c holds one const
 * struct cli_entry per command (tmux's cmd_entry): its name, its usage
 * line and the function that parses its arguments and runs it; main.c's
 * table lists them, and is the whole dispatch. The libraries never include
 * this folder: a command is argument parsing around a library call.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <getopt.h>

struct cli_entry {
	const char *name;
	const char *usage;	/* after "provisor ", for --help and every error */
	/* What cli_getopt parses: getopt_long's table, and its optstring
	 * (starting with ':', so that cli_bad_option words every error). */
	const struct option *options;
	const char *optstring;
	/* The arguments after "provisor" (argv[0] is the name); returns the
	 * exit status. */
	int (*exec)(int argc, char **argv);
};

extern const struct cli_entry cli_cmd_run;	/* cli/cmd_run.c */
extern const struct cli_entry cli_cmd_synth;	/* cli/cmd_synth.c */
extern const struct cli_entry cli_cmd_prove;	/* cli/cmd_prove.c */
extern const struct cli_entry cli_cmd_verify;	/* cli/cmd_verify.c */
extern const struct cli_entry cli_cmd_setup;	/* cli/cmd_setup.c */
extern const struct cli_entry cli_cmd_submit;	/* cli/cmd_ctl.c */
extern const struct cli_entry cli_cmd_cancel;
extern const struct cli_entry cli_cmd_retry;
extern const struct cli_entry cli_cmd_drain;
extern const struct cli_entry cli_cmd_stop;
extern const struct cli_entry cli_cmd_worker;
extern const struct cli_entry cli_cmd_ping;
extern const struct cli_entry cli_cmd_status;	/* cli/cmd_status.c */
extern const struct cli_entry cli_cmd_top;	/* cli/cmd_top.c */
extern const struct cli_entry cli_cmd_exporter;	/* cli/cmd_exporter.c */

/*
 * Usage, from the entries (cli/main.c). Every command says what was wrong
 * with its arguments in one line on stderr, "provisor CMD: WHAT (usage:
 * provisor CMD ...)", and exits 2.
 */
int cli_help(const char *cmd);	/* the usage line on stdout; returns 0 */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* returns 2 */
/* getopt_long over argv with the options of the entry named argv[0]
 * (the caller sets opterr 0 and resets optind, as getopt(3) asks). */
int cli_getopt(int argc, char **argv);
/* The error for what cli_getopt returned when it was not one of the
 * command's options: ':' an option without its value, '?' an unknown
 * option or a value given to one that takes none. Returns 2. */
int cli_bad_option(int opt, char **argv);
/* The error for argv[optind], an argument the command does not take. */
int cli_extra_arg(char **argv);
/* n in lo..hi (lo >= 0) from all of s, decimal as strtol(3) reads it
 * (util_num's UTIL_NUM_STRTOL): 0, or -1 when it is not. */
int cli_parse_int(const char *s, long lo, long hi, long *n);

#endif
