# synthworker: the synth worker program the supervisor execs per synth
# slot (bin/synth), and its test, which plays the supervisor's part. A
# folder of its own, beside synth/ (the circuit library): the program also
# reads result files (format/) and verifies partitions (verify/), which
# both sit on top of the circuit.
PROGS += $(BIN)/synth
$(BIN)/synth: $(call objs,synthworker/worker.c) $(O)/libverify.a $(O)/libformat.a $(O)/libgroth16.a \
	$(O)/libcurve.a $(O)/libsynth.a \
	$(O)/libproto.a $(O)/libshm.a \
	$(O)/libfield.a $(O)/libfault.a
LDLIBS_synth = $(call pc_libs,libsodium) $(call pc_libs,libxxhash)

TESTS += $(BIN)/tests/workers_synth
$(BIN)/tests/workers_synth: $(call objs,tests/workers/synth.c) $(O)/libformat.a $(O)/libhterm.a \
	$(O)/libsynth.a $(O)/libproto.a \
	$(O)/libshm.a $(O)/libfield.a | $(BIN)/synth
LDLIBS_tests/workers_synth = $(call pc_libs,libsodium) $(call pc_libs,libxxhash) $(CUDA_LIBS)
