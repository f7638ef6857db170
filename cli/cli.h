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
#include <stdint.h>

struct cli_entry {
	const char *name;
	const char *usage;	/* after "provisor ", for --help and every error */
	/* --help's text after the usage line: what the command does, each
	 * option with its meaning and default, one "  --opt  meaning" a line
	 * (man/provisor.1 is the long form; keep the two agreeing). */
	const char *help;
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
extern const struct cli_entry cli_cmd_resume;
extern const struct cli_entry cli_cmd_jobs;	/* cli/cmd_jobs.c */
extern const struct cli_entry cli_cmd_result;
extern const struct cli_entry cli_cmd_log;
extern const struct cli_entry cli_cmd_status;	/* cli/cmd_status.c */
extern const struct cli_entry cli_cmd_top;	/* cli/cmd_top.c */
extern const struct cli_entry cli_cmd_exporter;	/* cli/cmd_exporter.c */
extern const struct cli_entry cli_cmd_params;	/* cli/cmd_params.c */
extern const struct cli_entry cli_cmd_fleet;	/* cli/cmd_fleet.c */

/* The --fleet DSN forms (cli/cmd_fleet.c), once their command has parsed
 * its options: exit statuses as the command's. */
struct cmd_fleet_job {
	const char *dsn, *kind, *seed, *k, *parts, *priority, *deadline;	/* NULL: the default */
	int wait, proofs;	/* --proofs: only a node that ends the kind in proofs */
};
int cmd_fleet_submit(const struct cmd_fleet_job *j);
int cmd_fleet_result(const char *dsn, uint64_t id, int json, const char *out);
enum cmd_fleet_format { CMD_FLEET_TEXT, CMD_FLEET_JSON, CMD_FLEET_PROM };
int cmd_fleet_status(const char *dsn, int format);	/* cli/cmd_fleet_status.c */
/* Shared by cmd_fleet*.c: connect, blocking (NULL after one line on
 * stderr as "provisor CMD: ..."), and a JSON string of text the
 * database holds (quotes, backslashes and control bytes escaped). */
struct pg_conn;
struct pg_conn *cmd_fleet_connect(const char *cmd, const char *dsn);
void cmd_fleet_jstr(const char *t);

/* The state directory of instance name: from its segment while it runs,
 * else the default (conf_finish). 0, or -1 (a bad name, said). The
 * message prefix is "provisor log". (cli/cmd_jobs.c) */
int cli_state_dir(const char *name, char *dir, size_t len);

/* Lines of help texts that several commands share. */
#define CLI_HELP_NAME \
	"  --name NAME    the instance (default: default)\n"
#define CLI_HELP_SOCKET \
	"  --socket PATH  talk to the control socket at PATH instead of the one\n" \
	"                 instance NAME publishes (only a supervisor running as\n" \
	"                 you or as root is trusted there)\n"
#define CLI_HELP_KINDS \
	"Kinds: winning-post, window-post, snap-deals, porep (by default run in that\n" \
	"order of priority; each kind's log_size, partitions and priority are in\n" \
	"the configuration file, provisor.conf(5)).\n"
#define CLI_HELP_FLEET \
	"  --fleet DSN    the fleet's database instead of an instance (docs/fleet.md);\n" \
	"                 DSN is libpq's: keep a password in ~/.pgpass, not here\n"
#define CLI_HELP_STATE \
	"State directory (journal, results, control socket, log): state_dir in the\n" \
	"configuration, or run --state-dir; by default /var/lib/provisor/NAME for\n" \
	"root, else $XDG_STATE_HOME/provisor/NAME (~/.local/state/provisor/NAME).\n"

/*
 * Usage, from the entries (cli/main.c). Every command says what was wrong
 * with its arguments in one line on stderr, "provisor CMD: WHAT (usage:
 * provisor CMD ...)", and exits 2.
 */
int cli_help(const char *cmd);	/* the usage line and the help text on stdout; returns 0 */
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
