# field/fp: BLS12-381 base field Fp and its quadratic extension Fp2. The
# objects join libfield.a (field/fr.mk), which bin/provisor already links.
FP_SRCS := field/fp.c field/fp_adx.c field/fp2.c

$(O)/libfield.a: $(call objs,$(FP_SRCS))

TESTS += $(BIN)/tests/field_fp_gmp
$(BIN)/tests/field_fp_gmp: $(call objs,tests/field/fp_gmp.c) $(O)/libfield.a
LDLIBS_tests/field_fp_gmp = $(call pc_libs,gmp)

BENCHES += $(BIN)/bench/fp
$(BIN)/bench/fp: $(call objs,bench/fp_bench.c) $(O)/libfield.a
