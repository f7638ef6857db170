/*
 * The subcommands of the provisor binary. Each takes the arguments after
 * its own name (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef SUPERVISOR_CMDS_H
#define SUPERVISOR_CMDS_H

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

#endif
