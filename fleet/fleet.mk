# fleet: many supervisors on one PostgreSQL queue (libfleet.a,
# docs/fleet.md): the schema and its migrations, the statements a node
# sends, the commands' blocking queries, the same status read without
# waiting (top --fleet) and the node's claim journal.
# libpq comes from libpq-dev; the tests run a PostgreSQL server of their
# own (tests/fleet/lib.sh) and skip without one.
FLEET_SRCS := fleet/sql.c fleet/schema.c fleet/admin.c fleet/fjournal.c fleet/watch.c
$(O)/libfleet.a: $(call objs,$(FLEET_SRCS))
PROVISOR_LIBS += $(O)/libfleet.a
PROVISOR_LDLIBS += $(call pc_libs,libpq)
# Every file that includes fleet/fleet.h (and so libpq-fe.h).
FLEET_PQ_FILES := $(FLEET_SRCS) supervisor/fleet.c supervisor/fleet_conn.c supervisor/fleet_claim.c supervisor/fleet_report.c \
		  cli/cmd_fleet.c cli/cmd_fleet_status.c tests/fleet/units.c tests/fleet/sql.c bench/fleet_load.c \
		  tui/render_fleet.c tui/top_fleet.c
$(foreach f,$(FLEET_PQ_FILES),$(eval EXTRA_CFLAGS_$(f) = $(call pc_cflags,libpq)))

# Tests against a real PostgreSQL server of their own (tests/fleet/lib.sh):
# kill.sh (a node killed mid-run), outage.sh (the database stopped 10 s),
# race.sh (two nodes racing; a node cut off reports late and is refused),
# sql.sh (each statement's conditions, fleet_sql), top.sh (top --fleet in
# tmux: nodes alive, stale, dead; the database stopped and frozen); units
# needs no server.
TESTS += tests/fleet/kill.sh tests/fleet/outage.sh tests/fleet/race.sh tests/fleet/sql.sh tests/fleet/top.sh \
	 $(BIN)/tests/fleet_units
PROGS += $(BIN)/tests/fleet_proxy $(BIN)/tests/fleet_sql
$(BIN)/tests/fleet_proxy: $(call objs,tests/fleet/proxy.c)
$(BIN)/tests/fleet_sql: $(call objs,tests/fleet/sql.c) $(O)/libfleet.a
LDLIBS_tests/fleet_sql = $(call pc_libs,libpq)
$(BIN)/tests/fleet_units: $(call objs,tests/fleet/units.c) $(O)/libfleet.a $(O)/libconf.a $(O)/libshm.a
LDLIBS_tests/fleet_units = $(call pc_libs,libpq) $(call pc_libs,inih)
tests/fleet/race.sh tests/fleet/kill.sh: $(BIN)/tests/fleet_proxy
tests/fleet/sql.sh: $(BIN)/tests/fleet_sql

# bench/fleet.sh: claim latency, statements per job, 3 nodes against 1,
# a dead node's work reclaimed (issue 23)
BENCHES += bench/fleet.sh
