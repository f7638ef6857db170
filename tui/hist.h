/*
 * hist: what `provisor top` remembers between refreshes, for its
 * sparklines: each slot's utilization over the last HIST_LEN refreshes
 * (GPU slots first, then synth) and the partitions done in each of those
 * intervals. The segment holds only the present; this ring is the view's
 * own memory, filled once per snapshot (never per frame, so a key press
 * does not shift the lines) and emptied when the rig's shape changes.
 */
#ifndef TUI_HIST_H
#define TUI_HIST_H

#include <stdint.h>

#include "tui/snap.h"

#define HIST_LEN 64		/* refreshes remembered: the longest sparkline */
#define HIST_UNKNOWN 0xff	/* a util sample that was not known */

struct hist {
	uint32_t ngpu, nsynth;	/* the shape the rings were made for */
	uint32_t n;		/* samples held, up to HIST_LEN */
	uint32_t head;		/* next sample goes here */
	uint8_t *util;		/* (ngpu + nsynth) rings of HIST_LEN, percent or HIST_UNKNOWN */
	uint32_t parts[HIST_LEN];	/* partitions done in each interval */
	int have_prev;
	uint64_t prev_done;	/* sup.parts_done at the previous sample */
};

/* Record snapshot s: one sample per slot and one throughput figure. Only a
 * snapshot with an interval (the second on) is a sample. 0 or -ENOMEM. */
int hist_push(struct hist *h, const struct snap *s);
void hist_free(struct hist *h);

/* Sample k back (0 = newest) of slot i (GPU i, or synth i - ngpu): percent,
 * or HIST_UNKNOWN where there is none. */
uint8_t hist_util(const struct hist *h, uint32_t slot, uint32_t k);
/* Partitions done k intervals back (0 = newest); 0 where there is none. */
uint32_t hist_parts(const struct hist *h, uint32_t k);

#endif
