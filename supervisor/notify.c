/*
 * notify: systemd's Type=notify readiness and WatchdogSec pings, through
 * libsystemd's sd_notify. Outside systemd (no NOTIFY_SOCKET) every call
 * is a cheap no-op, so the supervisor never needs to know how it runs.
 */
#include <systemd/sd-daemon.h>

#include "supervisor/sup.h"

void sup_notify(struct sup *s, const char *state)
{
	(void)s;
	sd_notify(0, state);
}

/* Ping at half the watchdog interval systemd asked for. The tick runs in
 * the event loop, so a wedged loop stops the pings: that is the point. */
void sup_watchdog_ping(struct sup *s, uint64_t now)
{
	uint64_t usec;

	if (!s->watchdog_ns) {
		if (sd_watchdog_enabled(0, &usec) <= 0)
			return;
		s->watchdog_ns = usec * 1000 / 2;
	}
	if (now - s->watchdog_last_ns >= s->watchdog_ns) {
		sd_notify(0, "WATCHDOG=1");
		s->watchdog_last_ns = now;
	}
}
