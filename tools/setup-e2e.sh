#!/usr/bin/env bash
# `session-ref setup` as a new user meets it, with three real agents from
# npm (Claude Code, Gemini CLI, Codex CLI), offline, against the mock model
# of ../shared/tools/mockllm.
#
#   tools/setup-e2e.sh [AGENTS_DIR] [MOCKLLM_PY]
#
# (`cargo test --test it setup_agents::` runs it, with SESSION_REF_AGENTS
# and MOCKLLM_PY for the two arguments.)
# Defaults: /work/agents (the `npm install --prefix` holding
# node_modules/.bin/{claude,gemini,codex}) and
# /work/shared/tools/mockllm/mockllm.py. Everything runs in a network
# namespace with loopback only (the script re-runs itself under
# `unshare -n`), in a fresh HOME (mktemp -d), each agent under `timeout`.
# Only the three agents are on the user's $PATH, so setup finds those.
#   1. Each agent's settings are seeded as a user's would be: comments
#      (where the agent takes them: Claude Code's settings.json may hold
#      none), a hook of their own and an MCP server of their own (beside
#      what points the agent at the mock).
#   2. `setup --dry-run` shows the three and writes nothing; `setup --yes`
#      writes them and leaves a receipt (nothing else: no hook install, no
#      mcp install, no approval flag on the agents' command lines).
#   3. In each agent, a prompt with a mention is resolved by the hook: the
#      next model request carries the cited session's snapshot.
#   4. In each agent, the mock model calls the MCP tool list_sessions: the
#      tool result it gets back lists the session.
#   5. `setup --undo` puts every settings file back byte for byte as
#      seeded. The one file an agent rewrites on its own as it runs
#      (Claude Code's ~/.claude.json: startups, projects, caches) cannot be
#      byte-identical; undo then removes session-ref's entries only, and
#      the check is that everything seeded is still there as it was and
#      nothing of session-ref's is left. A first round (setup, undo, no
#      agent run between) checks that file byte for byte too.
# An agent or the mock missing: SKIPPED (a failure when CI is set). Exits
# non-zero on the first failed check, keeping its work directory (kept on
# success too with SETUP_E2E_KEEP=1).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
AG=${1:-/work/agents}
MOCK=${2:-/work/shared/tools/mockllm/mockllm.py}
BIN=$AG/node_modules/.bin

for need in "$MOCK" "$BIN/claude" "$BIN/gemini" "$BIN/codex"; do
  if [[ ! -e $need ]]; then
    if [[ -n ${CI:-} ]]; then echo "FAILED: $need is missing" >&2; exit 1; fi
    echo "SKIPPED: $need is missing (see ../shared/tools/mockllm/README.md to install the agents)"
    exit 0
  fi
done

if [[ -z ${SESSION_REF_E2E_NETNS:-} ]]; then
  # SESSION_REF_BIN: a build to check (the test suite passes its own).
  [[ -n ${SESSION_REF_BIN:-} ]] || cargo build --quiet --manifest-path "$ROOT/Cargo.toml"
  # A network namespace of its own: as root, else in a user namespace.
  netns=(unshare -n)
  "${netns[@]}" true 2>/dev/null || netns=(unshare -rn)
  exec "${netns[@]}" env SESSION_REF_E2E_NETNS=1 bash -c 'ip link set lo up && exec "$0" "$@"' "$0" "$@"
fi

SR=${SESSION_REF_BIN:-$ROOT/target/debug/session-ref}
T=$(mktemp -d /tmp/session-ref-setup-e2e.XXXXXX)
H=$T/home
mkdir -p "$H/tmp" "$T/bin" "$T/proj"
for agent in claude gemini codex; do ln -s "$BIN/$agent" "$T/bin/$agent"; done
USER_PATH=$T/bin:/usr/bin:/bin
. "$ROOT/tools/lib/mock-agents.sh"
cleanup() { mock_stop; }
trap cleanup EXIT
# The mock's MCP result check: whether the tool result holds this title.
export MOCKLLM_END_MARK="Setup e2e session"
mock_start "$T" "$MOCK"

fail() { echo "FAIL: $*" >&2; echo "work dir kept: $T" >&2; trap - EXIT; cleanup; exit 1; }
pass() { echo "ok: $*"; }
requests() { wc -l <"$T/requests.jsonl"; }
last_request() { tail -n 1 "$T/requests.jsonl"; }
as_user() { (cd "$T/proj" && env -i PATH="$USER_PATH" HOME="$H" "$SR" "$@" </dev/null); }

echo "agents: Claude Code $("$BIN/claude" --version | head -1), Gemini CLI $("$BIN/gemini" --version | head -1), $("$BIN/codex" --version | head -1)"

# The session to cite: a native session at its default place.
mkdir -p "$H/.hydra/sessions"
python3 - "$H/.hydra/sessions/setup-e2e.jsonl" <<'PY'
import json, sys
lines = [{"type": "session", "version": 1, "id": "setup-e2e-1", "createdAt": "2026-12-01T10:00:00Z", "cwd": "/w/e2e"},
         {"seq": 1, "type": "session/title", "data": {"title": "Setup e2e session"}},
         {"seq": 2, "type": "user/message", "data": {"id": "u1", "source": {"kind": "user"}, "content": [{"type": "text", "text": "plan the migration"}]}},
         {"seq": 3, "type": "assistant/message", "data": {"message": {"id": "a3", "content": [{"type": "text", "text": "CITED-MARKER the migration runs in three steps"}]}}}]
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
MENTION=$(as_user mention setup-e2e-1)

# 1. The user's settings: comments, a hook and an MCP server of their own.
FILES=(.claude/settings.json .claude.json .gemini/settings.json .codex/config.toml .codex/hooks.json)
seed() {
  rm -rf "$H/.claude" "$H/.claude.json" "$H/.gemini" "$H/.codex"
  mkdir -p "$H/.claude" "$H/.gemini" "$H/.codex"
  # Claude Code 2.1.332 ignores a settings.json holding comments ("Invalid
  # or malformed JSON"), hooks and all: this one has none, but a layout of
  # its own for undo to keep.
  cat >"$H/.claude/settings.json" <<'JSON'
{
  "env": {"KEEP_ME": "1"},
  "hooks": {
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "true my-own-hook"}]}
    ]
  }
}
JSON
  echo '{"numStartups": 1, "mcpServers": {"docs": {"type": "stdio", "command": "true", "args": []}}}' >"$H/.claude.json"
  cat >"$H/.gemini/settings.json" <<'JSON'
{
  // my Gemini CLI settings (comments, but no trailing commas: Gemini CLI
  // 0.61.0 refuses those)
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "hooks": {
    "BeforeAgent": [
      {"hooks": [{"type": "command", "command": "true my-own-hook"}]} /* mine */
    ]
  },
  "mcpServers": {
    "docs": {"command": "true"} // another server
  }
}
JSON
  {
    echo "# my Codex config"
    mock_codex_config
    printf '\n# another server\n[mcp_servers.docs]\ncommand = "true"\n'
  } >"$H/.codex/config.toml"
  echo '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true my-own-hook"}]}]}}' >"$H/.codex/hooks.json"
  for f in "${FILES[@]}"; do cp "$H/$f" "$T/$(echo "$f" | tr / _).seed"; done
}
same_as_seed() { cmp -s "$T/$(echo "$1" | tr / _).seed" "$H/$1"; }

# 2. setup, dry run first.
seed
as_user setup --dry-run >"$T/dry.out" || fail "setup --dry-run: $(cat "$T/dry.out")"
for product in "Claude Code: found" "Gemini CLI: found" "Codex CLI: found" "opencode: not found"; do
  grep -q "$product" "$T/dry.out" || fail "setup --dry-run does not say '$product': $(cat "$T/dry.out")"
done
for f in "${FILES[@]}"; do same_as_seed "$f" || fail "setup --dry-run changed $f"; done
pass "setup --dry-run shows the three agents and writes nothing"

# The first round: setup then undo, nothing between: every file byte for byte.
as_user setup --yes >"$T/setup0.out" || fail "setup --yes: $(cat "$T/setup0.out")"
as_user setup --undo >"$T/undo0.out" || fail "setup --undo: $(cat "$T/undo0.out")"
for f in "${FILES[@]}"; do same_as_seed "$f" || fail "setup then --undo: $f differs from the seed"; done
pass "setup --yes then --undo: every settings file byte-identical to the seed"

as_user setup --yes >"$T/setup.out" || fail "setup --yes: $(cat "$T/setup.out")"
grep -q "^receipt: " "$T/setup.out" || fail "setup printed no receipt: $(cat "$T/setup.out")"
grep -q "true my-own-hook" "$H/.claude/settings.json" && grep -q "// my Gemini CLI settings" "$H/.gemini/settings.json" \
  || fail "setup lost the user's Claude Code settings"
pass "setup --yes wrote the three agents' settings and a receipt"

run_claude() { (cd "$T/proj" && mock_claude_env "$H" PATH="$USER_PATH" timeout -k 5 120 "$BIN/claude" -p "$1" </dev/null); }
run_codex() { (cd "$T/proj" && mock_codex_env "$H" PATH="$USER_PATH" timeout -k 5 120 "$BIN/codex" exec --skip-git-repo-check "$1" </dev/null); }
run_gemini() {
  (cd "$T/proj" && env -i PATH="$USER_PATH" HOME="$H" TMPDIR="$H/tmp" GEMINI_API_KEY=dummy \
    GOOGLE_GEMINI_BASE_URL="$mock_base" timeout -k 5 120 "$BIN/gemini" -p "$1" </dev/null)
}

for agent in claude gemini codex; do
  # 3. The hook resolves the mention: its context reaches the model.
  N=$(requests)
  "run_$agent" "Summarize $MENTION" >"$T/$agent-hook.out" 2>"$T/$agent-hook.err" \
    || fail "$agent hook run: $(tail -n 5 "$T/$agent-hook.out" "$T/$agent-hook.err")"
  # The mock may write its log line after the agent has its answer and
  # exits: wait (at most 15 s) for the very condition checked.
  cited() {
    tail -n +"$((N + 1))" "$T/requests.jsonl" | grep -v '"path": "/v1/messages/count_tokens' \
      | grep 'Referenced sessions' | grep -q 'CITED-MARKER'
  }
  for ((i = 0; i < 60; i++)); do cited && break; sleep 0.25; done
  [[ $(requests) -gt $N ]] || fail "$agent made no model request"
  cited || fail "$agent: no model request carries the hook's context (the cited snapshot)"
  pass "$agent: the hook resolved the mention; the snapshot reached the model"

  # 4. The MCP server lists the session when the model calls it.
  N=$(requests)
  "run_$agent" 'MCPCALL list_sessions {}' >"$T/$agent-mcp.out" 2>"$T/$agent-mcp.err" || true
  for ((i = 0; i < 60; i++)); do [[ $(requests) -gt $N ]] && break; sleep 0.25; done
  [[ $(requests) -gt $N ]] || fail "$agent made no model request for the MCP call"
  why=$(mock_result_whole "$T/$agent-mcp.out" "$T/$agent-mcp.err") || fail "$agent: list_sessions did not list the session: $why"
  pass "$agent: the MCP server's list_sessions listed the session ($(grep -o 'MOCK-GOT-RESULT chars=[0-9]*' "$T/$agent-mcp.out" | head -1))"
done

# 5. Undo: each file as seeded.
for f in "${FILES[@]}"; do cp "$H/$f" "$T/$(echo "$f" | tr / _).ran"; done
as_user setup --undo >"$T/undo.out" || fail "setup --undo: $(cat "$T/undo.out")"
[[ ! -e $H/.local/state/session-ref/setup-receipt.json ]] || fail "the receipt is left after undo"
for f in "${FILES[@]}"; do
  if same_as_seed "$f"; then
    pass "$f byte-identical to the seed after undo"
    continue
  fi
  # Not byte-identical: only a file the agent itself rewrote may differ,
  # and then as the agent left it, less session-ref's entries.
  [[ $f == .claude.json ]] || fail "$f differs from the seed after undo: $(diff "$T/$(echo "$f" | tr / _).seed" "$H/$f" | head -20)"
  grep -q "\.claude\.json was edited since setup" "$T/undo.out" || fail "$f: undo did not see Claude Code's own edit: $(cat "$T/undo.out")"
  python3 - "$T/.claude.json.seed" "$H/.claude.json" <<'PY' || fail "$f: undo did more or less than remove session-ref's entry"
import json, sys
seed, now = (json.load(open(p)) for p in sys.argv[1:])
assert "session-ref" not in json.dumps(now.get("mcpServers", {})), now.get("mcpServers")
assert now["mcpServers"] == seed["mcpServers"], (now["mcpServers"], seed["mcpServers"])
for key in seed:
    if key != "numStartups":  # Claude Code counts its own starts
        assert now[key] == seed[key], key
PY
  pass "$f: rewritten by Claude Code itself as it ran; undo removed session-ref's entry only, the user's server kept"
done

# Kept on a failure (fail above); on success only when asked.
if [[ -n ${SETUP_E2E_KEEP:-} ]]; then
  echo "all setup end-to-end checks passed (work dir: $T)"
else
  mock_stop
  rm -rf "$T"
  echo "all setup end-to-end checks passed"
fi
