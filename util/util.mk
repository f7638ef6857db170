# util: small helpers every folder may use (header-only; util/*.h include
# only libc), and their tests.
TESTS += $(BIN)/tests/util_text
$(BIN)/tests/util_text: $(call objs,tests/util/text.c)

TESTS += $(BIN)/tests/util_util
$(BIN)/tests/util_util: $(call objs,tests/util/util.c)

TESTS += $(BIN)/tests/util_lathist
$(BIN)/tests/util_lathist: $(call objs,tests/util/lathist.c)

TESTS += $(BIN)/tests/util_cudavis
$(BIN)/tests/util_cudavis: $(call objs,tests/util/cudavis.c)
