#!/usr/bin/env bash
# bench/blst.sh: provisor's G1 MSM, pairing and Fp/Fp2 products against
# blst's, one core, interleaved in one process (bench/blst_compare.c).
#
#   BLST_SRC=/path/to/blst bench/blst.sh [LOG_N ...]   (default 16 18 20 22)
#
# blst is built from the source tree BLST_SRC names (its own build.sh, so
# its assembly with ADX where the CPU has it) in a temporary directory that
# is removed at exit: nothing of blst enters provisor's tree or build.
# Without BLST_SRC the benchmark says so and is skipped (exit 0), since a
# fresh machine has no blst: Debian does not package it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${BLST_SRC:-}" ]; then
  echo "bench/blst: skipped (set BLST_SRC to a blst source tree to compare against blst)"
  exit 0
fi
if [ ! -f "$BLST_SRC/build.sh" ] || [ ! -f "$BLST_SRC/bindings/blst.h" ]; then
  echo "bench/blst: BLST_SRC=$BLST_SRC is not a blst source tree (no build.sh or bindings/blst.h)" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/provisor-blst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make -s build/libcurve.a build/libfield.a
(cd "$tmp" && sh "$BLST_SRC/build.sh" >build.log 2>&1) || {
  echo "bench/blst: blst's build.sh failed; its log:" >&2
  cat "$tmp/build.log" >&2
  exit 1
}
${CC:-cc} -O2 -std=gnu11 -I. -I"$BLST_SRC/bindings" -D_GNU_SOURCE -pthread \
  -o "$tmp/blst_compare" bench/blst_compare.c build/libcurve.a build/libfield.a "$tmp/libblst.a"
echo "blst: $(cd "$BLST_SRC" && git rev-parse --short HEAD 2>/dev/null || echo "$BLST_SRC")"
"$tmp/blst_compare" "$@"
