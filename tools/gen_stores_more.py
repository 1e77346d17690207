"""The generators of tools/gen-stores.py for Goose, Continue CLI, Kimi CLI
and Mistral Vibe, each in the shapes its reader's module doc describes:

  goose    DIR/sessions/sessions.db (Goose's schema 9, tests/fixtures/goose/schema-9.sql)
                                          (point --goose at DIR)
  continue DIR/sessions/<uuid>.json and sessions.json  (point --continue at DIR)
  kimi     DIR/sessions/<md5 cwd>/<uuid>/{context,wire}.jsonl, state.json, kimi.json
                                          (point --kimi at DIR)
  vibe     DIR/<id>/{meta.json,CURRENT,generations/<g>/manifest.json,chunks/*.json}
                                          (point --vibe at DIR)

Each writer takes (args, rng, texts, sizes, title_place) and returns the
bytes of conversation written; `--compact-every` is not used by these kinds.
"""
import hashlib
import json
import os
import sqlite3
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
GOOSE_SCHEMA = os.path.join(HERE, "..", "tests", "fixtures", "goose", "schema-9.sql")


def _turns(target, turns, size_of):
    """Yield turn numbers until `target` bytes (or exactly `turns`) are written."""
    written = 0
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        written += size_of(turn)
        yield turn


def _cwd(i):
    return f"/home/dev/project-{i % 50}"


def write_goose(args, rng, texts, sizes, title_place):
    folder = os.path.join(args.dir, "sessions")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "sessions.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    with open(GOOSE_SCHEMA, encoding="utf-8") as schema:
        db.executescript(schema.read())
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = f"2026{1 + i // 9000 % 12:02d}{1 + i // 300 % 28:02d}_{i + 1}"
        place = title_place(rng, args.title)
        name = f"Session {i}: {texts.say()[:50]}" if place != "none" else "CLI Session"
        day = 1 + i % 28
        db.execute(
            "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, extension_data, "
            "created_at, updated_at) VALUES (?, ?, FALSE, 'user', ?, '{}', ?, ?)",
            (sid, name, _cwd(i), f"2026-01-{day:02d} 10:00:00", f"2026-01-{day:02d} 11:{i % 60:02d}:00"),
        )
        both = json.dumps({"userVisible": True, "agentVisible": True})
        rows = []

        def size_of(turn):
            blob = texts.blob(args.tool_scale)
            contents = [
                ("user", [{"type": "text", "text": texts.say()}]),
                ("assistant", [{"type": "thinking", "thinking": texts.say(), "signature": "s"},
                               {"type": "toolRequest", "id": f"t{turn}", "toolCall": {"status": "success",
                                "value": {"name": "developer__shell", "arguments": {"command": f"cat m{turn}.rs"}}}}]),
                ("user", [{"type": "toolResponse", "id": f"t{turn}", "toolResult": {"status": "success",
                           "value": [{"type": "text", "text": blob}]}}]),
                ("assistant", [{"type": "text", "text": texts.say()}]),
            ]
            n = 0
            for role, content in contents:
                text = json.dumps(content, ensure_ascii=False)
                rows.append((f"msg_{sid}_{len(rows)}", sid, role, text, 1_767_000_000 + i * 100 + turn, both))
                n += len(text)
            return n

        for _ in _turns(target, args.turns, size_of):
            pass
        db.executemany(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        total += sum(len(r[3]) for r in rows)
    db.commit()
    db.close()
    return total


def write_continue(args, rng, texts, sizes, title_place):
    folder = os.path.join(args.dir, "sessions")
    os.makedirs(folder, exist_ok=True)
    index = []
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        place = title_place(rng, args.title)
        title = f"Session {i}: {texts.say()[:50]}" if place != "none" else "Untitled Session"
        history = []

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            history.extend([
                {"message": {"role": "user", "content": prompt}, "contextItems": [], "editorState": prompt},
                {"message": {"role": "assistant", "content": "", "toolCalls": [{"id": f"c{turn}", "type": "function",
                  "function": {"name": "Read", "arguments": json.dumps({"filepath": f"m{turn}.rs"})}}]},
                 "contextItems": [], "toolCallStates": [{"toolCallId": f"c{turn}", "status": "done",
                  "parsedArgs": {"filepath": f"m{turn}.rs"}, "output": [{"name": "Read", "content": blob}]}]},
                {"message": {"role": "assistant", "content": texts.say()}, "contextItems": []},
            ])
            return len(prompt) + len(blob) + 200

        for _ in _turns(target, args.turns, size_of):
            pass
        session = {"sessionId": sid, "title": title, "workspaceDirectory": _cwd(i), "history": history,
                   "usage": {"totalCost": 0, "promptTokens": 0, "completionTokens": 0}}
        text = json.dumps(session, ensure_ascii=False, indent=2)
        with open(os.path.join(folder, f"{sid}.json"), "w", encoding="utf-8") as out:
            out.write(text)
        total += len(text)
        index.append({"sessionId": sid, "title": title, "dateCreated": str(1_767_000_000_000 + i * 60_000),
                      "workspaceDirectory": _cwd(i), "messageCount": len(history)})
    with open(os.path.join(folder, "sessions.json"), "w", encoding="utf-8") as out:
        json.dump(index, out)
    return total


def write_kimi(args, rng, texts, sizes, title_place):
    work_dirs = {}
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        cwd = _cwd(i)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = os.path.join(args.dir, "sessions", hashlib.md5(cwd.encode()).hexdigest(), sid)
        os.makedirs(folder, exist_ok=True)
        work_dirs[cwd] = sid
        place = title_place(rng, args.title)
        lines = [{"role": "_system_prompt", "content": "You are Kimi Code CLI. " + texts.say()}]
        wire = [{"type": "metadata", "protocol_version": "1.10"}]

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            wire.append({"timestamp": 1_767_000_000.0 + i * 60 + turn,
                         "message": {"type": "TurnBegin", "payload": {"user_input": prompt}}})
            lines.extend([
                {"role": "_checkpoint", "id": turn - 1},
                {"role": "user", "content": prompt},
                {"role": "_usage", "token_count": 1000 * turn},
                {"role": "assistant", "content": [{"type": "think", "think": texts.say()}],
                 "tool_calls": [{"type": "function", "id": f"ReadFile:{turn}",
                                 "function": {"name": "ReadFile", "arguments": json.dumps({"path": f"m{turn}.rs"})}}]},
                {"role": "tool", "content": [{"type": "text", "text": "<system>File read.</system>"},
                                             {"type": "text", "text": blob}], "tool_call_id": f"ReadFile:{turn}"},
                {"role": "assistant", "content": [{"type": "text", "text": texts.say()}]},
            ])
            return len(prompt) + len(blob) + 300

        for _ in _turns(target, args.turns, size_of):
            pass
        with open(os.path.join(folder, "context.jsonl"), "w", encoding="utf-8") as out:
            for line in lines:
                text = json.dumps(line, ensure_ascii=False) + "\n"
                out.write(text)
                total += len(text)
        with open(os.path.join(folder, "wire.jsonl"), "w", encoding="utf-8") as out:
            out.writelines(json.dumps(w, ensure_ascii=False) + "\n" for w in wire)
        title = f"Session {i}: {texts.say()[:40]}…" if place != "none" else None
        with open(os.path.join(folder, "state.json"), "w", encoding="utf-8") as out:
            json.dump({"version": 1, "custom_title": title, "title_generated": False, "archived": False,
                       "plan_mode": False, "todos": []}, out)
    with open(os.path.join(args.dir, "kimi.json"), "w", encoding="utf-8") as out:
        json.dump({"work_dirs": [{"path": p, "kaos": "local", "last_session_id": s} for p, s in work_dirs.items()]}, out)
    return total


def write_vibe(args, rng, texts, sizes, title_place):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        folder = os.path.join(args.dir, sid)
        os.makedirs(os.path.join(folder, "chunks"), exist_ok=True)
        place = title_place(rng, args.title)
        history = []

        def size_of(turn):
            prompt = texts.say()
            blob = texts.blob(args.tool_scale)
            history.extend([
                {"id": f"user-turn-{turn:x}-1", "type": "message", "role": "user", "source": "turn_start",
                 "turnId": f"turn-{turn:x}", "content": [{"type": "text", "text": prompt}],
                 "createdAt": 1_767_000_000_000 + turn},
                {"id": f"reasoning-{turn}", "type": "reasoning", "content": [{"type": "text", "text": texts.say()}]},
                {"id": f"effect-{turn}", "type": "effect", "detail": {"kind": "tool", "toolName": "file_system.read_file",
                 "input": {"path": f"m{turn}.rs"}}, "state": {"status": "done", "output": {"content": blob}}},
                {"id": f"assistant-{turn}", "type": "message", "role": "assistant", "source": "harness",
                 "inputEntryId": f"user-turn-{turn:x}-1", "content": [{"type": "text", "text": texts.say()}]},
            ])
            return len(prompt) + len(blob) + 400

        for _ in _turns(target, args.turns, size_of):
            pass
        digests = []
        for start in range(0, len(history), 8):
            text = json.dumps(history[start:start + 8], ensure_ascii=False)
            digest = hashlib.sha256(text.encode()).hexdigest()
            with open(os.path.join(folder, "chunks", f"{digest}.json"), "w", encoding="utf-8") as out:
                out.write(text)
            digests.append(digest)
            total += len(text)
        generation = "0000000000000001"
        gen_dir = os.path.join(folder, "generations", generation)
        os.makedirs(gen_dir, exist_ok=True)
        with open(os.path.join(gen_dir, "manifest.json"), "w", encoding="utf-8") as out:
            json.dump({"checkpoint": {"chunks": []}, "projection_state": {"chunks": digests},
                       "runtime_state": {"chunks": []}}, out)
        title = f"Session {i}: {texts.say()[:50]}" if place != "none" else None
        with open(os.path.join(folder, "meta.json"), "w", encoding="utf-8") as out:
            json.dump({"session_id": sid, "parent_session_id": None,
                       "start_time": f"2026-01-{1 + i % 28:02d}T10:00:00+00:00",
                       "end_time": f"2026-01-{1 + i % 28:02d}T11:00:00+00:00",
                       "environment": {"working_directory": _cwd(i)}, "origin_directory": _cwd(i),
                       "title": title, "title_source": "manual" if title else "auto", "child_sessions": []}, out)
        with open(os.path.join(folder, "CURRENT"), "w", encoding="utf-8") as out:
            json.dump({"generation": generation, "snapshot_sequence": 1,
                       "store_format": "mistral.vibe.unified-session-store/v1", "store_format_minor": 9}, out)
    return total


WRITERS = {"goose": write_goose, "continue": write_continue, "kimi": write_kimi, "vibe": write_vibe}
