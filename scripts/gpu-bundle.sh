#!/usr/bin/env bash
# gpu-bundle: the build's Debian packages, brought along to a machine that
# has a compiler (and nvcc) but no network and none of the -dev packages,
# such as the lent GPU machine (tests/gpu/device.sh).
#
#   gpu-bundle.sh fetch DIR     apt-get download the packages into DIR/debs
#                               (exit 77 when the archive cannot be reached)
#   gpu-bundle.sh unpack DIR PREFIX   dpkg-deb -x each of DIR/debs into PREFIX
#   gpu-bundle.sh env PREFIX    print the shell exports that make `make`
#                               build against PREFIX alone
#
# The design: only the .deb files travel (compressed, no symlinks to break
# on the way); each machine unpacks them into a prefix of its own. The
# build then finds headers, .pc files and libraries there through
# pkg-config (PKG_CONFIG_LIBDIR replaces the system's search path, so a
# system .pc is never seen, and PKG_CONFIG_SYSROOT_DIR moves every -I and
# -L into the prefix), and the binaries carry the prefix as DT_RPATH
# (--disable-new-dtags: an RPATH, unlike a RUNPATH, is searched for the
# libraries' own dependencies too, libpq's libldap for instance), so they
# run without LD_LIBRARY_PATH, also under a supervisor that cleans its
# children's environment. The toolchain's own packages (libc6-dev and
# what it pulls in) are left out: a machine that compiles has them.
set -euo pipefail

# The build's -dev packages (the Makefile's DEB_PKGS without the
# postgresql server, which only the fleet tests run), pkgconf for
# pkg-config itself.
BUNDLE_TOP="pkgconf liburing-dev libncurses-dev libgmp-dev libsodium-dev libxxhash-dev libinih-dev
libjson-c-dev libmicrohttpd-dev libsystemd-dev libpq-dev"
# Left out of the closure: the C library and toolchain (any machine with
# gcc has them) and ncurses' terminfo tools.
BUNDLE_SKIP='^(libc6|libc6-dev|libc-dev-bin|libcrypt1|libcrypt-dev|libgcc-s1|gcc-[0-9]+-base|libstdc\+\+6|linux-libc-dev|libnsl2|libnsl-dev|libtirpc3|libtirpc-dev|libtirpc-common|rpcsvc-proto|ncurses-bin)$'
MULTI=x86_64-linux-gnu

# The package names: the top list and every package it depends on,
# recursively, less BUNDLE_SKIP. Depends only (no Recommends).
bundle_names() {
  # shellcheck disable=SC2086
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $BUNDLE_TOP 2>/dev/null |
    grep -v '^[ <]' | sort -u | grep -Ev "$BUNDLE_SKIP"
}

bundle_fetch() {
  local dir=$1 names
  command -v apt-get >/dev/null || { echo "no apt-get here: cannot download the packages"; exit 77; }
  names=$(bundle_names)
  [ -n "$names" ] || { echo "apt-cache knows none of the packages (no package lists: apt-get update?)"; exit 77; }
  mkdir -p "$dir/debs"
  dir=$(cd "$dir" && pwd)
  # apt-get download writes into the current directory; as root it warns
  # that _apt cannot write there, harmlessly.
  # shellcheck disable=SC2086
  # Bounded: an archive that answers too slowly counts as one not reached.
  if ! (cd "$dir/debs" && timeout "${GPU_BUNDLE_FETCH_SECONDS:-60}" apt-get download -q $names >"$dir/fetch.log" 2>&1); then
    tail -n 3 "$dir/fetch.log"
    echo "apt-get download could not reach the archive (see $dir/fetch.log)"
    exit 77
  fi
  # One version of each: a rerun after an archive update may leave two.
  echo "$names" >"$dir/names"
  echo "gpu-bundle: $(echo "$names" | wc -l) packages, $(du -sh "$dir/debs" | cut -f1) in $dir/debs"
}

# One .deb into PREFIX: dpkg-deb where there is one, else ar and tar.
bundle_x() {
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$1" "$2"
  else
    local m
    m=$(ar t "$1" | grep '^data\.tar')
    ar p "$1" "$m" | tar -x -a -f - -C "$2" 2>/dev/null ||
      ar p "$1" "$m" | tar -x --zstd -f - -C "$2"
  fi
}

bundle_unpack() {
  local dir=$1 prefix=$2 d l t
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd)	# the links made below must be absolute
  ls "$dir"/debs/*.deb >/dev/null 2>&1 || { echo "no .deb files in $dir/debs (make gpu-bundle first)"; exit 1; }
  mkdir -p "$prefix"
  for d in "$dir"/debs/*.deb; do bundle_x "$d" "$prefix"; done
  # An absolute symlink (libfoo.so -> /lib/...) would point out of the
  # prefix: point it at the same path inside.
  find "$prefix" -type l | while read -r l; do
    t=$(readlink "$l")
    case $t in /*) ln -sfn "$prefix$t" "$l" ;; esac
  done
  # Debian 12 keeps some libraries in /lib (usrmerge is done by the base
  # system, not by the packages): one library folder for the linker.
  if [ -d "$prefix/lib/$MULTI" ]; then
    mkdir -p "$prefix/usr/lib/$MULTI"
    for l in "$prefix/lib/$MULTI"/*; do
      [ -e "$prefix/usr/lib/$MULTI/${l##*/}" ] || ln -s "$l" "$prefix/usr/lib/$MULTI/${l##*/}"
    done
  fi
  # pkg-config itself: the bundle's pkgconf, with its libpkgconf beside it
  # (for pkgconf alone: the build's tools keep the system's libraries).
  mkdir -p "$prefix/wrap"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$prefix/usr/lib/$MULTI" "$prefix/usr/bin/pkgconf" \
    >"$prefix/wrap/pkg-config"
  chmod +x "$prefix/wrap/pkg-config"
  echo "gpu-bundle: unpacked $(ls "$dir"/debs/*.deb | wc -l) packages into $prefix ($(du -sh "$prefix" | cut -f1))"
}

bundle_env() {
  local p=$1 lib=$1/usr/lib/$MULTI
  cat <<EOF
export PATH="$p/wrap:\$PATH"
export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$p/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$p"
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
export GPU_BUNDLE_CPPFLAGS="-I$p/usr/include -I$p/usr/include/$MULTI"
export GPU_BUNDLE_LDFLAGS="-L$lib -Wl,-rpath-link,$lib -Wl,--disable-new-dtags -Wl,-rpath,$lib"
EOF
}

case ${1:-} in
  fetch) [ $# -eq 2 ] || { echo "usage: $0 fetch DIR" >&2; exit 2; }; bundle_fetch "$2" ;;
  unpack) [ $# -eq 3 ] || { echo "usage: $0 unpack DIR PREFIX" >&2; exit 2; }; bundle_unpack "$2" "$3" ;;
  env) [ $# -eq 2 ] || { echo "usage: $0 env PREFIX" >&2; exit 2; }; bundle_env "$2" ;;
  names) bundle_names ;;
  *) echo "usage: $0 fetch DIR | unpack DIR PREFIX | env PREFIX | names" >&2; exit 2 ;;
esac
