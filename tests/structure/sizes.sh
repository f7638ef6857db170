#!/usr/bin/env bash
# File sizes that stay readable: no source file of the supervisor
# (supervisor/*.c, *.h) is over 600 lines. Each one over is named with its
# count. Takes the tree's root as an argument (default: this checkout).
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1
max=600 over=0 n=0
for f in supervisor/*.c supervisor/*.h; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  lines=$(wc -l <"$f")
  if [ "$lines" -gt "$max" ]; then
    echo "check failed: $f has $lines lines, over $max"
    over=1
  fi
done
[ "$n" -gt 0 ] || { echo "check failed: no supervisor sources under $root"; exit 1; }
[ "$over" -eq 0 ] || exit 1
echo "info: $n supervisor files, each at most $max lines (largest: $(wc -l supervisor/*.c supervisor/*.h | sort -n | tail -n 2 | head -n 1 | awk '{ print $2, $1 }'))"
