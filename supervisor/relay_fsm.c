/*
 * relay_fsm: the table, every mode x event pair written out (see
 * relay_fsm.h). Invariant it relies on: in HEADER and SPLICE both ends are
 * there; DRAIN has no destination; PAD has no source.
 */
#include <stddef.h>

#include "supervisor/relay_fsm.h"

#define T(n, a, w) { .next = (n), .actions = (a), .what = (w) }
#define NO(m) T(m, RA_IMPOSSIBLE, "impossible")

static const struct relay_step table[RELAY_NMODES][REV_NEVENTS] = {
	[RELAY_IDLE] = {
		[REV_START] = T(RELAY_HEADER, RA_SEND_HEADER, "start: write the header"),
		[REV_DISCARD] = T(RELAY_DRAIN, RA_NONE, "unwanted payload: drain it"),
		[REV_HDR_DONE] = T(RELAY_IDLE, RA_FINISH, "header done after both ends were lost"),
		[REV_ALL_MOVED] = NO(RELAY_IDLE),
		[REV_SRC_LOST] = T(RELAY_IDLE, RA_NONE, "no relay: nothing to settle"),
		[REV_DST_LOST] = NO(RELAY_IDLE),
	},
	[RELAY_HEADER] = {
		[REV_START] = NO(RELAY_HEADER),
		[REV_DISCARD] = NO(RELAY_HEADER),
		[REV_HDR_DONE] = T(RELAY_SPLICE, RA_NONE, "header written: splice the payload"),
		[REV_ALL_MOVED] = NO(RELAY_HEADER),
		[REV_SRC_LOST] = T(RELAY_PAD, RA_NONE, "source lost: pad once the header is out"),
		[REV_DST_LOST] = T(RELAY_DRAIN, RA_FORGET_DST, "destination lost: drain the payload"),
	},
	[RELAY_SPLICE] = {
		[REV_START] = NO(RELAY_SPLICE),
		[REV_DISCARD] = NO(RELAY_SPLICE),
		[REV_HDR_DONE] = NO(RELAY_SPLICE),
		[REV_ALL_MOVED] = T(RELAY_IDLE, RA_FORGET_DST | RA_FINISH, "relayed"),
		[REV_SRC_LOST] = T(RELAY_PAD, RA_NONE, "source lost: pad the rest with zeros"),
		[REV_DST_LOST] = T(RELAY_DRAIN, RA_FORGET_DST, "destination lost: drain the rest"),
	},
	[RELAY_DRAIN] = {
		[REV_START] = NO(RELAY_DRAIN),
		[REV_DISCARD] = NO(RELAY_DRAIN),
		[REV_HDR_DONE] = T(RELAY_DRAIN, RA_NONE, "header done after the destination was lost"),
		[REV_ALL_MOVED] = T(RELAY_IDLE, RA_FINISH, "drained"),
		[REV_SRC_LOST] = T(RELAY_IDLE, RA_FINISH, "source lost while draining: nothing left"),
		[REV_DST_LOST] = NO(RELAY_DRAIN),
	},
	[RELAY_PAD] = {
		[REV_START] = NO(RELAY_PAD),
		[REV_DISCARD] = NO(RELAY_PAD),
		[REV_HDR_DONE] = T(RELAY_PAD, RA_NONE, "header written: pad the payload"),
		[REV_ALL_MOVED] = T(RELAY_IDLE, RA_FORGET_DST | RA_FINISH, "padded"),
		[REV_SRC_LOST] = T(RELAY_PAD, RA_NONE, "source lost again (EOF, then its exit)"),
		[REV_DST_LOST] = T(RELAY_IDLE, RA_FORGET_DST | RA_FINISH, "both ends lost"),
	},
};

struct relay_step relay_fsm(enum relay_mode m, enum relay_event ev)
{
	if ((unsigned)m >= RELAY_NMODES || (unsigned)ev >= REV_NEVENTS || !table[m][ev].what)
		return (struct relay_step){ .next = m, .actions = RA_IMPOSSIBLE, .what = "unnamed pair" };
	return table[m][ev];
}

const char *relay_mode_name(enum relay_mode m)
{
	static const char *const names[RELAY_NMODES] = {
		[RELAY_IDLE] = "idle", [RELAY_HEADER] = "header", [RELAY_SPLICE] = "splice",
		[RELAY_DRAIN] = "drain", [RELAY_PAD] = "pad",
	};

	return (unsigned)m < RELAY_NMODES && names[m] ? names[m] : "?";
}

const char *relay_event_name(enum relay_event ev)
{
	static const char *const names[REV_NEVENTS] = {
		[REV_START] = "start", [REV_DISCARD] = "discard", [REV_HDR_DONE] = "header done",
		[REV_ALL_MOVED] = "all moved", [REV_SRC_LOST] = "source lost",
		[REV_DST_LOST] = "destination lost",
	};

	return (unsigned)ev < REV_NEVENTS && names[ev] ? names[ev] : "?";
}
