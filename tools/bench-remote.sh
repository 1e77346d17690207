#!/usr/bin/env bash
# Listing with a remote over loopback ssh, beside local listing (BENCHMARKS.md,
# "Sessions on other machines"). Starts a throwaway sshd on 127.0.0.1 with its
# own host and user keys (as tests/remote.rs does), generates a Claude Code
# store, and times, alternating runs (tools/time-alternating.py: wall and CPU
# time, medians):
#   local        candidates over the local store
#   remote       the same store as the only remote (a new ssh connection per run)
#   remote+mux   the same through ssh connection reuse (ControlMaster=auto,
#                ControlPersist=600 in the ssh_command: every run reuses the
#                master connection opened before the timing)
#   ssh true     a bare ssh login to the same server, for scale
# The remote's side (`session-ref remote serve` under sshd) is not part of a
# run's CPU time: its own CPU time, logged by /usr/bin/time, is printed after.
# then the picker's first local row without a remote, with a remote whose
# ssh_command sleeps 100 ms before exec'ing ssh (added connection latency),
# and with one that sleeps 10 s (it never answers within the connect
# timeout: no ssh or remote work competes for the CPU meanwhile, so any
# difference would be the picker waiting) (tools/first-rows.py, in tmux).
#
#   tools/bench-remote.sh [SESSIONS [RUNS]]      (defaults 10000 and 15)
#
# BIN=path uses that binary instead of building target/release/session-ref.
# Needs sshd, ssh, ssh-keygen, tmux and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-10000}
runs=${2:-15}
for tool in /usr/sbin/sshd ssh ssh-keygen tmux python3; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed"; exit 0; }
done
work=$(mktemp -d)
cleanup() {
  if [ -s "$work/sshd.pid" ]; then kill "$(cat "$work/sshd.pid")" 2>/dev/null || true; fi
  # The ControlPersist master, if one is left.
  if [ -n "${mux:-}" ]; then $mux -O exit "$user@127.0.0.1" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${BIN:-}" ]; then
  cargo build --release -q
  BIN=$PWD/target/release/session-ref
fi
bin=$BIN
python3 tools/gen-stores.py claude "$work/store" --sessions "$sessions" --size 20k >/dev/null
projects=$work/store/projects

mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -C host -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -C user -f "$work/user_key"
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
PermitRootLogin prohibit-password
PidFile $work/sshd.pid
AllowUsers $user
LogLevel ERROR
MaxStartups 100
MaxSessions 100
EOF
/usr/sbin/sshd -f "$work/sshd_config"
for _ in $(seq 200); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
  sleep 0.05
done

ssh="ssh -F /dev/null -p $port -i $work/user_key -o IdentitiesOnly=yes -o UserKnownHostsFile=$work/known -o StrictHostKeyChecking=accept-new -o LogLevel=ERROR"
mux="$ssh -o ControlMaster=auto -o ControlPath=$work/mux-%C -o ControlPersist=600"
cfg() { # NAME SSH_COMMAND
  mkdir -p "$work/$1/session-ref"
  cat >"$work/$1/session-ref/config.toml" <<EOF
ssh_command = "$2"
[[remote]]
host = "$user@127.0.0.1"
command = "/usr/bin/time -a -o $work/serve-$1.cpu -f %U+%S env XDG_CACHE_HOME=$work/remote-cache $bin"
args = ["--claude", "$projects"]
EOF
}
cfg plain "$ssh"
cfg mux "$mux"
# 100 ms of added latency before every connection.
cfg late "sleep 0.1; exec $ssh"
# Silent: unreachable after the connect timeout (3 s).
cfg silent "sleep 10; exec $ssh"
empty=$(mktemp -d -p "$work")
export XDG_CACHE_HOME=$work/local-cache
# Build both title indexes (here and "there") once, and open the master.
"$bin" --claude "$projects" candidates --limit 1 >/dev/null
XDG_CONFIG_HOME=$work/plain "$bin" --store "$empty" candidates --limit 1 >/dev/null
XDG_CONFIG_HOME=$work/mux "$bin" --store "$empty" candidates --limit 1 >/dev/null
local_rows=$("$bin" --claude "$projects" candidates --limit 100000 | wc -l)
remote_rows=$(XDG_CONFIG_HOME=$work/mux "$bin" --store "$empty" candidates --limit 100000 | wc -l)
echo "$sessions sessions generated; listed: local $local_rows rows, remote $remote_rows rows"
[ "$local_rows" = "$remote_rows" ] || { echo "the remote listing differs from the local one" >&2; exit 1; }

rm -f "$work"/serve-*.cpu
python3 tools/time-alternating.py --warmup 2 --runs "$runs" \
  "local=$bin --claude $projects candidates --limit 100000" \
  "remote=env XDG_CONFIG_HOME=$work/plain $bin --store $empty candidates --limit 100000" \
  "remote+mux=env XDG_CONFIG_HOME=$work/mux $bin --store $empty candidates --limit 100000" \
  "ssh true=$ssh $user@127.0.0.1 true"

python3 - "$work" <<'EOF'
import re, statistics, sys
for name in ["plain", "mux"]:
    # Each run's `remote serve` (user+system seconds), after the 2 warm-up
    # runs; other lines /usr/bin/time writes (a signal's note) are skipped.
    text = open(f"{sys.argv[1]}/serve-{name}.cpu").read()
    lines = re.findall(r"^(\d+\.\d+)\+(\d+\.\d+)$", text, re.M)[2:]
    cpu = [(float(u) + float(s)) * 1000 for u, s in lines]
    print(f"remote serve CPU ({name:5}) median {statistics.median(cpu):6.1f} ms  min {min(cpu):6.1f}  max {max(cpu):6.1f}  ({len(cpu)} runs)")
EOF

python3 tools/first-rows.py "$bin" "$projects" "$runs" \
  "remote 100 ms late=$work/late" "remote silent 10 s=$work/silent"
