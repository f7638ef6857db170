/*
 * fmt: the spelling of slots, kinds, states and durations (see fmt.h).
 * Unknown numeric values never index past a table: they print as
 * "invalid" or "kind-N", so a newer supervisor cannot crash an old reader.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shm/layout.h"
#include "tui/fmt.h"
#include "util/vocab.h"

#define NAME_OF(tab, v) ((v) < sizeof(tab) / sizeof((tab)[0]) && (tab)[v] ? (tab)[v] : "invalid")

void fmt_slot(char *buf, size_t len, uint32_t table, uint32_t i)
{
	snprintf(buf, len, "%s.%u", table == SHM_T_GPU ? "gpu" : "synth", i);
}

const char *fmt_kind(uint32_t kind, char *buf, size_t len)
{
	const char *n = vocab_kind_name(kind);

	if (n)
		return n;
	snprintf(buf, len, "kind-%u", kind);
	return buf;
}

const char *fmt_job_state(uint32_t state)
{
	static const char *const n[SHM_JOB_NSTATES] = {
		"free", "queued", "running", "done", "failed", "cancelled", "blocked",
	};
	return NAME_OF(n, state);
}

const char *fmt_output(uint32_t output)
{
	static const char *const n[SHM_OUTPUT_NOUTPUTS] = { "h", "proofs", "proofs+h" };
	return NAME_OF(n, output);
}

const char *fmt_reason(uint32_t code)
{
	static const char *const n[SHM_REASON_NREASONS] = {
		"none", "cancelled", "poison", "no-space", "io-error",
	};
	return NAME_OF(n, code);
}

const char *fmt_part_state(uint32_t state)
{
	static const char *const n[SHM_PART_NSTATES] = {
		"queued", "synthesizing", "ready", "proving", "done", "failed", "cancelled",
	};
	return NAME_OF(n, state);
}

const char *fmt_sup_state(uint32_t state)
{
	static const char *const n[SHM_SUP_NSTATES] = {
		"starting", "running", "draining", "stopping", "degraded",
	};
	return NAME_OF(n, state);
}

const char *fmt_fleet_db(uint32_t state)
{
	static const char *const n[SHM_FLEET_NDB] = { "none", "connecting", "connected", "unreachable" };
	return NAME_OF(n, state);
}

const char *fmt_event_type(uint32_t type)
{
	static const char *const n[SHM_EV_NTYPES] = {
		"none", "start", "crash", "restart", "disable", "enable",
		"job-done", "job-failed", "job-submit", "info",
		"preempt", "quarantine", "job-cancelled",
	};
	return NAME_OF(n, type);
}

const char *fmt_disable_reason(uint32_t reason)
{
	static const char *const n[SHM_DISABLE_NREASONS] = {
		"none", "operator", "crash-loop", "no-device", "wrong-result", "device-lost",
		"bad-device", "bad-backend",
	};
	return NAME_OF(n, reason);
}

const char *fmt_backend(uint32_t backend)
{
	const char *n = vocab_backend_name(backend);

	/* a slot records the backend it resolved to; 0 (auto) is not known yet */
	return backend == VOCAB_BACKEND_AUTO ? "unknown" : n ? n : "invalid";
}

const char *fmt_disable_why(uint32_t reason)
{
	static const char *const names[SHM_DISABLE_NREASONS] = {
		[SHM_DISABLE_OPERATOR] = "operator", [SHM_DISABLE_CRASHLOOP] = "crash loop",
		[SHM_DISABLE_NO_DEVICE] = "no device", [SHM_DISABLE_WRONG_RESULT] = "wrong result",
		[SHM_DISABLE_DEVICE_LOST] = "device lost", [SHM_DISABLE_BAD_DEVICE] = "bad device",
		[SHM_DISABLE_BAD_BACKEND] = "bad backend",
	};

	return reason < SHM_DISABLE_NREASONS ? names[reason] : NULL;
}

void fmt_exit(char *buf, size_t len, uint32_t kind, int32_t code)
{
	const char *abbrev;

	if (kind == SHM_EXIT_CODE)
		snprintf(buf, len, "exit=%d", code);
	else if (kind == SHM_EXIT_SIGNAL && code > 0 && code < 65 &&
		 (abbrev = sigabbrev_np(code)))
		snprintf(buf, len, "SIG%s", abbrev);
	else if (kind == SHM_EXIT_SIGNAL)
		snprintf(buf, len, "signal=%d", code);
	else
		snprintf(buf, len, "-");
}

void fmt_dur(char *buf, size_t len, uint64_t ns)
{
	uint64_t ms = ns / 1000000, s = ns / 1000000000;

	if (ms < 1000)
		snprintf(buf, len, "%llums", (unsigned long long)ms);
	else if (s < 60)
		snprintf(buf, len, "%.1fs", (double)ms / 1000);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60));
	else
		snprintf(buf, len, "%llud%02lluh", (unsigned long long)(s / 86400),
			 (unsigned long long)(s / 3600 % 24));
}

void fmt_lat(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000));
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else if (ns < 1000000000)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000));
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
}

void fmt_hex(char *buf, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = hx[p[i] >> 4];
		buf[2 * i + 1] = hx[p[i] & 15];
	}
	buf[2 * n] = '\0';
}

void fmt_clock(char *buf, size_t len, uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "--:--:--");
}
