/*
 * topctl: how `provisor top` sends its few control requests (cancel,
 * worker disable|enable) to the supervisor it watches: the same request
 * lines as `provisor cancel` and `provisor worker`, checked by the
 * supervisor's own parser first, sent to the socket the status segment
 * publishes, and only to the process the segment names as supervisor.
 */
#ifndef TUI_TOPCTL_H
#define TUI_TOPCTL_H

#include <stddef.h>
#include <sys/types.h>

#include "tui/snap.h"

#define TOPCTL_TIMEOUT_MS 2000	/* the view waits this long at most */

struct topctl {
	const struct snap *s;	/* control_path, sup_pid */
	uid_t uid;		/* the segment's owner: the supervisor's uid */
};

/* A top_send_fn (keys.h) with arg a struct topctl. */
int topctl_send(void *arg, const char *line, char *out, size_t outlen);

#endif
