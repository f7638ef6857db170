# conf: the supervisor's configuration (defaults, INI file through inih,
# checks) and its test.
$(O)/libconf.a: $(call objs,conf/conf.c)
PROVISOR_LIBS += $(O)/libconf.a
PROVISOR_LDLIBS += $(call pc_libs,inih)
EXTRA_CFLAGS_conf/conf.c = $(call pc_cflags,inih)

TESTS += $(BIN)/tests/conf_load
$(BIN)/tests/conf_load: $(call objs,tests/conf/load.c) $(O)/libconf.a $(O)/libshm.a
LDLIBS_tests/conf_load = $(call pc_libs,inih)
