#!/bin/sh
# Redraws the picker frame shown in README.md: the picker on the demo store
# in a 100×26 tmux pane, one mention inserted and a line typed, captured as
# text. Usage: tools/readme-frame.sh [BINARY] (default target/release/session-ref).
set -eu
bin=$(realpath "${1:-target/release/session-ref}")
root=$(cd "$(dirname "$0")/.." && pwd)
sock="readme-frame-$$"
t() { tmux -L "$sock" "$@"; }
trap 't kill-server 2>/dev/null || true' EXIT
t new-session -d -s frame -x 100 -y 26 \
  "cd '$root' && '$bin' --store assets/demo --cwd /home/dev/projects/payments-api >/dev/null; sleep 30"
sleep 3
t send-keys -t frame idem; sleep 1
t send-keys -t frame Enter; sleep 0.5
t send-keys -t frame C-u; sleep 1
t send-keys -t frame Tab; sleep 0.3
t send-keys -t frame -l " — apply the same rule to POST /refunds"; sleep 1.5
t capture-pane -p -t frame
