/*
 * exporter: Prometheus metrics of an instance over HTTP (tui/exporter.c);
 * `provisor exporter` parses its flags (cli/cmd_exporter.c) and calls this.
 */
#ifndef TUI_EXPORTER_H
#define TUI_EXPORTER_H

/* The limits that keep scrapes answered under abuse (tui/exporter.c): at
 * most EXPORTER_MAX_CONNS connections (a new one past it ends the oldest
 * still waiting for its request), EXPORTER_MAX_PER_ADDR from one client
 * address, and a whole request within deadline_s seconds (default
 * EXPORTER_DEADLINE_S) of the connection or of the previous answer. */
#define EXPORTER_MAX_CONNS 256
#define EXPORTER_MAX_PER_ADDR 32
#define EXPORTER_DEADLINE_S 5
#define EXPORTER_DEADLINE_MAX_S 300

/* Serves /metrics for instance name on listen (ADDR:PORT, [ADDR]:PORT, or
 * :PORT for 127.0.0.1) until SIGTERM or SIGINT; returns the exit status (2
 * for a bad address or instance, 1 when it cannot listen, 0 when stopped). */
int exporter_main(const char *listen, const char *name, unsigned deadline_s);

#endif
