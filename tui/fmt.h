/*
 * fmt: names and number formats shared by every view of the status segment
 * (top, status text/JSON/Prometheus). One place decides how a slot, a kind,
 * a state or a duration is spelled, so the views agree with each other and
 * the tests can parse one with the rules of another.
 */
#ifndef TUI_FMT_H
#define TUI_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "gpu.3" / "synth.1" for table SHM_T_GPU / SHM_T_SYNTH and index i. */
void fmt_slot(char *buf, size_t len, uint32_t table, uint32_t i);
/* Job kind name ("porep", ...), or "kind-N" for one this build does not know
 * (written into buf, which must hold 16 bytes). */
const char *fmt_kind(uint32_t kind, char *buf, size_t len);
const char *fmt_job_state(uint32_t state);
/* What a job ends in (enum shm_output): "h", "proofs", "proofs+h", or
 * "invalid" for a value this reader does not know. */
const char *fmt_output(uint32_t output);
/* A job's reason code: "none", "cancelled", "poison", "no-space",
 * "io-error" (enum shm_reason), or "invalid". */
const char *fmt_reason(uint32_t code);
const char *fmt_part_state(uint32_t state);
const char *fmt_sup_state(uint32_t state);
/* A fleet node's database state (enum shm_fleet_db): "none" (not a
 * node), "connecting", "connected", "unreachable", or "invalid". */
const char *fmt_fleet_db(uint32_t state);
const char *fmt_event_type(uint32_t type);
const char *fmt_backend(uint32_t backend);
/* Why a slot is disabled (enum shm_disable_reason), as a token for JSON
 * and metric labels: "none", "operator", "crash-loop", "no-device",
 * "wrong-result". */
const char *fmt_disable_reason(uint32_t reason);
/* "exit=3" / "SIGKILL" / "signal=40" / "-" for a slot's last exit: one
 * word, so that column-wise readers of the views can split on blanks. */
void fmt_exit(char *buf, size_t len, uint32_t kind, int32_t code);
/* The same in words, for people: "operator", "crash loop", "no device",
 * "wrong result"; NULL for none or a value this reader does not know. */
const char *fmt_disable_why(uint32_t reason);
/* Compact duration for narrow columns: "850ms", "12.3s", "4m05s", "3h12m",
 * "5d04h". */
void fmt_dur(char *buf, size_t len, uint64_t ns);
/* Short latency, 2 or 3 digits: "40us", "2.1ms", "120ms", "1.3s". */
void fmt_lat(char *buf, size_t len, uint64_t ns);
/* Hex of n bytes into buf (2n+1 bytes). */
void fmt_hex(char *buf, const uint8_t *p, size_t n);
/* Local wall-clock "HH:MM:SS" of a CLOCK_REALTIME ns value. */
void fmt_clock(char *buf, size_t len, uint64_t wall_ns);

#endif
