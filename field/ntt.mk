# field/ntt: NTTs over Fr, in the same archive as field/fr (see fr.mk).
$(O)/libfield.a: $(call objs,field/ntt.c)

TESTS += $(BIN)/tests/ntt_dft
$(BIN)/tests/ntt_dft: $(call objs,tests/ntt/ntt_dft.c) $(O)/libfield.a

TESTS += $(BIN)/tests/ntt_roundtrip
$(BIN)/tests/ntt_roundtrip: $(call objs,tests/ntt/ntt_roundtrip.c) $(O)/libfield.a
