#!/usr/bin/env bash
# The control commands' argument handling through bin/provisor, without a
# supervisor: every bad argument ends in exactly one error line on stderr,
# nothing on stdout and exit 2; a missing instance or socket ends in one
# clear line and exit 1. (ctl_call's behaviour against live, silent and
# misbehaving servers is tests/ctl/call.c.)
set -u
bin=${BIN:-bin}
prov=$bin/provisor
[ -x "$prov" ] || { echo "no $prov: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-ctlcli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect RC PATTERN CMD...: exit RC, one stderr line matching PATTERN,
# empty stdout.
expect() {
  local want=$1 pat=$2; shift 2
  "$prov" "$@" >"$dir/out" 2>"$dir/err"
  local rc=$? lines
  lines=$(wc -l <"$dir/err")
  [ "$rc" -eq "$want" ] || fail "provisor $*: exit $rc, expected $want: $(cat "$dir/err")"
  [ "$lines" -eq 1 ] || fail "provisor $*: $lines stderr lines: $(cat "$dir/err")"
  grep -q -- "$pat" "$dir/err" || fail "provisor $*: '$(cat "$dir/err")' lacks '$pat'"
  [ ! -s "$dir/out" ] || fail "provisor $*: stdout: $(cat "$dir/out")"
}

expect 2 "missing --kind" submit
expect 2 "unknown --kind 'stark'" submit --kind stark
expect 2 "'28' is not a number in 3..27" submit --kind porep --log-size 28
expect 2 "'0' is not a number in 3..27" submit --kind porep --log-size 0
expect 2 "'2' is not a number in 3..27" submit --kind porep --log-size 2
expect 2 "'65' is not a number in 1..64" submit --kind porep --partitions 65
expect 2 "'abc' is not hex" submit --kind porep --seed abc
expect 2 "'xy' is not hex" submit --kind porep --seed xy
expect 2 "is not hex" submit --kind porep --seed "$(printf 'ab%.0s' $(seq 33))"
expect 2 "needs a value" submit --kind
expect 2 "unknown option '--colour'" submit --kind porep --colour
expect 2 "unexpected argument 'now'" submit --kind porep now
expect 2 "--name" submit --kind porep --name 'a/b'
expect 2 "expected 1 argument" cancel
expect 2 "not a job id" cancel abc
expect 2 "not a job id" cancel 0
expect 2 "expected 0 arguments" drain now
expect 2 "expected 0 arguments" stop now
expect 2 "expected 2 arguments" worker enable
expect 2 "neither enable nor disable" worker start gpu.0
expect 2 "not gpu.N or synth.N" worker enable cpu.1
expect 2 "not gpu.N or synth.N" worker disable gpu.x

name=ctlcli-$$
expect 1 "no provisor instance '$name' is running" submit --kind porep --name "$name"
expect 1 "no provisor instance '$name' is running" stop --name "$name"
expect 1 "no control socket at $dir/none.sock" drain --socket "$dir/none.sock"

"$prov" submit --help >"$dir/out" 2>&1 && grep -q "usage: provisor submit" "$dir/out" ||
  fail "submit --help: $(cat "$dir/out")"

[ "$fails" -eq 0 ] || exit 1
echo "ok"
