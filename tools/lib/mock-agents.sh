# Shared by the tools that run the real Claude Code and Codex binaries
# offline against the mock model server of ../shared/tools/mockllm
# (tools/hook-e2e.sh, tools/generate-real-transcripts.sh). POSIX sh, to be
# sourced:
#
#   . "$(dirname "$0")/lib/mock-agents.sh"
#   mock_start WORK_DIR MOCKLLM_PY    # sets mock_pid and mock_base
#   trap mock_stop EXIT
#   mock_codex_config >"$HOME_DIR/.codex/config.toml"
#   (cd PROJECT && mock_claude_env HOME_DIR [VAR=value...] timeout 120 CLAUDE -p "…")
#   (cd PROJECT && mock_codex_env HOME_DIR [VAR=value...] timeout 120 CODEX exec …)
#
# The mock listens on 127.0.0.1 only, logs every request to
# WORK_DIR/requests.jsonl and stops itself after 600 s; mock_stop stops it
# by its PID. The agents run with an empty environment besides PATH, a
# fresh HOME and what points them at the mock, so no real settings,
# credentials or telemetry are involved.

# Start the mock in the background and wait (at most 10 s) for its port.
mock_start() {
  python3 "$2" --port 0 --port-file "$1/port" --log "$1/requests.jsonl" \
    --max-seconds 600 >"$1/mock.log" 2>&1 &
  mock_pid=$!
  mock_wait=0
  until [ -s "$1/port" ]; do
    mock_wait=$((mock_wait + 1))
    [ "$mock_wait" -lt 100 ] || { echo "mock did not start (see $1/mock.log)" >&2; return 1; }
    sleep 0.1
  done
  mock_base=http://127.0.0.1:$(cat "$1/port")
  touch "$1/requests.jsonl"
}

# Whether the agent's output OUT (its stderr in ERR) says the mock model
# got a tool result holding $MOCKLLM_END_MARK (the mock's MCPCALL trigger);
# if not, what went wrong, on stdout.
mock_result_whole() {
  if ! grep -q "MOCK-GOT-RESULT" "$1"; then
    echo "the mock model never saw a tool result: $(tail -n 5 "$1" "$2")"
    return 1
  fi
  if ! grep -q "end=yes" "$1"; then
    echo "the result lacks its end mark: $(grep -o 'MOCK-GOT-RESULT[^"]*' "$1")"
    return 1
  fi
}

# Stop the mock started by mock_start (by its PID), if any.
mock_stop() {
  if [ -n "${mock_pid:-}" ]; then
    kill "$mock_pid" 2>/dev/null || true
  fi
}

# A Codex config.toml whose model provider is the mock, with updates,
# telemetry, analytics and plugins off.
mock_codex_config() {
  cat <<TOML
model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "$mock_base/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[otel]
exporter = "none"
metrics_exporter = "none"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
TOML
}

# Run "$@" (after extra VAR=value words, if any) as Claude Code would run
# for the mock: HOME and TMPDIR under HOME_DIR, the mock as its API.
mock_claude_env() {
  mock_home=$1
  shift
  env -i PATH=/usr/bin:/bin HOME="$mock_home" TMPDIR="$mock_home/tmp" \
    ANTHROPIC_BASE_URL="$mock_base" ANTHROPIC_API_KEY=dummy \
    DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$@"
}

# Run "$@" (after extra VAR=value words, if any) as Codex would run for
# the mock: HOME, CODEX_HOME and TMPDIR under HOME_DIR, the mock's key.
mock_codex_env() {
  mock_home=$1
  shift
  env -i PATH=/usr/bin:/bin HOME="$mock_home" CODEX_HOME="$mock_home/.codex" \
    MOCK_API_KEY=dummy TMPDIR="$mock_home/tmp" "$@"
}
