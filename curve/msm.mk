# curve/msm: Pippenger multi-scalar multiplication in G1 and G2, in the
# curve archive (curve/curve.mk defines it; others add to it too).
$(O)/libcurve.a: $(call objs,curve/msm.c curve/msm_ifma.c)

TESTS += $(BIN)/tests/curve_msm
$(BIN)/tests/curve_msm: $(call objs,tests/curve/msm.c) $(O)/libcurve.a $(O)/libfield.a

TESTS += $(BIN)/tests/curve_msm_ifma
$(BIN)/tests/curve_msm_ifma: $(call objs,tests/curve/msm_ifma.c) $(O)/libcurve.a $(O)/libfield.a

BENCHES += $(BIN)/bench/msm
$(BIN)/bench/msm: $(call objs,bench/msm_bench.c) $(O)/libcurve.a $(O)/libfield.a
# bench/blst.sh: the G1 MSM, pairing and field products against blst
# (issue 20), when BLST_SRC names a blst source tree; else it says so.
BENCHES += bench/blst.sh
