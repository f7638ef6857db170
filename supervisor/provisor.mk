# bin/provisor: the operator's binary (the link rule is in the Makefile).
PROVISOR_OBJS += $(call objs,supervisor/main.c)
PROGS += $(BIN)/provisor
