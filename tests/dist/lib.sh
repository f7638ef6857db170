# Sourced by tests/dist/*.sh: the programs, a temp directory of the
# test's own, and dist_install DESTDIR [PREFIX] (make install of the
# programs already built, without rebuilding them).
set -u
bin=${BIN:-bin}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-dist.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

need_programs() {
  local p
  for p in provisor gpuworker synth; do
    [ -x "$bin/$p" ] || { echo "no $bin/$p: build it first"; exit 77; }
  done
  command -v make >/dev/null || { echo "needs make"; exit 77; }
}

# make install into $1 with PREFIX $2 (default /usr). -o: the programs
# count as built, so a test never rebuilds them (nor with other flags).
dist_install() {
  make -s -C "$top" --no-print-directory -o "$bin/provisor" -o "$bin/gpuworker" -o "$bin/synth" \
    BIN="$bin" install DESTDIR="$1" PREFIX="${2:-/usr}" >"$T/install.log" 2>&1 ||
    { echo "make install failed:"; cat "$T/install.log"; exit 1; }
}

finish() {
  [ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
  echo ok
}
