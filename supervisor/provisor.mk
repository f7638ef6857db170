# The supervisor itself, behind sup_main (supervisor/run.h), linked into
# bin/provisor (the link rule is in the Makefile; the commands are cli/).
SUP_SRCS := supervisor/run.c supervisor/log.c supervisor/loop.c supervisor/child.c supervisor/spawn.c \
	    supervisor/watchdog.c supervisor/contain.c \
	    supervisor/child_fsm.c supervisor/jobs.c supervisor/jobs_journal.c supervisor/policy.c supervisor/relay.c \
	    supervisor/relay_fsm.c supervisor/results.c supervisor/results_keep.c supervisor/ctlsrv.c \
	    supervisor/notify.c supervisor/publish.c supervisor/gpus.c \
	    supervisor/statedir.c supervisor/check.c supervisor/preempt.c supervisor/params.c supervisor/part.c supervisor/part_fsm.c \
	    supervisor/fleet.c supervisor/fleet_conn.c supervisor/fleet_claim.c supervisor/fleet_report.c
PROVISOR_OBJS += $(call objs,$(SUP_SRCS))
PROVISOR_LDLIBS += $(call pc_libs,liburing libsystemd)
PROGS += $(BIN)/provisor

# Integration tests: a real supervisor with real children.
PIPELINE_TESTS := kinds badreq priority stop prefetch keepalive responsive preempt cancel proofs proofs_h
TESTS += $(patsubst %,$(BIN)/tests/pipeline_%,$(PIPELINE_TESTS))
$(foreach t,$(PIPELINE_TESTS),$(eval $(BIN)/tests/pipeline_$(t): $(call objs,tests/pipeline/$(t).c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth))
$(foreach t,$(PIPELINE_TESTS),$(eval LDLIBS_tests/pipeline_$(t) = $(call pc_libs,libsodium)))
$(BIN)/tests/pipeline_keepalive: | $(BIN)/bench/ctl-rtt

BENCHES += $(BIN)/bench/relay
# bench/scale.sh: the whole rig at k = 16..24 (issue 11); runs ctl-rtt
BENCHES += bench/scale.sh
# bench/preempt.sh: winning-post latency behind a saturated load (issue 14)
BENCHES += bench/preempt.sh
# bench/proofs.sh: the pipeline that proves, k = 16 and 20, against standalone prove (issue 20)
BENCHES += bench/proofs.sh
bench/scale.sh: $(BIN)/bench/ctl-rtt
$(BIN)/bench/relay: $(call objs,bench/relay_bench.c)
LDLIBS_bench/relay = $(call pc_libs,liburing)

BENCHES += $(BIN)/bench/pipeline
$(BIN)/bench/pipeline: $(call objs,bench/pipeline_bench.c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth
LDLIBS_bench/pipeline = $(call pc_libs,libsodium)

# Crash isolation tests: real supervisor, real children, injected failures.
CRASH_TESTS := signals sigchld hang notify chaos restart graceful longrun exitcode deadline badframe synthframe shmwrite poison crashloop quarantine sample retry proofs_resume proofs_h_resume
TESTS += $(patsubst %,$(BIN)/tests/crash_%,$(CRASH_TESTS)) tests/crash/valgrind.sh
$(foreach t,$(CRASH_TESTS),$(eval $(BIN)/tests/crash_$(t): $(call objs,tests/crash/$(t).c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth))
$(foreach t,$(CRASH_TESTS),$(eval LDLIBS_tests/crash_$(t) = $(call pc_libs,libsodium)))

BENCHES += $(BIN)/bench/restart
$(BIN)/bench/restart: $(call objs,bench/restart_bench.c) $(O)/libctl.a $(O)/libshm.a $(O)/libformat.a $(O)/libsynth.a $(O)/libfield.a | $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth
LDLIBS_bench/restart = $(call pc_libs,libsodium)

# Unit tests: the transition tables, and placement (policy.c) on stubs;
# no process, no ring.
SUP_UNIT_TESTS := child_fsm relay_fsm part_fsm loop gpus policy
TESTS += $(patsubst %,$(BIN)/tests/supervisor_%,$(SUP_UNIT_TESTS))
$(foreach t,$(SUP_UNIT_TESTS),$(eval $(BIN)/tests/supervisor_$(t): $(call objs,tests/supervisor/$(t).c supervisor/$(t).c)))
LDLIBS_tests/supervisor_loop = $(call pc_libs,liburing)
