# synth: the hash-chain circuit (libsynth.a) and the circuit's test
# (`provisor synth` is cli/cmd_synth.c). BLAKE2b comes from libsodium,
# which format/ and verify/ use too; it is added to the provisor link
# once, here.
$(O)/libsynth.a: $(call objs,synth/circuit.c synth/r1cs.c)
PROVISOR_LIBS += $(O)/libsynth.a
PROVISOR_LDLIBS += $(call pc_libs,libsodium)

TESTS += $(BIN)/tests/synth_circuit
$(BIN)/tests/synth_circuit: $(call objs,tests/synth/circuit.c) $(O)/libsynth.a $(O)/libfield.a
LDLIBS_tests/synth_circuit = $(call pc_libs,libsodium)

TESTS += $(BIN)/tests/synth_r1cs
$(BIN)/tests/synth_r1cs: $(call objs,tests/synth/r1cs.c) $(O)/libsynth.a $(O)/libfield.a
LDLIBS_tests/synth_r1cs = $(call pc_libs,libsodium)
