#!/usr/bin/env bash
# The GPU bundle (scripts/gpu-bundle.sh, `make gpu-bundle`), checked without
# a device: the packages download, unpack, and a program that calls into
# every library the build links compiles and runs against the bundle
# alone: its headers come from the bundle (the compiler's dependency list
# says where each was found), its libraries too (ldd), pkg-config sees no
# system .pc file; then one of the Makefile's own targets (proto_frame,
# libxxhash) builds in a scratch copy the way tests/gpu/device.sh builds,
# and runs; the bundle and the tree fit the device tool's 64 MiB. The
# whole provisor build against the bundle is GPU_BUNDLE=force
# tests/gpu/device.sh --dry-run's (about a minute at -j2: kept out of
# the suite).
# Skips (77) where the archive cannot be reached or dpkg-deb is missing.
set -u
case ${BIN:-bin} in
  bin-*) echo "sanitizer build (${BIN}): the bundle is the plain CUDA build's; the plain stage runs this"
         exit 77 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
t=${TMPDIR:-/tmp}/bundle.$$
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

command -v dpkg-deb >/dev/null || { echo "no dpkg-deb here"; exit 77; }
"$root/scripts/gpu-bundle.sh" fetch "$t" || exit $?
"$root/scripts/gpu-bundle.sh" unpack "$t" "$t/root" >/dev/null || fail "unpack"
eval "$("$root/scripts/gpu-bundle.sh" env "$t/root")"
p=$t/root
pcs="liburing ncursesw gmp libsodium libxxhash inih json-c libmicrohttpd libsystemd libpq"

[ "$(command -v pkg-config)" = "$p/wrap/pkg-config" ] || fail "pkg-config is not the bundle's"
# shellcheck disable=SC2086
pkg-config --exists $pcs || fail "the bundle lacks a .pc file: $(pkg-config --print-errors --exists $pcs 2>&1)"
pkg-config --list-all | awk '{print $1}' | while read -r m; do
  f=$(pkg-config --variable=pcfiledir "$m")
  case $f in "$p"/*) ;; *) echo "FAIL: $m's .pc file is outside the bundle: $f"; exit 1 ;; esac
done || exit 1

# shellcheck disable=SC2086,SC2046
cc -std=gnu11 -Wall -Wextra -Werror -MD -MF "$t/probe.d" $GPU_BUNDLE_CPPFLAGS $(pkg-config --cflags $pcs) \
  -o "$t/probe" "$root/tests/gpu/bundle_probe.c" $GPU_BUNDLE_LDFLAGS $(pkg-config --libs $pcs) ||
  fail "bundle_probe.c does not build against the bundle"
for h in curses.h gmp.h ini.h json.h libpq-fe.h liburing.h microhttpd.h sodium.h sd-daemon.h xxhash.h; do
  w=$(tr ' \\' '\n\n' <"$t/probe.d" | grep "/$h\$" | head -n 1)
  case $w in "$p"/*) ;; *) fail "$h came from ${w:-nowhere}, not the bundle" ;; esac
done
for l in liburing libncursesw libgmp libsodium libxxhash libinih libjson-c libmicrohttpd libsystemd libpq; do
  w=$(ldd "$t/probe" | awk -v l="$l.so" 'index($1, l) == 1 { print $3 }')
  case $w in "$p"/*) ;; *) fail "$l resolves to ${w:-nothing}, not the bundle" ;; esac
done
"$t/probe" || fail "bundle_probe"

# The Makefile's way, in a scratch copy, with no LD_LIBRARY_PATH.
mkdir -p "$t/src"
(cd "$root" && git ls-files -co --exclude-standard -z | tar -c --null -T - -f - | tar -x -C "$t/src" -f -) ||
  fail "scratch copy"
make -s -C "$t/src" -j2 CUDA=0 DEPS_OK=yes CPPFLAGS="$GPU_BUNDLE_CPPFLAGS" LDFLAGS="$GPU_BUNDLE_LDFLAGS" \
  bin/tests/proto_frame >"$t/make.log" 2>&1 || { tail -n 20 "$t/make.log"; fail "make proto_frame"; }
w=$(ldd "$t/src/bin/tests/proto_frame" | awk 'index($1, "libxxhash.so") == 1 { print $3 }')
case $w in "$p"/*) ;; *) fail "proto_frame's libxxhash is ${w:-missing}, not the bundle's" ;; esac
env -u LD_LIBRARY_PATH "$t/src/bin/tests/proto_frame" >"$t/run.log" 2>&1 || { tail "$t/run.log"; fail "proto_frame"; }
# It travels to the GPU machine with the working tree: 64 MiB in all.
size=$(du -sb "$t/debs" | cut -f1)
tree=$(cd "$root" && git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
[ $((size + ${tree:-0})) -lt $((64 << 20)) ] || fail "the bundle ($size bytes) and the tree (${tree} bytes) exceed the device's 64 MiB"
echo "info: bundle $size bytes, tracked tree ${tree:-?} bytes, of the device tool's 67108864"
echo "OK: $(ls "$t/debs" | wc -l) packages ($(du -sh "$t/debs" | cut -f1)); the probe and proto_frame built and ran against the bundle alone"
