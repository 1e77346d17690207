"""The generators of tools/gen-stores.py for Antigravity CLI, Cursor CLI and
Cline CLI, each in the shapes its reader's module doc (and the per-kind store
suite's fixture, tests/it/store_suite.rs) describes:

  antigravity DIR/brain/<uuid>/.system_generated/logs/transcript_full.jsonl,
              DIR/annotations/<uuid>.pbtxt (titled ones), DIR/history.jsonl
                                          (agy 1.x; point --antigravity at DIR)
  cursor      DIR/projects/<cwd slug>/agent-transcripts/<uuid>/<uuid>.jsonl and
              DIR/chats/<md5 cwd>/<uuid>/{meta.json,store.db}
                                          (cursor-agent 2026.07; point --cursor at DIR)
  cline       DIR/data/sessions/<ms>_<5 base36>/{<id>.json,<id>.messages.json}
                                          (Cline CLI 3.0.65; point --cline at DIR)

Each writer takes (args, rng, texts, sizes, title_place) and returns the
bytes of conversation written; `--compact-every` is not used by these kinds.
"""
import hashlib
import json
import os
import sqlite3
import uuid

from gen_stores_more import _cwd, _turns


def _at(i, second):
    """An RFC 3339 UTC time for session `i`, `second` seconds in."""
    day = 1 + i % 28
    return f"2026-01-{day:02d}T{10 + second // 3600 % 12:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


def _write_lines(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    total = 0
    with open(path, "w", encoding="utf-8") as out:
        for line in lines:
            text = json.dumps(line, ensure_ascii=False) + "\n"
            out.write(text)
            total += len(text)
    return total


def write_antigravity(args, rng, texts, sizes, title_place):
    total = 0
    history = []
    os.makedirs(os.path.join(args.dir, "annotations"), exist_ok=True)
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        place = title_place(rng, args.title)
        steps = []

        def step(kind, source, **body):
            steps.append({"step_index": len(steps), "source": source, "type": kind, "status": "DONE",
                          "created_at": _at(i, len(steps)), **body})

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            if turn == 1:
                history.append({"display": prompt, "timestamp": 1_767_000_000_000 + i * 60_000,
                                "workspace": _cwd(i), "conversationId": sid})
            step("USER_INPUT", "USER_EXPLICIT", content=f"<USER_REQUEST>\n{prompt}\n</USER_REQUEST>\n"
                 f"<ADDITIONAL_METADATA>\nThe current local time is 2026-01-07T10:00:{turn % 60:02d}+01:00.\n"
                 "</ADDITIONAL_METADATA>")
            step("PLANNER_RESPONSE", "MODEL", content="", thinking=texts.say(),
                 tool_calls=[{"name": "view_file", "args": {"AbsolutePath": f"{_cwd(i)}/m{turn}.rs"}}])
            step("VIEW_FILE", "MODEL", content=blob)
            step("PLANNER_RESPONSE", "MODEL", content=texts.say())
            return len(prompt) + len(blob) + 700

        for _ in _turns(target, args.turns, size_of):
            pass
        logs = os.path.join(args.dir, "brain", sid, ".system_generated", "logs")
        total += _write_lines(os.path.join(logs, "transcript_full.jsonl"), steps)
        if place != "none":
            with open(os.path.join(args.dir, "annotations", f"{sid}.pbtxt"), "w", encoding="utf-8") as out:
                out.write(f"title: {json.dumps(f'Session {i}: ' + texts.say()[:50], ensure_ascii=True)}\n")
    _write_lines(os.path.join(args.dir, "history.jsonl"), history)
    return total


def _cursor_store_db(path, sid, name, created_ms):
    """A chat's store.db in the CLI's schema (WAL mode), its meta row `0`
    hex-encoded JSON, as the CLI leaves it after a checkpoint."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);"
                     "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);")
    root = hashlib.sha256(sid.encode()).hexdigest()
    db.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", (root, sid.encode()))
    meta = json.dumps({"agentId": sid, "latestRootBlobId": root, "name": name, "mode": "default",
                       "createdAt": created_ms, "lastUsedModel": "gpt-5"})
    db.execute("INSERT INTO meta (key, value) VALUES ('0', ?)", (meta.encode().hex(),))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def write_cursor(args, rng, texts, sizes, title_place):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        cwd = _cwd(i)
        place = title_place(rng, args.title)
        lines = []

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            lines.extend([
                {"role": "user", "message": {"content": [{"type": "text", "text":
                    f"<timestamp>Wednesday, Jan 7, 2026, 9:{turn % 60:02d} AM (UTC+1)</timestamp>\n"
                    f"<user_query>\n{prompt}\n</user_query>"}]}},
                {"role": "assistant", "message": {"content": [
                    {"type": "thinking", "thinking": texts.say()},
                    {"type": "tool_use", "id": f"t{turn}", "name": "Read", "input": {"path": f"m{turn}.rs"}}]}},
                {"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{turn}",
                                                          "content": [{"type": "text", "text": blob}]}]}},
                {"role": "assistant", "message": {"content": [{"type": "text", "text": texts.say()}]}},
                {"type": "turn_ended", "status": "success"},
            ])
            return len(prompt) + len(blob) + 500

        for _ in _turns(target, args.turns, size_of):
            pass
        project = cwd.lstrip("/").replace("/", "-")
        transcript = os.path.join(args.dir, "projects", project, "agent-transcripts", sid, f"{sid}.jsonl")
        total += _write_lines(transcript, lines)
        chat = os.path.join(args.dir, "chats", hashlib.md5(cwd.encode()).hexdigest(), sid)
        os.makedirs(chat, exist_ok=True)
        created = 1_767_000_000_000 + i * 60_000
        # A third of the titled chats carry the title in meta.json, the rest
        # only in store.db's name; untitled ones keep the placeholder.
        title = f"Session {i}: {texts.say()[:50]}" if place != "none" else ""
        in_meta = title if place == "early" else ""
        with open(os.path.join(chat, "meta.json"), "w", encoding="utf-8") as out:
            json.dump({"schemaVersion": 1, "createdAtMs": created, "updatedAtMs": created + 3_600_000,
                       "hasConversation": True, "title": in_meta, "cwd": cwd}, out, ensure_ascii=False)
        _cursor_store_db(os.path.join(chat, "store.db"), sid, title or "New Agent", created)
    return total


def _base36(n, width):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    for _ in range(width):
        n, d = divmod(n, 36)
        out = digits[d] + out
    return out


def write_cline(args, rng, texts, sizes, title_place):
    total = 0
    sessions = os.path.join(args.dir, "data", "sessions")
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        started = 1_796_187_340_952 + i * 60_000
        sid = f"{started}_{_base36(rng.getrandbits(26), 5)}"
        cwd = _cwd(i)
        place = title_place(rng, args.title)
        messages = []
        first = []

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            first.append(prompt)
            ts = started + turn * 1000
            messages.extend([
                {"id": f"u{turn}", "role": "user", "ts": ts,
                 "content": [{"type": "text", "text": f'<user_input mode="act">{prompt}</user_input>'}]},
                {"id": f"msg_{turn}a", "role": "assistant", "ts": ts + 1,
                 "modelInfo": {"id": "mock-model", "provider": "openai-compatible"},
                 "content": [{"type": "thinking", "thinking": texts.say()},
                             {"type": "tool_use", "id": f"call_{turn}", "name": "read_files",
                              "input": {"paths": [f"m{turn}.rs"]}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"call_{turn}",
                  "name": "read_files", "content": [{"query": f"m{turn}.rs", "result": blob, "success": True}]}]},
                {"id": f"msg_{turn}b", "role": "assistant", "ts": ts + 2,
                 "content": [{"type": "text", "text": texts.say()}]},
            ])
            return len(prompt) + len(blob) + 600

        for _ in _turns(target, args.turns, size_of):
            pass
        folder = os.path.join(sessions, sid)
        os.makedirs(folder, exist_ok=True)
        metadata = {"checkpoint": {"history": []}, "systemPrompt": f"Working Directory: {cwd}"}
        if place != "none":
            metadata["title"] = f"Session {i}: {first[0][:100]}"
        manifest = {"session_id": sid, "source": "cli", "pid": 4242, "started_at": _at(i, 0),
                    "ended_at": _at(i, 3000), "exit_code": 0, "status": "completed", "interactive": 1,
                    "provider": "openai-compatible", "model": "mock-model", "cwd": cwd,
                    "workspace_root": cwd, "team_name": None, "parent_session_id": None,
                    "parent_agent_id": None, "agent_id": None, "is_subagent": False,
                    "prompt": first[0], "metadata": metadata, "transcript_path": "", "hook_path": "",
                    "messages_path": os.path.join(folder, f"{sid}.messages.json"),
                    "updated_at": _at(i, 3000)}
        with open(os.path.join(folder, f"{sid}.json"), "w", encoding="utf-8") as out:
            json.dump(manifest, out, ensure_ascii=False, indent=2)
        body = {"version": 1, "updated_at": _at(i, 2999), "agent": "lead", "sessionId": sid,
                "origin": {"source": "cli", "mode": "user", "sessionId": sid, "version": "3.0.65"},
                "messages": messages, "system_prompt": "You are Cline, a highly skilled engineer"}
        text = json.dumps(body, ensure_ascii=False, indent=2)
        with open(os.path.join(folder, f"{sid}.messages.json"), "w", encoding="utf-8") as out:
            out.write(text)
        total += len(text)
    return total


WRITERS = {"antigravity": write_antigravity, "cursor": write_cursor, "cline": write_cline}
