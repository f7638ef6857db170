/*
 * The relay's mode table (supervisor/relay_fsm.c) walked pair by pair,
 * with no process and no ring: every mode x event pair is named; its next
 * mode is the one written independently below; an impossible pair changes
 * nothing and says so; losing the source never leaves a mode that reads
 * the source, losing the destination never one that writes to it; every
 * order of both losses, from every mode a relay can be in, ends the relay
 * (FINISH, IDLE); the header is sent only at the start.
 */
#include "supervisor/relay_fsm.h"
#include "tests/helpers.h"

/* Next mode per pair, '-' where impossible. Modes I(dle) H(eader)
 * S(plice) D(rain) P(ad); events in enum order: start, discard, header
 * done, all moved, source lost, destination lost. */
static const char *const expect[RELAY_NMODES] = {
	[RELAY_IDLE] =		"HDI-I-",
	[RELAY_HEADER] =	"--S-PD",
	[RELAY_SPLICE] =	"---IPD",
	[RELAY_DRAIN] =		"--DII-",
	[RELAY_PAD] =		"--PIPI",
};

static enum relay_mode letter(char c)
{
	const char *l = "IHSDP";
	return (enum relay_mode)(strchr(l, c) - l);
}

static int reads_src(enum relay_mode m) { return m == RELAY_HEADER || m == RELAY_SPLICE || m == RELAY_DRAIN; }
static int writes_dst(enum relay_mode m) { return m == RELAY_HEADER || m == RELAY_SPLICE || m == RELAY_PAD; }

/* Apply ev; the pair must be possible. */
static struct relay_step step(enum relay_mode *m, enum relay_event ev)
{
	struct relay_step t = relay_fsm(*m, ev);

	CHECK(!(t.actions & RA_IMPOSSIBLE), "%s x %s is impossible", relay_mode_name(*m),
	      relay_event_name(ev));
	*m = t.next;
	return t;
}

int main(void)
{
	unsigned pairs = 0, impossible = 0;

	CHECK(strlen(expect[0]) == REV_NEVENTS, "the expected table lacks events");
	for (int m = 0; m < RELAY_NMODES; m++) {
		CHECK(strcmp(relay_mode_name(m), "?"), "mode %d has no name", m);
		for (int ev = 0; ev < REV_NEVENTS; ev++) {
			struct relay_step t = relay_fsm(m, ev);
			char e = expect[m][ev];
			const char *mn = relay_mode_name(m), *en = relay_event_name(ev);

			CHECK(strcmp(en, "?"), "event %d has no name", ev);
			CHECK(t.what && strcmp(t.what, "unnamed pair"), "%s x %s is not named", mn, en);
			pairs++;
			if (e == '-') {
				CHECK(t.actions == RA_IMPOSSIBLE && t.next == (enum relay_mode)m,
				      "%s x %s should be impossible", mn, en);
				impossible++;
				continue;
			}
			CHECK(!(t.actions & RA_IMPOSSIBLE) && t.next == letter(e), "%s x %s -> %s, expected %s",
			      mn, en, relay_mode_name(t.next), relay_mode_name(letter(e)));
			if (ev == REV_SRC_LOST)
				CHECK(!reads_src(t.next), "%s x source lost still reads it", mn);
			if (ev == REV_DST_LOST)
				CHECK(!writes_dst(t.next) && (t.actions & RA_FORGET_DST),
				      "%s x destination lost still writes to it", mn);
			CHECK(!!(t.actions & RA_SEND_HEADER) == (m == RELAY_IDLE && ev == REV_START),
			      "%s x %s header", mn, en);
			/* Ending a relay finishes it; a transition into a mode without a
			 * destination forgets it. */
			if (m != RELAY_IDLE && t.next == RELAY_IDLE)
				CHECK(t.actions & RA_FINISH, "%s x %s ends without finishing", mn, en);
			if (m != RELAY_IDLE && m != RELAY_DRAIN && (t.next == RELAY_IDLE || t.next == RELAY_DRAIN))
				CHECK(t.actions & RA_FORGET_DST, "%s x %s keeps a destination", mn, en);
		}
	}
	CHECK(relay_fsm(RELAY_PAD, REV_NEVENTS).actions == RA_IMPOSSIBLE, "unknown event");
	CHECK(relay_fsm(RELAY_NMODES, REV_START).actions == RA_IMPOSSIBLE, "unknown mode");

	/* Both ends lost, in either order, from each mode with both ends:
	 * the relay ends, finished, whatever was in flight. */
	for (int m0 = RELAY_HEADER; m0 <= RELAY_SPLICE; m0++)
		for (int order = 0; order < 2; order++) {
			enum relay_mode m = (enum relay_mode)m0;
			struct relay_step t;
			step(&m, order ? REV_DST_LOST : REV_SRC_LOST);
			t = step(&m, order ? REV_SRC_LOST : REV_DST_LOST);
			if (m0 == RELAY_HEADER)	/* the header's completion comes last */
				t = step(&m, REV_HDR_DONE);
			CHECK(m == RELAY_IDLE && (t.actions & RA_FINISH), "%s, both lost (%s first): %s",
			      relay_mode_name(m0), order ? "destination" : "source", relay_mode_name(m));
		}
	/* The whole way: start, header, splice, done; and a discarded one. */
	enum relay_mode m = RELAY_IDLE;
	step(&m, REV_START);
	step(&m, REV_HDR_DONE);
	CHECK(m == RELAY_SPLICE, "after the header: %s", relay_mode_name(m));
	CHECK(step(&m, REV_ALL_MOVED).actions & RA_FINISH, "relayed, not finished");
	step(&m, REV_DISCARD);
	step(&m, REV_SRC_LOST);
	CHECK(m == RELAY_IDLE, "a drain whose source died goes on");
	/* A source lost twice (its EOF, then its exit) is settled once. */
	m = RELAY_SPLICE;
	step(&m, REV_SRC_LOST);
	step(&m, REV_SRC_LOST);
	CHECK(m == RELAY_PAD, "a second source loss changed the mode");
	printf("info: %u mode x event pairs, %u of them impossible (named, reported)\n", pairs,
	       impossible);
	return 0;
}
