/*
 * child_fsm: a worker's lifecycle as one state x event table, in the
 * manner of s6-supervise's actions[state][event].
 *
 * Every change of a child's state goes through child_fsm(): it names the
 * next state and the actions to take, and nothing else. child.c performs
 * the actions (signals, spawns, slot writes); this file has no processes,
 * no io_uring and no status segment, so tests/supervisor/child_fsm.c walks
 * every pair without starting anything. A pair that cannot happen is a
 * named entry too (CA_IMPOSSIBLE): logged and ignored, never a silent
 * fall-through.
 *
 * What makes the exit events differ (the supervisor stopping, the slot
 * disabled by an operator, too many crashes within the restart period) is
 * decided by child.c from its counters before it raises the event; the
 * table says what each outcome does.
 */
#ifndef SUPERVISOR_CHILD_FSM_H
#define SUPERVISOR_CHILD_FSM_H

enum child_state {
	CH_DOWN,	/* not running; restart at restart_at_ns */
	CH_STARTING,	/* forked, no HELLO yet */
	CH_READY,	/* serving */
	CH_STOPPING,	/* stdin closed (EOF) and maybe SIGTERM: waiting for its exit */
	CH_KILLED,	/* SIGKILLed by the supervisor: waiting for its exit */
	CH_DISABLED,	/* kept down until an operator enables it */
	CH_NSTATES
};

enum child_event {
	CEV_SPAWNED,		/* fork and exec done, its pidfd watched */
	CEV_SPAWN_FAILED,	/* pipe, fork or pidfd_open failed */
	CEV_HELLO,		/* it sent a sound HELLO */
	CEV_KILL,		/* the supervisor wants it dead (bad frame, hung, ...) */
	CEV_STOP,		/* the supervisor is stopping: EOF and SIGTERM */
	CEV_RETIRE,		/* disabled, and it holds nothing now: EOF */
	CEV_EXIT_CRASH,		/* reaped: restart it after the backoff */
	CEV_EXIT_STOPPED,	/* reaped while the supervisor stops: stays down */
	CEV_EXIT_DISABLE,	/* reaped: the slot is disabled (operator, or crash intensity) */
	CEV_DISABLE,		/* `provisor worker disable` */
	CEV_ENABLE,		/* `provisor worker enable` */
	CEV_BACKOFF_ELAPSED,	/* its restart time passed and the dead one's I/O is settled */
	CEV_NEVENTS
};

/* Actions, performed by child.c in this order. */
enum child_action {
	CA_NONE = 0,
	CA_IMPOSSIBLE = 1 << 0,	/* not a transition this state has: log it, change nothing */
	CA_MARK_DISABLED = 1 << 1,	/* the operator's wish: drain, then keep it down */
	CA_CLEAR_DISABLED = 1 << 2,
	CA_SIGKILL = 1 << 3,
	CA_CLOSE_IN = 1 << 4,	/* EOF on its stdin once nothing uses it */
	CA_SIGTERM = 1 << 5,
	CA_RETRY_LATER = 1 << 6,	/* a failed spawn is tried again in a second */
	CA_BACKOFF = 1 << 7,	/* count the restart, show the crash, restart after the backoff */
	CA_SHOW_STOPPED = 1 << 8,	/* the slot shows stopped */
	CA_SHOW_DISABLED = 1 << 9,	/* the slot shows disabled */
	CA_RESET = 1 << 10,	/* enabled: crash counters cleared, restart now */
	CA_SPAWN = 1 << 11,	/* fork and exec it (raises SPAWNED or SPAWN_FAILED) */
};

struct child_step {
	enum child_state next;
	unsigned actions;	/* enum child_action bits */
	const char *what;	/* the pair's name, for logs and tests; never NULL */
};

/* The transition for st x ev. Out-of-range values give CA_IMPOSSIBLE. */
struct child_step child_fsm(enum child_state st, enum child_event ev);
const char *child_state_name(enum child_state st);
const char *child_event_name(enum child_event ev);

/* A process exists (forked, not yet reaped). */
static inline int child_state_alive(enum child_state st)
{
	return st == CH_STARTING || st == CH_READY || st == CH_STOPPING || st == CH_KILLED;
}

/* Alive, and told to end (EOF, SIGTERM or SIGKILL). */
static inline int child_state_ending(enum child_state st)
{
	return st == CH_STOPPING || st == CH_KILLED;
}

#endif
