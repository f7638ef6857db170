# fleet: many supervisors on one PostgreSQL queue (libfleet.a,
# docs/fleet.md): the schema and its migrations, the statements a node
# sends, the commands' blocking queries and the node's claim journal.
# libpq comes from libpq-dev; the tests run a PostgreSQL server of their
# own (tests/fleet/lib.sh) and skip without one.
FLEET_SRCS := fleet/sql.c fleet/schema.c fleet/admin.c fleet/fjournal.c
$(O)/libfleet.a: $(call objs,$(FLEET_SRCS))
PROVISOR_LIBS += $(O)/libfleet.a
PROVISOR_LDLIBS += $(call pc_libs,libpq)
# Every file that includes fleet/fleet.h (and so libpq-fe.h).
FLEET_PQ_FILES := $(FLEET_SRCS) supervisor/fleet.c supervisor/fleet_conn.c supervisor/fleet_claim.c supervisor/fleet_report.c \
		  cli/cmd_fleet.c tests/fleet/journal.c tests/fleet/sql.c bench/fleet_load.c
$(foreach f,$(FLEET_PQ_FILES),$(eval EXTRA_CFLAGS_$(f) = $(call pc_cflags,libpq)))
