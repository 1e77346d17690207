#!/usr/bin/env bash
# pi and Qwen Code figures beside the JSONL kinds and `find` / `cat`
# (BENCHMARKS.md, "pi and Qwen Code"):
#
#   tools/bench-pi-qwen.sh [DATA_DIR]     (default /tmp/session-ref-bench-pq)
#
# Generates with tools/gen-stores.py, when DATA_DIR does not hold them yet,
# 10,000 sessions of pi, Qwen Code, Codex and Claude Code (skewed sizes,
# 40 KB mean) and one 100 MB log of each, builds the release binary, and
# times with hyperfine: warm listing (title index) and cold listing
# (--no-cache) of 10,000 sessions; a full read of every session
# (`search --no-index`, which folds every log) beside `cat`; `preview` of
# the 100 MB log. Knobs: RUNS (default 5), SKIP_BUILD=1 (use the built binary).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-/tmp/session-ref-bench-pq}
runs=${RUNS:-5}
gen="python3 $repo/tools/gen-stores.py"
mkdir -p "$data/results"

for kind in pi qwen codex claude; do
  [ -d "$data/${kind}10k" ] || $gen "$kind" "$data/${kind}10k" --sessions 10000 --size 40k --dist skewed --title mixed
  [ -d "$data/${kind}-big" ] || $gen "$kind" "$data/${kind}-big" --sessions 1 --size 100M --title late --compact-every 300
done

[ -n "${SKIP_BUILD:-}" ] || (cd "$repo" && cargo build --release --quiet)
bin="$repo/target/release/session-ref"
export XDG_CACHE_HOME="$data/cache"
run() { hyperfine --style basic --warmup 1 --runs "$runs" -N "$@"; }

root() {
  case $1 in
    pi) echo "--pi $data/$2/sessions" ;;
    qwen) echo "--qwen $data/$2/projects" ;;
    codex) echo "--codex $data/$2/sessions" ;;
    claude) echo "--claude $data/$2/projects" ;;
  esac
}

echo "## machine"
{ nproc; grep -m1 'model name' /proc/cpuinfo; uptime; } | sed 's/^/    /'

for kind in pi qwen codex claude; do
  echo "## listing 10,000 $kind sessions ($(du -sh "$data/${kind}10k" | cut -f1))"
  run --export-markdown "$data/results/list-$kind.md" \
    "find $data/${kind}10k -type f -printf '%s %T@\n'" \
    "$bin $(root "$kind" "${kind}10k") candidates --json --limit 100000" \
    "$bin $(root "$kind" "${kind}10k") --no-cache candidates --json --limit 100000"
done

for kind in pi qwen codex claude; do
  echo "## reading all 10,000 $kind sessions ($(du -sh "$data/${kind}10k" | cut -f1))"
  run --export-markdown "$data/results/read-$kind.md" \
    "sh -c 'find $data/${kind}10k -type f -exec cat {} + >/dev/null'" \
    "$bin $(root "$kind" "${kind}10k") --no-cache search --no-index --json zzzznotthere"
done

for kind in pi qwen codex claude; do
  id=$("$bin" $(root "$kind" "$kind-big") --no-cache candidates --json | head -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["sessionId"])')
  echo "## preview of one $(du -sh "$data/$kind-big" | cut -f1) $kind log"
  run --export-markdown "$data/results/big-$kind.md" \
    "sh -c 'cat $(find "$data/$kind-big" -type f -name '*.jsonl' | head -1 | sed 's/ /\\ /g') >/dev/null'" \
    "$bin $(root "$kind" "$kind-big") --no-cache preview $id"
done
