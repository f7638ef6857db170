/*
 * The subcommands of the provisor binary. Each takes the arguments after
 * its own name (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef SUPERVISOR_CMDS_H
#define SUPERVISOR_CMDS_H

#include <getopt.h>

int cmd_run(int argc, char **argv);	/* supervisor/run.c */
int cmd_synth(int argc, char **argv);	/* synth/cmd_synth.c */
int cmd_prove(int argc, char **argv);	/* gpuworker/cmd_prove.c */
int cmd_verify(int argc, char **argv);	/* verify/cmd_verify.c */
int cmd_submit(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_cancel(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_drain(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_stop(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_worker(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_ping(int argc, char **argv);	/* ctl/cmd_ctl.c */
int cmd_status(int argc, char **argv);	/* tui/cmd_status.c */
int cmd_top(int argc, char **argv);	/* tui/top.c */
int cmd_exporter(int argc, char **argv);	/* tui/exporter.c */

/*
 * Usage, from the one table in supervisor/main.c. Every subcommand says
 * what was wrong with its arguments in one line on stderr, "provisor CMD:
 * WHAT (usage: provisor CMD ...)", and exits 2.
 */
int cmd_help(const char *cmd);	/* the usage line on stdout; returns 0 */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* returns 2 */
/* The error for what getopt_long returned when it was not one of the
 * command's options opts (optstring starting with ':', opterr 0): ':' an
 * option without its value, '?' an unknown option or a value given to one
 * that takes none. Returns 2. */
int cmd_bad_option(int opt, char **argv, const struct option *opts);
/* The error for argv[optind], an argument the command does not take. */
int cmd_extra_arg(char **argv);
/* n in lo..hi from all of s, decimal: 0, or -1 when it is not. */
int cmd_parse_int(const char *s, long lo, long hi, long *n);

#endif
