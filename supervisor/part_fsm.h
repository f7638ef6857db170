/*
 * part_fsm: a partition's lifecycle, one table of state x event (in the
 * manner of child_fsm and relay_fsm). part.c's part_event() performs the
 * actions and is the only writer of a partition's state, attempts and
 * pre-emption flag; tests/supervisor/part_fsm.c walks every pair without
 * a process or a ring.
 *
 * States are the segment's (enum shm_part_state): queued, synthesizing,
 * ready, proving, done, failed, cancelled. A partition is created queued
 * (a submit, a resume); everything after that is an event here.
 */
#ifndef SUPERVISOR_PART_FSM_H
#define SUPERVISOR_PART_FSM_H

#include "shm/shm.h"

enum part_event {
	PEV_SENT,		/* a SYNTH_REQ went out for it */
	PEV_READY,		/* its synth sent the PART_DATA header: it streams */
	PEV_RELAYED,		/* its relay to a gpuworker started */
	PEV_STORED,		/* H_DONE: its H or proof is stored */
	PEV_STORE_ERROR,	/* H_DONE with a storage error, or stored in a file since removed */
	PEV_HOLDER_DIED,	/* the worker holding it died */
	PEV_FAILED,		/* the worker answered FAIL */
	PEV_TAKE_BACK,		/* asked back for more urgent work (pre-emption) */
	PEV_PREEMPTED,		/* it came back so (abandoned, or its holder killed for it) */
	PEV_CANCELLED,		/* its job was cancelled */
	PEV_WRONG,		/* its stored result failed its check, or cannot be checked */
	PEV_LOST,		/* its stored result's file was lost */
	PEV_JOB_ENDED,		/* its job failed */
	PEV_RETRY,		/* its job was retried */
	PEV_UNRUN,		/* its worker could not run it (out of memory, device lost):
				 * not the partition's fault (proto/frame.h's FAIL classes) */
	PEV_NEVENTS
};

enum part_action {
	PA_NONE = 0,
	PA_IMPOSSIBLE = 1 << 0,		/* log it, change nothing */
	PA_ATTEMPT = 1 << 1,		/* one more attempt: at poison_attempts the partition fails, and its job */
	PA_FORGET_HOLDERS = 1 << 2,	/* no synth or gpu child holds it any more */
	PA_FORGET_RESULT = 1 << 3,	/* its stored result is void: verification and stored_by cleared */
	PA_SET_PREEMPT = 1 << 4,	/* mark it taken back: its return counts no attempt */
	PA_CLEAR_PREEMPT = 1 << 5,
	PA_RESET = 1 << 6,		/* attempts and times back to zero (a retry) */
};

struct part_step {
	uint8_t next;		/* enum shm_part_state */
	unsigned actions;	/* enum part_action bits */
	const char *what;	/* never NULL */
};

struct part_step part_fsm(unsigned state, enum part_event ev);
const char *part_state_name(unsigned state);
const char *part_event_name(enum part_event ev);

#endif
