/*
 * part_fsm: the table, every state x event pair written out (see
 * part_fsm.h). A death or FAIL of a partition taken back is turned into
 * PEV_PREEMPTED by part_event before it gets here (the flag is data, not
 * state).
 */
#include <stddef.h>

#include "supervisor/part_fsm.h"

#define T(n, a, w) { .next = (n), .actions = (a), .what = (w) }
#define NO(s) T(s, PA_IMPOSSIBLE, "impossible")
#define Q SHM_PART_QUEUED
#define S SHM_PART_SYNTH
#define R SHM_PART_READY
#define P SHM_PART_PROVING
#define D SHM_PART_DONE
#define F SHM_PART_FAILED
#define C SHM_PART_CANCELLED

/* Rows shared by the states a worker may hold a partition in. */
#define HELD(st) \
	[PEV_STORED] = T(D, PA_NONE, "stored (its record keeps which slots made it)"), \
	[PEV_STORE_ERROR] = T(Q, PA_FORGET_HOLDERS, "not stored: queued again, no attempt counted"), \
	[PEV_HOLDER_DIED] = T(Q, PA_FORGET_HOLDERS | PA_ATTEMPT, "its worker died: queued again, one more attempt"), \
	[PEV_FAILED] = T(Q, PA_FORGET_HOLDERS | PA_ATTEMPT, "its worker failed it: queued again, one more attempt"), \
	[PEV_TAKE_BACK] = T(st, PA_SET_PREEMPT, "asked back"), \
	[PEV_PREEMPTED] = T(Q, PA_FORGET_HOLDERS | PA_CLEAR_PREEMPT, "taken back: queued, no attempt counted"), \
	[PEV_CANCELLED] = T(C, PA_NONE, "cancelled"), \
	[PEV_RETRY] = T(Q, PA_RESET | PA_FORGET_HOLDERS | PA_CLEAR_PREEMPT, "retried: queued anew"), \
	[PEV_UNRUN] = T(Q, PA_FORGET_HOLDERS, "its worker could not run it: queued again, no attempt counted")

static const struct part_step table[SHM_PART_NSTATES][PEV_NEVENTS] = {
	[Q] = {
		[PEV_SENT] = T(S, PA_NONE, "sent to a synth"),
		[PEV_READY] = NO(Q),
		[PEV_RELAYED] = NO(Q),
		HELD(Q),
		[PEV_JOB_ENDED] = T(F, PA_NONE, "its job failed: it never ran"),
		[PEV_WRONG] = NO(Q),
		[PEV_LOST] = NO(Q),
	},
	[S] = {
		[PEV_SENT] = NO(S),
		[PEV_READY] = T(R, PA_NONE, "streaming: ready for a gpuworker"),
		[PEV_RELAYED] = NO(S),
		HELD(S),
		[PEV_JOB_ENDED] = T(S, PA_NONE, "its job failed: what comes back is ignored"),
		[PEV_WRONG] = NO(S),
		[PEV_LOST] = NO(S),
	},
	[R] = {
		[PEV_SENT] = NO(R),
		[PEV_READY] = NO(R),
		[PEV_RELAYED] = T(P, PA_NONE, "relayed to a gpuworker"),
		HELD(R),
		[PEV_JOB_ENDED] = T(R, PA_NONE, "its job failed: what comes back is ignored"),
		[PEV_WRONG] = NO(R),
		[PEV_LOST] = NO(R),
	},
	[P] = {
		[PEV_SENT] = NO(P),
		[PEV_READY] = NO(P),
		[PEV_RELAYED] = NO(P),
		HELD(P),
		[PEV_JOB_ENDED] = T(P, PA_NONE, "its job failed: what comes back is ignored"),
		/* a stored proof whose synth died before its x_out came */
		[PEV_WRONG] = T(Q, PA_FORGET_HOLDERS | PA_FORGET_RESULT, "cannot be checked: computed again"),
		[PEV_LOST] = NO(P),
	},
	[D] = {
		[PEV_SENT] = NO(D),
		[PEV_READY] = NO(D),
		[PEV_RELAYED] = NO(D),
		[PEV_STORED] = NO(D),
		[PEV_STORE_ERROR] = NO(D),
		[PEV_HOLDER_DIED] = NO(D),
		[PEV_FAILED] = NO(D),
		[PEV_TAKE_BACK] = NO(D),
		[PEV_PREEMPTED] = NO(D),
		[PEV_CANCELLED] = T(D, PA_NONE, "done: a cancel keeps it"),
		[PEV_WRONG] = T(Q, PA_FORGET_HOLDERS | PA_FORGET_RESULT, "wrong: computed again, no attempt counted"),
		[PEV_LOST] = T(Q, PA_FORGET_HOLDERS | PA_FORGET_RESULT, "its file was lost: computed again"),
		[PEV_JOB_ENDED] = T(D, PA_NONE, "done: its job's failure keeps it"),
		[PEV_RETRY] = T(D, PA_NONE, "done: a retry keeps it"),
		[PEV_UNRUN] = NO(D),
	},
	[F] = {
		[PEV_SENT] = NO(F),
		[PEV_READY] = NO(F),
		[PEV_RELAYED] = NO(F),
		[PEV_STORED] = NO(F),
		[PEV_STORE_ERROR] = NO(F),
		[PEV_HOLDER_DIED] = NO(F),
		[PEV_FAILED] = NO(F),
		[PEV_TAKE_BACK] = NO(F),
		[PEV_PREEMPTED] = NO(F),
		[PEV_CANCELLED] = T(C, PA_NONE, "cancelled after its job failed"),
		[PEV_WRONG] = NO(F),
		[PEV_LOST] = NO(F),
		[PEV_JOB_ENDED] = T(F, PA_NONE, "failed already"),
		[PEV_RETRY] = T(Q, PA_RESET | PA_FORGET_HOLDERS | PA_CLEAR_PREEMPT, "retried: queued anew"),
		[PEV_UNRUN] = NO(F),
	},
	[C] = {
		[PEV_SENT] = NO(C),
		[PEV_READY] = NO(C),
		[PEV_RELAYED] = NO(C),
		[PEV_STORED] = NO(C),
		[PEV_STORE_ERROR] = NO(C),
		[PEV_HOLDER_DIED] = NO(C),
		[PEV_FAILED] = NO(C),
		[PEV_TAKE_BACK] = NO(C),
		[PEV_PREEMPTED] = NO(C),
		[PEV_CANCELLED] = T(C, PA_NONE, "cancelled already"),
		[PEV_WRONG] = NO(C),
		[PEV_LOST] = NO(C),
		[PEV_JOB_ENDED] = T(C, PA_NONE, "cancelled already"),
		[PEV_RETRY] = T(Q, PA_RESET | PA_FORGET_HOLDERS | PA_CLEAR_PREEMPT, "retried: queued anew"),
		[PEV_UNRUN] = NO(C),
	},
};

struct part_step part_fsm(unsigned state, enum part_event ev)
{
	if (state >= SHM_PART_NSTATES || (unsigned)ev >= PEV_NEVENTS || !table[state][ev].what)
		return (struct part_step){ .next = (uint8_t)state, .actions = PA_IMPOSSIBLE,
					   .what = "unnamed pair" };
	return table[state][ev];
}

const char *part_state_name(unsigned state)
{
	static const char *const names[SHM_PART_NSTATES] = {
		[Q] = "queued", [S] = "synthesizing", [R] = "ready", [P] = "proving", [D] = "done",
		[F] = "failed", [C] = "cancelled",
	};

	return state < SHM_PART_NSTATES && names[state] ? names[state] : "?";
}

const char *part_event_name(enum part_event ev)
{
	static const char *const names[PEV_NEVENTS] = {
		[PEV_SENT] = "sent", [PEV_READY] = "ready", [PEV_RELAYED] = "relayed",
		[PEV_STORED] = "stored", [PEV_STORE_ERROR] = "store error", [PEV_HOLDER_DIED] = "holder died",
		[PEV_FAILED] = "failed", [PEV_TAKE_BACK] = "take back", [PEV_PREEMPTED] = "pre-empted",
		[PEV_CANCELLED] = "cancelled", [PEV_WRONG] = "wrong result", [PEV_LOST] = "lost",
		[PEV_JOB_ENDED] = "job ended", [PEV_RETRY] = "retry",
		[PEV_UNRUN] = "unrun",
	};

	return (unsigned)ev < PEV_NEVENTS && names[ev] ? names[ev] : "?";
}
