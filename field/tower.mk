# field/fp6.c, field/fp12.c: the Fp6 and Fp12 towers of the pairing, in
# libfield.a with Fp and Fp2 (see fr.mk).
TOWER_SRCS := field/fp6.c field/fp12.c

$(O)/libfield.a: $(call objs,$(TOWER_SRCS))

TESTS += $(BIN)/tests/field_tower
$(BIN)/tests/field_tower: $(call objs,tests/field/tower.c) $(O)/libfield.a
LDLIBS_tests/field_tower = $(call pc_libs,gmp)
