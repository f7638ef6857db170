# shm: the status segment library, its tests and its benchmark.
SHM_SRCS := shm/seg.c shm/records.c
$(O)/libshm.a: $(call objs,$(SHM_SRCS))
PROVISOR_LIBS += $(O)/libshm.a

SHM_TESTS := torture race deadwriter stopped_reader badseg basic
TESTS += $(patsubst %,$(BIN)/tests/shm_%,$(SHM_TESTS))
$(foreach t,$(SHM_TESTS),$(eval $(BIN)/tests/shm_$(t): $(call objs,tests/shm/$(t).c) $(O)/libshm.a))

# The torture test again, built with ThreadSanitizer (threads instead of
# processes: TSan sees one address space). Not in sanitizer builds.
ifeq ($(SAN),)
$(O)/tsan/%.o: %.c | $(DEPS_PREREQ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=thread -c $< -o $@
TESTS += $(BIN)/tests/shm_torture_tsan
$(BIN)/tests/shm_torture_tsan: $(patsubst %.c,$(O)/tsan/%.o,tests/shm/torture.c $(SHM_SRCS))
LDLIBS_tests/shm_torture_tsan = -fsanitize=thread
endif

BENCHES += $(BIN)/bench/shm
$(BIN)/bench/shm: $(call objs,bench/shm_bench.c) $(O)/libshm.a
