#!/usr/bin/env bash
# Search time after appending to one big Claude Code log: the index holds
# the log, APPEND is added to it, and the next search is timed (it reads
# the appended bytes only, or, before resumable folds, the whole log).
#
#   tools/bench-append.sh LOG APPEND [WORD] [RUNS]
#
# LOG: a Claude Code transcript (e.g. the one log of python3
# tools/gen-stores.py claude DIR --sessions 1 --size 300M --compact-every 6),
# APPEND: lines to append (e.g. another generated 1 MB log). Each binary of
# $BINS (default target/release/session-ref) is run RUNS times (default 3)
# on a fresh copy of LOG under $WORK (default /tmp/bench-append) and a
# fresh index. CPU figures from /usr/bin/time.
set -euo pipefail
log=${1:?usage: tools/bench-append.sh LOG APPEND [WORD] [RUNS]}
append=${2:?usage: tools/bench-append.sh LOG APPEND [WORD] [RUNS]}
word=${3:-xylophone}
runs=${4:-3}
work=${WORK:-/tmp/bench-append}
trap 'rm -rf "$work"' EXIT
echo "log: $(stat -c %s "$log") bytes, append: $(stat -c %s "$append") bytes"
for bin in ${BINS:-target/release/session-ref}; do
  echo "$bin:"
  for run in $(seq "$runs"); do
    rm -rf "$work" && mkdir -p "$work/projects/-p" "$work/cache"
    cp "$log" "$work/projects/-p/"
    copy=$work/projects/-p/$(basename "$log")
    export SESSION_REF_CACHE_DIR=$work/cache
    "$bin" --claude "$work/projects" search "$word" --json > /dev/null || true
    cat "$append" >> "$copy"
    /usr/bin/time -f "  run $run: search after the append %e s wall, %U s user, %S s sys, %M KiB" \
      "$bin" --claude "$work/projects" search "$word" --json > /dev/null || true
  done
done
