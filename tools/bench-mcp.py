#!/usr/bin/env python3
"""Latency of `session-ref mcp` tools through a client over stdio.

  python3 tools/bench-mcp.py BINARY [--runs N] [--query Q] [--search S] -- GLOBAL_FLAGS...

Starts `BINARY GLOBAL_FLAGS mcp`, initializes, waits until the server's
listing is in (a first list_sessions), warms once more, then times N calls
each of list_sessions (empty query, and a query), search_sessions (first
page: limit 10) and read_session (the default 32 KiB budget, a different
session each call), as the wall time from writing the request line to
reading its answer. Prints min / median / p90 / max in ms per call kind.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


class Client:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next = 0

    def request(self, method, params):
        self.next += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        start = time.perf_counter()
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next:
                return answer, (time.perf_counter() - start) * 1000

    def call(self, tool, args):
        answer, ms = self.request("tools/call", {"name": tool, "arguments": args})
        result = answer["result"]
        assert not result.get("isError"), result
        return result, ms

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--query", default="cache index")
    parser.add_argument("--search", default="xylophone")
    argv = sys.argv[1:]
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.flags = flags
    client = Client([args.binary, *args.flags, "mcp"])
    client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "1"}})
    started = time.perf_counter()
    listed, _ = client.call("list_sessions", {"limit": 500})
    print(f"first listing (cold server): {(time.perf_counter() - started) * 1000:.0f} ms", file=sys.stderr)
    ids = [s["sessionId"] for s in listed["structuredContent"]["sessions"]]
    # Warm: one of each.
    client.call("search_sessions", {"query": args.search})
    client.call("read_session", {"session": ids[0]})
    times = {"list_sessions": [], f"list_sessions {args.query!r}": [],
             "search_sessions (first page)": [], "read_session (32 KiB)": []}
    for i in range(args.runs):
        times["list_sessions"].append(client.call("list_sessions", {})[1])
        times[f"list_sessions {args.query!r}"].append(client.call("list_sessions", {"query": args.query})[1])
        times["search_sessions (first page)"].append(client.call("search_sessions", {"query": args.search})[1])
        times["read_session (32 KiB)"].append(client.call("read_session", {"session": ids[(i + 1) % len(ids)]})[1])
    client.close()
    for name, values in times.items():
        values.sort()
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        print(f"{name:36} min {values[0]:7.1f}  median {statistics.median(values):7.1f}  "
              f"p90 {p90:7.1f}  max {values[-1]:7.1f} ms  ({len(values)} calls)")


if __name__ == "__main__":
    main()
