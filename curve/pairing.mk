# curve/pairing: the optimal ate pairing, in libcurve.a with G1/G2 (the
# archive itself is curve.mk's). Fp6/Fp12 live in libfield.a (tower.mk).
$(O)/libcurve.a: $(call objs,curve/pairing.c)

TESTS += $(BIN)/tests/curve_pairing
$(BIN)/tests/curve_pairing: $(call objs,tests/curve/pairing.c) $(O)/libcurve.a $(O)/libfield.a

BENCHES += $(BIN)/bench/pairing
$(BIN)/bench/pairing: $(call objs,bench/pairing_bench.c) $(O)/libcurve.a $(O)/libfield.a
