/*
 * run: the supervisor's one entry point. `provisor run` (cli/cmd_run.c)
 * builds the configuration from defaults, file and flags, and hands it
 * over here.
 */
#ifndef SUPERVISOR_RUN_H
#define SUPERVISOR_RUN_H

#include <stddef.h>

#include "conf/conf.h"

/* Runs the supervisor on c (checked and finished: conf_check, conf_finish)
 * until it is stopped; returns the exit status: 0 stopped, 1 a failure to
 * start or in the loop, 2 a configuration it cannot run (a state directory
 * it cannot name absolutely, too many slots). */
int sup_main(const struct conf *c);

/* The state directory's lock file, STATE/STATEDIR_LOCK, says who holds
 * it: "NAME PID\n" (statedir.c). Read from fd: 0 with name (at least
 * SHM_NAME_MAX + 2 bytes) and *pid, or -1 (unreadable or not that form;
 * name is then "?" and *pid 0). */
#define STATEDIR_LOCK "lock"
int statedir_read_lock(int fd, char *name, unsigned *pid);

/* Make dir absolute and lexically clean, in place: 0 or -errno, err. */
int statedir_absolute(char *dir, size_t len, char *err, size_t errlen);

/* statedir_check (supervisor/sup.h) for one who only reads from a state
 * directory (provisor log): dir (absolute, clean: statedir_absolute) and
 * every directory above it may be root's or ours, and writable by nobody
 * else (above it, unless sticky). 0, or -errno with one line in err. */
int statedir_check_reader(const char *dir, char *err, size_t errlen);

/* The supervisor's log file, STATE/SUP_LOG_FILE, written when it does
 * not run under systemd's journal (run.c): at SUP_LOG_MAX bytes it is
 * renamed to STATE/SUP_LOG_FILE.1 (replacing the one before) and begun
 * again, so the two hold at most 2 x SUP_LOG_MAX. `provisor log` reads it. */
#define SUP_LOG_FILE "log"
#define SUP_LOG_MAX (8u << 20)

#endif
