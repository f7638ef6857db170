# synth/worker: the synth worker program the supervisor execs per synth
# slot (bin/synth), and its test, which plays the supervisor's part.
PROGS += $(BIN)/synth
$(BIN)/synth: $(call objs,synth/worker.c) $(O)/libverify.a $(O)/libformat.a $(O)/libsynth.a \
	$(O)/libproto.a $(O)/libshm.a \
	$(O)/libfield.a $(O)/libfault.a
LDLIBS_synth = $(call pc_libs,libsodium) $(call pc_libs,libxxhash)

TESTS += $(BIN)/tests/workers_synth
$(BIN)/tests/workers_synth: $(call objs,tests/workers/synth.c) $(O)/libformat.a $(O)/libhterm.a \
	$(O)/libsynth.a $(O)/libproto.a \
	$(O)/libshm.a $(O)/libfield.a | $(BIN)/synth
LDLIBS_tests/workers_synth = $(call pc_libs,libsodium) $(call pc_libs,libxxhash) $(CUDA_LIBS)
