#!/usr/bin/env bash
# Bad input through bin/provisor, no supervisor running: bad flags of
# run, submit, cancel and worker; bad configuration files (unknown keys,
# bad values, NUL bytes, non-UTF-8, huge and negative numbers, a
# directory); truncated, oversized, wrong-version and wrong-type files for
# synth/prove/verify (docs/formats.md); status and top --once on a garbage
# or truncated segment posing as an instance. Each must end in a clear
# error on stderr naming the problem and an exit code in 1..127 (never a
# signal, never a hang: every command runs under a short timeout, and a
# `run` that starts anyway is caught by it and fails the test).
set -u
bin=${BIN:-bin}
prov=$(cd "$(dirname "$bin/provisor")" 2>/dev/null && pwd)/provisor
[ -x "$prov" ] || { echo "no $bin/provisor: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-badcli.XXXXXX")
name=badcli-$$
seg=/run/provisor/$name.status
[ "$(id -u)" = 0 ] || [ -z "${XDG_RUNTIME_DIR:-}" ] || seg=$XDG_RUNTIME_DIR/provisor/$name.status
[ "$(id -u)" = 0 ] || [ -n "${XDG_RUNTIME_DIR:-}" ] || seg=/dev/shm/provisor-$(id -u)/$name.status
trap 'rm -rf "$dir"; rm -f "$seg"' EXIT
cd "$dir" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refuse PATTERN CMD...: exit 1..127, PATTERN (grep -E) in what it
# printed (stderr; status --json and top --once report on stdout).
refuse() {
  local pat=$1; shift
  timeout -k 2 10 "$prov" "$@" >out 2>err </dev/null
  local rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
    fail "provisor $*: exit $rc (wanted a refusal): $(head -c 300 err)"
  elif ! cat err out | grep -Eq -- "$pat"; then
    fail "provisor $*: exit $rc, '$(cat err out | head -c 300)' lacks '$pat'"
  fi
}

# run: every refusal must come before anything starts, so these use a
# private name and state directory (a mistake cannot touch a real one).
r() { refuse "$1" run --name "$name" --state-dir "$dir/state" "${@:2}"; }
r "--gpus: '0' is not a number" --gpus 0
r "--gpus: '-1' is not a number" --gpus -1
r "--gpus: '99999999999999999999' is not" --gpus 99999999999999999999
r "--gpus: 'x' is not" --gpus x
r "--synth: 'abc' is not a number" --synth abc
r "--synth: '-3' is not a number" --synth -3
r "--workers-per-gpu: '0' is not" --workers-per-gpu 0
r "--backend: 'opencl' is not auto, cuda, cpu or plugin:/absolute/path.so" --backend opencl
r "provisor run: option --backend needs a value" --backend
r "provisor run: unknown option '--colour'" --colour
r "provisor run: unexpected argument 'now'" now
r "provisor run: unknown option '-Z'" -Z
r "provisor run: option --gpus needs a value" --gpus
refuse "--name: instance name 'a/b' has '/'" run --name a/b --state-dir "$dir/state"
refuse "--name: instance name must be 1 to 32" run --name "$(printf 'n%.0s' $(seq 40))" --state-dir "$dir/state"
refuse "longer than 90 bytes" run --name "$name" --state-dir "/tmp/$(printf 'd%.0s' $(seq 120))"
[ ! -e "/tmp/$(printf 'd%.0s' $(seq 120))" ] || { fail "a too-long state dir was created"; rm -rf "/tmp/$(printf 'd%.0s' $(seq 120))"; }

# Configuration files: each refused with FILE:LINE: reason.
conf() { printf "$1" >c.ini; r "$2" --config c.ini; }
conf '[supervisor]\nbogus = 1\n' "c.ini:2: unknown key 'bogus' in \[supervisor\]"
conf '[nonsense]\n' "c.ini:1: unknown section \[nonsense\]"
conf 'synth = 2\n' "c.ini:1: key 'synth' outside any section"
conf '[supervisor]\nmax_jobs = -5\n' "c.ini:2: max_jobs: '-5' is not a number in 1..256"
conf '[supervisor]\nmax_jobs = 1024\n' "c.ini:2: max_jobs: '1024' is not a number in 1..256"
conf '[supervisor]\nmax_jobs_per_uid = 0\n' "c.ini:2: max_jobs_per_uid: '0' is not a number in 1..256"
conf '[supervisor]\nmax_jobs = 99999999999999999999999\n' "c.ini:2: max_jobs: .* is not a number"
conf '[supervisor]\nmax_jobs = 0x10\n' "c.ini:2: max_jobs: '0x10' is not"
conf '[supervisor]\nmem_budget = 99999999999TiB\n' "c.ini:2: mem_budget: .* is not a size"
conf '[supervisor]\nmem_budget = -1\n' "c.ini:2: mem_budget: '-1' is not a size"
conf '[supervisor]\nrestart_period = 5\n' "c.ini:2: restart_period: '5' is not a positive duration"
conf '[supervisor]\nshm_mode = 4755\n' "c.ini:2: shm_mode: '4755' is not an octal mode"
conf '[supervisor]\nsocket_group = nosuchgroup-xyz\n' "c.ini:2: socket_group: 'nosuchgroup-xyz' is not a group"
conf '[supervisor]\nsynth = 2\nsynth = 3\n' "c.ini:3: duplicate key 'synth'"
conf '[supervisor]\nname = a\0b\n' "c.ini:2: NUL byte in line"
conf '[supervisor]\n\0\n' "c.ini:2: NUL byte in line"
conf '[supervisor]\nname = \xff\xfe\n' "c.ini:2: name: '\\\\xff\\\\xfe' is not an instance name"
conf '[supervisor]\n\xc3\x28 = 1\n' "c.ini:2: unknown key '\\\\xc3\(' in"
conf '[kind.porep]\nlog_size = 28\n' "c.ini:2: log_size: '28' is not a number in 3..27"
conf '[kind.porep]\npartitions = 65\n' "c.ini:2: partitions: '65' is not a number in 1..64"
conf '[kind.porep]\npartitions = -1\n' "c.ini:2: partitions: '-1' is not"
conf '[kind.stark]\n' "c.ini:1: unknown section \[kind.stark\]"
conf '[supervisor]\nmax_log_size = 12\n' "c.ini: kind.*log_size .* is outside 3..max_log_size \(12\)"
conf '[supervisor]\nmem_budget = 1KiB\n' "c.ini: kind.*one partition .* is larger than mem_budget \(1024\)"
conf '[supervisor]\ngpus = 200\nworkers_per_gpu = 2\n' "c.ini: 4.. worker slots .*allowed 2..256"
conf 'x\n' "c.ini:1: syntax error"
printf '[supervisor]\n# %s\n' "$(head -c 6000 /dev/zero | tr '\0' x)" >c.ini
r "c.ini:2: line longer than" --config c.ini
head -c 4096 /dev/urandom >c.ini
r "c.ini:" --config c.ini
r "nonexistent.ini: No such file" --config nonexistent.ini
mkdir -p adir
r "adir: not a regular file" --config adir
[ ! -e "$dir/state" ] || fail "a refused run created its state directory"
[ ! -e "$seg" ] || fail "a refused run created a segment"

# Every subcommand: an unknown option, an option without its value and an
# argument it does not take are each one line on stderr naming the word,
# with the usage; nothing on stdout.
oneline() {  # oneline PATTERN CMD...
  refuse "$@"
  [ "$(wc -l <err)" -eq 1 ] && [ ! -s out ] ||
    fail "provisor ${*:2}: not one line on stderr: $(head -c 300 err out)"
}
# (command, an option of it that takes a value, or - when none does; run
# is checked above, with a private name and state directory)
for spec in "synth --seed" "prove --backend" "verify -" "submit --name" \
    "cancel --name" "drain --name" "stop --name" "worker --name" "ping --socket" \
    "status --name" "top -d" "exporter --listen" "resume --name" "jobs --state" \
    "result --name" "log --state-dir"; do
  c=${spec% *} o=${spec#* }
  oneline "^provisor $c: unknown option '--bogus' \(usage: provisor $c " $c --bogus
  oneline "^provisor $c: unknown option '-Z' \(usage: provisor $c " $c -Z
  [ "$o" = - ] || oneline "^provisor $c: option $o needs a value \(usage: provisor $c " $c $o
done
for c in synth prove submit drain resume stop ping status top exporter jobs log; do
  oneline "^provisor $c: unexpected argument 'extra'|^provisor $c: expected 0 arguments" $c extra
done
oneline "provisor top: -d '0' is not a delay in tenths" top -d 0
oneline "provisor top: -d '2x' is not a delay in tenths" top -d 2x
oneline "provisor top: --width 'x' is not a number of columns" top --width x --once
oneline "provisor status: --json and --prometheus" status --json --prometheus
oneline "provisor status: option --json takes no value" status --json=1
oneline "provisor status: --job 'x' is not a job id" status --job x
oneline "provisor status: --jobs and --job are for the text" status --json --jobs
oneline "provisor jobs: unknown --kind 'stark'" jobs --kind stark
oneline "provisor result: expected 1 argument" result
oneline "provisor result: '0' is not a job id" result 0
oneline "provisor submit: option --wait takes no value" submit --kind porep --wait=yes
oneline "provisor exporter: missing --listen" exporter --name "$name"
oneline "provisor cancel: expected 1 argument" cancel --name "$name"
oneline "provisor verify: no files given" verify

# submit/cancel/worker: refused before any connection (none exists).
refuse "unknown --kind 'stark'" submit --name "$name" --kind stark
refuse "unknown --kind" submit --name "$name" --kind "$(printf 'p\xffo')"
refuse "'-1' is not a number in 3..27" submit --name "$name" --kind porep --log-size -1
refuse "'99999999999999999999' is not a number in 3..27" submit --name "$name" --kind porep --log-size 99999999999999999999
refuse "'0' is not a number in 1..64" submit --name "$name" --kind porep --partitions 0
refuse "'-2' is not a number in 1..64" submit --name "$name" --kind porep --partitions -2
refuse "'4294967297' is not a number in 1..64" submit --name "$name" --kind porep --partitions 4294967297
refuse "is not hex" submit --name "$name" --kind porep --seed "$(printf 'ab%.0s' $(seq 33))"
refuse "is not hex" submit --name "$name" --kind porep --seed -1
refuse "is not hex" submit --name "$name" --kind porep --seed "$(printf '\xc3\xa9')"
refuse "not a job id" cancel --name "$name" -- -1
refuse "not a job id" cancel --name "$name" 99999999999999999999999
refuse "not a job id" cancel --name "$name" 0x10
refuse "not gpu.N or synth.N" worker enable --name "$name" gpu.-1
refuse "not gpu.N or synth.N" worker enable --name "$name" gpu.99999999999
refuse "non-printable byte 0x01" worker "$(printf 'en\x01able')" --name "$name" gpu.0
refuse "no provisor instance '$name' is running" ping --name "$name"

# synth: bad seeds, partitions, sizes.
refuse "--log-size '28' out of range 3..27" synth --seed 00 --partition 0 --log-size 28 -o p
refuse "--log-size '-1'" synth --seed 00 --partition 0 --log-size -1 -o p
refuse "--seed '-1' is not hex" synth --seed -1 --partition 0 --log-size 4 -o p
refuse "--partition '99999999999' is not an integer" synth --seed 00 --partition 99999999999 --log-size 4 -o p
refuse "--partition '-1'" synth --seed 00 --partition -1 --log-size 4 -o p
[ ! -e p ] || fail "a refused synth wrote its output"

# Good files to damage. k=4: 16 rows.
"$prov" synth --seed 00ff10 --partition 1 --log-size 4 -o good.p >/dev/null 2>&1 &&
  "$prov" prove -i good.p -o good.h >/dev/null 2>&1 || { echo "cannot make good files"; exit 1; }
"$prov" verify good.h >/dev/null 2>&1 || fail "the good H file does not verify"
# patch FILE OFFSET HEXBYTES > copy
patch() { cp "$1" "$1.bad"; printf "$(echo "$3" | sed 's/../\\x&/g')" |
  dd of="$1.bad" bs=1 seek="$2" conv=notrunc status=none; }
# A damaged partition file: prove refuses it and writes nothing.
badp() { refuse "$1" prove -i "$2" -o out.h; [ ! -e out.h ] || { fail "prove wrote out.h from $2"; rm -f out.h; }; }
# A damaged H file: verify refuses it.
badh() { refuse "$1" verify "$2"; }
: >empty.p;                     badp "empty" empty.p
head -c 50 good.p >short.p;     badp "truncated: 50 bytes, shorter than the 80-byte header" short.p
head -c 1000 good.p >cut.p;     badp "truncated: 1000 bytes, header implies" cut.p
cp good.p long.p; printf 'xx' >>long.p; badp "trailing bytes" long.p
head -c 80 /dev/urandom >rnd.p; badp "bad magic" rnd.p
patch good.p 8 02000000;  badp "format version 2 \\(circuit v1\\) is no longer accepted: re-synthesize" good.p.bad
patch good.p 8 04000000;  badp "unsupported format version 4 \\(this provisor reads version 3\\)" good.p.bad
patch good.p 8 ffffffff;  badp "unsupported format version 4294967295" good.p.bad
patch good.p 12 02000000; badp "is an H file, expected a partition file" good.p.bad
patch good.p 12 09000000; badp "kind" good.p.bad
patch good.p 16 1c000000; badp "log size k = 28 out of range 3..27" good.p.bad
patch good.p 16 ffffffff; badp "log size k = 4294967295 out of range" good.p.bad
patch good.p 20 00000000; badp "seed" good.p.bad
patch good.p 20 ff000000; badp "seed" good.p.bad
patch good.p 72 ffffffffffffffff; badp "size mismatch" good.p.bad
patch good.p 72 0000000000000080; badp "size mismatch" good.p.bad
patch good.p 80 ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff; badp "not canonical" good.p.bad
patch good.p 200 00;      badp "checksum mismatch" good.p.bad
: >empty.h;                     badh "empty" empty.h
head -c 100 good.h >short.h;    badh "truncated: 100 bytes, header implies" short.h
cp good.h long.h; head -c 4096 /dev/zero >>long.h; badh "trailing bytes" long.h
patch good.h 8 01000000;  badh "format version 1 \\(circuit v1\\) is no longer accepted" good.h.bad
patch good.h 16 00000000; badh "log size k = 0 out of range" good.h.bad
patch good.h 20 21000000; badh "seed" good.h.bad
patch good.h 72 ffffffffffffff7f; badh "size mismatch" good.h.bad
patch good.h 96 ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff; badh "not canonical" good.h.bad
patch good.h 300 01;      badh "checksum mismatch" good.h.bad
refuse "is a partition file \(a, b, c\); verify takes H files" verify good.p
refuse "not a regular file|directory" verify adir
refuse "No such file" verify nothing.h
ls ./*.tmp.* >/dev/null 2>&1 && fail "a refused command left a temp file"

# status and top --once against a garbage segment posing as an instance.
mkdir -p "$(dirname "$seg")"
segbad() {  # segbad WHY: every reader refuses it, saying WHY
  refuse "provisor status: .*$1" status --name "$name"
  refuse "\"error\":.*$1" status --name "$name" --json
  refuse "provisor_supervisor_up 0" status --name "$name" --prometheus
  refuse "not running: .*$1" top --name "$name" --once
}
: >"$seg";                             segbad "truncated"
head -c 10 /dev/urandom >"$seg";       segbad "truncated: 10 bytes"
head -c 65536 /dev/zero >"$seg";       segbad "(magic|not a provisor|not initialized)"
head -c 1048576 /dev/urandom >"$seg";  segbad "(magic|not a provisor|not initialized)"
{ printf 'PVSTATUS'; head -c 4088 /dev/urandom; } >"$seg"; segbad "."
{ printf 'PVSTATUS\x07\x00\x00\x00'; head -c 8180 /dev/zero; } >"$seg"; segbad "(version|ABI)"
echo "info: a bad-ABI segment: $(head -n 1 out)"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
