/*
 * top: the live view of an instance (tui/top.c), or of a fleet from its
 * database (tui/top_fleet.c); `provisor top` parses its flags into
 * struct top_opts (cli/cmd_top.c) and hands them over here.
 */
#ifndef TUI_TOP_H
#define TUI_TOP_H

#include <stdint.h>

#define TOP_MAX_ERRORS 10	/* input errors in a row: the terminal is gone */
#define TOP_MSG_MS 4000		/* a status line message stays this long */

struct canvas;
struct top_view;

struct top_opts {
	const char *name;	/* the instance */
	unsigned tenths;	/* refresh, 1..600 tenths of a second */
	int once, color, ascii, width;
	int read_only;		/* no cancel, disable, enable from the view */
	const char *fleet;	/* --fleet DSN: every node of a fleet instead (tui/top_fleet.c) */
};

/* Runs the view (or one frame with once, or off a terminal); returns the
 * exit status: 0 running, 3 not running/responding, 1 or 2 on errors. */
int top_main(struct top_opts *o);
/* The same for a fleet (o->fleet): 0, 1 when --once got no answer from
 * the database, 2 for a bad DSN. */
int top_fleet_main(struct top_opts *o);

/* Before each frame of either view: the status line's message goes
 * TOP_MSG_MS after it first showed (*msg_until, 0: none showing), and
 * the canvas takes the terminal's size. */
void top_frame_begin(struct top_view *v, struct canvas *cv, uint64_t *msg_until, uint64_t now_ms);

#endif
