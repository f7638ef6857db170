/*
 * render: one frame of `provisor top` drawn into a canvas, as a pure
 * function of the canvas size, a snapshot and the view state (focus,
 * selection, filter, help, detail). The terminal module only copies the
 * canvas out; --once prints it; tests/tui/layout.c renders every size.
 */
#ifndef TUI_RENDER_H
#define TUI_RENDER_H

#include "tui/canvas.h"
#include "tui/hist.h"
#include "tui/layout.h"
#include "tui/nvml.h"
#include "tui/snap.h"

struct top_view {
	int focus;			/* L_GPU, L_SYNTH, L_JOBS or L_EVENTS (--fleet: L_NODES, L_QUEUE) */
	int sel[L_NPANES], first[L_NPANES];	/* selected row, first row shown */
	int count[L_NPANES];		/* rows each pane has (set by render) */
	int help, detail;
	int filtering;			/* typing a filter */
	char filter[48];
	int ascii;			/* ASCII glyphs only */
	unsigned tenths;		/* refresh interval, shown in the footer */
	const struct nvml *nv;		/* NULL: no NVML */
	const struct hist *hist;	/* NULL: no history (no sparklines) */
	int no_meters;			/* meters turned off */
	int sort, sort_rev;		/* job order: enum render_sort, reversed */
	int read_only;			/* no cancel, disable, enable */
	struct {			/* a request waiting for y/n */
		int op;			/* 0: none; else enum top_act (keys.h) */
		char line[64];		/* the control request, e.g. "cancel 12" */
		char what[96];		/* the question, e.g. "cancel job 12 (porep, running)" */
	} ask;
	char msg[160];			/* footer message (the owner clears it) */
	uint32_t *jobs;			/* (internal) filtered job order */
	uint32_t jobs_cap;
};

/* Draw the frame; clamps the view's selections to what exists. l gets the
 * layout used. -ENOMEM only if the job order could not be allocated. */
int render_frame(struct canvas *cv, const struct snap *s, struct top_view *v, struct layout *l);
void render_view_free(struct top_view *v);

/* A pane's columns: heading, width, priority (0 first: a narrow pane
 * keeps the lowest). */
struct render_col {
	const char *name;
	int w, prio;
};
/* Choose columns by priority within width; on[] says which. */
void render_pick(const struct render_col *c, int n, int width, int *on);
/* Keep the selection of pane (n rows, vis on screen) on screen: returns
 * the first row to show, and sets v->count[pane]. */
int render_scroll(struct top_view *v, int pane, int n, int vis);
/* The heading row of a pane at r.y: the columns on, the first named
 * first, extra after them where it fits; the focused pane's stands out. */
void render_heading(struct canvas *cv, struct cv_rect r, const struct render_col *c, int n,
		    const int *on, const char *first, const char *extra, int focused);

/* What top --fleet shows (tui/top_fleet.c keeps it up to date), and its
 * frame (render_fleet.c): the fleet's nodes and queue as the database
 * last gave them, and the database's state. */
struct fleet_status;	/* fleet/fleet.h */
enum top_fleet_db { TOP_FLEET_CONNECTING, TOP_FLEET_CONNECTED, TOP_FLEET_UNREACHABLE };
struct top_fleet {
	const struct fleet_status *st;	/* the last good view; NULL: none yet */
	uint64_t age_ns;		/* since st was read */
	int db;				/* enum top_fleet_db */
	char where[200];		/* the database (fleet_watch_where: never its password) */
	char err[300];			/* unreachable: why */
	uint64_t down_ns;		/* unreachable for this long */
	uint64_t retry_ns;		/* the next attempt in this long */
	int trying;			/* an attempt is under way */
	uint64_t now_wall_ns;		/* the clock in the header (0: none) */
};
/* The frame: v's focus is L_NODES or L_QUEUE; l gets the layout used. 0. */
int render_fleet(struct canvas *cv, const struct top_fleet *f, struct top_view *v, struct layout *l);

/* The panes (render_panes.c). */
void render_slots(struct canvas *cv, struct cv_rect r, const struct snap *s,
		  struct top_view *v, int pane);
void render_jobs(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v);
void render_events(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v);
/* The job orders (key s cycles them; r reverses any): the default puts
 * active jobs oldest first, then finished newest first; the others sort
 * by one column, ties by id. */
enum render_sort {
	RS_DEFAULT, RS_ID, RS_KIND, RS_STATE, RS_PROG, RS_ELAPSED, RS_ETA, RS_PRIO, RS_N
};
const char *render_sort_name(int sort);
/* The job order, only those matching the filter. Returns the count, or
 * -1 when the order could not be allocated. */
int render_job_order(const struct snap *s, struct top_view *v);
/* Is the job finished (done, failed, cancelled)? Its ETA shows "-". */
int render_job_finished(uint32_t state);

/* The meters and sparklines (render_meters.c). */
void render_meters(struct canvas *cv, struct cv_rect r, const struct snap *s, const struct top_view *v,
		   const struct layout_meters *m);
/* "parts ▁▃▅▇ 12": partitions done per refresh, in at most w columns from
 * (y, x); returns the columns drawn (0 when it does not fit or no history). */
int render_throughput(struct canvas *cv, int y, int x, int w, const struct top_view *v);
/* Sparkline level 0..8: v's eighths of max, rounded up (0 only for 0). */
int render_spark_level(uint64_t v, uint64_t max);
/* The glyph of a level: blank, U+2581..U+2588, or ASCII ".:-=+*%#". */
uint32_t render_spark_glyph(int level, int ascii);
/* A slot state's letter in the meters: B I S W C D T E, '?' if invalid. */
char render_slot_letter(uint32_t state);
/* Partition state glyph and attribute. */
uint32_t render_part_glyph(uint32_t state, int ascii, int *attr);
int render_slot_attr(uint32_t state);

#endif
