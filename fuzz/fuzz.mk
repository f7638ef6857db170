# fuzz: libFuzzer targets for every parser of untrusted input (fuzz/fuzz.h).
#
#   make fuzz                 build bin-fuzz/fuzz_* with clang (ASan, UBSan)
#                             and run each for FUZZ_SECONDS on a scratch copy
#                             of its seed corpus; fails on any crash
#   make fuzz FUZZ_TARGETS=shm FUZZ_SECONDS=300    one target, longer
#   make fuzz-corpus          regenerate fuzz/corpus/ with the real writers
#
# The fuzz build is separate from the normal one (build-fuzz/, bin-fuzz/,
# always clang, whatever CC is). The same fuzz_NAME.c files are also
# compiled in the normal build with -DFUZZ_REGRESS into the fuzz_regress
# test, which replays fuzz/corpus/NAME and fuzz/regress/NAME in make test.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_O := build-fuzz
FUZZ_BIN := bin-fuzz
FUZZ_ALL := frame ctl conf journal pfile shm point params proof
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -MMD -MP \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# What each target links, compiled with the same flags; libFuzzer options.
FUZZ_SRCS_frame   := proto/frame.c
FUZZ_LIBS_frame   := libxxhash
FUZZ_SRCS_ctl     := ctl/ctl.c
FUZZ_LIBS_ctl     :=
FUZZ_SRCS_conf    := conf/conf.c shm/seg.c shm/records.c
FUZZ_LIBS_conf    := inih
FUZZ_SRCS_journal := journal/journal.c journal/record.c
FUZZ_LIBS_journal := libxxhash
FUZZ_SRCS_pfile   := format/pfile.c format/pfile_read.c format/pfile_write.c format/pfile_proofs.c \
	synth/circuit.c synth/r1cs.c field/fr.c field/fr_adx.c field/fr_ifma.c
FUZZ_LIBS_pfile   := libsodium
FUZZ_OPTS_pfile   := -max_len=16384
FUZZ_SRCS_shm     := shm/seg.c shm/records.c
FUZZ_OPTS_shm     := -max_len=65536
# The curve and Groth16 targets: the whole field/curve/groth16 code.
FUZZ_CURVE_SRCS   := $(filter-out field/ntt.c,$(wildcard field/*.c)) $(wildcard curve/*.c)
FUZZ_G16_SRCS     := groth16/params.c groth16/proof.c groth16/file.c synth/circuit.c synth/r1cs.c
FUZZ_SRCS_point   := $(FUZZ_CURVE_SRCS)
FUZZ_OPTS_point   := -max_len=256
FUZZ_SRCS_params  := $(FUZZ_CURVE_SRCS) $(FUZZ_G16_SRCS)
FUZZ_LIBS_params  := libsodium
FUZZ_OPTS_params  := -max_len=8192
FUZZ_SRCS_proof   := $(FUZZ_CURVE_SRCS) $(FUZZ_G16_SRCS)
FUZZ_LIBS_proof   := libsodium
FUZZ_OPTS_proof   := -max_len=512

fuzz_objs = $(patsubst %.c,$(FUZZ_O)/%.o,fuzz/fuzz_$(1).c fuzz/fuzz_util.c $(FUZZ_SRCS_$(1)))

$(FUZZ_O)/%.o: %.c | $(DEPS_PREREQ)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(filter-out -DFUZZ_REGRESS,$(EXTRA_CFLAGS_$(<))) -c $< -o $@

define fuzz_target
$(FUZZ_BIN)/fuzz_$(1): $(call fuzz_objs,$(1))
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $$@ $$^ $$(call pc_libs,$(FUZZ_LIBS_$(1)))
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_target,$(t))))

fuzz-build: $(patsubst %,$(FUZZ_BIN)/fuzz_%,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@FUZZ_O=$(FUZZ_O) FUZZ_BIN=$(FUZZ_BIN) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  $(foreach t,$(FUZZ_TARGETS),FUZZ_OPTS_$(t)='$(FUZZ_OPTS_$(t))') \
	  fuzz/run.sh $(FUZZ_TARGETS)

# The regression test: every target, built normally, replaying stored inputs.
$(foreach t,$(FUZZ_ALL),$(eval EXTRA_CFLAGS_fuzz/fuzz_$(t).c = -DFUZZ_REGRESS))
TESTS += $(BIN)/tests/fuzz_regress
$(BIN)/tests/fuzz_regress: $(call objs,tests/fuzz/regress.c fuzz/fuzz_util.c \
	$(patsubst %,fuzz/fuzz_%.c,$(FUZZ_ALL))) \
	$(O)/libproto.a $(O)/libctl.a $(O)/libconf.a $(O)/libjournal.a $(O)/libformat.a \
	$(O)/libgroth16.a $(O)/libcurve.a $(O)/libsynth.a $(O)/libhterm.a $(O)/libfield.a $(O)/libshm.a
LDLIBS_tests/fuzz_regress = $(call pc_libs,libxxhash libsodium inih)

# Seed corpora, written by the modules' own writers (fuzz/mkcorpus.c).
$(BIN)/fuzz/mkcorpus: $(call objs,fuzz/mkcorpus.c) $(O)/libproto.a $(O)/libjournal.a \
	$(O)/libformat.a $(O)/libgroth16.a $(O)/libcurve.a $(O)/libsynth.a $(O)/libfield.a $(O)/libshm.a
LDLIBS_fuzz/mkcorpus = $(call pc_libs,libxxhash libsodium)
fuzz-corpus: $(BIN)/fuzz/mkcorpus
	$(BIN)/fuzz/mkcorpus fuzz/corpus

ifneq ($(filter fuzz%,$(MAKECMDGOALS)),)
-include $(shell find $(FUZZ_O) -name '*.d' 2>/dev/null)
endif

.PHONY: fuzz fuzz-build fuzz-corpus
