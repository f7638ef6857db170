/*
 * layout: pane rectangles from (rows, cols, counts) (see layout.h).
 *
 * Two header rows, one footer row, the body between. The body stacks the
 * GPU, synth, jobs and events panes (or, from LAYOUT_WIDE_COLS on, workers
 * on the left and jobs and events on the right). Each pane needs a title
 * row and one row; rows beyond that go round-robin to panes that want more,
 * so a rig with 64 GPU slots cannot starve the job list; leftovers go to
 * the last pane. When even the minimum does not fit, panes are dropped from
 * the end and counted as hidden.
 *
 * The meters (one cell per slot) sit between the header and the body and
 * take at most a third of the body: the overview first, the tables with
 * what is left (they scroll; the meters do not).
 *
 * top --fleet's frame (layout_fleet) is simpler: three header rows, the
 * nodes over the queue, the footer.
 */
#include <string.h>

#include "tui/layout.h"

static int want(int n)
{
	return 1 + (n > 0 ? n : 1);	/* title + rows, or title + "none" */
}

/* Split a column (y, x, h, w) among panes[0..k) with demands dem[]. */
static int column(struct layout *l, int y, int x, int h, int w, const int *panes,
		  const int *dem, int k)
{
	int got[4] = { 0 }, left, more = 1, hidden = 0;

	while (k > 0 && 2 * k > h) {
		k--;
		hidden++;
	}
	if (k == 0)
		return hidden;
	for (int i = 0; i < k; i++)
		got[i] = 2;
	left = h - 2 * k;
	while (left > 0 && more) {
		more = 0;
		for (int i = 0; i < k && left > 0; i++)
			if (got[i] < dem[i]) {
				got[i]++;
				left--;
				more = 1;
			}
	}
	got[k - 1] += left;
	for (int i = 0; i < k; i++) {
		l->r[panes[i]] = (struct cv_rect){ y, x, got[i], w };
		y += got[i];
	}
	return hidden;
}

static int digits(int n)
{
	int d = 1;

	while (n >= 10)
		n /= 10, d++;
	return d;
}

static int meter_rows(int n, int cols, int cell_w)
{
	int per = (cols + 1) / (cell_w + 1);

	return per < 1 ? 0 : (n + per - 1) / per;
}

void layout_meters(int cols, int ngpu, int nsynth, int max_rows, struct layout_meters *m)
{
	int n = ngpu + nsynth, big = ngpu > nsynth ? ngpu : nsynth, limit, sp;

	memset(m, 0, sizeof *m);
	m->n = n;
	m->idw = 1 + digits(big > 0 ? big - 1 : 0);
	if (n <= 0 || max_rows <= 0 || cols < m->idw + 6)
		return;
	limit = meter_rows(n, cols, m->idw + 6) + 2;
	if (limit > max_rows)
		limit = max_rows;
	for (sp = LAYOUT_SPARK_MAX; sp > 0 && meter_rows(n, cols, m->idw + 6 + sp) > limit; sp--)
		;
	if (sp < LAYOUT_SPARK_MIN)
		sp = 0;	/* too short to read a trend in: not worth its rows */
	m->spark = sp;
	m->cell_w = m->idw + 6 + sp;
	m->per_row = (cols + 1) / (m->cell_w + 1);
	m->rows = meter_rows(n, cols, m->cell_w);
	if (m->rows > max_rows)
		m->rows = max_rows;
}

void layout_compute(int rows, int cols, const struct layout_in *in, struct layout *out)
{
	static const int all[4] = { L_GPU, L_SYNTH, L_JOBS, L_EVENTS };
	int dem[4] = { want(in->ngpu), want(in->nsynth), want(in->njobs), want(in->nevents) };
	int body = rows - 3;

	memset(out, 0, sizeof *out);
	if (rows < 1 || cols < 1)
		return;
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		out->tiny = 1;
		out->hidden = 4;
		if (rows >= 2)
			out->r[L_HEADER] = (struct cv_rect){ 0, 0, 1, cols };
		out->r[L_FOOTER] = (struct cv_rect){ rows - 1, 0, 1, cols };
		return;
	}
	out->r[L_HEADER] = (struct cv_rect){ 0, 0, 2, cols };
	out->r[L_FOOTER] = (struct cv_rect){ rows - 1, 0, 1, cols };
	if (!in->no_meters)
		layout_meters(cols, in->ngpu, in->nsynth, body / 3, &out->m);
	if (out->m.rows > 0) {
		out->r[L_METERS] = (struct cv_rect){ 2, 0, out->m.rows, cols };
		body -= out->m.rows;
	}
	int top = 2 + out->m.rows;
	if (in->help || in->detail) {
		out->r[in->help ? L_HELP : L_DETAIL] = (struct cv_rect){ top, 0, body, cols };
		return;
	}
	if (cols >= LAYOUT_WIDE_COLS) {
		int lw = cols / 2 - 1;	/* one blank column between the halves */
		out->hidden = column(out, top, 0, body, lw, all, dem, 2) +
			      column(out, top, lw + 1, body, cols - lw - 1, all + 2, dem + 2, 2);
	} else
		out->hidden = column(out, top, 0, body, cols, all, dem, 4);
}

void layout_fleet(int rows, int cols, int nnodes, int nkinds, int help, int detail, struct layout *out)
{
	int top = LAYOUT_FLEET_HEADER, body = rows - top - 1, q;

	memset(out, 0, sizeof *out);
	if (rows < 1 || cols < 1)
		return;
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		out->tiny = 1;
		out->hidden = 2;
		if (rows >= 2)
			out->r[L_HEADER] = (struct cv_rect){ 0, 0, 1, cols };
		out->r[L_FOOTER] = (struct cv_rect){ rows - 1, 0, 1, cols };
		return;
	}
	out->r[L_HEADER] = (struct cv_rect){ 0, 0, top, cols };
	out->r[L_FOOTER] = (struct cv_rect){ rows - 1, 0, 1, cols };
	if (help || detail) {
		out->r[help ? L_HELP : L_DETAIL] = (struct cv_rect){ top, 0, body, cols };
		return;
	}
	if (body < 4) {	/* room for one pane: the nodes */
		out->r[L_NODES] = (struct cv_rect){ top, 0, body, cols };
		out->hidden = 1;
		return;
	}
	q = want(nkinds) < body - 2 ? want(nkinds) : body - 2;
	if (want(nnodes) < body - q)	/* the nodes' blank rows go to the queue */
		q = body - want(nnodes);
	out->r[L_NODES] = (struct cv_rect){ top, 0, body - q, cols };
	out->r[L_QUEUE] = (struct cv_rect){ top + body - q, 0, q, cols };
}
