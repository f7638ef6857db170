# gpuworker/worker: the GPU worker program the supervisor execs per GPU
# slot (bin/gpuworker), and its test, which plays the supervisor's part.
PROGS += $(BIN)/gpuworker
$(BIN)/gpuworker: $(call objs,gpuworker/main.c gpuworker/builtin.c) $(O)/libgroth16.a $(O)/libcurve.a $(O)/libhterm.a \
	$(O)/libproto.a $(O)/libshm.a \
	$(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a $(O)/libfault.a
LDLIBS_gpuworker = $(call pc_libs,libxxhash) $(call pc_libs,libsodium) $(CUDA_LIBS)

TESTS += $(BIN)/tests/workers_gpu
$(BIN)/tests/workers_gpu: $(call objs,tests/workers/gpu.c) $(O)/libhterm.a $(O)/libverify.a $(O)/libformat.a \
	$(O)/libsynth.a $(O)/libproto.a $(O)/libshm.a $(O)/libfield.a | $(BIN)/gpuworker
LDLIBS_tests/workers_gpu = $(call pc_libs,libsodium) $(call pc_libs,libxxhash) $(CUDA_LIBS)
