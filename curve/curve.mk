# curve: G1 and G2 of BLS12-381 (curve/curve.h): point arithmetic, the
# ZCash encodings, fixed-base batches. Built on libfield.a (Fp, Fp2, Fr).
CURVE_SRCS := curve/point.c curve/encode.c curve/fixed.c

$(O)/libcurve.a: $(call objs,$(CURVE_SRCS))
PROVISOR_LIBS += $(O)/libcurve.a

TESTS += $(BIN)/tests/curve_points
$(BIN)/tests/curve_points: $(call objs,tests/curve/points.c) $(O)/libcurve.a $(O)/libfield.a

TESTS += $(BIN)/tests/curve_encode
$(BIN)/tests/curve_encode: $(call objs,tests/curve/encode.c) $(O)/libcurve.a $(O)/libfield.a
LDLIBS_tests/curve_encode = $(call pc_libs,libsodium)

BENCHES += $(BIN)/bench/curve
$(BIN)/bench/curve: $(call objs,bench/curve_bench.c) $(O)/libcurve.a $(O)/libfield.a
