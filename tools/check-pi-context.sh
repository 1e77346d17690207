#!/usr/bin/env bash
# Differential check of the pi reader against pi itself: for every session
# below a pi sessions directory, the conversation pi 0.73.1 builds for the
# model (tools/pi-context.mjs: SessionManager.buildSessionContext, user and
# assistant text and compaction summaries) must equal the one session-ref
# previews (`preview --json`, unbudgeted). `@file` blocks are compared as
# session-ref shows them (`@PATH`).
#
#   tools/check-pi-context.sh DIR [BIN]   (BIN default target/debug/session-ref)
#
# Needs node and the pi package (AG, default /work/agents). Exits 1 on the
# first difference, naming the session.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
bin=${2:-$repo/target/debug/session-ref}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
find "$dir" -name '*.jsonl' -print0 | xargs -0 env HOME="$home" node "$repo/tools/pi-context.mjs" >"$home/pi.jsonl"
python3 - "$bin" "$dir" "$home/pi.jsonl" <<'PY'
import json, re, subprocess, sys
bin, root, theirs = sys.argv[1:]
block = re.compile(r'<file name="([^"]*)">(?:</file>\n|\n.*?\n</file>\n)', re.S)
def typed(text):
    # session-ref keeps the person's words: each @file block as @PATH.
    m = list(block.finditer(text))
    if not m:
        return text
    before, after = text[:m[0].start()], text[m[-1].end():]
    out = before + ("\n" if before and not before[-1].isspace() else "")
    out += " ".join("@" + x.group(1) for x in m)
    return out + (" " + after if after else "")
bad = 0
for line in open(theirs, encoding="utf-8"):
    want = json.loads(line)
    conv = [[r, typed(t) if r == "user" else t] for r, t in want["conversation"]]
    conv = [[r, t] for r, t in conv if t.strip()]
    out = subprocess.run([bin, "--no-cache", "--pi", root, "--max-reference-bytes", "1000000000",
                          "preview", want["id"], "--json"], capture_output=True, text=True, check=True)
    ctx = json.loads(out.stdout)["context"]
    body = ctx.split("<referenced-sessions>\n", 1)[1].rsplit("\n</referenced-sessions>", 1)[0]
    got = [[m["role"], m["text"]] for m in json.loads(body)[0]["conversation"]]
    # A compaction checkpoint is projected in the user's role.
    norm = lambda c: [["user" if r == "checkpoint" else r, t] for r, t in c]
    if norm(got) != norm(conv):
        bad += 1
        print(f"DIFF {want['id']}\n  pi:          {conv[:6]}\n  session-ref: {got[:6]}")
        break
print("pi sessions compared:", sum(1 for _ in open(theirs)), "differences:", bad)
sys.exit(1 if bad else 0)
PY
