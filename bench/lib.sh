# bench/lib.sh: what the benchmark scripts share (sourced, not run).

# sample SUPPID OUT: every 100 ms, "role pid cpu_ticks hwm_kb" of the
# supervisor and each child, and "delay ns" (the supervisor's time waiting
# on a run queue, /proc/PID/schedstat), appended to OUT until killed.
sample() {
  local sp=$1 out=$2 p comm
  while :; do
    awk '{ print "delay", $2 }' "/proc/$sp/schedstat" 2>/dev/null >>"$out"
    for p in "$sp" $(cat "/proc/$sp/task/$sp/children" 2>/dev/null); do
      comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
      awk -v role="$comm" -v pid="$p" '
        FNR == 1 && FILENAME ~ /stat$/ { sub(/.*\) /, ""); split($0, f, " "); cpu = f[12] + f[13] }
        /^VmHWM:/ { hwm = $2 }
        END { if (cpu != "") print role, pid, cpu, hwm + 0 }' "/proc/$p/stat" "/proc/$p/status" 2>/dev/null
    done >>"$out"
    sleep 0.1
  done
}
