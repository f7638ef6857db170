# ctl: the control protocol (libctl.a), the operator commands that use it
# (submit, cancel, drain, stop, worker), and their tests.
$(O)/libctl.a: $(call objs,ctl/ctl.c)
PROVISOR_LIBS += $(O)/libctl.a
PROVISOR_OBJS += $(call objs,ctl/cmd_ctl.c)

TESTS += $(BIN)/tests/ctl_parse $(BIN)/tests/ctl_call
$(BIN)/tests/ctl_parse: $(call objs,tests/ctl/parse.c) $(O)/libctl.a
$(BIN)/tests/ctl_call: $(call objs,tests/ctl/call.c) $(O)/libctl.a
TESTS += tests/ctl/cli.sh
