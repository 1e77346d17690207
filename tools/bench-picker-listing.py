#!/usr/bin/env python3
"""Time the picker to fully listed beside `candidates` on the same store
and warm cache, alternating runs (so both see the same load).

  tools/bench-picker-listing.py BIN RUNS STORE_FLAG STORE [STORE_FLAG STORE ...]

e.g. `tools/bench-picker-listing.py target/release/session-ref 10 --claude DIR/claude10k/projects`.

Per run:

- candidates: the wall time of `BIN FLAGS candidates --json --limit
  100000 >/dev/null` (every session listed and labelled), and its CPU
  (user + system of the child);
- picker: `BIN FLAGS` started in a new 160x40 pane of a private tmux
  server, its screen polled with `capture-pane` until
  - first row: a list row is drawn;
  - first titled row: a list row whose label is not a bare session id
    (a UUID: what the picker showed before titles were read);
  - listed: the count line's `N/M` has N = M = the number of sessions
    `candidates` printed, and neither `discovering…` nor `reading
    titles…` follows it (every session listed with its title and
    activity).
  Times run from starting the pane; the poll costs a few ms.

Both use the same cache directory (XDG_CACHE_HOME, a temporary one unless
set), warmed by one run of each first. Prints the median, min and max of
each figure in milliseconds, the ratio of the medians, and the load
average before and after.
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

binary, runs, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if not flags:
    raise SystemExit(__doc__)
env = dict(os.environ)
env.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="bench-picker-cache-"))
# No remote, no saved drafts from the user's own configuration.
env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bench-picker-config-")
env["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="bench-picker-state-")
socket = f"bench-picker-{os.getpid()}"
count = re.compile(r"(\d+)/(\d+)")
uuid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def tmux(*args, **kw):
    return subprocess.run(["tmux", "-L", socket, *args], **kw)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def candidates():
    """Wall and CPU ms of one `candidates` run; how many it listed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run(
        [binary, *flags, "candidates", "--json", "--limit", "100000"],
        env=env,
        capture_output=True,
        check=True,
    ).stdout
    wall = (time.monotonic() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, len(out.splitlines())


# A list row: the label, then (after a gap) the age column (`46w`, `3d`).
row = re.compile(r"^[› ]\s*(\S.*?)\s{2,}.*?\b\d+(?:s|m|h|d|w|mo|y)\b")


def list_rows(lines):
    """The labels of the list's rows drawn (the "discovering sessions…"
    notice is not one)."""
    return [m.group(1) for m in map(row.match, lines[1:]) if m]


def picker(total):
    """ms to the first row, the first titled row and fully listed."""
    names = " ".join(f"{k}={quote(env[k])}" for k in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"))
    command = f"env {names} {quote(binary)} {' '.join(quote(f) for f in flags)} >/dev/null 2>&1"
    start = time.monotonic()
    tmux("new-session", "-d", "-s", "picker", "-x", "160", "-y", "40", command, check=True)
    first = titled = None
    screen = ""
    try:
        while time.monotonic() - start < 120:
            screen = tmux("capture-pane", "-p", "-t", "picker", capture_output=True, text=True).stdout
            now = (time.monotonic() - start) * 1000
            lines = screen.splitlines()
            rows = list_rows(lines)
            if first is None and rows:
                first = now
            if titled is None and any(not uuid.match(row) for row in rows):
                titled = now
            header = lines[0] if lines else ""
            counted = count.search(header)
            if (
                counted
                and int(counted.group(1)) == total
                and int(counted.group(2)) == total
                and "discovering" not in header
                and "reading titles" not in header
            ):
                return first, titled if titled is not None else now, now
            time.sleep(0.002)
        raise SystemExit(f"the picker never finished listing; the screen:\n{screen}")
    finally:
        tmux("kill-session", "-t", "picker", capture_output=True)


def summary(name, values, base=None):
    median = statistics.median(values)
    ratio = f"  {median / base:4.2f}x candidates" if base else ""
    return f"{name:34} median {median:8.1f} ms  (min {min(values):7.1f}, max {max(values):7.1f}){ratio}"


# A server kept for the whole measurement: no run pays for starting it.
tmux("-f", "/dev/null", "new-session", "-d", "-s", "keep", "sleep 3600", check=True)
try:
    _, _, total = candidates()  # warm-up: builds the title index
    picker(total)
    before = loadavg()
    results = {k: [] for k in ("cand", "cand_cpu", "first", "titled", "listed")}
    for _ in range(runs):
        wall, cpu, listed = candidates()
        assert listed == total, (listed, total)
        results["cand"].append(wall)
        results["cand_cpu"].append(cpu)
        first, titled, done = picker(total)
        results["first"].append(first)
        results["titled"].append(titled)
        results["listed"].append(done)
    after = loadavg()
finally:
    tmux("kill-server", capture_output=True)

print(f"{' '.join(flags)}: {total} sessions; {runs} alternating runs after a warm-up;")
print(f"load average {before} before, {after} after")
base = statistics.median(results["cand"])
print(summary("candidates --json (wall)", results["cand"]))
print(summary("candidates --json (CPU)", results["cand_cpu"]))
print(summary("picker: first row", results["first"]))
print(summary("picker: first titled row", results["titled"]))
print(summary("picker: fully listed", results["listed"], base))
