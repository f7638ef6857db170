# ctl: the control protocol (libctl.a) and its tests (the operator
# commands that use it, submit, cancel, drain, stop, worker, are cli/).
$(O)/libctl.a: $(call objs,ctl/ctl.c)
PROVISOR_LIBS += $(O)/libctl.a

TESTS += $(BIN)/tests/ctl_parse $(BIN)/tests/ctl_call
$(BIN)/tests/ctl_parse: $(call objs,tests/ctl/parse.c) $(O)/libctl.a
$(BIN)/tests/ctl_call: $(call objs,tests/ctl/call.c) $(O)/libctl.a
TESTS += tests/ctl/cli.sh

# ctl-rtt: control-socket round trips of a running instance over one open
# connection (a tool for benchmark scripts; not in `make bench`'s loop).
PROGS += $(BIN)/bench/ctl-rtt
$(BIN)/bench/ctl-rtt: $(call objs,bench/ctl_rtt.c) $(O)/libctl.a
