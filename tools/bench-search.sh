#!/usr/bin/env bash
# Benchmark `session-ref search` against `grep -rlF` on one Claude Code store.
#
#   tools/bench-search.sh STORE_DIR [WORD]
#
# STORE_DIR is a Claude Code config dir (holding projects/), e.g. one written
# by the store generator: python3 tools/gen-stores.py claude DIR --sessions
# 10000 --size 200k --compact-every 6 (tools/gen-stores.py comes with the
# listing benchmarks). WORD (default xylophone) should be rare: the script
# does not plant it. Uses a fresh index directory under /tmp; release build.
set -euo pipefail
store=${1:?usage: tools/bench-search.sh STORE_DIR [WORD]}
word=${2:-xylophone}
bin=${BIN:-target/release/session-ref}
cache=$(mktemp -d /tmp/session-ref-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
export SESSION_REF_CACHE_DIR=$cache
first() { # time to the first output line and to the end
  python3 - "$@" <<'PY'
import subprocess, sys, time
start = time.monotonic(); first = None; n = 0
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
for _ in p.stdout:
    first = first or time.monotonic() - start; n += 1
p.wait()
f = f"{first*1000:.0f} ms" if first else "-"
print(f"  first result {f}, all {1000*(time.monotonic()-start):.0f} ms, {n} sessions")
PY
}
run() { /usr/bin/time -f "  %e s wall, %U s user, %S s sys" "$@" > /dev/null; }
echo "store: $(du -sb "$store" | cut -f1) bytes, $(find "$store" -name '*.jsonl' | wc -l) logs"
echo "grep -rlF $word:"; run grep -rlF "$word" "$store"
echo "search --no-index (first run, no index):"; first "$bin" --claude "$store/projects" search "$word" --json --limit 100000 --no-index
echo "search, building the index:"; run "$bin" --claude "$store/projects" search "$word" --json --limit 100000
echo "index: $(du -sb "$cache" | cut -f1) bytes"
for i in 1 2 3; do
  echo "search with the index ($i):"; run "$bin" --claude "$store/projects" search "$word" --json --limit 100000
  first "$bin" --claude "$store/projects" search "$word" --json --limit 100000
done
