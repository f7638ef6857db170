# format: the partition, H and job result files (libformat.a) and their
# tests (proofs: the proofs and proofs+H files and their region reader).
$(O)/libformat.a: $(call objs,format/pfile.c format/pfile_write.c format/pfile_read.c format/pfile_proofs.c)
PROVISOR_LIBS += $(O)/libformat.a

TESTS += $(BIN)/tests/format_pfile
$(BIN)/tests/format_pfile: $(call objs,tests/format/pfile.c) $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a
LDLIBS_tests/format_pfile = $(call pc_libs,libsodium)

TESTS += $(BIN)/tests/format_proofs
$(BIN)/tests/format_proofs: $(call objs,tests/format/proofs.c) $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a
LDLIBS_tests/format_proofs = $(call pc_libs,libsodium)
