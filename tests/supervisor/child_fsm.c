/*
 * The workers' lifecycle table (supervisor/child_fsm.c) walked pair by
 * pair, with no process: every state x event pair is named; its next
 * state is the one written independently below; an impossible pair
 * changes nothing and says so; each action appears exactly on the pairs
 * that need it (a signal only to a live process, a spawn only from DOWN,
 * a restart backoff only after a crash); a process comes into being only
 * by SPAWNED and ends only by an exit; and two lifecycles (crash, restart,
 * crash-loop disable, enable; operator disable and drain) run through.
 */
#include "supervisor/child_fsm.h"
#include "tests/helpers.h"

/* Next state per pair, '-' where the pair is impossible.
 * States D(own) S(tarting) R(eady) T(stopping) K(illed) X(disabled);
 * events in enum order: spawned, spawn failed, hello, kill, stop, retire,
 * exit crash, exit stopped, exit disable, disable, enable, backoff. */
static const char *const expect[CH_NSTATES] = {
	[CH_DOWN] =	"SD--D----XDD",
	[CH_STARTING] =	"--RKT-DDXSS-",
	[CH_READY] =	"---KTTDDXRR-",
	[CH_STOPPING] =	"--TKT-DDXTT-",
	[CH_KILLED] =	"--KKK-DDXKK-",
	[CH_DISABLED] =	"----X----XD-",
};

static enum child_state letter(char c)
{
	const char *l = "DSRTKX";
	return (enum child_state)(strchr(l, c) - l);
}

static int has(enum child_state st, enum child_event ev, unsigned a)
{
	return (child_fsm(st, ev).actions & a) != 0;
}

static void walk(enum child_state *st, enum child_event ev, enum child_state want)
{
	struct child_step t = child_fsm(*st, ev);

	CHECK(!(t.actions & CA_IMPOSSIBLE) && t.next == want, "%s x %s -> %s, expected %s",
	      child_state_name(*st), child_event_name(ev), child_state_name(t.next),
	      child_state_name(want));
	*st = t.next;
}

int main(void)
{
	unsigned pairs = 0, impossible = 0;

	CHECK(strlen(expect[0]) == CEV_NEVENTS, "the expected table lacks events");
	for (int st = 0; st < CH_NSTATES; st++) {
		CHECK(strcmp(child_state_name(st), "?"), "state %d has no name", st);
		for (int ev = 0; ev < CEV_NEVENTS; ev++) {
			struct child_step t = child_fsm(st, ev);
			char e = expect[st][ev];
			const char *sn = child_state_name(st), *en = child_event_name(ev);

			CHECK(strcmp(en, "?"), "event %d has no name", ev);
			CHECK(t.what && strcmp(t.what, "unnamed pair"), "%s x %s is not named", sn, en);
			pairs++;
			if (e == '-') {
				CHECK(t.actions == CA_IMPOSSIBLE && t.next == (enum child_state)st,
				      "%s x %s should be impossible (next %s, actions %#x)", sn, en,
				      child_state_name(t.next), t.actions);
				impossible++;
				continue;
			}
			CHECK(!(t.actions & CA_IMPOSSIBLE), "%s x %s is possible", sn, en);
			CHECK(t.next == letter(e), "%s x %s -> %s, expected %s", sn, en,
			      child_state_name(t.next), child_state_name(letter(e)));
			/* A process appears only by SPAWNED, goes only by an exit. */
			if (!child_state_alive(st) && child_state_alive(t.next))
				CHECK(ev == CEV_SPAWNED, "%s x %s makes a process", sn, en);
			if (child_state_alive(st) && !child_state_alive(t.next))
				CHECK(ev == CEV_EXIT_CRASH || ev == CEV_EXIT_STOPPED || ev == CEV_EXIT_DISABLE,
				      "%s x %s loses a process", sn, en);
			/* Signals and EOF only to a live process. */
			if (t.actions & (CA_SIGKILL | CA_SIGTERM | CA_CLOSE_IN))
				CHECK(child_state_alive(st), "%s x %s signals no process", sn, en);
			CHECK(!(t.actions & CA_SIGKILL) || t.next == CH_KILLED, "%s x %s", sn, en);
			CHECK(!(t.actions & CA_SPAWN) || (st == CH_DOWN && ev == CEV_BACKOFF_ELAPSED),
			      "%s x %s spawns", sn, en);
			CHECK(!!(t.actions & CA_BACKOFF) == (ev == CEV_EXIT_CRASH), "%s x %s backoff", sn, en);
			CHECK(!!(t.actions & CA_RESET) == (st == CH_DISABLED && ev == CEV_ENABLE),
			      "%s x %s reset", sn, en);
			CHECK(!!(t.actions & CA_RETRY_LATER) == (ev == CEV_SPAWN_FAILED), "%s x %s", sn, en);
			CHECK(!!(t.actions & CA_SHOW_STOPPED) == (ev == CEV_EXIT_STOPPED), "%s x %s", sn, en);
			CHECK(!!(t.actions & CA_SHOW_DISABLED) ==
			      (ev == CEV_EXIT_DISABLE || (st == CH_DOWN && ev == CEV_DISABLE)), "%s x %s", sn, en);
			CHECK(!!(t.actions & CA_MARK_DISABLED) == (ev == CEV_DISABLE), "%s x %s", sn, en);
			CHECK(!!(t.actions & CA_CLEAR_DISABLED) == (ev == CEV_ENABLE), "%s x %s", sn, en);
		}
	}
	/* The signals, pair by pair. */
	CHECK(has(CH_STARTING, CEV_KILL, CA_SIGKILL) && has(CH_READY, CEV_KILL, CA_SIGKILL) &&
	      has(CH_STOPPING, CEV_KILL, CA_SIGKILL) && !has(CH_KILLED, CEV_KILL, CA_SIGKILL),
	      "SIGKILL: once, to a live process (the first reason stands)");
	CHECK(has(CH_STARTING, CEV_STOP, CA_CLOSE_IN | CA_SIGTERM) && has(CH_READY, CEV_STOP, CA_SIGTERM) &&
	      has(CH_STOPPING, CEV_STOP, CA_SIGTERM) && !has(CH_KILLED, CEV_STOP, CA_SIGTERM) &&
	      has(CH_KILLED, CEV_STOP, CA_CLOSE_IN), "stop: EOF to every live child, SIGTERM unless killed");
	CHECK(has(CH_READY, CEV_RETIRE, CA_CLOSE_IN) && !has(CH_READY, CEV_RETIRE, CA_SIGTERM),
	      "a drained disabled worker gets EOF only");
	/* Out of range: impossible, state kept. */
	struct child_step t = child_fsm(CH_READY, CEV_NEVENTS);
	CHECK(t.actions == CA_IMPOSSIBLE && t.next == CH_READY, "an unknown event is not reported");
	t = child_fsm(CH_NSTATES, CEV_HELLO);
	CHECK(t.actions == CA_IMPOSSIBLE, "an unknown state is not reported");

	/* A crash, its restart, a crash loop that disables, an enable. */
	enum child_state st = CH_DOWN;
	walk(&st, CEV_SPAWNED, CH_STARTING);
	walk(&st, CEV_HELLO, CH_READY);
	walk(&st, CEV_KILL, CH_KILLED);
	walk(&st, CEV_KILL, CH_KILLED);
	walk(&st, CEV_EXIT_CRASH, CH_DOWN);
	walk(&st, CEV_BACKOFF_ELAPSED, CH_DOWN);
	walk(&st, CEV_SPAWN_FAILED, CH_DOWN);
	walk(&st, CEV_SPAWNED, CH_STARTING);
	walk(&st, CEV_EXIT_DISABLE, CH_DISABLED);
	walk(&st, CEV_STOP, CH_DISABLED);
	walk(&st, CEV_ENABLE, CH_DOWN);
	walk(&st, CEV_SPAWNED, CH_STARTING);
	/* An operator's disable: drained, EOF, kept down; then stopping. */
	walk(&st, CEV_DISABLE, CH_STARTING);
	walk(&st, CEV_HELLO, CH_READY);
	walk(&st, CEV_RETIRE, CH_STOPPING);
	walk(&st, CEV_EXIT_DISABLE, CH_DISABLED);
	walk(&st, CEV_ENABLE, CH_DOWN);
	walk(&st, CEV_SPAWNED, CH_STARTING);
	walk(&st, CEV_STOP, CH_STOPPING);
	walk(&st, CEV_HELLO, CH_STOPPING);
	walk(&st, CEV_EXIT_STOPPED, CH_DOWN);
	walk(&st, CEV_STOP, CH_DOWN);
	printf("info: %u state x event pairs, %u of them impossible (named, reported)\n", pairs,
	       impossible);
	return 0;
}
