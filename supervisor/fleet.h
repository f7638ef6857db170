/*
 * fleet: the supervisor as one node of a fleet (docs/fleet.md), when
 * [fleet] dsn or run --fleet DSN names a database. Nothing here waits for
 * the database: libpq's asynchronous API runs on the supervisor's loop
 * (EV_FLEET: a poll on its socket; EV_FLEET_IO: the files it reads and
 * syncs; EV_FLEET_TIMER: its periodic work), and a database that is slow
 * or gone delays only the fleet's own work. Without a DSN every call is a
 * no-op.
 *
 * Every step of it on the loop (each of those completions, and a job's
 * end) is watched: its wall time, and whether the thread gave the CPU up
 * during it (a voluntary context switch: it waited, which it must never
 * do) or was descheduled (an involuntary one: the machine's doing, not
 * the step's). The figures are logged when the supervisor stops.
 */
#ifndef SUPERVISOR_FLEET_H
#define SUPERVISOR_FLEET_H

#include <stddef.h>
#include <stdint.h>

struct sup;

/* At start, after the journal has put its unfinished jobs back in the
 * table: the node's claim journal is read, and what it still has to
 * report is queued. 0, or -1 after one line on stderr (a DSN libpq
 * cannot parse, an unreadable claim journal). */
int fleet_open(struct sup *s);
/* EV_FLEET, EV_FLEET_IO and EV_FLEET_TIMER (what) completions: the
 * fleet's own timer (every SUP_TICK_MS: deadlines, reconnection,
 * heartbeat, claims) is its own operation, so that the loop's timing
 * names the fleet's work as such. */
void fleet_on_cqe(struct sup *s, uint32_t what, uint32_t who, int res);
/* Job ji ended (jobs_finish): a fleet job's end is reported. */
void fleet_job_ended(struct sup *s, int ji, uint32_t state);
/* The supervisor stops: no more claims; the next heartbeat says so. */
void fleet_stopping(struct sup *s);
/* At the end: the connection closed, figures logged. */
void fleet_close(struct sup *s);
/* The node's view for the status segment (the supervisor record's fleet
 * block, written by sched_publish): all 0 when it is not a node. */
struct shm_fleet;
void fleet_publish(const struct sup *s, struct shm_fleet *out);

#endif
