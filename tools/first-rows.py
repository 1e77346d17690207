#!/usr/bin/env python3
"""Time the picker to its first full page of local rows, without and with a
remote configured, in tmux (alternating runs, so both see the same load).

  tools/first-rows.py BIN CLAUDE_PROJECTS CONFIG_HOME_WITH_REMOTE RUNS

The picker's header shows `N/M` as sessions arrive; a run ends when the
header first shows at least the local store's count. Prints the median and
spread of each, in milliseconds.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

binary, store, remote_config, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
local_count = sum(len(files) for _, _, files in os.walk(store))
empty_config = tempfile.mkdtemp()
count = re.compile(r"(\d+)/(\d+)")


def first_rows(config_home):
    name = f"firstrows{os.getpid()}"
    command = f"env XDG_CONFIG_HOME={config_home} {binary} --claude {store} >/dev/null"
    start = time.monotonic()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "30", command], check=True)
    try:
        while time.monotonic() - start < 30:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
            header = screen.splitlines()[0] if screen else ""
            found = count.search(header)
            if found and int(found.group(2)) >= local_count:
                return (time.monotonic() - start) * 1000
            time.sleep(0.005)
        raise SystemExit("the picker never showed the local rows")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


results = {"local only": [], "with a remote 100 ms late": []}
for _ in range(runs):
    results["local only"].append(first_rows(empty_config))
    results["with a remote 100 ms late"].append(first_rows(remote_config))
for name, times in results.items():
    print(f"{name:28} median {statistics.median(times):7.1f} ms  min {min(times):7.1f}  max {max(times):7.1f}  ({len(times)} runs)")
