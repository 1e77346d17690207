#!/usr/bin/env bash
# Listing 10,000 sessions of each newer kind, warm (title index filled) and
# cold (--no-cache), side by side with the floor of its store, in one run
# per kind (BENCHMARKS.md, "Newer kinds"):
#
#   tools/bench-kinds.sh [DATA_DIR [KIND ...]]   (default /tmp/session-ref-bench-kinds, every kind)
#
# KIND is one of: kilo droid crush aider amp antigravity cursor cline goose
# continue kimi vibe. Generates each store with tools/gen-stores.py when
# DATA_DIR does not hold it yet (about 1.2 GB a kind; aider 0.2 GB), builds
# the release binary, then times with tools/time-alternating.py (the three
# commands in turn, so each sees the same load; wall and user+system CPU):
#
#   floor  `find STORE -type f -printf '%s %T@\n'` for file stores;
#          `sqlite3 -readonly DB 'select id, title, <updated> from <sessions>'`
#          for SQLite stores (Crush: one sqlite3 opening its 50 databases)
#   warm   session-ref --KIND ROOT candidates --json --limit 100000
#          (its own XDG_CACHE_HOME, filled by the warm-up run)
#   cold   the same with --no-cache
#
# Every command runs with HOME set to an empty directory, so no store of
# this machine is read beside the one named (DATA_DIR: a path without
# spaces). Results go to
# DATA_DIR/results/KIND.txt and stdout. Knobs: RUNS (default 10),
# SKIP_BUILD=1 (use the built binary), DROP=1 (delete each store once
# measured, so one store at a time is on disk).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-/tmp/session-ref-bench-kinds}
shift || true
kinds=${*:-kilo droid crush aider amp antigravity cursor cline goose continue kimi vibe}
runs=${RUNS:-10}
mkdir -p "$data/results" "$data/home"

[ -n "${SKIP_BUILD:-}" ] || (cd "$repo" && cargo build --release --quiet)
bin="$repo/target/release/session-ref"

# The generator's arguments per kind (the sizes of its examples).
gen_args() {
  case $1 in
    aider) echo "--size 20k" ;;
    droid | amp) echo "--size 120k" ;;
    *) echo "--size 120k --title mixed" ;;
  esac
}

# What session-ref is pointed at.
root() {
  local dir=$data/$1
  case $1 in
    droid) echo "--droid $dir/sessions" ;;
    amp) echo "--amp $dir/threads" ;;
    aider) for project in "$dir"/project-*; do printf -- '--aider %s ' "$project"; done ;;
    *) echo "--$1 $dir" ;;
  esac
}

# The floor: what listing this store cannot do without.
floor() {
  local dir=$data/$1
  case $1 in
    kilo) echo "sqlite3 -readonly $dir/kilo.db 'select id, title, time_updated from session'" ;;
    goose) echo "sqlite3 -readonly $dir/sessions/sessions.db 'select id, name, updated_at from sessions'" ;;
    crush)
      local script=$data/results/crush-floor.sql
      : >"$script"
      for db in "$dir"/project-*/.crush/crush.db; do
        printf '.open --readonly %s\nselect id, title, updated_at from sessions;\n' "$db" >>"$script"
      done
      echo "sh -c 'cat $dir/projects.json >/dev/null; sqlite3 <$script'"
      ;;
    *) echo "find $dir -type f -printf '%s %T@\n'" ;;
  esac
}

echo "## machine"
{ nproc; grep -m1 'model name' /proc/cpuinfo; git -C "$repo" rev-parse --short HEAD; } | sed 's/^/    /'

for kind in $kinds; do
  dir=$data/$kind
  # shellcheck disable=SC2046 # the arguments are words
  [ -d "$dir" ] || python3 "$repo/tools/gen-stores.py" "$kind" "$dir" --sessions 10000 $(gen_args "$kind")
  base="env HOME=$data/home XDG_CACHE_HOME=$data/cache-$kind $bin $(root "$kind")"
  list="candidates --json --limit 100000"
  count=$($base $list | wc -l)
  echo "## $kind: $count sessions listed, $(du -sh "$dir" | cut -f1)"
  python3 "$repo/tools/time-alternating.py" --warmup 1 --runs "$runs" \
    "floor=$(floor "$kind")" "warm=$base $list" "cold=$base --no-cache $list" |
    tee "$data/results/$kind.txt"
  [ -z "${DROP:-}" ] || rm -rf "$dir" "$data/cache-$kind"
done
