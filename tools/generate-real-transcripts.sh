#!/bin/sh
# Produce real Claude Code and Codex transcripts, offline, against the mock
# model server of ../shared/tools/mockllm, for tools/check-real-transcripts.sh:
#
#   sh tools/generate-real-transcripts.sh OUT [AGENTS_DIR] [MOCK_DIR]
#
# OUT gets claude/.claude/projects and codex/.codex/sessions (fresh HOMEs,
# never a real one). AGENTS_DIR holds node_modules/.bin/{claude,codex}
# (default ../agents, an `npm install --prefix` of @anthropic-ai/claude-code
# and @openai/codex); MOCK_DIR holds mockllm.py (default
# ../shared/tools/mockllm). Every agent run is bounded by `timeout`; the mock
# listens on 127.0.0.1 only, stops itself after 600 s, and is stopped by its
# PID at the end. Then:
#
#   sh tools/check-real-transcripts.sh --claude OUT/claude/.claude/projects \
#     --codex OUT/codex/.codex/sessions
#
# What it runs: Claude Code -p, --continue, --resume, --resume
# --fork-session, a custom slash command with and without arguments,
# /rename, /compact, an image-only prompt (stream-json), --name, a project
# whose UserPromptSubmit hook adds context; Codex exec, exec resume --last,
# exec fork (and a fork of the fork), exec review, piped stdin, an image
# with and without text, a resumed turn under a low auto-compaction limit, a UserPromptSubmit hook adding context,
# and a thread named through the app server (`thread/name/set`, as the
# TUI's /rename and IDE clients do: it lands in session_index.jsonl).
#
# Checked with Claude Code 2.1.332 and Codex 0.171.0 (and 2.1.328 /
# 0.169.0, which write the same shapes but for Claude's `rowSource`).
set -eu
out=${1:?usage: generate-real-transcripts.sh OUT [AGENTS_DIR] [MOCK_DIR]}
agents=${2:-../agents}
mock=${3:-../shared/tools/mockllm}
claude_bin=$(cd "$agents" && pwd)/node_modules/.bin/claude
codex_bin=$(cd "$agents" && pwd)/node_modules/.bin/codex
for b in "$claude_bin" "$codex_bin" "$mock/mockllm.py"; do
  [ -e "$b" ] || { echo "generate-real-transcripts: missing $b" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
ch=$out/claude cx=$out/codex
cproj=$out/work/claude-project xproj=$out/work/codex-project
hproj=$out/work/claude-hooked
mkdir -p "$ch/tmp" "$cx/.codex" "$cx/tmp" "$cproj/.claude/commands" "$xproj" "$hproj/.claude"

. "$(dirname "$0")/lib/mock-agents.sh"
mock_start "$out" "$mock/mockllm.py"
trap mock_stop EXIT

claude() {
  (cd "$cproj" && mock_claude_env "$ch" timeout 120 "$claude_bin" "$@")
}
codex() {
  (cd "$xproj" && mock_codex_env "$cx" timeout 120 "$codex_bin" "$@")
}
newest() { ls -t "$1" | head -1; }

# A UserPromptSubmit hook configuration (Claude's settings.json and Codex's
# hooks.json share the shape) whose command prints added context for AGENT.
hook_context() {
  printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"HOOK CONTEXT added by the %s hook for this prompt"}}\n' \
    "$1" >"$out/work/hook-$1.json"
  printf '{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"cat %s"}]}]}}\n' \
    "$out/work/hook-$1.json"
}

# A 4x4 red PNG for the image prompts.
python3 - "$xproj/red.png" <<'PY'
import struct, sys, zlib
raw = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(4))
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY

# ---- Claude Code -----------------------------------------------------------
printf -- '---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS politely.\n' \
  >"$cproj/.claude/commands/greet.md"
claude -p "first prompt: explain the build" >/dev/null
projects=$ch/.claude/projects/$(ls "$ch/.claude/projects" | head -1)
first=$(newest "$projects" | sed 's/\.jsonl$//')
claude -p --continue "second prompt continued" >/dev/null
claude -p --resume "$first" "third prompt resumed" >/dev/null
claude -p --resume "$first" --fork-session "fourth prompt forked" >/dev/null
claude -p "/greet Carol and Dave" >/dev/null
claude -p --continue "/rename Greeting session" >/dev/null
claude -p --continue "/compact" >/dev/null
claude -p --continue "after compaction prompt" >/dev/null
claude -p "/greet" >/dev/null
printf '{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}}\n' \
  "$(base64 <"$xproj/red.png" | tr -d '\n')" |
  claude -p --input-format stream-json --output-format stream-json --verbose >/dev/null
claude -p --name "Named at launch" "prompt of a session named at launch" >/dev/null
# A project hook whose added context reaches the model, never the snapshot.
hook_context claude >"$hproj/.claude/settings.json"
(cd "$hproj" && mock_claude_env "$ch" timeout 120 "$claude_bin" -p "prompt under a context hook") >/dev/null

# ---- Codex ------------------------------------------------------------------
mock_codex_config >"$cx/.codex/config.toml"
x="exec --skip-git-repo-check"
codex $x "first codex prompt: list files" </dev/null >/dev/null 2>&1
parent=$(find "$cx/.codex/sessions" -name 'rollout-*.jsonl' | head -1)
parent_id=$(basename "$parent" .jsonl | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
codex $x resume --last "second codex prompt resumed" </dev/null >/dev/null 2>&1
codex $x fork "$parent_id" "third codex prompt forked" </dev/null >/dev/null 2>&1
# A fork of that fork (titled, as Codex lists it, by the root's first prompt).
fork=$(ls -t $(find "$cx/.codex/sessions" -name 'rollout-*.jsonl') | head -1)
fork_id=$(basename "$fork" .jsonl | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
codex $x fork "$fork_id" "fourth codex prompt, a fork of the fork" </dev/null >/dev/null 2>&1
# A review: a parent rollout plus a review sub-agent rollout.
(cd "$xproj" && git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init \
  && echo change >review-me.txt)
codex $x review --uncommitted </dev/null >/dev/null 2>&1
echo "piped stdin content" | codex $x "summarize this input" >/dev/null 2>&1
codex $x --image "$xproj/red.png" -- "" </dev/null >/dev/null 2>&1
codex $x "--image=$xproj/red.png" "describe this image" </dev/null >/dev/null 2>&1
codex $x "compaction session first prompt" </dev/null >/dev/null 2>&1
codex $x -c model_auto_compact_token_limit=5000 resume --last "compaction session second prompt" \
  </dev/null >/dev/null 2>&1
# A thread named the way the TUI's /rename and IDE clients name it.
python3 - "$codex_bin" "$cx" "$xproj" <<'PY'
import json, subprocess, sys
codex, home, proj = sys.argv[1:4]
env = {"PATH": "/usr/bin:/bin", "HOME": home, "CODEX_HOME": home + "/.codex",
       "MOCK_API_KEY": "dummy", "TMPDIR": home + "/tmp"}
server = subprocess.Popen(["timeout", "120", codex, "app-server"], cwd=proj, env=env, text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
ids = iter(range(1, 1000))
def send(message):
    server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    server.stdin.flush()
def until(done):
    for raw in server.stdout:
        message = json.loads(raw)
        if "method" in message and "id" in message:  # a request to the client: decline
            send({"id": message["id"], "result": {"decision": "decline"}})
        elif done(message):
            return message
    sys.exit("codex app-server ended early")
def call(method, params):
    i = next(ids)
    send({"id": i, "method": method, "params": params})
    reply = until(lambda m: m.get("id") == i and "method" not in m)
    if "error" in reply:
        sys.exit(f"codex app-server: {method}: {reply['error']}")
    return reply.get("result")
call("initialize", {"clientInfo": {"name": "generate-real-transcripts", "version": "0"}})
send({"method": "initialized"})
thread = call("thread/start", {"cwd": proj})["thread"]["id"]
call("turn/start", {"threadId": thread, "input": [{"type": "text", "text": "prompt of a thread named later"}]})
until(lambda m: m.get("method") == "turn/completed")
call("thread/name/set", {"threadId": thread, "name": "Named through the app server"})
server.stdin.close()
server.wait(timeout=60)
PY
# A UserPromptSubmit hook whose context becomes a developer message.
hook_context codex >"$cx/.codex/hooks.json"
codex $x --dangerously-bypass-hook-trust "prompt under a codex context hook" </dev/null >/dev/null 2>&1
rm "$cx/.codex/hooks.json"

echo "claude: $(find "$ch/.claude/projects" -name '*.jsonl' | wc -l) transcripts in $ch/.claude/projects"
echo "codex:  $(find "$cx/.codex/sessions" -name '*.jsonl' | wc -l) rollouts in $cx/.codex/sessions"
