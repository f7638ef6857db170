/*
 * layout: where each pane of `provisor top` goes, as a pure function of the
 * terminal size and how much there is to show. No terminal, no data
 * structures beyond counts: tests/tui/layout.c checks it over every size
 * from 1x1 to 300x100 (inside the screen, no two panes overlapping).
 */
#ifndef TUI_LAYOUT_H
#define TUI_LAYOUT_H

#include "tui/canvas.h"

enum layout_pane {
	L_NONE = 0,	/* canvas owner 0: nobody drew it */
	L_HEADER,
	L_GPU,
	L_SYNTH,
	L_JOBS,
	L_EVENTS,
	L_HELP,		/* replaces the panes while help is open */
	L_DETAIL,	/* replaces the panes while a detail view is open */
	L_FOOTER,	/* key hints, filter prompt, "too small" message */
	L_METERS,	/* one cell per slot under the header */
	L_NODES,	/* top --fleet: every node of the fleet */
	L_QUEUE,	/* top --fleet: the queue per kind */
	L_NPANES
};

#define LAYOUT_MIN_ROWS 6
#define LAYOUT_MIN_COLS 32
#define LAYOUT_WIDE_COLS 160	/* from here jobs and events go to the right */

struct layout_in {
	int ngpu, nsynth, njobs, nevents;
	int help, detail;
	int no_meters;	/* the meters turned off (key m) */
};

/* The meters: one cell per slot, GPU slots then synth, row by row. A cell
 * is the slot ("g07", idw columns), its state letter, its utilization
 * ("100%", 4 columns, after a blank) and a sparkline of spark columns;
 * cells are one blank apart. */
#define LAYOUT_SPARK_MAX 16
#define LAYOUT_SPARK_MIN 6
struct layout_meters {
	int n;		/* cells wanted (slots) */
	int idw, spark, cell_w, per_row, rows;
};

struct layout {
	struct cv_rect r[L_NPANES];	/* h or w 0: not shown */
	int tiny;	/* below LAYOUT_MIN_*: header and a message only */
	int hidden;	/* panes left out for lack of rows */
	struct layout_meters m;	/* the meters' geometry (rows 0: none) */
};

void layout_compute(int rows, int cols, const struct layout_in *in, struct layout *out);
/* top --fleet's frame: LAYOUT_FLEET_HEADER header rows (the fleet, its
 * totals, the database), the nodes pane over the queue pane (the queue
 * as tall as its kinds, the nodes the rest), one footer row; help or a
 * node's detail instead of the panes. Below LAYOUT_MIN_* it is tiny as
 * layout_compute's: one header row and the footer. */
#define LAYOUT_FLEET_HEADER 3
void layout_fleet(int rows, int cols, int nnodes, int nkinds, int help, int detail, struct layout *out);
/* The meters' geometry for n = ngpu + nsynth cells in cols columns and at
 * most max_rows rows: the longest sparkline (up to LAYOUT_SPARK_MAX) that
 * costs at most two rows more than none, or none if that is shorter than
 * LAYOUT_SPARK_MIN; rows * per_row < n means the
 * last cell shows how many did not fit. */
void layout_meters(int cols, int ngpu, int nsynth, int max_rows, struct layout_meters *m);

static inline int layout_shown(const struct layout *l, int pane)
{
	return l->r[pane].h > 0 && l->r[pane].w > 0;
}

#endif
