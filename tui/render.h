/*
 * render: one frame of `provisor top` drawn into a canvas, as a pure
 * function of the canvas size, a snapshot and the view state (focus,
 * selection, filter, help, detail). The terminal module only copies the
 * canvas out; --once prints it; tests/tui/layout.c renders every size.
 */
#ifndef TUI_RENDER_H
#define TUI_RENDER_H

#include "tui/canvas.h"
#include "tui/layout.h"
#include "tui/nvml.h"
#include "tui/snap.h"

struct top_view {
	int focus;			/* L_GPU, L_SYNTH, L_JOBS or L_EVENTS */
	int sel[L_NPANES], first[L_NPANES];	/* selected row, first row shown */
	int count[L_NPANES];		/* rows each pane has (set by render) */
	int help, detail;
	int filtering;			/* typing a filter */
	char filter[48];
	int ascii;			/* ASCII glyphs only */
	unsigned tenths;		/* refresh interval, shown in the footer */
	const struct nvml *nv;		/* NULL: no NVML */
	char msg[96];			/* footer message, shown once */
	uint32_t *jobs;			/* (internal) filtered job order */
	uint32_t jobs_cap;
};

/* Draw the frame; clamps the view's selections to what exists. l gets the
 * layout used. -ENOMEM only if the job order could not be allocated. */
int render_frame(struct canvas *cv, const struct snap *s, struct top_view *v, struct layout *l);
void render_view_free(struct top_view *v);

/* The panes (render_panes.c). */
void render_slots(struct canvas *cv, struct cv_rect r, const struct snap *s,
		  struct top_view *v, int pane);
void render_jobs(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v);
void render_events(struct canvas *cv, struct cv_rect r, const struct snap *s, struct top_view *v);
/* The job order: active jobs oldest first, then finished newest first,
 * only those matching the filter. Returns the count. */
int render_job_order(const struct snap *s, struct top_view *v);
/* Partition state glyph and attribute. */
uint32_t render_part_glyph(uint32_t state, int ascii, int *attr);
int render_slot_attr(uint32_t state);

#endif
