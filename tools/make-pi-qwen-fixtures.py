#!/usr/bin/env python3
"""Turn what tools/run-pi-qwen.sh left in OUT (default /tmp/pi-qwen-runs)
into the small fixtures of tests/fixtures/pi and tests/fixtures/qwen.

Paths of the scratch run are rewritten to `/w/projé ü` (the project) so the
fixtures do not depend on where the run happened; everything else is as
pi 0.73.1 and Qwen Code 0.24.4 wrote it, except what is said below:

* Qwen: the chat of the sub-agent run (which the mock kept looping) is cut
  to its first 40 records, and one sub-agent transcript is kept. Qwen 0.24.4
  writes no `custom_title` for `/rename` in print mode, so one chat gets two
  appended in the shape Qwen's session service writes (`system`
  `custom_title`, `systemPayload {customTitle, titleSource}`; Qwen re-appends
  the record near the end, so the last one counts).
"""
import json, os, shutil, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pi-qwen-runs"
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "tests", "fixtures")


def clean(text, agent):
    return text.replace(f"/tmp/pi-qwen-runs/{agent}/projé ü", "/w/projé ü").replace(
        "--tmp-pi-qwen-runs-pi-projé ü--", "--w-projé ü--"
    ).replace(f"/tmp/pi-qwen-runs/{agent}/.pi/agent", "/h/.pi/agent")


def pi():
    src = os.path.join(OUT, "pi/.pi/agent/sessions")
    dst = os.path.join(FIX, "pi/sessions")
    shutil.rmtree(dst, ignore_errors=True)
    for folder in os.listdir(src):
        target = os.path.join(dst, clean(folder, "pi"))
        os.makedirs(target)
        for name in sorted(os.listdir(os.path.join(src, folder))):
            with open(os.path.join(src, folder, name), encoding="utf-8") as f:
                text = f.read()
            with open(os.path.join(target, name), "w", encoding="utf-8") as f:
                f.write(clean(text, "pi"))


def qwen():
    src = os.path.join(OUT, "qwen/.qwen/projects")
    dst = os.path.join(FIX, "qwen/projects")
    shutil.rmtree(dst, ignore_errors=True)
    for project in os.listdir(src):
        folder = "-w-proj---"
        chats = os.path.join(src, project, "chats")
        os.makedirs(os.path.join(dst, folder, "chats"))
        for name in sorted(os.listdir(chats)):
            with open(os.path.join(chats, name), encoding="utf-8") as f:
                lines = f.read().splitlines()
            if any('"subtype":"notification"' in l for l in lines):
                lines = lines[:40]
            if name.startswith("cdb0c8bb"):
                last = json.loads(lines[-1])
                for i, title in enumerate(["Early name", "Renamed chat ✓"]):
                    lines.append(json.dumps({
                        "uuid": f"00000000-0000-4000-8000-00000000000{i}",
                        "parentUuid": last["uuid"], "sessionId": last["sessionId"],
                        "timestamp": last["timestamp"], "type": "system",
                        "provenance": "system", "cwd": last["cwd"], "version": "0.24.4",
                        "subtype": "custom_title",
                        "systemPayload": {"customTitle": title, "titleSource": "manual"},
                    }, ensure_ascii=False, separators=(",", ":")))
            with open(os.path.join(dst, folder, "chats", name), "w", encoding="utf-8") as f:
                f.write(clean("\n".join(lines) + "\n", "qwen"))
        subs = os.path.join(src, project, "subagents")
        for parent in os.listdir(subs) if os.path.isdir(subs) else []:
            for name in sorted(os.listdir(os.path.join(subs, parent)))[:1]:
                if not name.endswith(".jsonl"):
                    continue
                os.makedirs(os.path.join(dst, folder, "subagents", parent))
                with open(os.path.join(subs, parent, name), encoding="utf-8") as f:
                    text = f.read()
                with open(os.path.join(dst, folder, "subagents", parent, name), "w", encoding="utf-8") as f:
                    f.write(clean(text, "qwen"))


pi()
qwen()
