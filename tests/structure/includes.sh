#!/usr/bin/env bash
# The folder include graph: derived from the '#include "folder/..."' lines
# of every source outside tests/, bench/ and fuzz/, it must have no cycle,
# and only cli/ may include supervisor/ or cli/ (the commands sit on top of
# the libraries, never the other way round). Each cycle and each forbidden
# edge is named, with the file that makes it. Takes the tree's root as an
# argument (default: this checkout), so that it can be tried on another.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1

# "from to file" for every include of another folder's header.
edges=$(find . -path ./tests -prune -o -path ./bench -prune -o -path ./fuzz -prune -o \
          -path './build*' -prune -o -path './bin*' -prune -o \
          -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print |
  sed 's|^\./||' | sort |
  while read -r f; do
    case $f in */*) ;; *) continue ;; esac
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_0-9]*\)\/.*/\1/p' "$f" |
      while read -r to; do
        [ "$to" != "${f%%/*}" ] && echo "${f%%/*} $to $f"
      done
  done)
[ -n "$edges" ] || { echo "no includes found under $root"; exit 1; }

echo "$edges" | awk '
{ key = $1 " " $2
  if (!(key in via)) { via[key] = $3; succ[$1] = succ[$1] " " $2; nodes[$1]; nodes[$2] }
}
# path(a, b): the folders from a to b (inclusive) along include edges,
# breadth first, or "" when b cannot be reached.
function path(a, b,    q, head, tail, prev, seen, n, i, s, x, p) {
  head = 1; tail = 1; q[1] = a; delete seen; seen[a] = 1
  while (head <= tail) {
    x = q[head++]
    n = split(succ[x], s, " ")
    for (i = 1; i <= n; i++) {
      if (s[i] in seen) continue
      seen[s[i]] = 1; prev[s[i]] = x; q[++tail] = s[i]
      if (s[i] == b) {
        p = b
        while (p != a) { p = prev[p]; x = p; }
        p = b; x = b
        while (x != a) { x = prev[x]; p = x " -> " p }
        return p
      }
    }
  }
  return ""
}
END {
  bad = 0
  for (key in via) {
    split(key, e, " ")
    if ((e[2] == "cli" || e[2] == "supervisor") && e[1] != "cli") {
      printf "forbidden: %s/ includes %s/ (%s)\n", e[1], e[2], via[key]; bad = 1
    }
  }
  # A cycle through edge a->b is a->b then b..a; name each once, by its
  # members in order, starting from the smallest name.
  for (key in via) {
    split(key, e, " ")
    p = path(e[2], e[1])
    if (p == "") continue
    n = split(e[1] " -> " p, m, " -> ")
    n--                             # the last is e[1] again
    best = 1
    for (i = 2; i <= n; i++) if (m[i] < m[best]) best = i
    c = ""; files = ""
    for (i = 0; i < n; i++) {
      x = m[(best - 1 + i) % n + 1]; y = m[(best + i) % n + 1]
      c = c x " -> "; files = files (i ? ", " : "") via[x " " y]
    }
    c = c m[best]
    if (c in cycles) continue
    cycles[c] = 1
    printf "cycle: %s (%s)\n", c, files; bad = 1
  }
  exit bad
}'
rc=$?
[ $rc -eq 0 ] && echo "info: $(echo "$edges" | awk '{ print $1, $2 }' | sort -u | wc -l) folder edges, no cycle"
exit $rc
