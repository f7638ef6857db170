#!/usr/bin/env bash
# An operator's argument echoed in an error reaches the terminal cleaned
# (util/text.h): ESC and BEL in a bad --backend, --device, --job, --kind,
# --request-deadline, --state-dir or an extra argument show as \x1b and
# \x07, never raw, in the one line each command writes, and the command
# still exits non-zero.
set -u
bin=${BIN:-bin}
prov=$bin/provisor
[ -x "$prov" ] || { echo "no $prov: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-echo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bad=$'x\e[2J\a'
echoed() {  # echoed NAME CMD...: non-zero, one line, \x1b and \x07 shown, no raw ESC or BEL
  local name=$1 rc; shift
  timeout 10 "$@" >"$dir/out" 2>"$dir/err"; rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then fail "$name: exit $rc"
  elif LC_ALL=C grep -q $'[\x1b\x07]' "$dir/err" "$dir/out"; then fail "$name: ESC or BEL written raw"
  elif [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qF 'x\x1b[2J\x07' "$dir/err"; then
    fail "$name: stderr is not one line showing \\x1b and \\x07: $(cat "$dir/err")"
  else echo "ok: $name -> $(cat "$dir/err")"
  fi
}
echoed prove_backend "$prov" prove -i x -o y --backend "$bad"
echoed prove_device "$prov" prove -i x -o y --device "$bad"
echoed run_backend "$prov" run --backend "$bad"
echoed status_job "$prov" status --job "$bad"
echoed submit_kind "$prov" submit --kind "$bad"
echoed exporter_deadline "$prov" exporter --listen :0 --request-deadline "$bad"
echoed exporter_extra "$prov" exporter --listen :0 "$bad"
echoed log_state_dir "$prov" log --state-dir "$dir/$bad"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "every echoed argument cleaned"
