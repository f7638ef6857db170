/*
 * watchdog: the tick's work on children. A worker that said no HELLO, or
 * whose heartbeat stopped, within heartbeat_timeout, or whose partition
 * ran past its kind's deadline, is killed (and what it held requeued, as
 * for a crash); a child whose backoff passed starts again; a disabled one
 * is retired once it holds nothing. Also the operator's enable/disable
 * and the stop of every child, each an event of child_fsm.c.
 */
#include <errno.h>
#include <stdio.h>

#include "supervisor/sup.h"

/* Start a DOWN child again if its backoff has passed and the dead one's
 * fds and writes are settled (their completions must not meet the new
 * incarnation); else the tick, or the last settling operation, calls
 * this again. */
void child_restart_due(struct sup *s, uint32_t ci)
{
	struct child *c = &s->child[ci];

	if (s->stopping || c->state != CH_DOWN || shm_now_mono() < c->restart_at_ns ||
	    c->in_fd >= 0 || c->out_fd >= 0 || c->relay_pending)
		return;
	child_event(s, ci, CEV_BACKOFF_ELAPSED, NULL);
}

/* How long a partition of this kind and size may run: the configured
 * deadline, else 20x the longest seen so far (at least 10 s), else 5 min. */
static uint64_t deadline_ns(const struct sup *s, uint32_t kind)
{
	uint64_t ms;

	if (kind < 1 || kind > VOCAB_NKINDS)
		return 300ull * 1000000000u;
	ms = s->conf.kind[kind].deadline_ms;
	if (ms)
		return ms * 1000000u;
	if (!s->longest_ns[kind])
		return 300ull * 1000000000u;
	return s->longest_ns[kind] * 20 > 10000000000ull ? s->longest_ns[kind] * 20 : 10000000000ull;
}

/* The watchdog: a partition past its deadline, or a worker whose
 * heartbeat stopped, gets the worker killed (and requeued like a crash). */
static void watchdog(struct sup *s, uint32_t ci, uint64_t now)
{
	struct child *c = &s->child[ci];
	uint64_t hb_limit = s->conf.heartbeat_timeout_ms * 1000000u;
	struct shm_slot v;
	char why[96];

	if (c->state == CH_STARTING) {
		if (now - c->started_ns > hb_limit)
			child_kill(s, ci, "hung: no HELLO within the heartbeat timeout");
		return;
	}
	if (c->state != CH_READY || shm_read_slot(&s->seg, child_table(c), c->slot, &v) < 0 ||
	    v.pid != (uint32_t)c->pid)
		return;
	/* synth beats only while it works; gpuworker has a heartbeat thread */
	if ((c->kind == CHILD_GPU || v.state == SHM_SLOT_BUSY) && now > v.heartbeat_mono_ns &&
	    now - v.heartbeat_mono_ns > hb_limit) {
		snprintf(why, sizeof why, "hung: no heartbeat for %llu ms",
			 (unsigned long long)((now - v.heartbeat_mono_ns) / 1000000));
		child_kill(s, ci, why);
		return;
	}
	/* A synth streams its rows only as fast as a gpuworker takes them:
	 * waiting for one is not its fault, so its clock starts again with
	 * the relay. */
	uint64_t since = v.part_since_ns;
	if (c->kind == CHILD_SYNTH && c->rd == RD_HELD) {
		if (c->relay == RELAY_IDLE)
			return;
		if (c->relay_start_ns > since)
			since = c->relay_start_ns;
	}
	if (v.state == SHM_SLOT_BUSY && now > since && now - since > deadline_ns(s, v.kind)) {
		snprintf(why, sizeof why, "hung: job %llu partition %u past its %llu ms deadline",
			 (unsigned long long)v.job_id, v.partition,
			 (unsigned long long)(deadline_ns(s, v.kind) / 1000000));
		child_kill(s, ci, why);
	}
}

/* Restart children whose backoff has passed; stop disabled ones once
 * they hold nothing. */
void child_tick(struct sup *s, uint64_t now)
{
	if (s->stopping)
		return;
	for (uint32_t i = 0; i < s->nchild; i++) {
		struct child *c = &s->child[i];
		if (child_alive(c) && !child_state_ending(c->state))
			watchdog(s, i, now);
		if (c->disabled && child_serving(c) && child_idle(c)) {
			child_event(s, i, CEV_RETIRE, NULL);	/* EOF: it exits */
			continue;
		}
		child_restart_due(s, i);
	}
}

/* Stop: every live child's stdin is closed (it finishes and exits) and
 * it gets SIGTERM (one already SIGKILLed only the EOF); run.c SIGKILLs
 * those still alive after the grace period. */
void child_stop_all(struct sup *s)
{
	for (uint32_t i = 0; i < s->nchild; i++)
		child_event(s, i, CEV_STOP, NULL);
}

int child_set_enabled(struct sup *s, uint32_t table, uint32_t slot, int enable,
		      char *err, size_t errlen)
{
	for (uint32_t i = 0; i < s->nchild; i++) {
		struct child *c = &s->child[i];
		if (child_table(c) != table || c->slot != slot)
			continue;
		c->disable_reason = enable ? SHM_DISABLE_NONE : SHM_DISABLE_OPERATOR;
		child_event(s, i, enable ? CEV_ENABLE : CEV_DISABLE, NULL);
		return 0;
	}
	snprintf(err, errlen, "no %s slot %u", table == SHM_T_GPU ? "gpu" : "synth", slot);
	return -ENOENT;
}
