# gpuworker/hterm: the H-term backends. This file adds the CPU backend to
# libhterm.a; gpuworker/cuda.mk adds the dispatch and the CUDA objects.
$(O)/libhterm.a: $(call objs,gpuworker/hterm_cpu.c)
PROVISOR_LIBS += $(O)/libhterm.a

TESTS += $(BIN)/tests/hterm_cpu
$(BIN)/tests/hterm_cpu: $(call objs,tests/ntt/hterm_cpu.c) $(O)/libhterm.a $(O)/libfield.a

BENCHES += $(BIN)/bench/ntt
$(BIN)/bench/ntt: $(call objs,bench/ntt_bench.c) $(O)/libhterm.a $(O)/libfield.a
