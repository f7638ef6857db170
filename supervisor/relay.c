/*
 * relay: a synth's ready partition goes to a gpuworker without passing
 * through this process: the frame header is written, then the payload is
 * spliced pipe to pipe, SUP_RELAY_CHUNK at a time, one operation in flight
 * per relay. The synth streams the payload as it makes the rows, so a
 * relay usually starts before the payload is whole: a splice then moves
 * what the pipe holds, or waits in the kernel (never on the loop) for the
 * next rows. Its mode (relay_fsm.h) changes only through relay_apply();
 * losing the source or the destination has one handler each (src_lost,
 * dst_lost), whichever way the loss was seen: the child's exit, an EOF or
 * an error on the splice, a failed header write.
 *
 * Every operation counts on the fds it names (child.c's in_ops/out_ops),
 * and each completion is read by the kind of the operation (relay_op), not
 * by the mode the relay may have switched to meanwhile. The relay ends
 * (relay_done) only once nothing is in flight: a dead synth's restart
 * waits for it.
 */
#include <stdio.h>
#include <string.h>

#include "supervisor/sup.h"

/* Padding goes out a relay chunk at a time: a frame cut short by a dead
 * (or pre-empted) synth must end quickly. */
static const uint8_t zeros[SUP_RELAY_CHUNK];

/* What the operation in flight does. */
enum { OP_NONE, OP_HEADER, OP_TO_GPU, OP_TO_NULL, OP_PAD };

int relay_busy(const struct child *c)
{
	return c->relay != RELAY_IDLE || c->relay_pending;
}

/* Write the frame header, with the gpuworker's generation, to relay_dst. */
static void send_header(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];
	uint32_t gi = (uint32_t)c->relay_dst;
	struct child *g = &s->child[gi];
	const struct job *j = &s->jobs[g->hold[g->nhold - 1].job];
	struct frame_hdr h = c->hdr, idh;
	struct frame_synth_req id = { .seed_len = j->seed_len };
	uint8_t buf[2 * FRAME_HDR_SIZE + sizeof id];
	size_t len = 0;

	h.gen = g->hold[g->nhold - 1].gen;
	h.reserved = j->params | (jobs_keep_h(j) ? FRAME_PARAMS_KEEP_H : 0);	/* which params prove it */
	frame_seal_hdr(&h);
	if (j->params) {	/* a proof names its partition: the seed goes first */
		memcpy(id.seed, j->seed, j->seed_len);
		frame_init(&idh, FRAME_PART_ID, h.job, h.partition, h.kind, h.log_size, h.gen);
		frame_seal(&idh, &id, sizeof id);
		memcpy(buf, &idh, sizeof idh);
		memcpy(buf + sizeof idh, &id, sizeof id);
		len = sizeof idh + sizeof id;
	}
	memcpy(buf + len, &h, sizeof h);
	len += sizeof h;
	g->hdr_for = (int)si;
	g->hdr_len = (uint32_t)len;
	c->relay_pending = 1;
	c->relay_op = OP_HEADER;
	contain_send_file(s, gi, g->hold[g->nhold - 1].job);	/* where it stores the result */
	child_write(s, gi, buf, len);
}

/* The one place the mode changes. */
static void relay_apply(struct sup *s, uint32_t si, enum relay_event ev)
{
	struct child *c = &s->child[si];
	struct relay_step st = relay_fsm(c->relay, ev);

	if (st.actions & RA_IMPOSSIBLE) {
		sup_log("synth.%u relay: %s in mode %s is %s; ignored", c->slot, relay_event_name(ev),
			relay_mode_name(c->relay), st.what);
		return;
	}
	c->relay = st.next;
	if ((st.actions & RA_FORGET_DST) && c->relay_dst >= 0) {
		s->child[c->relay_dst].src_child = -1;
		c->relay_dst = -1;
	}
	if (st.actions & RA_SEND_HEADER)
		send_header(s, si);
	/* RA_FINISH: relay_next ends it once nothing is in flight */
}

/* The synth si can no longer give its payload. */
static void src_lost(struct sup *s, uint32_t si)
{
	relay_apply(s, si, REV_SRC_LOST);
}

/* The gpuworker cannot take the payload any more; why: kill it for that
 * (NULL when it is already dead). Its exit requeues the partition. */
static void dst_lost(struct sup *s, uint32_t si, const char *why)
{
	struct child *c = &s->child[si];

	if (why && c->relay_dst >= 0)
		child_kill(s, (uint32_t)c->relay_dst, why);
	relay_apply(s, si, REV_DST_LOST);
}

/* The relay ended and nothing is in flight: the synth reads its next
 * frame, and a dead one may now restart. */
static void relay_done(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];

	c->relay_left = 0;
	if (c->relay_dst >= 0) {	/* not reached: every way to IDLE forgets it */
		s->child[c->relay_dst].src_child = -1;
		c->relay_dst = -1;
	}
	if (child_alive(c) && !child_state_ending(c->state)) {
		c->rd = RD_HDR;
		c->hdr_have = 0;
		child_arm_read(s, si);
	}
	child_restart_due(s, si);	/* a dead source waited for this */
}

/* The whole payload reached the gpuworker: the partition's synth time is
 * what the synth took to stream it, from its SYNTH_REQ to its last byte,
 * less the wait between its first byte and a GPU taking it (its own rows
 * came as fast as the destination read them). */
static void synth_time(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];
	struct part_ref *r = &c->relay_ref;
	struct part *pt;

	if (!jobs_wanted(s, r))
		return;
	pt = &s->jobs[r->job].part[r->part];
	pt->synth_ns = (pt->ready_ns - pt->synth_start_ns) + (shm_now_mono() - c->relay_start_ns);
	jobs_publish(s, r->job);
}

/* Start the next operation the mode wants, or end the relay. */
static void relay_next(struct sup *s, uint32_t si)
{
	struct child *c = &s->child[si];
	uint64_t ud = loop_ud(EV_CHILD_SPLICE, child_who(s, si));
	unsigned len = c->relay_left > SUP_RELAY_CHUNK ? SUP_RELAY_CHUNK : (unsigned)c->relay_left;

	if (c->relay_pending)
		return;		/* its completion calls us again */
	if (c->relay == RELAY_IDLE) {
		relay_done(s, si);
		return;
	}
	if (c->relay == RELAY_HEADER) {	/* its write is always in flight */
		sup_log("synth.%u relay: header mode with nothing in flight; draining", c->slot);
		dst_lost(s, si, "relay header lost");
		relay_next(s, si);
		return;
	}
	if (!c->relay_left) {
		if (c->relay == RELAY_SPLICE)
			synth_time(s, si);
		relay_apply(s, si, REV_ALL_MOVED);
		relay_next(s, si);
		return;
	}
	if (c->relay == RELAY_PAD) {
		if (len > sizeof zeros)
			len = sizeof zeros;
		io_uring_prep_write(loop_sqe(&s->loop, ud), s->child[c->relay_dst].in_fd, zeros, len,
				    (uint64_t)-1);
		c->relay_op = OP_PAD;
		c->relay_op_dst = c->relay_dst;
		s->child[c->relay_dst].in_ops++;
	} else {
		int drain = c->relay == RELAY_DRAIN;
		int dst = drain ? s->nullfd : s->child[c->relay_dst].in_fd;
		io_uring_prep_splice(loop_sqe(&s->loop, ud), c->out_fd, -1, dst, -1, len, SPLICE_F_MOVE);
		c->relay_op = drain ? OP_TO_NULL : OP_TO_GPU;
		c->relay_op_dst = drain ? -1 : c->relay_dst;
		c->out_ops++;
		if (!drain)
			s->child[c->relay_dst].in_ops++;
	}
	c->relay_pending = 1;
}

void relay_start(struct sup *s, uint32_t si, uint32_t gi)
{
	struct child *c = &s->child[si], *g = &s->child[gi];
	struct part_ref r = c->hold[0];
	struct part *pt = &s->jobs[r.job].part[r.part];

	r.gen = ++s->next_gen;
	r.from = c->pid;
	r.from_child = (int)si;
	part_hold(s, gi, &r);
	c->relay_ref = r;
	c->relay_start_ns = shm_now_mono();
	part_unhold_all(s, si);
	c->relay_dst = (int)gi;
	g->src_child = (int)si;
	relay_apply(s, si, REV_START);
	part_event(s, r.job, r.part, PEV_RELAYED, NULL);
	pt->gpu_child = (int16_t)gi;
	jobs_publish(s, r.job);
}

void relay_discard(struct sup *s, uint32_t si)
{
	relay_apply(s, si, REV_DISCARD);
	relay_next(s, si);
}

void relay_on_src_exit(struct sup *s, uint32_t si)
{
	if (s->child[si].relay == RELAY_IDLE)
		return;		/* no relay, or one ending: nothing to settle */
	src_lost(s, si);
	relay_next(s, si);
}

void relay_on_dst_exit(struct sup *s, uint32_t gi)
{
	int si = s->child[gi].src_child;

	if (si < 0)
		return;
	dst_lost(s, (uint32_t)si, NULL);
	relay_next(s, (uint32_t)si);
}

/* A relay splice, drain or pad write of synth si finished. */
void sched_on_splice(struct sup *s, uint32_t si, int res)
{
	struct child *c = &s->child[si];
	int op = c->relay_op, op_dst = c->relay_op_dst;

	c->relay_pending = 0;
	c->relay_op = OP_NONE;
	c->relay_op_dst = -1;
	if (res > 0) {
		c->relay_left -= (uint64_t)res > c->relay_left ? c->relay_left : (uint64_t)res;
	} else if (res == 0 && op != OP_PAD) {
		src_lost(s, si);	/* its stdout ended early: it is dying */
	} else if (res < 0 && op == OP_TO_NULL) {
		src_lost(s, si);	/* cannot even drain it: the source is broken */
	} else if (res < 0 && c->relay_dst >= 0) {
		/* The destination broke (EPIPE): it is dying. */
		char why[80];
		snprintf(why, sizeof why, "relay into it failed: %s", strerror(-res));
		dst_lost(s, si, why);
	}
	/* res < 0 on the way to a gpuworker whose loss is already settled:
	 * the mode switched meanwhile, nothing moved; just go on. */
	relay_next(s, si);
	/* Last: settling a dead child's fds may start its next incarnation,
	 * which must not meet this relay's state. */
	if (op_dst >= 0)
		child_io_done(s, (uint32_t)op_dst, 1, 0);
	if (op != OP_PAD)
		child_io_done(s, si, 0, 1);
}

/* A write to child ci's stdin finished: a SYNTH_REQ, or a relay header. */
void sched_on_write(struct sup *s, uint32_t ci, int res)
{
	struct child *c = &s->child[ci];

	c->wr_pending = 0;
	if (c->kind == CHILD_GPU && c->hdr_for >= 0) {	/* a relay's header */
		uint32_t si = (uint32_t)c->hdr_for;
		struct child *src = &s->child[si];
		c->hdr_for = -1;
		src->relay_pending = 0;
		src->relay_op = OP_NONE;
		if (res != (int)c->hdr_len && src->relay_dst == (int)ci)
			dst_lost(s, si, "relay header write failed");
		relay_apply(s, si, REV_HDR_DONE);
		/* last: settling its fds may start its next incarnation */
		child_io_done(s, ci, 1, 0);
		relay_next(s, si);
		return;
	}
	int alive = child_alive(c);
	child_io_done(s, ci, 1, 0);	/* dead: may start its next incarnation */
	if (!alive)
		return;
	if (res < 0)
		child_kill(s, ci, "write to its stdin failed");
	if (s->stopping && child_state_ending(c->state))
		child_close_in(s, ci);
}
