#!/bin/sh
# Record one frame of the real picker running on the demo store into
# assets/picker.txt (tmux capture-pane at 100x30). Run from the repository
# root after `cargo build`: sh tools/record-picker-frame.sh [BINARY]
set -eu
bin=${1:-target/debug/session-ref}
sock="session-ref-record-$$"
out=assets/picker.txt
tmux_() { tmux -L "$sock" "$@"; }
trap 'tmux_ kill-server 2>/dev/null || true' EXIT

# Wait (up to 20 s) until the screen contains $1.
wait_for() {
  i=0
  until tmux_ capture-pane -p | grep -qF -- "$1"; do
    i=$((i + 1))
    [ "$i" -lt 400 ] || { echo "timed out waiting for: $1" >&2; tmux_ capture-pane -p >&2; exit 1; }
    sleep 0.05
  done
}

tmux_ -f /dev/null new-session -d -x 100 -y 30 \
  "HOME=/home/dev '$bin' --store assets/demo --cwd /home/dev/projects/payments-api \
   --prompt 'Apply the retry policy from ' > /dev/null; sleep 60"
wait_for "14/14"
tmux_ send-keys -l "webhook"
wait_for "Preview: Webhook retry schedule"
tmux_ send-keys Enter
wait_for "sessions 1/3"
tmux_ send-keys C-u
tmux_ send-keys -l "key | retry"
wait_for "3/14"
wait_for "Preview: Idempotency keys"
wait_for "budget "
tmux_ capture-pane -p > "$out"
echo "wrote $out"
