#!/usr/bin/env python3
"""Time commands side by side, alternating runs (so every command sees the
same load on a shared machine), reporting wall time and CPU time.

  tools/time-alternating.py [--warmup N] [--runs N] NAME=COMMAND ...

Each COMMAND is a shell command line (run with `sh -c`, stdout and stderr
to /dev/null). Wall time runs until the command exits. CPU time is user +
system of the command and of every process it started: this script is a
child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a child the command
leaves behind (an ssh client still closing its connection) is reparented
here and reaped, its CPU counted, when it exits within 5 s. Work done in
processes it did not start (a remote's server under sshd, a ControlPersist
master forked before) is not counted. Prints per command the median, min
and max of both, each median as a ratio of the first command's, and the
load average before and after.
"""
import ctypes
import os
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
warmup, runs = 1, 10
while args and args[0].startswith("--"):
    flag, value = args[0], args[1]
    args = args[2:]
    if flag == "--warmup":
        warmup = int(value)
    elif flag == "--runs":
        runs = int(value)
    else:
        raise SystemExit(f"unknown flag {flag}")
commands = [spec.split("=", 1) for spec in args]
if not commands:
    raise SystemExit(__doc__)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    raise SystemExit("cannot become a child subreaper")


def once(command):
    devnull = subprocess.DEVNULL
    start = time.monotonic()
    child = subprocess.Popen(["sh", "-c", command], stdout=devnull, stderr=devnull)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"exit {child.returncode}: {command}")
    cpu = usage.ru_utime + usage.ru_stime
    # What it left running, reparented here: reaped as it ends.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.002)
            continue
        cpu += usage.ru_utime + usage.ru_stime
    return wall * 1000, cpu * 1000


before = loadavg()
for _ in range(warmup):
    for _, command in commands:
        once(command)
walls = {name: [] for name, _ in commands}
cpus = {name: [] for name, _ in commands}
for _ in range(runs):
    for name, command in commands:
        wall, cpu = once(command)
        walls[name].append(wall)
        cpus[name].append(cpu)
after = loadavg()

first = commands[0][0]
base_wall = statistics.median(walls[first])
base_cpu = statistics.median(cpus[first])
print(f"{runs} alternating runs each after {warmup} warm-up; load average {before} before, {after} after")
print(f"{'':14} {'wall median':>12} {'min':>8} {'max':>8} {'ratio':>6}   {'CPU median':>11} {'min':>8} {'max':>8} {'ratio':>6}")
for name, _ in commands:
    w, c = walls[name], cpus[name]
    print(
        f"{name:14} {statistics.median(w):9.1f} ms {min(w):8.1f} {max(w):8.1f} {statistics.median(w) / base_wall:5.2f}x"
        f"   {statistics.median(c):8.1f} ms {min(c):8.1f} {max(c):8.1f} {statistics.median(c) / max(base_cpu, 0.001):5.2f}x"
    )
