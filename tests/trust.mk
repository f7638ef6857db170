# tests/trust: the trust boundaries (docs/security.md): what another user
# could have made, a second instance, hostile text. The shell tests need
# root and create an unprivileged user and group of their own, removed at
# the end (they skip with 77 where that is impossible).
TRUST_TESTS := reason
TESTS += $(patsubst %,$(BIN)/tests/trust_%,$(TRUST_TESTS))
$(foreach t,$(TRUST_TESTS),$(eval $(BIN)/tests/trust_$(t): $(call objs,tests/trust/$(t).c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth))
$(foreach t,$(TRUST_TESTS),$(eval LDLIBS_tests/trust_$(t) = $(call pc_libs,libsodium)))

TESTS += tests/trust/symlink.sh tests/trust/statedir.sh tests/trust/squat.sh tests/trust/twosup.sh tests/trust/relative.sh \
	 tests/trust/group.sh tests/trust/worker.sh tests/trust/log.sh tests/trust/service.sh tests/trust/quota.sh
# drip: the slow-drip client tests/trust/group.sh runs as a group member
PROGS += $(BIN)/tests/trust_drip
$(BIN)/tests/trust_drip: $(call objs,tests/trust/drip.c)
tests/trust/group.sh: $(BIN)/tests/trust_drip
# probe.so: an exploited gpuworker (LD_PRELOAD) for tests/trust/worker.sh;
# built without the sanitizers, which live in the worker it is put into.
PROGS += $(BIN)/tests/trust_probe.so
$(BIN)/tests/trust_probe.so: tests/trust/probe.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl
tests/trust/worker.sh: $(BIN)/tests/trust_probe.so
