#!/usr/bin/env bash
# End-to-end check of `session-ref hook` with the real Claude Code and Codex
# binaries, offline, against the mock model of ../shared/tools/mockllm.
#
#   tools/hook-e2e.sh [AGENTS_DIR] [MOCKLLM_PY]
#
# Defaults: /work/agents (npm prefix holding node_modules/.bin/{claude,codex})
# and /work/shared/tools/mockllm/mockllm.py. Everything runs in a fresh HOME
# under a temporary directory, on loopback, each agent under `timeout`.
# It installs the hooks with `session-ref hook install claude|codex` (Codex
# without --dangerously-bypass-hook-trust: the trust install records is what
# lets the hook run), then checks what the model received:
#   1. Claude cites a Claude session  -> the request carries its snapshot;
#   2. Codex cites the same session   -> the request carries its snapshot;
#   3. a large session is cut by session-ref to fit the cap (not by the host);
#   4. an unknown session blocks: no request, Claude prints the reason,
#      Codex keeps the prompt in a draft file;
#   5. uninstall leaves the settings as they were before install.
# Exits non-zero on the first failed check. Prints SKIPPED and exits 0 when
# the agents are not installed, unless CI is set (then it fails).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
AG=${1:-/work/agents}
MOCK=${2:-/work/shared/tools/mockllm/mockllm.py}
CLAUDE=$AG/node_modules/.bin/claude
CODEX=$AG/node_modules/.bin/codex

if [[ ! -x $CLAUDE || ! -x $CODEX || ! -f $MOCK ]]; then
  if [[ -n ${CI:-} ]]; then
    echo "FAILED: agents or mock missing ($CLAUDE, $CODEX, $MOCK)" >&2
    exit 1
  fi
  echo "SKIPPED: agents or mock missing ($CLAUDE, $CODEX, $MOCK)"
  exit 0
fi

cargo build --quiet --manifest-path "$ROOT/Cargo.toml"
SR=$ROOT/target/debug/session-ref

T=$(mktemp -d /tmp/session-ref-hook-e2e.XXXXXX)
H=$T/home
mkdir -p "$H/tmp" "$H/.codex" "$T/proj"
. "$ROOT/tools/lib/mock-agents.sh"
cleanup() { mock_stop; }
trap cleanup EXIT

mock_start "$T" "$MOCK"

{
  echo "# a setting of the user's own, which install must keep"
  mock_codex_config
} >"$H/.codex/config.toml"
mkdir -p "$H/.claude"
echo '{"env": {"KEEP_ME": "1"}}' >"$H/.claude/settings.json"
cp "$H/.claude/settings.json" "$T/claude-settings.before"
cp "$H/.codex/config.toml" "$T/codex-config.before"

fail() { echo "FAIL: $*" >&2; echo "work dir kept: $T" >&2; trap - EXIT; cleanup; exit 1; }
pass() { echo "ok: $*"; }
requests() { wc -l <"$T/requests.jsonl"; }
last_request() { tail -n 1 "$T/requests.jsonl"; }

claude() {
  (cd "$T/proj" && mock_claude_env "$H" HYDRA_SESSIONS="$T/native" \
    timeout 120 "$CLAUDE" -p "$1")
}
codex() {
  (cd "$T/proj" && mock_codex_env "$H" HYDRA_SESSIONS="$T/native" \
    timeout 120 "$CODEX" exec --skip-git-repo-check "$1" </dev/null)
}
as_user() { env -i PATH=/usr/bin:/bin HOME="$H" CODEX_HOME="$H/.codex" "$SR" "$@"; }

# A Claude session to cite, and a large one.
claude "Remember the code word PINEAPPLE-42 for later." >"$T/c0.out" 2>&1 || fail "claude first run"
python3 - "$T/big-prompt" <<'PY'
import sys
open(sys.argv[1], "w").write("BIGSTART " + "lorem ipsum dolor " * 2500 + " BIGEND")
PY
claude "$(cat "$T/big-prompt")" >"$T/c1.out" 2>&1 || fail "claude big run"
CANDS=$(as_user --claude "$H/.claude/projects" candidates --json)
SMALL=$(echo "$CANDS" | python3 -c 'import json,sys
for l in sys.stdin:
    c=json.loads(l)
    if c["label"].startswith("Remember") or "PINEAPPLE" in c["label"]: print(c["sessionId"]); break')
BIG=$(echo "$CANDS" | python3 -c 'import json,sys
for l in sys.stdin:
    c=json.loads(l)
    if "BIGSTART" in c["label"] or "lorem" in c["label"]: print(c["sessionId"]); break')
[[ -n $SMALL && -n $BIG ]] || { echo "$CANDS"; fail "cannot find the cited sessions"; }
# A native session whose newest message is 60 KB of mixed text: retention cuts
# it, so the added context fills the host's cap.
mkdir -p "$T/native"
python3 - "$T/native/huge.jsonl" <<'PY'
import json, sys
text = "HUGESTART " + "naïve café text, " * 3500 + " HUGEEND"
lines = [{"type": "session", "version": 1, "id": "huge-native", "createdAt": "2025-01-01T00:00:00Z"},
         {"seq": 1, "type": "user/message", "data": {"id": "u1", "source": {"kind": "user"}, "content": [{"type": "text", "text": "write a lot"}]}},
         {"seq": 2, "type": "assistant/message", "data": {"message": {"id": "a2", "content": [{"type": "text", "text": text}]}}}]
open(sys.argv[1], "w").write("".join(json.dumps(l) + "\n" for l in lines))
PY
M_HUGE=$(as_user --store "$T/native" mention huge-native --label "huge")
M_SMALL=$(as_user --claude "$H/.claude/projects" mention "$SMALL" --label "code word session")
M_BIG=$(as_user --claude "$H/.claude/projects" mention "$BIG" --label "big session")

# Install both hooks.
as_user hook install claude >"$T/install-claude.out" || fail "install claude"
as_user hook install codex >"$T/install-codex.out" || fail "install codex"
cat "$T/install-claude.out" "$T/install-codex.out"
grep -q KEEP_ME "$H/.claude/settings.json" || fail "install lost a Claude setting"
grep -q 'model = "gpt-5.5"' "$H/.codex/config.toml" || fail "install lost a Codex setting"
as_user hook install codex | grep -q "left unchanged" || fail "install is not idempotent"

# 1. Claude cites a session.
N=$(requests)
claude "What was the code word in $M_SMALL?" >"$T/c2.out" 2>&1 || fail "claude cited run: $(cat "$T/c2.out")"
[[ $(requests) -gt $N ]] || fail "claude made no request"
last_request | grep -q 'UserPromptSubmit hook additional context: ## Referenced sessions' \
  || fail "claude's request has no hook context"
last_request | grep -q 'PINEAPPLE-42' || fail "claude's request lacks the snapshot"
last_request | grep -q 'referenced-sessions-stats' || fail "claude's request lacks the stats"
pass "Claude: the model request carries the cited session's snapshot"

# 2. Codex cites the Claude session (trusted by install, no bypass flag).
N=$(requests)
codex "What was the code word in $M_SMALL?" >"$T/x2.out" 2>"$T/x2.err" || fail "codex cited run"
[[ $(requests) -gt $N ]] || fail "codex made no request"
last_request | grep -q 'Referenced sessions' || { cat "$T/x2.err"; fail "codex's request has no hook context (hook untrusted?)"; }
last_request | grep -q 'PINEAPPLE-42' || fail "codex's request lacks the snapshot"
pass "Codex: the model request carries the cited session's snapshot (hook trusted by install)"

# 3. A large session is cut by session-ref's retention, inside each cap.
N=$(requests)
claude "Summarize $M_BIG" >"$T/c3.out" 2>&1 || fail "claude big cite"
last_request | python3 -c '
import json, sys
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, list):
        for x in v: yield from strings(x)
    elif isinstance(v, dict):
        for x in v.values(): yield from strings(x)
text = "\n".join(strings(json.loads(sys.stdin.read())["body"]))
# Retention drops the oldest message (the 45 KB prompt) whole; the stats say so.
assert "\"truncated\":true" in text, "no omission in the stats"
assert "</referenced-sessions-stats>" in text, "the context was cut by the host"
assert "saved to" not in text, "the host replaced the context by a file"
' || fail "claude: the large snapshot was not cut by session-ref"
codex "Summarize $M_BIG" >"$T/x3.out" 2>"$T/x3.err" || fail "codex big cite"
last_request | python3 -c '
import json, sys
body = json.loads(sys.stdin.read())["body"]
ctx = [c["text"] for item in body["input"] if item.get("role") == "developer"
       for c in item.get("content", []) if "Referenced sessions" in c.get("text", "")]
assert ctx, "no developer message with the context"
size = len(ctx[0].encode())
assert size <= 10000, size
assert "</referenced-sessions-stats>" in ctx[0], "the host cut the context"
print("codex context bytes:", size)
' || fail "codex: the large snapshot was not cut by session-ref"
N=$(requests)
claude "Summarize $M_HUGE" >"$T/c5.out" 2>&1 || fail "claude huge cite"
last_request | python3 -c '
import json, sys
body = json.loads(sys.stdin.read())["body"]
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, list):
        for x in v: yield from strings(x)
    elif isinstance(v, dict):
        for x in v.values(): yield from strings(x)
marker = "UserPromptSubmit hook additional context: "
ctx = [s for s in strings(body) if marker in s]
assert ctx, "no hook context"
ctx = ctx[0][ctx[0].index(marker) + len(marker):]
# Other text follows in the same block: keep what session-ref wrote.
ctx = ctx[:ctx.index("</referenced-sessions-stats>") + len("</referenced-sessions-stats>")]
units = len(ctx.encode("utf-16-le")) // 2
assert 9500 < units <= 10000, units
assert "HUGESTART" in ctx and "HUGEEND" in ctx and "UTF-8 bytes" in ctx
print("claude context characters:", units)
' || fail "claude: the huge snapshot does not fill the cap whole"
codex "Summarize $M_HUGE" >"$T/x5.out" 2>"$T/x5.err" || fail "codex huge cite"
last_request | python3 -c '
import json, sys
body = json.loads(sys.stdin.read())["body"]
ctx = [c["text"] for item in body["input"] if item.get("role") == "developer"
       for c in item.get("content", []) if "Referenced sessions" in c.get("text", "")]
assert ctx, "no developer message with the context"
ctx = ctx[0][ctx[0].index("## Referenced sessions"):]
ctx = ctx[:ctx.index("</referenced-sessions-stats>") + len("</referenced-sessions-stats>")]
size = len(ctx.encode())
assert 9500 < size <= 10000, size
assert "HUGESTART" in ctx and "HUGEEND" in ctx, "cut by the host"
print("codex context bytes:", size)
' || fail "codex: the huge snapshot does not fill the cap whole"
pass "large session: cut by session-ref's retention within each host's cap"

# 3b. A raised Codex cap: install with --budget sets the handler's
# additionalContextLimit and re-records its trust.
as_user hook install codex --budget 40000 >/dev/null || fail "install codex --budget"
codex "Summarize $M_HUGE" >"$T/x6.out" 2>"$T/x6.err" || fail "codex huge cite, raised cap"
last_request | python3 -c '
import json, sys
body = json.loads(sys.stdin.read())["body"]
ctx = [c["text"] for item in body["input"] if item.get("role") == "developer"
       for c in item.get("content", []) if "Referenced sessions" in c.get("text", "")]
assert ctx, "no developer message with the context (hook untrusted after the change?)"
ctx = ctx[0][ctx[0].index("## Referenced sessions"):]
ctx = ctx[:ctx.index("</referenced-sessions-stats>") + len("</referenced-sessions-stats>")]
size = len(ctx.encode())
assert 39000 < size <= 40000, size
assert "HUGESTART" in ctx and "HUGEEND" in ctx, "cut by the host"
print("codex context bytes with --budget 40000:", size)
' || fail "codex: the raised cap was not honoured whole"
as_user hook install codex >/dev/null || fail "reinstall codex"
pass "Codex: install --budget raises the cap, the context arrives whole"

# 4. An unknown session blocks, with the reason shown / kept.
# A mention of a session that does not exist (mention itself refuses an
# unknown id unless it is given the label to write).
UNKNOWN=$(as_user mention no-such-session --label "Missing session")
N=$(requests)
claude "Look at $UNKNOWN please" >"$T/c4.out" 2>&1 || true
[[ $(requests) -eq $N ]] || fail "claude sent a blocked prompt"
grep -q "SESSION_REFERENCE_READ_FAILED" "$T/c4.out" || fail "claude did not print the reason: $(cat "$T/c4.out")"
pass "Claude: an unknown session blocks the prompt and prints the reason"
codex "Look at $UNKNOWN please" >"$T/x4.out" 2>"$T/x4.err" || true
[[ $(requests) -eq $N ]] || fail "codex sent a blocked prompt"
DRAFT=$(ls "$H/.local/state/session-ref/drafts/"*codex*.txt | tail -n 1)
grep -q "SESSION_REFERENCE_READ_FAILED" "$DRAFT" || fail "the draft lacks the reason"
grep -qF "Look at $UNKNOWN please" "$DRAFT" || fail "the draft lacks the prompt"
pass "Codex: an unknown session blocks; prompt and reason kept in $DRAFT"

# 4b. Codex's terminal view shows the reason, and Up brings the prompt back.
if command -v tmux >/dev/null; then
  S=session-ref-e2e-$$
  tmux new-session -d -s "$S" -x 160 -y 40 "cd '$T/proj' && env -i PATH=/usr/bin:/bin HOME='$H' \
    CODEX_HOME='$H/.codex' MOCK_API_KEY=dummy TMPDIR='$H/tmp' TERM=xterm-256color \
    timeout --foreground 60 '$CODEX' -c 'projects.\"$T/proj\".trust_level=\"trusted\"'; sleep 20"
  sleep 8
  tmux send-keys -t "$S" Escape   # a "new model" notice may be open
  sleep 2
  tmux send-keys -t "$S" -l "Look at $UNKNOWN please"
  sleep 1
  tmux send-keys -t "$S" Enter
  sleep 6
  tmux capture-pane -p -t "$S" >"$T/tui-blocked.txt"
  tmux send-keys -t "$S" Up
  sleep 1
  tmux capture-pane -p -t "$S" >"$T/tui-recalled.txt"
  tmux kill-session -t "$S"
  grep -q "Blocked by hook" "$T/tui-blocked.txt" || fail "codex TUI: no block shown: $(cat "$T/tui-blocked.txt")"
  grep -q "SESSION_REFERENCE_READ_FAILED" "$T/tui-blocked.txt" || fail "codex TUI: no reason shown"
  grep -q "session-ref kept the prompt in" "$T/tui-blocked.txt" || fail "codex TUI: no draft notice"
  grep -qF "Look at $UNKNOWN please" "$T/tui-recalled.txt" || fail "codex TUI: Up did not recall the prompt"
  [[ $(requests) -eq $N ]] || fail "codex TUI sent a blocked prompt"
  pass "Codex TUI: shows the reason and the draft path; Up brings the prompt back"
else
  echo "SKIPPED: tmux not installed, Codex's terminal view not checked"
fi

# 5. Uninstall restores the settings. (Codex's terminal view writes to
# config.toml itself, so compare with the file just before uninstall.)
cp "$H/.codex/config.toml" "$T/codex-config.installed"
as_user hook uninstall claude >/dev/null
as_user hook uninstall codex >/dev/null
python3 - "$T/claude-settings.before" "$H/.claude/settings.json" <<'PY' || fail "claude settings differ after uninstall"
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))
PY
[[ ! -e $H/.codex/hooks.json ]] || python3 -c 'import json,sys; assert not json.load(open(sys.argv[1])).get("hooks")' "$H/.codex/hooks.json" \
  || fail "codex hooks.json still has hooks"
python3 - "$T/codex-config.installed" "$H/.codex/config.toml" <<'PY' || fail "uninstall changed config.toml beyond the trust entry"
import difflib, sys
before, after = (open(p).read().splitlines() for p in sys.argv[1:])
removed = [l[2:] for l in difflib.ndiff(before, after) if l.startswith("- ")]
added = [l for l in difflib.ndiff(before, after) if l.startswith("+ ")]
assert not added, added
assert removed and all(l.startswith(("[hooks.state.", "trusted_hash = ")) or not l.strip() for l in removed), removed
assert "hooks.state" not in "\n".join(after)
PY
pass "uninstall removes exactly what install added"

echo "all hook end-to-end checks passed (work dir: $T)"
