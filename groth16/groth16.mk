# groth16: setup, prove and verify for the v2 circuit (libgroth16.a);
# `provisor setup`, and prove/verify with --params, are cli/.
G16_SRCS := groth16/params.c groth16/resident.c groth16/setup.c groth16/prove.c groth16/proof.c groth16/file.c
$(O)/libgroth16.a: $(call objs,$(G16_SRCS))
PROVISOR_LIBS += $(O)/libgroth16.a

G16_LIBS := $(O)/libgroth16.a $(O)/libcurve.a $(O)/libsynth.a $(O)/libhterm.a $(O)/libfield.a

TESTS += $(BIN)/tests/groth16_prove
$(BIN)/tests/groth16_prove: $(call objs,tests/groth16/prove.c) $(G16_LIBS)
LDLIBS_tests/groth16_prove = $(call pc_libs,libsodium) $(CUDA_LIBS)

TESTS += $(BIN)/tests/groth16_files
$(BIN)/tests/groth16_files: $(call objs,tests/groth16/files.c) $(G16_LIBS)
LDLIBS_tests/groth16_files = $(call pc_libs,libsodium) $(CUDA_LIBS)

# End to end through bin/provisor: setup -> synth -> prove -> verify.
TESTS += tests/groth16/cli.sh tests/groth16/special.sh

BENCHES += $(BIN)/bench/groth16
$(BIN)/bench/groth16: $(call objs,bench/groth16_bench.c) $(G16_LIBS)
LDLIBS_bench/groth16 = $(call pc_libs,libsodium) $(CUDA_LIBS)

TESTS += $(BIN)/tests/groth16_resident
$(BIN)/tests/groth16_resident: $(call objs,tests/groth16/resident.c) $(G16_LIBS)
LDLIBS_tests/groth16_resident = $(call pc_libs,libsodium) $(CUDA_LIBS)
