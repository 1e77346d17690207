#!/usr/bin/env bash
# Listing with a remote over loopback ssh, beside local listing (BENCHMARKS.md,
# "Sessions on other machines"). Starts a throwaway sshd on 127.0.0.1 (as the
# tests do), generates a store, and times with hyperfine:
#   local        candidates over the local store
#   remote       the same store as a remote (a new ssh connection per run)
#   remote+mux   the same with ControlMaster/ControlPersist (connection reused)
# then the picker's first local rows with and without a remote that answers
# 100 ms late (tools/first-rows.py).
#
#   tools/bench-remote.sh [SESSIONS]      (default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-10000}
work=$(mktemp -d)
trap 'kill "$(cat "$work/sshd.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$work"' EXIT

cargo build --release -q
bin=$PWD/target/release/session-ref
python3 tools/gen-stores.py claude "$work/store" --sessions "$sessions" --size 20k >/dev/null

mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/user_key"
cp "$work/user_key.pub" "$work/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
user=$(id -un)
cat >"$work/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $work/sshd.pid
AllowUsers $user
LogLevel ERROR
MaxStartups 100
EOF
/usr/sbin/sshd -f "$work/sshd_config"
for _ in $(seq 100); do [ -s "$work/sshd.pid" ] && break; sleep 0.05; done

ssh="ssh -F /dev/null -p $port -i $work/user_key -o IdentitiesOnly=yes -o UserKnownHostsFile=$work/known -o StrictHostKeyChecking=accept-new -o LogLevel=ERROR"
mux="$ssh -o ControlMaster=auto -o ControlPath=$work/mux-%C -o ControlPersist=60"
cfg() { # NAME SSH_COMMAND
  mkdir -p "$work/$1/session-ref"
  cat >"$work/$1/session-ref/config.toml" <<EOF
ssh_command = "$2"
[[remote]]
host = "$user@127.0.0.1"
command = "env XDG_CACHE_HOME=$work/remote-cache $bin"
args = ["--claude", "$work/store/projects"]
EOF
}
cfg plain "$ssh"
cfg mux "$mux"
cfg late "sleep 0.1; $ssh"
empty=$(mktemp -d)
export XDG_CACHE_HOME=$work/local-cache
# Warm both title indexes once.
XDG_CONFIG_HOME=$work/plain "$bin" --store "$empty" candidates --limit 1 >/dev/null
"$bin" --claude "$work/store/projects" candidates --limit 1 >/dev/null

hyperfine -N -w 2 -r 15 \
  -n local "$bin --claude $work/store/projects candidates --limit 100000" \
  -n remote "env XDG_CONFIG_HOME=$work/plain $bin --store $empty candidates --limit 100000" \
  -n remote+mux "env XDG_CONFIG_HOME=$work/mux $bin --store $empty candidates --limit 100000" \
  -n 'ssh true' "$ssh $user@127.0.0.1 true"

python3 tools/first-rows.py "$bin" "$work/store/projects" "$work/late" 10
