#!/usr/bin/env bash
# End-to-end check of the `copilot` store against what the real GitHub Copilot
# CLI writes, offline, against the mock model of ../shared/tools/mockllm.
#
#   tools/copilot-e2e.sh [AGENTS_DIR] [MOCKLLM_PY] [KEEP_DIR]
#
# Defaults: /work/agents (npm prefix holding node_modules/.bin/copilot) and
# /work/shared/tools/mockllm/mockllm.py. Runs Copilot in a fresh
# COPILOT_HOME inside a network namespace with only loopback (`unshare -rn`),
# each run under `timeout`:
#   one-shot; `--continue` with non-ASCII; `-n NAME`; `@file`; `/x args`;
#   reasoning; a `task` sub-agent; `--continue -p "/compact …"`; a run that
#   fails before its first event; then, in tmux, the TUI's `/rename` and
#   `/fork` (skipped without tmux).
# Then checks, with session-ref over that store: every run is one session
# (the failed one skipped), labels follow workspace.yaml (a rename is seen),
# snapshots hold what was typed and replied and nothing a sub-agent said,
# the compaction is a checkpoint, the fork is a session of its own.
# With KEEP_DIR the Copilot home is copied there (to refresh the fixture of
# tests/fixtures/copilot, trimmed as its README says).
# Exits non-zero on the first failed check. Prints SKIPPED and exits 0 when
# Copilot or the mock is missing, unless CI is set (then it fails).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
AG=${1:-/work/agents}
MOCK=${2:-/work/shared/tools/mockllm/mockllm.py}
KEEP=${3:-}
COPILOT=$AG/node_modules/.bin/copilot

if [[ ! -x $COPILOT || ! -f $MOCK ]]; then
  if [[ -n ${CI:-} ]]; then
    echo "FAILED: Copilot CLI or mock missing ($COPILOT, $MOCK)" >&2
    exit 1
  fi
  echo "SKIPPED: Copilot CLI or mock missing ($COPILOT, $MOCK)"
  exit 0
fi

cargo build --quiet --manifest-path "$ROOT/Cargo.toml"
SR=$ROOT/target/debug/session-ref
T=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$T"' EXIT
H=$T/home
mkdir -p "$H/tmp" "$H/proj" "$H/other dir ü"
printf 'notes line one\n' >"$H/proj/notes.txt"
export AG MOCK T H COPILOT

unshare -rn bash -c '
  set -u
  ip link set lo up
  python3 "$MOCK" --port 0 --port-file "$T/port" --log "$T/requests.jsonl" \
      --max-seconds 300 --max-requests 200 2>"$T/mock.err" </dev/null &
  MOCKPID=$!
  for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
  BASE=http://127.0.0.1:$(cat "$T/port")
  ENV="PATH=/usr/local/bin:/usr/bin:/bin HOME=$H TMPDIR=$H/tmp LANG=C.UTF-8 COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=$BASE/v1 COPILOT_PROVIDER_TYPE=openai COPILOT_PROVIDER_API_KEY=dummy COPILOT_MODEL=mock-model COPILOT_AUTO_UPDATE=false"
  cop() { env -i $ENV TERM=dumb timeout -k 5 90 "$COPILOT" "$@" </dev/null >/dev/null 2>&1; }
  cd "$H/proj"
  cop -p "hello there, first prompt"; sleep 1
  cop --continue -p "second turn: ünïcödé 日本語 ✓"; sleep 1
  cop -n "My named session" -p "named one prompt"; sleep 1
  cop -p "look at @notes.txt please"; sleep 1
  cop -p "/explain the parser module"; sleep 1
  cop -p "THINK about reasoning"; sleep 1
  cop --allow-all-tools -p "[[tool:task {\"description\":\"sub job\",\"prompt\":\"inner sub-agent prompt\",\"agent_type\":\"general-purpose\",\"name\":\"helper\"}]]"; sleep 1
  cop --attachment "$H/proj/notes.txt" -p "fails before it starts" || true; sleep 1
  cop -p "[[bigusage]] fill it"; sleep 1
  cop --continue -p "/compact focus on the plan"; sleep 1
  cop -C "$H/other dir ü" --continue -p "continued from another dir"
  if command -v tmux >/dev/null; then
    named=$(grep -l "^name: My named session" "$H"/.copilot/session-state/*/workspace.yaml | head -1)
    named=$(basename "$(dirname "$named")")
    export TMUX_TMPDIR=$H/tmp
    tmux new-session -d -s cop -x 160 -y 45 "env -i $ENV TERM=xterm-256color timeout -k 5 60 $COPILOT --resume=$named"
    sleep 8; tmux send-keys -t cop Enter   # the folder-trust question
    sleep 3; tmux send-keys -t cop "/rename Renamed in the TUI" Enter
    sleep 3; tmux send-keys -t cop "/fork" Enter
    sleep 5; tmux send-keys -t cop C-c; sleep 1; tmux send-keys -t cop C-c; sleep 2
    tmux kill-server 2>/dev/null || true
    echo "$named" >"$T/named"
  fi
  kill "$MOCKPID"
'

STATE=$H/.copilot/session-state
if [[ -n $KEEP ]]; then
  mkdir -p "$KEEP"
  cp -a "$H/.copilot" "$KEEP/"
fi
fail() { echo "FAILED: $*" >&2; exit 1; }
export XDG_CACHE_HOME=$T/cache

listing=$("$SR" --copilot "$STATE" candidates --json --limit 1000)
verbose=$("$SR" -v --copilot "$STATE" candidates --limit 1 2>&1 >/dev/null)
expected=7
[[ -s $T/named ]] && expected=8
count=$(printf '%s\n' "$listing" | grep -c '"sessionId"')
[[ $count == "$expected" ]] || fail "$count sessions listed, $expected expected: $listing"
grep -q "1 skipped" <<<"$verbose" || fail "the failed run is not reported as skipped: $verbose"

label_of() { printf '%s\n' "$listing" | grep -F "\"label\":\"$1\"" | head -1; }
id_of() { sed -E 's/.*"sessionId":"([^"]*)".*/\1/' <<<"$(label_of "$1")"; }
preview_of() { "$SR" --copilot "$STATE" preview "$1" --json; }

hello=$(id_of "hello there, first prompt")
[[ -n $hello ]] || fail "no session labelled by its first prompt"
preview_of "$hello" | grep -q 'ünïcödé 日本語 ✓' || fail "the continued turn is missing"
preview_of "$hello" | grep -q 'current_datetime' && fail "the model's version of a prompt leaked"
task=$(printf '%s\n' "$listing" | grep -F 'tool:task' | sed -E 's/.*"sessionId":"([^"]*)".*/\1/')
preview_of "$task" | grep -q '"text":"ACK: inner sub-agent prompt"' && fail "the sub-agent's reply is in the snapshot"
compacted=$(id_of "[[bigusage]] fill it")
preview_of "$compacted" | grep -q '"compacted":true' || fail "the compaction is not a checkpoint"
printf '%s\n' "$(label_of "[[bigusage]] fill it")" | grep -q '"cwd":"[^"]*other dir ü"' ||
  fail "the cwd does not follow the latest run"
[[ -n $(id_of "look at @notes.txt please") ]] || fail "@file is not kept as typed"
[[ -n $(id_of "/explain the parser module") ]] || fail "/x args is not kept as typed"
if [[ -s $T/named ]]; then
  [[ -n $(id_of "Renamed in the TUI") ]] || fail "the rename is not the label"
  [[ -n $(id_of "My named session (fork)") ]] || fail "the fork is not listed under its name"
fi
echo "copilot-e2e: ok ($count sessions)"
