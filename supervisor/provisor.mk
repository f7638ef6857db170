# bin/provisor: the operator's binary (the link rule is in the Makefile),
# and the supervisor itself: `provisor run`.
SUP_SRCS := supervisor/main.c supervisor/run.c supervisor/loop.c supervisor/child.c \
	    supervisor/sched.c supervisor/ctlsrv.c
PROVISOR_OBJS += $(call objs,$(SUP_SRCS))
PROVISOR_LDLIBS += $(call pc_libs,liburing)
PROGS += $(BIN)/provisor
