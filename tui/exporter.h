/*
 * exporter: Prometheus metrics of an instance over HTTP (tui/exporter.c);
 * `provisor exporter` parses its flags (cli/cmd_exporter.c) and calls this.
 */
#ifndef TUI_EXPORTER_H
#define TUI_EXPORTER_H

/* Serves /metrics for instance name on listen (ADDR:PORT, [ADDR]:PORT or
 * :PORT) until SIGTERM or SIGINT; returns the exit status (2 for a bad
 * address or instance, 1 when it cannot listen, 0 when stopped). */
int exporter_main(const char *listen, const char *name);

#endif
