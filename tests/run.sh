#!/usr/bin/env bash
# Runs each test given on the command line under its own timeout, up to
# JOBS of them at once. A test passes with exit 0, fails with anything
# else, and skips with 77 (its last output line says why). Ends with
# "N passed, N failed, N skipped" and the run's wall time against the
# stage's budget (tests/budget).
#
#   tests/run.sh [-j JOBS | -jJOBS] TEST...     JOBS: $TEST_JOBS, else nproc
#
# tests/timeouts holds "name seconds [serial|alone]": the timeout
# (default 120 s; twice that in bin-asan, three times in bin-tsan: a
# timeout only bounds a hang, it asserts no speed); "serial" for a test
# that must not run beside another serial one (they add users, or run
# make in the tree), though it may beside any other; "alone" for one
# that must have the machine to itself (it measures the loop, or uses
# the GPU). Serial tests take one of the JOBS slots in turn from the
# start; the others start longest timeout first, the alone ones last,
# each by itself. Results print as tests end.
#
# A test that passes but leaves a status segment or a provisor temp file
# of its own behind fails. What is a test's own: every test runs with
# TMPDIR set to a fresh directory of its own (mktemp -d /tmp/pvt.XXXXXX,
# made 0711; short, because a supervisor's state directory path is at
# most 90 bytes, and under the sticky /tmp, because a state directory and
# every directory above it must be the supervisor user's and not writable
# by others unless sticky; 0711 so that a test's client running as
# another uid can reach a socket in it); whatever is left in it is the
# test's, and it is removed afterwards. Status segments and provisor-*
# files outside it are the test's only when they appeared while it ran
# and their names contain its pid as a whole number (tests put getpid()
# or $$ in their instance and file names), so a test running beside it,
# or a supervisor someone else runs meanwhile, is not blamed on this one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case ${1:-} in
  -j) jobs=${2:-}; shift 2 ;;
  -j*) jobs=${1#-j}; shift ;;
esac
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j wants a positive number, not '$jobs'" >&2; exit 2;; esac
bin=${BIN:-bin}
case $bin in *asan*) stage=asan scale=2 slow=3;; *tsan*) stage=tsan scale=3 slow=5;; *) stage=plain scale=1 slow=1;; esac
# How much slower than the plain build a test may run (tests/helpers.h
# t_slow; shell tests read it as ${PROVISOR_TEST_SLOW:-1}), unless set.
export PROVISOR_TEST_SLOW=${PROVISOR_TEST_SLOW:-$slow}
pass=0 fail=0 skip=0 failed=() skipped=() times=()
run=$(mktemp -d "${TMPDIR:-/tmp}/pvr.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$run"' EXIT

# Status segments (root's in /run/provisor, another user's in
# $XDG_RUNTIME_DIR/provisor or /dev/shm/provisor-UID, see shm_base_dir in
# shm/seg.c; /dev/shm/provisor.* is where they used to be) and provisor's
# temp files where a test that ignores TMPDIR would put them.
segments_and_temps() {
  ls -d /run/provisor/*.status ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR"/provisor/*.status} \
    /dev/shm/provisor-"$(id -u)"/*.status /dev/shm/provisor.* \
    /tmp/provisor-* ${TMPDIR:+"$TMPDIR"/provisor-*} 2>/dev/null | sort -u
}

# Those of $1 (a list) whose base name holds the pid $2 as a whole number.
naming_pid() {
  local p
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    [[ "/${p##*/}/" =~ [^0-9]$2[^0-9] ]] && echo "$p"
  done <<<"$1"
}

# field 2 (the timeout) or 3 (serial) of a test's line in tests/timeouts
timeouts_field() {
  awk -v t="$1" -v f="$2" '$1 == t { print $f }' "$here/timeouts" 2>/dev/null
}

name_of() {
  local name=${1#"$bin"/tests/}
  echo "${name#tests/}"
}

# Under TSan, a test binary whose own code creates no thread and no
# process and installs no signal handler has nothing for ThreadSanitizer
# to check (it reports races between threads, and signal handlers' misuse),
# so it is skipped there, with that reason: the plain and ASan stages run
# it. Told from the symbols it calls (nm -u), so a test that starts using
# threads is run again without anyone having to remember it.
one_thread() {
  [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] || return 1
  command -v nm >/dev/null 2>&1 || return 1
  local u
  u=$(nm -u "$1" 2>/dev/null) || return 1
  ! grep -qE ' (pthread_[a-z_]*|thrd_create|fork|vfork|exec[a-z]*|system|popen|posix_spawnp?|clone3?|sigaction|signal|__sysv_signal|bsd_signal|sigset)(@|$)' <<<"$u"
}

# Under TSan, the reason tests/tsan-skip gives for skipping test $1, if
# it names it.
tsan_skip() {
  local pat why
  [ -f "$here/tsan-skip" ] || return 1
  while read -r pat why; do
    case $pat in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2053
    [[ $1 == $pat ]] && { echo "$why"; return 0; }
  done <"$here/tsan-skip"
  return 1
}

# One test, in the background: its report goes to $run/N.out, its exit
# status to $run/N.rc (written last: the main loop's sign that it ended).
run_one() {
  local i=$1 t=$2 why name limit before tdir log=$run/$1.log pidfile=$run/$1.pid rc pid left secs start
  name=$(name_of "$t")
  limit=$(timeouts_field "$name" 2)
  limit=$(( ${limit:-120} * scale ))
  before=$(segments_and_temps)
  tdir=$(mktemp -d /tmp/pvt.XXXXXX)
  chmod 0711 "$tdir"
  : >"$pidfile"
  start=$(date +%s.%N)
  if [ "$stage" = tsan ] && one_thread "$t"; then
    echo "one thread, no child, no signal handler: nothing for ThreadSanitizer (run in the other stages)" >"$log"
    rc=77
  elif [ "$stage" = tsan ] && why=$(tsan_skip "$name"); then
    echo "$why: nothing for ThreadSanitizer (tests/tsan-skip; run in the other stages)" >"$log"
    rc=77
  else
    # The wrapper writes its pid and execs the test, so the pid is the test's.
    TMPDIR=$tdir timeout -k 5 "$limit" sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$t" >"$log" 2>&1 </dev/null
    rc=$?
  fi
  pid=$(cat "$pidfile")
  left=
  [ -n "$pid" ] && left=$(naming_pid "$(comm -13 <(echo "$before") <(segments_and_temps))" "$pid")
  left=$(printf '%s\n' "$left" $(find "$tdir" -mindepth 1 -maxdepth 1 | sort) | grep . | tr '\n' ' ')
  rm -rf "$tdir"
  if [ "$rc" -eq 0 ] && [ -n "$left" ]; then
    echo "check failed: left behind: $left" >>"$log"
    rc=1
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  {
    case $rc in
      0)  printf 'PASS  %-36s %6ss\n' "$name" "$secs"
          grep -E '^(info|bench):' "$log" | sed 's/^/      /' ;;
      77) printf 'SKIP  %-36s %s\n' "$name" "$(tail -n 1 "$log")" ;;
      124|137) printf 'FAIL  %-36s timed out after %ss\n' "$name" "$limit"
          tail -n 20 "$log" | sed 's/^/      /' ;;
      *)  printf 'FAIL  %-36s exit %s after %ss\n' "$name" "$rc" "$secs"
          tail -n 30 "$log" | sed 's/^/      /' ;;
    esac
  } >"$run/$i.out"
  echo "$secs" >"$run/$i.secs"
  echo "$rc" >"$run/$i.rc.tmp" && mv "$run/$i.rc.tmp" "$run/$i.rc"
}

# Print and count what ended; $1 = how many tests started so far.
declare -A seen=()
running=0
collect() {
  local i rc name
  for ((i = 0; i < $1; i++)); do
    [ -z "${seen[$i]:-}" ] && [ -f "$run/$i.rc" ] || continue
    seen[$i]=1
    running=$((running - 1))
    rc=$(cat "$run/$i.rc")
    name=$(name_of "${order[$i]}")
    cat "$run/$i.out"
    times+=("$(cat "$run/$i.secs") $name")
    case $rc in
      0)  pass=$((pass + 1)) ;;
      77) skip=$((skip + 1)); skipped+=("$name: $(tail -n 1 "$run/$i.log")") ;;
      *)  fail=$((fail + 1)); failed+=("$name") ;;
    esac
  done
}

# Wait until fewer than $1 tests run (0: until none does).
drain_to() {
  while [ "$running" -gt 0 ] && [ "$running" -ge "$1" ]; do
    wait -n 2>/dev/null
    collect "$started"
  done
}

# The longest first (their timeouts say which), so that no long test
# starts last beside an idle core. A serial test runs beside ordinary
# ones but never beside another serial one (they add users, run make in
# the tree): one starts whenever none runs, before any ordinary test, so
# they spread over the run. An alone test has the machine to itself
# (it measures the loop, or the GPU): those run last, one at a time.
order=() ordinary=() serials=() alones=()
while read -r _ s t; do
  case $s in
    serial) serials+=("$t") ;;
    alone) alones+=("$t") ;;
    *) ordinary+=("$t") ;;
  esac
done < <(for t in "$@"; do
  n=$(name_of "$t")
  l=$(timeouts_field "$n" 2) s=$(timeouts_field "$n" 3)
  printf '%d %s %s\n' "$((1000 - ${l:-120}))" "${s:--}" "$t"
done | sort -s -k1,1n)

# start TEST: in the background, as test number $started.
start() {
  order[$started]=$1
  run_one "$started" "$1" &
  started=$((started + 1)) running=$((running + 1))
}

started=0 oi=0 si=0 serial_at=
t0=$(date +%s.%N)
while [ "$oi" -lt "${#ordinary[@]}" ] || [ "$si" -lt "${#serials[@]}" ]; do
  drain_to "$jobs"
  [ -n "$serial_at" ] && [ -f "$run/$serial_at.rc" ] && serial_at=
  if [ -z "$serial_at" ] && [ "$si" -lt "${#serials[@]}" ]; then
    serial_at=$started
    start "${serials[$si]}"
    si=$((si + 1))
  elif [ "$oi" -lt "${#ordinary[@]}" ]; then
    start "${ordinary[$oi]}"
    oi=$((oi + 1))
  else
    drain_to "$running"	# only serial ones are left: wait for this one
  fi
done
for t in "${alones[@]+"${alones[@]}"}"; do
  drain_to 1
  start "$t"
done
drain_to 1
wall=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')

for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done

# The budget: the stage's wall time against tests/budget, the slowest
# tests, and (plain build) any test over 60 s whose file says not why
# (a line with "slow:" in it). Printed, never a failure: a busy machine
# may go over; the figures are there for the next one who adds a test.
budget=$(awk -v s="$stage" '$1 == s { print $2 }' "$here/budget" 2>/dev/null)
echo "budget: $stage stage, $started tests in ${wall} s wall at -j $jobs, against ${budget:-?} s;" \
  "slowest: $(printf '%s\n' "${times[@]+"${times[@]}"}" | sort -rn | head -n 5 | awk '{ printf "%s%s %ss", n++ ? ", " : "", $2, $1 }')"
[ -n "$budget" ] && [ "$wall" -gt "$budget" ] && echo "budget: OVER: $stage took ${wall} s of its ${budget} s"
if [ "$stage" = plain ]; then
  printf '%s\n' "${times[@]+"${times[@]}"}" | while read -r secs name; do
    awk -v s="$secs" 'BEGIN { exit !(s > 60) }' || continue
    src=$here/$name
    [ -f "$src" ] || src=$(ls "$here/${name%%_*}/${name#*_}".c 2>/dev/null)
    grep -qs 'slow:' "$src" ||
      echo "budget: $name took ${secs} s alone, over 60 s, and its file does not say why (a 'slow:' comment)"
  done
fi
# The failures again, last: CI keeps only the tail of a long output.
for ((i = 0; i < started; i++)); do
  case $(cat "$run/$i.rc" 2>/dev/null) in 0|77|'') ;; *) cat "$run/$i.out" ;; esac
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
