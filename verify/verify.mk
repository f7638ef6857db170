# verify: the Schwartz-Zippel check (libverify.a) and the file commands
# around the computation: `provisor verify`, and `provisor prove`, whose
# source lives with the H-term in gpuworker/ but is linked from here.
$(O)/libverify.a: $(call objs,verify/verify.c)
PROVISOR_LIBS += $(O)/libverify.a
PROVISOR_OBJS += $(call objs,verify/cmd_verify.c gpuworker/cmd_prove.c)

TESTS += $(BIN)/tests/verify_hterm
$(BIN)/tests/verify_hterm: $(call objs,tests/verify/hterm.c) $(O)/libverify.a $(O)/libsynth.a \
	$(O)/libhterm.a $(O)/libfield.a
LDLIBS_tests/verify_hterm = $(call pc_libs,libsodium) $(CUDA_LIBS)

# End to end through bin/provisor: synth -> prove -> verify, and bad input.
TESTS += tests/cli/tools.sh
