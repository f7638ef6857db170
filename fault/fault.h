/*
 * fault: test-only fault injection in the worker processes, so every
 * recovery path of the supervisor is exercised on purpose, not by luck.
 * Off unless PROVISOR_FAULT is set; then it costs one branch per point.
 *
 * PROVISOR_FAULT = RULE[,RULE...], RULE = WHO:POINT:ACTION[:COUNT[@SKIP]]
 *   WHO     gpu.N | synth.N | gpu | synth | any
 *   POINT   start   after attaching the slot, before HELLO
 *           before  a partition received, before its begin
 *           during  after its begin, before the work is done
 *           after   the work done, before the result frame is written
 *                   (synth, which streams its rows: all of them written,
 *                   before the trailer)
 *           frame   the result frame (ACTION corrupt: one payload byte
 *                   flipped after the checksum was computed; in the
 *                   synth's streamed frame, after its chunk went into the
 *                   running checksum)
 *           shm     inside the status write of the next begin (halfway
 *                   through the latch copy)
 *           store   gpuworker: H computed, before it is encoded, hashed
 *                   and stored (ACTION flip: one bit of one coefficient
 *                   flipped, so a wrong H is stored with a matching
 *                   digest: only verification can catch it; a proof's
 *                   A and C are swapped instead, valid points the pairing
 *                   refuses; a proof kept with its H gets the H's bit
 *                   flipped, the proof left sound)
 *   ACTION  exit[=CODE] (default 4) | segv | abort | kill (SIGKILL self)
 *           | hang (the working thread sleeps forever; heartbeats go on)
 *           | hold (the working thread waits, heartbeats going on, until
 *             the worker is asked to give its work up, fault_set_stop,
 *             then goes on to the work's next safe point: a partition
 *             that ends only by being pre-empted; a hang where no stop
 *             test is set)
 *           | stop (SIGSTOP: the whole process, heartbeats too) | corrupt
 *           | hostile (frame point: the frame is replaced by a FAIL whose
 *             reason holds terminal escape sequences, FAULT_HOSTILE_REASON,
 *             as a hostile worker's could) | flip (store point only)
 *   COUNT   how many times the rule fires in all, across restarts of the
 *           worker (default 1; "inf" = every time). Counted in the file
 *           named by PROVISOR_FAULT_STATE (one byte appended per firing,
 *           under flock), which finite counts require.
 *   SKIP    the first SKIP passes of the point go by without firing
 *           (counted in the state file too, which a SKIP requires): e.g.
 *           gpu:during:kill:3@4 lets four partitions be proved, then
 *           kills the next three.
 * A malformed PROVISOR_FAULT is reported on stderr and the worker exits 1
 * at fault_init: a test that asked for a fault never silently runs without.
 */
#ifndef FAULT_FAULT_H
#define FAULT_FAULT_H

enum fault_point {
	FAULT_START, FAULT_BEFORE, FAULT_DURING, FAULT_AFTER, FAULT_FRAME, FAULT_SHM,
	FAULT_STORE,
	FAULT_NPOINTS
};

/* Parse PROVISOR_FAULT for this worker ("gpu", slot) and arm the shm
 * point if asked. Exits 1 with one line on a malformed variable. */
void fault_init(const char *kind, unsigned slot);
/* At a point: perform the action of the first rule that matches and
 * still has firings left. Returns only for actions that return (none but
 * corrupt and hostile, which fault_frame reports instead). */
void fault_point(enum fault_point p);
/* The hold action's test: stop(arg) != 0 once the work in hand is to be
 * given up (the gpuworker's abandon requests). */
void fault_set_stop(int (*stop)(void *), void *arg);
/* At FAULT_FRAME: what to do to this frame (and counts it). */
enum fault_frame { FAULT_FRAME_OK, FAULT_FRAME_CORRUPT, FAULT_FRAME_HOSTILE };
enum fault_frame fault_frame(void);
/* At FAULT_STORE: 1 when this H is to have a bit flipped (and counts it). */
int fault_store(void);

#define FAULT_HOSTILE_REASON "\x1b]0;pwned\x07\x1b[2J\x1b[31mhostile \xff reason"

#endif
