/*
 * The partition's lifecycle table (supervisor/part_fsm.c) walked pair by
 * pair, with no process and no ring: every state x event pair is named;
 * its next state is the one written independently below; an impossible
 * pair changes nothing and says so; only a worker's death or FAIL charges
 * an attempt, and always forgets the holders; a pre-emption never charges
 * one; a done partition leaves done only when its result is wrong or lost;
 * failed and cancelled are left only by a retry (or a cancel of a failed
 * job); and every path from queued through the pipeline reaches done.
 */
#include "supervisor/part_fsm.h"
#include "tests/helpers.h"

/* Next state per pair, '-' where impossible. States Q(ueued) S(ynth)
 * R(eady) P(roving) D(one) F(ailed) C(ancelled); events in enum order:
 * sent, ready, relayed, stored, store error, holder died, failed, take
 * back, pre-empted, cancelled, wrong, lost, job ended, retry, unrun. */
static const char *const expect[SHM_PART_NSTATES] = {
	[SHM_PART_QUEUED] =	"S--DQQQQQC--FQQ",
	[SHM_PART_SYNTH] =	"-R-DQQQSQC--SQQ",
	[SHM_PART_READY] =	"--PDQQQRQC--RQQ",
	[SHM_PART_PROVING] =	"---DQQQPQCQ-PQQ",
	[SHM_PART_DONE] =	"---------DQQDD-",
	[SHM_PART_FAILED] =	"---------C--FQ-",
	[SHM_PART_CANCELLED] =	"---------C--CQ-",
};

static unsigned letter(char c)
{
	const char *l = "QSRPDFC";
	return (unsigned)(strchr(l, c) - l);
}

int main(void)
{
	unsigned walk[] = { SHM_PART_QUEUED };
	int named = 0;

	CHECK(strlen(expect[0]) == PEV_NEVENTS, "the expectation has %zu events, the table %d",
	      strlen(expect[0]), PEV_NEVENTS);
	for (unsigned st = 0; st < SHM_PART_NSTATES; st++)
		for (unsigned ev = 0; ev < PEV_NEVENTS; ev++) {
			struct part_step t = part_fsm(st, (enum part_event)ev);
			char want = expect[st][ev];
			const char *pair = part_state_name(st), *evn = part_event_name((enum part_event)ev);

			CHECK(t.what && strcmp(t.what, "unnamed pair"), "%s x %s: unnamed", pair, evn);
			named++;
			if (want == '-') {
				CHECK(t.actions == PA_IMPOSSIBLE && t.next == st, "%s x %s: should be impossible", pair, evn);
				continue;
			}
			CHECK(!(t.actions & PA_IMPOSSIBLE), "%s x %s: impossible, expected %c", pair, evn, want);
			CHECK(t.next == letter(want), "%s x %s: goes to %s, expected %c", pair, evn,
			      part_state_name(t.next), want);
			CHECK(!(t.actions & PA_ATTEMPT) == !(ev == PEV_HOLDER_DIED || ev == PEV_FAILED),
			      "%s x %s: attempt charged %s", pair, evn, t.actions & PA_ATTEMPT ? "wrongly" : "not");
			if (t.actions & PA_ATTEMPT)
				CHECK(t.actions & PA_FORGET_HOLDERS, "%s x %s: an attempt without forgetting", pair, evn);
			if (ev == PEV_PREEMPTED)
				CHECK((t.actions & PA_CLEAR_PREEMPT) && t.next == SHM_PART_QUEUED, "%s: pre-empted", pair);
			if (ev == PEV_TAKE_BACK)
				CHECK(t.actions == PA_SET_PREEMPT && t.next == st, "%s: take back moved it", pair);
			if (st == SHM_PART_DONE && t.next != SHM_PART_DONE)
				CHECK(ev == PEV_WRONG || ev == PEV_LOST, "done left by %s", evn);
			if ((st == SHM_PART_FAILED || st == SHM_PART_CANCELLED) && t.next != st)
				CHECK(ev == PEV_RETRY || (st == SHM_PART_FAILED && ev == PEV_CANCELLED),
				      "%s left by %s", pair, evn);
			if (ev == PEV_RETRY && t.next == SHM_PART_QUEUED)
				CHECK(t.actions & PA_RESET, "%s: a retry that keeps the attempts", pair);
			if (t.actions & PA_FORGET_RESULT)
				CHECK(t.next == SHM_PART_QUEUED, "%s x %s: a result forgotten, not requeued", pair, evn);
		}
	/* the pipeline's path, and a death at each step comes back to queued */
	static const enum part_event path[] = { PEV_SENT, PEV_READY, PEV_RELAYED, PEV_STORED };
	unsigned st = walk[0];
	for (size_t i = 0; i < sizeof path / sizeof path[0]; i++) {
		CHECK(part_fsm(st, PEV_HOLDER_DIED).next == SHM_PART_QUEUED || st == SHM_PART_DONE,
		      "a death while %s", part_state_name(st));
		st = part_fsm(st, path[i]).next;
	}
	CHECK(st == SHM_PART_DONE, "the path ends %s", part_state_name(st));
	CHECK(!strcmp(part_state_name(99), "?") && !strcmp(part_event_name(PEV_NEVENTS), "?"), "names out of range");
	CHECK(part_fsm(99, PEV_SENT).actions == PA_IMPOSSIBLE, "a state out of range");
	printf("ok: %d pairs\n", named);
	return 0;
}
