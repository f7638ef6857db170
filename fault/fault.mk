# fault: test-only fault injection for the workers (libfault.a), linked
# into bin/gpuworker and bin/synth; its tests play the supervisor's part.
# It uses the latch hook shm_latch_fault from libshm.
$(O)/libfault.a: $(call objs,fault/fault.c)

FAULT_TESTS := parse gpu synth count
TESTS += $(patsubst %,$(BIN)/tests/fault_%,$(FAULT_TESTS))
$(BIN)/tests/fault_parse: $(call objs,tests/fault/parse.c) $(O)/libproto.a $(O)/libshm.a \
	| $(BIN)/gpuworker $(BIN)/synth
LDLIBS_tests/fault_parse = $(call pc_libs,libxxhash)
$(BIN)/tests/fault_gpu: $(call objs,tests/fault/gpu.c) $(O)/libhterm.a $(O)/libsynth.a \
	$(O)/libproto.a $(O)/libshm.a $(O)/libfield.a | $(BIN)/gpuworker
LDLIBS_tests/fault_gpu = $(call pc_libs,libsodium) $(call pc_libs,libxxhash) $(CUDA_LIBS)
$(BIN)/tests/fault_synth: $(call objs,tests/fault/synth.c) $(O)/libsynth.a $(O)/libproto.a \
	$(O)/libshm.a $(O)/libfield.a | $(BIN)/synth
LDLIBS_tests/fault_synth = $(call pc_libs,libsodium) $(call pc_libs,libxxhash)
$(BIN)/tests/fault_count: $(call objs,tests/fault/count.c) $(O)/libproto.a $(O)/libshm.a \
	| $(BIN)/gpuworker $(BIN)/synth
LDLIBS_tests/fault_count = $(call pc_libs,libxxhash)
