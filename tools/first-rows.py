#!/usr/bin/env python3
"""Time the picker to its first local row and to the end of listing,
without a remote and with each remote configuration given, in tmux
(alternating runs, so all see the same load).

  tools/first-rows.py BIN CLAUDE_PROJECTS RUNS NAME=CONFIG_HOME ...

Each CONFIG_HOME holds a session-ref/config.toml naming a remote. Each run
starts `BIN --claude CLAUDE_PROJECTS` in a new pane of a private
tmux server (100x30, so the list spans the width) and polls the screen:

- first local row: a list row of a Claude Code session that is not the
  remote's (remote rows name their host, `…@127.0.0.1:`, before the cwd);
- listed: the header's `N/M` with `discovering…` gone (every store, the
  remote's too, has answered).

Times run from starting the pane; the poll costs a few ms, the same for
both. Prints the median, min and max of each, in milliseconds, the ratio
of medians, and the load average before and after.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

binary, store, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
remotes = [spec.split("=", 1) for spec in sys.argv[4:]]
empty_config = tempfile.mkdtemp()
socket = f"first-rows-{os.getpid()}"
count = re.compile(r"(\d+)/(\d+)")


def tmux(*args, **kw):
    return subprocess.run(["tmux", "-L", socket, *args], **kw)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(config_home):
    name = "picker"
    command = f"env XDG_CONFIG_HOME={config_home} {binary} --claude {store} >/dev/null"
    start = time.monotonic()
    tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", command, check=True)
    first = None
    try:
        while time.monotonic() - start < 60:
            screen = tmux("capture-pane", "-p", "-t", name, capture_output=True, text=True).stdout
            now = (time.monotonic() - start) * 1000
            lines = screen.splitlines()
            if first is None and any(
                "claude" in row and "127.0.0.1:" not in row for row in lines[1:15]
            ):
                first = now
            header = lines[0] if lines else ""
            if first is not None and count.search(header) and "discovering" not in header:
                return first, now
            time.sleep(0.003)
        raise SystemExit(f"the picker never finished listing; the screen:\n{screen}")
    finally:
        tmux("kill-session", "-t", name, capture_output=True)


# A server kept for the whole measurement: no run pays for starting it.
tmux("-f", "/dev/null", "new-session", "-d", "-s", "keep", "sleep 3600", check=True)
try:
    variants = {"local only": empty_config, **dict(remotes)}
    firsts = {name: [] for name in variants}
    listed = {name: [] for name in variants}
    before = loadavg()
    for config in variants.values():  # warm-up
        run(config)
    for _ in range(runs):
        for name, config in variants.items():
            f, l = run(config)
            firsts[name].append(f)
            listed[name].append(l)
    after = loadavg()
finally:
    tmux("kill-server", capture_output=True)

print(f"{runs} alternating runs each after a warm-up; load average {before} before, {after} after")
base_first = statistics.median(firsts["local only"])
base_listed = statistics.median(listed["local only"])
for name in variants:
    f, l = firsts[name], listed[name]
    print(
        f"{name:28} first local row median {statistics.median(f):7.1f} ms (min {min(f):6.1f}, max {max(f):6.1f}, {statistics.median(f) / base_first:4.2f}x)"
        f"   listed median {statistics.median(l):7.1f} ms (min {min(l):6.1f}, max {max(l):6.1f}, {statistics.median(l) / base_listed:4.2f}x)"
    )
