# proto: the frame codec of the pipes between the supervisor and its
# workers (libproto.a), and its test. XXH3 comes from libxxhash.
$(O)/libproto.a: $(call objs,proto/frame.c proto/fdchan.c proto/confine.c)
PROVISOR_LIBS += $(O)/libproto.a
PROVISOR_LDLIBS += $(call pc_libs,libxxhash)

TESTS += $(BIN)/tests/proto_frame
$(BIN)/tests/proto_frame: $(call objs,tests/proto/frame.c) $(O)/libproto.a
LDLIBS_tests/proto_frame = $(call pc_libs,libxxhash)
