# field/fr: BLS12-381 scalar field. The archive libfield.a is shared with
# field/ntt.mk, which adds its own objects to it.
FR_SRCS := field/fr.c field/fr_adx.c field/fr_ifma.c

$(O)/libfield.a: $(call objs,$(FR_SRCS))
PROVISOR_LIBS += $(O)/libfield.a

TESTS += $(BIN)/tests/field_gmp
$(BIN)/tests/field_gmp: $(call objs,tests/field/gmp.c) $(O)/libfield.a
LDLIBS_tests/field_gmp = $(call pc_libs,gmp)

TESTS += $(BIN)/tests/field_constants
$(BIN)/tests/field_constants: $(call objs,tests/field/constants.c) $(O)/libfield.a
LDLIBS_tests/field_constants = $(call pc_libs,gmp)

BENCHES += $(BIN)/bench/fr
$(BIN)/bench/fr: $(call objs,bench/fr_bench.c) $(O)/libfield.a
