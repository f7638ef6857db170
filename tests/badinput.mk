# tests/badinput: malformed input at every entry point, the limits, and
# the control socket's peer check. (Here, one level deep, because the top
# Makefile includes */*.mk only.)
BADINPUT_TESTS := ctl peer
TESTS += $(patsubst %,$(BIN)/tests/badinput_%,$(BADINPUT_TESTS)) tests/badinput/cli.sh
$(foreach t,$(BADINPUT_TESTS),$(eval $(BIN)/tests/badinput_$(t): $(call objs,tests/badinput/$(t).c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth))
$(foreach t,$(BADINPUT_TESTS),$(eval LDLIBS_tests/badinput_$(t) = $(call pc_libs,libsodium)))
