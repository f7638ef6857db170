# plugins: backends as shared libraries behind gpuworker/backend.h
# (docs/backend-abi.md). Each links its own copy of the field, curve and
# Groth16 code (objects built as position-independent executables' are;
# the version script keeps every symbol but the entry point local, so
# none is interposed), and exports provisor_backend_v1 only.
PLUGIN_DEPS := $(call objs,plugins/pcpu.c gpuworker/hterm_cpu.c) $(O)/libgroth16.a $(O)/libcurve.a \
	$(O)/libfield.a plugins/export.map
PROGS += $(BIN)/plugins/cpu.so $(BIN)/plugins/misbehave.so
$(BIN)/plugins/cpu.so: $(call objs,plugins/cpu.c) $(PLUGIN_DEPS)
$(BIN)/plugins/misbehave.so: $(call objs,plugins/misbehave.c) $(PLUGIN_DEPS)
$(BIN)/plugins/%.so:
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -Wl,--version-script=plugins/export.map $(if $(SAN),,-Wl,-z,defs) -o $@ $(filter %.o,$^) \
		-Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(call pc_libs,libsodium) -lm

# The supervisor's isolation of a plugin (tests/plugin/*.c), each with a
# real supervisor, real workers and misbehave.so.
PLUGIN_TESTS := cpu crash wrong hang nomem lost baddev abi garbage sandbox noload
TESTS += $(patsubst %,$(BIN)/tests/plugin_%,$(PLUGIN_TESTS))
$(foreach t,$(PLUGIN_TESTS),$(eval $(BIN)/tests/plugin_$(t): $(call objs,tests/plugin/$(t).c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth $(BIN)/plugins/cpu.so $(BIN)/plugins/misbehave.so))
$(foreach t,$(PLUGIN_TESTS),$(eval LDLIBS_tests/plugin_$(t) = $(call pc_libs,libsodium)))

# bench/plugin.sh: proofs/min through cpu.so against the built-in cpu backend
BENCHES += bench/plugin.sh
