# dist: installing provisor and packaging it.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   bin/provisor to PREFIX/bin,
#        gpuworker and synth to PREFIX/libexec/provisor, the systemd unit,
#        the man pages and an example configuration
#   make uninstall [PREFIX=...] [DESTDIR=]        removes exactly those files
#   make deb        bin-deb/provisor_VERSION_ARCH.deb (PREFIX=/usr), built in
#                   build-deb/ with Debian's hardening flags (dpkg-buildflags)
#
# provisor finds its workers next to itself (the build tree's bin/) or in
# ../libexec/provisor from its own directory (find_bindir in
# supervisor/run.c), so the two directories follow PREFIX together and are
# not set on their own.
PREFIX ?= /usr/local
DESTDIR ?=
DIST_BINDIR     := $(PREFIX)/bin
DIST_LIBEXECDIR := $(PREFIX)/libexec/provisor
DIST_MANDIR     := $(PREFIX)/share/man
DIST_DOCDIR     := $(PREFIX)/share/doc/provisor
# Where systemd looks: /lib/systemd/system for /usr (Debian's place),
# PREFIX/lib/systemd/system otherwise (/usr/local/lib/systemd/system is on
# systemd's search path; for another PREFIX link or copy it into /etc).
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
# The unit's system user (dist/provisor.sysusers): PREFIX/lib/sysusers.d,
# which is systemd's own place for PREFIX=/usr.
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
INSTALL ?= install

# What `make install` puts where (the source, the destination under DESTDIR).
DIST_FILES := \
	$(BIN)/provisor:$(DIST_BINDIR)/provisor \
	$(BIN)/gpuworker:$(DIST_LIBEXECDIR)/gpuworker \
	$(BIN)/synth:$(DIST_LIBEXECDIR)/synth \
	man/provisor.1:$(DIST_MANDIR)/man1/provisor.1 \
	man/provisor.conf.5:$(DIST_MANDIR)/man5/provisor.conf.5 \
	dist/provisor.conf.example:$(DIST_DOCDIR)/provisor.conf.example \
	dist/provisor.sysusers:$(SYSUSERSDIR)/provisor.conf
DIST_UNIT := $(UNITDIR)/provisor@.service

install: $(BIN)/provisor $(BIN)/gpuworker $(BIN)/synth
	@set -e; for f in $(DIST_FILES); do \
	  src=$${f%%:*} dst='$(DESTDIR)'$${f#*:}; \
	  case $$src in $(BIN)/*) mode=0755 ;; *) mode=0644 ;; esac; \
	  echo "install $$src $$dst"; \
	  $(INSTALL) -d "$${dst%/*}"; $(INSTALL) -m $$mode "$$src" "$$dst"; \
	done
	@echo "install dist/provisor@.service.in $(DESTDIR)$(DIST_UNIT)"
	@$(INSTALL) -d '$(DESTDIR)$(UNITDIR)'
	@sed -e 's|@BINDIR@|$(DIST_BINDIR)|g' -e 's|@LIBEXECDIR@|$(DIST_LIBEXECDIR)|g' \
	     -e 's|@DOCDIR@|$(DIST_DOCDIR)|g' dist/provisor@.service.in >'$(DESTDIR)$(DIST_UNIT).tmp'
	@chmod 0644 '$(DESTDIR)$(DIST_UNIT).tmp' && mv -f '$(DESTDIR)$(DIST_UNIT).tmp' '$(DESTDIR)$(DIST_UNIT)'

# Only the files install wrote, then their directories where empty.
uninstall:
	@for f in $(DIST_FILES) :$(DIST_UNIT); do \
	  dst='$(DESTDIR)'$${f#*:}; [ -e "$$dst" ] && echo "rm $$dst"; rm -f "$$dst"; \
	done; \
	rmdir '$(DESTDIR)$(DIST_LIBEXECDIR)' '$(DESTDIR)$(DIST_DOCDIR)' 2>/dev/null; true

# The package: its own build (objects in build-deb/, programs in bin-deb/)
# with dpkg-buildflags' hardening, installed with PREFIX=/usr into
# build-deb/root, then dist/mkdeb.sh adds what Debian asks for.
# VERSION-REVISION: the program's version (cli/main.c), then the package's
# revision, which dist/changelog's first entry must name too.
DEB_REVISION ?= 1
DEB_VERSION := $(shell sed -n 's/^\#define PROVISOR_VERSION "\(.*\)"/\1/p' cli/main.c)-$(DEB_REVISION)
DEB_BUILDFLAGS = CFLAGS="$$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)" \
	CPPFLAGS="$$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)" \
	LDFLAGS="$$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)"

deb: | $(DEPS_PREREQ)
	@command -v dpkg-deb >/dev/null || { echo "make deb: needs dpkg-deb (Debian's dpkg)"; false; }
	rm -rf build-deb/root
	$(MAKE) O=build-deb BIN=bin-deb SAN= $(DEB_BUILDFLAGS) install PREFIX=/usr DESTDIR=$(CURDIR)/build-deb/root
	dist/mkdeb.sh build-deb/root '$(DEB_VERSION)' bin-deb

TESTS += tests/dist/man.sh tests/dist/unit.sh tests/dist/installed.sh tests/dist/deb.sh \
	tests/dist/security.sh
.PHONY: install uninstall deb
