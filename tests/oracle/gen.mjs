#!/usr/bin/env node
// Random native stores and session-ref command lines for the differential test.
//
//   node tests/oracle/gen.mjs --seed N --stores K --cases M --out DIR
//
// Writes K stores under DIR (`DIR/store-<i>/...`) and, for each, M command
// lines, to `DIR/cases-<seed>.jsonl`: `{"name": S, "args": [...], "stdin": S?}`.
// Command lines assume they are run with DIR as the current directory.
// Everything is a pure function of the seed.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** mulberry32: small, fast, deterministic. */
function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    /** Pick from `[[weight, value], ...]`; a function value is called. */
    weighted: (table) => {
      const total = table.reduce((s, [w]) => s + w, 0);
      let x = next() * total;
      for (const [w, v] of table) {
        x -= w;
        if (x < 0) return typeof v === "function" ? v() : v;
      }
      const v = table[table.length - 1][1];
      return typeof v === "function" ? v() : v;
    },
  };
  return r;
}

const SCHEME = "hydra-session:";
const encodeUri = (id) => SCHEME + Buffer.from(JSON.stringify(id), "utf8").toString("base64url");
const escapeLabel = (label) => label.replace(/[\\\]]/g, (m) => `\\${m}`);
const mention = (id, label) => `@[${escapeLabel(label ?? id)}](${encodeUri(id)})`;

// ---------------------------------------------------------------- strings

const ATOMS = [
  "a", "b", "z", "Q", "0", "7", " ", " ", "-", "_", ".", ",", "!", "?", "<", ">", "&", "\"", "'",
  "\\", "/", "]", "[", "(", ")", "@", "#", "\n", "\t", "\r", "\u0001", "\u001f", "\u007f",
  "é", "ß", "Σ", "ς", "İ", "中", "文", "😀", "👍🏽", "\u2028", "\u2029", "\u00a0", "\ufeff", "\u0301",
  "hydra-session:", "</referenced-sessions>", "<b>",
];
const WORDS = [
  "plan", "Refactor", "parser", "bug", "fix", "TODO", "session", "Résumé", "naïve", "日本語",
  "emoji😀", "ΣΊΣΥΦΟΣ", "İstanbul", "straße", "alpha", "BETA", "gamma", "the", "and",
  "ΑΣ'Α", "Σ", "aΣ.", "ẞig", "ǅx", "Ⅻ", "ＡＢＣ",
];

function randomText(r, maxLen) {
  const len = r.int(0, maxLen);
  let s = "";
  while (s.length < len) s += r.chance(0.5) ? r.pick(WORDS) + " " : r.pick(ATOMS);
  return s;
}

/** Text for message bodies: short, medium, long or very long (repetitive to be cheap). */
function bodyText(r) {
  return r.weighted([
    [30, () => randomText(r, 20)],
    [30, () => randomText(r, 200)],
    [15, () => {
      const unit = randomText(r, 60) || "x";
      return unit.repeat(r.int(5, 60));
    }],
    [8, () => {
      const unit = r.pick(["é", "中", "😀", "a", "<", "\\", "\u0001", "ab😀", "é中"]);
      return randomText(r, 20) + unit.repeat(r.int(100, 3000)) + randomText(r, 20);
    }],
    [3, () => (randomText(r, 80) || "y").repeat(r.int(200, 700))],
    [4, ""],
  ]);
}

function randomId(r) {
  return r.weighted([
    [20, () => r.pick(WORDS).toLowerCase() + r.int(0, 99)],
    [10, () => `s-${r.int(0, 9)}`],
    [4, "q\"uote"],
    [4, "back\\slash\\"],
    [3, "emoji😀id"],
    [3, "line\u2028sep"],
    [3, "<tag>id"],
    [3, "ctl\u0001\u001f\u007f"],
    [3, "tab\tnl\nid"],
    [2, "nul\u0000id"],
    [3, ""],
    [2, " "],
    [3, "ΣΊΣΥΦΟΣ"],
    [3, "İd"],
    [2, "a]b\\c"],
    [2, "hydra-session:x"],
    [2, "@[x](y)"],
    [2, "-dash"],
    [2, "Mixed-CASE-Id"],
    [1, () => "long".repeat(60)],
    [8, () => randomText(r, 12)],
  ]);
}

const CWDS = ["/work/app", "/work/other", "/home/ü/项目", "/w/<x>", "/", "C:\\repo", "/work/app/"];

function randomCreatedAt(r) {
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  const y = r.int(2023, 2025);
  const mo = r.int(1, 12);
  const d = r.int(1, 28);
  const h = r.int(0, 23);
  const mi = r.int(0, 59);
  const s = r.int(0, 59);
  const date = `${y}-${pad(mo)}-${pad(d)}`;
  const time = `${pad(h)}:${pad(mi)}:${pad(s)}`;
  const frac = r.chance(0.4) ? "." + String(r.int(0, 999999999)).padStart(9, "0").slice(0, r.int(1, 9)) : "";
  const zone = r.weighted([
    [6, "Z"],
    [1, "z"],
    [3, () => `${r.pick(["+", "-"])}${pad(r.int(0, 14))}:${pad(r.pick([0, 30, 45]))}`],
  ]);
  const sep = r.weighted([[12, "T"], [1, "t"], [1, " "]]);
  return r.weighted([
    [85, `${date}${sep}${time}${frac}${zone}`],
    [2, ""],
    [2, "yesterday"],
    [1, "2025-13-01T00:00:00Z"],
    [1, "2025-02-30T00:00:00Z"],
    [1, "2024-02-29T12:00:00Z"],
    [1, "2025-01-01"],
    [1, "2025-01-01T00:00:00"],
    [1, "2016-12-31T23:59:60Z"],
    [1, "0001-01-01T00:00:00Z"],
    [1, "2025-01-01T00:00:00-23:59"],
    [1, "2025-01-01T24:00:00Z"],
    [1, "2025-01-01T00:00:00+0100"],
    [1, "2025-01-01T00:00:00.Z"],
    [1, "2025-06-01T10:00:00+02:00"],
    [1, "2025-06-01T08:00:00Z"],
    [1, "2025-06-01T08:00:00.000Z"],
  ]);
}

// ---------------------------------------------------------------- events

const CHECKPOINT = { kind: "compaction", marker: "@hydraharness/harness-compaction" };

function blocks(r, { allowOther = true } = {}) {
  const n = r.weighted([[2, 0], [10, 1], [5, 2], [2, 3]]);
  const out = [];
  for (let i = 0; i < n; i += 1) {
    out.push(
      r.weighted([
        [10, () => ({ type: "text", text: bodyText(r) })],
        [allowOther ? 2 : 0, () => ({ type: "reasoning", text: bodyText(r) })],
        [allowOther ? 1 : 0, () => ({ type: "tool-call", id: "t1", name: "read", input: { path: "/x" } })],
        [allowOther ? 1 : 0, () => ({ type: "image", mediaType: "image/png", data: "AAAA" })],
        [allowOther ? 1 : 0, () => ({ type: "text", text: bodyText(r), extra: 1 })],
      ]),
    );
  }
  return out;
}

function userSource(r) {
  return r.weighted([
    [60, { kind: "user" }],
    [10, () => ({ ...CHECKPOINT, summaryOf: r.int(1, 9) })],
    [3, { kind: "compaction" }],
    [2, { kind: "compaction", marker: "@hydraharness/other" }],
    [2, { kind: "user", marker: "@hydraharness/harness-compaction" }],
    [10, () => ({ kind: "session-reference", form: "recall", version: 1, references: [] })],
    [8, () => ({ kind: r.pick(["plugin", "system", "steer", "User", ""]) })],
  ]);
}

/** One well-formed event body (type and data) for a session. */
function eventBody(r, state) {
  return r.weighted([
    [26, () => ({ type: "user/message", data: { id: `m${state.n}`, source: userSource(r), content: blocks(r) } })],
    [24, () => ({ type: "assistant/message", data: { message: { id: `a${state.n}`, content: blocks(r) } } })],
    [7, () => ({ type: "tool/result", data: { toolCallId: "t1", content: [{ type: "text", text: bodyText(r) }] } })],
    [7, () => ({ type: "assistant/chunk", data: { messageId: `a${state.n}`, delta: randomText(r, 30) } })],
    [8, () => ({ type: "session/title", data: { title: r.chance(0.1) ? "" : randomText(r, 30) } })],
    [5, () => {
      const through = r.weighted([
        [6, () => r.int(0, Math.max(0, state.seq))],
        [1, 0],
        [1, () => state.seq + r.int(1, 5)],
      ]);
      return { type: "session/compact", data: { throughSeq: through } };
    }],
    [4, () => ({ type: r.pick(["future/thing", "session/fork", "agent/step"]), data: { anything: [1, "x"] } })],
  ]);
}

/**
 * A line that breaks the session (terminated, not at the tail), with the
 * name of what it breaks. `seq` is the next valid seq.
 */
function brokenLine(r, seq) {
  const ev = (o) => JSON.stringify(o);
  const user = { id: "m", source: { kind: "user" }, content: [{ type: "text", text: "x" }] };
  return r.weighted([
    [4, () => "not json"],
    [2, () => "{"],
    [2, () => ""],
    [1, () => "   "],
    [2, () => ev({ seq: String(seq), type: "user/message", data: user })],
    [1, () => ev({ seq: 0, type: "user/message", data: user })],
    [1, () => ev({ seq: -1, type: "user/message", data: user })],
    [1, () => ev({ seq: seq + 0.5, type: "user/message", data: user })],
    [2, () => ev({ seq: Math.max(1, seq - 1), type: "user/message", data: user })],
    [1, () => ev({ type: "user/message", data: user })],
    [1, () => ev({ seq, type: 7, data: user })],
    [1, () => ev({ seq, type: "user/message" })],
    [1, () => ev({ seq, type: "user/message", data: [user] })],
    [1, () => ev({ seq, type: "user/message", data: { ...user, content: "x" } })],
    [1, () => ev({ seq, type: "user/message", data: { id: "m", content: [] } })],
    [1, () => ev({ seq, type: "user/message", data: { ...user, source: { kind: 5 } } })],
    [1, () => ev({ seq, type: "assistant/message", data: { content: [] } })],
    [1, () => ev({ seq, type: "assistant/message", data: { message: { id: "a", content: {} } } })],
    [2, () => ev({ seq, type: "session/title", data: { title: 5 } })],
    [1, () => ev({ seq, type: "session/title", data: {} })],
    [1, () => ev({ seq, type: "session/compact", data: { throughSeq: "3" } })],
    [1, () => ev({ seq, type: "session/compact", data: { throughSeq: -1 } })],
    [1, () => ev({ seq: 9007199254740993, type: "user/message", data: user })],
    [1, () => "[1,2]"],
    [1, () => "null"],
    [1, () => "\"just a string\""],
  ]);
}

/**
 * A line whose shape the SPEC does not settle. Both readers accept these
 * (the lenient reading, see store.mjs); they are here to keep it so.
 */
function ambiguousLine(r, seq) {
  const ev = (o) => JSON.stringify(o);
  return r.weighted([
    [1, () => ev({ seq, type: "user/message", data: { source: { kind: "user" }, content: [{ type: "text", text: "no id" }] } })],
    [1, () => ev({ seq, type: "assistant/message", data: { message: { content: [{ type: "text", text: "no id" }] } } })],
    [1, () => ev({ seq, type: "tool/result", data: { content: [] } })],
    [1, () => ev({ seq, type: "assistant/chunk", data: { messageId: "a" } })],
    [1, () => ev({ seq, type: "assistant/chunk" })],
    [1, () => ev({ seq, type: "future/thing" })],
    [1, () => ev({ seq, type: "future/thing", data: 7 })],
    [1, () => ev({ seq, type: "user/message", data: { id: "m", source: { kind: "user" }, content: [{ type: "text", text: 5 }] } })],
    [1, () => ev({ seq, type: "user/message", data: { id: "m", source: { kind: "user" }, content: ["text"] } })],
    [1, () => ev({ seq, type: "user/message", data: { id: "m", source: { kind: "user" }, content: [{ text: "typeless" }] } })],
    [1, () => ev({ seq, type: "session/compact", data: { throughSeq: 2.0 } }).replace("2", "2.0")],
    [1, () => `{"seq":${seq}.0,"type":"session/title","data":{"title":"float seq"}}`],
  ]);
}

/** One session file: `{text, id, cwd?}`; `text` is the whole file. */
function sessionFile(r, id, cwd, createdAt, options) {
  const header = { type: "session", version: 1, id, createdAt, ...(cwd === undefined ? {} : { cwd }) };
  const lines = [JSON.stringify(r.chance(0.1) ? { cwd, ...header, extra: true } : header)];
  const state = { seq: 0, n: 0 };
  const count = r.weighted([[2, 0], [6, () => r.int(1, 6)], [4, () => r.int(6, 20)], [1, () => r.int(20, 60)]]);
  const breakAt = r.chance(options.broken) ? r.int(0, count) : -1;
  const ambiguousAt = r.chance(options.ambiguous) ? r.int(0, count) : -1;
  for (let i = 0; i <= count; i += 1) {
    if (i === breakAt) lines.push(brokenLine(r, state.seq + 1));
    if (i === ambiguousAt) {
      state.seq += 1;
      lines.push(ambiguousLine(r, state.seq));
    }
    if (i === count) break;
    if (r.chance(options.bulky)) {
      // Tool output that makes the file long (titles are then found across
      // read chunks) without growing the projection.
      const filler = (randomText(r, 40) || "z").repeat(r.int(500, 2000));
      for (let k = r.int(2, 8); k > 0; k -= 1) {
        state.seq += 1;
        lines.push(JSON.stringify({ seq: state.seq, type: "tool/result", data: { toolCallId: "t", content: [{ type: "text", text: filler }] } }));
      }
    }
    state.n += 1;
    state.seq += r.weighted([[8, 1], [2, () => r.int(2, 4)]]);
    let line = JSON.stringify({ seq: state.seq, ...eventBody(r, state) });
    line = r.weighted([
      [40, line],
      // The same event, spelled differently.
      [1, () => ` ${line}\t`],
      [1, () => line.replace('"type":"session/title"', '"type":"session\\/\\u0074itle"')],
      [1, () => line.replace(/^\{"seq":(\d+)/, '{"seq":$1.0')],
    ]);
    lines.push(line);
  }
  let text = lines.join(r.chance(0.05) ? "\r\n" : "\n");
  if (r.chance(0.01)) text = "\ufeff" + text;
  const tail = r.weighted([
    [70, "newline"],
    [10, "torn"],
    [8, "unterminated"],
    [4, "torn-multibyte"],
    [3, "blank-end"],
  ]);
  if (r.chance(options.broken / 10)) {
    // A complete line with a byte that is not UTF-8 inside a string.
    const bad = Buffer.from(`{"seq":${state.seq + 1},"type":"session/title","data":{"title":"bad \u0000 byte"}}\n`);
    bad[bad.indexOf(0)] = 0xff;
    return { bytes: Buffer.concat([Buffer.from(text + "\n", "utf8"), bad]), id, cwd };
  }
  if (tail === "newline") text += "\n";
  else if (tail === "torn") {
    const next = JSON.stringify({ seq: state.seq + 1, ...eventBody(r, state) });
    text += "\n" + next.slice(0, r.int(0, next.length - 1));
  } else if (tail === "torn-multibyte") {
    const next = JSON.stringify({ seq: state.seq + 1, type: "user/message", data: { id: "x", source: { kind: "user" }, content: [{ type: "text", text: "😀😀" }] } });
    const bytes = Buffer.from(text + "\n" + next, "utf8");
    // Cut inside the last emoji's UTF-8 sequence.
    return { bytes: bytes.subarray(0, bytes.length - 8), id, cwd };
  } else if (tail === "blank-end") text += "\n\n";
  // "unterminated": the last complete line has no newline.
  return { bytes: Buffer.from(text, "utf8"), id, cwd };
}

/** A file under a store that is not a session. */
function notASession(r, id) {
  const h = (o) => JSON.stringify(o) + "\n";
  return r.weighted([
    [2, ""],
    [2, "not json\n"],
    [1, () => h({ type: "session", version: 2, id, createdAt: "2025-01-01T00:00:00Z" })],
    [1, () => h({ type: "event", version: 1, id, createdAt: "2025-01-01T00:00:00Z" })],
    [1, () => h({ type: "session", version: 1, id: 5, createdAt: "2025-01-01T00:00:00Z" })],
    [2, () => h({ type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00Z", cwd: null })],
    [1, () => h({ type: "session", version: 1, id, cwd: "/work/app" })],
    [1, () => h({ type: "session", version: 1, id, createdAt: 20250101 })],
    [1, () => h(["session"])],
    [1, () => "\n" + h({ type: "session", version: 1, id, createdAt: "2025-01-01T00:00:00Z" })],
  ]);
}

const NAME_PARTS = ["a", "B", "z9", "ü", "😀", "ｚ", "~", "sess", "Z", "0", "-", "_", " "];
function fileName(r) {
  let s = "";
  for (let i = r.int(1, 4); i > 0; i -= 1) s += r.pick(NAME_PARTS);
  return s;
}

/** Write one random store; returns what the command generator needs to know. */
function writeStore(r, root, cwdPool, options) {
  mkdirSync(root, { recursive: true });
  const sessions = [];
  const titles = [];
  const used = new Set();
  const count = r.weighted([[1, 0], [3, () => r.int(1, 4)], [6, () => r.int(4, 12)], [1, () => r.int(12, 24)]]);
  const createdPool = Array.from({ length: r.int(1, 6) }, () => randomCreatedAt(r));
  const idPool = [];
  for (let i = 0; i < count; i += 1) {
    let rel;
    do {
      const dir = r.weighted([[6, ""], [2, "sub"], [1, "sub/deeper"], [1, "ü"], [1, "x.jsonl"]]);
      rel = join(dir, fileName(r) + ".jsonl");
    } while (used.has(rel));
    used.add(rel);
    const id = idPool.length > 0 && r.chance(0.04) ? r.pick(idPool) : randomId(r);
    idPool.push(id);
    const cwd = r.weighted([[5, () => r.pick(cwdPool)], [2, undefined], [1, () => randomText(r, 10)]]);
    const createdAt = r.chance(0.6) ? r.pick(createdPool) : randomCreatedAt(r);
    const file = sessionFile(r, id, cwd, createdAt, options);
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), file.bytes);
    sessions.push({ id, cwd, rel });
    const text = file.bytes.toString("utf8");
    for (const m of text.matchAll(/"title":"((?:[^"\\]|\\.)*)"/g)) {
      try {
        titles.push(JSON.parse(`"${m[1]}"`));
      } catch {
        // A torn title is no title.
      }
    }
  }
  // Files that are not sessions, and things that are not files.
  for (let i = r.int(0, 3); i > 0; i -= 1) {
    const rel = r.weighted([[3, () => fileName(r) + "-bad.jsonl"], [1, "notes.txt"], [1, "x.jsonl.bak"]]);
    if (used.has(rel)) continue;
    used.add(rel);
    writeFileSync(join(root, rel), notASession(r, randomId(r)));
  }
  if (sessions.length > 0 && r.chance(0.2)) {
    try {
      symlinkSync(join(root, sessions[0].rel), join(root, "zz-link.jsonl"));
      symlinkSync(join(root, "sub"), join(root, "zz-linked-dir"));
    } catch {
      // Already there, or no symlinks here: fine.
    }
  }
  return { sessions, titles };
}

// ---------------------------------------------------------------- commands

/**
 * Add the command's one positional value. One starting with `-` goes last,
 * after `--`, so it cannot be taken for a flag (see `finish`).
 */
function positional(args, value) {
  if (value.startsWith("-")) args.dashed = value;
  else args.push(value);
}

/** The argument list, with a dashed positional after `--` at the end. */
function finish(args) {
  const out = [...args];
  if (args.dashed !== undefined) out.push("--", args.dashed);
  return out;
}

const argvSafe = (s) => !s.includes("\u0000");

function globals(r, stores, world, cwdPool) {
  const args = [];
  for (const s of stores) args.push("--store", s);
  const ids = world.sessions.map((s) => s.id).filter(argvSafe);
  const target = r.weighted([
    [6, () => (ids.length > 0 ? r.pick(ids) : "none")],
    [2, () => randomId(r)],
    [2, undefined],
  ]);
  if (target !== undefined && argvSafe(target)) args.push(`--session=${target}`);
  const cwd = r.weighted([[6, () => r.pick(cwdPool)], [2, undefined]]);
  if (cwd !== undefined) args.push(`--cwd=${cwd}`);
  return { args, target: argvSafe(target ?? "") ? target : undefined };
}

function configFlags(r, args, { prepare }) {
  if (r.chance(0.02)) args.push(`--max-references=${r.pick(["0", "4", "-1", "x", "1.5"])}`);
  else if (r.chance(0.3)) args.push(`--max-references=${r.int(1, 3)}`);
  if (r.chance(0.02)) args.push(`--candidate-limit=${r.pick(["0", "abc"])}`);
  else if (r.chance(0.2)) args.push(`--candidate-limit=${r.int(1, 10)}`);
  if (prepare) {
    const bytes = r.weighted([
      [2, () => r.int(1, 150)],
      [4, () => r.int(150, 1200)],
      [4, () => r.int(1200, 8000)],
      [2, () => r.int(8000, 70000)],
      [3, undefined],
      [0.3, () => r.pick(["0", "-5", "ten"])],
    ]);
    if (bytes !== undefined) args.push(`--max-reference-bytes=${bytes}`);
  }
}

function queryFor(r, world) {
  const pool = [
    ...world.sessions.map((s) => s.id),
    ...world.sessions.map((s) => s.cwd ?? ""),
    ...world.titles,
  ].filter((s) => s.length > 0);
  return r.weighted([
    [3, ""],
    [6, () => {
      if (pool.length === 0) return "a";
      const s = r.pick(pool);
      const chars = Array.from(s);
      const from = r.int(0, chars.length - 1);
      const sub = chars.slice(from, from + r.int(1, 6)).join("");
      return r.weighted([[3, sub], [1, sub.toUpperCase()], [1, sub.toLowerCase()]]);
    }],
    [1, () => randomText(r, 4)],
    [1, "σ"],
    [1, "i̇"],
  ]);
}

/** A mention of `id` in one of the forms the parser knows, or a near miss. */
function mentionOf(r, id) {
  const uri = encodeUri(id);
  return r.weighted([
    [12, () => mention(id, r.chance(0.5) ? undefined : randomText(r, 12))],
    [4, () => `${uri}${r.pick([" ", ".", ")", "\n", "", "!"])}`],
    [2, () => `@[${randomText(r, 5)}\\\n](${uri})`],
    [2, () => `@[label](${uri}\ufeff)`],
    // Near misses: no closing parenthesis, a space, an escaped bracket, no `@`.
    [1, () => `@[a](${uri}`],
    [1, () => `@[a] (${uri})`],
    [1, () => `@[a\\](${uri}) `],
    [1, () => `[x](${uri})`],
    [1, () => `@@[${randomText(r, 4)}](${uri})`],
    [1, () => `@[${mention(id)}](${uri})`],
    // Adjacent bare URIs run together; a trailing payload character spoils one.
    [1, () => `${uri}${uri} `],
    [1, () => `${uri}${r.pick(["_", "-", "A", "0"])} `],
  ]);
}

function malformedMention(r) {
  const base = encodeUri(r.pick(["abc", "x", ""]));
  return r.weighted([
    [2, () => `@[x](${base}=)`],
    [2, () => `@[x](${SCHEME})`],
    [2, () => `${base}Q`],
    [1, () => `@[x](${SCHEME}${Buffer.from('"\\u0041"').toString("base64url")})`],
    [1, () => `${SCHEME}${Buffer.from("12").toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from(' "a"').toString("base64url")}`],
    [1, () => `@[x](${SCHEME}%41)`],
    [2, () => `${SCHEME} plain`],
    [2, () => `(${SCHEME}) ${SCHEME}!`],
  ]);
}

/** A message text citing some sessions. */
function messageWithMentions(r, world, target) {
  const ids = world.sessions.map((s) => s.id);
  const parts = [];
  const n = r.weighted([[1, 0], [6, 1], [4, 2], [2, 3], [1, () => r.int(4, 6)]]);
  for (let i = 0; i < n; i += 1) {
    parts.push(randomText(r, 15));
    const id = r.weighted([
      [10, () => (ids.length > 0 ? r.pick(ids) : "ghost")],
      [1, () => randomId(r)],
      [target === undefined ? 0 : 0.5, () => target],
      [1, () => (parts.length > 1 ? ids[0] ?? "ghost" : "ghost")],
    ]);
    parts.push(r.chance(0.06) ? malformedMention(r) : mentionOf(r, id));
  }
  parts.push(randomText(r, 15));
  return parts.join("");
}

function jsonlMessages(r, world, target) {
  const n = r.int(1, 4);
  const lines = [];
  for (let i = 0; i < n; i += 1) {
    const kind = r.weighted([[8, "user"], [2, "plugin"], [1, "session-reference"]]);
    const content = [];
    for (let b = r.int(0, 3); b > 0; b -= 1) {
      content.push(
        r.weighted([
          [6, () => ({ type: "text", text: r.chance(0.6) ? messageWithMentions(r, world, target) : randomText(r, 20) })],
          [1, () => ({ cache: true, type: "text", text: messageWithMentions(r, world, target) })],
          [1, () => ({ type: "image", data: "AAAA", n: 1.5 })],
          [1, () => ({ type: "tool-call", input: { "2": "b", "1": "a", x: [1e21, 1e-7, -0] } })],
        ]),
      );
    }
    const message = { role: r.pick(["user", "user", "assistant"]), source: { kind }, content };
    const extras = r.weighted([
      [4, {}],
      [2, () => ({ id: `msg-${i}`, meta: { at: 1700000000123, ratio: 0.30000000000000004 } })],
      [1, () => ({ "10": "ten", "9": "nine", big: 12345678901234567890 })],
      [1, () => ({ tricky: "\u2028<", nested: { a: [null, true, false] } })],
    ]);
    const entries = Object.entries({ ...message, ...extras });
    if (r.chance(0.3)) entries.reverse();
    let text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
    if (r.chance(0.1)) text = text.replace(/^\{/, '{"__proto__":{"x":1},');
    if (r.chance(0.1)) text = text.replace(/\}$/, ',"dup":1,"dup":2}');
    if (r.chance(0.1)) text = text.replace(/^\{/, '{"f":[2.2250738585072011e-308,9007199254740993,5e-324,1.7976931348623157e308,0.1e1,123456789012345678901234567890,-0.0,1E400],');
    lines.push(text);
  }
  return lines.join(r.pick(["\n", "\n", "\r\n", "\n\n"])) + r.pick(["\n", "", "\n\n"]);
}

function invalidUri(r) {
  const good = encodeUri(randomId(r));
  return r.weighted([
    [2, () => `${good}=`],
    [2, () => `${good}A`],
    [1, () => good.slice(0, -1)],
    [1, () => good.toUpperCase()],
    [1, () => `other:${good.slice(SCHEME.length)}`],
    [1, () => SCHEME],
    [1, () => `${SCHEME}${Buffer.from('"\\u00e9"').toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from('"\\/"').toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from('"a" ').toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from([0x22, 0xff, 0x22]).toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from('"\\ud83d"').toString("base64url")}`],
    [1, () => `${SCHEME}${Buffer.from("null").toString("base64url")}`],
  ]);
}

function command(r, stores, world, cwdPool) {
  const g = globals(r, stores, world, cwdPool);
  const args = [...g.args];
  let stdin;
  const kind = r.weighted([[25, "candidates"], [40, "prepare"], [15, "jsonl"], [6, "preview"], [7, "encode"], [7, "decode"]]);
  switch (kind) {
    case "candidates": {
      configFlags(r, args, { prepare: false });
      args.push("candidates");
      const q = queryFor(r, world).replace(/\u0000/g, "");
      if (q !== "" || r.chance(0.5)) positional(args, q);
      if (r.chance(0.5)) args.push(`--limit=${r.weighted([[10, () => String(r.int(1, 12))], [1, "0"], [1, "x"]])}`);
      args.push("--json");
      break;
    }
    case "prepare": {
      configFlags(r, args, { prepare: true });
      args.push("prepare");
      const text = r.chance(0.02) ? "" : messageWithMentions(r, world, g.target);
      if (text.includes("\u0000") || r.chance(0.25)) stdin = text + r.pick(["\n", "", "\r\n", "\n\n"]);
      else positional(args, text);
      if (r.chance(0.5)) args.push(`--format=${r.pick(["text", "jsonl"])}`);
      break;
    }
    case "jsonl": {
      configFlags(r, args, { prepare: true });
      args.push("prepare", "--input=jsonl", `--format=${r.pick(["text", "jsonl"])}`);
      stdin = jsonlMessages(r, world, g.target);
      break;
    }
    case "preview": {
      configFlags(r, args, { prepare: true });
      const ids = world.sessions.map((s) => s.id).filter(argvSafe);
      const id = ids.length > 0 && r.chance(0.85) ? r.pick(ids) : randomId(r);
      args.push("preview");
      if (argvSafe(id)) positional(args, r.chance(0.3) ? encodeUri(id) : id);
      else positional(args, encodeUri(id));
      if (r.chance(0.3)) args.push(`--label=${randomText(r, 10).replace(/\u0000/g, "")}`);
      args.push("--json");
      break;
    }
    case "encode": {
      args.push("uri", "encode");
      const id = r.chance(0.5) && world.sessions.length > 0 ? r.pick(world.sessions).id : randomId(r);
      positional(args, argvSafe(id) ? id : "x");
      break;
    }
    case "decode": {
      args.push("uri", "decode");
      positional(args, r.chance(0.5) ? encodeUri(randomId(r)) : invalidUri(r));
      break;
    }
    default:
      throw new Error(kind);
  }
  return { args: finish(args), ...(stdin === undefined ? {} : { stdin }) };
}

// ---------------------------------------------------------------- main

function main() {
  const opts = { seed: 1, stores: 4, cases: 25, out: undefined, broken: 0.15, ambiguous: 0.05, bulky: 0.004 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    opts[key] = key === "out" ? argv[i + 1] : Number(argv[i + 1]);
  }
  if (opts.out === undefined) throw new Error("--out DIR is required");
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const cwdPool = [...CWDS, out];
  const cases = [];
  for (let s = 0; s < opts.stores; s += 1) {
    const r = makeRng(opts.seed * 1000003 + s);
    const root = join(out, `store-${opts.seed}-${s}`);
    const world = writeStore(r, root, cwdPool, opts);
    const roots = [root];
    if (r.chance(0.15)) {
      const second = join(out, `store-${opts.seed}-${s}-b`);
      const more = writeStore(r, second, cwdPool, opts);
      world.sessions.push(...more.sessions);
      world.titles.push(...more.titles);
      roots.push(second);
    }
    for (let c = 0; c < opts.cases; c += 1) {
      cases.push({ name: `seed ${opts.seed} store ${s} case ${c}`, ...command(r, roots, world, cwdPool) });
    }
  }
  writeFileSync(join(out, `cases-${opts.seed}.jsonl`), cases.map((c) => JSON.stringify(c) + "\n").join(""));
}

main();
