/*
 * relay_fsm: the mode of a synth's relay, one enum and one transition
 * function (relay.c performs the actions; tests/supervisor/relay_fsm.c
 * walks every pair without a process or a ring).
 *
 * A ready partition's payload waits in its synth's stdout pipe. The relay
 * writes the frame header to a gpuworker (HEADER), then splices the payload
 * pipe to pipe (SPLICE). If the gpuworker is lost the rest is spliced to
 * /dev/null (DRAIN), so the synth's stream stays framed; if the synth is
 * lost the rest is written as zeros (PAD), so the gpuworker's stream stays
 * framed and it refuses that one partition by its checksum. Both lost, or
 * everything moved: IDLE. A payload nobody wants any more is drained too.
 *
 * The mode says what to do next; the one operation in flight keeps its own
 * kind (relay.c), because its completion must be read by what it did, not
 * by the mode the relay switched to meanwhile.
 */
#ifndef SUPERVISOR_RELAY_FSM_H
#define SUPERVISOR_RELAY_FSM_H

enum relay_mode {
	RELAY_IDLE,	/* no relay (or it ended: settled once nothing is in flight) */
	RELAY_HEADER,	/* the frame header's write to the gpuworker is in flight */
	RELAY_SPLICE,	/* payload spliced synth -> gpuworker */
	RELAY_DRAIN,	/* payload spliced synth -> /dev/null (no destination) */
	RELAY_PAD,	/* zeros written to the gpuworker (no source) */
	RELAY_NMODES
};

enum relay_event {
	REV_START,	/* a ready partition goes to a gpuworker: its header is written */
	REV_DISCARD,	/* a held payload is no longer wanted: throw it away */
	REV_HDR_DONE,	/* the header write completed (a failure is DST_LOST first) */
	REV_ALL_MOVED,	/* nothing of the payload is left to move */
	REV_SRC_LOST,	/* the synth died, or its stdout ended or broke */
	REV_DST_LOST,	/* the gpuworker died, or a write into it failed */
	REV_NEVENTS
};

enum relay_action {
	RA_NONE = 0,
	RA_IMPOSSIBLE = 1 << 0,	/* log it, change nothing */
	RA_SEND_HEADER = 1 << 1,	/* write the frame header to the destination */
	RA_FORGET_DST = 1 << 2,	/* unlink the destination gpuworker from this relay */
	RA_FINISH = 1 << 3,	/* end the relay once no operation is in flight */
};

struct relay_step {
	enum relay_mode next;
	unsigned actions;	/* enum relay_action bits */
	const char *what;	/* never NULL */
};

struct relay_step relay_fsm(enum relay_mode m, enum relay_event ev);
const char *relay_mode_name(enum relay_mode m);
const char *relay_event_name(enum relay_event ev);

#endif
