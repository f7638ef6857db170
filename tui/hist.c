/*
 * hist: the sparklines' memory (see hist.h). Rings of bytes: 64 samples of
 * 96 slots are 6 KiB, written once per refresh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui/hist.h"

static int reshape(struct hist *h, uint32_t ngpu, uint32_t nsynth)
{
	size_t n = (size_t)(ngpu + nsynth) * HIST_LEN;
	uint8_t *u = malloc(n ? n : 1);

	if (!u)
		return -ENOMEM;
	free(h->util);
	memset(h, 0, sizeof *h);
	memset(u, HIST_UNKNOWN, n);
	h->util = u;
	h->ngpu = ngpu;
	h->nsynth = nsynth;
	return 0;
}

static void sample(struct hist *h, const struct snap *s)
{
	for (uint32_t i = 0; i < h->ngpu + h->nsynth; i++) {
		const struct snap_slot *o = i < h->ngpu ? &s->gpu[i] : &s->synth[i - h->ngpu];
		double u = o->util;
		h->util[(size_t)i * HIST_LEN + h->head] =
			!o->ok || u < 0 ? HIST_UNKNOWN : u >= 1 ? 100 : (uint8_t)(u * 100 + 0.5);
	}
	/* parts_done only grows; a smaller one is a new supervisor: count from it */
	h->parts[h->head] = s->sup_ok && h->have_prev && s->sup.parts_done >= h->prev_done ?
			    (uint32_t)(s->sup.parts_done - h->prev_done) : 0;
	h->head = (h->head + 1) % HIST_LEN;
	if (h->n < HIST_LEN)
		h->n++;
}

int hist_push(struct hist *h, const struct snap *s)
{
	if (!s->attached)
		return 0;
	if ((!h->util || h->ngpu != s->ngpu || h->nsynth != s->nsynth) && reshape(h, s->ngpu, s->nsynth) < 0)
		return -ENOMEM;
	if (s->interval_ns && !snap_sup_gone(s))	/* else nothing moved: not a sample */
		sample(h, s);
	if (s->sup_ok) {
		h->prev_done = s->sup.parts_done;
		h->have_prev = 1;
	}
	return 0;
}

void hist_free(struct hist *h)
{
	free(h->util);
	memset(h, 0, sizeof *h);
}

uint8_t hist_util(const struct hist *h, uint32_t slot, uint32_t k)
{
	if (!h || !h->util || k >= h->n || slot >= h->ngpu + h->nsynth)
		return HIST_UNKNOWN;
	return h->util[(size_t)slot * HIST_LEN + (h->head + HIST_LEN - 1 - k) % HIST_LEN];
}

uint32_t hist_parts(const struct hist *h, uint32_t k)
{
	if (!h || k >= h->n)
		return 0;
	return h->parts[(h->head + HIST_LEN - 1 - k) % HIST_LEN];
}
