#!/usr/bin/env bash
# A status segment that others can write is refused (docs/security.md,
# "Instance names and the status segment"): with the fake supervisor's
# segment made 0666, then 0660 and 0642, status and jobs each exit
# non-zero with one line naming the mode; back at 0640 they read it. And
# a configuration whose shm_mode would make such a segment is refused.
set -u
bin=${BIN:-bin}
prov=$bin/provisor fake=$bin/tests/fakesup
[ -x "$prov" ] && [ -x "$fake" ] || { echo "no $prov or $fake: build first"; exit 77; }
name=t-segm-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-segm.XXXXXX")
fpid=
cleanup() {
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null
  wait 2>/dev/null
  rm -f "/run/provisor/$name.status"; rm -rf "$dir"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# refused PATTERN CMD...: exit 1..127, one stderr line matching PATTERN
refused() {
  local pat=$1 rc; shift
  timeout 10 "$@" >"$dir/out" 2>"$dir/err"; rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then fail "$* exited $rc, expected a refusal"
  elif [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -qE -- "$pat" "$dir/err"; then
    fail "$*: stderr is not one line matching '$pat':"; sed 's/^/    /' "$dir/err"
  else echo "info: refused: $(cat "$dir/err")"
  fi
}

"$fake" --name "$name" --gpus 1 --synth 1 --ready "$dir/ready" & fpid=$!
slow=${PROVISOR_TEST_SLOW:-1}	# tests/run.sh sets it
for _ in $(seq $((50 * slow))); do [ -e "$dir/ready" ] && break; sleep 0.1; done
seg=$("$prov" status --name "$name" --json 2>/dev/null | sed -n 's/.*"segment": *"\([^"]*\)".*/\1/p')
[ -n "$seg" ] || seg=/run/provisor/$name.status
[ -f "$seg" ] || { echo "no segment at $seg"; exit 1; }

for mode in 0666 0660 0642; do
  chmod "$mode" "$seg"
  refused "status segment $seg is writable by group or others \(mode $mode\): refusing it" \
    "$prov" status --name "$name"
  refused "writable by group or others \(mode $mode\)" "$prov" jobs --name "$name"
done
chmod 0640 "$seg"
"$prov" status --name "$name" >"$dir/out" 2>&1 || fail "status of a 0640 segment: $(cat "$dir/out")"

printf '[supervisor]\nshm_mode = 0666\n' >"$dir/c.ini"
refused "shm_mode 0666 lets group or others write the status segment" \
  "$prov" run --config "$dir/c.ini" --name "$name-c" --state-dir "$dir/st" --gpus 1 --synth 1 --backend cpu
[ -e "/run/provisor/$name-c.status" ] && fail "a refused configuration made a segment"
exit $((fails > 0))
