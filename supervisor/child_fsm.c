/*
 * child_fsm: the table. Each row is a state, each column an event; every
 * cell is written out, the impossible ones included, so that adding a
 * state or an event without deciding each of its pairs leaves a cell
 * unnamed, which tests/supervisor/child_fsm.c reports.
 */
#include <stddef.h>

#include "supervisor/child_fsm.h"

#define T(n, a, w) { .next = (n), .actions = (a), .what = (w) }
#define NO(st) T(st, CA_IMPOSSIBLE, "impossible")

/* Alive (STARTING, READY) rows share their exits and operator events. */
#define EXITS \
	[CEV_EXIT_CRASH] = T(CH_DOWN, CA_BACKOFF, "crashed: restart after the backoff"), \
	[CEV_EXIT_STOPPED] = T(CH_DOWN, CA_SHOW_STOPPED, "exited: the supervisor stops"), \
	[CEV_EXIT_DISABLE] = T(CH_DISABLED, CA_SHOW_DISABLED, "exited: the slot is disabled")

static const struct child_step table[CH_NSTATES][CEV_NEVENTS] = {
	[CH_DOWN] = {
		[CEV_SPAWNED] = T(CH_STARTING, CA_NONE, "started: wait for its HELLO"),
		[CEV_SPAWN_FAILED] = T(CH_DOWN, CA_RETRY_LATER, "spawn failed: try again in a second"),
		[CEV_HELLO] = NO(CH_DOWN),
		[CEV_KILL] = NO(CH_DOWN),
		[CEV_STOP] = T(CH_DOWN, CA_NONE, "stopping: stays down"),
		[CEV_RETIRE] = NO(CH_DOWN),
		[CEV_EXIT_CRASH] = NO(CH_DOWN),
		[CEV_EXIT_STOPPED] = NO(CH_DOWN),
		[CEV_EXIT_DISABLE] = NO(CH_DOWN),
		[CEV_DISABLE] = T(CH_DISABLED, CA_MARK_DISABLED | CA_SHOW_DISABLED, "disabled while down"),
		[CEV_ENABLE] = T(CH_DOWN, CA_CLEAR_DISABLED, "enabled: it restarts as it would"),
		[CEV_BACKOFF_ELAPSED] = T(CH_DOWN, CA_SPAWN, "restart"),
	},
	[CH_STARTING] = {
		[CEV_SPAWNED] = NO(CH_STARTING),
		[CEV_SPAWN_FAILED] = NO(CH_STARTING),
		[CEV_HELLO] = T(CH_READY, CA_NONE, "said hello: serving"),
		[CEV_KILL] = T(CH_KILLED, CA_SIGKILL, "killed"),
		[CEV_STOP] = T(CH_STOPPING, CA_CLOSE_IN | CA_SIGTERM, "stopping: EOF and SIGTERM"),
		[CEV_RETIRE] = NO(CH_STARTING),
		EXITS,
		[CEV_DISABLE] = T(CH_STARTING, CA_MARK_DISABLED, "disabled: drains once serving"),
		[CEV_ENABLE] = T(CH_STARTING, CA_CLEAR_DISABLED, "enabled"),
		[CEV_BACKOFF_ELAPSED] = NO(CH_STARTING),
	},
	[CH_READY] = {
		[CEV_SPAWNED] = NO(CH_READY),
		[CEV_SPAWN_FAILED] = NO(CH_READY),
		[CEV_HELLO] = NO(CH_READY),
		[CEV_KILL] = T(CH_KILLED, CA_SIGKILL, "killed"),
		[CEV_STOP] = T(CH_STOPPING, CA_CLOSE_IN | CA_SIGTERM, "stopping: EOF and SIGTERM"),
		[CEV_RETIRE] = T(CH_STOPPING, CA_CLOSE_IN, "disabled and drained: EOF"),
		EXITS,
		[CEV_DISABLE] = T(CH_READY, CA_MARK_DISABLED, "disabled: no new work, then EOF"),
		[CEV_ENABLE] = T(CH_READY, CA_CLEAR_DISABLED, "enabled"),
		[CEV_BACKOFF_ELAPSED] = NO(CH_READY),
	},
	[CH_STOPPING] = {
		[CEV_SPAWNED] = NO(CH_STOPPING),
		[CEV_SPAWN_FAILED] = NO(CH_STOPPING),
		[CEV_HELLO] = T(CH_STOPPING, CA_NONE, "hello after its EOF: it ends anyway"),
		[CEV_KILL] = T(CH_KILLED, CA_SIGKILL, "killed while stopping"),
		[CEV_STOP] = T(CH_STOPPING, CA_CLOSE_IN | CA_SIGTERM, "stopping: EOF and SIGTERM"),
		[CEV_RETIRE] = NO(CH_STOPPING),
		EXITS,
		[CEV_DISABLE] = T(CH_STOPPING, CA_MARK_DISABLED, "disabled: kept down after its exit"),
		[CEV_ENABLE] = T(CH_STOPPING, CA_CLEAR_DISABLED, "enabled"),
		[CEV_BACKOFF_ELAPSED] = NO(CH_STOPPING),
	},
	[CH_KILLED] = {
		[CEV_SPAWNED] = NO(CH_KILLED),
		[CEV_SPAWN_FAILED] = NO(CH_KILLED),
		[CEV_HELLO] = T(CH_KILLED, CA_NONE, "hello sent before the kill: ignored"),
		[CEV_KILL] = T(CH_KILLED, CA_NONE, "already killed: the first reason stands"),
		[CEV_STOP] = T(CH_KILLED, CA_CLOSE_IN, "stopping: EOF (SIGKILL is on its way)"),
		[CEV_RETIRE] = NO(CH_KILLED),
		EXITS,
		[CEV_DISABLE] = T(CH_KILLED, CA_MARK_DISABLED, "disabled: kept down after its exit"),
		[CEV_ENABLE] = T(CH_KILLED, CA_CLEAR_DISABLED, "enabled"),
		[CEV_BACKOFF_ELAPSED] = NO(CH_KILLED),
	},
	[CH_DISABLED] = {
		[CEV_SPAWNED] = NO(CH_DISABLED),
		[CEV_SPAWN_FAILED] = NO(CH_DISABLED),
		[CEV_HELLO] = NO(CH_DISABLED),
		[CEV_KILL] = NO(CH_DISABLED),
		[CEV_STOP] = T(CH_DISABLED, CA_NONE, "stopping: stays down"),
		[CEV_RETIRE] = NO(CH_DISABLED),
		[CEV_EXIT_CRASH] = NO(CH_DISABLED),
		[CEV_EXIT_STOPPED] = NO(CH_DISABLED),
		[CEV_EXIT_DISABLE] = NO(CH_DISABLED),
		[CEV_DISABLE] = T(CH_DISABLED, CA_MARK_DISABLED, "already disabled"),
		[CEV_ENABLE] = T(CH_DOWN, CA_CLEAR_DISABLED | CA_RESET, "enabled: restart now"),
		[CEV_BACKOFF_ELAPSED] = NO(CH_DISABLED),
	},
};

struct child_step child_fsm(enum child_state st, enum child_event ev)
{
	if ((unsigned)st >= CH_NSTATES || (unsigned)ev >= CEV_NEVENTS || !table[st][ev].what)
		return (struct child_step){ .next = st, .actions = CA_IMPOSSIBLE,
					    .what = "unnamed pair" };
	return table[st][ev];
}

const char *child_state_name(enum child_state st)
{
	static const char *const names[CH_NSTATES] = {
		[CH_DOWN] = "down", [CH_STARTING] = "starting", [CH_READY] = "ready",
		[CH_STOPPING] = "stopping", [CH_KILLED] = "killed", [CH_DISABLED] = "disabled",
	};

	return (unsigned)st < CH_NSTATES && names[st] ? names[st] : "?";
}

const char *child_event_name(enum child_event ev)
{
	static const char *const names[CEV_NEVENTS] = {
		[CEV_SPAWNED] = "spawned", [CEV_SPAWN_FAILED] = "spawn failed", [CEV_HELLO] = "hello",
		[CEV_KILL] = "kill", [CEV_STOP] = "stop", [CEV_RETIRE] = "retire",
		[CEV_EXIT_CRASH] = "exit (crash)", [CEV_EXIT_STOPPED] = "exit (stopping)",
		[CEV_EXIT_DISABLE] = "exit (disable)", [CEV_DISABLE] = "disable",
		[CEV_ENABLE] = "enable", [CEV_BACKOFF_ELAPSED] = "backoff elapsed",
	};

	return (unsigned)ev < CEV_NEVENTS && names[ev] ? names[ev] : "?";
}
