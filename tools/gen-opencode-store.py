#!/usr/bin/env python3
"""Write a synthetic opencode data directory for benchmarks (deterministic).

  DIR/opencode.db   opencode 1.18.33's schema (tests/fixtures/opencode/
                    schema-1.18.33.sql), WAL mode, every session in it

Each session is a real-looking conversation in the shapes opencode writes
(FORMATS.md, src/store/opencode): user messages with a typed text part
(some with the synthetic parts of an attached file), assistant messages
with step-start, reasoning, a completed tool call whose output is the bulk
of the bytes, a text reply and step-finish; a generated title; every tenth
session has a sub-agent session, every twentieth a compaction.

  python3 tools/gen-opencode-store.py /tmp/bench/opencode --sessions 10000 --turns 4

Point `--opencode` at DIR. Prints one summary line: sessions, rows, bytes.
"""
import argparse
import json
import os
import random
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "tests", "fixtures", "opencode", "schema-1.18.33.sql")
WORDS = ("cache index parser lexer token budget session store picker query search "
         "render layout column width height thread queue lock file path error retry").split()


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--sessions", type=int, default=10000)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--tool-bytes", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "opencode.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(open(SCHEMA).read())
    db.execute("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) "
               "VALUES ('global', '/', 1, 1, '[]')")
    sessions, messages, parts = [], [], []
    t0 = 1_764_000_000_000
    counter = [0]

    def next_id(prefix, at):
        counter[0] += 1
        return "%s_%011x%04d%s" % (prefix, at, counter[0] % 10000, "x" * 11)

    def add_conversation(sid, at, cwd, turns, compaction):
        for turn in range(turns):
            at += 60_000
            user = next_id("msg", at)
            messages.append((user, sid, at, at, json.dumps(
                {"role": "user", "time": {"created": at}, "agent": "build",
                 "model": {"providerID": "mock", "modelID": "mock-model"}, "summary": {"diffs": []}})))
            ps = []
            if turn == 0 and rng.random() < 0.2:
                ps.append({"type": "text", "synthetic": True,
                           "text": "Called the Read tool with the following input: {\"filePath\":\"%s/a.rs\"}" % cwd})
                ps.append({"type": "text", "synthetic": True, "text": "<content>\n" + words(rng, 60) + "\n</content>"})
            ps.append({"type": "text", "text": "Please %s the %s" % (words(rng, 2), words(rng, 12))})
            for i, p in enumerate(ps):
                parts.append(("prt_%s_%03d" % (user, i), user, sid, at + i, at + i, json.dumps(p)))
            reply = next_id("msg", at + 1000)
            messages.append((reply, sid, at + 1000, at + 5000, json.dumps(
                {"parentID": user, "role": "assistant", "mode": "build", "agent": "build",
                 "path": {"cwd": cwd, "root": "/"}, "cost": 0,
                 "tokens": {"total": 900, "input": 800, "output": 100, "reasoning": 0, "cache": {"write": 0, "read": 0}},
                 "modelID": "mock-model", "providerID": "mock",
                 "time": {"created": at + 1000, "completed": at + 5000}, "finish": "stop"})))
            output = words(rng, args.tool_bytes // 6)
            ps = [{"type": "step-start"},
                  {"type": "reasoning", "text": words(rng, 30), "time": {"start": at, "end": at + 1}},
                  {"type": "tool", "tool": "bash", "callID": "call_%d" % turn,
                   "state": {"status": "completed", "input": {"command": "cargo test", "description": "run"},
                             "output": output, "title": "run", "metadata": {}, "time": {"start": at, "end": at + 1}}},
                  {"type": "text", "text": "Done: " + words(rng, 40)},
                  {"type": "step-finish", "reason": "stop", "cost": 0}]
            for i, p in enumerate(ps):
                parts.append(("prt_%s_%03d" % (reply, i), reply, sid, at + 1000 + i, at + 1000 + i, json.dumps(p)))
            if compaction and turn == turns // 2:
                at += 10_000
                req = next_id("msg", at)
                messages.append((req, sid, at, at, json.dumps({"role": "user", "time": {"created": at}, "agent": "build"})))
                parts.append(("prt_%s_000" % req, req, sid, at, at, json.dumps({"type": "compaction", "auto": True})))
                summ = next_id("msg", at + 100)
                messages.append((summ, sid, at + 100, at + 200, json.dumps(
                    {"role": "assistant", "parentID": req, "mode": "compaction", "agent": "compaction",
                     "summary": True, "time": {"created": at + 100, "completed": at + 200}})))
                parts.append(("prt_%s_000" % summ, summ, sid, at + 100, at + 100,
                              json.dumps({"type": "text", "text": "<summary>" + words(rng, 50) + "</summary>"})))
        return at

    for n in range(args.sessions):
        created = t0 + n * 600_000
        sid = "ses_%011x%s" % (created, "%015d" % n)
        cwd = "/home/dev/project-%d" % (n % 40)
        end = add_conversation(sid, created, cwd, args.turns, n % 20 == 0)
        sessions.append((sid, None, cwd, "Fix the %s" % words(rng, 4), created, end))
        if n % 10 == 0:
            sub = "ses_%011x%s" % (created + 1, "s%014d" % n)
            send = add_conversation(sub, created + 1, cwd, 1, False)
            sessions.append((sub, sid, cwd, "explore (@general subagent)", created + 1, send))
        if len(parts) > 50_000:
            flush(db, sessions, messages, parts)
    flush(db, sessions, messages, parts)
    db.commit()
    rows = db.execute("SELECT (SELECT count(*) FROM session), (SELECT count(*) FROM message), "
                      "(SELECT count(*) FROM part)").fetchone()
    db.close()
    size = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
    print("opencode sessions=%d messages=%d parts=%d bytes=%d %s" % (rows + (size, args.dir)))


def flush(db, sessions, messages, parts):
    db.executemany(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES (?, 'global', ?, 'calm-harbor', ?, ?, '1.18.33', ?, ?)", sessions)
    db.executemany("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)", messages)
    db.executemany("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)", parts)
    sessions.clear()
    messages.clear()
    parts.clear()


if __name__ == "__main__":
    main()
