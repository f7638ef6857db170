/*
 * run: the supervisor's one entry point. `provisor run` (cli/cmd_run.c)
 * builds the configuration from defaults, file and flags, and hands it
 * over here.
 */
#ifndef SUPERVISOR_RUN_H
#define SUPERVISOR_RUN_H

#include "conf/conf.h"

/* Runs the supervisor on c (checked and finished: conf_check, conf_finish)
 * until it is stopped; returns the exit status: 0 stopped, 1 a failure to
 * start or in the loop, 2 a configuration it cannot run (a state directory
 * it cannot name absolutely, too many slots). */
int sup_main(const struct conf *c);

#endif
