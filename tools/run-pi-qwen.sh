#!/usr/bin/env bash
# Run pi 0.73.1 and Qwen Code 0.24.4 offline against the mock model
# (../shared/tools/mockllm) through the scenarios the pi and qwen readers
# follow (one-shot, multi-turn, continue/resume, fork/branch, compaction,
# rename, @file, piped stdin, a slash command with arguments, non-ASCII),
# and leave the homes they wrote in OUT (default /tmp/pi-qwen-runs).
# Needs the agents in $AG/node_modules/.bin (default /work/agents) and
# `unshare -n`. Only the mock this script starts is stopped, by its PID.
set -u
AG=${AG:-/work/agents}
M=${M:-$(cd "$(dirname "$0")/.." && pwd)/../shared/tools/mockllm}
[ -f "$M/mockllm.py" ] || M=/work/shared/tools/mockllm
OUT=${OUT:-/tmp/pi-qwen-runs}
rm -rf "$OUT"; mkdir -p "$OUT"
T=$OUT/mock; mkdir -p "$T"
export AG M OUT T
cat >"$OUT/inner.sh" <<'INNER'
set -u
ip link set lo up
python3 "$M/mockllm.py" --port 0 --port-file "$T/port" --log "$T/requests.jsonl" --log-replies \
    --max-seconds 900 --max-requests 400 2>"$T/mock.err" </dev/null &
MOCK=$!
for i in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
BASE=http://127.0.0.1:$(cat "$T/port")
BIN=$AG/node_modules/.bin

# ---------------------------------------------------------------- pi
H=$OUT/pi; W="$H/projé ü"; mkdir -p "$H/tmp" "$W" "$H/.pi/agent/prompts" "$H/.pi/agent/extensions"
cat >"$H/.pi/agent/models.json" <<JSON
{"providers": {"mock": {"baseUrl": "$BASE/v1", "api": "openai-completions", "apiKey": "dummy",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "mock-model", "name": "Mock Model", "reasoning": true, "contextWindow": 64000, "maxTokens": 4096}]}}}
JSON
echo '{"defaultProvider": "mock", "defaultModel": "mock-model", "enableInstallTelemetry": false}' >"$H/.pi/agent/settings.json"
printf 'Say hello to $1 warmly, in %s.\n' '$2' >"$H/.pi/agent/prompts/greet.md"
printf 'line one of notes\nline two — ü\n' >"$W/notes.md"
cat >"$H/.pi/agent/extensions/branch.ts" <<'TS'
export default function (pi: any) {
  pi.registerCommand("branch-first", {
    description: "navigate to the first assistant entry",
    handler: async (args: string, ctx: any) => {
      const first = ctx.sessionManager.getEntries().find((e: any) => e.type === "message" && e.message.role === "assistant");
      await ctx.navigateTree(first.id, { summarize: args === "summary" });
    },
  });
  pi.on("before_agent_start", async (event: any) => {
    if (String(event.prompt ?? "").includes("CTX")) {
      return { message: { customType: "ctx-ext", content: "Extension context: build is green", display: false } };
    }
  });
}
TS
pi() { ( cd "$W" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TMPDIR="$H/tmp" LANG=C.UTF-8 TERM=dumb \
    PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 timeout -k 5 90 "$BIN/pi" "$@" ); echo "pi $1 … exit $?" >&2; }
pi -p "hello world — café ☕ 日本語"
sleep 1.1; pi -p -c "second turn on the same session"
sleep 1.1; echo "piped stdin data" | pi -p @notes.md "summarize this file"
sleep 1.1; pi -p "/greet Carol Spanish"
sleep 1.1; pi -p "[[think]] think first, then [[tool:read {\"path\":\"notes.md\"}]]"
sleep 1.1; pi -p "CTX with extension context"
# RPC: multi-turn, rename, compaction, in-place branch (extension), fork.
sleep 1.1
{
  echo '{"id":"1","type":"prompt","message":"rpc first question"}'; sleep 3
  echo '{"id":"2","type":"prompt","message":"rpc second question"}'; sleep 3
  echo '{"id":"3","type":"set_session_name","name":"Named via RPC ✓"}'; sleep 1
  echo '{"id":"4","type":"compact"}'; sleep 4
  echo '{"id":"5","type":"prompt","message":"after the compaction"}'; sleep 3
  echo '{"id":"6","type":"prompt","message":"/branch-first summary"}'; sleep 4
  echo '{"id":"7","type":"prompt","message":"on the new branch"}'; sleep 3
  echo '{"id":"8","type":"get_state"}'; sleep 1
} | pi --mode rpc >"$OUT/pi-rpc.out" 2>&1
sleep 1.1
{
  echo '{"id":"1","type":"prompt","message":"branch without summary base"}'; sleep 3
  echo '{"id":"2","type":"prompt","message":"second before branching"}'; sleep 3
  echo '{"id":"3","type":"prompt","message":"/branch-first"}'; sleep 3
  echo '{"id":"4","type":"prompt","message":"replacement second"}'; sleep 3
  echo '{"id":"5","type":"get_fork_messages"}'; sleep 1
} | pi --mode rpc >"$OUT/pi-rpc2.out" 2>&1
# fork the first session (print mode --fork)
FIRST=$(ls "$H/.pi/agent/sessions"/*/ | head -1)
F1=$(ls "$H/.pi/agent/sessions"/*/*.jsonl | head -1)
sleep 1.1; pi -p --fork "$F1" "question in the fork"
sleep 1.1; pi -p --session "$F1" "resumed by path"

# ---------------------------------------------------------------- qwen
H=$OUT/qwen; W="$H/projé ü"; mkdir -p "$H/tmp" "$W/.qwen/commands"
printf 'line one of notes\nline two — ü\n' >"$W/notes.md"
printf 'description = "greet"\nprompt = """Say hello to {{args}} warmly."""\n' >"$W/.qwen/commands/greet.toml"
qwen() { ( cd "$W" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TMPDIR="$H/tmp" LANG=C.UTF-8 TERM=dumb \
    OPENAI_BASE_URL="$BASE/v1" OPENAI_API_KEY=dummy OPENAI_MODEL=mock-model QWEN_TELEMETRY_ENABLED=false \
    timeout -k 5 90 "$BIN/qwen" --auth-type openai "$@" ); echo "qwen $1 … exit $?" >&2; }
qwen -p "hello world — café ☕ 日本語"
sleep 1.1; qwen -p "second turn" --continue
sleep 1.1; echo "piped stdin data" | qwen -p "summarize @notes.md please"
sleep 1.1; qwen -p "/greet Carol"
sleep 1.1; qwen -p "[[think]] think, then [[tool:read_file {\"file_path\":\"notes.md\"}]]" --yolo
FIRSTQ=$(ls -tr "$H/.qwen/projects"/*/chats/*.jsonl | head -1); QID=$(basename "$FIRSTQ" .jsonl)
sleep 1.1; qwen -p "resumed by id" --resume "$QID"
sleep 1.1; qwen -p "/rename Renamed chat ✓" --resume "$QID"
sleep 1.1; qwen -p "in the fork" --resume "$QID" --fork-session
sleep 1.1; qwen -p "[[bigusage]] big usage turn"
sleep 1.1; qwen -p "after compression" --continue
sleep 1.1; qwen -p "[[tool:agent {\"description\":\"sub\",\"prompt\":\"sub-agent task\",\"subagent_type\":\"general-purpose\"}]]" --yolo
kill "$MOCK"
INNER
unshare -n bash "$OUT/inner.sh" </dev/null
echo "done: $OUT"
