#!/bin/sh
# Check session-ref against real Claude Code and Codex transcripts.
#
#   sh tools/check-real-transcripts.sh [--bin PATH] [--corpus DIR]
#                                      [--claude DIR]... [--codex DIR]...
#
# --claude DIR / --codex DIR: store roots as the agents write them
# (~/.claude/projects, ~/.codex/sessions). --corpus DIR: a folder of loose
# samples (../shared/corpus: claude-code/*.jsonl, codex/*.jsonl), laid out
# here as stores (each Claude sample named <sessionId>.jsonl, as Claude
# Code names its files). The binary defaults to target/release/session-ref.
#
# For every transcript it checks, independently of session-ref's code:
# the session is listed exactly once, under its own id (Claude: the file
# stem; Codex: the first session_meta id) and cwd; its label is the agent's
# own title when the transcript has one, else the first line (<= 80 chars)
# of the human's first real request; `preview` succeeds and its snapshot
# holds that request (unless the session was compacted since), and no
# snapshot text holds tool, reasoning, hook, meta or injected-instruction
# text from the transcript. Prints one line per session and exits 1 on any
# failure. Needs python3.
set -eu
exec python3 - "$@" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

args = sys.argv[1:]
binary = "target/release/session-ref"
claude_roots, codex_roots, corpora = [], [], []
while args:
    flag = args.pop(0)
    if not args:
        sys.exit(f"check-real-transcripts: {flag} needs a value")
    value = args.pop(0)
    {"--bin": lambda v: None, "--claude": claude_roots.append,
     "--codex": codex_roots.append, "--corpus": corpora.append}.get(
        flag, lambda v: sys.exit(f"check-real-transcripts: unknown option {flag}"))(value)
    if flag == "--bin":
        binary = value
if not os.access(binary, os.X_OK):
    sys.exit(f"check-real-transcripts: no binary at {binary} (cargo build --release, or --bin PATH)")

work = tempfile.mkdtemp(prefix="check-real-transcripts-")
failures = 0

def read_json_lines(path):
    out = []
    with open(path, "rb") as f:
        for raw in f:
            try:
                out.append(json.loads(raw))
            except ValueError:
                pass
    return out

# ---- corpus layout -------------------------------------------------------
for corpus in corpora:
    cdir = os.path.join(corpus, "claude-code")
    if os.path.isdir(cdir):
        root = os.path.join(work, "corpus-claude")
        for name in sorted(os.listdir(cdir)):
            if not name.endswith(".jsonl"):
                continue
            lines = read_json_lines(os.path.join(cdir, name))
            sid = next((l["sessionId"] for l in lines if isinstance(l, dict)
                        and isinstance(l.get("sessionId"), str)
                        and l.get("type") in ("user", "assistant")), None)
            if sid is None:
                continue
            folder = os.path.join(root, "-corpus-" + name[:-6])
            os.makedirs(folder, exist_ok=True)
            shutil.copy(os.path.join(cdir, name), os.path.join(folder, sid + ".jsonl"))
        claude_roots.append(root)
    xdir = os.path.join(corpus, "codex")
    if os.path.isdir(xdir):
        root = os.path.join(work, "corpus-codex")
        day = os.path.join(root, "2026", "01", "01")
        os.makedirs(day, exist_ok=True)
        for name in sorted(os.listdir(xdir)):
            if name.endswith(".jsonl"):
                shutil.copy(os.path.join(xdir, name), os.path.join(day, name.split("_", 1)[-1]))
        codex_roots.append(root)

# ---- independent reading of the transcripts -----------------------------
CLAUDE_WRAPPERS = ("<command-name>", "<command-message>", "<local-command-stdout>",
                   "<local-command-caveat>", "<bash-input>", "<bash-stdout>",
                   "<task-notification>", "Caveat: The messages below",
                   "[Request interrupted by user", "<ide_opened_file>", "<ide_selection>")
CODEX_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions for",
                  "<turn_aborted>", "<user_shell_command>", "<user_action>")
IDE_MARK = "## My request for Codex:"

def first_line(text):
    text = text.lstrip()
    line = text.splitlines()[0].rstrip() if text else ""
    return line[:80].rstrip() or None

def blocks_of(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []

def strings_in(value, out, minimum=24):
    """Every long string inside a JSON value (what must not leak)."""
    if isinstance(value, str):
        for part in value.splitlines():
            if len(part.strip()) >= minimum:
                out.add(part.strip())
    elif isinstance(value, list):
        for v in value:
            strings_in(v, out, minimum)
    elif isinstance(value, dict):
        for v in value.values():
            strings_in(v, out, minimum)

def claude_session(path):
    lines = [l for l in read_json_lines(path) if isinstance(l, dict)]
    if not any(l.get("type") in ("user", "assistant") for l in lines):
        return None
    s = {"id": os.path.basename(path)[:-6], "cwd": None, "request": None, "title": None,
         "command": None, "compacted": False, "hidden": set(), "typed": set(), "uuids": set()}
    custom = ai = None
    for l in lines:
        kind = l.get("type")
        if s["cwd"] is None and l.get("cwd"):
            s["cwd"] = l["cwd"]
        if isinstance(l.get("uuid"), str):
            s["uuids"].add(l["uuid"])
        if kind == "custom-title" and str(l.get("customTitle") or "").strip():
            custom = l["customTitle"]
        if kind == "ai-title" and str(l.get("aiTitle") or "").strip():
            ai = l["aiTitle"]
        if kind == "system" and l.get("subtype") == "compact_boundary":
            s["compacted"] = True
        msg = l.get("message") if isinstance(l.get("message"), dict) else {}
        if kind == "user" and not l.get("isSidechain") and not l.get("isCompactSummary"):
            blocks = blocks_of(msg.get("content"))
            for b in blocks:
                if b.get("type") == "tool_result":
                    strings_in(b.get("content"), s["hidden"])
            # rowSource (Claude Code 2.1.332+) names a line's author; only
            # "local" (or no field, older versions) is the person. An origin
            # of another kind than "human" (task notification, coordinator,
            # peer, plugin) is not the person either.
            origin = l.get("origin")
            foreign = origin is not None and not (isinstance(origin, dict) and origin.get("kind") == "human")
            if l.get("isMeta") or foreign or l.get("rowSource", "local") not in ("local", None):
                strings_in(msg.get("content"), s["hidden"])
                continue
            texts = [b.get("text") for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
            typed = []
            for t in texts:
                st = t.lstrip()
                if st.startswith(("<command-name>", "<command-message>")):
                    name = re.search(r"<command-name>(.*?)</command-name>", t, re.S)
                    args_ = re.search(r"<command-args>(.*?)</command-args>", t, re.S)
                    if name and args_ and args_.group(1).strip():
                        typed.append(name.group(1).strip() + " " + args_.group(1).strip())
                    elif name and s["command"] is None:
                        s["command"] = name.group(1).strip()
                elif st.startswith(CLAUDE_WRAPPERS) or t.strip() == "Warmup":
                    strings_in(t, s["hidden"])
                else:
                    typed.append(t)
            if typed:
                s["typed"].add("\n".join(typed))
                if s["request"] is None:
                    s["request"] = "\n".join(typed)
            elif s["request"] is None and any(b.get("type") == "image" for b in blocks) \
                    and not any(b.get("type") == "tool_result" for b in blocks):
                s["request"] = ""
        elif kind == "user" and l.get("isCompactSummary"):
            s["typed"].update(b.get("text") for b in blocks_of(msg.get("content"))
                              if isinstance(b.get("text"), str))
        if kind == "assistant":
            for b in blocks_of(msg.get("content")):
                if b.get("type") == "text" and isinstance(b.get("text"), str):
                    s["typed"].add(b["text"])
                if b.get("type") in ("thinking", "redacted_thinking"):
                    strings_in(b.get("thinking"), s["hidden"])
                elif b.get("type") == "tool_use":
                    strings_in(b.get("input"), s["hidden"])
        elif kind == "attachment":
            strings_in(l.get("attachment"), s["hidden"])
        elif kind in ("progress",):
            strings_in(l.get("data"), s["hidden"])
    s["title"] = custom or ai
    return s

def codex_prompt(texts, image):
    kept = []
    for t in texts:
        if not isinstance(t, str) or t.lstrip().startswith(CODEX_INJECTED):
            continue
        if t.strip() == "</image>" or (t.strip().startswith("<image") and t.strip().endswith(">") and "\n" not in t.strip()):
            continue
        m = re.search(r"(?:^|\n)" + re.escape(IDE_MARK), t)
        if m:
            t = t[m.end():].strip()
        if t.strip():
            kept.append(t)
    if kept:
        return "\n".join(kept)
    return "" if image else None

def codex_session(path):
    lines = [l for l in read_json_lines(path) if isinstance(l, dict)]
    meta = next((l.get("payload") for l in lines if l.get("type") == "session_meta"), None)
    if not isinstance(meta, dict):
        return None
    # `codex exec review`'s reviewer is a sub-agent, not a session of its own.
    source = meta.get("source")
    if isinstance(source, dict) and source.get("subagent") == "review":
        return None
    s = {"id": meta.get("id"), "cwd": meta.get("cwd"), "request": None, "title": None,
         "command": None, "compacted": False, "hidden": set(), "typed": set(),
         "paginated": meta.get("history_mode") == "paginated" and bool(meta.get("history_base"))}
    event_request = item_request = named = None
    for l in lines:
        p = l.get("payload") if isinstance(l.get("payload"), dict) else {}
        kind, ptype = l.get("type"), p.get("type")
        if kind == "compacted":
            s["compacted"] = True
            if isinstance(p.get("message"), str):
                s["typed"].add(p["message"])
        elif kind == "event_msg" and ptype == "thread_name_updated" and isinstance(p.get("thread_name"), str):
            named = (p["thread_name"], str(l.get("timestamp") or ""))
        elif kind == "event_msg" and ptype == "user_message":
            r = codex_prompt([p.get("message")], bool(p.get("images") or p.get("local_images")))
            if r is not None and event_request is None:
                event_request = r
        elif kind == "event_msg" and ptype == "item_completed" and isinstance(p.get("item"), dict) \
                and p["item"].get("type") == "UserMessage":
            c = blocks_of(p["item"].get("content"))
            r = codex_prompt([b.get("text") for b in c if b.get("type") == "text"],
                             any(b.get("type") in ("image", "local_image") for b in c))
            if r is not None and event_request is None:
                event_request = r
                # A review parent echoes its reviewer's prompt (another
                # thread's, Codex-written): Codex lists the parent by it,
                # but it is not in the parent's conversation.
                s["echoed"] = p.get("thread_id") not in (None, meta.get("id"))
        elif kind == "response_item":
            if ptype == "message" and p.get("role") == "user":
                c = blocks_of(p.get("content"))
                r = codex_prompt([b.get("text") for b in c if b.get("type") == "input_text"],
                                 any(b.get("type") == "input_image" for b in c))
                if r:
                    s["typed"].add(r)
                if r is not None and item_request is None:
                    item_request = r
                for b in c:
                    if b.get("type") == "input_text" and isinstance(b.get("text"), str) \
                            and b["text"].lstrip().startswith(CODEX_INJECTED):
                        strings_in(b["text"], s["hidden"])
            elif ptype == "message" and p.get("role") == "assistant":
                s["typed"].update(b.get("text") for b in blocks_of(p.get("content"))
                                  if isinstance(b.get("text"), str))
            elif ptype == "message" and p.get("role") == "developer":
                strings_in(p.get("content"), s["hidden"])
            elif ptype in ("reasoning", "function_call", "function_call_output", "custom_tool_call",
                           "custom_tool_call_output", "local_shell_call", "web_search_call"):
                strings_in({k: v for k, v in p.items() if k != "type"}, s["hidden"])
    s["request"] = event_request if event_request is not None else item_request
    index = os.path.join(os.path.dirname(root_of[path]), "session_index.jsonl")
    indexed = None
    if os.path.isfile(index):
        for e in read_json_lines(index):
            if isinstance(e, dict) and e.get("id") == s["id"] and isinstance(e.get("thread_name"), str):
                indexed = (e["thread_name"], str(e.get("updated_at") or ""))
    # The later of the two names wins (RFC 3339 in one format compares as text).
    if named and indexed:
        named = indexed if indexed[1] > named[1] else named
    name = (named or indexed or ("", ""))[0]
    s["title"] = name if name.strip() else None
    parent = (meta.get("history_base") or {}).get("thread_id") if s["paginated"] else None
    s["parent"] = parent
    return s

def label_of(s):
    if s["title"]:
        return s["title"]
    # Codex lists an unnamed fork by the first prompt of its inherited
    # history: the root's, through a chain of forks.
    seen = set()
    while s.get("parent") and ("codex", s["parent"]) in expected and s["parent"] not in seen:
        seen.add(s["parent"])
        parent = expected[("codex", s["parent"])]
        if parent["request"] is None and not parent.get("parent"):
            break
        s = parent
    if s["request"] is not None:
        return "[Image]" if s["request"] == "" else first_line(s["request"])
    return s["command"]

# ---- collect the transcripts --------------------------------------------
expected = {}   # (store, id) -> session facts
root_of = {}
for store, roots in (("claude", claude_roots), ("codex", codex_roots)):
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root).split(os.sep)
            if store == "claude" and "subagents" in rel:
                continue
            for name in sorted(filenames):
                if not name.endswith(".jsonl") or (store == "claude" and name.startswith("agent-")):
                    continue
                path = os.path.join(dirpath, name)
                root_of[path] = root
                s = claude_session(path) if store == "claude" else codex_session(path)
                if s is None:
                    continue
                s["path"] = path
                key = (store, s["id"])
                if key in expected:
                    print(f"FAIL {store} {s['id']}: two transcripts claim this id: {expected[key]['path']} and {path}")
                    failures += 1
                expected[key] = s
# Claude summaries title whichever session owns their leafUuid, across a folder.
summaries_by_leaf = {}
claude_folders = {os.path.dirname(v["path"]) for k, v in expected.items() if k[0] == "claude"}
for folder in claude_folders:
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl"):
            continue
        for l in read_json_lines(os.path.join(folder, name)):
            if isinstance(l, dict) and l.get("type") == "summary" and str(l.get("summary") or "").strip():
                summaries_by_leaf[(folder, l.get("leafUuid"))] = l["summary"]
if not expected:
    sys.exit("check-real-transcripts: no transcripts found (give --claude, --codex or --corpus)")

# ---- what session-ref says ------------------------------------------------
stores = []
for r in claude_roots:
    stores += ["--claude", r]
for r in codex_roots:
    stores += ["--codex", r]
env = dict(os.environ, HOME=work)
for var in ("HYDRA_SESSIONS", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_DIR"):
    env.pop(var, None)

def sref(*argv):
    return subprocess.run([binary, *stores, *argv], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)

listing = sref("candidates", "--json", "--limit", str(len(expected) + 100))
if listing.returncode != 0:
    sys.exit(f"check-real-transcripts: candidates failed: {listing.stderr}")
listed = {}
for line in listing.stdout.splitlines():
    c = json.loads(line)
    listed.setdefault((c["store"], c["sessionId"]), []).append(c)
for key in listed:
    if key not in expected and key[0] in ("claude", "codex"):
        print(f"FAIL {key[0]} {key[1]}: listed, but no transcript has this id")
        failures += 1

PREFIX = "<referenced-sessions>\n"
for (store, sid), s in sorted(expected.items(), key=lambda kv: kv[1]["path"]):
    problems = []
    found = listed.get((store, sid), [])
    if len(found) != 1:
        problems.append(f"listed {len(found)} times")
    else:
        c = found[0]
        if s["cwd"] and c.get("cwd") != s["cwd"]:
            problems.append(f"cwd {c.get('cwd')!r}, expected {s['cwd']!r}")
        want = label_of(s)
        summaries = {text for (folder, leaf), text in summaries_by_leaf.items()
                     if store == "claude" and not s["title"]
                     and folder == os.path.dirname(s["path"]) and leaf in s["uuids"]}
        if want is not None and c["label"] != want and c["label"] not in summaries:
            problems.append(f"label {c['label']!r}, expected {want!r}")
    preview = sref("preview", sid, "--json")
    conversation = []
    orphan = s.get("parent") and ("codex", s["parent"]) not in expected
    if orphan:
        # A fork whose parent rollout is absent must be unreadable, never shorter.
        if preview.returncode == 0 or "READ_FAILED" not in preview.stderr:
            problems.append("fork without its parent previewed: " + preview.stdout[:80])
    elif preview.returncode != 0:
        problems.append("preview failed: " + preview.stderr.strip())
    else:
        context = json.loads(preview.stdout)["context"]
        data = context[context.index(PREFIX) + len(PREFIX):context.rindex("\n</referenced-sessions>")]
        conversation = json.loads(data)[0]["conversation"]
        texts = [m["text"] for m in conversation]
        if s["request"] and not s["compacted"] and not s.get("echoed") and not any(s["request"].strip() in t for t in texts):
            problems.append(f"snapshot lacks the first request {first_line(s['request'])!r}")
        # Generated text may be quoted by the assistant or the person; it leaks
        # when a snapshot shows it and no genuine message of the transcript holds it.
        leaked = sorted({h for h in s["hidden"] for t in texts
                         if h in t and not any(h in u for u in s["typed"])})
        if leaked:
            problems.append(f"snapshot holds generated text: {leaked[0][:60]!r}")
        parent = expected.get(("codex", s.get("parent"))) if s.get("parent") else None
        if parent and parent["request"] and not parent["compacted"] \
                and not any(parent["request"].strip() in t for t in texts):
            problems.append("fork snapshot lacks its parent's history "
                            f"(first request {first_line(parent['request'])!r})")
        if any(not t.strip() for t in texts):
            problems.append("snapshot holds an empty message")
    label = found[0]["label"] if len(found) == 1 else "?"
    if problems:
        failures += 1
        print(f"FAIL {store} {sid} ({s['path']}): " + "; ".join(problems))
    elif orphan:
        print(f"ok   {store} {sid} {label!r} (parent absent: unreadable, as required)")
    else:
        print(f"ok   {store} {sid} {label!r} ({len(conversation)} messages)")

shutil.rmtree(work, ignore_errors=True)
print(f"{len(expected)} sessions, {failures} failures")
sys.exit(1 if failures else 0)
PY
