# tui: everything that reads and displays the status segment: snapshots
# (snap), provisor status (text, JSON, Prometheus), provisor top (ncurses,
# confined to tui/term.c) and provisor exporter (libmicrohttpd).
TUI_SRCS := tui/fmt.c tui/snap.c tui/status_text.c tui/status_json.c tui/status_prom.c \
	    tui/canvas.c tui/layout.c tui/render.c tui/render_panes.c tui/render_meters.c \
	    tui/hist.c tui/keys.c tui/topctl.c tui/nvml.c tui/term.c tui/render_fleet.c
TUI_MAINS := tui/exporter.c tui/top.c tui/top_fleet.c

$(O)/libtui.a: $(call objs,$(TUI_SRCS))
PROVISOR_LIBS += $(O)/libtui.a
PROVISOR_OBJS += $(call objs,$(TUI_MAINS))
PROVISOR_LDLIBS += $(call pc_libs,ncursesw) $(call pc_libs,json-c) $(call pc_libs,libmicrohttpd) -ldl

EXTRA_CFLAGS_tui/status_json.c = $(call pc_cflags,json-c)
EXTRA_CFLAGS_tui/exporter.c = $(call pc_cflags,libmicrohttpd)
EXTRA_CFLAGS_tui/term.c = $(call pc_cflags,ncursesw)

# The fake supervisor that tests and the benchmark run against.
TUI_FAKE := $(call objs,tests/tui/fake.c)
PROGS += $(BIN)/tests/fakesup
$(BIN)/tests/fakesup: $(call objs,tests/tui/fakesup.c) $(TUI_FAKE) $(O)/libshm.a

# Tests: the layout sweep (pure), status/top --once/--json/--prometheus
# against the fake writer, escapes in segment text and a dead fake
# supervisor (tui_dead), the terminal through tmux, the exporter over HTTP.
TESTS += $(BIN)/tests/tui_layout
$(BIN)/tests/tui_layout: $(call objs,tests/tui/layout.c) $(O)/libtui.a $(O)/libctl.a $(O)/libshm.a
LDLIBS_tests/tui_layout = $(call pc_libs,ncursesw) $(call pc_libs,json-c) -ldl

# top --fleet's frame (pure, no database): every size, three database
# states, help and detail; the DSN shown without its password.
TESTS += $(BIN)/tests/tui_fleet
$(BIN)/tests/tui_fleet: $(call objs,tests/tui/fleet_view.c) $(O)/libtui.a $(O)/libfleet.a $(O)/libctl.a $(O)/libshm.a
LDLIBS_tests/tui_fleet = $(call pc_libs,libpq) $(call pc_libs,ncursesw) $(call pc_libs,json-c) -ldl
EXTRA_CFLAGS_tests/tui/fleet_view.c = $(call pc_cflags,libpq)

# NVML's figures by CUDA ordinal (tui/nvml.c's map), on a made-up rig.
TESTS += $(BIN)/tests/tui_nvml_map
$(BIN)/tests/tui_nvml_map: $(call objs,tests/tui/nvml_map.c tui/nvml.c)
LDLIBS_tests/tui_nvml_map = -ldl

TESTS += $(BIN)/tests/tui_status
$(BIN)/tests/tui_status: $(call objs,tests/tui/status.c) $(TUI_FAKE) $(O)/libshm.a | $(BIN)/provisor
LDLIBS_tests/tui_status = $(call pc_libs,json-c) -lm
EXTRA_CFLAGS_tests/tui/status.c = $(call pc_cflags,json-c)

TESTS += $(BIN)/tests/tui_dead
$(BIN)/tests/tui_dead: $(call objs,tests/tui/dead.c) $(TUI_FAKE) $(O)/libshm.a | $(BIN)/provisor

TESTS += tests/tui/tmux.sh tests/tui/exporter.sh tests/tui/live.sh
# the exporter under 1,000 slow clients: httpdrip drips and scrapes
TESTS += tests/tui/exporter_abuse.sh tests/tui/segmode.sh
PROGS += $(BIN)/tests/tui_httpdrip
$(BIN)/tests/tui_httpdrip: $(call objs,tests/tui/httpdrip.c)
tests/tui/exporter_abuse.sh: $(BIN)/tests/tui_httpdrip $(BIN)/tests/fakesup

# make bench: top's CPU and terminal output against 64+32 busy fake slots.
BENCHES += bench/top_bench.sh
bench/top_bench.sh: $(BIN)/provisor $(BIN)/tests/fakesup

# The meters and sparklines (pure: a canvas, no terminal); the keys, the
# confirmation flow, --read-only, sorting, ETA and durations, and topctl
# against a socket served by the test itself.
TESTS += $(BIN)/tests/tui_meters $(BIN)/tests/tui_keys
$(BIN)/tests/tui_meters: $(call objs,tests/tui/meters.c) $(O)/libtui.a $(O)/libctl.a $(O)/libshm.a
LDLIBS_tests/tui_meters = $(call pc_libs,ncursesw) $(call pc_libs,json-c) -ldl
$(BIN)/tests/tui_keys: $(call objs,tests/tui/keys.c) $(O)/libtui.a $(O)/libctl.a $(O)/libshm.a
LDLIBS_tests/tui_keys = $(call pc_libs,ncursesw) $(call pc_libs,json-c) -ldl
