#!/usr/bin/env python3
"""Write synthetic session stores for benchmarks (deterministic for a seed).

One store kind per run, in the current on-disk shapes (FORMATS.md):

  native  DIR/<id>.jsonl                       (point --store at DIR)
  claude  DIR/projects/<cwd slug>/<uuid>.jsonl (point CLAUDE_CONFIG_DIR at DIR)
  codex   DIR/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl
                                               (point CODEX_HOME at DIR)
  gemini  DIR/tmp/<slug>/chats/session-<minute>-<id8>.jsonl (.json with --legacy), with
          DIR/tmp/<slug>/.project_root          (point --gemini at DIR)
  pi      DIR/sessions/--<cwd>--/<time>_<uuid>.jsonl (pi 0.73.1; point --pi at DIR/sessions)
  qwen    DIR/projects/<cwd slug>/chats/<uuid>.jsonl (Qwen Code 0.24.4; point --qwen at DIR/projects)
  copilot DIR/session-state/<uuid>/events.jsonl and workspace.yaml
                                               (point --copilot at DIR/session-state)
  kilo    DIR/kilo.db (Kilo Code CLI 7.7.7's tables, tests/fixtures/kilo/schema-7.7.7.sql;
          point --kilo at DIR)
  droid   DIR/sessions/<cwd slug>/<uuid>.jsonl (droid 0.225.2; point --droid at DIR/sessions)
  crush   DIR/projects.json naming 50 projects, each DIR/project-N/.crush/crush.db made by
          Crush's migrations (tests/fixtures/crush/; point --crush at DIR)
  aider   DIR/project-<k>/.aider.chat.history.md, 50 git projects, each file
          the sessions of one project appended (aider 0.86.2; point one
          --aider at each DIR/project-<k>, or name them as sessions' cwds)
  amp     DIR/threads/T-<uuid>.json          (Amp's local thread copies;
                                               point --amp at DIR/threads)
  goose, continue, kimi, vibe                  (tools/gen_stores_more.py says where)

Knobs: how many sessions, their mean size and its distribution, where the
title sits (early: after the first turn; late: the last line; none; mixed:
a third of each), how often the log is compacted, how large tool output is.
Every session is a real-looking conversation: user prompts, streamed and
complete assistant replies with reasoning and tool calls, tool results
(the bulk of the bytes, as in real logs), titles and compactions.

Examples (from the repository root):

  python3 tools/gen-stores.py native /tmp/bench/native --sessions 10000 --size 210k --title early
  python3 tools/gen-stores.py native /tmp/bench/big --sessions 3 --size 300M --title late
  python3 tools/gen-stores.py claude /tmp/bench/claude --sessions 10000 --size 250k --dist skewed
  python3 tools/gen-stores.py codex /tmp/bench/codex --sessions 10000 --size 120k
  python3 tools/gen-stores.py gemini /tmp/bench/gemini --sessions 10000 --size 120k
  python3 tools/gen-stores.py pi /tmp/bench/pi --sessions 10000 --size 120k
  python3 tools/gen-stores.py qwen /tmp/bench/qwen --sessions 10000 --size 120k
  python3 tools/gen-stores.py copilot /tmp/bench/copilot --sessions 10000 --size 120k --title mixed
  python3 tools/gen-stores.py kilo /tmp/bench/kilo --sessions 10000 --size 120k --title mixed
  python3 tools/gen-stores.py droid /tmp/bench/droid --sessions 10000 --size 120k
  python3 tools/gen-stores.py crush /tmp/bench/crush --sessions 10000 --size 120k --title mixed
  python3 tools/gen-stores.py aider /tmp/bench/aider --sessions 10000 --size 20k
  python3 tools/gen-stores.py amp /tmp/bench/amp --sessions 10000 --size 120k
  python3 tools/gen-stores.py goose /tmp/bench/goose --sessions 10000 --size 120k --title mixed

Prints one summary line: kind, sessions, total bytes, directory.
"""
import argparse
import hashlib
import json
import os
import random
import sqlite3
import sys
import uuid

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
import gen_stores_more

WORDS = (
    "the cache index reads titles from the head of each log while the picker "
    "ranks candidates and the preview folds a long session into a budget of "
    "bytes so that a reference stays small enough to inject into a prompt "
    "retention drops the oldest messages first keeps checkpoints and the newest "
    "message then truncates the longest text around an exact notice été über "
    "naïve façade 東京 😀 <tag> & \"quoted\" back\\slash tab\there"
).split(" ")

MARKER = "@hydraharness/harness-compaction"


def parse_size(text):
    """`210k`, `300M`, `1G` or a plain byte count."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower()
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def q(text):
    """A JSON string literal, non-ASCII kept as UTF-8 (as the agents write it)."""
    return json.dumps(text, ensure_ascii=False)


class Texts:
    """Pre-built random texts, so writing gigabytes stays fast."""

    def __init__(self, rng):
        self.rng = rng
        self.prose = [self._prose(rng.randint(40, 600)) for _ in range(200)]
        self.blobs = [self._blob(rng.randint(2_000, 12_000)) for _ in range(60)]

    def _prose(self, n):
        return " ".join(self.rng.choice(WORDS) for _ in range(n // 6 + 1))[:n]

    def _blob(self, n):
        # Tool output: code and logs, newlines and quotes included.
        lines = []
        size = 0
        while size < n:
            line = f"{self.rng.randint(1, 9999):5d}  " + " ".join(
                self.rng.choice(WORDS) for _ in range(self.rng.randint(3, 14))
            )
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)

    def say(self):
        return self.rng.choice(self.prose)

    def blob(self, scale=1.0):
        text = self.rng.choice(self.blobs)
        if scale > 1.0:
            text = text * int(scale)
        return text


def sizes(rng, count, mean, dist):
    """Per-session byte targets whose sum is about count * mean."""
    if dist == "fixed":
        return [mean] * count
    # Skewed: most logs small, a few very large (lognormal), as real stores are.
    raw = [rng.lognormvariate(0, 1.4) for _ in range(count)]
    factor = mean * count / sum(raw)
    return [max(2_000, int(r * factor)) for r in raw]


def title_place(rng, mode):
    if mode == "mixed":
        return rng.choice(["early", "late", "none"])
    return mode


def timestamp(i, minute):
    day = 1 + (i // 1440) % 28
    hour = (i // 60) % 24
    return f"2026-01-{day:02d}T{hour:02d}:{i % 60:02d}:{minute % 60:02d}.{i % 1000:03d}Z"


# --- native ---------------------------------------------------------------


def native_session(out, i, target, place, compact_every, tool_scale, texts, turns=None):
    sid = f"bench-{i:06d}"
    out.write(
        f'{{"type":"session","version":1,"id":{q(sid)},"createdAt":"{timestamp(i, 0)}","cwd":"/home/dev/p{i % 37}"}}\n'
    )
    seq = 0
    written = 0
    turn = 0

    def line(kind, data):
        nonlocal seq, written
        seq += 1
        text = f'{{"seq":{seq},"type":"{kind}","data":{data}}}\n'
        out.write(text)
        written += len(text)

    def title():
        line("session/title", f'{{"title":{q(f"Session {i}: " + texts.say()[:50])}}}')

    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        line(
            "user/message",
            f'{{"id":"u{turn}","source":{{"kind":"user"}},"content":[{{"type":"text","text":{q(texts.say())}}}]}}',
        )
        reply = texts.say()
        half = len(reply) // 2
        line("assistant/chunk", f'{{"messageId":"a{turn}","delta":{q(reply[:half])}}}')
        line("assistant/chunk", f'{{"messageId":"a{turn}","delta":{q(reply[half:])}}}')
        line(
            "assistant/message",
            f'{{"message":{{"id":"a{turn}","content":[{{"type":"reasoning","text":{q(texts.say())}}},'
            f'{{"type":"text","text":{q(reply)}}},{{"type":"tool-call","id":"c{turn}","name":"read","input":{{"path":"src/m{turn}.rs"}}}}]}}}}',
        )
        line(
            "tool/result",
            f'{{"toolCallId":"c{turn}","content":[{{"type":"text","text":{q(texts.blob(tool_scale))}}}]}}',
        )
        if turn == 1 and place == "early":
            title()
        if compact_every and turn % compact_every == 0:
            through = seq
            line("session/compact", f'{{"throughSeq":{through}}}')
            line(
                "user/message",
                f'{{"id":"k{turn}","source":{{"kind":"compaction","marker":"{MARKER}"}},"content":[{{"type":"text","text":{q("Summary: " + texts.say())}}}]}}',
            )
    if place == "late":
        title()
    return written


def write_native(args, rng, texts):
    os.makedirs(args.dir, exist_ok=True)
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        path = os.path.join(args.dir, f"s{i:06d}.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            total += native_session(
                out, i, target, title_place(rng, args.title), args.compact_every, args.tool_scale, texts, args.turns
            )
    return total


# --- Claude Code ----------------------------------------------------------


def claude_session(out, i, sid, cwd, target, place, compact_every, tool_scale, texts, turns=None):
    written = 0
    parent = "null"
    n = 0

    def emit(text):
        nonlocal written
        out.write(text)
        written += len(text)

    def common(kind, uid):
        nonlocal parent
        text = (
            f'"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":{q(cwd)},'
            f'"sessionId":"{sid}","version":"2.1.328","gitBranch":"main","type":"{kind}","uuid":"{uid}",'
            f'"timestamp":"{timestamp(i, n)}"'
        )
        parent = f'"{uid}"'
        return text

    def title():
        emit(f'{{"type":"custom-title","customTitle":{q(f"Session {i}: " + texts.say()[:50])},"sessionId":"{sid}"}}\n')

    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        emit(
            f'{{"type":"file-history-snapshot","messageId":"u{turn}","snapshot":{{"messageId":"u{turn}","trackedFileBackups":{{}},'
            f'"timestamp":"{timestamp(i, n)}"}},"isSnapshotUpdate":false}}\n'
        )
        emit(f'{{{common("user", f"{sid[:8]}-u{turn}")},"message":{{"role":"user","content":{q(texts.say())}}}}}\n')
        mid = f"msg_{i}_{turn}"
        for block in (
            f'{{"type":"thinking","thinking":{q(texts.say())},"signature":"sig"}}',
            f'{{"type":"text","text":{q(texts.say())}}}',
            f'{{"type":"tool_use","id":"toolu_{turn}","name":"Read","input":{{"file_path":"/src/m{turn}.rs"}}}}',
        ):
            emit(
                f'{{{common("assistant", f"{sid[:8]}-a{turn}-{len(block)}")},"message":{{"model":"claude-sonnet-4-5","id":"{mid}",'
                f'"type":"message","role":"assistant","content":[{block}],"stop_reason":null,"usage":{{"input_tokens":10,"output_tokens":5}}}}}}\n'
            )
        emit(
            f'{{{common("user", f"{sid[:8]}-r{turn}")},"message":{{"role":"user","content":[{{"tool_use_id":"toolu_{turn}","type":"tool_result",'
            f'"content":{q(texts.blob(tool_scale))}}}]}},"toolUseResult":{{"type":"text"}}}}\n'
        )
        emit(
            f'{{"parentUuid":{parent},"isSidechain":false,"type":"system","subtype":"turn_duration","durationMs":1234,'
            f'"sessionId":"{sid}","uuid":"{sid[:8]}-d{turn}","timestamp":"{timestamp(i, n)}"}}\n'
        )
        if turn == 1 and place == "early":
            title()
        if compact_every and turn % compact_every == 0:
            emit(
                f'{{"parentUuid":null,"logicalParentUuid":{parent},"isSidechain":false,"type":"system","subtype":"compact_boundary",'
                f'"content":"Conversation compacted","compactMetadata":{{"trigger":"auto","preTokens":100000}},'
                f'"sessionId":"{sid}","uuid":"{sid[:8]}-b{turn}","timestamp":"{timestamp(i, n)}"}}\n'
            )
            parent = f'"{sid[:8]}-b{turn}"'
            emit(
                f'{{{common("user", f"{sid[:8]}-k{turn}")},"isCompactSummary":true,"isVisibleInTranscriptOnly":true,'
                f'"message":{{"role":"user","content":{q("This session is being continued. Summary: " + texts.say())}}}}}\n'
            )
    if place == "late":
        title()
    return written


def write_claude(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        cwd = f"/home/dev/project-{i % 50}"
        folder = os.path.join(args.dir, "projects", cwd.replace("/", "-"))
        os.makedirs(folder, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        with open(os.path.join(folder, f"{sid}.jsonl"), "w", encoding="utf-8") as out:
            total += claude_session(
                out, i, sid, cwd, target, title_place(rng, args.title), args.compact_every, args.tool_scale, texts, args.turns
            )
    return total


# --- Codex ----------------------------------------------------------------


def codex_session(out, i, sid, target, place, compact_every, tool_scale, texts, turns=None):
    written = 0
    ordinal = 0
    n = 0

    def emit(kind, payload):
        nonlocal written, ordinal
        ordinal += 1
        text = f'{{"timestamp":"{timestamp(i, n)}","ordinal":{ordinal},"type":"{kind}","payload":{payload}}}\n'
        out.write(text)
        written += len(text)

    cwd = f"/home/dev/project-{i % 50}"
    emit(
        "session_meta",
        f'{{"id":"{sid}","timestamp":"{timestamp(i, 0)}","cwd":{q(cwd)},"originator":"codex_cli_rs","cli_version":"0.169.0",'
        f'"source":"cli","model_provider":"openai","base_instructions":{{"text":{q(texts.blob())}}}}}',
    )
    emit("turn_context", f'{{"cwd":{q(cwd)},"model":"gpt-5-codex","approval_policy":"on-request"}}')

    def title():
        emit("event_msg", f'{{"type":"thread_name_updated","thread_id":"{sid}","thread_name":{q(f"Session {i}: " + texts.say()[:50])}}}')

    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        prompt = texts.say()
        emit("response_item", f'{{"type":"message","role":"user","content":[{{"type":"input_text","text":{q(prompt)}}}]}}')
        emit("event_msg", f'{{"type":"user_message","message":{q(prompt)},"images":[]}}')
        emit("response_item", f'{{"type":"reasoning","summary":[{{"type":"summary_text","text":{q(texts.say())}}}],"encrypted_content":"gAAAA"}}')
        emit("response_item", f'{{"type":"function_call","name":"shell","arguments":{q(json.dumps({"command": ["cat", f"m{turn}.rs"]}))},"call_id":"call_{turn}"}}')
        emit("response_item", f'{{"type":"function_call_output","call_id":"call_{turn}","output":{q(texts.blob(tool_scale))}}}')
        reply = texts.say()
        emit("response_item", f'{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":{q(reply)}}}]}}')
        emit("event_msg", f'{{"type":"agent_message","message":{q(reply)}}}')
        emit("event_msg", f'{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{turn * 1000},"output_tokens":{turn * 100}}}}}}}')
        if turn == 1 and place == "early":
            title()
        if compact_every and turn % compact_every == 0:
            emit("compacted", f'{{"message":{q("Summary: " + texts.say())}}}')
            emit("event_msg", '{"type":"context_compacted"}')
    if place == "late":
        title()
    return written


def write_codex(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        day = 1 + (i // 1440) % 28
        folder = os.path.join(args.dir, "sessions", "2026", "01", f"{day:02d}")
        os.makedirs(folder, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        stamp = timestamp(i, 0)[:19].replace(":", "-")
        with open(os.path.join(folder, f"rollout-{stamp}-{sid}.jsonl"), "w", encoding="utf-8") as out:
            total += codex_session(
                out, i, sid, target, title_place(rng, args.title), args.compact_every, args.tool_scale, texts, args.turns
            )
    return total


# --- Gemini CLI -----------------------------------------------------------
# The 0.61 chat log (chatRecordingService.ts): a metadata line, then records
# replayed in order: messages upserted by id (a `gemini` message written
# again once its tool calls are attached), `$set` of lastUpdated after each,
# and `$set` of the summary Gemini CLI writes as the chat's title.


def gemini_session(out, i, sid, project_hash, target, place, tool_scale, texts, turns=None):
    written = 0
    n = 0

    def emit(record):
        nonlocal written
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        out.write(text)
        written += len(text.encode("utf-8"))

    def touch():
        emit({"$set": {"lastUpdated": timestamp(i, n)}})

    def title():
        emit({"$set": {"summary": f"Session {i}: " + texts.say()[:50]}})

    emit({"sessionId": sid, "projectHash": project_hash, "startTime": timestamp(i, 0), "lastUpdated": timestamp(i, 0), "kind": "main"})
    tokens = {"input": 140, "output": 12, "cached": 0, "thoughts": 0, "tool": 0, "total": 152}
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        emit({"id": f"u{turn}", "timestamp": timestamp(i, n), "type": "user", "content": [{"text": texts.say()}]})
        touch()
        thought = [{"subject": "Planning", "description": texts.say(), "timestamp": timestamp(i, n)}]
        call = f"read_file__read_file_{i}_{turn}"
        reply = {"id": f"g{turn}", "timestamp": timestamp(i, n), "type": "gemini", "content": "", "thoughts": thought, "tokens": tokens, "model": "gemini-3.8-flash"}
        emit(reply)
        output = texts.blob(tool_scale)
        response = [{"functionResponse": {"id": call, "name": "read_file", "response": {"output": output}}}]
        emit({**reply, "toolCalls": [{"id": call, "name": "read_file", "args": {"file_path": f"m{turn}.rs"}, "result": response, "status": "success", "timestamp": timestamp(i, n)}]})
        emit({"id": f"r{turn}", "timestamp": timestamp(i, n), "type": "user", "content": response})
        touch()
        emit({"id": f"a{turn}", "timestamp": timestamp(i, n), "type": "gemini", "content": texts.say(), "thoughts": [], "tokens": tokens, "model": "gemini-3.8-flash"})
        touch()
        if turn == 1 and place == "early":
            title()
    if place == "late":
        title()
    return written


def write_gemini(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        slug = f"project-{i % 50}"
        root = f"/home/dev/{slug}"
        folder = os.path.join(args.dir, "tmp", slug)
        chats = os.path.join(folder, "chats")
        if not os.path.isdir(chats):
            os.makedirs(chats)
            with open(os.path.join(folder, ".project_root"), "w", encoding="utf-8") as out:
                out.write(root)
        project_hash = hashlib.sha256(root.encode()).hexdigest()
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        minute = timestamp(i, 0)[:16].replace(":", "-")
        path = os.path.join(chats, f"session-{minute}-{sid[:8]}.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            total += gemini_session(out, i, sid, project_hash, target, title_place(rng, args.title), args.tool_scale, texts, args.turns)
        if args.legacy:
            to_legacy(path)
    return total


def to_legacy(path):
    """Rewrite a chat log as the one JSON object Gemini CLI wrote before its
    `.jsonl` logs (`session-….json`): the metadata, `$set` keys applied,
    and the messages in order, each as last written."""
    with open(path, encoding="utf-8") as log:
        records = [json.loads(line) for line in log]
    chat, messages = records[0], {}
    for record in records[1:]:
        if "$set" in record:
            chat.update({k: v for k, v in record["$set"].items() if k != "messages"})
        else:
            messages[record["id"]] = record
    chat["messages"] = list(messages.values())
    with open(path[: -len("l")], "w", encoding="utf-8") as out:
        json.dump(chat, out, ensure_ascii=False)
    os.remove(path)

# --- GitHub Copilot CLI ---------------------------------------------------
# One folder per session (Copilot CLI 1.0.102): events.jsonl, one event per
# line with `type` first, and workspace.yaml holding the name. Titles:
# early = a name the user gave (`user_named: true`), late = the name Copilot
# derives from the first prompt, none = no name at all. The system prompt is
# written on each run, as Copilot does (about 20 KB).

SYSTEM_PROMPT = "You are the GitHub Copilot CLI, a terminal assistant. " * 360


def copilot_session(out, i, sid, target, place, compact_every, tool_scale, texts, turns=None):
    written = 0
    n = 0
    parent = None

    def emit(kind, data, agent=None):
        nonlocal written, n, parent
        n += 1
        event = {"type": kind, "data": data, "id": f"{sid[:8]}-{n:08d}", "timestamp": timestamp(i, n), "parentId": parent}
        if agent:
            event["agentId"] = agent
        parent = event["id"]
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
        out.write(text)
        written += len(text.encode("utf-8"))

    cwd = f"/home/dev/p{i % 37}"
    emit("session.start", {"sessionId": sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102", "startTime": timestamp(i, 0), "selectedModel": "gpt-5.1", "context": {"cwd": cwd}, "alreadyInUse": False})
    first = None
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        prompt = texts.say()
        first = first or prompt
        emit("user.message", {"content": prompt, "transformedContent": f"<current_datetime>{timestamp(i, n)}</current_datetime>\n\n{prompt}", "messageId": f"m{turn}", "delivery": "idle", "interactionId": f"x{turn}", "turnId": "0"})
        if turn == 1:
            emit("system.message", {"role": "system", "content": SYSTEM_PROMPT})
        emit("assistant.turn_start", {"turnId": "0", "interactionId": f"x{turn}"})
        call = f"call_{i}_{turn}"
        emit("assistant.message", {"messageId": f"a{turn}", "model": "gpt-5.1", "content": "", "toolRequests": [{"toolCallId": call, "name": "view", "arguments": {"path": f"src/m{turn}.rs"}, "type": "function"}], "reasoningText": texts.say(), "interactionId": f"x{turn}", "turnId": "0", "apiCallId": f"c{turn}a"})
        emit("tool.execution_start", {"toolCallId": call, "toolName": "view", "arguments": {"path": f"src/m{turn}.rs"}, "turnId": "0"})
        emit("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": texts.blob(tool_scale)}, "turnId": "0"})
        emit("assistant.message", {"messageId": f"b{turn}", "model": "gpt-5.1", "content": texts.say(), "toolRequests": [], "interactionId": f"x{turn}", "turnId": "1", "apiCallId": f"c{turn}b"})
        emit("assistant.turn_end", {"turnId": "1"})
        if compact_every and turn % compact_every == 0:
            emit("session.compaction_start", {"compactionAttemptId": f"k{turn}", "trigger": "auto"})
            emit("session.compaction_complete", {"success": True, "outcome": "applied", "compactionAttemptId": f"k{turn}", "summaryContent": "<summary>" + texts.say() + "</summary>", "checkpointNumber": turn // compact_every})
    emit("session.shutdown", {"accountingSnapshot": {"totalUserRequests": turn}})
    return written, first, cwd


def yaml_quote(text):
    """A single-quoted YAML scalar, as js-yaml writes names with special characters."""
    return "'" + text.replace("'", "''") + "'"


def write_copilot(args, rng, texts):
    total = 0
    state = os.path.join(args.dir, "session-state")
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = os.path.join(state, sid)
        os.makedirs(folder)
        place = title_place(rng, args.title)
        with open(os.path.join(folder, "events.jsonl"), "w", encoding="utf-8") as out:
            written, first, cwd = copilot_session(out, i, sid, target, place, args.compact_every, args.tool_scale, texts, args.turns)
        total += written
        name = {"early": f"Session {i}: " + texts.say()[:50], "late": first, "none": None}[place]
        lines = [f"id: {sid}", f"cwd: {cwd}", "client_name: github/cli"]
        if name is not None:
            lines.append(f"name: {yaml_quote(name.splitlines()[0])}")
        lines += [f"user_named: {'true' if place == 'early' else 'false'}", "summary_count: 0", "fork_count: 0", f"created_at: {timestamp(i, 0)}", f"updated_at: {timestamp(i, 1)}"]
        with open(os.path.join(folder, "workspace.yaml"), "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    return total



# --- pi -------------------------------------------------------------------
# pi 0.73.1 (session-manager.ts): a `session` header, then entries linked by
# id/parentId: model and thinking-level changes, user/assistant/toolResult
# messages (assistant: thinking, text and toolCall blocks), a `session_info`
# name, `compaction` entries.


def pi_session(out, i, sid, cwd, target, place, compact_every, tool_scale, texts, turns=None):
    written = 0
    n = 0
    parent = "null"
    count = 0

    def emit(kind, body):
        nonlocal written, parent, count
        count += 1
        eid = f"{(i * 7919 + count) & 0xFFFFFFFF:08x}"
        text = f'{{"type":"{kind}","id":"{eid}","parentId":{parent},"timestamp":"{timestamp(i, n)}"{body}}}\n'
        parent = f'"{eid}"'
        out.write(text)
        written += len(text)
        return eid

    header = f'{{"type":"session","version":3,"id":"{sid}","timestamp":"{timestamp(i, 0)}","cwd":{q(cwd)}}}\n'
    out.write(header)
    written += len(header)
    emit("model_change", ',"provider":"anthropic","modelId":"claude-sonnet-4-5"')
    emit("thinking_level_change", ',"thinkingLevel":"medium"')
    ms = 1_767_225_600_000 + i * 60_000

    def title():
        emit("session_info", f',"name":{q(f"Session {i}: " + texts.say()[:50])}')

    turn = 0
    first_kept = None
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        ms += 1000
        uid = emit("message", f',"message":{{"role":"user","content":[{{"type":"text","text":{q(texts.say())}}}],"timestamp":{ms}}}')
        first_kept = first_kept or uid
        usage = '"usage":{"input":1000,"output":100,"cacheRead":0,"cacheWrite":0,"totalTokens":1100,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}'
        emit(
            "message",
            f',"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":{q(texts.say())},"thinkingSignature":"sig"}},'
            f'{{"type":"toolCall","id":"call_{turn}","name":"read","arguments":{{"path":"src/m{turn}.rs"}}}}],'
            f'"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",{usage},"stopReason":"toolUse","timestamp":{ms + 200}}}',
        )
        emit(
            "message",
            f',"message":{{"role":"toolResult","toolCallId":"call_{turn}","toolName":"read","content":[{{"type":"text","text":{q(texts.blob(tool_scale))}}}],'
            f'"isError":false,"timestamp":{ms + 300}}}',
        )
        emit(
            "message",
            f',"message":{{"role":"assistant","content":[{{"type":"text","text":{q(texts.say())}}}],'
            f'"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",{usage},"stopReason":"stop","timestamp":{ms + 900}}}',
        )
        if turn == 1 and place == "early":
            title()
        if compact_every and turn % compact_every == 0:
            emit("compaction", f',"summary":{q("Summary: " + texts.say())},"firstKeptEntryId":"{first_kept}","tokensBefore":100000')
            first_kept = None
    if place == "late":
        title()
    return written


def write_pi(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        cwd = f"/home/dev/project-{i % 50}"
        folder = os.path.join(args.dir, "sessions", "--" + cwd.strip("/").replace("/", "-") + "--")
        os.makedirs(folder, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        stamp = timestamp(i, 0).replace(":", "-").replace(".", "-")
        with open(os.path.join(folder, f"{stamp}_{sid}.jsonl"), "w", encoding="utf-8") as out:
            total += pi_session(
                out, i, sid, cwd, target, title_place(rng, args.title), args.compact_every, args.tool_scale, texts, args.turns
            )
    return total


# --- Qwen Code --------------------------------------------------------------
# Qwen Code 0.24.4 (chatRecordingService): Claude-shaped records with
# Gemini-style parts: real_user prompts, assistant parts (thought, text,
# functionCall), tool_result records, system ui_telemetry and
# attribution_snapshot records, `custom_title`, `chat_compression`.


def qwen_session(out, i, sid, cwd, target, place, compact_every, tool_scale, texts, turns=None):
    written = 0
    n = 0
    parent = "null"
    count = 0

    def emit(kind, body):
        nonlocal written, parent, count
        count += 1
        uid = f"{sid[:24]}{count:012x}"
        provenance = {"user": "real_user", "assistant": "assistant_output", "tool_result": "tool_result"}.get(kind, "system")
        text = (
            f'{{"uuid":"{uid}","parentUuid":{parent},"sessionId":"{sid}","timestamp":"{timestamp(i, n)}","type":"{kind}",'
            f'"provenance":"{provenance}","cwd":{q(cwd)},"version":"0.24.4","gitBranch":"main"{body}}}\n'
        )
        parent = f'"{uid}"'
        out.write(text)
        written += len(text)

    def title():
        emit("system", f',"subtype":"custom_title","systemPayload":{{"customTitle":{q(f"Session {i}: " + texts.say()[:50])},"titleSource":"auto"}}')

    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        emit("user", f',"message":{{"role":"user","parts":[{{"text":{q(texts.say())}}}]}}')
        emit("system", ',"subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{}}}}')
        emit(
            "assistant",
            f',"model":"qwen3-coder-plus","message":{{"role":"model","parts":[{{"text":{q(texts.say())},"thought":true}},'
            f'{{"functionCall":{{"id":"call_{turn}","name":"read_file","args":{{"file_path":"/src/m{turn}.rs"}}}}}}]}}',
        )
        emit(
            "tool_result",
            f',"message":{{"role":"user","parts":[{{"functionResponse":{{"id":"call_{turn}","name":"read_file","response":{{"output":{q(texts.blob(tool_scale))}}}}}}}]}}',
        )
        emit("system", f',"subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.api_response","response_text":{q(texts.say())}}}}}')
        emit("assistant", f',"model":"qwen3-coder-plus","message":{{"role":"model","parts":[{{"text":{q(texts.say())}}}]}}')
        if turn == 1 and place == "early":
            title()
        if compact_every and turn % compact_every == 0:
            emit(
                "system",
                f',"subtype":"chat_compression","systemPayload":{{"info":{{"originalTokenCount":100000,"newTokenCount":2000}},'
                f'"compressedHistory":[{{"role":"user","parts":[{{"text":{q("<state_snapshot>" + texts.say() + "</state_snapshot>")}}}]}},'
                f'{{"role":"model","parts":[{{"text":"Got it. Thanks for the additional context!"}}]}}]}}',
            )
    if place == "late":
        title()
    return written


def write_qwen(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        cwd = f"/home/dev/project-{i % 50}"
        folder = os.path.join(args.dir, "projects", "".join(c if c.isalnum() else "-" for c in cwd), "chats")
        os.makedirs(folder, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        with open(os.path.join(folder, f"{sid}.jsonl"), "w", encoding="utf-8") as out:
            total += qwen_session(
                out, i, sid, cwd, target, title_place(rng, args.title), args.compact_every, args.tool_scale, texts, args.turns
            )
    return total

# --- Kilo Code CLI ----------------------------------------------------------


def epoch_ms(i, minute):
    """The instant `timestamp(i, minute)` names, in Unix milliseconds."""
    day = 1 + (i // 1440) % 28
    hour = (i // 60) % 24
    base = 1_767_225_600_000  # 2026-01-01T00:00:00Z
    return base + (((day - 1) * 24 + hour) * 60 + i % 60) * 60_000 + (minute % 60) * 1000 + i % 1000


def write_kilo(args, rng, texts):
    """One kilo.db of args.sessions sessions, as Kilo 7.7.7 writes them
    (message/part rows; `run`-style placeholder titles when untitled)."""
    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "kilo.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    with open(os.path.join(FIXTURES, "kilo", "schema-7.7.7.sql"), encoding="utf-8") as f:
        db.executescript(f.read())
    db.execute("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 1, 1, '[]')")
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = "ses_" + "".join(rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(26))
        cwd = f"/home/dev/project-{i % 50}"
        created = epoch_ms(i, 0)
        titled = title_place(rng, args.title) != "none"
        title = f"Session {i}: " + texts.say()[:50] if titled else f"New session - 2026-01-01T00:00:00.{i % 1000:03d}Z"
        messages, parts = [], []
        written = 0
        turn = 0
        while (written < target if args.turns is None else turn < args.turns) or turn == 0:
            turn += 1
            at = epoch_ms(i, turn)
            user, reply = f"msg_{sid[4:]}u{turn:04d}", f"msg_{sid[4:]}a{turn:04d}"
            messages.append((user, sid, at, at, json.dumps({"role": "user", "time": {"created": at}, "agent": "code"})))
            prompt = json.dumps({"type": "text", "text": texts.say()}, ensure_ascii=False)
            parts.append((f"prt_{user}_000", user, sid, at, at, prompt))
            messages.append((reply, sid, at + 500, at + 500, json.dumps({"role": "assistant", "parentID": user, "time": {"created": at + 500, "completed": at + 900}, "agent": "code", "finish": "stop"})))
            tool = json.dumps({"type": "tool", "tool": "read", "callID": f"call_{turn}", "state": {"status": "completed", "input": {"filePath": f"m{turn}.rs"}, "output": texts.blob(args.tool_scale)}}, ensure_ascii=False)
            answer = json.dumps({"type": "text", "text": texts.say()}, ensure_ascii=False)
            reasoning = json.dumps({"type": "reasoning", "text": texts.say()}, ensure_ascii=False)
            for n, part in enumerate([reasoning, tool, answer]):
                parts.append((f"prt_{reply}_{n:03d}", reply, sid, at + 500 + n, at + 500 + n, part))
            written += len(prompt) + len(tool) + len(answer) + len(reasoning) + 600
        db.execute(
            "INSERT INTO session (id, project_id, slug, directory, path, title, version, time_created, time_updated) "
            "VALUES (?, 'global', 'calm-harbor', ?, ?, ?, '7.7.7', ?, ?)",
            (sid, cwd, cwd.lstrip("/"), title, created, epoch_ms(i, turn)),
        )
        db.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
        db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
        total += written
    db.commit()
    db.close()
    return total


# --- Factory Droid ----------------------------------------------------------


def droid_session(out, i, sid, cwd, target, place, tool_scale, texts, turns=None):
    written = 0
    n = 0

    def emit(value):
        nonlocal written
        text = json.dumps(value, ensure_ascii=False) + "\n"
        out.write(text)
        written += len(text)

    first = texts.say()
    title = (f"Session {i}: " + texts.say()[:50]) if place != "none" else ""
    emit({"type": "session_start", "id": sid, "title": title, "owner": "unknown", "version": 2, "cwd": cwd,
          "hostId": "bench", "isSessionTitleManuallySet": False})
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        n += 1
        t = f"{sid[:8]}-t{turn}"
        emit({"type": "message", "id": f"context-{t}", "timestamp": timestamp(i, n), "message": {"role": "user", "content": [
            {"type": "text", "text": f"<system-reminder>skills and tools % pwd {cwd}</system-reminder>"}]}})
        emit({"type": "message", "id": t, "parentId": f"context-{t}", "timestamp": timestamp(i, n),
              "message": {"role": "user", "content": [{"type": "text", "text": first if turn == 1 else texts.say()}], "interactionMode": "auto"}})
        emit({"type": "message", "id": f"{t}-a", "parentId": t, "timestamp": timestamp(i, n), "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": texts.say()},
            {"type": "tool_use", "id": f"call_{turn}", "name": "Read", "input": {"file_path": f"m{turn}.rs"}}], "modelId": "custom:Mock-Model-0"}})
        emit({"type": "message", "id": f"{t}-r", "timestamp": timestamp(i, n), "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"call_{turn}", "content": texts.blob(tool_scale)}]}})
        emit({"type": "message", "id": f"{t}-b", "parentId": f"{t}-r", "timestamp": timestamp(i, n),
              "message": {"role": "assistant", "content": [{"type": "text", "text": texts.say()}], "modelId": "custom:Mock-Model-0"}})
        emit({"type": "agent_turn_outcome", "turnId": t, "reason": "completed", "resultKind": "text"})
    return written


def write_droid(args, rng, texts):
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        cwd = f"/home/dev/project-{i % 50}"
        folder = os.path.join(args.dir, "sessions", cwd.replace("/", "-"))
        os.makedirs(folder, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        with open(os.path.join(folder, f"{sid}.jsonl"), "w", encoding="utf-8") as out:
            total += droid_session(out, i, sid, cwd, target, title_place(rng, args.title), args.tool_scale, texts, args.turns)
    return total


# --- Crush ------------------------------------------------------------------


def write_crush(args, rng, texts):
    """50 projects, each with a crush.db of its share of the sessions, and
    the projects.json naming them; times in seconds, as Crush writes them."""
    with open(os.path.join(FIXTURES, "crush", "migrations-37f36e9.sql"), encoding="utf-8") as f:
        migrations = f.read()
    projects = min(50, max(1, args.sessions))
    dbs = []
    listed = []
    for p in range(projects):
        data = os.path.join(args.dir, f"project-{p}", ".crush")
        os.makedirs(data, exist_ok=True)
        path = os.path.join(data, "crush.db")
        if os.path.exists(path):
            os.remove(path)
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(migrations)
        dbs.append(db)
        listed.append({"path": f"/home/dev/project-{p}", "data_dir": os.path.abspath(data),
                       "last_accessed": "2026-01-28T00:00:00Z"})
    total = 0
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        db = dbs[i % projects]
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        created = epoch_ms(i, 0) // 1000
        title = (f"Session {i}: " + texts.say()[:50]) if title_place(rng, args.title) != "none" else "Untitled Session"
        db.execute(
            "INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, "
            "updated_at, created_at) VALUES (?, NULL, ?, 0, 0, 0, 0, ?, ?)",
            (sid, title, created, created),
        )
        rows = []
        written = 0
        turn = 0
        while (written < target if args.turns is None else turn < args.turns) or turn == 0:
            turn += 1
            at = created + turn
            user = json.dumps([{"type": "text", "data": {"text": texts.say()}}, {"type": "finish", "data": {"reason": "stop", "time": at}}], ensure_ascii=False)
            call = json.dumps([{"type": "reasoning", "data": {"thinking": texts.say()}},
                               {"type": "tool_call", "data": {"id": f"call_{turn}", "name": "view", "input": json.dumps({"file_path": f"m{turn}.rs"}), "finished": True}},
                               {"type": "finish", "data": {"reason": "tool_use", "time": at}}], ensure_ascii=False)
            result = json.dumps([{"type": "tool_result", "data": {"tool_call_id": f"call_{turn}", "name": "view", "content": texts.blob(args.tool_scale)}}], ensure_ascii=False)
            reply = json.dumps([{"type": "text", "data": {"text": texts.say()}}, {"type": "finish", "data": {"reason": "end_turn", "time": at}}], ensure_ascii=False)
            for n, (role, parts) in enumerate([("user", user), ("assistant", call), ("tool", result), ("assistant", reply)]):
                rows.append((f"{sid[:8]}-{turn}-{n}", sid, role, parts, at, at))
                written += len(parts) + 200
        db.executemany(
            "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, 'mock-model', 'mock', ?, ?)",
            rows,
        )
        total += written
    for db in dbs:
        db.commit()
        db.close()
    with open(os.path.join(args.dir, "projects.json"), "w", encoding="utf-8") as f:
        json.dump({"projects": listed}, f, indent=2)
# --- Aider ------------------------------------------------------------------
# Aider 0.86.2 (formats/aider.md): one append-only Markdown chat history per
# project root; a session is a "# aider chat started at" section of `> `
# lines of aider's own, `#### ` typed lines and verbatim replies (reasoning
# inline in <thinking-content-…> tags). There are no tool calls: `/run`
# output is summarised as a `> Added N lines` note.


def aider_session(out, i, target, texts, turns=None):
    minute = i % 60
    header = (
        f"\n# aider chat started at 2026-12-{1 + i // 1440 % 28:02d} {i // 60 % 24:02d}:{minute:02d}:{i % 60:02d}\n\n"
        "> /venv/bin/aider --model openai/mock-model --yes-always  \n"
        "> Aider v0.86.2  \n> Model: openai/mock-model with whole edit format  \n"
        "> Git repo: .git with 12 files  \n> Repo-map: using 1024 tokens, auto refresh  \n"
    )
    out.write(header)
    written = len(header)
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        prompt = "  \n".join(f"#### {line}" for line in texts.say().split(". ")[:3]) + "  \n"
        body = (
            f"\n{prompt}\n"
            f"<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n{texts.say()}\n\n"
            "</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n"
            f"{texts.say()}\n\n```python\n{texts.blob(0.2)}\n```\n\n"
            f"> Tokens: {1000 + turn} sent, {50 + turn} received.  \n"
        )
        if turn % 4 == 0:
            body += f"\n#### /run cargo test  \n\n> Added {turn * 3} lines of output to the chat.  \n"
        out.write(body)
        written += len(body)
    return written


def write_aider(args, rng, texts):
    total = 0
    handles = {}
    try:
        for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
            project = os.path.join(args.dir, f"project-{i % 50}")
            if project not in handles:
                os.makedirs(os.path.join(project, ".git"), exist_ok=True)
                handles[project] = open(os.path.join(project, ".aider.chat.history.md"), "w", encoding="utf-8")
            total += aider_session(handles[project], i, target, texts, args.turns)
    finally:
        for handle in handles.values():
            handle.close()
    return total


# --- Amp --------------------------------------------------------------------
# Amp's local thread copies (formats/amp.md, not-run-here.md): one JSON
# object per thread, Anthropic-style content blocks, tool results in the
# user's messages, a title.


def amp_thread(i, sid, target, place, texts, turns=None):
    messages = []
    written = 0
    turn = 0
    while (written < target if turns is None else turn < turns) or turn == 0:
        turn += 1
        batch = [
            {"role": "user", "messageId": len(messages), "content": [{"type": "text", "text": texts.say()}],
             "meta": {"sentAt": 1767865803494 + i * 60000 + turn}},
            {"role": "assistant", "messageId": len(messages) + 1, "content": [
                {"type": "thinking", "thinking": texts.say()},
                {"type": "tool_use", "id": f"toolu_{turn}", "name": "Read", "input": {"path": f"/src/m{turn}.rs"}}],
             "state": {"type": "complete", "stopReason": "tool_use"}},
            {"role": "user", "messageId": len(messages) + 2, "content": [
                {"type": "tool_result", "toolUseID": f"toolu_{turn}", "run": {"status": "done", "result": texts.blob(1.0)}}]},
            {"role": "assistant", "messageId": len(messages) + 3, "content": [{"type": "text", "text": texts.say()}],
             "state": {"type": "complete", "stopReason": "end_turn"}},
        ]
        messages.extend(batch)
        written += len(json.dumps(batch))
    thread = {"v": len(messages), "id": sid, "created": 1767865803494 + i * 60000, "agentMode": "smart",
              "env": {"initial": {"trees": [{"displayName": f"project-{i % 50}", "uri": f"file:///home/dev/project-{i % 50}"}]}},
              "messages": messages}
    if place != "none":
        thread["title"] = f"Thread {i}: " + texts.say()[:50]
    return json.dumps(thread)


def write_amp(args, rng, texts):
    total = 0
    folder = os.path.join(args.dir, "threads")
    os.makedirs(folder, exist_ok=True)
    for i, target in enumerate(sizes(rng, args.sessions, args.size, args.dist)):
        sid = "T-" + str(uuid.UUID(int=rng.getrandbits(128), version=4))
        text = amp_thread(i, sid, target, title_place(rng, args.title), texts, args.turns)
        with open(os.path.join(folder, f"{sid}.json"), "w", encoding="utf-8") as out:
            out.write(text)
        total += len(text)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["native", "claude", "codex", "gemini", "pi", "qwen", "copilot", "kilo", "droid", "crush", "aider", "amp", *gen_stores_more.WRITERS])
    parser.add_argument("dir")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--size", type=parse_size, default=parse_size("200k"), help="mean bytes per session")
    parser.add_argument("--dist", choices=["fixed", "skewed"], default="fixed")
    parser.add_argument("--title", choices=["early", "late", "none", "mixed"], default="early")
    parser.add_argument("--compact-every", type=int, default=0, help="compact after every N turns (0: never)")
    parser.add_argument("--tool-scale", type=float, default=1.0, help="multiply tool output sizes")
    parser.add_argument("--turns", type=int, help="exactly this many turns per session (overrides --size)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--legacy", action="store_true", help="gemini: write legacy one-object .json chats")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts = Texts(rng)
    more = {
        kind: lambda args, rng, texts, w=w: w(args, rng, texts, sizes, title_place)
        for kind, w in gen_stores_more.WRITERS.items()
    }
    write = {
        **more,
        "native": write_native,
        "claude": write_claude,
        "codex": write_codex,
        "gemini": write_gemini,
        "pi": write_pi,
        "qwen": write_qwen,
        "copilot": write_copilot,
        "kilo": write_kilo,
        "droid": write_droid,
        "crush": write_crush,
        "aider": write_aider,
        "amp": write_amp,
    }[args.kind]
    write(args, rng, texts)
    total = sum(
        os.path.getsize(os.path.join(folder, name))
        for folder, _, names in os.walk(args.dir)
        for name in names
    )
    print(f"{args.kind} {args.sessions} sessions {total} bytes in {args.dir}")


if __name__ == "__main__":
    sys.exit(main())
