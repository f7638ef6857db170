# gpuworker/cuda: the backend choice (backend.c, always built) and the CUDA
# H-term (hterm_cuda.cu when HAVE_CUDA is 1, else the hterm_nocuda.c stubs),
# added to libhterm.a next to hterm_cpu.mk's CPU backend.
HTERM_CUDA_SRCS := gpuworker/backend.c
ifeq ($(HAVE_CUDA),1)
HTERM_CUDA_SRCS += gpuworker/hterm_cuda.cu
else
HTERM_CUDA_SRCS += gpuworker/hterm_nocuda.c
endif
$(O)/libhterm.a: $(call objs,$(HTERM_CUDA_SRCS))

# The archive's member list depends on HAVE_CUDA and CUDA_MSM (below),
# but a mode switch alone changes no file. This stamp holds the mode and changes only when it does;
# backend.o depends on it, so switching rebuilds backend.o and with it the
# archive (which otherwise would keep the other mode's objects).
CUDA_MSM ?= 0
HTERM_CUDA_MODE := $(O)/gpuworker/cuda-mode
$(shell mkdir -p $(O)/gpuworker && { echo $(HAVE_CUDA) $(CUDA_MSM) | cmp -s - $(HTERM_CUDA_MODE) || echo $(HAVE_CUDA) $(CUDA_MSM) > $(HTERM_CUDA_MODE); })
$(call objs,gpuworker/backend.c): $(HTERM_CUDA_MODE)

# The .cuh headers: nvcc writes no dependency files here, so say it.
$(call objs,gpuworker/hterm_cuda.cu): gpuworker/hcu_fr.cuh gpuworker/hcu_hterm.cuh gpuworker/cuda_sticky.cuh gpuworker/hterm.h field/fr.h

# Host-side tests of the device arithmetic and pipeline (run anywhere).
TESTS += $(BIN)/tests/hcu_fr
$(BIN)/tests/hcu_fr: $(call objs,tests/gpuworker/hcu_fr.c)
LDLIBS_tests/hcu_fr = $(call pc_libs,gmp)

TESTS += $(BIN)/tests/hcu_hterm
$(BIN)/tests/hcu_hterm: $(call objs,tests/gpuworker/hcu_hterm.c) $(O)/libhterm.a $(O)/libfield.a
LDLIBS_tests/hcu_hterm = $(CUDA_LIBS)

TESTS += $(BIN)/tests/backend
$(BIN)/tests/backend: $(call objs,tests/gpuworker/backend.c gpuworker/builtin.c) $(O)/libgroth16.a $(O)/libcurve.a \
	$(O)/libhterm.a $(O)/libsynth.a $(O)/libfield.a
LDLIBS_tests/backend = $(call pc_libs,libsodium) $(CUDA_LIBS)

# CPU against CUDA on the same inputs; needs a GPU to say anything, so it is
# a program, not a benchmark. tests/gpu/run.sh drives it.
PROGS += $(BIN)/bench/hterm-compare
$(BIN)/bench/hterm-compare: $(call objs,bench/hterm_compare.c) $(O)/libhterm.a $(O)/libfield.a
LDLIBS_bench/hterm-compare = $(CUDA_LIBS)

TESTS += tests/gpu/run.sh
# The GPU machine's build bundle (scripts/gpu-bundle.sh), checked here.
TESTS += tests/gpu/bundle.sh

# ---- the CUDA MSM for G1 (issue 22 part 4): msm_cuda.cu when HAVE_CUDA
# and CUDA_MSM are 1, else the msm_nocuda.c stub, in libhterm.a (whose
# mode stamp above rebuilds the archive when either changes). CUDA_MSM is
# 0 unless asked for (tests/gpu/device.sh does): ptxas takes minutes a
# GPU architecture over its kernels, too long for every build here, and
# nothing calls it yet but bench/msm-cuda. The arithmetic and the phases
# (hcu_fp.cuh, hcu_msm.cuh) are tested on the host anywhere.
ifeq ($(HAVE_CUDA)$(CUDA_MSM),11)
MSM_CUDA_SRCS := gpuworker/msm_cuda.cu
else
MSM_CUDA_SRCS := gpuworker/msm_nocuda.c
endif
$(O)/libhterm.a: $(call objs,$(MSM_CUDA_SRCS))
$(call objs,gpuworker/msm_cuda.cu): gpuworker/hcu_fr.cuh gpuworker/hcu_fp.cuh gpuworker/hcu_msm.cuh gpuworker/cuda_sticky.cuh \
	gpuworker/msm_cuda.h

TESTS += $(BIN)/tests/hcu_fp
$(BIN)/tests/hcu_fp: $(call objs,tests/gpuworker/hcu_fp.c) $(O)/libfield.a
LDLIBS_tests/hcu_fp = $(call pc_libs,gmp)

TESTS += $(BIN)/tests/hcu_msm
$(BIN)/tests/hcu_msm: $(call objs,tests/gpuworker/hcu_msm.c) $(O)/libcurve.a $(O)/libfield.a

# CPU against CUDA MSM on the same inputs (tests/gpu/device.sh parses its
# lines); built only with the CUDA MSM, since without it there is nothing
# to compare.
ifeq ($(HAVE_CUDA)$(CUDA_MSM),11)
PROGS += $(BIN)/bench/msm-cuda
$(BIN)/bench/msm-cuda: $(call objs,bench/msm_cuda.c) $(O)/libhterm.a $(O)/libcurve.a $(O)/libfield.a
LDLIBS_bench/msm-cuda = $(CUDA_LIBS)
endif
