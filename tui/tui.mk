# tui: everything that reads and displays the status segment: snapshots
# (snap), provisor status (text, JSON, Prometheus), provisor top (ncurses,
# confined to tui/term.c) and provisor exporter (libmicrohttpd).
TUI_SRCS := tui/fmt.c tui/snap.c tui/status_text.c tui/status_json.c tui/status_prom.c \
	    tui/canvas.c tui/layout.c tui/render.c tui/render_panes.c tui/nvml.c tui/term.c
TUI_CMDS := tui/cmd_status.c tui/exporter.c tui/top.c

$(O)/libtui.a: $(call objs,$(TUI_SRCS))
PROVISOR_LIBS += $(O)/libtui.a
PROVISOR_OBJS += $(call objs,$(TUI_CMDS))
PROVISOR_LDLIBS += $(call pc_libs,ncursesw) $(call pc_libs,json-c) $(call pc_libs,libmicrohttpd) -ldl

EXTRA_CFLAGS_tui/status_json.c = $(call pc_cflags,json-c)
EXTRA_CFLAGS_tui/exporter.c = $(call pc_cflags,libmicrohttpd)
EXTRA_CFLAGS_tui/term.c = $(call pc_cflags,ncursesw)

# The fake supervisor that tests and the benchmark run against.
TUI_FAKE := $(call objs,tests/tui/fake.c)
PROGS += $(BIN)/tests/fakesup
$(BIN)/tests/fakesup: $(call objs,tests/tui/fakesup.c) $(TUI_FAKE) $(O)/libshm.a $(O)/libformat.a
LDLIBS_tests/fakesup = $(call pc_libs,libsodium)
