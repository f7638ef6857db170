/*
 * keys: what a key does to `provisor top`'s view, apart from the loop and
 * the terminal so that tests drive it directly (tests/tui/keys.c). The
 * requests that change the rig (cancel a job, disable or enable a slot)
 * are asked first: the key sets view.ask and the footer shows the
 * question; only 'y' then sends it, through a sender the caller gives
 * (tui/topctl.c in top, a recorder in the tests). Any other key drops it.
 * With view.read_only they are not even asked.
 */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <stddef.h>

#include "tui/render.h"

enum top_act { TOP_ACT_NONE, TOP_ACT_CANCEL, TOP_ACT_DISABLE, TOP_ACT_ENABLE };

/* Send one control request line ("cancel 12", "worker disable gpu.3");
 * put the reply's text (after "ok"/"err") or the failure in out. Returns
 * 0 ok, 1 refused by the supervisor, -errno when it could not be asked. */
typedef int (*top_send_fn)(void *arg, const char *line, char *out, size_t outlen);

/* Apply key to the view (l: the frame's layout; s: the snapshot shown).
 * Returns 1 to quit, else 0. */
int top_key(struct top_view *v, const struct layout *l, const struct snap *s, int key,
	    top_send_fn send, void *arg);
/* The keys every view of top shares (q, Esc, help, Tab among panes[0..n)
 * that are shown, Enter, moving the focused pane's selection, + and -):
 * 1 to quit, 0 done, -1 not one of them (the view's own, or nothing). */
int top_key_view(struct top_view *v, const struct layout *l, int key, const int *panes, int npanes);

#endif
