# verify: the Schwartz-Zippel check (libverify.a); `provisor verify` and
# `provisor prove` around it are cli/.
$(O)/libverify.a: $(call objs,verify/verify.c)
PROVISOR_LIBS += $(O)/libverify.a

TESTS += $(BIN)/tests/verify_hterm
$(BIN)/tests/verify_hterm: $(call objs,tests/verify/hterm.c) $(O)/libverify.a $(O)/libsynth.a \
	$(O)/libhterm.a $(O)/libfield.a
LDLIBS_tests/verify_hterm = $(call pc_libs,libsodium) $(CUDA_LIBS)

# End to end through bin/provisor: synth -> prove -> verify, and bad input.
TESTS += tests/cli/tools.sh
