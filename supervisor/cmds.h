/*
 * The subcommands of the provisor binary. Each takes the arguments after
 * its own name (argv[0] is the subcommand) and returns the exit status.
 */
#ifndef SUPERVISOR_CMDS_H
#define SUPERVISOR_CMDS_H

int cmd_synth(int argc, char **argv);	/* synth/cmd_synth.c */
int cmd_prove(int argc, char **argv);	/* gpuworker/cmd_prove.c */
int cmd_verify(int argc, char **argv);	/* verify/cmd_verify.c */

#endif
