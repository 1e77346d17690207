#!/usr/bin/env bash
# Whole-process figures of session-ref, side by side with `find`, `cat` and
# the reference resolver under node, in one run (see BENCHMARKS.md).
#
#   tools/bench.sh [DATA_DIR]        (default /tmp/session-ref-bench)
#
# Generates the synthetic stores with tools/gen-stores.py when DATA_DIR does
# not hold them yet (about 9.4 GB), builds the release binary, then times
# with hyperfine (warm page cache: one warm-up run each) and measures peak
# RSS with GNU time. Results go to DATA_DIR/results/*.md and stdout.
# Knobs: RUNS (default 10), SKIP_NODE=1 (skip the reference resolver).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-/tmp/session-ref-bench}
runs=${RUNS:-10}
gen="python3 $repo/tools/gen-stores.py"
mkdir -p "$data/results"

# --- data ------------------------------------------------------------------
[ -d "$data/native10k" ] || $gen native "$data/native10k" --sessions 10000 --size 210k --title early
[ -d "$data/big" ] || $gen native "$data/big" --sessions 3 --size 300M --title late --compact-every 400
[ -d "$data/msgs4k" ] || $gen native "$data/msgs4k" --sessions 1 --turns 2000 --title early
[ -d "$data/claude10k" ] || $gen claude "$data/claude10k" --sessions 10000 --size 250k --dist skewed --title mixed
[ -d "$data/codex10k" ] || $gen codex "$data/codex10k" --sessions 10000 --size 120k --dist skewed --title mixed
[ -d "$data/gemini10k" ] || $gen gemini "$data/gemini10k" --sessions 10000 --size 120k --dist skewed --title mixed
[ -d "$data/claude-big" ] || $gen claude "$data/claude-big" --sessions 1 --size 300M --title late
[ -d "$data/codex-big" ] || $gen codex "$data/codex-big" --sessions 1 --size 300M --title late

# --- binary ----------------------------------------------------------------
(cd "$repo" && cargo build --release --quiet)
bin="$repo/target/release/session-ref"
export XDG_CACHE_HOME="$data/cache"
run() { hyperfine --style basic --warmup 1 --runs "$runs" -N "$@"; }

uri() { "$bin" uri encode "$1"; }
three="compare @[a]($(uri bench-000000)) @[b]($(uri bench-000001)) @[c]($(uri bench-000002))"
one="see @[s]($(uri bench-000000))"

echo "## machine"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uptime; } | sed 's/^/    /'

echo "## listing 10,000 native sessions ($(du -sh "$data/native10k" | cut -f1))"
run --export-markdown "$data/results/native.md" \
  "find $data/native10k -type f -printf '%s %T@\n'" \
  "$bin --store $data/native10k candidates --json --limit 100000" \
  "$bin --store $data/native10k --no-cache candidates --json --limit 100000"

echo "## listing 10,000 Claude Code sessions ($(du -sh "$data/claude10k" | cut -f1))"
run --export-markdown "$data/results/claude.md" \
  "find $data/claude10k/projects -type f -printf '%s %T@\n'" \
  "$bin --claude $data/claude10k/projects candidates --json --limit 100000" \
  "$bin --claude $data/claude10k/projects --no-cache candidates --json --limit 100000"

echo "## listing 10,000 Codex rollouts ($(du -sh "$data/codex10k" | cut -f1))"
run --export-markdown "$data/results/codex.md" \
  "find $data/codex10k/sessions -type f -printf '%s %T@\n'" \
  "$bin --codex $data/codex10k/sessions candidates --json --limit 100000" \
  "$bin --codex $data/codex10k/sessions --no-cache candidates --json --limit 100000"

echo "## listing 10,000 Gemini CLI chats ($(du -sh "$data/gemini10k" | cut -f1))"
run --export-markdown "$data/results/gemini.md" \
  "find $data/gemini10k/tmp -type f -printf '%s %T@\n'" \
  "$bin --gemini $data/gemini10k candidates --json --limit 100000" \
  "$bin --gemini $data/gemini10k --no-cache candidates --json --limit 100000"

echo "## prepare with 3 references over three 300 MB logs"
run --export-markdown "$data/results/prepare.md" \
  "cat $data/big/s000000.jsonl $data/big/s000001.jsonl $data/big/s000002.jsonl" \
  "$bin --store $data/big prepare '$three'"
echo "peak RSS (KiB) of that prepare:"
/usr/bin/time -f '    %M KiB, %e s elapsed, %U s user, %S s sys' "$bin" --store "$data/big" prepare "$three" >/dev/null

for kind in claude codex; do
  root="$data/$kind-big/projects"
  [ "$kind" = codex ] && root="$data/$kind-big/sessions"
  log=$(find "$root" -name '*.jsonl' | head -1)
  id=$("$bin" --"$kind" "$root" candidates --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["sessionId"])')
  mention="see @[s]($(uri "$id"))"
  echo "## prepare of one 300 MB $kind transcript"
  run --export-markdown "$data/results/prepare-$kind.md" \
    "cat $log" "$bin --$kind $root prepare '$mention'"
done

echo "## prepare of a 4,000-message session, session-ref vs the reference under node"
run --export-markdown "$data/results/msgs4k.md" "$bin --store $data/msgs4k prepare '$one'"
seed="$repo/../shared/seed/lib/index.js"
if [ -z "${SKIP_NODE:-}" ] && command -v node >/dev/null && [ -f "${ORACLE_SEED_FILE:-$seed}" ]; then
  diff <("$bin" --store "$data/msgs4k" prepare "$one") \
       <(node "$repo/tests/oracle/oracle.mjs" --store "$data/msgs4k" prepare "$one") >/dev/null \
    && echo "    (outputs identical)"
  hyperfine --style basic --runs 1 -N --export-markdown "$data/results/msgs4k-node.md" \
    "node $repo/tests/oracle/oracle.mjs --store $data/msgs4k prepare '$one'"
else
  echo "    SKIPPED: node or the seed (../shared/seed/lib/index.js) is missing"
fi
