# cli: bin/provisor's commands: the table and dispatch (main.c), one
# cmd_*.c per command (argument parsing, usage, errors), linked with the
# libraries and the objects the other folders add to PROVISOR_*.
CLI_SRCS := cli/main.c cli/cmd_run.c cli/cmd_synth.c cli/cmd_setup.c cli/cmd_prove.c cli/cmd_verify.c \
	    cli/cmd_ctl.c cli/cmd_status.c cli/cmd_top.c cli/cmd_exporter.c \
	    cli/cmd_jobs.c cli/cmd_params.c cli/cmd_fleet.c cli/cmd_fleet_status.c
PROVISOR_OBJS += $(call objs,$(CLI_SRCS))

# What a newcomer tries (issue 14 part 6): jobs, result, log, resume,
# --help, status summary, cancelled/degraded states, against a supervisor.
TESTS += tests/cli/newcomer.sh tests/cli/echo.sh
