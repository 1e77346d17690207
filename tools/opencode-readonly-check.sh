#!/usr/bin/env bash
# Read an opencode database from a folder we cannot write, in the three
# states it can be in, and check what session-ref says (src/store/opencode/db.rs).
#
#   tools/opencode-readonly-check.sh [BIN]
#
# Needs root and `unshare -m` (a read-only bind mount: root ignores file
# permissions, so `chmod` cannot make a folder read-only for it), `sqlite3`
# and python3. BIN defaults to target/debug/session-ref. Cases:
#   a  -wal and -shm present           -> every session listed
#   b  closed cleanly (no -wal, -shm)  -> every session listed
#   c  -wal present, -shm missing      -> the database is unreadable, with why
set -euo pipefail
BIN=${1:-target/debug/session-ref}
BIN=$(realpath "$BIN")
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$HERE/tools/gen-opencode-store.py" "$T/gen" --sessions 20 --turns 1 >/dev/null
mkdir -p "$T/a" "$T/b" "$T/c"
# a: a database with rows in its WAL, as a running opencode leaves it.
python3 - "$T/gen/opencode.db" "$T/a/opencode.db" <<'EOF'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
dst = sqlite3.connect(sys.argv[2])
dst.execute("PRAGMA journal_mode=WAL")
src.backup(dst)
dst.execute("PRAGMA wal_autocheckpoint=0")
dst.execute("UPDATE session SET title = title || ' (in the WAL)'")
dst.commit()
import shutil, os
# Copy the files while the connection is open: -wal and -shm exist.
for s in ("", "-wal", "-shm"):
    shutil.copy(sys.argv[2] + s, sys.argv[2] + s + ".copy")
EOF
for s in "" -wal -shm; do mv "$T/a/opencode.db$s.copy" "$T/a/opencode.db$s"; done
cp "$T/a/opencode.db" "$T/a/opencode.db-wal" "$T/c/"
cp "$T/a/opencode.db" "$T/a/opencode.db-wal" "$T/a/opencode.db-shm" "$T/b/"
sqlite3 "$T/b/opencode.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
rm -f "$T/b/opencode.db-wal" "$T/b/opencode.db-shm"
unshare -m bash -s "$T" "$BIN" <<'EOF'
T=$1 BIN=$2
fail=0
for x in a b c; do mount --bind -o ro "$T/$x" "$T/$x"; done
for x in a b; do
  n=$("$BIN" --opencode "$T/$x" --no-cache candidates --json --limit 100 | wc -l)
  w=$("$BIN" --opencode "$T/$x" --no-cache candidates --json --limit 100 | grep -c 'in the WAL' || true)
  echo "$x: $n sessions listed, $w with their WAL title"
  [ "$n" = 20 ] && [ "$w" = 20 ] || fail=1
done
err=$("$BIN" --opencode "$T/c" --no-cache candidates 2>&1 >/dev/null || true)
echo "c: $err"
case $err in *"-shm file is missing"*) ;; *) fail=1 ;; esac
exit $fail
EOF
echo "opencode read-only check: ok"
