#!/usr/bin/env bash
# Whole-process benchmark of `session-ref hook` at 10,000 sessions.
#
#   tools/bench-hook.sh [SESSIONS]
#
# Builds the release binary, writes SESSIONS (default 10,000) Claude Code
# transcripts under a fresh HOME (the hook's default store location), and
# times with hyperfine, each run a new process fed a recorded Claude input:
#   - a prompt with no mention (the path taken on every prompt);
#   - a prompt citing one session (lists every session, reads one).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000}
command -v hyperfine >/dev/null || { echo "SKIPPED: hyperfine is not installed"; exit 0; }
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
SR=$ROOT/target/release/session-ref

T=$(mktemp -d /tmp/session-ref-bench-hook.XXXXXX)
trap 'rm -rf "$T"' EXIT
python3 - "$T/home/.claude/projects" "$N" <<'PY'
import json, os, sys, uuid
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"-home-dev-project-{i % 50}")
    os.makedirs(d, exist_ok=True)
    sid = str(uuid.UUID(int=i + 1))
    lines = []
    for k in range(10):
        role = "user" if k % 2 == 0 else "assistant"
        msg = {"role": role, "content": f"message {k} of session {i} " * 20}
        if role == "assistant":
            msg["content"] = [{"type": "text", "text": msg["content"]}]
        lines.append(json.dumps({
            "type": role, "sessionId": sid, "cwd": f"/home/dev/project-{i % 50}",
            "uuid": str(uuid.UUID(int=(i + 1) * 100 + k)), "timestamp": f"2025-01-01T00:{i % 60:02d}:{k:02d}.000Z",
            "message": msg}))
    with open(os.path.join(d, sid + ".jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
ID=$(python3 -c 'import uuid; print(uuid.UUID(int=1))')
HOME="$T/home" "$SR" candidates --limit 1 >/dev/null
MENTION=$(HOME="$T/home" "$SR" mention "$ID")
INPUT=$ROOT/tests/fixtures/hook/claude-input.json
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); v["prompt"]="please refactor the parser and add tests"; print(json.dumps(v))' \
  "$INPUT" >"$T/plain.json"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); v["prompt"]="what did we do in "+sys.argv[2]; print(json.dumps(v))' \
  "$INPUT" "$MENTION" >"$T/cited.json"
HOME="$T/home" "$SR" hook claude <"$T/cited.json" | grep -q additionalContext

echo "sessions: $N under $T/home/.claude/projects"
HOME="$T/home" hyperfine --warmup 5 --runs 100 \
  -n "hook claude, no mention" "$SR hook claude < $T/plain.json" \
  -n "hook claude, one mention" "$SR hook claude < $T/cited.json"
