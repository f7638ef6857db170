# provisor: one non-recursive Makefile. Each folder's *.mk file adds its
# sources, programs and tests to the lists below; the rules here build them.
#
#   make              build every program into bin/
#   make demo         build, run a live supervisor fed a mix of jobs, show top,
#                     then verify every result and stop, leaving nothing behind
#   make test         build, then run every test under its own timeout
#   make bench        print the benchmarks
#   make CC=clang     the same with clang; CUDA=0 forces a CPU-only build
#   make SAN=asan|tsan  sanitizer build (objects under build-SAN/)
#   make gpu-bundle   the -dev packages as .deb files in .gpu-bundle/, for a GPU
#                     machine with no network (tests/gpu/device.sh; docs/gpu.md)

# Every core unless told otherwise (make -j1 for one job at a time).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

ifeq ($(origin CC),default)
CC := cc
endif
CUDA ?= auto
SAN ?=

# Debian packages the build needs, and the pkg-config names that prove them
# (postgresql, the server the fleet tests run, has none: DEPS_OK looks for
# its initdb).
DEB_PKGS := pkg-config liburing-dev libncurses-dev libgmp-dev libsodium-dev libxxhash-dev libinih-dev libjson-c-dev libmicrohttpd-dev libsystemd-dev libpq-dev postgresql
PC_PKGS  := liburing ncursesw gmp libsodium libxxhash inih json-c libmicrohttpd libsystemd libpq

O   := build$(if $(SAN),-$(SAN))
BIN := bin$(if $(SAN),-$(SAN))

CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread -MMD -MP
override CPPFLAGS += -I. -D_GNU_SOURCE
override LDFLAGS += -pthread
# The sanitizer builds compile everything -fPIC: the plugins
# (plugins/plugins.mk) link the same libraries into shared objects, and an
# instrumented PIE object refers to the runtime's symbols in a way a
# shared object cannot take (the plain builds' PIE objects link as they are).
ifeq ($(SAN),asan)
override CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -fPIC
override LDFLAGS += -fsanitize=address,undefined
else ifeq ($(SAN),tsan)
override CFLAGS += -fsanitize=thread -fPIC
override LDFLAGS += -fsanitize=thread
endif

# Evaluated when used, so that a deps step earlier in the same run counts.
pc_cflags = $(shell pkg-config --cflags $(1) 2>/dev/null)
pc_libs   = $(shell pkg-config --libs $(1) 2>/dev/null)

# deps runs first, once, only when pkg-config cannot find a package.
# The noble test oracle counts too where npm exists (tests/noble.mk).
PG_SERVER_OK := { ls /usr/lib/postgresql/*/bin/initdb || command -v initdb; } >/dev/null 2>&1
DEPS_OK := $(shell pkg-config --exists $(PC_PKGS) 2>/dev/null && $(PG_SERVER_OK) && \
	{ [ -d tests/noble/node_modules/@noble/curves ] || ! command -v npm >/dev/null 2>&1; } && echo yes)
DEPS_PREREQ := $(if $(DEPS_OK),,deps)

# CUDA: auto builds the device backend when nvcc exists.
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
ifeq ($(CUDA),auto)
HAVE_CUDA := $(if $(NVCC),1,0)
else ifeq ($(CUDA),0)
HAVE_CUDA := 0
else
HAVE_CUDA := 1
ifeq ($(NVCC),)
$(error CUDA=$(CUDA) asked for, but nvcc was not found; set NVCC=/path/to/nvcc or CUDA=0)
endif
endif
# Sanitizer builds stay CPU-only: the CUDA runtime is not instrumented.
ifneq ($(SAN),)
HAVE_CUDA := 0
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCCFLAGS ?= -O3 -g
CUDA_ARCHS := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 \
              -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90
ifeq ($(HAVE_CUDA),1)
override CPPFLAGS += -DPROVISOR_CUDA=1
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif

PROGS :=
TESTS :=
# $(call objs,SRCS): the object files for C and CUDA sources.
objs = $(patsubst %.c,$(O)/%.o,$(patsubst %.cu,$(O)/%.cu.o,$(1)))
BENCHES :=
CLEAN :=

all: programs

# Every folder's *.mk adds to PROGS, TESTS and BENCHES.
include $(sort $(wildcard */*.mk))

# bin/provisor gathers the command objects and archives modules added to
# PROVISOR_OBJS, PROVISOR_LIBS and PROVISOR_LDLIBS.
$(BIN)/provisor: $(PROVISOR_OBJS) $(PROVISOR_LIBS)
LDLIBS_provisor = $(PROVISOR_LDLIBS) $(CUDA_LIBS)

programs: $(PROGS)

$(O)/%.o: %.c | $(DEPS_PREREQ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS_$(<)) -c $< -o $@

$(O)/%.cu.o: %.cu | $(DEPS_PREREQ)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(CUDA_ARCHS) -I. -DPROVISOR_CUDA=1 -Xcompiler -Wall,-Wextra,-Werror -c $< -o $@

$(O)/lib%.a:
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# $(BIN)/x: objects and archives (any order); LDLIBS_x adds libraries for it.
$(BIN)/%:
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(LDLIBS_$(*)) $(LDLIBS)

test: programs $(TESTS) | $(DEPS_PREREQ)
	@BIN=$(BIN) tests/run.sh $(TESTS)

demo: programs | $(DEPS_PREREQ)
	@BIN=$(BIN) scripts/demo.sh

bench: programs $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

asan tsan:
	$(MAKE) SAN=$@ test

# deps: the Debian packages, then the test oracle's node packages
# (NOBLE_DEPS, tests/noble.mk); the second is tried even when the first
# fails, and deps fails when either did.
deps:
	@if pkg-config --exists $(PC_PKGS) 2>/dev/null && $(PG_SERVER_OK); then \
	  echo "deps: all present ($(PC_PKGS), postgresql)"; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing $(DEB_PKGS)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y --no-install-recommends $(DEB_PKGS) || \
	  { apt-get update && apt-get install -y --no-install-recommends $(DEB_PKGS); }; \
	else \
	  echo "deps: missing packages; run as root:  apt-get install -y $(DEB_PKGS)"; false; \
	fi; apt=$$?; \
	$(NOBLE_DEPS); noble=$$?; \
	[ $$apt -eq 0 ] && [ $$noble -eq 0 ]

# gpu-bundle: DEB_PKGS' -dev packages and the libraries they need, as
# .deb files in .gpu-bundle/debs, for a machine with no network and no
# -dev packages (tests/gpu/device.sh unpacks them there; carry
# .gpu-bundle to the lent GPU machine). scripts/gpu-bundle.sh says how.
gpu-bundle:
	@rm -rf .gpu-bundle/debs && scripts/gpu-bundle.sh fetch .gpu-bundle && \
	  echo "gpu-bundle: $$(du -sb .gpu-bundle | cut -f1) bytes in .gpu-bundle (the device's carry limit: 67108864 with the tree)"

clean:
	rm -rf build build-* bin bin-* $(CLEAN)

.PHONY: all programs test demo bench asan tsan deps clean gpu-bundle
.DELETE_ON_ERROR:
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
