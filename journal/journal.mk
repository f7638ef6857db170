# journal: the supervisor's job journal (libjournal.a): acknowledged jobs
# survive a crash (docs/journal.md). XXH32 comes from libxxhash.
$(O)/libjournal.a: $(call objs,journal/journal.c journal/record.c)
PROVISOR_LIBS += $(O)/libjournal.a
PROVISOR_LDLIBS += $(call pc_libs,libxxhash)

TESTS += $(BIN)/tests/journal tests/journal/churn.sh
$(BIN)/tests/journal: $(call objs,tests/journal/journal.c) $(O)/libjournal.a
LDLIBS_tests/journal = $(call pc_libs,libxxhash)
