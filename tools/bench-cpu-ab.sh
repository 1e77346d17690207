#!/usr/bin/env bash
# Two builds of session-ref compared by CPU time (user + system), for a
# machine loaded by other work, where wall time says little (BENCHMARKS.md):
#
#   tools/bench-cpu-ab.sh RUNS OLD NEW ARGS...
#
# Runs `OLD ARGS...` and `NEW ARGS...` alternately RUNS times each (after
# one unmeasured run of each, which also builds its title index), each
# binary with a cache directory of its own (XDG_CACHE_HOME), output
# discarded; prints the median user + system seconds and the median wall
# seconds of each, and new / old. Needs GNU time (/usr/bin/time).
set -euo pipefail

[ $# -ge 4 ] || { sed -n 2,12p "$0" >&2; exit 2; }
runs=$1 old=$2 new=$3
shift 3
caches=$(mktemp -d)
trap 'rm -rf "$caches"' EXIT

one() { # name binary args... -> "cpu wall" on stdout
  local name=$1 bin=$2
  shift 2
  env -u SESSION_REF_CACHE_DIR XDG_CACHE_HOME="$caches/cache-$name" \
    /usr/bin/time -f '%U %S %e' -o "$caches/t" "$bin" "$@" > /dev/null 2> /dev/null || true
  tail -n 1 "$caches/t" | awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

one old "$old" "$@" > /dev/null
one new "$new" "$@" > /dev/null
: > "$caches/times-old" && : > "$caches/times-new"
for _ in $(seq "$runs"); do
  one old "$old" "$@" >> "$caches/times-old"
  one new "$new" "$@" >> "$caches/times-new"
done
for name in old new; do
  cpu=$(cut -d' ' -f1 "$caches/times-$name" | median)
  wall=$(cut -d' ' -f2 "$caches/times-$name" | median)
  all=$(cut -d' ' -f1 "$caches/times-$name" | tr '\n' ' ')
  printf '%s: CPU median %.3f s (runs: %s), wall median %.3f s\n' "$name" "$cpu" "$all" "$wall"
  eval "cpu_$name=$cpu"
done
awk -v o="$cpu_old" -v n="$cpu_new" 'BEGIN { printf "new / old CPU: %.3f\n", n / o }'
