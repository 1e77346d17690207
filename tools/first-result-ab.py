#!/usr/bin/env python3
"""Time `session-ref search` to its first stdout line and to its end, for
two builds side by side (alternating runs, so both see the same load).

  tools/first-result-ab.py STORE_PROJECTS WORD RUNS NAME=BIN:INDEX_DIR ...

INDEX_DIR is given to each build as SESSION_REF_CACHE_DIR (run each build
once beforehand so that its index is warm).
"""
import os
import statistics
import subprocess
import sys
import time

store, word, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
builds = []
for spec in sys.argv[4:]:
    name, rest = spec.split("=", 1)
    binary, cache = rest.split(":", 1)
    builds.append((name, binary, cache))
firsts = {name: [] for name, _, _ in builds}
wholes = {name: [] for name, _, _ in builds}
for _ in range(runs):
    for name, binary, cache in builds:
        env = dict(os.environ, SESSION_REF_CACHE_DIR=cache)
        start = time.monotonic()
        first = None
        p = subprocess.Popen(
            [binary, "--claude", store, "search", word, "--json", "--limit", "100000"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        for _line in p.stdout:
            first = first or time.monotonic() - start
        p.wait()
        if first is not None:
            firsts[name].append(first * 1000)
        wholes[name].append((time.monotonic() - start) * 1000)
for name, _, _ in builds:
    f, w = firsts[name], wholes[name]
    if f:
        print(f"{name}: first result median {statistics.median(f):.0f} ms "
              f"({min(f):.0f}-{max(f):.0f}); whole median {statistics.median(w):.0f} ms")
    else:
        print(f"{name}: no result; whole median {statistics.median(w):.0f} ms")
